package peppolnet

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

// fleetPolite is the fleet-wide half of a Registry's upstream politeness when its
// replicas share a Redis (Config.Fleet; docs/ARCHITECTURE.md §7): the Directory's
// rate budget and Retry-After pause, each SMP host's cap of requests in flight, and
// the circuit breakers hold for the whole fleet rather than for each replica. The
// replica's own limiter, gates and breakers stay in front (they order and prioritise
// its callers) and are what remains when Redis is off, down or slow: every method
// here lets the caller go on under its local limits on any error from the fleet.
//
// The keys, all under the fleet's prefix and the registry's FleetScope:
//
//	dir:<scope>:rate     the Directory's GCRA budget (fleet.Allow)
//	dir:<scope>:pause    present while the Directory's last Retry-After lasts
//	brk:<scope>:dir      present while the Directory's breaker is open
//	brk:<scope>:<hash>   present while an SMP host's breaker is open
//	host:<scope>:<hash>  the SMP host's slot holders (a sorted set by expiry)
//
// A breaker key holds the failure count that opened it and expires with the
// cool-down; a pause key expires with the pause; a slot holder expires slotTTL after
// it was taken, so that a replica that crashed holding slots frees them by itself.
type fleetPolite struct {
	f     *fleet.Fleet
	scope string
	// self names this replica in its slot holders; seq numbers them.
	self string
	seq  atomic.Uint64
	// slotTTL is how long a slot holder lives in Redis: longer than any request may
	// hold its slot.
	slotTTL   time.Duration
	perHost   int
	bulkShare int
	dirRate   float64
	dirBurst  int
	failures  int
	cooldown  time.Duration

	// lost holds the slot holders whose release failed (or whose taking got no
	// answer: the script may have run) while Redis did not answer, to remove once it
	// answers again (sweep); at most maxLostSlots, the oldest dropped (they expire
	// after slotTTL anyway).
	mu   sync.Mutex
	lost []lostSlot
}

// lostSlot is a slot holder to remove: the host's slots key and the holder's name.
type lostSlot struct{ key, holder string }

// maxLostSlots bounds fleetPolite.lost.
const maxLostSlots = 1024

// forget gives back the slot holder of key, now or, when Redis does not answer, at
// the next sweep after it does. ctx is the lookup's, its cancellation apart
// (context.WithoutCancel), so that the release is a span of its trace.
func (p *fleetPolite) forget(ctx context.Context, key, holder string) {
	err := p.f.Do(ctx, "smp host slot release", func(ctx context.Context, c *redis.Client) error {
		return c.ZRem(ctx, key, holder).Err()
	})
	if err == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.lost) >= maxLostSlots {
		p.lost = p.lost[1:]
	}
	p.lost = append(p.lost, lostSlot{key, holder})
}

// sweep removes the slot holders whose release was lost, in one round trip, when
// there are some and Redis is up; those it cannot remove are kept for the next.
func (p *fleetPolite) sweep() {
	if !p.f.Up() {
		return
	}
	p.mu.Lock()
	lost := p.lost
	p.lost = nil
	p.mu.Unlock()
	if len(lost) == 0 {
		return
	}
	err := p.f.Do(context.Background(), "smp host slot release", func(ctx context.Context, c *redis.Client) error {
		_, err := c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
			for _, l := range lost {
				pipe.ZRem(ctx, l.key, l.holder)
			}
			return nil
		})
		return err
	})
	if err != nil {
		p.mu.Lock()
		p.lost = append(lost, p.lost...)
		if n := len(p.lost); n > maxLostSlots {
			p.lost = p.lost[n-maxLostSlots:]
		}
		p.mu.Unlock()
	}
}

// slotTTLMargin is added to the SMP client's timeout for slotTTL.
const slotTTLMargin = 5 * time.Second

// Polling for an SMP host's fleet-wide slot starts at slotPollMin and doubles up to
// slotPollMax (each jittered), within the fetch's waiting allowance.
const (
	slotPollMin = 5 * time.Millisecond
	slotPollMax = 50 * time.Millisecond
)

// newFleetPolite returns the fleet half of cfg's politeness, or nil without a fleet.
func newFleetPolite(cfg Config) *fleetPolite {
	if cfg.Fleet == nil {
		return nil
	}
	var id [8]byte
	_, _ = crand.Read(id[:]) // crypto/rand.Read never fails
	timeout := cfg.SMP.Timeout
	if timeout <= 0 {
		timeout = smp.DefaultTimeout
	}
	return &fleetPolite{f: cfg.Fleet, scope: cfg.FleetScope, self: hex.EncodeToString(id[:]),
		slotTTL: timeout + slotTTLMargin, perHost: cfg.SMPHostConcurrency, bulkShare: BulkShare(cfg.SMPHostConcurrency),
		dirRate: cfg.DirectoryRate, dirBurst: cfg.DirectoryBurst, failures: cfg.BreakerFailures, cooldown: cfg.BreakerCooldown}
}

