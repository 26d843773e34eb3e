package peppolnet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// Coalescing across replicas (docs/ARCHITECTURE.md §3 and §7): N replicas asked for the
// same cold answer at once make one upstream round. Within a replica, flights
// (flight.go) already make one fetch of a key, so each replica makes at most one lease
// attempt per key at a time. The fetch then:
//
//  1. in one MULTI/EXEC, reads the shared entry and tries to take the key's lease
//     (SET prefix:lease:v2:<scope>:<kind>:<hash> <token> NX PX leaseTTL): atomic, so
//     that a lease found free with no fresh entry means nobody is fetching and the last
//     holder (if any) got no answer;
//  2. a fresh entry is the answer (a lease just taken is given back);
//  3. holding the lease, it fetches, renews the lease every leaseRenewEvery while it
//     works, stores the answer (L1 and Redis), then releases the lease (compare and
//     delete, so that a lease that expired and was taken over is not deleted);
//  4. else another replica holds the lease: it polls the lease (EXISTS) every
//     leasePollEvery (jittered) and, once it is gone, tries step 1 again, until the
//     entry appears or it gets the lease (the holder released it without an
//     answer: a failure, which is not shared, or its callers left; or it died and its
//     lease expired): then it fetches itself, once. The waiting counts as waiting for
//     a turn (budget.go), bounded apart (leaseWaitFor: half the fetch's waiting
//     allowance, so that its own fetch can still wait for its turns, at most
//     leaseTTL+1s), after which it fetches itself without the lease, and by the
//     fetch's context.
//
// An answer whose fetch had a wait refused for its allowance is kept in the L1 only
// (fetchHere): it may be degraded by our waiting, not by upstream.
//
// On any fleet error (Redis down, slow, refusing) it fetches at once, as without a
// fleet.

const (
	// leaseTTL is how long a lease outlives a holder that stopped renewing it (died).
	leaseTTL = 3 * time.Second
	// leaseRenewEvery is how often a holder renews its lease while it fetches.
	leaseRenewEvery = time.Second
	// leasePollEvery is how often a replica waiting for another's fetch looks again.
	leasePollEvery = 15 * time.Millisecond
)

// releaseScript deletes KEYS[1] if it holds ARGV[1] (the holder's token).
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// renewScript sets KEYS[1] to expire in ARGV[2] ms if it holds ARGV[1].
var renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)

// once returns the entry for key fetched once across the fleet (see above), and
// whether it came from the shared cache (another replica fetched it). fetch runs an
// upstream round and reports whether its entry is an answer to keep (not a failure,
// not abandoned); once stores such answers. Without a fleet, fetch runs and its
// answer is kept in the L1, as always. The error is ctx's when it ended before this
// replica fetched (while it waited for another's fetch): then there is no entry. The
// waiting does not run the work clock (budget.go), so in practice ctx ends there only
// when every caller left.
func (t *tiered[V]) once(ctx context.Context, key string, fetch func(ctx context.Context) (cacheEntry[V], bool)) (cacheEntry[V], bool, error) {
	if t.fleet == nil {
		e, answer := fetch(ctx)
		if answer {
			t.put(key, e)
		}
		return e, false, nil
	}
	token := newToken()
	var w *turn
	// The wait for another replica's lease is one span with its number of polls; the
	// polls themselves run under pollCtx, with no span, so that fleet.Do makes none.
	var span trace.Span
	polls := 0
	pollCtx := ctx
	if t.tracer != nil {
		pollCtx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	}
	endWait := func() {
		if w != nil {
			w.end()
			w = nil
		}
		if span != nil {
			span.SetAttributes(attribute.Int("peppolgate.lease.polls", polls))
			span.End()
			span = nil
		}
	}
	defer endWait()
	var giveUp time.Time // when the lease wait ends (set when it begins)
	for {
		s, found, held, err := t.tryLease(ctx, key, token)
		if err != nil && ctx.Err() != nil {
			return cacheEntry[V]{}, false, ctx.Err() // every caller left
		}
		if err != nil {
			endWait()
			return t.fetchHere(ctx, key, fetch), false, nil
		}
		if found && fresh(s, t.now()) {
			if held {
				t.release(ctx, key, token)
			}
			t.put(key, s)
			return s, true, nil
		}
		if held {
			endWait()
			return t.fetchHolding(ctx, key, token, fetch), false, nil
		}
		if w == nil {
			giveUp = time.Now().Add(leaseWaitFor(ctx))
			w = startWait(ctx)
			if t.tracer != nil && trace.SpanContextFromContext(ctx).IsValid() && !telemetry.Untraced(ctx) {
				_, span = t.tracer.Start(ctx, "shared lease wait")
			}
		}
		left := time.Until(giveUp)
		if left <= 0 {
			// Waited as long as the lease may be waited for: fetch without it.
			endWait()
			return t.fetchHere(ctx, key, fetch), false, nil
		}
		// Poll the lease alone (EXISTS) while it is held; the entry is read again
		// (with the next attempt at the lease) once it is gone.
		for {
			switch err := sleepTurn(ctx, w, min(jitter(leasePollEvery), max(time.Until(giveUp), time.Millisecond))); {
			case errors.Is(err, errWaitedTooLong):
				// The fetch may wait no longer: fetch without the lease.
				endWait()
				return t.fetchHere(ctx, key, fetch), false, nil
			case err != nil:
				return cacheEntry[V]{}, false, err
			}
			polls++
			held, err := t.leaseHeld(pollCtx, key)
			if err != nil || !held || !time.Now().Before(giveUp) {
				break
			}
		}
	}
}

