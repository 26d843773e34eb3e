package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
)

// Deadlines of the fault stack. They are short so that a fault that holds an answer
// back costs the test about a second, and the upstream clients' own timeouts are longer
// than them, so that the registry's deadlines are what bounds an answer.
const (
	faultLookupTimeout = time.Second
	faultSearchTimeout = time.Second
	faultDNSTimeout    = 500 * time.Millisecond
	faultClientTimeout = 5 * time.Second
	// faultMargin is how long after its deadline an answer may arrive. It is generous
	// (loaded CI machines, the race detector): the property checked is that the server
	// answers instead of hanging, not how fast it does.
	faultMargin = 2 * time.Second
)

// faultOptions tunes startFaultE2E.
type faultOptions struct {
	// publicSMPHosts, when not nil, puts the production SSRF guard (netguard's policy,
	// -allow-private-smp off) on SMP fetches, with these netsim SMP hosts exempt: they
	// stand in for SMPs on the public internet. Every other loopback address is
	// refused, as in production. (Plain http stays allowed: netsim has no TLS.)
	publicSMPHosts []int
	// hideLength makes SMP and Directory answers arrive without Content-Length, as if
	// chunked, so the clients must stop reading at their own caps instead of refusing
	// up front.
	hideLength bool
	// lookupTimeout replaces faultLookupTimeout when not zero.
	lookupTimeout time.Duration
}

// faultE2E is the whole stack (netsim, the sml/smp/directory clients, peppolnet.Registry,
// the Server checked against its OpenAPI document) with short deadlines, and an HTTP
// client of its own whose idle connections are closed when the test ends, so that
// goroutine-leak checks see only what the server left behind.
type faultE2E struct {
	*e2e
	client *http.Client
	// lured counts connections to a listener a row lured the client to.
	lured *atomic.Int64
	// logs holds what the registry and the server logged at warn and above, as an
	// operator would read it.
	logs *logSink
}

// logSink collects JSON log lines from any goroutine (a lockedWriter over buf).
type logSink struct {
	lockedWriter
	buf bytes.Buffer
}

func newLogSink() *logSink {
	s := &logSink{}
	s.w = &s.buf
	return s
}

// take returns the lines logged since the last take, and forgets them.
func (s *logSink) take() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s.buf.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	s.buf.Reset()
	return out
}

