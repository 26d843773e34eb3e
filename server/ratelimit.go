package server

import (
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/registry"
)

// Rate-limit classes. Each has buckets of its own, so a client's questions to /ask do
// not use up its REST quota, nor the other way round. The class names the policy in
// the RateLimit-Policy and RateLimit headers.
const (
	classREST = "rest"
	classAsk  = "ask"
	classMCP  = "mcp"
	// classDocs is the discovery documents and /metrics, at the REST API's rate in
	// buckets of their own, so that scrapers cannot crowd out the API and reading the
	// manual does not use up a client's API quota.
	classDocs = "docs"
)

// RateLimit is a token-bucket limit per client: a client may make Burst requests at
// once, and the bucket refills at Rate requests per second.
type RateLimit struct {
	// Rate is the sustained number of requests per second one client may make; 0 or
	// less means no limit.
	Rate float64
	// Burst is the bucket size: how many requests a client may make at once. Below 1
	// means max(1, ⌈Rate⌉), one second's worth.
	Burst int
}

// On reports whether the limit limits anything.
func (l RateLimit) On() bool { return l.Rate > 0 && !math.IsInf(l.Rate, 1) && !math.IsNaN(l.Rate) }

// burst is the bucket size with the default applied.
func (l RateLimit) burst() int {
	if l.Burst >= 1 {
		return l.Burst
	}
	return max(1, int(math.Ceil(l.Rate)))
}

// String describes the limit for people, e.g. "20 requests per second, bursts of 40"
// or "10 requests per minute, bursts of 10", or "no limit".
func (l RateLimit) String() string {
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
	return fmt.Sprintf("%s %s per %s, bursts of %d", strconv.FormatFloat(n, 'f', -1, 64), noun, unit, l.burst())
}

// Limiter sizing. The buckets of one class live in shards, each behind its own lock,
// so that concurrent requests rarely wait for one another.
const (
	limiterShards = 64
	// maxClientsPerClass bounds the buckets one class keeps (~50 bytes each), so
	// requests from ever new addresses cannot grow memory without bound.
	maxClientsPerClass = 1 << 16
	// sweepEvery is how often a full shard may be searched for idle buckets.
	sweepEvery = time.Second
	// evictSample is how many buckets a full shard looks at to evict the least
	// recently used one when no bucket is idle.
	evictSample = 8
)

