package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
)

// The attack of issue 26 (point 3), scaled down in time so that the test takes tens of
// seconds: the SMP answers in 2 s against a 10 s lookup deadline; here it
// answers in 500 ms against 2.5 s (the same proportion, with room for a busy machine
// and -race). The proportions are what tripped the breaker: three checks keep 3 × 8
// lookups of one SMP host in flight (8 per check and host, bulk's lanes), each needs
// two SMP requests, and the host gate lets 8 requests out at once, so a lookup took
// about 3 × 8 × 2 × 500 ms / 8 = 3 s, more than its deadline, most of it waiting for a
// slot. 300 rows of two 500 ms requests over the bulk share of 6 slots take at least
// 50 s; every wait of the test is bounded by fairnessBound.
const (
	fairnessSMPDelay      = 500 * time.Millisecond
	fairnessLookupTimeout = 2500 * time.Millisecond
	fairnessChecks        = 3
	fairnessRows          = 100 // per check
	fairnessLookups       = 4   // the other client's, spread over the checks' run
	// fairnessBound bounds every wait of the test, far past the checks' expected run.
	fairnessBound = 3 * time.Minute
)

// startFairnessE2E is the stack of startFaultE2E with fairnessLookupTimeout, the
// production defaults of the SMP host gate (8 requests per host, breaker after 5
// failures) and X-Forwarded-For from loopback trusted, so that the test can speak as
// several clients. The breakers read a fake clock that never moves: a breaker that
// opens stays open.
func startFairnessE2E(t *testing.T, ds *netsim.Dataset) *faultE2E {
	t.Helper()
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: faultDNSTimeout, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	smpHTTP := netguard.NewHTTPClient(netguard.Policy{AllowPrivate: true, Timeout: faultClientTimeout})
	dirHTTP := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	t.Cleanup(func() {
		smpHTTP.CloseIdleConnections()
		dirHTTP.CloseIdleConnections()
	})
	sink := newLogSink()
	logger := slog.New(WithRequestIDs(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelWarn})))
	clock := clock.NewFake(datasetNow)
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
		LookupTimeout:  fairnessLookupTimeout,
		SearchTimeout:  faultSearchTimeout,
		Now:            clock.Now,
		Logger:         logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Networks: registry.One(reg), BaseURL: "http://peppolgate.test", Logger: logger,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(validating(t, s))
	t.Cleanup(hs.Close)
	client := &http.Client{Timeout: fairnessBound, Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	t.Cleanup(client.CloseIdleConnections)
	return &faultE2E{e2e: &e2e{net: n, ds: ds, url: hs.URL, clock: clock}, client: client, logs: sink}
}

// sendAs is send with X-Forwarded-For naming client.
func (e *faultE2E) sendAs(ctx context.Context, client, method, path, body string) reply {
	req, err := http.NewRequestWithContext(ctx, method, e.url+path, strings.NewReader(body))
	if err != nil {
		return reply{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Forwarded-For", client)
	start := time.Now()
	resp, err := e.client.Do(req)
	if err != nil {
		return reply{err: err, elapsed: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, elapsed: time.Since(start), err: err}
}

// TestBulkChecksDoNotTripSlowSMP reproduces the attack of issue 26 (point 3) end to
// end: three clients' checks of 100 distinct participants each, all on one SMP host that
// is healthy but slow (every answer takes fairnessSMPDelay), while another client looks
// up other participants of the same host. Waiting for the host's slots is not the
// host's failure: every row is answered (none failed), the other client gets 200 with
// the SMP's endpoint each time, and the host's circuit breaker stays closed (a lookup
// after the checks still reaches the SMP; no upstream call of it failed).
func TestBulkChecksDoNotTripSlowSMP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for tens of seconds")
	}
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 900, SMPHosts: 2, Now: datasetNow})
	const host = 0
	ids := registeredOn(ds, host, true, fairnessChecks*fairnessRows+fairnessLookups+1)
	if len(ids) < fairnessChecks*fairnessRows+fairnessLookups+1 {
		t.Fatalf("only %d participants on SMP host %d", len(ids), host)
	}
	rows, others, last := ids[:fairnessChecks*fairnessRows], ids[fairnessChecks*fairnessRows:len(ids)-1], ids[len(ids)-1]
	e := startFairnessE2E(t, ds)
	e.net.SetFault(netsim.SMPHostTarget(host), netsim.Fault{Latency: fairnessSMPDelay})

	ctx, cancel := context.WithTimeout(t.Context(), fairnessBound)
	defer cancel()
	var wg sync.WaitGroup
	checks := make([]reply, fairnessChecks)
	for c := range fairnessChecks {
		body, _ := json.Marshal(map[string]any{"rows": rows[c*fairnessRows : (c+1)*fairnessRows]})
		wg.Go(func() {
			checks[c] = e.sendAs(ctx, "192.0.2."+string(rune('1'+c)), http.MethodPost, "/api/v1/check", string(body))
		})
	}
	// The other client asks while the checks run: one lookup a second from the second
	// second on, each of a participant no check names (so no answer is cached).
	lookups := make([]reply, len(others))
	wg.Go(func() {
		for i, id := range others {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			lookups[i] = e.sendAs(ctx, "198.51.100.7", http.MethodGet, "/api/v1/participant/"+id, "")
		}
	})
	wg.Wait()

	for c, r := range checks {
		if r.err != nil || r.status != http.StatusOK {
			t.Fatalf("check %d: %d %v\n%.2000s", c, r.status, r.err, r.body)
		}
		got, sum := readNDJSON(t, r.body)
		if sum == nil || len(got) != fairnessRows {
			t.Fatalf("check %d: %d rows answered, summary %+v", c, len(got), sum)
		}
		failed := 0
		for i, res := range got {
			if res.Status == bulk.Failed {
				if failed++; failed <= 3 {
					t.Errorf("check %d row %d failed: %+v", c, i, res.Error)
				}
			}
		}
		if failed > 0 {
			t.Errorf("check %d: %d of %d rows failed, want none", c, failed, fairnessRows)
		}
	}
	for i, r := range append(lookups, e.sendAs(ctx, "198.51.100.7", http.MethodGet, "/api/v1/participant/"+last, "")) {
		if r.err != nil || r.status != http.StatusOK {
			t.Errorf("the other client's lookup %d: %d %v\n%.1000s", i, r.status, r.err, r.body)
			continue
		}
		var p registry.Participant
		if err := json.Unmarshal(r.body, &p); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
			t.Errorf("the other client's lookup %d has no SMP endpoint (%v):\n%.1000s", i, err, r.body)
		}
	}
	failures := map[string]int{}
	for _, line := range e.logs.take() {
		if line["msg"] == "upstream call failed" && line["upstream"] == registry.UpstreamSMP {
			f, _ := line["failure"].(string)
			if failures[f]++; failures[f] == 1 {
				t.Errorf("an SMP call of a healthy host was logged as failed: %v", line)
			}
		}
	}
	if len(failures) > 0 {
		t.Errorf("SMP calls of a healthy host logged as failed, by kind: %v", failures)
	}
}