func startFaultE2E(t testing.TB, ds *netsim.Dataset, opts faultOptions) *faultE2E {
	t.Helper()
	n, err := netsim.Start(context.Background(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: faultDNSTimeout, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	policy := netguard.Policy{AllowPrivate: true, Timeout: faultClientTimeout}
	if opts.publicSMPHosts != nil {
		policy = netguard.Policy{Exempt: smpAddrs(t, n, opts.publicSMPHosts), Timeout: faultClientTimeout}
	}
	smpHTTP := netguard.NewHTTPClient(policy)
	dirHTTP := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	t.Cleanup(func() {
		smpHTTP.CloseIdleConnections()
		dirHTTP.CloseIdleConnections()
	})
	if opts.hideLength {
		smpHTTP.Transport = hideLength{smpHTTP.Transport}
		dirHTTP.Transport = hideLength{dirHTTP.Transport}
	}
	sink := newLogSink()
	logger := slog.New(WithRequestIDs(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelWarn})))
	clock := clock.NewFake(datasetNow) // the dataset's dates, as in startE2E
	lookupTimeout := faultLookupTimeout
	if opts.lookupTimeout > 0 {
		lookupTimeout = opts.lookupTimeout
	}
	anchors, err := n.Anchors()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := peppolnet.New(peppolnet.Config{
		Anchors:        anchors,
		Resolver:       res,
		SMP:            &smp.Client{HTTP: smpHTTP, Timeout: faultClientTimeout},
		Directory:      &directory.Client{Base: n.DirectoryURL(), HTTP: dirHTTP, Timeout: faultClientTimeout},
		DirectoryRate:  1000,
		DirectoryBurst: 1000,
		LookupTimeout:  lookupTimeout,
		SearchTimeout:  faultSearchTimeout,
		Now:            clock.Now,
		Logger:         logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Networks: registry.One(reg), BaseURL: "http://peppolgate.test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(validating(t, s))
	t.Cleanup(hs.Close)
	// The timeout is far past every deadline the server keeps: a regression in those
	// fails the tests waiting on an answer instead of hanging them.
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	t.Cleanup(client.CloseIdleConnections)
	return &faultE2E{e2e: &e2e{net: n, ds: ds, url: hs.URL, clock: clock}, client: client, logs: sink}
}

// smpAddrs returns the address:port pairs of netsim SMP hosts.
func smpAddrs(t testing.TB, n *netsim.Network, hosts []int) []netip.AddrPort {
	t.Helper()
	var out []netip.AddrPort
	for _, i := range hosts {
		u, err := url.Parse(n.SMPBaseURL(i))
		if err != nil {
			t.Fatalf("SMP host %d has base URL %q", i, n.SMPBaseURL(i))
		}
		ap, err := netip.ParseAddrPort(u.Host)
		if err != nil {
			t.Fatalf("SMP host %d: %v", i, err)
		}
		out = append(out, ap)
	}
	return out
}

// hideLength removes the Content-Length of every answer, as a chunked answer has none.
type hideLength struct{ next http.RoundTripper }

// CloseIdleConnections closes the wrapped transport's idle connections.
func (h hideLength) CloseIdleConnections() {
	if c, ok := h.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (h hideLength) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(r)
	if resp != nil {
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, err
}

// reply is one answer of the server, for use across goroutines.
type reply struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
	err     error
}

// send sends one request and reads the whole answer; it reports failures in
// reply.err instead of failing the test, so it may run on any goroutine.
func (e *faultE2E) send(ctx context.Context, method, path, body string) reply {
	start := time.Now()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, rd)
	if err != nil {
		return reply{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return reply{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, elapsed: time.Since(start), err: err}
}

// faultCase is one row of the fault matrix: a fault, a request, and the answer it must
// get within its deadline plus faultMargin.
type faultCase struct {
	name string
	opts faultOptions
	// setup injects the fault and returns the request path (GET) or, with a body,
	// the POST /ask body.
	setup   func(t *testing.T, e *faultE2E) (path, askBody string)
	status  int
	code    registry.Code // error code of a 4xx/5xx answer
	warning string        // a warning the 200 participant answer must carry
	retry   string        // the Retry-After the answer must carry ("" = none)
	// failure is the failure kind the operator's "upstream call failed" log line must
	// name; "" means the row is no upstream failure and no such line may be logged.
	failure  string
	deadline time.Duration // the configured deadline that bounds the answer
	// after checks what reached the network, e.g. that a redirect was not followed.
	after func(t *testing.T, e *faultE2E, before netsim.HitCounts)
}

func participantPath(id string) string { return "/api/v1/participant/" + id }

// onParticipant sets f on the participant's DNS name and SMP requests and returns its
// lookup path.
func onParticipant(id string, f netsim.Fault) func(t *testing.T, e *faultE2E) (string, string) {
	return func(t *testing.T, e *faultE2E) (string, string) {
		e.net.SetFault(netsim.ParticipantTarget(e.ds.MustLookup(id).ID), f)
		return participantPath(id), ""
	}
}

// onNetwork sets f on target and returns path.
func onNetwork(target netsim.Target, f netsim.Fault, path string) func(t *testing.T, e *faultE2E) (string, string) {
	return func(t *testing.T, e *faultE2E) (string, string) {
		e.net.SetFault(target, f)
		return path, ""
	}
}

// smpServiceGroupURL is the URL a participant's ServiceGroup is fetched from.
func smpServiceGroupURL(e *faultE2E, id string) string {
	p := e.ds.MustLookup(id)
	return smp.ServiceGroupURL(e.net.SMPBaseURL(p.SMPHost), p.ID)
}

// countingListener accepts connections on 127.0.0.1 and counts them, closing each at
// once: a place to lure a client to, proving it never came.
func countingListener(t *testing.T) (addr string, count *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	count = new(atomic.Int64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			count.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String(), count
}

func faultMatrix() []faultCase {
	swedish := netsim.KnownSwedish
	searchPath := "/api/v1/search?q=" + url.QueryEscape("Globex Trading")
	askLookup := `{"query":"Is ` + netsim.KnownBelgian + ` on Peppol?"}`
	smHits := func(h netsim.HitCounts, host int) int64 { return h.SMP[host].ServiceMetadata }
	sgHits := func(h netsim.HitCounts, host int) int64 { return h.SMP[host].ServiceGroup }
	return []faultCase{
		{name: "dns servfail", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail}, participantPath(netsim.KnownBelgian)),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "DNS SERVFAIL"},
		{name: "dns refused", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSRefused}, participantPath(netsim.KnownBelgian)),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "DNS REFUSED"},
		{name: "dns timeout", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTimeout}, participantPath(netsim.KnownBelgian)),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "timeout"},
		// A resolver answering NXDOMAIN for every name (a captive portal, a typo'd
		// -dns-server): not "not registered", since the answer does not come from the
		// SML zone (docs/ARCHITECTURE.md §1).
		{name: "dns NXDOMAIN for every name, without the zone's SOA", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSNXDomain}, participantPath(netsim.KnownBelgian)),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "DNS answer not from the SML zone"},
		{name: "dns NXDOMAIN for every name, with another zone's SOA", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSNXDomainForeignSOA}, participantPath(netsim.KnownBelgian)),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "DNS answer not from the SML zone"},
		// A truncated UDP answer is retried over TCP, where it is whole: not a failure.
		{name: "dns truncated", setup: onNetwork(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTruncate}, participantPath(netsim.KnownBelgian)),
			status: 200, deadline: faultLookupTimeout,
			after: func(t *testing.T, e *faultE2E, before netsim.HitCounts) {
				if h := e.net.Hits(); h.DNS.TCP == before.DNS.TCP {
					t.Errorf("no DNS query over TCP after a truncated answer: %+v", h.DNS)
				}
			}},
		{name: "smp 500", setup: onParticipant(swedish, netsim.Fault{HTTPStatus: 500}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "HTTP 500"},
		// An SMP's Retry-After is not ours to pass on: the lookup failed, retry with backoff.
		{name: "smp 503 with Retry-After", setup: onParticipant(swedish, netsim.Fault{HTTPStatus: 503, RetryAfter: "120"}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "HTTP 503"},
		// The SML names an SMP that does not know the participant: an answer, not a failure.
		{name: "smp 404", setup: onParticipant(swedish, netsim.Fault{HTTPStatus: 404}),
			status: 200, warning: registry.WarnSMPNotFound, deadline: faultLookupTimeout},
		{name: "smp hang", setup: onParticipant(swedish, netsim.Fault{Hang: true}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "timeout",
			after: func(t *testing.T, e *faultE2E, _ netsim.HitCounts) {
				// The registry gave up on the SMP request rather than leaving it open.
				waitFor(t, "the hung SMP request to be abandoned", func() bool { return e.net.Hits().Abandoned > 0 })
			}},
		{name: "smp slow-drip body", setup: onParticipant(swedish, netsim.Fault{SlowBody: 30 * time.Second}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "timeout"},
		{name: "smp latency beyond the deadline",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				// On the host, not the participant: a participant's Latency delays its
				// DNS answer too.
				host := e.ds.MustLookup(swedish).SMPHost
				return onNetwork(netsim.SMPHostTarget(host), netsim.Fault{Latency: 30 * time.Second}, participantPath(swedish))(t, e)
			},
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "timeout"},
		{name: "smp malformed XML", setup: onParticipant(swedish, netsim.Fault{Malformed: true}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "malformed answer"},
		{name: "smp 50 MiB body", setup: onParticipant(swedish, netsim.Fault{OversizeBody: 50 << 20}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "answer too large"},
		{name: "smp 50 MiB body without Content-Length", opts: faultOptions{hideLength: true},
			setup:  onParticipant(swedish, netsim.Fault{OversizeBody: 50 << 20}),
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "answer too large"},
		// HTTP redirects are never followed (the NAPTR record names the SMP): a 3xx to
		// itself is one request, not a loop.
		{name: "smp HTTP redirect loop",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				return onParticipant(swedish, netsim.Fault{HTTPStatus: 302, Location: smpServiceGroupURL(e, swedish)})(t, e)
			},
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "HTTP 302",
			after: func(t *testing.T, e *faultE2E, before netsim.HitCounts) {
				host := e.ds.MustLookup(swedish).SMPHost
				if got := sgHits(e.net.Hits(), host) - sgHits(before, host); got != 1 {
					t.Errorf("%d ServiceGroup requests, want 1 (the redirect is not followed)", got)
				}
			}},
		{name: "smp HTTP redirect to 127.0.0.1",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				var addr string
				addr, e.lured = countingListener(t)
				e.net.SetFault(netsim.ParticipantTarget(e.ds.MustLookup(swedish).ID),
					netsim.Fault{HTTPStatus: 307, Location: "http://" + addr + "/admin"})
				return participantPath(swedish), ""
			},
			status: 502, code: registry.CodeLookupFailed, deadline: faultLookupTimeout, failure: "HTTP 307",
			after: func(t *testing.T, e *faultE2E, _ netsim.HitCounts) {
				if n := e.lured.Load(); n != 0 {
					t.Errorf("the redirect to 127.0.0.1 was followed: %d connections arrived", n)
				}
			}},
		// An SMP-level Redirect is followed once; one to an SMP that redirects again
		// is a loop, and only the endpoint is missing from the answer.
		{name: "smp Redirect loop",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				p := e.ds.MustLookup(swedish)
				e.net.SetRedirect(p.ID, e.net.SMPBaseURL(p.SMPHost))
				return participantPath(swedish), ""
			},
			status: 200, warning: registry.WarnEndpointUnavailable, deadline: faultLookupTimeout, failure: "redirect loop",
			after: func(t *testing.T, e *faultE2E, before netsim.HitCounts) {
				host := e.ds.MustLookup(swedish).SMPHost
				// The lookup reads one ServiceMetadata and, its endpoint unread, its
				// verdict the services' two (registry.JudgeParticipant): three reads,
				// each redirect followed once.
				if got := smHits(e.net.Hits(), host) - smHits(before, host); got != 6 {
					t.Errorf("%d ServiceMetadata requests, want 6 (3 reads, the redirect followed once each)", got)
				}
			}},
		// With the SSRF guard on, an SMP (standing in for a public one) redirects to
		// 127.0.0.1: the guard refuses the dial, so nothing arrives there.
		{name: "smp Redirect to 127.0.0.1 (guard on)",
			opts: faultOptions{publicSMPHosts: []int{0}},
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				// The second: the first is warmID's, cached before the fault.
				id := plainParticipant(t, e.ds, 1, func(host int) bool { return host == 0 })
				var addr string
				addr, e.lured = countingListener(t)
				e.net.SetRedirect(e.ds.MustLookup(id).ID, "http://"+addr+"/smp")
				return participantPath(id), ""
			},
			status: 200, warning: registry.WarnEndpointUnavailable, deadline: faultLookupTimeout, failure: "refused: address not public (SSRF guard)",
			after: func(t *testing.T, e *faultE2E, before netsim.HitCounts) {
				if smHits(e.net.Hits(), 0) == smHits(before, 0) {
					t.Error("the public SMP was not asked: the row proves nothing")
				}
				if n := e.lured.Load(); n != 0 {
					t.Errorf("%d connections reached the loopback redirect target", n)
				}
			}},
		// The SMP's Redirect names a host that refuses connections, or whose
		// certificate is not trusted: only the endpoint is missing, and the log says why.
		{name: "smp Redirect to a closed port",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				e.net.SetRedirect(e.ds.MustLookup(swedish).ID, closedURL(t, "http")+"/smp")
				return participantPath(swedish), ""
			},
			status: 200, warning: registry.WarnEndpointUnavailable, deadline: faultLookupTimeout, failure: "connection refused"},
		{name: "smp Redirect to https with an untrusted certificate",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				untrusted := httptest.NewUnstartedServer(http.NotFoundHandler())
				untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
				untrusted.StartTLS()
				t.Cleanup(untrusted.Close)
				e.net.SetRedirect(e.ds.MustLookup(swedish).ID, untrusted.URL+"/smp")
				return participantPath(swedish), ""
			},
			status: 200, warning: registry.WarnEndpointUnavailable, deadline: faultLookupTimeout, failure: "TLS"},
		// NXDOMAIN and no card: an answer, not a failure; nothing for the operator.
		{name: "dns nxdomain, no card",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				return participantPath("0208:0999999999"), ""
			},
			status: 404, code: registry.CodeNotFound, deadline: faultLookupTimeout},
		{name: "directory 429", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "7"}, searchPath),
			status: 502, code: registry.CodeSearchFailed, retry: "7", deadline: faultSearchTimeout, failure: "rate limited (HTTP 429)"},
		{name: "directory 500", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500}, searchPath),
			status: 502, code: registry.CodeSearchFailed, deadline: faultSearchTimeout, failure: "HTTP 500"},
		{name: "directory malformed JSON", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{Malformed: true}, searchPath),
			status: 502, code: registry.CodeSearchFailed, deadline: faultSearchTimeout, failure: "malformed answer"},
		{name: "directory hang", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{Hang: true}, searchPath),
			status: 502, code: registry.CodeSearchFailed, deadline: faultSearchTimeout, failure: "timeout"},
		{name: "directory 50 MiB body", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{OversizeBody: 50 << 20}, searchPath),
			status: 502, code: registry.CodeSearchFailed, deadline: faultSearchTimeout, failure: "answer too large"},
		// A lookup does not fail with the Directory: the card is missing, and it says so.
		{name: "directory 500 during a lookup", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500}, participantPath(swedish)),
			status: 200, warning: registry.WarnDirectoryUnavailable, deadline: faultLookupTimeout, failure: "HTTP 500"},
		{name: "directory hang during a lookup", setup: onNetwork(netsim.DirectoryTarget(), netsim.Fault{Hang: true}, participantPath(swedish)),
			status: 200, warning: registry.WarnDirectoryUnavailable, deadline: faultLookupTimeout, failure: "timeout"},
		{name: "ask, dns servfail",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
				return "/ask", askLookup
			},
			status: 502, code: nlq.CodeAskFailed, deadline: faultLookupTimeout, failure: "DNS SERVFAIL"},
		{name: "ask, directory hang",
			setup: func(t *testing.T, e *faultE2E) (string, string) {
				e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{Hang: true})
				return "/ask", `{"query":"find companies named Globex Trading"}`
			},
			status: 502, code: nlq.CodeAskFailed, deadline: faultSearchTimeout, failure: "timeout"},
	}
}