// limiter is the token buckets of one class, one per client. A bucket that has
// refilled to the brim is the same as no bucket, so it can be dropped at any time
// without changing what any client may do: a shard that is full drops those first
// (at most once per sweepEvery), and only when none is idle evicts the least
// recently used of a few buckets picked at random (such a client gets a full bucket
// early: a limit that errs on the client's side while someone floods the server with
// more than maxClientsPerClass addresses). Nothing runs in the background.
type limiter struct {
	class string
	limit RateLimit
	// rate is the refill rate in tokens per second.
	rate  float64
	burst float64
	// policy is the RateLimit-Policy header value, the same on every answer.
	policy []string
	// message is the middle of every rate_limited message of the class, between the
	// client and the seconds to wait.
	message string
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

// decision is the outcome of one request: whether it may proceed, and what the
// RateLimit header says about the client's bucket.
type decision struct {
	allowed bool
	// remaining is the number of whole tokens left.
	remaining int
	// wait is the time until the next token: when a refused client may retry.
	wait time.Duration
	// full is the time until the bucket is full again.
	full time.Duration
}

// newLimiter returns the limiter of class for lim, or nil when lim limits nothing.
// what names what the class covers in messages, e.g. "the REST API".
func newLimiter(class, what string, lim RateLimit, now func() time.Time, maxClients int) *limiter {
	if !lim.On() {
		return nil
	}
	l := &limiter{
		class:    class,
		limit:    lim,
		rate:     lim.Rate,
		burst:    float64(lim.burst()),
		now:      now,
		epoch:    now(),
		seed:     maphash.MakeSeed(),
		perShard: max(1, maxClients/limiterShards),
	}
	// The policy as the draft's quota per window: the burst, and the whole seconds
	// an empty bucket takes to refill (rounded up, so a client that keeps to it is
	// never refused).
	window := max(1, int64(math.Ceil(l.burst/lim.Rate)))
	l.policy = []string{fmt.Sprintf("%q;q=%d;w=%d", class, lim.burst(), window)}
	l.message = fmt.Sprintf(" made too many requests to %s, which allows each client %s; retry in ", what, lim)
	for i := range l.shards {
		l.shards[i].buckets = map[netip.Addr]bucket{}
	}
	return l
}

// bucketOf locks key's shard and returns it with key's bucket as of now: refilled, or
// full for a client not seen (room made for it). The caller stores the bucket back and
// unlocks the shard.
func (l *limiter) bucketOf(key netip.Addr) (*limiterShard, bucket) {
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

// take spends one token of key's bucket when it has one.
func (l *limiter) take(key netip.Addr) decision {
	sh, b := l.bucketOf(key)
	d := decision{allowed: b.tokens >= 1}
	if d.allowed {
		b.tokens--
	}
	sh.buckets[key] = b
	sh.mu.Unlock()
	// A bucket in debt (a bulk check's cost, charge) has no request left, not a
	// negative number of them.
	d.remaining = max(0, int(b.tokens))
	d.full = l.timeToEarn(l.burst - b.tokens)
	if !d.allowed {
		d.wait = l.timeToEarn(1 - b.tokens)
	}
	return d
}

// charge spends n more tokens of key's bucket after a request was admitted (a bulk
// check's cost beyond its first request), below zero if need be: the client's next
// requests are refused until the bucket has earned the debt back. It returns the
// bucket's state for the RateLimit header.
func (l *limiter) charge(key netip.Addr, n float64) decision {
	sh, b := l.bucketOf(key)
	b.tokens -= n
	sh.buckets[key] = b
	sh.mu.Unlock()
	return decision{allowed: true, remaining: max(0, int(b.tokens)), full: l.timeToEarn(l.burst - b.tokens)}
}

// timeToEarn is how long the bucket takes to earn tokens, rounded up to the
// nanosecond so that a client that waits it is never a hair early.
func (l *limiter) timeToEarn(tokens float64) time.Duration {
	return time.Duration(math.Ceil(tokens * float64(time.Second) / l.rate))
}

// refill adds the tokens earned since b was last used.
func (l *limiter) refill(b bucket, now int64) bucket {
	if elapsed := now - b.at; elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+float64(elapsed)*l.rate/float64(time.Second))
		b.at = now
	}
	return b
}

// makeRoom frees at least one place in a full shard; sh.mu is held.
func (l *limiter) makeRoom(sh *limiterShard, now int64) {
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

// clients returns how many buckets the limiter keeps.
func (l *limiter) clients() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.buckets)
		sh.mu.Unlock()
	}
	return n
}

// rateLimitHeader renders the RateLimit header field of d: the whole tokens left
// and, in whole seconds rounded up, when the client may try again after a refusal
// (the same value as Retry-After) or else when its bucket is full again.
func (l *limiter) rateLimitHeader(d decision, retry int64) string {
	t := retry
	if d.allowed {
		t = httpx.CeilSeconds(d.full)
	}
	buf := make([]byte, 0, len(l.class)+24)
	buf = strconv.AppendQuote(buf, l.class)
	buf = append(buf, ";r="...)
	buf = strconv.AppendInt(buf, int64(d.remaining), 10)
	buf = append(buf, ";t="...)
	buf = strconv.AppendInt(buf, t, 10)
	return string(buf)
}

// admit charges r to its client's bucket of l and sets the rate-limit headers of the
// draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-11,
// §3 and §4), on every answer and not only on refusals, so that a client can pace
// itself before it is refused:
//
//	RateLimit-Policy: "rest";q=40;w=2   (the class's quota: q requests per w seconds)
//	RateLimit: "rest";r=39;t=1          (r requests left; t seconds until the bucket is full)
//
// A refused request is answered 429 rate_limited with Retry-After, and RateLimit's t
// is then the same number of seconds (the draft: Retry-After should not point
// before the end of the effective window). A client in Config.RateLimitExempt is
// neither charged nor told about limits. It reports whether r may proceed.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, l *limiter) bool {
	if err := s.charge(w, r, l); err != nil {
		s.writeError(w, r, err)
		return false
	}
	return true
}

