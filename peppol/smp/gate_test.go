package smp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/netguard"
)

// recordingGate lets requests through (or refuses them with refuse) and records the
// hosts asked for and the outcomes reported.
type recordingGate struct {
	refuse error

	mu       sync.Mutex
	hosts    []string
	outcomes []HostOutcome
}

func (g *recordingGate) Enter(ctx context.Context, host string) (func(HostOutcome), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hosts = append(g.hosts, host)
	if g.refuse != nil {
		return nil, g.refuse
	}
	return func(o HostOutcome) {
		g.mu.Lock()
		g.outcomes = append(g.outcomes, o)
		g.mu.Unlock()
	}, nil
}

func hostOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func TestClientGateOutcomes(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	srv := newSMP(t, map[string]http.HandlerFunc{
		"/ok" + groupPath:        xmlBody(readTestdata(t, "servicegroup-ns2-prefixed.xml")),
		"/404" + groupPath:       status(http.StatusNotFound),
		"/403" + groupPath:       status(http.StatusForbidden),
		"/302" + groupPath:       status(http.StatusFound),
		"/429" + groupPath:       status(http.StatusTooManyRequests),
		"/500" + groupPath:       status(http.StatusInternalServerError),
		"/503" + groupPath:       status(http.StatusServiceUnavailable),
		"/malformed" + groupPath: xmlBody([]byte("<ServiceGroup")),
		"/hang" + groupPath:      hang,
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name string
		ctx  context.Context
		http *http.Client
		base string
		want HostOutcome
	}{
		{"200", nil, nil, srv.URL + "/ok", HostUp},
		{"404", nil, nil, srv.URL + "/404", HostUp},
		{"403", nil, nil, srv.URL + "/403", HostUp},
		{"3xx", nil, nil, srv.URL + "/302", HostUp},
		{"malformed body", nil, nil, srv.URL + "/malformed", HostUp},
		{"429", nil, nil, srv.URL + "/429", HostUnknown},
		{"500", nil, nil, srv.URL + "/500", HostDown},
		{"503", nil, nil, srv.URL + "/503", HostDown},
		{"timeout", nil, nil, srv.URL + "/hang", HostDown},
		{"connection refused", nil, nil, closedURL, HostDown},
		{"cancelled by the caller", cancelled, nil, srv.URL + "/hang", HostUnknown},
		{"refused by the SSRF guard", nil, netguard.NewHTTPClient(netguard.Policy{}), srv.URL + "/ok", HostUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &recordingGate{}
			// Only a hanging host needs a short deadline; every other answer
			// must not race it on a busy machine.
			timeout := 10 * time.Second
			if strings.HasSuffix(tt.base, "/hang") {
				timeout = 100 * time.Millisecond
			}
			c := Client{HTTP: tt.http, Timeout: timeout, Gate: g}
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			_, err := c.ServiceGroup(ctx, tt.base, testPID)
			if got := hostOutcome(err); got != tt.want {
				t.Errorf("hostOutcome(%v) = %v, want %v", err, got, tt.want)
			}
			if len(g.hosts) != 1 || g.hosts[0] != hostOf(t, tt.base) || len(g.outcomes) != 1 || g.outcomes[0] != tt.want {
				t.Errorf("gate saw hosts %v, outcomes %v; want [%s] and [%v]", g.hosts, g.outcomes, hostOf(t, tt.base), tt.want)
			}
		})
	}
}

// TestClientGateCancelledWithCause: a request its caller cancels with a cause (as the
// registry does when every caller of a coalesced fetch has left) is HostUnknown, before
// it is sent and while it waits for the answer: net/http returns the cause, not
// context.Canceled, and a caller leaving must never count as the host failing.
func TestClientGateCancelledWithCause(t *testing.T) {
	reached := make(chan struct{}, 1)
	srv := newSMP(t, map[string]http.HandlerFunc{
		"/hang" + groupPath: func(w http.ResponseWriter, r *http.Request) {
			reached <- struct{}{}
			<-r.Context().Done()
		},
	})
	cause := errors.New("every caller waiting for this fetch has gone")
	for _, mid := range []bool{false, true} {
		t.Run(map[bool]string{false: "before sending", true: "while waiting"}[mid], func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			if mid {
				go func() { <-reached; cancel(cause) }()
			} else {
				cancel(cause)
			}
			defer cancel(nil)
			g := &recordingGate{}
			c := Client{Timeout: time.Minute, Gate: g}
			_, err := c.ServiceGroup(ctx, srv.URL+"/hang", testPID)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v does not say it was cancelled", err)
			}
			if len(g.outcomes) != 1 || g.outcomes[0] != HostUnknown {
				t.Errorf("gate saw outcomes %v, want [%v]", g.outcomes, HostUnknown)
			}
		})
	}
}

