// Package peppolnet answers registry questions from the live Peppol network: the SML
// over DNS, the participants' SMPs and the Peppol Directory (or its local mirror). It
// is the adapter of the domain (package registry) to the network, holding the machinery
// that makes it fast and polite: caches, coalescing of identical requests, circuit
// breakers, the Directory's rate limiter, per-SMP-host gates and the SSRF-guarded
// clients' deadlines (docs/ARCHITECTURE.md §2).
package peppolnet

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// Registry is the registry.Registry that queries the Peppol network: the SML and the participant's
// SMP, and the Peppol Directory, with caching, coalescing of identical concurrent
// requests and a shared client-side rate limit for the Directory. It caps the requests
// in flight to each SMP host and keeps a circuit breaker per SMP host and one for the
// Directory, so that a host that is down is not asked again until it has cooled down
// (see Config). Every upstream call and cache decision is reported to Config.Observer.
// It is safe for concurrent use.
//
// Answers are shared between callers and with the cache: callers must not modify the
// *Participant or *SearchResult they receive.
type Registry struct {
	cfg           Config
	smp           *smp.Client // cfg.SMP with the gate below
	smpGates      *hostGates
	dirLimit      *limiter
	dirBreaker    *breaker
	dirPause      pause                          // the Directory's last Retry-After
	polite        *fleetPolite                   // the fleet-wide budget, caps and breakers (fleetpolite.go); nil without Config.Fleet
	lookups       *tiered[*registry.Participant] // shared with a fleet (sharedcache.go)
	searches      *tiered[*registry.SearchResult]
	lookupFlights flights[fetchResult]
	searchFlights flights[searchOutcome]
	// services and servicesFlights cache and coalesce Services calls (services.go).
	services        *tiered[*registry.ServicesResult]
	servicesFlights flights[servicesFetch]
	// ocsp remembers OCSP answers and ocspFlights coalesces the requests (revocation.go).
	ocsp        revocations
	ocspFlights flights[revocationEntry]
	// handoff holds the SML answers SMPHost got for the lookups that follow (locate.go).
	handoff *cache[*sml.Result]
	// causeLog logs an SML answer not from the SML zone once per cause (causelog.go).
	causeLog *causeLog
	// tracer makes the spans of the upstream work (tracing.go); nil with tracing off.
	tracer trace.Tracer
}

var _ registry.Registry = (*Registry)(nil)

// New returns a Registry for cfg, with defaults for zero fields (see Config).
// It returns an error when Resolver, SMP or Directory is nil, Fleet is set without
// FleetScope, or a duration, rate or size is negative.
func New(cfg Config) (*Registry, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	gates := newHostGates(cfg.SMPHostConcurrency, cfg.BreakerFailures, cfg.BreakerWindow, cfg.BreakerCooldown, cfg.Now)
	smpc := *cfg.SMP
	smpc.Gate = gates
	tracer := tracerFor(cfg)
	if tracer != nil {
		// Every SMP, Directory and OCSP request a span of its own (copies: the
		// caller's clients stay as they are).
		smpc.HTTP = telemetry.ClientFailing(smpc.HTTP, cfg.TracerProvider, "SMP", smpFailed)
		dir := *cfg.Directory
		dir.HTTP = telemetry.ClientFailing(dir.HTTP, cfg.TracerProvider, "Directory", directoryFailed)
		cfg.Directory = &dir
		if cfg.OCSP != nil {
			cfg.OCSP = telemetry.Client(cfg.OCSP, cfg.TracerProvider, "OCSP")
		}
	}
	polite := newFleetPolite(cfg)
	gates.fleet = polite
	return &Registry{
		cfg:      cfg,
		polite:   polite,
		smp:      &smpc,
		smpGates: gates,
		// The limiter sleeps on real timers, so it reads the real clock, not cfg.Now.
		dirLimit:   newLimiter(cfg.DirectoryRate, cfg.DirectoryBurst, cfg.DirectoryQueue, time.Now),
		dirBreaker: newBreaker(cfg.BreakerFailures, cfg.BreakerWindow, cfg.BreakerCooldown),
		lookups:    newTiered[*registry.Participant](cfg, kindLookup),
		searches:   newTiered[*registry.SearchResult](cfg, kindSearch),
		services:   newTiered[*registry.ServicesResult](cfg, kindServices),
		handoff:    newCache[*sml.Result](cfg.MaxCacheEntries),
		causeLog:   newCauseLog(),
		tracer:     tracer,
		// The flights' coalesced wait spans (flight.go).
		lookupFlights:   flights[fetchResult]{tracer: tracer},
		searchFlights:   flights[searchOutcome]{tracer: tracer},
		servicesFlights: flights[servicesFetch]{tracer: tracer},
		ocspFlights:     flights[revocationEntry]{tracer: tracer},
	}, nil
}

