package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/ratelimit"
	"github.com/peppolgate/peppolgate/registry"
)

// limitedRegistry answers every lookup and search, so only the limits refuse.
func limitedRegistry() *fakeRegistry {
	return &fakeRegistry{part: samplePart("0208:0999999999"), result: &registry.SearchResult{Query: "acme", Results: []registry.SearchHit{}}}
}

// useClock makes every rate limiter of s read clock. Only for a server that has not
// served yet: the buckets are kept relative to the clock's first reading.
func useClock(s *Server, clock *clock.Fake) {
	for _, l := range []*limiter{s.limitREST, s.limitAsk, s.limitMCP, s.limitDocs} {
		if l != nil {
			l.decide = ratelimit.New(l.class, l.limit, nil, clock.Now)
		}
	}
}

func TestLimiterBuckets(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	l := newLimiter(classREST, "the REST API", RateLimit{Rate: 2, Burst: 3}, nil, clock.Now)
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	steps := []struct {
		advance time.Duration
		key     netip.Addr
		want    ratelimit.Decision
		header  string
	}{
		{key: a, want: ratelimit.Decision{Allowed: true, Remaining: 2, ResetAfter: 500 * time.Millisecond}, header: `"rest";r=2;t=1`},
		{key: a, want: ratelimit.Decision{Allowed: true, Remaining: 1, ResetAfter: time.Second}, header: `"rest";r=1;t=1`},
		{key: a, want: ratelimit.Decision{Allowed: true, Remaining: 0, ResetAfter: 1500 * time.Millisecond}, header: `"rest";r=0;t=2`},
		{key: a, want: ratelimit.Decision{Remaining: 0, RetryAfter: 500 * time.Millisecond, ResetAfter: 1500 * time.Millisecond}, header: `"rest";r=0;t=1`},
		// Another client has a bucket of its own.
		{key: b, want: ratelimit.Decision{Allowed: true, Remaining: 2, ResetAfter: 500 * time.Millisecond}, header: `"rest";r=2;t=1`},
		// Half a second later a has earned one token.
		{advance: 500 * time.Millisecond, key: a, want: ratelimit.Decision{Allowed: true, Remaining: 0, ResetAfter: 1500 * time.Millisecond}, header: `"rest";r=0;t=2`},
		{advance: 100 * time.Millisecond, key: a, want: ratelimit.Decision{Remaining: 0, RetryAfter: 400 * time.Millisecond, ResetAfter: 1400 * time.Millisecond}, header: `"rest";r=0;t=1`},
		// An idle bucket fills up to the burst, never beyond.
		{advance: time.Hour, key: a, want: ratelimit.Decision{Allowed: true, Remaining: 2, ResetAfter: 500 * time.Millisecond}, header: `"rest";r=2;t=1`},
		// A clock that goes back earns nothing and takes nothing back.
		{advance: -time.Minute, key: a, want: ratelimit.Decision{Allowed: true, Remaining: 1, ResetAfter: time.Second}, header: `"rest";r=1;t=1`},
	}
	for i, st := range steps {
		clock.Advance(st.advance)
		got := l.decide.Take(context.Background(), st.key)
		if got != st.want {
			t.Fatalf("step %d: %+v, want %+v", i, got, st.want)
		}
		retry := int64(0)
		if !got.Allowed {
			retry = httpx.RetryAfterSeconds(got.RetryAfter)
		}
		if h := l.rateLimitHeader(got, retry); h != st.header {
			t.Errorf("step %d: RateLimit %s, want %s", i, h, st.header)
		}
	}
}

func TestRateLimitPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lim          RateLimit
		policy, text string
	}{
		{RateLimit{Rate: 20, Burst: 40}, `"rest";q=40;w=2`, "20 requests per second, bursts of 40"},
		{RateLimit{Rate: 2, Burst: 5}, `"rest";q=5;w=3`, "2 requests per second, bursts of 5"},
		{RateLimit{Rate: 1}, `"rest";q=1;w=1`, "1 request per second, bursts of 1"},
		{RateLimit{Rate: 2.5}, `"rest";q=3;w=2`, "2.5 requests per second, bursts of 3"},
		{RateLimit{Rate: 10.0 / 60, Burst: 10}, `"rest";q=10;w=60`, "10 requests per minute, bursts of 10"},
		{RateLimit{Rate: 100, Burst: 1}, `"rest";q=1;w=1`, "100 requests per second, bursts of 1"},
	}
	for _, tt := range tests {
		l := newLimiter(classREST, "the REST API", tt.lim, nil, time.Now)
		if l == nil {
			t.Fatalf("%+v: no limiter", tt.lim)
		}
		if got := l.policy[0]; got != tt.policy {
			t.Errorf("%+v: RateLimit-Policy %s, want %s", tt.lim, got, tt.policy)
		}
		if got := tt.lim.String(); got != tt.text {
			t.Errorf("%+v: %q, want %q", tt.lim, got, tt.text)
		}
	}
	for _, off := range []RateLimit{{}, {Rate: -1, Burst: 5}, {Burst: 10}} {
		if l := newLimiter(classREST, "x", off, nil, time.Now); l != nil || off.On() {
			t.Errorf("%+v limits", off)
		}
	}
}