// charge is admit without the refusal's answer: it sets the headers and returns the
// *registry.Error with CodeRateLimited that refuses r, or nil when r may proceed.
func (s *Server) charge(w http.ResponseWriter, r *http.Request, l *limiter) error {
	client := clientAddr(r, s.trustedProxies)
	if isTrusted(client, s.rateLimitExempt) {
		return nil
	}
	key := bucketKey(client)
	d := l.take(key)
	var retry int64
	if !d.allowed {
		retry = httpx.RetryAfterSeconds(d.wait)
	}
	h := w.Header()
	h["Ratelimit-Policy"] = l.policy
	h["Ratelimit"] = []string{l.rateLimitHeader(d, retry)}
	if d.allowed {
		return nil
	}
	s.metrics.rateLimited.WithLabelValues(l.class).Inc()
	return &registry.Error{
		Code:       CodeRateLimited,
		Message:    describeClient(key) + l.message + strconv.FormatInt(retry, 10) + " s",
		RetryAfter: time.Duration(retry) * time.Second,
	}
}

// describeClient names the client a limit applies to: its address, or its /64 for
// IPv6.
func describeClient(key netip.Addr) string {
	switch {
	case !key.IsValid():
		return "This client"
	case key.Is6():
		return netip.PrefixFrom(key, 64).String()
	}
	return key.String()
}

// maxForwardedHops bounds how far X-Forwarded-For is walked, so a long header cannot
// cost more than a few parses.
const maxForwardedHops = 16

// clientAddr is the client r comes from. It is the address of the peer that
// connected, unless that peer is a trusted proxy: then X-Forwarded-For is walked from
// the right (the entry the nearest proxy appended) past every trusted proxy, and the
// first address that is not one is the client. Entries to its left are what the
// client sent and may be made up, so they are never read; without trusted proxies the
// header is ignored altogether, and a client cannot choose its own address. When
// every hop is trusted, the left-most is the client; a malformed entry stops the walk
// at the last trusted hop. IPv4-mapped IPv6 addresses count as IPv4.
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	client := peerAddr(r.RemoteAddr)
	if len(trusted) > 0 && isTrusted(client, trusted) {
		client = forwardedClient(r.Header.Values("X-Forwarded-For"), client, trusted)
	}
	return client
}

// bucketKey is the bucket a client is charged to: its address, or for IPv6 its /64,
// the block one subscriber usually gets, so that it cannot get a fresh bucket per
// address.
func bucketKey(client netip.Addr) netip.Addr {
	if client.Is6() {
		return netip.PrefixFrom(client, 64).Masked().Addr()
	}
	return client
}

// clientKey is the bucket r is charged to.
func clientKey(r *http.Request, trusted []netip.Prefix) netip.Addr {
	return bucketKey(clientAddr(r, trusted))
}

// forwardedClient walks the X-Forwarded-For fields (in order of arrival) from the
// right, starting from the trusted peer.
func forwardedClient(fields []string, peer netip.Addr, trusted []netip.Prefix) netip.Addr {
	client, hops := peer, 0
	for i := len(fields) - 1; i >= 0; i-- {
		rest := fields[i]
		for rest != "" {
			var item string
			if j := strings.LastIndexByte(rest, ','); j >= 0 {
				item, rest = rest[j+1:], rest[:j]
			} else {
				item, rest = rest, ""
			}
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			if hops++; hops > maxForwardedHops {
				return client
			}
			a := peerAddr(item)
			if !a.IsValid() {
				return client
			}
			if client = a; !isTrusted(a, trusted) {
				return a
			}
		}
	}
	return client
}

// peerAddr parses "ip", "ip:port" or "[ipv6]:port"; the zero Addr when it is none.
func peerAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
