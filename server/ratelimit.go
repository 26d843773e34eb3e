package server

import (
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/ratelimit"
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

// RateLimit is a token-bucket limit per client (ratelimit.Limit): a client may make
// Burst requests at once, and the bucket refills at Rate requests per second.
type RateLimit = ratelimit.Limit

// limiter is one rate-limit class as HTTP shows it: the policy header and the
// refusal's message. Whether a request may go is decided by decide (package
// ratelimit: this replica's buckets, or the fleet's through Redis).
type limiter struct {
	class string
	limit RateLimit
	// policy is the RateLimit-Policy header value, the same on every answer.
	policy []string
	// message is the middle of every rate_limited message of the class, between the
	// client and the seconds to wait.
	message string
	decide  ratelimit.Limiter
}

// newLimiter returns the limiter of class for lim, or nil when lim limits nothing.
// what names what the class covers in messages, e.g. "the REST API". With f non-nil
// the limit is shared by every replica on f's Redis (ratelimit.New); now is the clock
// of this replica's own buckets.
func newLimiter(class, what string, lim RateLimit, f *fleet.Fleet, now func() time.Time) *limiter {
	decide := ratelimit.New(class, lim, f, now)
	if decide == nil {
		return nil
	}
	l := &limiter{class: class, limit: lim, decide: decide}
	// The policy as the draft's quota per window: the burst, and the whole seconds
	// an empty bucket takes to refill (rounded up, so a client that keeps to it is
	// never refused).
	window := max(1, int64(math.Ceil(float64(lim.BurstSize())/lim.Rate)))
	l.policy = []string{fmt.Sprintf("%q;q=%d;w=%d", class, lim.BurstSize(), window)}
	l.message = fmt.Sprintf(" made too many requests to %s, which allows each client %s; retry in ", what, lim)
	return l
}

// rateLimitHeader renders the RateLimit header field of d: the whole tokens left
// and, in whole seconds rounded up, when the client may try again after a refusal
// (the same value as Retry-After) or else when its bucket is full again.
func (l *limiter) rateLimitHeader(d ratelimit.Decision, retry int64) string {
	t := retry
	if d.Allowed {
		t = httpx.CeilSeconds(d.ResetAfter)
	}
	buf := make([]byte, 0, len(l.class)+24)
	buf = strconv.AppendQuote(buf, l.class)
	buf = append(buf, ";r="...)
	buf = strconv.AppendInt(buf, int64(d.Remaining), 10)
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
	d := l.decide.Take(r.Context(), key)
	var retry int64
	if !d.Allowed {
		retry = httpx.RetryAfterSeconds(d.RetryAfter)
	}
	h := w.Header()
	h["Ratelimit-Policy"] = l.policy
	h["Ratelimit"] = []string{l.rateLimitHeader(d, retry)}
	if d.Allowed {
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