// hostSlotsKey returns the Redis key of host's fleet-wide slot holders (a sorted set
// by expiry; acquireScript).
func (p *fleetPolite) hostSlotsKey(host string) string {
	return p.f.Key("host", p.scope, fleet.Hash(host))
}

// hostBreakerKey returns the Redis key present while host's breaker is open
// fleet-wide (openBreaker).
func (p *fleetPolite) hostBreakerKey(host string) string {
	return p.f.Key("brk", p.scope, fleet.Hash(host))
}

// openBreaker opens the breaker under key for the whole fleet for the cool-down: the
// other replicas adopt it at their next request to that upstream. A fleet error is
// ignored (the breaker is open on this replica alone).
func (p *fleetPolite) openBreaker(key string) {
	_ = p.f.Do(context.Background(), "open breaker", func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, key, strconv.Itoa(p.failures), p.cooldown).Err()
	})
}

// fleetOpening is a breaker some replica opened: d of its cool-down is left, and it
// opened after failures failures.
type fleetOpening struct {
	d        time.Duration
	failures int
}

// opening reads a breaker key's value and PTTL; the zero fleetOpening when the key
// is absent.
func opening(val string, pttl time.Duration) fleetOpening {
	if pttl <= 0 {
		return fleetOpening{}
	}
	n, _ := strconv.Atoi(val)
	return fleetOpening{d: pttl, failures: max(n, 0)}
}

// acquireScript takes one of an SMP host's fleet-wide slots in one step, unless the
// host's breaker is open fleet-wide. Holders expired by Redis's clock are dropped
// first; a bulk request (a check's row, docs/ARCHITECTURE.md §3) gets a slot only
// while bulk requests hold fewer than the bulk share, so the rest is left to
// interactive ones fleet-wide as on each replica.
//
// KEYS[1] the host's slots, KEYS[2] its breaker; ARGV: the cap, the bulk share, the
// holder's TTL in ms, the holder's name (bulk ones start "b:"), "1" for bulk.
// Returns {1} when taken, {0} when full, {-1, pttl ms, value} when the breaker is open.
var acquireScript = redis.NewScript(`
local open = redis.call("PTTL", KEYS[2])
if open > 0 then
  return {-1, open, redis.call("GET", KEYS[2])}
end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now)
local holders = redis.call("ZRANGE", KEYS[1], 0, -1)
if #holders >= tonumber(ARGV[1]) then
  return {0}
end
if ARGV[5] == "1" then
  local bulk = 0
  for _, m in ipairs(holders) do
    if string.sub(m, 1, 2) == "b:" then bulk = bulk + 1 end
  end
  if bulk >= tonumber(ARGV[2]) then
    return {0}
  end
end
local ttl = tonumber(ARGV[3])
redis.call("ZADD", KEYS[1], now + ttl, ARGV[4])
redis.call("PEXPIRE", KEYS[1], ttl)
return {1}
`)

// slotResult is what one attempt at a fleet-wide slot found.
type slotResult int

const (
	slotTaken slotResult = iota + 1
	slotFull
	slotBreakerOpen
)

// trySlot makes one attempt at a slot of host for holder; open is set when the
// host's breaker is open fleet-wide.
func (p *fleetPolite) trySlot(ctx context.Context, host, holder string, bulk bool) (res slotResult, open fleetOpening, err error) {
	b := "0"
	if bulk {
		b = "1"
	}
	err = p.f.Do(ctx, "smp host slot", func(ctx context.Context, c *redis.Client) error {
		out, err := acquireScript.Run(ctx, c, []string{p.hostSlotsKey(host), p.hostBreakerKey(host)},
			p.perHost, p.bulkShare, p.slotTTL.Milliseconds(), holder, b).Slice()
		if err != nil {
			return err
		}
		code, _ := out[0].(int64)
		switch code {
		case 1:
			res = slotTaken
		case 0:
			res = slotFull
		default:
			res = slotBreakerOpen
			pttl, _ := out[1].(int64)
			val, _ := out[2].(string)
			open = opening(val, time.Duration(pttl)*time.Millisecond)
		}
		return nil
	})
	return res, open, err
}

