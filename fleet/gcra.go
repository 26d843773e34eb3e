package fleet

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// gcraScript is the generic cell rate algorithm (GCRA) in one atomic step on Redis's
// own clock, so that replicas whose clocks differ share one limit: the key holds the
// theoretical arrival time (TAT) in seconds since 2017 (kept small for the float's
// precision). A request of cost c is allowed when TAT + c·T − burst·T ≤ now (T = 1/rate);
// then TAT becomes max(TAT, now) + c·T and the key expires when the bucket is full
// again. With force the cost is taken whatever the TAT, which may then lie more than
// burst·T ahead: a debt that refuses the next requests until it is earned back (Charge).
// Numbers go back as strings, because Redis truncates Lua numbers to integers.
//
// KEYS[1] the limit's key; ARGV: rate (per second), burst, cost, force (0/1).
// Returns {allowed (0/1), remaining (≥ 0), retry_after s, reset_after s}.
var gcraScript = redis.NewScript(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local force = ARGV[4] == "1"
local t = redis.call("TIME")
local now = (tonumber(t[1]) - 1483228800) + tonumber(t[2]) / 1000000
local interval = 1 / rate
local tat = tonumber(redis.call("GET", KEYS[1]) or now)
if tat < now then tat = now end
local new_tat = tat + cost * interval
local diff = now - (new_tat - burst * interval)
if diff < 0 and not force then
  return {0, tostring(math.max(0, (now - (tat - burst * interval)) / interval)), tostring(-diff), tostring(tat - now)}
end
local reset = new_tat - now
if reset > 0 then
  redis.call("SET", KEYS[1], tostring(new_tat), "PX", math.ceil(reset * 1000))
end
return {1, tostring(math.max(0, diff / interval)), "0", tostring(reset)}
`)

// Decision is what a rate limit says about one request.
type Decision struct {
	// Allowed reports whether the request may go.
	Allowed bool
	// Remaining is how many more requests of cost 1 would be allowed right now.
	Remaining float64
	// RetryAfter is how long until this request would be allowed; 0 when allowed.
	RetryAfter time.Duration
	// ResetAfter is how long until the bucket is full again.
	ResetAfter time.Duration
}

// Allow asks the fleet-wide GCRA limit under key (made with Key; rate per second,
// burst requests at once) whether a request of cost may go, and takes its cost when
// it may. The limit is shared by every replica using the same key. Errors are those
// of Do (ErrOff, ErrDown, …): the caller then decides with its local limiter.
func (f *Fleet) Allow(ctx context.Context, key string, rate float64, burst int, cost float64) (Decision, error) {
	return f.gcra(ctx, key, rate, burst, cost, false)
}

// Charge takes cost from the fleet-wide GCRA limit under key (as Allow) whether or
// not it is there, for work already admitted (a bulk check's cost beyond its first
// request): the limit may go into debt, and refuses the next requests until the debt
// is earned back. The Decision is always Allowed; its Remaining is never below zero.
// Errors are those of Do (ErrOff, ErrDown, …).
func (f *Fleet) Charge(ctx context.Context, key string, rate float64, burst int, cost float64) (Decision, error) {
	return f.gcra(ctx, key, rate, burst, cost, true)
}

func (f *Fleet) gcra(ctx context.Context, key string, rate float64, burst int, cost float64, force bool) (Decision, error) {
	forced := "0"
	if force {
		forced = "1"
	}
	var d Decision
	err := f.Do(ctx, "rate limit", func(ctx context.Context, c *redis.Client) error {
		res, err := gcraScript.Run(ctx, c, []string{key},
			strconv.FormatFloat(rate, 'g', -1, 64), burst, strconv.FormatFloat(cost, 'g', -1, 64), forced).Slice()
		if err != nil {
			return err
		}
		if len(res) != 4 {
			return redis.Nil
		}
		allowed, _ := res[0].(int64)
		d.Allowed = allowed == 1
		d.Remaining = math.Floor(luaFloat(res[1]))
		d.RetryAfter = seconds(luaFloat(res[2]))
		d.ResetAfter = seconds(luaFloat(res[3]))
		return nil
	})
	return d, err
}

func luaFloat(v any) float64 {
	s, _ := v.(string)
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func seconds(s float64) time.Duration {
	if s <= 0 || math.IsNaN(s) {
		return 0
	}
	return time.Duration(math.Ceil(s * float64(time.Second)))
}