// warmID is a participant whose lookup succeeds on the stack opts builds, to be cached
// before a fault and asked for again during it: one on a public SMP host when the SSRF
// guard is on, since every other host is refused then.
func warmID(t *testing.T, ds *netsim.Dataset, opts faultOptions) string {
	t.Helper()
	if opts.publicSMPHosts == nil {
		return netsim.KnownGLN
	}
	return plainParticipant(t, ds, 0, func(host int) bool { return host == opts.publicSMPHosts[0] })
}

// plainParticipant returns the nth (from 0) participant whose SMP host satisfies
// onHost and whose lookup is plain: in the SML, known to its SMP without a redirect,
// with a card.
func plainParticipant(t *testing.T, ds *netsim.Dataset, nth int, onHost func(int) bool) string {
	t.Helper()
	for _, p := range ds.Participants {
		if p.InSML && !p.SMPNotFound && p.RedirectHost < 0 && p.Card != nil && onHost(p.SMPHost) {
			if nth == 0 {
				return p.ID.String()
			}
			nth--
		}
	}
	t.Fatal("not enough participants in the dataset fit")
	return ""
}

// waitFor polls cond for a few seconds; it fails the test if cond never holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("gave up waiting for %s", what)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFaultMatrix injects each upstream fault into netsim and checks the answer of the
// whole stack: the right status, code and Retry-After, a message without internal
// addresses, within the configured deadline plus faultMargin; while the faulty
// request is in flight, /healthz and a cached lookup are answered. Each row gets a
// fresh stack, so no row sees another's cache or circuit breaker. Afterwards no
// goroutine of the server, the registry or the clients is left (leak_test.go).
func TestFaultMatrix(t *testing.T) {
	ignore := goroutinesBefore()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	var table, golden strings.Builder
	golden.WriteString("# Fault matrix: for each upstream fault, what the client gets and what the operator\n" +
		"# reads in the log (warn and above; volatile parts replaced by …). Written by\n" +
		"# TestFaultMatrix; rewrite with go test ./server -run TestFaultMatrix -update.\n")
	for _, tc := range faultMatrix() {
		t.Run(tc.name, func(t *testing.T) {
			e := startFaultE2E(t, ds, tc.opts)
			warm := participantPath(warmID(t, ds, tc.opts))
			if r := e.send(t.Context(), "GET", warm, ""); r.err != nil || r.status != 200 {
				t.Fatalf("warming %s: %d %v", warm, r.status, r.err)
			}
			e.logs.take()
			path, askBody := tc.setup(t, e)
			before := e.net.Hits()
			method := "GET"
			if askBody != "" {
				method = "POST"
			}
			faulty := make(chan reply, 1)
			go func() { faulty <- e.send(t.Context(), method, path, askBody) }()
			// Meanwhile, the server answers other requests.
			for _, p := range []string{"/healthz", warm} {
				r := e.send(t.Context(), "GET", p, "")
				if r.err != nil || r.status != 200 {
					t.Errorf("during the fault, GET %s: %d %v %s", p, r.status, r.err, r.body)
				}
				if p == warm && r.header.Get("X-Cache") != "hit" {
					t.Errorf("during the fault, the warmed lookup answered X-Cache %q", r.header.Get("X-Cache"))
				}
			}
			r := <-faulty
			if r.err != nil {
				t.Fatalf("%s %s: %v after %v", method, path, r.err, r.elapsed)
			}
			fmt.Fprintf(&table, "| %s | %d %s%s | %v |\n", tc.name, r.status, describeAnswer(r), retryNote(r), r.elapsed.Round(time.Millisecond))
			checkFaultAnswer(t, tc, r)
			if tc.after != nil {
				tc.after(t, e, before)
			}
			logs := e.logs.take()
			checkFaultLogs(t, tc, r, logs)
			fmt.Fprintf(&golden, "\n## %s\n%s %s\nclient: %s\n", tc.name, method, path, clientView(r))
			for _, l := range operatorLines(logs) {
				golden.WriteString("log: " + l + "\n")
			}
		})
	}
	t.Logf("fault matrix:\n| fault | answer | time |\n|---|---|---|\n%s", table.String())
	if !t.Failed() {
		checkTextGolden(t, filepath.Join("testdata", "fault-matrix.golden.md"), golden.String())
	}
	checkNoLeaks(t, ignore)
}