// participantKey returns id with its value lower-case, as every answer about it is
// cached, and its cache key. It returns a *registry.Error with
// CodeInvalidParticipantID for an empty id.
func participantKey(id peppol.ParticipantID) (peppol.ParticipantID, string, error) {
	if id.IsZero() || id.ICD == "" || id.Value == "" {
		return id, "", &registry.Error{Code: registry.CodeInvalidParticipantID, Message: "the participant identifier is empty; use <4-digit scheme>:<value>, e.g. 0208:0677424046"}
	}
	id.Value = strings.ToLower(id.Value)
	return id, id.String(), nil
}

// maxDirectoryPause bounds how long a Directory Retry-After stops our requests, so a
// wrong header cannot silence the Directory for hours.
const maxDirectoryPause = 5 * time.Minute

// directorySearch runs one Directory query under the shared rate limit and the
// Directory's circuit breaker, and reports it to the Observer. With a fleet, the rate
// limit, the Directory's Retry-After pause and its breaker are the fleet's
// (fleetpolite.go), behind this replica's own fair queue. A full queue or an open
// breaker is reported as an ErrUnavailable-kind *directory.Error wrapping
// errLimiterBusy or a *circuitOpenError, so callers treat it like any Directory
// outage.
func (l *Registry) directorySearch(ctx context.Context, q directory.Query) (*directory.Result, error) {
	start := time.Now()
	notSent := func(cause error) error {
		l.cfg.Observer.Upstream(registry.UpstreamDirectory, registry.OutcomeRejected, time.Since(start))
		return &directory.Error{Kind: directory.KindUnavailable, Err: cause}
	}
	// The Directory said to wait (429 with Retry-After): honour it without asking.
	if wait := l.dirPause.remaining(time.Now()); wait > 0 {
		l.cfg.Observer.Upstream(registry.UpstreamDirectory, registry.OutcomeRejected, time.Since(start))
		return nil, &directory.Error{Kind: directory.KindRateLimited, Err: &directory.RateLimitError{RetryAfter: wait}}
	}
	// Checked before queueing, so that an open breaker costs no rate-limit token.
	if e := l.dirBreaker.blocked(l.cfg.Now()); e != nil {
		return nil, notSent(e)
	}
	if err := l.dirLimit.wait(ctx); err != nil {
		return nil, notSent(err)
	}
	if l.polite != nil {
		// Fleet-wide (docs/ARCHITECTURE.md §7): another replica's pause or open
		// breaker holds here too, and the token must also come from the fleet's budget.
		paused, open, err := l.polite.directoryTurn(ctx)
		if paused > 0 {
			l.dirPause.extend(time.Now(), paused)
			l.cfg.Observer.Upstream(registry.UpstreamDirectory, registry.OutcomeRejected, time.Since(start))
			return nil, &directory.Error{Kind: directory.KindRateLimited, Err: &directory.RateLimitError{RetryAfter: paused}}
		}
		if open.d > 0 {
			l.dirBreaker.adopt(l.cfg.Now(), open.d, open.failures)
			if e := l.dirBreaker.blocked(l.cfg.Now()); e != nil {
				return nil, notSent(e)
			}
			return nil, notSent(&circuitOpenError{failures: open.failures, retryAfter: open.d})
		}
		if err != nil {
			return nil, notSent(err)
		}
	}
	probe, refused := l.dirBreaker.allow(l.cfg.Now())
	if refused != nil {
		return nil, notSent(refused)
	}
	start = time.Now()
	res, err := l.cfg.Directory.Search(ctx, q)
	var rl *directory.RateLimitError
	if errors.As(err, &rl) && rl.RetryAfter > 0 {
		l.dirPause.extend(time.Now(), min(rl.RetryAfter, maxDirectoryPause))
		if l.polite != nil {
			l.polite.pauseDirectory(ctx, min(rl.RetryAfter, maxDirectoryPause))
		}
	}
	h := directoryHealth(err)
	if errors.Is(ctx.Err(), context.Canceled) || cutShort(ctx, start) {
		// Every caller left (the cause is errAllLeft, which net/http returns in place
		// of context.Canceled), or the lookup's deadline cut the request short: it
		// says nothing about the Directory.
		h = healthUnknown
	}
	if l.dirBreaker.record(l.cfg.Now(), h, probe) && l.polite != nil {
		l.polite.openDirectoryBreaker()
	}
	l.observeCall(ctx, registry.UpstreamDirectory, start, err, queryAttr(q))
	return res, err
}

// queryAttr names a Directory query for logs.
func queryAttr(q directory.Query) slog.Attr {
	if !q.Participant.IsZero() {
		return slog.String("participant", q.Participant.String())
	}
	return slog.String("query", strings.TrimSpace(q.Q+" "+q.Country))
}