func TestClientGateRefuses(t *testing.T) {
	srv := newSMP(t, map[string]http.HandlerFunc{})
	busy := errors.New("too many requests to this host")
	g := &recordingGate{refuse: busy}
	c := Client{Gate: g}
	_, err := c.ServiceGroup(context.Background(), srv.URL, testPID)
	wantErr(t, err, KindRefused, 0)
	if !errors.Is(err, busy) {
		t.Errorf("%v does not wrap the gate's error", err)
	}
	if srv.hits.Load() != 0 || len(g.outcomes) != 0 {
		t.Errorf("%d requests sent, outcomes %v; want none", srv.hits.Load(), g.outcomes)
	}
}

// TestClientGateRedirect checks that the redirect target passes the gate under its own
// host.
func TestClientGateRedirect(t *testing.T) {
	target := newSMP(t, map[string]http.HandlerFunc{metadataPath: status(http.StatusServiceUnavailable)})
	origin := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(redirectDoc(target.URL + metadataPath))})
	g := &recordingGate{}
	c := Client{Gate: g}
	_, err := c.ServiceMetadata(context.Background(), origin.URL, testPID, testDocType)
	wantErr(t, err, KindStatus, http.StatusServiceUnavailable)
	want := []string{hostOf(t, origin.URL), hostOf(t, target.URL)}
	if strings.Join(g.hosts, " ") != strings.Join(want, " ") || len(g.outcomes) != 2 || g.outcomes[0] != HostUp || g.outcomes[1] != HostDown {
		t.Errorf("hosts %v outcomes %v; want %v and [up down]", g.hosts, g.outcomes, want)
	}
}

// TestClientRefusedByPolicy runs the client over netguard's client: what the policy
// refuses is KindRefused, and the refused server sees no request.
func TestClientRefusedByPolicy(t *testing.T) {
	target := newSMP(t, map[string]http.HandlerFunc{metadataPath: xmlBody(readTestdata(t, "signedservicemetadata-as4.xml"))})
	origin := newSMP(t, map[string]http.HandlerFunc{
		groupPath:    xmlBody(readTestdata(t, "servicegroup-ns2-prefixed.xml")),
		metadataPath: xmlBody(redirectDoc(target.URL + metadataPath)),
	})
	tlsOrigin := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		xmlBody(redirectDoc(target.URL+metadataPath))(w, r)
	}))
	t.Cleanup(tlsOrigin.Close)
	exempt := func(urls ...string) []netip.AddrPort {
		var out []netip.AddrPort
		for _, u := range urls {
			out = append(out, netip.MustParseAddrPort(hostOf(t, u)))
		}
		return out
	}
	tlsConfig := tlsOrigin.Client().Transport.(*http.Transport).TLSClientConfig

	tests := []struct {
		name     string
		policy   netguard.Policy
		base     string
		metadata bool
		wantErr  error // nil: the request succeeds
	}{
		{"loopback SMP", netguard.Policy{}, origin.URL, false, netguard.ErrForbiddenAddress},
		{"plain http", netguard.Policy{HTTPSOnly: true, Exempt: exempt(origin.URL)}, origin.URL, false, netguard.ErrPlainHTTP},
		{"exempt SMP", netguard.Policy{Exempt: exempt(origin.URL)}, origin.URL, false, nil},
		{"redirect to a refused address", netguard.Policy{Exempt: exempt(origin.URL)}, origin.URL, true, netguard.ErrForbiddenAddress},
		{"redirect to plain http", netguard.Policy{HTTPSOnly: true, TLS: tlsConfig, Exempt: exempt(tlsOrigin.URL, target.URL)}, tlsOrigin.URL, true, netguard.ErrPlainHTTP},
		{"redirect to an exempt address", netguard.Policy{Exempt: exempt(origin.URL, target.URL)}, origin.URL, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target.hits.Store(0)
			origin.hits.Store(0)
			tt.policy.Timeout = 5 * time.Second
			c := Client{HTTP: netguard.NewHTTPClient(tt.policy)}
			var err error
			if tt.metadata {
				_, err = c.ServiceMetadata(context.Background(), tt.base, testPID, testDocType)
			} else {
				_, err = c.ServiceGroup(context.Background(), tt.base, testPID)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantErr(t, err, KindRefused, 0)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%v does not wrap %v", err, tt.wantErr)
			}
			if tt.metadata && target.hits.Load() != 0 {
				t.Errorf("the redirect target saw %d requests, want none", target.hits.Load())
			}
			if !tt.metadata && origin.hits.Load() != 0 {
				t.Errorf("the SMP saw %d requests, want none", origin.hits.Load())
			}
		})
	}
}