// checkFaultLogs checks what the operator reads about one row: an "upstream call
// failed" line naming the row's failure kind, with the upstream, the outcome and the
// request id, when the row is an upstream failure, and none otherwise; and on a 5xx
// answer, the cause in the request's own log line.
func checkFaultLogs(t *testing.T, tc faultCase, r reply, logs []map[string]any) {
	t.Helper()
	var calls []map[string]any
	for _, l := range logs {
		if l["msg"] == "upstream call failed" {
			calls = append(calls, l)
		}
	}
	if tc.failure == "" {
		if len(calls) > 0 {
			t.Errorf("logged an upstream failure for a row that is none: %v", calls)
		}
	} else {
		found := false
		for _, l := range calls {
			if l["failure"] == tc.failure {
				found = true
				for _, k := range []string{"upstream", "outcome", "elapsed_ms", "err", "request_id"} {
					if _, ok := l[k]; !ok {
						t.Errorf("the upstream failure line lacks %s: %v", k, l)
					}
				}
			}
		}
		if !found {
			t.Errorf("no upstream failure line with failure %q; the log: %v", tc.failure, logs)
		}
	}
	if r.status >= 500 {
		found := false
		for _, l := range logs {
			if l["msg"] == "request failed" && strings.Contains(fmt.Sprint(l["error"]), "(cause: ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no request failed line with the cause; the log: %v", logs)
		}
	}
}

