// Package ratelimit decides whether a client's request may go: per-client rate limits
// by class (the REST API, /ask, /mcp, the documents), each a token bucket of Limit's
// rate and burst per client (docs/INTERFACE.md §8). This file is where the decision is
// made; server/ turns it into HTTP (the RateLimit, RateLimit-Policy and Retry-After
// headers, the 429 answer) and says who the client is.
//
// One replica alone keeps its buckets in memory (Local, local.go). In a fleet (-redis)
// the decision is fleet-wide, so that a client spread over several replicas gets its
// limit once: a GCRA limit on Redis's clock per client and class (fleet.Allow), and on
// any Redis trouble this replica's own buckets decide that request instead, so that
// Redis is never the reason a request fails (docs/ARCHITECTURE.md §7).
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
)

// Limit is a token-bucket limit per client: a client may make Burst requests at
// once, and the bucket refills at Rate requests per second.
type Limit struct {
	// Rate is the sustained number of requests per second one client may make; 0 or
	// less means no limit.
	Rate float64
	// Burst is the bucket size: how many requests a client may make at once. Below 1
	// means max(1, ⌈Rate⌉), one second's worth.
	Burst int
}

// On reports whether the limit limits anything.
func (l Limit) On() bool { return l.Rate > 0 && !math.IsInf(l.Rate, 1) && !math.IsNaN(l.Rate) }

// BurstSize is the bucket size with the default applied: Burst, or when it is below 1
// max(1, ⌈Rate⌉).
func (l Limit) BurstSize() int {
	if l.Burst >= 1 {
		return l.Burst
	}
	return max(1, int(math.Ceil(l.Rate)))
}

// String describes the limit for people, e.g. "20 requests per second, bursts of 40"
// or "10 requests per minute, bursts of 10", or "no limit".
func (l Limit) String() string {
	if !l.On() {
		return "no limit"
	}
	n, unit := l.Rate, "second"
	if n < 1 {
		n, unit = n*60, "minute"
	}
	n = math.Round(n*1000) / 1000 // 10/m is stored as 0.1666…/s
	noun := "requests"
	if n == 1 {
		noun = "request"
	}
	return fmt.Sprintf("%s %s per %s, bursts of %d", strconv.FormatFloat(n, 'f', -1, 64), noun, unit, l.BurstSize())
}

// Decision is the outcome of one request: whether it may proceed, and what the
// RateLimit header says about the client's bucket.
type Decision struct {
	// Allowed reports whether the request may proceed.
	Allowed bool
	// Remaining is the number of whole requests left; never below zero, even for a
	// bucket in debt (Charge).
	Remaining int
	// RetryAfter is the time until the next token, when a refused client may retry;
	// zero when Allowed.
	RetryAfter time.Duration
	// ResetAfter is the time until the bucket is full again.
	ResetAfter time.Duration
}

// Limiter decides the requests of one class, per client. Its methods are safe for
// concurrent use and never fail: a limiter that cannot ask the fleet decides alone.
type Limiter interface {
	// Take spends one request of client's bucket when it has one, and reports
	// whether the request may go.
	Take(ctx context.Context, client netip.Addr) Decision
	// Charge spends n more requests of client's bucket after a request was admitted
	// (a bulk check's cost beyond its first request), below zero if need be: the
	// client's next requests are refused until the bucket has earned the debt back.
	// The Decision is always Allowed and tells the bucket's state for the headers.
	Charge(ctx context.Context, client netip.Addr, n float64) Decision
}

// MaxClients bounds the buckets Local keeps per class (~50 bytes each), so requests
// from ever new addresses cannot grow memory without bound.
const MaxClients = 1 << 16

// New returns the limiter of class (a word of ours, e.g. "rest") for lim, or nil when
// lim limits nothing. With a fleet (f non-nil) the limit is shared by every replica on
// its Redis, and this replica's own buckets (read with now) decide whenever the fleet
// returns an error; with f nil they decide alone, as without -redis.
func New(class string, lim Limit, f *fleet.Fleet, now func() time.Time) Limiter {
	if !lim.On() {
		return nil
	}
	local := NewLocal(lim, now, MaxClients)
	if f == nil {
		return local
	}
	return &shared{f: f, class: class, rate: lim.Rate, burst: lim.BurstSize(), local: local}
}

// shared is a limit of one class shared by the fleet: a GCRA limit per client on
// Redis's clock (fleet.Allow, fleet.Charge), which is the token bucket of Local in
// another form (a request may go when the bucket would hold a token; debts as Charge's).
// On any error of the fleet (Redis down, slow or full; fleet.Do has logged and counted
// it) the request is decided by local instead. Local is not charged while the fleet
// decides: a replica that falls back gives its clients fresh buckets, erring on the
// clients' side for as long as Redis is away.
type shared struct {
	f     *fleet.Fleet
	class string
	rate  float64
	burst int
	local *Local
}

// key is client's limit in Redis: prefix:rl:<class>:<hash of the address>.
func (s *shared) key(client netip.Addr) string {
	return s.f.Key("rl", "v1", s.class, fleet.Hash(client.String()))
}

func (s *shared) Take(ctx context.Context, client netip.Addr) Decision {
	d, err := s.f.Allow(ctx, s.key(client), s.rate, s.burst, 1)
	if err != nil {
		return s.local.Take(ctx, client)
	}
	return fromFleet(d)
}

func (s *shared) Charge(ctx context.Context, client netip.Addr, n float64) Decision {
	d, err := s.f.Charge(ctx, s.key(client), s.rate, s.burst, n)
	if err != nil {
		return s.local.Charge(ctx, client, n)
	}
	return fromFleet(d)
}

func fromFleet(d fleet.Decision) Decision {
	return Decision{Allowed: d.Allowed, Remaining: max(0, int(d.Remaining)), RetryAfter: d.RetryAfter, ResetAfter: d.ResetAfter}
}
