package peppolnet

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// netsimResolver resolves host names through n's DNS server, which answers the names
// added with SetHost.
func netsimResolver(n *netsim.Network) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, n.DNSAddr())
	}}
}

// withPolicy returns a config edit that fetches SMPs through a netguard client with p.
func withPolicy(p netguard.Policy) func(*Config) {
	return func(c *Config) {
		p.Timeout = 5 * time.Second
		c.SMP = &smp.Client{HTTP: netguard.NewHTTPClient(p)}
	}
}

// canary listens on [::1] and counts the connections it accepts (and closes); it is
// nil when the host has no IPv6 loopback.
func canary(t *testing.T) (port string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		return "", nil
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, conns
}

// smpTotal sums every SMP request netsim received.
func smpTotal(h netsim.HitCounts) int64 {
	var total int64
	for _, s := range h.SMP {
		total += s.ServiceGroup + s.ServiceMetadata + s.Other
	}
	return total
}

// TestLookupSSRF points a participant's SML record at addresses the guard must refuse,
// directly and through host names netsim's DNS resolves there. With the guard on, the
// lookup fails with lookup_failed and a message naming no address, and no request
// arrives; with it off (the control), the same record does reach the address, so the
// test would see a request the guard let through.
func TestLookupSSRF(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownBelgian)
	base := n.SMPBaseURL(p.SMPHost) // http://127.0.0.1:PORT/smp, which serves p
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	port, path := u.Port(), u.Path
	n.SetHost("smp.rebind.example", netip.MustParseAddr("127.0.0.1"))
	n.SetHost("metadata.rebind.example", netip.MustParseAddr("169.254.169.254"))
	n.SetHost("private.rebind.example", netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fd00::1"))
	v6port, v6conns := canary(t)

	tests := []struct {
		name    string
		smpURL  string
		control bool // also run unguarded: the record reaches a server of this test
	}{
		{"127.0.0.1", base, true},
		{"127.0.0.1 over https", "https://127.0.0.1:" + port + path, false},
		{"IPv4-mapped 127.0.0.1", "http://[::ffff:127.0.0.1]:" + port + path, true},
		{"10.0.0.1", "http://10.0.0.1" + path, false},
		{"169.254.169.254", "http://169.254.169.254/", false},
		{"[::1]", "http://[::1]:" + v6port + "/", v6conns != nil},
		{"name resolving to 127.0.0.1", "http://smp.rebind.example:" + port + path, true},
		{"name resolving to 169.254.169.254", "http://metadata.rebind.example/", false},
		{"name resolving to private IPv4 and IPv6", "https://private.rebind.example/smp", false},
		{"localhost", "http://localhost:" + port + path, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.SetNAPTR(p.ID, tt.smpURL)
			defer n.SetNAPTR(p.ID, "")
			n.ResetHits()
			if v6conns != nil {
				v6conns.Store(0)
			}
			obs := &recordingObserver{}
			l, _ := newLive(t, n, func(c *Config) {
				withPolicy(netguard.Policy{Resolver: netsimResolver(n)})(c)
				c.Observer = obs
			})
			_, _, err := l.Lookup(context.Background(), p.ID)
			var e *registry.Error
			if !errors.As(err, &e) || e.Code != registry.CodeLookupFailed || !errors.Is(err, netguard.ErrForbiddenAddress) {
				t.Fatalf("err = %v, want lookup_failed refused by the guard", err)
			}
			const want = "the participant's SMP address is not allowed (private or loopback network)"
			if !strings.Contains(e.Message, want) {
				t.Errorf("message %q does not say %q", e.Message, want)
			}
			for _, leak := range []string{"127.0.0.1", "10.0.0.1", "::1", "169.254", "fd00", "rebind", "localhost", port} {
				if strings.Contains(e.Message, leak) {
					t.Errorf("message %q names %q", e.Message, leak)
				}
			}
			if got := smpTotal(n.Hits()); got != 0 {
				t.Errorf("netsim's SMPs received %d requests, want none", got)
			}
			if v6conns != nil && v6conns.Load() != 0 {
				t.Errorf("the [::1] listener accepted %d connections, want none", v6conns.Load())
			}
			if got := obs.upstream(registry.UpstreamSMP); len(got) != 1 || got[0] != registry.OutcomeRejected {
				t.Errorf("observed SMP calls %v, want [rejected]", got)
			}
			if !tt.control {
				return
			}
			l, _ = newLive(t, n, withPolicy(netguard.Policy{AllowPrivate: true, Resolver: netsimResolver(n)}))
			_, _, _ = l.Lookup(context.Background(), p.ID)
			reached := smpTotal(n.Hits())
			if v6conns != nil {
				reached += v6conns.Load()
			}
			if reached == 0 {
				t.Error("control: unguarded, the record reached nothing, so the guarded run proves nothing")
			}
		})
	}
}

