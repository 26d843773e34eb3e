package registry

import (
	"context"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
)

// Live is the Registry that queries the Peppol network: the SML and the participant's
// SMP, and the Peppol Directory, with caching, coalescing of identical concurrent
// requests and a shared client-side rate limit for the Directory. It is safe for
// concurrent use.
//
// Answers are shared between callers and with the cache: callers must not modify the
// *Participant or *SearchResult they receive.
type Live struct {
	cfg           Config
	dirLimit      *limiter
	lookups       *cache[*Participant]
	searches      *cache[*SearchResult]
	lookupFlights flights[fetchResult]
	searchFlights flights[searchOutcome]
}

var _ Registry = (*Live)(nil)

// NewLive returns a Live registry for cfg, with defaults for zero fields (see Config).
// It returns an error when Resolver, SMP or Directory is nil or a duration, rate or
// size is negative.
func NewLive(cfg Config) (*Live, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Live{
		cfg: cfg,
		// The limiter sleeps on real timers, so it reads the real clock, not cfg.Now.
		dirLimit: newLimiter(cfg.DirectoryRate, cfg.DirectoryBurst, cfg.DirectoryQueue, time.Now),
		lookups:  newCache[*Participant](cfg.MaxCacheEntries),
		searches: newCache[*SearchResult](cfg.MaxCacheEntries),
	}, nil
}

// directorySearch runs one Directory query under the shared rate limit. A full queue
// is reported as an ErrUnavailable-kind *directory.Error wrapping errLimiterBusy, so
// callers treat it like any Directory outage.
func (l *Live) directorySearch(ctx context.Context, q directory.Query) (*directory.Result, error) {
	if err := l.dirLimit.wait(ctx); err != nil {
		return nil, &directory.Error{Kind: directory.KindUnavailable, Err: err}
	}
	return l.cfg.Directory.Search(ctx, q)
}

// fetchResult is what one upstream round of a lookup produced: an answer (a
// participant or a not_found *Error) with its ttl, or a failure.
type fetchResult struct {
	p   *Participant
	err error // *Error: CodeNotFound is an answer, CodeLookupFailed a failure
	ttl time.Duration
}

// Lookup resolves id: the SML and SMP on one side and the Directory on the other, in
// parallel, coalescing identical concurrent lookups and caching answers (see Config).
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
func (l *Live) Lookup(ctx context.Context, id peppol.ParticipantID) (*Participant, Freshness, error) {
	if id.IsZero() || id.ICD == "" || id.Value == "" {
		return nil, Freshness{}, &Error{Code: CodeInvalidParticipantID, Message: "the participant identifier is empty; use <4-digit scheme>:<value>, e.g. 0208:0677424046"}
	}
	id.Value = strings.ToLower(id.Value)
	key := id.String()
	now := l.cfg.Now()
	cached, hit := l.lookups.get(key)
	if hit {
		if age := now.Sub(cached.fetched); age < cached.ttl {
			return cached.val, Freshness{Cached: true, Age: age, TTL: cached.ttl}, cached.err
		}
	}

	// Coalesced with identical lookups in flight; one caller giving up does not fail
	// the others, and the fetch stops when all have gone.
	r, err := l.lookupFlights.do(ctx, key, l.cfg.LookupTimeout, func(fctx context.Context) fetchResult {
		r := l.fetch(fctx, id)
		if ErrorCode(r.err) != CodeLookupFailed && !abandoned(fctx) {
			l.lookups.put(key, cacheEntry[*Participant]{val: r.p, err: r.err, fetched: l.cfg.Now(), ttl: r.ttl})
		}
		return r
	})
	if err != nil {
		return nil, Freshness{}, &Error{Code: CodeLookupFailed, Message: "the lookup of " + key + " was cancelled before the Peppol network answered; retry with exponential backoff", Err: err}
	}
	if ErrorCode(r.err) == CodeLookupFailed {
		// Serve an older positive answer rather than a 502: the participant's
		// registration rarely changes within a day.
		if hit && cached.err == nil && cached.val != nil {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.Warn("lookup failed, serving stale answer", "participant", key, "age", age, "err", r.err)
				return cached.val, Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Logger.Warn("lookup failed", "participant", key, "err", r.err)
		return nil, Freshness{}, r.err
	}
	return r.p, Freshness{TTL: r.ttl}, r.err
}
