package sml

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// How long a zone check's outcome is reused (docs/ARCHITECTURE.md §1).
const (
	// DefaultZoneCheckTTL is how long a server that resolved the SML zone's SOA is
	// believed to answer for the zone. It is short: a resolver that drops the SOA from
	// its negative answers (some stub resolvers do) and then turns into one that answers
	// NXDOMAIN for every name (the machine joined a captive network) is believed at most
	// this long, and a check costs a single query.
	DefaultZoneCheckTTL = 10 * time.Second
	// ZoneCheckRetry is how long a failed zone check is reused before the server is
	// asked again, so that a resolver that answers NXDOMAIN for every name costs one
	// query per ZoneCheckRetry, not one per lookup.
	ZoneCheckRetry = 30 * time.Second
)

// zoneChecks remembers, per DNS server, whether the SML zone's own SOA resolves through
// it, and coalesces concurrent checks of one server.
type zoneChecks struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*zoneCheck
}

// zoneCheck is one check of one server: in flight until done is closed.
type zoneCheck struct {
	done    chan struct{}
	failure *serverFailure // nil: the zone resolved
	expires time.Time
	// abandoned: the check was cut short by its caller's context and says nothing;
	// waiters start their own.
	abandoned bool
}

// serverFailure is what one server answered to the zone check.
type serverFailure struct {
	server string
	rcode  int
	reason string // what it answered, without the server's address
	// noZone: the answer says the zone's name does not exist there (NXDOMAIN, or the
	// SOA of a zone the SML zone is not in), rather than that no answer was had.
	noZone bool
}

func newZoneChecks() *zoneChecks {
	return &zoneChecks{now: time.Now, m: map[string]*zoneCheck{}}
}

