package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// readyBody is /readyz's answer as a client reads it.
type readyBody struct {
	Status  string               `json:"status"`
	Message string               `json:"message"`
	SML     []registry.SMLStatus `json:"sml"`
}

func smlOf(b readyBody, network string) (registry.SMLStatus, bool) {
	for _, s := range b.SML {
		if s.Network == network {
			return s, true
		}
	}
	return registry.SMLStatus{}, false
}

// TestE2ENXDOMAINNotFromZone: a DNS server that answers NXDOMAIN for every name (a
// captive portal, a broken or typo'd -dns-server), without the SML zone's SOA or with
// the SOA of a zone of its own, never makes a participant "not registered": the REST
// lookups answer 502 lookup_failed, the bulk check's rows are failed and retryable,
// /ask says it could not check, the MCP tool answers an error result, and /readyz is
// 503, naming the network whose SML zone does not resolve (docs/INTERFACE.md §4.6). The
// real NXDOMAIN, with the zone's SOA, stays 404 not_found.
func TestE2ENXDOMAINNotFromZone(t *testing.T) {
	t.Parallel()
	unregistered := []string{"0208:0000000097", "0088:0000000000017"}
	for _, fault := range []netsim.DNSFault{netsim.DNSNXDomain, netsim.DNSNXDomainForeignSOA} {
		t.Run(map[netsim.DNSFault]string{netsim.DNSNXDomain: "no SOA", netsim.DNSNXDomainForeignSOA: "foreign SOA"}[fault], func(t *testing.T) {
			t.Parallel()
			e := startE2E(t)
			// The zone's own NXDOMAIN, before the fault: not registered. (/readyz is not
			// asked before the fault: it would remember for a few seconds that the zone
			// resolves; the subtest "ready while the zones resolve" checks it.)
			if resp, body := e.get(t, "/api/v1/participant/0192:999999999"); resp.StatusCode != 404 || decodeJSON[errorBody](t, body).Error.Code != registry.CodeNotFound {
				t.Fatalf("real NXDOMAIN: %d %s", resp.StatusCode, body)
			}

			e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: fault})
			defer e.net.ClearFaults()

			for _, id := range append([]string{netsim.KnownBelgian}, unregistered...) {
				for _, path := range []string{"/api/v1/participant/" + id, "/api/v1/participant/" + id + "/services"} {
					resp, body := e.get(t, path)
					eb := decodeJSON[errorBody](t, body).Error
					if resp.StatusCode != http.StatusBadGateway || eb.Code != registry.CodeLookupFailed || resp.Header.Get("Cache-Control") != "no-store" {
						t.Errorf("GET %s: %d %s, want 502 lookup_failed", path, resp.StatusCode, body)
					}
					if !strings.Contains(eb.Message, "does not come from the SML zone") || strings.Contains(eb.Message, "127.0.0.1") {
						t.Errorf("GET %s: message %q", path, eb.Message)
					}
				}
			}

			// The bulk check: failed and retryable, never not_registered.
			resp, raw := e.postCheck(t, "", "application/json", `{"rows": ["`+unregistered[0]+`", "`+unregistered[1]+`", "`+netsim.KnownBelgian+`"]}`)
			if resp.StatusCode != 200 {
				t.Fatalf("check: %d %s", resp.StatusCode, raw)
			}
			rows, sum := readNDJSON(t, raw)
			for i := range 3 {
				r := rows[i]
				if r.Status != bulk.Failed || r.Error == nil || !r.Error.Retryable || r.Error.Code != string(registry.CodeLookupFailed) {
					t.Errorf("check row %d: %+v %+v, want failed, retryable", i, r, r.Error)
				}
			}
			if sum == nil || sum.Counts.NotRegistered != 0 || sum.Counts.Failed != 3 {
				t.Errorf("check summary %+v", sum)
			}

			// /ask: could not check, not "not on Peppol".
			ask := e.postAsk(t, t.Context(), `{"query":"Is `+unregistered[0]+` on Peppol?"}`)
			b := readAll(t, ask)
			switch ask.StatusCode {
			case 200:
				a := decodeJSON[nlq.Answer](t, b)
				if len(a.Failed) == 0 || a.Failed[0].Code != registry.CodeLookupFailed || strings.Contains(a.Answer, "not on Peppol") {
					t.Errorf("/ask: failed %+v, answer %q", a.Failed, a.Answer)
				}
			case http.StatusBadGateway:
				if code := decodeJSON[errorBody](t, b).Error.Code; code != nlq.CodeAskFailed {
					t.Errorf("/ask: %d %s", ask.StatusCode, b)
				}
			default:
				t.Errorf("/ask: %d %s, want 200 saying it could not check, or 502 ask_failed", ask.StatusCode, b)
			}

			// MCP: an error result, not a "not registered" answer.
			c, _ := connectMCP(t, t.Context(), e.url, mcpClientVariants()[0])
			text := checkToolError(t, callTool(t, t.Context(), c, "lookup_participant", map[string]any{"participantId": unregistered[1]}), registry.CodeLookupFailed)
			if !strings.Contains(text, "does not come from the SML zone") {
				t.Errorf("MCP text %q", text)
			}

			// /readyz: the default network's SML zone does not resolve, so not ready; the
			// test network's does.
			resp, body := e.get(t, "/readyz")
			ready := decodeJSON[readyBody](t, body)
			prod, okProd := smlOf(ready, registry.NetworkProduction)
			test, okTest := smlOf(ready, registry.NetworkTest)
			if resp.StatusCode != http.StatusServiceUnavailable || ready.Status != "unavailable" || !okProd || prod.OK || !okTest || !test.OK {
				t.Fatalf("readyz: %d %s, want 503 with production's SML zone not OK and test's OK", resp.StatusCode, body)
			}
			if !strings.Contains(prod.Message, "NXDOMAIN") || !strings.Contains(prod.Message, e.net.Zone()) || strings.Contains(string(body), "127.0.0.1") {
				t.Errorf("readyz message %q", prod.Message)
			}
			if !strings.Contains(ready.Message, registry.NetworkProduction) || !strings.Contains(ready.Message, "SML") {
				t.Errorf("readyz message %q does not say why", ready.Message)
			}

			// The test network still answers its own NXDOMAIN as not registered.
			if resp, body := e.get(t, "/api/v1/participant/0192:999999999?network=test"); resp.StatusCode != 404 {
				t.Errorf("test network: %d %s", resp.StatusCode, body)
			}
		})
	}

	t.Run("ready while the zones resolve", func(t *testing.T) {
		t.Parallel()
		e := startE2E(t)
		resp, body := e.get(t, "/readyz")
		ready := decodeJSON[readyBody](t, body)
		prod, okProd := smlOf(ready, registry.NetworkProduction)
		test, okTest := smlOf(ready, registry.NetworkTest)
		if resp.StatusCode != 200 || ready.Status != "ok" || !okProd || !prod.OK || prod.Zone != e.net.Zone() || !okTest || !test.OK || test.Zone != e.testNet.Zone() {
			t.Fatalf("readyz: %d %s", resp.StatusCode, body)
		}
	})

	// A DNS server that gives no answer for a while (a timeout) proves nothing about the
	// zone: /readyz stays 200 and shows the default network's SML not OK, with the cause.
	t.Run("the default network's DNS server silent", func(t *testing.T) {
		t.Parallel()
		e := startE2E(t)
		e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTimeout})
		defer e.net.ClearFaults()
		resp, body := e.get(t, "/readyz")
		ready := decodeJSON[readyBody](t, body)
		prod, ok := smlOf(ready, registry.NetworkProduction)
		if resp.StatusCode != 200 || ready.Status != "ok" || !ok || prod.OK || prod.NoSuchZone || prod.Message == "" {
			t.Fatalf("readyz: %d %s, want 200 with production's SML zone not OK, saying why", resp.StatusCode, body)
		}
	})

	t.Run("another network's zone", func(t *testing.T) {
		t.Parallel()
		e := startE2E(t)
		e.testNet.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSNXDomain})
		defer e.testNet.ClearFaults()
		resp, body := e.get(t, "/readyz")
		var ready readyBody
		if err := json.Unmarshal(body, &ready); err != nil {
			t.Fatal(err)
		}
		test, ok := smlOf(ready, registry.NetworkTest)
		if resp.StatusCode != 200 || ready.Status != "ok" || !ok || test.OK || test.Zone != e.testNet.Zone() {
			t.Fatalf("readyz: %d %s, want 200 with the test network's SML zone not OK", resp.StatusCode, body)
		}
		if resp, body := e.get(t, "/api/v1/participant/0192:999999999?network=test"); resp.StatusCode != http.StatusBadGateway {
			t.Errorf("test network lookup: %d %s, want 502", resp.StatusCode, body)
		}
	})
}