// acquireSlot takes one of host's fleet-wide slots for a request of ctx (whose
// priority bulk reports, asked again at each attempt since an interactive caller may
// join the fetch meanwhile), polling while all are held, within the fetch's waiting
// allowance (which the wait does not eat into the fetch's deadline: budget.go). It
// returns the release func (to call once the request is done), or, without a slot,
// an opening with d > 0 when the host's breaker is open fleet-wide, errWaitedTooLong
// when the fetch may wait no longer, or ctx.Err(). On a fleet error it returns a
// release that does nothing: the request goes on under the local gate alone.
func (p *fleetPolite) acquireSlot(ctx context.Context, host string, bulk func() bool) (release func(), open fleetOpening, err error) {
	noop := func() {}
	name := p.self + ":" + strconv.FormatUint(p.seq.Add(1), 10)
	var t *turn
	defer func() {
		if t != nil {
			t.end()
		}
	}()
	p.sweep()
	wait := slotPollMin
	for {
		holder := "i:" + name
		isBulk := bulk()
		if isBulk {
			holder = "b:" + name
		}
		res, open, err := p.trySlot(ctx, host, holder, isBulk)
		switch {
		case err != nil:
			// Unless it was not sent (Redis already down), the script may have run
			// without its answer reaching us: give the slot back, now or once Redis
			// answers again.
			if !errors.Is(err, fleet.ErrDown) {
				p.forget(context.WithoutCancel(ctx), p.hostSlotsKey(host), holder)
			}
			return noop, fleetOpening{}, nil
		case res == slotTaken:
			key := p.hostSlotsKey(host)
			rctx := context.WithoutCancel(ctx)
			return func() { p.forget(rctx, key, holder) }, fleetOpening{}, nil
		case res == slotBreakerOpen:
			return nil, open, nil
		}
		if t == nil {
			t = startWait(ctx)
		}
		if err := sleepTurn(ctx, t, jitter(wait)); err != nil {
			return nil, fleetOpening{}, err
		}
		wait = min(2*wait, slotPollMax)
	}
}

// jitter returns d spread over [d/2, 3d/2), so that replicas polling together drift
// apart.
func jitter(d time.Duration) time.Duration {
	return d/2 + rand.N(d)
}

