package peppolnet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/registry"
)

// The shared cache (docs/ARCHITECTURE.md §3 and §7): with Config.Fleet, the answers
// of lookups, services and searches are kept in Redis for every replica, behind each
// replica's own LRU (the L1):
//
//   - Key: prefix:c:v2:<FleetScope>:<kind>:<fleet.Hash(cache key)>. sharedFormat ("v2")
//     is the format of the value: a release that changes it uses a new version, so that
//     during a rolling deploy old and new replicas each read only the entries they
//     understand (the two sets then fetch apart until the old replicas are gone).
//   - Value: the JSON of sharedEntry, the answer as clients see it plus what the JSON
//     of the registry types leaves out (the fetched time, the ttl, the not_found error,
//     Verdict.FromList), and the answer's age and the key's TTL when written, from
//     which a reader takes the answer's age on Redis's clock (the key's PTTL, read in
//     the same round trip), so that replicas' clocks need not agree. Entries over
//     maxSharedEntry bytes stay local.
//   - Key TTL: the answer's ttl plus Config.StaleFor for answers (so that any replica
//     can serve it stale when upstream fails, as today), the ttl alone for a not_found
//     (never served stale).
//   - The L1 holds Config.MaxCacheEntries entries per kind, as without a fleet, and an
//     entry read from Redis keeps its fetched time and ttl: the L1 never extends an
//     answer's freshness, so replicas can differ only on answers fetched while Redis
//     was unreachable (or evicted), and only until those answers' ttl runs out.
//
// Failures (lookup_failed, search_failed) are never shared, as they are never cached.
// Redis trouble is never an outage: every operation goes through fleet.Do and any
// error leaves the replica with its L1, as without a fleet.

// sharedFormat is the version of the shared entries' format, in every key.
const sharedFormat = "v2"

// maxSharedEntry is the largest encoded entry shared through Redis; a larger answer
// is cached in the L1 only.
const maxSharedEntry = 512 << 10

// The kinds of shared entries, in their keys.
const (
	kindLookup   = "lookup"
	kindServices = "services"
	kindSearch   = "search"
)

// errNotShared says that an entry is not shared: too large, or holding an error that
// is not a plain *registry.Error answer.
var errNotShared = errors.New("entry not shared")

// tiered is one of the Registry's answer caches: the in-process LRU (the embedded
// cache, whose get and put are local only) and, with a fleet, the entries every
// replica shares in Redis behind it (find, store; coalescing in sharedflight.go).
type tiered[V any] struct {
	*cache[V]
	fleet    *fleet.Fleet // nil: this process only
	scope    string
	kind     string
	now      func() time.Time
	staleFor time.Duration
	// skipL1 makes find ignore the L1, so that a benchmark measures the Redis hit.
	// Benchmark only (BenchmarkCachedLookup): never set outside tests.
	skipL1 bool
	// tracer, when tracing is on, makes the span of a wait for another replica's
	// lease (sharedflight.go).
	tracer trace.Tracer
}

// newTiered returns the cache of kind for cfg (with its defaults).
func newTiered[V any](cfg Config, kind string) *tiered[V] {
	return &tiered[V]{cache: newCache[V](cfg.MaxCacheEntries), fleet: cfg.Fleet, scope: cfg.FleetScope,
		kind: kind, now: cfg.Now, staleFor: cfg.StaleFor, tracer: tracerFor(cfg)}
}

// fresh reports whether e may be served as a cache hit at now.
func fresh[V any](e cacheEntry[V], now time.Time) bool { return now.Sub(e.fetched) < e.ttl }

// redisKey returns the Redis key of component ("c" for entries, "lease" for leases)
// for the cache key key, which may come from a client and is hashed.
func (t *tiered[V]) redisKey(component, key string) string {
	return t.fleet.Key(component, sharedFormat, t.scope, t.kind, fleet.Hash(key))
}

// find returns the entry to serve for key and whether there is one: the L1's while
// fresh; else the fleet's when fresh (and copies it into the L1); else the newer of
// the two, expired, for serving stale when upstream fails. Without a fleet, or when
// Redis fails, it is the L1's alone.
func (t *tiered[V]) find(ctx context.Context, key string) (cacheEntry[V], bool) {
	e, ok := t.local(key)
	if t.fleet == nil || ok && fresh(e, t.now()) {
		return e, ok
	}
	s, sok := t.getShared(ctx, key)
	return t.pick(key, e, ok, s, sok)
}