// TestLookupPlainHTTP checks the production rule: an http SMP URL is refused before
// anything is sent, even to an address the guard would let through.
func TestLookupPlainHTTP(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownBelgian)
	exempt := []netip.AddrPort{smpAddr(t, n, p.SMPHost)}

	l, _ := newLive(t, n, withPolicy(netguard.Policy{HTTPSOnly: true, Exempt: exempt}))
	n.ResetHits()
	_, _, err := l.Lookup(context.Background(), p.ID)
	var e *registry.Error
	if !errors.As(err, &e) || e.Code != registry.CodeLookupFailed || !errors.Is(err, netguard.ErrPlainHTTP) {
		t.Fatalf("err = %v, want lookup_failed for plain http", err)
	}
	const want = "the participant's SMP URL is plain http, which the production Peppol network no longer allows (SMPs are https-only since 2026-02-01)"
	if !strings.Contains(e.Message, want) || strings.Contains(e.Message, "127.0.0.1") {
		t.Errorf("message %q, want it to say %q and name no address", e.Message, want)
	}
	if got := smpTotal(n.Hits()); got != 0 {
		t.Errorf("netsim's SMPs received %d requests, want none", got)
	}

	// Control: the same SMP, exempt and without the https rule, answers.
	l, _ = newLive(t, n, withPolicy(netguard.Policy{Exempt: exempt}))
	if got, _, err := l.Lookup(context.Background(), p.ID); err != nil || got.SMP == nil || got.SMP.Endpoint == nil {
		t.Fatalf("control lookup: %+v, %v", got, err)
	}
}

// TestLookupRedirectTarget checks that an SMP Redirect to a refused address leaves the
// endpoint out with a warning saying why, and that the target receives nothing.
func TestLookupRedirectTarget(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownRedirect)
	origin, target := smpAddr(t, n, p.SMPHost), smpAddr(t, n, p.RedirectHost)
	tests := []struct {
		name     string
		exempt   []netip.AddrPort
		wantEP   bool
		wantWarn string
	}{
		{"target refused", []netip.AddrPort{origin}, false, "the SMP's service metadata is at an address that is not allowed (private or loopback network), so no endpoint is shown"},
		{"target exempt (control)", []netip.AddrPort{origin, target}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newLive(t, n, withPolicy(netguard.Policy{Exempt: tt.exempt}))
			n.ResetHits()
			got, _, err := l.Lookup(context.Background(), p.ID)
			if err != nil || got.SMP == nil {
				t.Fatalf("lookup: %+v, %v", got, err)
			}
			if (got.SMP.Endpoint != nil) != tt.wantEP {
				t.Errorf("endpoint %+v, want present %v", got.SMP.Endpoint, tt.wantEP)
			}
			hits := n.Hits().SMP[p.RedirectHost].ServiceMetadata
			if tt.wantWarn == "" {
				if hits == 0 || len(withoutInsight(got.Warnings)) != 0 {
					t.Errorf("control: target hits %d, warnings %+v", hits, got.Warnings)
				}
				return
			}
			if hits != 0 {
				t.Errorf("the redirect target received %d requests, want none", hits)
			}
			if len(got.Warnings) != 1 || got.Warnings[0] != (registry.Warning{Code: registry.WarnEndpointUnavailable, Message: tt.wantWarn}) {
				t.Errorf("warnings %+v, want %s: %q", got.Warnings, registry.WarnEndpointUnavailable, tt.wantWarn)
			}
		})
	}
}

// TestLookupRedirectLoop checks that an SMP redirecting to itself is asked twice, not
// more, and the endpoint is reported unavailable.
func TestLookupRedirectLoop(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownBelgian)
	n.SetRedirect(p.ID, n.SMPBaseURL(p.SMPHost))
	l, _ := newLive(t, n, nil)
	n.ResetHits()
	got, _, err := l.Lookup(context.Background(), p.ID)
	if err != nil || got.SMP == nil || got.SMP.Endpoint != nil || !hasWarning(got, registry.WarnEndpointUnavailable) {
		t.Fatalf("lookup: %+v, %v", got, err)
	}
	if h := n.Hits().SMP[p.SMPHost]; h.ServiceMetadata != 2 {
		t.Errorf("%d ServiceMetadata requests, want 2 (the redirect is followed once)", h.ServiceMetadata)
	}
}

// smpAddr is the address:port netsim's SMP host i listens on.
func smpAddr(t *testing.T, n *netsim.Network, i int) netip.AddrPort {
	t.Helper()
	u, err := url.Parse(n.SMPBaseURL(i))
	if err != nil {
		t.Fatal(err)
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}
