package peppolnet

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// DirectoryMirror is a local copy of the Peppol Directory (package mirror): search and
// business cards answered from disk, without asking the Directory.
type DirectoryMirror interface {
	// SearchPage answers a search from the mirror. text is trimmed and either between
	// MinQueryLength and MaxQueryLength characters, or empty when country is set;
	// country is "" or two upper-case letters. With an empty text it lists the cards
	// having an entity in country, in export order. The result holds the hits from
	// offset (0-based), at most limit of them, and the exact TotalCount (for a country
	// alone, the number of such cards). It returns registry.ErrMirrorUnavailable when
	// the mirror holds no data, and other errors when it cannot be read.
	SearchPage(ctx context.Context, text, country string, offset, limit int) (*registry.SearchResult, error)
	// Card returns the participant's business card, or nil and no error when the mirror
	// has none. It returns registry.ErrMirrorUnavailable when the mirror holds no data.
	Card(ctx context.Context, id peppol.ParticipantID) (*registry.DirectoryRecord, error)
	// DataAsOf is when the mirrored data was exported by the Directory; zero when the
	// mirror holds no data.
	DataAsOf() time.Time
}

// mirrorState is how far the mirror may be used at a given time.
type mirrorState int

const (
	mirrorNone    mirrorState = iota // no mirror configured
	mirrorEmpty                      // configured, holds no data
	mirrorFresh                      // answers first
	mirrorStale                      // older than MirrorMaxAge: answers when the live Directory fails
	mirrorExpired                    // older than MirrorHardMaxAge: never answers
)

// mirrorAt says how far the mirror may be used at now, with its data's export time.
func (l *Registry) mirrorAt(now time.Time) (mirrorState, time.Time) {
	if l.cfg.Mirror == nil {
		return mirrorNone, time.Time{}
	}
	asOf := l.cfg.Mirror.DataAsOf()
	switch age := now.Sub(asOf); {
	case asOf.IsZero():
		return mirrorEmpty, asOf
	case age > l.cfg.MirrorHardMaxAge:
		return mirrorExpired, asOf
	case age > l.cfg.MirrorMaxAge:
		return mirrorStale, asOf
	}
	return mirrorFresh, asOf
}

// MirrorState says how far the Directory mirror may be used at now, as lookups and
// searches judge it: registry.MirrorOK, MirrorStale, MirrorExpired or MirrorEmpty, or
// "" without a mirror; and the ages it judges by (Config.MirrorMaxAge and
// MirrorHardMaxAge, defaults applied).
func (l *Registry) MirrorState(now time.Time) (state string, maxAge, hardMaxAge time.Duration) {
	st, _ := l.mirrorAt(now)
	state = map[mirrorState]string{mirrorEmpty: registry.MirrorEmpty, mirrorFresh: registry.MirrorOK,
		mirrorStale: registry.MirrorStale, mirrorExpired: registry.MirrorExpired}[st]
	return state, l.cfg.MirrorMaxAge, l.cfg.MirrorHardMaxAge
}

// mirrorSkipped is the warning of an answer the live Directory gave although a mirror
// is configured, because the mirror is in state st (nil when no warning is due).
func (l *Registry) mirrorSkipped(st mirrorState, asOf time.Time) *registry.Warning {
	switch st {
	case mirrorEmpty:
		return &registry.Warning{Code: registry.WarnMirrorUnavailable, Message: "peppolgate's copy of the Peppol Directory holds no data yet, so the live Directory answered (slower, rate limited)"}
	case mirrorStale:
		return &registry.Warning{Code: registry.WarnMirrorStale, Message: "peppolgate's copy of the Peppol Directory is from " + asOf.UTC().Format(time.RFC3339) + ", older than " + days(l.cfg.MirrorMaxAge) + ", so the live Directory answered (slower, rate limited) until it is refreshed"}
	case mirrorExpired:
		return &registry.Warning{Code: registry.WarnMirrorStale, Message: "peppolgate's copy of the Peppol Directory is from " + asOf.UTC().Format(time.RFC3339) + ", older than " + days(l.cfg.MirrorHardMaxAge) + ", so it is no longer used and the live Directory answered (slower, rate limited) until it is refreshed"}
	}
	return nil
}

// staleFallback is the warning of an answer a stale mirror (data as of asOf) gave
// because the live Directory failed; what names what could not be done.
func (l *Registry) staleFallback(asOf time.Time, what string) registry.Warning {
	age := l.cfg.Now().Sub(asOf)
	return registry.Warning{Code: registry.WarnMirrorStale, Message: "the Peppol Directory could not be " + what + ", so this comes from peppolgate's copy of the Directory exported on " +
		asOf.UTC().Format(time.RFC3339) + " (" + days(age) + " old, older than the " + days(l.cfg.MirrorMaxAge) + " it is normally used for): cards published or changed since are missing or out of date; retry later for the live answer"}
}