// TestRateLimitAnswer checks a refusal exactly: status, headers and body, and that
// the published document describes it (newTestServer validates every answer).
func TestRateLimitAnswer(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, limitedRegistry(), func(c *Config) {
		c.RateLimit = RateLimit{Rate: 1, Burst: 2}
	})
	clock := clock.NewFake(time.Now())
	useClock(s, clock)
	path := "/api/v1/participant/0208:0999999999"
	for i, want := range []string{`"rest";r=1;t=1`, `"rest";r=0;t=2`} {
		w := do(t, s, "GET", path)
		if w.Code != http.StatusOK || w.Header().Get("RateLimit") != want || w.Header().Get("RateLimit-Policy") != `"rest";q=2;w=2` {
			t.Fatalf("request %d: %d RateLimit %q RateLimit-Policy %q", i, w.Code, w.Header().Get("RateLimit"), w.Header().Get("RateLimit-Policy"))
		}
	}
	clock.Advance(200 * time.Millisecond)
	w := do(t, s, "GET", path)
	if w.Code != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", w.Code, w.Body)
	}
	for k, want := range map[string]string{
		"Retry-After":      "1",
		"RateLimit":        `"rest";r=0;t=1`,
		"RateLimit-Policy": `"rest";q=2;w=2`,
		"Cache-Control":    "no-store",
		"Content-Type":     "application/json; charset=utf-8",
	} {
		if got := w.Header().Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if got := w.Header().Get("Access-Control-Expose-Headers"); !strings.Contains(got, "RateLimit, RateLimit-Policy") {
		t.Errorf("Access-Control-Expose-Headers %q does not let browsers read the rate-limit headers", got)
	}
	wantBody := `{"error":{"code":"rate_limited","message":"192.0.2.1 made too many requests to the REST API, which allows each client 1 request per second, bursts of 2; retry in 1 s"}}` + "\n"
	if w.Body.String() != wantBody {
		t.Errorf("body\n%s\nwant\n%s", w.Body, wantBody)
	}
	// Retry-After is whole seconds, rounded up: 0.8 s to the next token is 1 s, and
	// a client that waits it is served.
	clock.Advance(time.Second)
	if w := do(t, s, "GET", path); w.Code != http.StatusOK {
		t.Errorf("after Retry-After: %d %s", w.Code, w.Body)
	}
}