// sleepTurn sleeps d within the wait t: nil after d, errWaitedTooLong when the fetch
// may wait no longer, ctx.Err() when ctx ends.
func sleepTurn(ctx context.Context, t *turn, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return nil
		case <-t.out:
			if t.reopened() {
				continue // raised after its allowance ran out: it may wait again
			}
			t.refuse()
			return errWaitedTooLong
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pauseScript lengthens the Directory's fleet-wide pause to ARGV[1] ms unless it
// already lasts longer.
var pauseScript = redis.NewScript(`
if redis.call("PTTL", KEYS[1]) < tonumber(ARGV[1]) then
  redis.call("SET", KEYS[1], "1", "PX", ARGV[1])
end
return 0
`)

// pauseDirectory makes every replica stay away from the Directory for at least d (it
// answered 429 with Retry-After). A fleet error is ignored: the pause holds on this
// replica.
func (p *fleetPolite) pauseDirectory(ctx context.Context, d time.Duration) {
	ms := max(d.Milliseconds(), 1)
	_ = p.f.Do(ctx, "directory pause", func(ctx context.Context, c *redis.Client) error {
		return pauseScript.Run(ctx, c, []string{p.f.Key("dir", p.scope, "pause")}, ms).Err()
	})
}

// openDirectoryBreaker opens the Directory's breaker for the whole fleet.
func (p *fleetPolite) openDirectoryBreaker() { p.openBreaker(p.f.Key("brk", p.scope, "dir")) }

// directoryScript is one turn at the Directory's fleet-wide budget, in one step: it
// reads the Directory's fleet-wide pause and breaker and, when neither holds, takes a
// token of the GCRA budget (fleet/gcra.go's key and format: the TAT in seconds since
// 2017) by reserving the next free turn: the TAT moves forward and the caller sleeps
// the returned delay, so that callers are served in the order they asked, each
// with one call. A bulk call (a check's row, docs/ARCHITECTURE.md §3) takes a token
// only when it is free now and, with a burst above one, another remains afterwards:
// that token is kept for interactive calls, which therefore never queue behind rows.
// An interactive call whose turn would come after its waiting allowance reserves
// nothing.
//
// KEYS[1] the budget, KEYS[2] the pause, KEYS[3] the breaker; ARGV: the interval
// (1/rate) in s, the burst, "1" for bulk, the most an interactive call may wait in s
// (negative: unbounded). Returns {2, pause pttl ms} while paused, {3, pttl ms, value}
// while the breaker is open, {1, delay s} when a turn is reserved, {0, retry s} when
// none is (numbers as strings: Redis truncates Lua numbers).
var directoryScript = redis.NewScript(`
local paused = redis.call("PTTL", KEYS[2])
if paused > 0 then
  return {2, tostring(paused)}
end
local open = redis.call("PTTL", KEYS[3])
if open > 0 then
  return {3, tostring(open), redis.call("GET", KEYS[3])}
end
local t = redis.call("TIME")
local now = (tonumber(t[1]) - 1483228800) + tonumber(t[2]) / 1000000
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local bulk = ARGV[3] == "1"
local tat = tonumber(redis.call("GET", KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + interval
local keep = 0
if bulk and burst > 1 then keep = 1 end
-- (rounded to the microsecond: the float arithmetic leaves crumbs)
local delay = math.floor((new_tat + keep * interval - burst * interval - now) * 1000000 + 0.5) / 1000000
if bulk then
  if delay > 0 then
    return {0, tostring(delay)}
  end
  delay = 0
else
  if delay < 0 then delay = 0 end
  local most = tonumber(ARGV[4])
  if most >= 0 and delay > most then
    return {0, tostring(delay)}
  end
end
redis.call("SET", KEYS[1], tostring(new_tat), "PX", math.ceil((new_tat - now) * 1000))
return {1, tostring(delay)}
`)

// directoryTurn waits for the fleet's leave to send one Directory request of ctx: it
// reports the Directory's fleet-wide pause (paused > 0: how long it still lasts) or
// open breaker (open.d > 0), or else takes one token of the fleet-wide budget
// (DirectoryRate per second, DirectoryBurst at once, over every replica; see
// directoryScript), sleeping until its reserved turn within the fetch's waiting
// allowance (not counted against the fetch's deadline: budget.go). err is
// errLimiterBusy when the turn would come after the allowance or the allowance ends
// while waiting, ctx.Err() when ctx ends; on a fleet error all three are zero, and
// the replica's own limiter alone has spoken.
func (p *fleetPolite) directoryTurn(ctx context.Context) (paused time.Duration, open fleetOpening, err error) {
	keys := []string{p.f.Key("dir", p.scope, "rate"), p.f.Key("dir", p.scope, "pause"), p.f.Key("brk", p.scope, "dir")}
	interval := strconv.FormatFloat(1/p.dirRate, 'g', -1, 64)
	var t *turn
	defer func() {
		if t != nil {
			t.end()
		}
	}()
	sleep := func(d time.Duration) error {
		if t == nil {
			t = startWait(ctx)
		}
		if err := sleepTurn(ctx, t, d); err != nil {
			if errors.Is(err, errWaitedTooLong) {
				return errLimiterBusy
			}
			return err
		}
		return nil
	}
	for {
		bulk := bulkOf(ctx)
		b, most := "0", "-1"
		if bulk {
			b = "1"
		}
		deadline, bounded := waitDeadline(ctx)
		if bounded {
			most = strconv.FormatFloat(max(time.Until(deadline).Seconds(), 0), 'f', 6, 64)
		}
		var out []any
		ferr := p.f.Do(ctx, "directory turn", func(ctx context.Context, c *redis.Client) error {
			var err error
			out, err = directoryScript.Run(ctx, c, keys, interval, p.dirBurst, b, most).Slice()
			return err
		})
		if ferr != nil || len(out) < 2 {
			return 0, fleetOpening{}, nil
		}
		code, _ := out[0].(int64)
		n := luaFloat(out[1])
		switch code {
		case 2:
			return max(time.Duration(n)*time.Millisecond, time.Millisecond), fleetOpening{}, nil
		case 3:
			val := ""
			if len(out) > 2 {
				val, _ = out[2].(string)
			}
			return 0, opening(val, time.Duration(n)*time.Millisecond), nil
		case 1:
			if d := secondsOf(n); d > 0 {
				return 0, fleetOpening{}, sleep(d)
			}
			return 0, fleetOpening{}, nil
		}
		// No turn: an interactive call's would come after its allowance; a bulk
		// call's spare token is not there yet: it looks again (jittered, so that rows
		// waiting together drift apart) while its allowance lasts.
		retry := max(secondsOf(n), time.Millisecond)
		if !bulk || bounded && time.Now().Add(retry).After(deadline) {
			noteRefused(ctx)
			return 0, fleetOpening{}, errLimiterBusy
		}
		if err := sleep(jitter(retry)); err != nil {
			return 0, fleetOpening{}, err
		}
	}
}

// luaFloat reads a number a script returned as a string (0 when it is not one).
func luaFloat(v any) float64 {
	s, _ := v.(string)
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// secondsOf returns s seconds as a Duration, rounded up; 0 for s ≤ 0.
func secondsOf(s float64) time.Duration {
	if s <= 0 || math.IsNaN(s) {
		return 0
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
