package ratelimit

import (
	"context"
	"hash/maphash"
	"math"
	"net/netip"
	"sync"
	"time"
)

// Local sizing. The buckets of one class live in shards, each behind its own lock,
// so that concurrent requests rarely wait for one another.
const (
	limiterShards = 64
	// sweepEvery is how often a full shard may be searched for idle buckets.
	sweepEvery = time.Second
	// evictSample is how many buckets a full shard looks at to evict the least
	// recently used one when no bucket is idle.
	evictSample = 8
)

// Local is the token buckets of one class in this replica's memory, one per client:
// the limit of a replica alone, and of a replica in a fleet while Redis is away. A
// bucket that has refilled to the brim is the same as no bucket, so it can be dropped
// at any time without changing what any client may do: a shard that is full drops
// those first (at most once per sweepEvery), and only when none is idle evicts the
// least recently used of a few buckets picked at random (such a client gets a full
// bucket early: a limit that errs on the client's side while someone floods the
// server with more than maxClients addresses). Nothing runs in the background.
type Local struct {
	// rate is the refill rate in tokens per second.
	rate  float64
	burst float64
	// now is the clock; epoch is its reading at the start, so a bucket stores a
	// small integer instead of a time.Time.
	now   func() time.Time
	epoch time.Time
	seed  maphash.Seed
	// perShard bounds each shard's buckets.
	perShard int
	shards   [limiterShards]limiterShard
}

type limiterShard struct {
	mu        sync.Mutex
	buckets   map[netip.Addr]bucket
	lastSweep int64
}

// bucket is one client's tokens as of at (nanoseconds since the limiter's epoch).
type bucket struct {
	tokens float64
	at     int64
}

// NewLocal returns the in-memory buckets for lim (which must be On), read with now
// and keeping at most about maxClients of them.
func NewLocal(lim Limit, now func() time.Time, maxClients int) *Local {
	l := &Local{
		rate:     lim.Rate,
		burst:    float64(lim.BurstSize()),
		now:      now,
		epoch:    now(),
		seed:     maphash.MakeSeed(),
		perShard: max(1, maxClients/limiterShards),
	}
	for i := range l.shards {
		l.shards[i].buckets = map[netip.Addr]bucket{}
	}
	return l
}

// bucketOf locks key's shard and returns it with key's bucket as of now: refilled, or
// full for a client not seen (room made for it). The caller stores the bucket back and
// unlocks the shard.
func (l *Local) bucketOf(key netip.Addr) (*limiterShard, bucket) {
	now := int64(l.now().Sub(l.epoch))
	b16 := key.As16()
	sh := &l.shards[maphash.Bytes(l.seed, b16[:])%limiterShards]
	sh.mu.Lock()
	b, ok := sh.buckets[key]
	if ok {
		b = l.refill(b, now)
	} else {
		if len(sh.buckets) >= l.perShard {
			l.makeRoom(sh, now)
		}
		b = bucket{tokens: l.burst, at: now}
	}
	return sh, b
}

// Take spends one token of key's bucket when it has one (Limiter).
func (l *Local) Take(_ context.Context, key netip.Addr) Decision {
	sh, b := l.bucketOf(key)
	d := Decision{Allowed: b.tokens >= 1}
	if d.Allowed {
		b.tokens--
	}
	sh.buckets[key] = b
	sh.mu.Unlock()
	// A bucket in debt (a bulk check's cost, Charge) has no request left, not a
	// negative number of them.
	d.Remaining = max(0, int(b.tokens))
	d.ResetAfter = l.timeToEarn(l.burst - b.tokens)
	if !d.Allowed {
		d.RetryAfter = l.timeToEarn(1 - b.tokens)
	}
	return d
}

// Charge spends n more tokens of key's bucket, below zero if need be (Limiter).
func (l *Local) Charge(_ context.Context, key netip.Addr, n float64) Decision {
	sh, b := l.bucketOf(key)
	b.tokens -= n
	sh.buckets[key] = b
	sh.mu.Unlock()
	return Decision{Allowed: true, Remaining: max(0, int(b.tokens)), ResetAfter: l.timeToEarn(l.burst - b.tokens)}
}

// timeToEarn is how long the bucket takes to earn tokens, rounded up to the
// nanosecond so that a client that waits it is never a hair early.
func (l *Local) timeToEarn(tokens float64) time.Duration {
	return time.Duration(math.Ceil(tokens * float64(time.Second) / l.rate))
}

// refill adds the tokens earned since b was last used.
func (l *Local) refill(b bucket, now int64) bucket {
	if elapsed := now - b.at; elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+float64(elapsed)*l.rate/float64(time.Second))
		b.at = now
	}
	return b
}

// makeRoom frees at least one place in a full shard; sh.mu is held.
func (l *Local) makeRoom(sh *limiterShard, now int64) {
	if now-sh.lastSweep >= int64(sweepEvery) || sh.lastSweep == 0 {
		sh.lastSweep = now
		for k, b := range sh.buckets {
			if l.refill(b, now).tokens >= l.burst {
				delete(sh.buckets, k)
			}
		}
		if len(sh.buckets) < l.perShard {
			return
		}
	}
	// Map iteration starts at a random place: these are a random sample.
	var victim netip.Addr
	oldest, seen := int64(math.MaxInt64), 0
	for k, b := range sh.buckets {
		if b.at < oldest {
			victim, oldest = k, b.at
		}
		if seen++; seen == evictSample {
			break
		}
	}
	delete(sh.buckets, victim)
}

// clients returns how many buckets l keeps.
func (l *Local) clients() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.buckets)
		sh.mu.Unlock()
	}
	return n
}