// TestRateLimitClasses checks that each class has buckets of its own and that
// health, readiness, metrics, discovery, preflights and unknown routes are never
// limited.
func TestRateLimitClasses(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, limitedRegistry(), func(c *Config) {
		c.RateLimit = RateLimit{Rate: 1, Burst: 1}
		c.AskRateLimit = RateLimit{Rate: 1, Burst: 1}
		c.MCPRateLimit = RateLimit{Rate: 1, Burst: 1}
	})
	useClock(s, clock.NewFake(time.Now())) // frozen: nothing refills
	type req struct {
		method, path, body string
		hdr                []string
	}
	rest := req{method: "GET", path: "/api/v1/search?q=acme"}
	ask := req{method: "POST", path: "/ask", body: `{"query": "Is Acme on Peppol?"}`, hdr: []string{"Content-Type", "application/json"}}
	mcp := req{method: "POST", path: "/mcp", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		hdr: []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}}
	send := func(rq req) *httptest.ResponseRecorder {
		r := httptest.NewRequest(rq.method, rq.path, strings.NewReader(rq.body))
		for i := 0; i+1 < len(rq.hdr); i += 2 {
			r.Header.Set(rq.hdr[i], rq.hdr[i+1])
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	limited := func(rq req) bool { return send(rq).Code == http.StatusTooManyRequests }
	steps := []struct {
		name    string
		rq      req
		limited bool
	}{
		{"first REST request", rest, false},
		{"second REST request", rest, true},
		{"another REST endpoint shares the REST bucket", req{method: "GET", path: "/api/v1/participant/0208:0999999999"}, true},
		{"HEAD counts as a REST request", req{method: "HEAD", path: "/api/v1/search?q=acme"}, true},
		{"/ask has its own bucket", ask, false},
		{"second /ask", ask, true},
		{"/mcp has its own bucket", mcp, false},
		{"second /mcp", mcp, true},
		{"GET /mcp shares the /mcp bucket", req{method: "GET", path: "/mcp"}, true},
		{"preflight", req{method: "OPTIONS", path: "/api/v1/search", hdr: []string{"Access-Control-Request-Method", "GET"}}, false},
		{"preflight again", req{method: "OPTIONS", path: "/api/v1/search", hdr: []string{"Access-Control-Request-Method", "GET"}}, false},
		{"/ask preflight", req{method: "OPTIONS", path: "/ask", hdr: []string{"Access-Control-Request-Method", "POST"}}, false},
		{"/mcp preflight", req{method: "OPTIONS", path: "/mcp", hdr: []string{"Access-Control-Request-Method", "POST"}}, false},
		{"405 on a limited path", req{method: "DELETE", path: "/api/v1/search"}, false},
		{"unknown route", req{method: "GET", path: "/api/v1/nope"}, false},
		{"unknown route again", req{method: "GET", path: "/api/v1/nope"}, false},
	}
	// The documents and /metrics have buckets of their own: the REST bucket is empty
	// here, and the first of them is still answered, the next refused.
	steps = append(steps, struct {
		name    string
		rq      req
		limited bool
	}{"the documents have their own bucket", req{method: "GET", path: "/openapi.json"}, false})
	for _, path := range []string{"/metrics", "/", "/openapi.json", "/llms.txt", "/llms-full.txt",
		"/.well-known/api-catalog", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server"} {
		steps = append(steps, struct {
			name    string
			rq      req
			limited bool
		}{"a document shares the documents' bucket: " + path, req{method: "GET", path: path}, true})
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		for range 3 { // a limited endpoint would refuse the second
			steps = append(steps, struct {
				name    string
				rq      req
				limited bool
			}{"never limited: " + path, req{method: "GET", path: path}, false})
		}
	}
	for _, st := range steps {
		if got := limited(st.rq); got != st.limited {
			t.Errorf("%s (%s %s): limited %v, want %v", st.name, st.rq.method, st.rq.path, got, st.limited)
		}
	}
	if w := send(rest); w.Header().Get("RateLimit-Policy") != `"rest";q=1;w=1` {
		t.Errorf("REST RateLimit-Policy %q", w.Header().Get("RateLimit-Policy"))
	}
	if w := send(ask); w.Header().Get("RateLimit-Policy") != `"ask";q=1;w=1` || w.Header().Get("RateLimit") != `"ask";r=0;t=1` {
		t.Errorf("/ask RateLimit-Policy %q RateLimit %q", w.Header().Get("RateLimit-Policy"), w.Header().Get("RateLimit"))
	}
	if w := send(req{method: "GET", path: "/healthz"}); w.Header().Get("RateLimit") != "" || w.Header().Get("RateLimit-Policy") != "" {
		t.Errorf("/healthz carries rate-limit headers: %v", w.Header())
	}
}

// TestRateLimitOff checks the zero Config limits nothing and sends no rate-limit
// headers (the other tests make many quick requests from one address).
func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, limitedRegistry(), nil)
	for i := range 50 {
		w := do(t, s, "GET", "/api/v1/participant/0208:0999999999")
		if w.Code != http.StatusOK || w.Header().Get("RateLimit") != "" {
			t.Fatalf("request %d: %d, RateLimit %q", i, w.Code, w.Header().Get("RateLimit"))
		}
	}
}