// TestReadyzSML: /readyz over a server of one unnamed network is 503 while a DNS server
// answers that its SML zone does not exist, 200 while the zone's check fails in a way
// that may pass (a timeout, a check that did not finish), and shows the status always.
func TestReadyzSML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		st         registry.SMLStatus
		want       int
		wantStatus string
	}{
		{"resolves", registry.SMLStatus{Zone: "sml.example", OK: true}, 200, "ok"},
		{"no such zone", registry.SMLStatus{Zone: "sml.example", NoSuchZone: true,
			Message: "the SML zone sml.example does not resolve through the configured DNS servers (NXDOMAIN)"}, 503, "unavailable"},
		{"timeout", registry.SMLStatus{Zone: "sml.example",
			Message: "the SML zone sml.example does not resolve through the configured DNS servers (udp: no reply within 2s)"}, 200, "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) {
				c.SML = func(context.Context) []registry.SMLStatus { return []registry.SMLStatus{tt.st} }
			})
			w := do(t, s, "GET", "/readyz")
			ready := decodeJSON[readyBody](t, w.Body.Bytes())
			if w.Code != tt.want || ready.Status != tt.wantStatus || len(ready.SML) != 1 || ready.SML[0] != tt.st || w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("%d %s, want %d", w.Code, w.Body, tt.want)
			}
			if tt.want == 503 && !strings.Contains(ready.Message, "SML zone does not exist") {
				t.Errorf("message %q", ready.Message)
			}
		})
	}
}