// leaseHeld reports whether key's lease is held (by anyone). The error is Do's.
func (t *tiered[V]) leaseHeld(ctx context.Context, key string) (bool, error) {
	var n int64
	err := t.fleet.Do(ctx, "cache lease poll", func(ctx context.Context, c *redis.Client) error {
		var err error
		n, err = c.Exists(ctx, t.redisKey("lease", key)).Result()
		return err
	})
	return n > 0, err
}

// leaseWaitFor returns how long a fetch of ctx may wait for another replica's lease:
// half its waiting allowance, so that the fetch it may then make itself can still
// wait for its own turns (an SMP host's slot, the Directory's budget), and no longer
// than a dead holder's lease lives (leaseTTL, and a second for the take-over).
func leaseWaitFor(ctx context.Context) time.Duration {
	d := leaseTTL + time.Second
	if deadline, ok := waitDeadline(ctx); ok {
		d = min(d, time.Until(deadline)/2)
	}
	return d
}

// fetchHere runs fetch without the lease and keeps its answer: in the L1, and in
// Redis unless a wait of the fetch was refused for its waiting allowance (the answer
// may then be degraded by our own waiting, say directory_unavailable, and other
// replicas must not serve it).
func (t *tiered[V]) fetchHere(ctx context.Context, key string, fetch func(ctx context.Context) (cacheEntry[V], bool)) cacheEntry[V] {
	e, answer := fetch(ctx)
	switch {
	case !answer:
	case refusedTurn(ctx):
		t.put(key, e)
	default:
		t.store(ctx, key, e)
	}
	return e
}

// fetchHolding runs fetch under the lease held with token, renewing it meanwhile,
// keeps its answer and releases the lease.
func (t *tiered[V]) fetchHolding(ctx context.Context, key, token string, fetch func(ctx context.Context) (cacheEntry[V], bool)) cacheEntry[V] {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(leaseRenewEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				// A failed renewal is no reason to stop: at worst another replica
				// takes over and fetches too.
				_ = t.fleet.Do(ctx, "cache lease renew", func(ctx context.Context, c *redis.Client) error {
					return renewScript.Run(ctx, c, []string{t.redisKey("lease", key)}, token, leaseTTL.Milliseconds()).Err()
				})
			}
		}
	})
	e := t.fetchHere(ctx, key, fetch)
	close(stop)
	wg.Wait()
	t.release(ctx, key, token)
	return e
}

// tryLease reads key's shared entry and tries to take its lease with token, in one
// transaction. found says an entry was read, held that the lease is now token's. The
// error is Do's.
func (t *tiered[V]) tryLease(ctx context.Context, key, token string) (e cacheEntry[V], found, held bool, err error) {
	var (
		get  *redis.StringCmd
		pttl *redis.DurationCmd
		set  *redis.BoolCmd
	)
	err = t.fleet.Do(ctx, "cache lease", func(ctx context.Context, c *redis.Client) error {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			get = p.Get(ctx, t.redisKey("c", key))
			pttl = p.PTTL(ctx, t.redisKey("c", key))
			set = p.SetNX(ctx, t.redisKey("lease", key), token, leaseTTL)
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		// TxPipelined returns the first command's error: redis.Nil for a missing
		// entry would hide the lease's.
		return set.Err()
	})
	if err != nil {
		return e, false, false, err
	}
	held = set.Val()
	if raw, gerr := get.Bytes(); gerr == nil {
		e, found = t.decodeAged(raw, pttl.Val())
	}
	return e, found, held, nil
}

// release gives back the lease of key if token still holds it.
func (t *tiered[V]) release(ctx context.Context, key, token string) {
	_ = t.fleet.Do(ctx, "cache lease release", func(ctx context.Context, c *redis.Client) error {
		return releaseScript.Run(ctx, c, []string{t.redisKey("lease", key)}, token).Err()
	})
}

// newToken returns a random lease token, so that a holder releases only its own lease.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