func TestClientKey(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	tests := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{name: "peer", remote: "203.0.113.7:51000", want: "203.0.113.7"},
		{name: "X-Forwarded-For ignored without trusted proxies", remote: "203.0.113.7:51000", xff: []string{"198.51.100.1"}, want: "203.0.113.7"},
		{name: "X-Forwarded-For ignored from an untrusted peer", remote: "203.0.113.7:51000", xff: []string{"198.51.100.1"}, trusted: proxies, want: "203.0.113.7"},
		{name: "trusted proxy names the client", remote: "10.0.0.1:51000", xff: []string{"198.51.100.1"}, trusted: proxies, want: "198.51.100.1"},
		{name: "what the client sent is left of it", remote: "10.0.0.1:51000", xff: []string{"1.1.1.1, 198.51.100.1"}, trusted: proxies, want: "198.51.100.1"},
		{name: "a chain of trusted proxies", remote: "10.0.0.1:51000", xff: []string{"1.1.1.1, 198.51.100.1, 10.9.9.9"}, trusted: proxies, want: "198.51.100.1"},
		{name: "several header lines", remote: "10.0.0.1:51000", xff: []string{"1.1.1.1", "198.51.100.1, 10.9.9.9"}, trusted: proxies, want: "198.51.100.1"},
		{name: "entry with a port", remote: "10.0.0.1:51000", xff: []string{"198.51.100.1:4711"}, trusted: proxies, want: "198.51.100.1"},
		{name: "malformed entry stops at the last trusted hop", remote: "10.0.0.1:51000", xff: []string{"198.51.100.1, not-an-ip, 10.9.9.9"}, trusted: proxies, want: "10.9.9.9"},
		{name: "empty entries skipped", remote: "10.0.0.1:51000", xff: []string{"198.51.100.1, , "}, trusted: proxies, want: "198.51.100.1"},
		{name: "every hop trusted: the left-most", remote: "10.0.0.1:51000", xff: []string{"10.2.2.2, 10.3.3.3"}, trusted: proxies, want: "10.2.2.2"},
		{name: "no header from a trusted proxy", remote: "10.0.0.1:51000", trusted: proxies, want: "10.0.0.1"},
		{name: "IPv6 keyed by its /64", remote: "[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443", want: "2001:db8:1:2::"},
		{name: "IPv6 with a zone", remote: "[fe80::1%eth0]:443", want: "fe80::"},
		{name: "IPv4-mapped IPv6 is IPv4", remote: "[::ffff:192.0.2.9]:443", want: "192.0.2.9"},
		{name: "IPv6 proxy, IPv6 client", remote: "[2001:db8:ffff::1]:443", xff: []string{"[2001:db8:5:6::7]:1234"}, trusted: proxies, want: "2001:db8:5:6::"},
		{name: "unparseable peer", remote: "@", want: "invalid IP"},
		{name: "long header walked a bounded way", remote: "10.0.0.1:1", xff: []string{"198.51.100.1" + strings.Repeat(", 10.0.0.2", maxForwardedHops+5)}, trusted: proxies, want: "10.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientKey(r, tt.trusted).String(); got != tt.want {
				t.Errorf("client %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRateLimitSpoofing checks that X-Forwarded-For buys a client nothing unless its
// peer is a trusted proxy: without one, made-up addresses share the caller's bucket.
func TestRateLimitSpoofing(t *testing.T) {
	t.Parallel()
	for _, trust := range []bool{false, true} {
		t.Run(fmt.Sprintf("trusted proxy %v", trust), func(t *testing.T) {
			s, _ := newTestServer(t, limitedRegistry(), func(c *Config) {
				c.RateLimit = RateLimit{Rate: 1, Burst: 1}
				if trust {
					c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}
				}
			})
			useClock(s, clock.NewFake(time.Now()))
			refused := 0
			for i := range 5 {
				w := do(t, s, "GET", "/api/v1/search?q=acme", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
				if w.Code == http.StatusTooManyRequests {
					refused++
					if trust {
						t.Errorf("request %d refused though each names another client behind the trusted proxy", i)
					}
				}
			}
			if !trust && refused != 4 {
				t.Errorf("%d of 5 refused, want 4: X-Forwarded-For from an untrusted peer changed the bucket", refused)
			}
		})
	}
}

// TestRateLimitExempt checks that exempt clients (after X-Forwarded-For from trusted
// proxies is applied) are never charged nor sent rate-limit headers, and that others
// still are.
func TestRateLimitExempt(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, limitedRegistry(), func(c *Config) {
		c.RateLimit = RateLimit{Rate: 1, Burst: 1}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}
		c.RateLimitExempt = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	})
	useClock(s, clock.NewFake(time.Now()))
	tests := []struct {
		name, remote, xff string
		exempt            bool
	}{
		{name: "loopback", remote: "127.0.0.1:40000", exempt: true},
		{name: "IPv6 loopback, not its /64", remote: "[::1]:40000", exempt: true},
		{name: "IPv6 neighbour of loopback", remote: "[::2]:40000"},
		{name: "loopback behind the trusted proxy", remote: "10.0.0.1:40000", xff: "127.0.0.1", exempt: true},
		{name: "internet behind the trusted proxy", remote: "10.0.0.1:40000", xff: "198.51.100.1"},
		{name: "claims loopback, untrusted peer", remote: "198.51.100.2:40000", xff: "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range 3 {
				r := httptest.NewRequest("GET", "/api/v1/search?q=acme", nil)
				r.RemoteAddr = tt.remote
				if tt.xff != "" {
					r.Header.Set("X-Forwarded-For", tt.xff)
				}
				w := httptest.NewRecorder()
				s.ServeHTTP(w, r)
				limited := w.Code == http.StatusTooManyRequests
				switch {
				case tt.exempt && (limited || w.Header().Get("RateLimit") != ""):
					t.Fatalf("request %d: %d, RateLimit %q; want exempt", i, w.Code, w.Header().Get("RateLimit"))
				case !tt.exempt && i > 0 && !limited:
					t.Fatalf("request %d: %d, want 429", i, w.Code)
				}
			}
		})
	}
}