// checkTextGolden compares got with the file at path, or rewrites the file with -update.
func checkTextGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs (rerun with -update if intended, and review the diff):\n%s", path, got)
	}
}

// closedURL is a scheme://127.0.0.1:port URL nothing listens on.
func closedURL(t *testing.T, scheme string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return scheme + "://" + addr
}

// clientView is what the client got: status, error code and message or warnings, and
// Retry-After.
func clientView(r reply) string {
	var e errorBody
	s := strconv.Itoa(r.status)
	if json.Unmarshal(r.body, &e) == nil && e.Error.Code != "" {
		s += " " + string(e.Error.Code) + ": " + e.Error.Message
	} else {
		s += " " + describeAnswer(r)
	}
	return s + retryNote(r)
}

// operatorLines renders log lines for the golden file, in a stable order: level,
// message and the attributes an operator reads, ports and request ids replaced by ….
func operatorLines(logs []map[string]any) []string {
	var out []string
	for _, l := range logs {
		var b strings.Builder
		fmt.Fprintf(&b, "%v %q", l["level"], l["msg"])
		for _, k := range []string{"method", "path", "status", "upstream", "participant", "query", "host", "outcome", "failure", "dns_rcode", "http_status", "retry_after_s", "code", "request_id", "err", "error"} {
			v, ok := l[k]
			if !ok {
				continue
			}
			s := loopbackPort.ReplaceAllString(fmt.Sprint(v), "127.0.0.1:PORT")
			if k == "request_id" {
				s = "…"
			}
			fmt.Fprintf(&b, " %s=%s", k, s)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// checkFaultAnswer checks one answer against its row.
func checkFaultAnswer(t *testing.T, tc faultCase, r reply) {
	t.Helper()
	if bound := tc.deadline + faultMargin; r.elapsed > bound {
		t.Errorf("answered after %v, beyond the %v deadline plus %v", r.elapsed, tc.deadline, faultMargin)
	}
	if r.status != tc.status {
		t.Errorf("status %d, want %d: %s", r.status, tc.status, r.body)
	}
	if got := r.header.Get("Retry-After"); got != tc.retry {
		t.Errorf("Retry-After %q, want %q", got, tc.retry)
	}
	if strings.Contains(string(r.body), "127.0.0.1") && r.status != 200 {
		t.Errorf("the error message shows an internal address: %s", r.body)
	}
	if tc.status >= 400 {
		var e errorBody
		if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code != tc.code || e.Error.Message == "" {
			t.Errorf("error %s, want code %s", r.body, tc.code)
		}
		if r.status >= 500 && r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q on an upstream failure", r.header.Get("Cache-Control"))
		}
		return
	}
	var p registry.Participant
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("answer %s: %v", r.body, err)
	}
	// Warnings about the id's form and about the participant's own registration
	// (certificates, dates, code lists) are not about the network's faults.
	notFaults := []string{registry.WarnIdentifier,
		registry.WarnCertificateExpired, registry.WarnCertificateExpiring, registry.WarnCertificateChainInvalid,
		registry.WarnServiceNotYetActive, registry.WarnServiceExpired, registry.WarnEndpointNotHTTPS, registry.WarnEndpointPort,
		registry.WarnTransportProfileDeprecated, registry.WarnTransportProfileRemoved, registry.WarnTransportProfileUnknown,
		registry.WarnDocumentTypeDeprecated, registry.WarnDocumentTypeRemoved, registry.WarnDocumentTypeNonStandard,
		registry.WarnDirectoryCardMissing, registry.WarnDirectoryDocTypesMismatch}
	var codes []string
	for _, w := range p.Warnings {
		if !slices.Contains(notFaults, w.Code) {
			codes = append(codes, w.Code)
		}
	}
	if tc.warning != "" && !slices.Contains(codes, tc.warning) {
		t.Errorf("warnings %v, want %s", codes, tc.warning)
	}
	if tc.warning == "" && len(codes) > 0 {
		t.Errorf("warnings %v, want none", codes)
	}
}

// describeAnswer names what an answer says: its error code, or its warnings.
func describeAnswer(r reply) string {
	var e errorBody
	if json.Unmarshal(r.body, &e) == nil && e.Error.Code != "" {
		return string(e.Error.Code)
	}
	var p registry.Participant
	if json.Unmarshal(r.body, &p) == nil && len(p.Warnings) > 0 {
		var codes []string
		for _, w := range p.Warnings {
			codes = append(codes, w.Code)
		}
		return "warning " + strings.Join(codes, ", ")
	}
	return "ok"
}

func retryNote(r reply) string {
	if ra := r.header.Get("Retry-After"); ra != "" {
		return ", Retry-After " + ra
	}
	return ""
}

// TestFaultHangKeepsServing holds one lookup at a hanging SMP (with the production
// lookup deadline, so it stays held for the whole test) and checks that meanwhile the
// server answers everything else: health, a cached lookup, a fresh lookup of a
// participant on another SMP, a search. When the held request's client goes away, the
// upstream request is abandoned too, and nothing is left running.
func TestFaultHangKeepsServing(t *testing.T) {
	before := goroutinesBefore()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	t.Run("hang", func(t *testing.T) {
		e := startFaultE2E(t, ds, faultOptions{lookupTimeout: peppolnet.DefaultLookupTimeout})
		held := e.ds.MustLookup(netsim.KnownSwedish)
		other := plainParticipant(t, ds, 0, func(host int) bool { return host != held.SMPHost })
		warm := participantPath(netsim.KnownGLN)
		if r := e.send(t.Context(), "GET", warm, ""); r.status != 200 {
			t.Fatalf("warming: %d %v", r.status, r.err)
		}
		e.net.SetFault(netsim.SMPHostTarget(held.SMPHost), netsim.Fault{Hang: true})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		faulty := make(chan reply, 1)
		go func() { faulty <- e.send(ctx, "GET", participantPath(netsim.KnownSwedish), "") }()
		waitFor(t, "the lookup to reach the hanging SMP", func() bool { return e.net.Hits().SMP[held.SMPHost].ServiceGroup > 0 })

		for _, p := range []string{"/healthz", "/readyz", warm, participantPath(other), "/api/v1/search?q=Globex", "/openapi.json"} {
			if r := e.send(t.Context(), "GET", p, ""); r.err != nil || r.status != 200 {
				t.Errorf("while a lookup hangs, GET %s: %d %v %s", p, r.status, r.err, r.body)
			}
		}
		select {
		case r := <-faulty:
			t.Fatalf("the held lookup ended before the others were served (%d after %v): the test proves nothing", r.status, r.elapsed)
		default:
		}
		cancel()
		if r := <-faulty; r.err == nil {
			t.Errorf("the held lookup answered %d after its client left", r.status)
		}
		waitFor(t, "the SMP request to be abandoned", func() bool { return e.net.Hits().Abandoned > 0 })
	})
	checkNoLeaks(t, before)
}

// TestAbortedRequestsDoNotOpenBreakers: clients that give up on their requests while
// the SMP host and the Directory hold the answers back cut the upstream requests short
// (every caller of the coalesced fetch left), and that is never counted as the
// upstream failing. Twice the breaker threshold of aborted lookups later, the SMP host
// and the Directory, answering again, are asked and answer: no circuit breaker
// opened.
func TestAbortedRequestsDoNotOpenBreakers(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	e := startFaultE2E(t, ds, faultOptions{lookupTimeout: peppolnet.DefaultLookupTimeout})
	host := e.ds.MustLookup(netsim.KnownSwedish).SMPHost
	onHost := func(h int) bool { return h == host }
	e.net.SetFault(netsim.SMPHostTarget(host), netsim.Fault{Hang: true})
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{Hang: true})
	const aborted = 2 * peppolnet.DefaultBreakerFailures
	for i := range aborted {
		before := e.net.Hits()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan reply, 1)
		go func() { done <- e.send(ctx, "GET", participantPath(plainParticipant(t, ds, i, onHost)), "") }()
		waitFor(t, "the lookup to reach the hanging SMP and Directory", func() bool {
			h := e.net.Hits()
			return h.SMP[host].ServiceGroup > before.SMP[host].ServiceGroup && h.Directory.Search > before.Directory.Search
		})
		cancel()
		if r := <-done; r.err == nil {
			t.Fatalf("aborted lookup %d answered %d", i, r.status)
		}
	}
	waitFor(t, "the upstream requests to be abandoned", func() bool { return e.net.Hits().Abandoned >= 2*aborted })
	e.net.ClearFaults()

	id := plainParticipant(t, ds, aborted, onHost)
	r := e.send(t.Context(), "GET", participantPath(id), "")
	if r.status != 200 {
		t.Fatalf("lookup of %s after the aborted ones: %d %s", id, r.status, r.body)
	}
	var p registry.Participant
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	if p.SMP == nil || p.Directory == nil {
		t.Errorf("lookup of %s after the aborted ones lacks its SMP or Directory record: %s", id, r.body)
	}
	if r := e.send(t.Context(), "GET", "/api/v1/search?q=Globex", ""); r.status != 200 {
		t.Errorf("search after the aborted lookups: %d %s", r.status, r.body)
	}
}