// days renders an age for messages: "4 days", "1 day", "20 hours".
func days(d time.Duration) string {
	switch h := int(d / time.Hour); {
	case h < 48:
		return strconv.Itoa(h) + " hours"
	default:
		return strconv.Itoa(h/24) + " days"
	}
}

// mirrorSearch answers page (1-based) of a validated search from the mirror, whose data
// is as of asOf. ok is false when the mirror could not answer; warn then says why.
func (l *Registry) mirrorSearch(ctx context.Context, text, country string, page int, asOf time.Time) (res *registry.SearchResult, ok bool, warn *registry.Warning) {
	start := time.Now()
	r, err := l.mirrorSearchPage(ctx, text, country, page)
	l.observeCall(ctx, registry.UpstreamMirror, start, err, slog.String("query", text))
	if err != nil {
		return nil, false, &registry.Warning{Code: registry.WarnMirrorUnavailable, Message: "peppolgate's copy of the Peppol Directory could not be searched, so the live Directory answered (slower, rate limited)"}
	}
	out := *r // the mirror's answer is ours to complete
	out.Query = text
	out.Source = registry.SourceMirror
	out.Page, out.NextPage = page, registry.NextSearchPage(page, out.TotalCount)
	if out.DataAsOf == nil { // the mirror sets it from the very file it searched
		out.DataAsOf = &asOf
	}
	if out.Results == nil {
		out.Results = []registry.SearchHit{}
	}
	return &out, true, nil
}

// mirrorCard answers the Directory half of a lookup from the mirror; ok is false when
// the mirror could not answer.
func (l *Registry) mirrorCard(ctx context.Context, id peppol.ParticipantID) (rec *registry.DirectoryRecord, ok bool) {
	start := time.Now()
	rec, err := l.mirrorCardOf(ctx, id)
	l.observeCall(ctx, registry.UpstreamMirror, start, err, slog.String("participant", id.String()))
	if err != nil {
		return nil, false
	}
	return rec, true
}

// mirrorSearchPage is the mirror's page of a search, in a span when tracing is on;
// off, it builds no attribute and no span (BenchmarkMirrorSearch).
func (l *Registry) mirrorSearchPage(ctx context.Context, text, country string, page int) (*registry.SearchResult, error) {
	offset := (page - 1) * registry.MaxSearchResults
	if l.tracer == nil || telemetry.CountCall(ctx) {
		return l.cfg.Mirror.SearchPage(ctx, text, country, offset, registry.MaxSearchResults)
	}
	ctx, span := l.startSpan(ctx, "Directory mirror search", attribute.Int("peppol.search.page", page))
	r, err := l.cfg.Mirror.SearchPage(ctx, text, country, offset, registry.MaxSearchResults)
	if err == nil {
		span.SetAttributes(attribute.Int("peppol.search.total", r.TotalCount))
	}
	endSpan(span, err)
	return r, err
}

// mirrorCardOf is the mirror's card of id, in a span when tracing is on; off, it
// builds no attribute and no span.
func (l *Registry) mirrorCardOf(ctx context.Context, id peppol.ParticipantID) (*registry.DirectoryRecord, error) {
	if l.tracer == nil || telemetry.CountCall(ctx) {
		return l.cfg.Mirror.Card(ctx, id)
	}
	ctx, span := l.startSpan(ctx, "Directory mirror card", attribute.String("peppol.participant.id", id.String()))
	rec, err := l.cfg.Mirror.Card(ctx, id)
	span.SetAttributes(attribute.Bool("peppol.directory.card", rec != nil))
	endSpan(span, err)
	return rec, err
}

// statsMirror is a DirectoryMirror that counts its cards (mirror.Store is one).
type statsMirror interface {
	Stats(ctx context.Context) (*registry.Stats, error)
}

// Stats returns the counts over the Directory mirror's cards (registry.StatsSource),
// whatever the age of its data (DataAsOf says it). It returns a *registry.Error with
// CodeStatsUnavailable when the registry has no mirror that counts, or its mirror holds
// no data or cannot be read, and ctx's error.
func (l *Registry) Stats(ctx context.Context) (*registry.Stats, error) {
	m, ok := l.cfg.Mirror.(statsMirror)
	if !ok {
		return nil, registry.ErrNoStatsMirror()
	}
	start := time.Now()
	st, err := m.Stats(ctx)
	l.observeCall(ctx, registry.UpstreamMirror, start, err, slog.String("query", "statistics"))
	switch {
	case errors.Is(err, registry.ErrMirrorUnavailable):
		return nil, registry.ErrStatsMirrorEmpty(err)
	case err != nil && ctx.Err() == nil:
		return nil, &registry.Error{Code: registry.CodeStatsUnavailable, RetryAfter: time.Minute, Err: err,
			Message: "the Directory mirror could not be read to count its cards; retry later"}
	}
	return st, err
}

var _ registry.StatsSource = (*Registry)(nil)