// check returns the remembered outcome of server's zone check, or runs probe (once for
// all concurrent callers) and remembers it. A probe cut short by ctx is not remembered.
func (c *zoneChecks) check(ctx context.Context, server string, probe func(context.Context) (*serverFailure, int)) (*serverFailure, int, error) {
	for {
		c.mu.Lock()
		e := c.m[server]
		if e != nil {
			select {
			case <-e.done:
				if c.now().Before(e.expires) {
					c.mu.Unlock()
					return e.failure, 0, nil
				}
				e = nil
			default:
			}
		}
		if e == nil {
			e = &zoneCheck{done: make(chan struct{})}
			c.m[server] = e
			c.mu.Unlock()
			failure, sent := probe(ctx)
			c.mu.Lock()
			if err := ctx.Err(); err != nil {
				e.abandoned = true
				delete(c.m, server)
				close(e.done)
				c.mu.Unlock()
				return nil, sent, err
			}
			e.failure = failure
			e.expires = c.now().Add(DefaultZoneCheckTTL)
			if failure != nil {
				e.expires = c.now().Add(ZoneCheckRetry)
			}
			close(e.done)
			c.mu.Unlock()
			return failure, sent, nil
		}
		c.mu.Unlock()
		select {
		case <-e.done:
			if e.abandoned {
				continue
			}
			return e.failure, 0, nil
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// probeZone asks server for the SML zone's SOA, up to r.attempts times while it gives
// no reply or a failure rcode. The zone's name exists when a recursive or authoritative
// answer (RA or AA) is NOERROR and holds the zone's SOA, or a DNAME or CNAME owned by
// the zone's name, or no records and, in its authority section, the SOA of the zone or
// of a zone above it other than the root: the SML zone may be a name inside its parent
// zone with no SOA of its own, or a DNAME owner there (docs/ARCHITECTURE.md §1). It
// returns nil then, and the number of queries sent.
func (r *Resolver) probeZone(ctx context.Context, server string) (*serverFailure, int) {
	fqdn := dns.Fqdn(r.zone)
	sent := 0
	var last *serverFailure
	for range r.attempts {
		resp, n, err := r.query(ctx, fqdn, dns.TypeSOA, server)
		sent += n
		if err != nil {
			last = &serverFailure{server: server, rcode: NoRcode, reason: err.Error()}
			if ctx.Err() != nil {
				break
			}
			continue
		}
		rc := rcodeName(resp.Rcode)
		switch {
		case resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError:
			// SERVFAIL, REFUSED, ...: perhaps passing; ask again.
			last = &serverFailure{server: server, rcode: resp.Rcode, reason: rc}
			continue
		case resp.Rcode == dns.RcodeNameError:
			return &serverFailure{server: server, rcode: resp.Rcode, reason: rc, noZone: true}, sent
		case !resp.RecursionAvailable && !resp.Authoritative:
			return &serverFailure{server: server, rcode: resp.Rcode, reason: rc + " from a server that is neither recursive nor authoritative"}, sent
		}
		exists, foreign := zoneNameExists(resp, canonical(fqdn))
		switch {
		case exists:
			return nil, sent
		case foreign != "":
			return &serverFailure{server: server, rcode: resp.Rcode, reason: rc + " with the SOA of " + foreign + ", a zone the SML zone is not in", noZone: true}, sent
		}
		return &serverFailure{server: server, rcode: resp.Rcode, reason: rc + " without the zone's SOA"}, sent
	}
	return last, sent
}

// zoneNameExists reports whether resp, a NOERROR answer to the SOA question of the
// canonical zone, proves the zone's name exists (see probeZone). Otherwise it returns
// the owner (without the trailing dot) of an SOA the answer holds of a zone that does
// not contain the zone, if any: an answer about another zone.
func zoneNameExists(resp *dns.Msg, zone string) (bool, string) {
	foreign := ""
	for _, rr := range resp.Answer {
		owner := canonical(rr.Header().Name)
		switch rr.(type) {
		case *dns.SOA:
			if owner == zone {
				return true, ""
			}
			foreign = owner
		case *dns.DNAME, *dns.CNAME:
			if owner == zone {
				return true, ""
			}
		}
	}
	for _, rr := range resp.Ns {
		if _, ok := rr.(*dns.SOA); !ok {
			continue
		}
		owner := canonical(rr.Header().Name)
		switch {
		case owner != "." && within(zone, owner) && len(resp.Answer) == 0:
			return true, ""
		case !within(zone, owner):
			foreign = owner
		}
	}
	return false, strings.TrimSuffix(foreign, ".")
}

// ZoneCheckError is CheckZone's error: no DNS server proved the SML zone's name exists.
type ZoneCheckError struct {
	// Zone is the SML zone.
	Zone     string
	failures []*serverFailure
}

// NoSuchZone reports whether a server answered that the zone's name does not exist
// (NXDOMAIN, or the SOA of a zone the SML zone is not in), rather than giving no reply,
// a failure rcode (SERVFAIL, REFUSED) or an answer that proves nothing: a resolver that
// does not answer for the SML, not one that is failing for a while.
func (e *ZoneCheckError) NoSuchZone() bool {
	for _, f := range e.failures {
		if f.noZone {
			return true
		}
	}
	return false
}

// Error names the zone, each server and what it answered.
func (e *ZoneCheckError) Error() string {
	parts := make([]string, 0, len(e.failures))
	for _, f := range e.failures {
		parts = append(parts, f.server+": "+f.reason)
	}
	return "sml: the SML zone " + e.Zone + " does not resolve: " + strings.Join(parts, "; ")
}

// Reason says what went wrong without naming the servers (their addresses may be
// internal): e.g. "NXDOMAIN", or "udp: no reply within 2s".
func (e *ZoneCheckError) Reason() string {
	seen := map[string]bool{}
	var parts []string
	for _, f := range e.failures {
		if !seen[f.reason] {
			seen[f.reason] = true
			parts = append(parts, f.reason)
		}
	}
	return strings.Join(parts, "; ")
}

// CheckZone reports whether the SML zone resolves through the resolver: whether one of
// its servers (asked at once) answers the zone's SOA query with the zone's SOA. Outcomes
// are reused per server (DefaultZoneCheckTTL after a success, ZoneCheckRetry after a
// failure) and shared with the check Lookup makes of a negative answer that carries no
// proof of its own.
//
// Errors: a *ZoneCheckError when no server resolves the zone; ctx's error when ctx ends
// first (that check is not remembered).
func (r *Resolver) CheckZone(ctx context.Context) error {
	checks := r.checks
	if checks == nil {
		return errors.New("sml: resolver has no DNS servers; create it with New")
	}
	// The servers are asked at once, so that a silent one does not hold the answer up;
	// the first that resolves the zone ends the others' checks (which are then not
	// remembered).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	failures := make([]*serverFailure, len(r.servers))
	errs := make([]error, len(r.servers))
	var wg sync.WaitGroup
	for i, server := range r.servers {
		wg.Go(func() {
			failure, _, err := checks.check(cctx, server, func(ctx context.Context) (*serverFailure, int) { return r.probeZone(ctx, server) })
			failures[i], errs[i] = failure, err
			if err == nil && failure == nil {
				cancel()
			}
		})
	}
	wg.Wait()
	ze := &ZoneCheckError{Zone: r.zone}
	for i := range r.servers {
		switch {
		case errs[i] == nil && failures[i] == nil:
			return nil
		case errs[i] == nil:
			ze.failures = append(ze.failures, failures[i])
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return ze
}

// proof is what a negative answer's authority section says about where it comes from.
type proof int

const (
	// proofZone: an SOA of the SML zone (or below it, or of a zone a DNAME of the SML
	// zone points to) covering the name the answer is about.
	proofZone proof = iota + 1
	// proofNone: no SOA, or only SOAs above the zone that cover the name (the root's,
	// a parent's): the zone itself must be checked.
	proofNone
	// proofForeign: only SOAs of zones the name is not in.
	proofForeign
)

// negativeProof classifies the authority section of a negative answer to the question
// fqdn, for zone. It returns, without the trailing dot, the owner of a foreign SOA for
// proofForeign, and for proofNone that of an SOA above the zone covering the name, if
// any ("." for the root's).
func negativeProof(resp *dns.Msg, fqdn, zone string) (proof, string) {
	// The chain starts at the question, in the zone: a DNAME it goes through moves the
	// rest of the name into the DNAME's target, whose SOA then speaks for the zone.
	final, dnames := chainEnd(resp.Answer, fqdn)
	zones := append([]string{canonical(zone)}, dnames...)
	covering, foreign := "", ""
	for _, rr := range resp.Ns {
		soa, ok := rr.(*dns.SOA)
		if !ok {
			continue
		}
		owner := canonical(soa.Hdr.Name)
		if !within(final, owner) {
			foreign = owner
			continue
		}
		for _, z := range zones {
			if within(owner, z) {
				return proofZone, ""
			}
		}
		if covering == "" {
			covering = owner
		}
	}
	if foreign != "" && covering == "" {
		return proofForeign, strings.TrimSuffix(foreign, ".")
	}
	if covering != "." {
		covering = strings.TrimSuffix(covering, ".")
	}
	return proofNone, covering
}

// within reports whether the canonical name is zone or below it.
func within(name, zone string) bool {
	return zone == "." || name == zone || strings.HasSuffix(name, "."+zone)
}

// trustNegative returns neg, a KindNotRegistered *Error built from resp, when resp
// proves it comes from the SML zone, and otherwise a KindDNSFailure whose cause is a
// *NotFromZoneError (docs/ARCHITECTURE.md §1). It may check the zone through server,
// and returns the number of queries that sent.
func (r *Resolver) trustNegative(ctx context.Context, resp *dns.Msg, fqdn, server string, neg *Error) (*Error, int) {
	p, soa := negativeProof(resp, fqdn, r.zone)
	switch p {
	case proofZone:
		return neg, 0
	case proofForeign:
		return &Error{Kind: KindDNSFailure, Name: neg.Name, Server: server, Rcode: resp.Rcode,
			Err: &NotFromZoneError{Zone: r.zone, Rcode: resp.Rcode, SOA: soa}}, 0
	}
	failure, sent, err := r.checks.check(ctx, server, func(ctx context.Context) (*serverFailure, int) { return r.probeZone(ctx, server) })
	switch {
	case err != nil:
		return &Error{Kind: KindDNSFailure, Name: neg.Name, Server: server, Rcode: NoRcode, Err: err}, sent
	case failure != nil:
		return &Error{Kind: KindDNSFailure, Name: neg.Name, Server: server, Rcode: resp.Rcode,
			Err: &NotFromZoneError{Zone: r.zone, Rcode: resp.Rcode, Above: soa, Check: failure.reason}}, sent
	}
	return neg, sent
}