// TestE2EZoneInParentZone: an SML zone that is a name inside its parent zone, without
// an SOA of its own (the production zone until August 2026), answers an unregistered
// participant's NXDOMAIN with the parent's SOA and its own SOA question with NOERROR and
// no records: the participant is not registered (404), a registered one is found, and
// /readyz is 200 with the zone OK.
func TestE2EZoneInParentZone(t *testing.T) {
	t.Parallel()
	n, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow}),
		netsim.Config{ParentZone: "tech.peppol.org"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	st, err := stack.Build(stack.Config{Networks: []stack.Network{{Sim: n}}, SMLTimeout: time.Second, SMLAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	s, err := New(Config{Networks: st.Networks, SML: st.SMLStatus(), BaseURL: "http://peppolgate.test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(validating(t, s))
	t.Cleanup(hs.Close)
	e := &e2e{net: n, url: hs.URL}
	if resp, body := e.get(t, "/api/v1/participant/0192:999999999"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unregistered participant: %d %s, want 404", resp.StatusCode, body)
	}
	if resp, body := e.get(t, "/api/v1/participant/"+netsim.KnownBelgian); resp.StatusCode != http.StatusOK {
		t.Errorf("registered participant: %d %s, want 200", resp.StatusCode, body)
	}
	resp, body := e.get(t, "/readyz")
	ready := decodeJSON[readyBody](t, body)
	if resp.StatusCode != http.StatusOK || len(ready.SML) != 1 || !ready.SML[0].OK {
		t.Errorf("readyz: %d %s, want 200 with the zone OK", resp.StatusCode, body)
	}
}