// TestRateLimitAcrossFleet: three replicas (three servers, each with its own
// *fleet.Fleet) share one real redis-server; one client behind a trusted load
// balancer sends three times its burst, spread round-robin over the three. Its limit
// holds once for the fleet, not once per replica: about the burst is served, and
// every refusal is a 429 with Retry-After and RateLimit headers that agree.
func TestRateLimitAcrossFleet(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	// 10 a minute, bursts of 10: a token comes back every 6 s, so a slow run earns
	// at most a token or two while the 30 requests are made.
	lim := RateLimit{Rate: 10.0 / 60, Burst: 10}
	var replicas [3]*Server
	for i := range replicas {
		// A generous deadline: a busy machine must not turn a slow answer into a
		// fallback to the replica's own buckets here.
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "rltest", OpTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		replicas[i], _ = newTestServer(t, limitedRegistry(), func(c *Config) {
			c.RateLimit = lim
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
			c.Fleet = f
		})
	}
	served := 0
	for i := range 3 * lim.Burst {
		r := httptest.NewRequest("GET", "/api/v1/participant/0208:0999999999", nil)
		r.RemoteAddr = fmt.Sprintf("10.0.0.%d:40000", i%3+1) // the load balancer's address towards replica i%3
		r.Header.Set("X-Forwarded-For", "198.51.100.7")
		w := httptest.NewRecorder()
		replicas[i%3].ServeHTTP(w, r)
		if got := w.Header().Get("RateLimit-Policy"); got != `"rest";q=10;w=60` {
			t.Errorf("request %d: RateLimit-Policy %q", i, got)
		}
		switch w.Code {
		case http.StatusOK:
			served++
		case http.StatusTooManyRequests:
			retry, err := strconv.Atoi(w.Header().Get("Retry-After"))
			if err != nil || retry < 1 || retry > 6 {
				t.Errorf("request %d: Retry-After %q, want 1 to 6 s (the next token of 10/min)", i, w.Header().Get("Retry-After"))
			}
			if got, want := w.Header().Get("RateLimit"), fmt.Sprintf(`"rest";r=0;t=%d`, retry); got != want {
				t.Errorf("request %d: RateLimit %q, want %q (t is Retry-After on a refusal)", i, got, want)
			}
			if msg := decodeError(t, w).Message; !strings.HasPrefix(msg, "198.51.100.7 made too many requests") {
				t.Errorf("request %d: message %q", i, msg)
			}
		default:
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
	}
	if served < lim.Burst || served > lim.Burst+2 {
		t.Errorf("%d of %d requests served over 3 replicas, want about the burst of %d (each replica giving its own burst serves %d)",
			served, 3*lim.Burst, lim.Burst, 3*lim.Burst)
	}
	// Redis gone: each replica limits with its own buckets, and fails nothing.
	srv.Kill()
	for i, s := range replicas {
		r := httptest.NewRequest("GET", "/api/v1/participant/0208:0999999999", nil)
		r.RemoteAddr = fmt.Sprintf("10.0.0.%d:40000", i+1)
		r.Header.Set("X-Forwarded-For", "198.51.100.8")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusOK || w.Header().Get("RateLimit") != `"rest";r=9;t=6` {
			t.Errorf("replica %d with Redis killed: %d RateLimit %q; want 200 from a fresh bucket of its own", i, w.Code, w.Header().Get("RateLimit"))
		}
	}
}