// fetchResult is what one upstream round of a lookup produced: an answer (a
// participant or a not_found *Error) with its ttl, or a failure. With a fleet, the
// answer may be another replica's (shared, fetched at fetched).
type fetchResult struct {
	p       *registry.Participant
	err     error // *Error: CodeNotFound is an answer, CodeLookupFailed a failure
	ttl     time.Duration
	fetched time.Time
	shared  bool
}

// Lookup resolves id: the SML and SMP on one side and the Directory on the other, in
// parallel, coalescing identical concurrent lookups and caching answers (see Config;
// with Config.Fleet, the cache and the coalescing hold across replicas:
// docs/ARCHITECTURE.md §7).
//
// Errors (*Error): CodeInvalidParticipantID for a zero id; CodeNotFound when the SML
// says the participant is not registered and the Directory has no card for it;
// CodeLookupFailed when DNS, the SMP, or (for a participant the SML does not know) the
// Directory failed and no participant answer at most StaleFor old is cached — when one
// is, it is returned with Freshness.Stale (a cached not_found is never served stale).
// A Directory failure alone is not an error: the answer carries the
// WarnDirectoryUnavailable warning and Directory nil. When the SML has records for id but
// none points to a usable SMP, the answer is the Directory card with SMP nil and the
// WarnSMLNoSMPService warning, or CodeLookupFailed when there is no card. A context that
// ends first gives CodeLookupFailed wrapping ctx.Err().
func (l *Registry) Lookup(ctx context.Context, id peppol.ParticipantID) (_ *registry.Participant, _ registry.Freshness, err error) {
	defer func() { err = withCause(err) }() // the cause, for answers in other words
	id, key, err := participantKey(id)
	if err != nil {
		return nil, registry.Freshness{}, err
	}
	// The services entry registry.JudgeParticipant reads next comes along (one read).
	// A caller joining a fetch in flight here reads the L1 alone: the fetch reads
	// the shared entry (sharedflight.go).
	var (
		cached cacheEntry[*registry.Participant]
		hit    bool
	)
	joined := l.lookupFlights.busy(key)
	if joined {
		cached, hit = l.lookups.local(key)
	} else {
		cached, hit = findAlong(ctx, l.lookups, key, l.services, key+"\x00")
	}
	if hit {
		if age := l.cfg.Now().Sub(cached.fetched); age < cached.ttl {
			l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheHit)
			return cached.val, registry.Freshness{Cached: true, Age: age, TTL: cached.ttl}, cached.err
		}
	}

	// Coalesced with identical lookups in flight (and with a fleet, on every replica);
	// one caller giving up does not fail the others, and the fetch stops when all have
	// gone.
	r, err := l.lookupFlights.do(ctx, key, l.cfg.LookupTimeout, func(fctx context.Context) fetchResult {
		e, shared, err := l.lookups.once(fctx, key, func(fctx context.Context) (cacheEntry[*registry.Participant], bool) {
			r := l.fetch(fctx, id)
			e := cacheEntry[*registry.Participant]{val: r.p, err: r.err, fetched: l.cfg.Now(), ttl: r.ttl}
			return e, registry.ErrorCode(r.err) != registry.CodeLookupFailed && !abandoned(fctx)
		})
		if err != nil {
			return fetchResult{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the lookup of " + key + " was cancelled while another replica fetched it; retry with exponential backoff", Err: err}}
		}
		return fetchResult{p: e.val, err: e.err, ttl: e.ttl, fetched: e.fetched, shared: shared}
	})
	if err != nil {
		l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheMiss)
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeLookupFailed, Message: "the lookup of " + key + " was cancelled before the Peppol network answered; retry with exponential backoff", Err: err}
	}
	if registry.ErrorCode(r.err) == registry.CodeLookupFailed {
		// Serve an older positive answer rather than a 502: the participant's
		// registration rarely changes within a day.
		if joined && !hit {
			cached, hit = l.lookups.find(ctx, key) // the shared entry, to serve stale
		}
		if hit && cached.err == nil && cached.val != nil {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.WarnContext(ctx, "lookup failed, serving stale answer", "participant", key, "age", age, "err", r.err)
				l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheStale)
				return cached.val, registry.Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheMiss)
		return nil, registry.Freshness{}, r.err
	}
	if r.shared {
		// Another replica fetched it while this one waited.
		l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheHit)
		return r.p, registry.Freshness{Cached: true, Age: l.cfg.Now().Sub(r.fetched), TTL: r.ttl}, r.err
	}
	l.cfg.Observer.Cache(registry.CacheLookup, registry.CacheMiss)
	return r.p, registry.Freshness{TTL: r.ttl}, r.err
}