// findAlong is t.find(key) that, when it must read Redis, also reads along's entry
// alongKey in the same round trip (one readScript call) and keeps it in along's L1 when it is
// fresh there: a lookup reads the services entry that registry.JudgeParticipant asks
// for next (docs/ARCHITECTURE.md §7), so that a shared hit costs one read, not two.
func findAlong[V, W any](ctx context.Context, t *tiered[V], key string, along *tiered[W], alongKey string) (cacheEntry[V], bool) {
	e, ok := t.local(key)
	if t.fleet == nil || ok && fresh(e, t.now()) {
		return e, ok
	}
	if a, aok := along.local(alongKey); aok && fresh(a, along.now()) {
		s, sok := t.getShared(ctx, key)
		return t.pick(key, e, ok, s, sok)
	}
	vals, err := readShared(ctx, t.fleet, t.redisKey("c", key), along.redisKey("c", alongKey))
	if err != nil {
		return e, ok
	}
	if a, aok := decodeShared[W](along, vals[2], vals[3]); aok && fresh(a, along.now()) {
		along.put(alongKey, a)
	}
	s, sok := decodeShared[V](t, vals[0], vals[1])
	return t.pick(key, e, ok, s, sok)
}

// local returns the L1's entry for key (none when skipL1).
func (t *tiered[V]) local(key string) (cacheEntry[V], bool) {
	if t.skipL1 {
		return cacheEntry[V]{}, false
	}
	return t.get(key)
}

// pick chooses between the L1's entry e (ok) and the shared one s (sok) for find.
func (t *tiered[V]) pick(key string, e cacheEntry[V], ok bool, s cacheEntry[V], sok bool) (cacheEntry[V], bool) {
	switch {
	case !sok:
		return e, ok
	case fresh(s, t.now()):
		t.put(key, s)
		return s, true
	case !ok || s.fetched.After(e.fetched):
		return s, true
	}
	return e, ok
}

// readScript reads every KEYS[i]'s value and PTTL in one step: {value or nil, pttl
// ms, …}.
var readScript = redis.NewScript(`
local out = {}
for _, k in ipairs(KEYS) do
  out[#out + 1] = redis.call("GET", k)
  out[#out + 1] = redis.call("PTTL", k)
end
return out
`)

// readShared reads keys' values and remaining TTLs in one round trip: value, pttl
// (ms, as int64), … as readScript returns them. The error is Do's.
func readShared(ctx context.Context, f *fleet.Fleet, keys ...string) ([]any, error) {
	var vals []any
	err := f.Do(ctx, "cache get", func(ctx context.Context, c *redis.Client) error {
		var err error
		vals, err = readScript.Run(ctx, c, keys).Slice()
		return err
	})
	if err == nil && len(vals) != 2*len(keys) {
		err = fmt.Errorf("cache get: %d values for %d keys", len(vals), len(keys))
	}
	return vals, err
}

// decodeShared reads a value and its key's PTTL from readScript as t's entry; false
// when it is missing or cannot be read.
func decodeShared[V any](t *tiered[V], v, pttl any) (cacheEntry[V], bool) {
	raw, isString := v.(string)
	if !isString {
		return cacheEntry[V]{}, false
	}
	ms, _ := pttl.(int64)
	return t.decodeAged([]byte(raw), time.Duration(ms)*time.Millisecond)
}

// decodeAged decodes raw, an entry whose key had pttl left, and sets its fetched time
// on this replica's clock from its age on Redis's (the age when written, plus the
// time the key's TTL has run since: fetched = now − (age + keep − pttl)); false when
// raw cannot be read. An entry without those (pttl ≤ 0) keeps its writer's fetched
// time, no later than now.
func (t *tiered[V]) decodeAged(raw []byte, pttl time.Duration) (cacheEntry[V], bool) {
	e, w, err := decodeEntryWire[V](raw)
	if err != nil {
		return cacheEntry[V]{}, false
	}
	if pttl > 0 && w.Keep > 0 {
		e.fetched = t.now().Add(-(w.Age + max(w.Keep-pttl, 0)))
	}
	return t.sane(e), true
}

// store keeps the answer e under key in the L1 and, with a fleet, in Redis.
func (t *tiered[V]) store(ctx context.Context, key string, e cacheEntry[V]) {
	t.put(key, e)
	_ = t.putShared(ctx, key, e)
}

// getShared reads key's entry from Redis; false when there is none, Redis fails or
// the entry cannot be read.
func (t *tiered[V]) getShared(ctx context.Context, key string) (cacheEntry[V], bool) {
	vals, err := readShared(ctx, t.fleet, t.redisKey("c", key))
	if err != nil {
		return cacheEntry[V]{}, false
	}
	return decodeShared(t, vals[0], vals[1])
}

// sane returns e fetched no later than now: a replica whose clock is ahead must not
// make an answer younger than zero here.
func (t *tiered[V]) sane(e cacheEntry[V]) cacheEntry[V] {
	if now := t.now(); e.fetched.After(now) {
		e.fetched = now
	}
	return e
}

