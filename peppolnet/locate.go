package peppolnet

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/registry"
)

var _ registry.Locator = (*Registry)(nil)

// handoffTTL is how long an SML answer SMPHost got waits for the lookup of the same
// participant that usually follows, so that the lookup does not ask the SML again.
const handoffTTL = 30 * time.Second

// SMPHost implements registry.Locator: the host (with its port, when the URL has one)
// of the SMP the SML names for id, from
// a fresh cached lookup when there is one, else from the SML, whose answer the next
// Lookup of id then uses instead of asking again (within handoffTTL). It returns an
// *registry.Error with CodeNotFound when the SML says id is not registered (or a
// cached lookup found it on no SMP), CodeInvalidParticipantID for an empty id and
// CodeLookupFailed when the SML gave no definite answer.
func (l *Registry) SMPHost(ctx context.Context, id peppol.ParticipantID) (string, error) {
	id, key, err := participantKey(id)
	if err != nil {
		return "", err
	}
	now := l.cfg.Now()
	if c, ok := l.lookups.get(key); ok && now.Sub(c.fetched) < c.ttl {
		switch {
		case c.err != nil:
			return "", c.err
		case c.val.SMP == nil:
			return "", notInSML(key)
		}
		return hostOf(c.val.SMP.URL), nil
	}
	start := time.Now()
	res, err := l.cfg.Resolver.Lookup(ctx, id)
	l.observeCall(ctx, registry.UpstreamSML, start, err, slog.String("participant", key))
	switch {
	case err == nil, errors.Is(err, sml.ErrNotRegistered), errors.Is(err, sml.ErrNoSMPService):
		l.handoff.put(key, cacheEntry[*sml.Result]{val: res, err: err, fetched: now, ttl: handoffTTL})
	}
	switch {
	case errors.Is(err, sml.ErrNotRegistered):
		return "", notInSML(key)
	case errors.Is(err, sml.ErrNoSMPService):
		return "", nil
	case err != nil:
		return "", &registry.Error{Code: registry.CodeLookupFailed, Message: "the Peppol network could not be queried for " + key + ": " + smlFailure(err) + "; retry with exponential backoff", Err: err}
	}
	return hostOf(res.BaseURL), nil
}

// smlFailure says, for a lookup_failed message, why the SML gave no definite answer (err
// is the resolver's failure). It names no address: the message goes to clients.
func smlFailure(err error) string {
	if errors.Is(err, sml.ErrNotFromZone) {
		// docs/ARCHITECTURE.md §1: an NXDOMAIN is "not registered" only from the SML zone.
		return "the DNS server peppolgate asks answered that the participant's SML name does not exist, but the answer does not come from the SML zone (a captive portal, a filtering or broken resolver, or the wrong DNS server), so whether it is registered is unknown"
	}
	return "the SML (DNS) did not give a definite answer"
}

// CheckSML reports whether the network's SML zone resolves through its DNS servers
// (sml.Resolver.CheckZone, whose outcome is remembered for a while), for /readyz. A
// zone that does not resolve is logged, once per cause, naming the servers; the
// status's message names none. NoSuchZone is set only when a server answered that the
// zone does not exist (sml.ZoneCheckError.NoSuchZone), not for a timeout or SERVFAIL
// (docs/INTERFACE.md §4.6). A check cut short by ctx says so and is not OK.
func (l *Registry) CheckSML(ctx context.Context) registry.SMLStatus {
	zone := l.cfg.Resolver.Zone()
	st := registry.SMLStatus{Zone: zone, OK: true}
	err := l.cfg.Resolver.CheckZone(ctx)
	var ze *sml.ZoneCheckError
	switch {
	case err == nil:
		return st
	case errors.As(err, &ze):
		st.NoSuchZone = ze.NoSuchZone()
		st.Message = "the SML zone " + zone + " does not resolve through the configured DNS servers (" + ze.Reason() + "), so no lookup of this network can tell whether a participant is registered"
		if ok, held := l.causeLog.allow("zone "+err.Error(), l.cfg.Now()); ok {
			l.cfg.Logger.LogAttrs(ctx, slog.LevelError, "the SML zone does not resolve through the DNS servers; every lookup fails until it does (check the DNS servers, e.g. -dns-server)",
				slog.String("zone", zone), slog.Int("held_back", held), slog.String("err", err.Error()))
		}
	default:
		st.Message = "the check of the SML zone " + zone + " did not finish: " + err.Error()
	}
	st.OK = false
	return st
}

// hostOf is the host (and port, when given) of an SMP URL, lower-case, as the SMP
// host gates key their slots; "" when raw is no URL.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// notInSML is SMPHost's answer for a participant the SML does not name.
func notInSML(key string) error {
	return &registry.Error{Code: registry.CodeNotFound, Message: "participant " + key + " is not registered in the SML, so it cannot receive documents over Peppol"}
}

// resolve asks the SML for id, taking the answer SMPHost left for this lookup when it
// is still fresh (each answer is used once).
func (l *Registry) resolve(ctx context.Context, id peppol.ParticipantID) (*sml.Result, error) {
	key := id.String()
	if e, ok := l.handoff.take(key); ok && l.cfg.Now().Sub(e.fetched) < e.ttl {
		return e.val, e.err
	}
	start := time.Now()
	traced := l.tracer != nil && !telemetry.CountCall(ctx)
	sctx, span := ctx, trace.Span(nil) // a span only when traced
	if traced {
		sctx, span = l.startSpan(ctx, "SML NAPTR", l.zoneAttr(), attribute.String("peppol.participant.id", key))
	}
	res, err := l.cfg.Resolver.Lookup(sctx, id)
	if traced {
		span.SetAttributes(smlSpanAttrs(res, err)...)
		endSpan(span, err)
	}
	l.observeCall(ctx, registry.UpstreamSML, start, err, slog.String("participant", key))
	return res, err
}