// putShared writes e under key to Redis, to expire when no replica may serve it any
// more. It returns errNotShared for an entry that is not shared, and Do's errors.
func (t *tiered[V]) putShared(ctx context.Context, key string, e cacheEntry[V]) error {
	if t.fleet == nil {
		return fleet.ErrOff
	}
	age := max(t.now().Sub(e.fetched), 0)
	keep := e.ttl - age
	if e.err == nil {
		keep += t.staleFor
	}
	if keep < time.Millisecond {
		return errNotShared
	}
	keep = keep.Truncate(time.Millisecond)
	raw, err := encodeEntryAged(e, age, keep)
	if err != nil {
		return err
	}
	return t.fleet.Do(ctx, "cache put", func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, t.redisKey("c", key), raw, keep).Err()
	})
}

// sharedEntry is the wire form of a cacheEntry in Redis (format sharedFormat).
type sharedEntry[V any] struct {
	// Val is the answer, as the JSON API renders it; null for a not_found.
	Val V `json:"val"`
	// Err is the not_found error that is the answer, or nil.
	Err *sharedError `json:"err,omitempty"`
	// Fetched is when the answer was fetched from upstream (the fetching replica's
	// Config.Now), TTL how long it is fresh from then.
	Fetched time.Time     `json:"fetched"`
	TTL     time.Duration `json:"ttl"`
	// VerdictFromList carries registry.Verdict.FromList, which the answer's JSON
	// leaves out. (The registry leaves Verdict nil; the codec keeps it whole anyway.)
	VerdictFromList bool `json:"verdictFromList,omitempty"`
	// Age is how old the answer was when written, on the writer's clock, and Keep
	// the TTL its key was given then: a reader's age of the answer is Age plus the
	// time Keep has run since (Keep minus the key's PTTL), on Redis's clock.
	Age  time.Duration `json:"age,omitempty"`
	Keep time.Duration `json:"keep,omitempty"`
}

// sharedError is the wire form of a *registry.Error answer. Its Err (the cause, for
// logs) is not shared: an error with a cause is not an answer and is not shared.
type sharedError struct {
	Code       registry.Code `json:"code"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

// verdictOf returns the verdict an answer carries, or nil.
func verdictOf(v any) *registry.Verdict {
	switch a := v.(type) {
	case *registry.Participant:
		if a != nil {
			return a.Verdict
		}
	case *registry.ServicesResult:
		if a != nil {
			return a.Verdict
		}
	}
	return nil
}

// encodeEntry returns the wire form of e. It returns errNotShared when e's error is
// not a *registry.Error without a cause, or the result exceeds maxSharedEntry, and
// json's errors.
func encodeEntry[V any](e cacheEntry[V]) ([]byte, error) {
	return encodeEntryAged(e, 0, 0)
}

// encodeEntryAged is encodeEntry with the answer's age at writing and its key's TTL
// (sharedEntry.Age and Keep).
func encodeEntryAged[V any](e cacheEntry[V], age, keep time.Duration) ([]byte, error) {
	w := sharedEntry[V]{Val: e.val, Fetched: e.fetched, TTL: e.ttl, Age: age, Keep: keep}
	if e.err != nil {
		var re *registry.Error
		if !errors.As(e.err, &re) || re != e.err || re.Err != nil {
			return nil, errNotShared
		}
		w.Err = &sharedError{Code: re.Code, Message: re.Message, RetryAfter: re.RetryAfter}
	}
	if v := verdictOf(e.val); v != nil {
		w.VerdictFromList = v.FromList
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encoding a shared %T: %w", e.val, err)
	}
	if len(raw) > maxSharedEntry {
		return nil, errNotShared
	}
	return raw, nil
}

// decodeEntry reads the wire form of an entry; json's errors for a malformed one.
func decodeEntry[V any](raw []byte) (cacheEntry[V], error) {
	e, _, err := decodeEntryWire[V](raw)
	return e, err
}

// decodeEntryWire is decodeEntry that also returns the wire form.
func decodeEntryWire[V any](raw []byte) (cacheEntry[V], sharedEntry[V], error) {
	var w sharedEntry[V]
	if err := json.Unmarshal(raw, &w); err != nil {
		return cacheEntry[V]{}, w, fmt.Errorf("decoding a shared entry: %w", err)
	}
	e := cacheEntry[V]{val: w.Val, fetched: w.Fetched, ttl: w.TTL}
	if w.Err != nil {
		e.err = &registry.Error{Code: w.Err.Code, Message: w.Err.Message, RetryAfter: w.Err.RetryAfter}
	}
	if v := verdictOf(e.val); v != nil {
		v.FromList = w.VerdictFromList
	}
	return e, w, nil
}
