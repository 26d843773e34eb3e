package server

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// startMirrored is startE2E with the production network's Directory mirror built from
// its export (-mirror), answers checked against the OpenAPI document.
func startMirrored(t *testing.T) *e2e {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	n := startSim(t, ds)
	testNet := startSim(t, netsim.Generate(netsim.DatasetConfig{Seed: 1, Network: netsim.NetworkTest, Now: datasetNow}))
	st, err := stack.Build(stack.Config{
		Networks: []stack.Network{
			{Name: registry.NetworkProduction, Sim: n, DirectoryRate: 1000, DirectoryBurst: 1000},
			{Name: registry.NetworkTest, Sim: testNet, DirectoryRate: 1000, DirectoryBurst: 1000},
		},
		MirrorPath:  livenet.BuildMirror(t, n),
		SMLTimeout:  time.Second,
		SMLAttempts: 1,
		Now:         func() time.Time { return datasetNow },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	s, err := New(Config{Networks: st.Networks, Cache: st.CachePolicy(), BaseURL: "http://peppolgate.test", Mirror: st.MirrorStatus(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	hs := httptest.NewServer(validating(t, s))
	t.Cleanup(hs.Close)
	return &e2e{net: n, ds: ds, testNet: testNet, url: hs.URL}
}

// TestStatsEndpoint: GET /api/v1/stats answers the mirror's counts (checked against the
// document by the validating server); a network without a mirror, or a server without
// one, answers 503 statistics_unavailable naming -mirror, never cached.
func TestStatsEndpoint(t *testing.T) {
	t.Parallel()
	m := startMirrored(t)
	plain := startE2E(t)
	cards := 0
	for _, p := range m.ds.Participants {
		if p.Card != nil {
			cards++
		}
	}
	resp, body := m.get(t, "/api/v1/stats")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != statsMaxAge {
		t.Fatalf("status %d, Cache-Control %q: %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	st := decodeJSON[registry.Stats](t, body)
	if st.Participants != cards || st.Network != registry.NetworkProduction || len(st.Countries) == 0 || len(st.DocumentKinds) == 0 || len(st.Registrations) != registry.StatsMonths {
		t.Errorf("participants %d (want %d), network %q, %d countries, %d kinds, %d months", st.Participants, cards, st.Network, len(st.Countries), len(st.DocumentKinds), len(st.Registrations))
	}
	for _, tt := range []struct {
		name string
		e    *e2e
		path string
	}{
		{"the test network has no mirror", m, "/api/v1/stats?network=test"},
		{"a server without a mirror", plain, "/api/v1/stats"},
	} {
		resp, body := tt.e.get(t, tt.path)
		if resp.StatusCode != 503 || resp.Header.Get("Cache-Control") != "no-store" ||
			!bytes.Contains(body, []byte(`"code":"statistics_unavailable"`)) || !bytes.Contains(body, []byte("-mirror")) {
			t.Errorf("%s: status %d, Cache-Control %q: %s", tt.name, resp.StatusCode, resp.Header.Get("Cache-Control"), body)
		}
	}
	if resp, body := m.get(t, "/api/v1/stats?network=moon"); resp.StatusCode != 400 {
		t.Errorf("unknown network: status %d: %s", resp.StatusCode, body)
	}
}

// svgChart is an inline SVG chart with its accessible name.
var svgChart = regexp.MustCompile(`<svg class="chart" role="img" aria-labelledby="([a-z-]+)"[^>]*><title id="([a-z-]+)">[^<]+</title>`)

// TestStatsPage: /stats draws three SVG charts, each role="img" with a title, the
// numbers in tables, no inline style or script, under the size limit; linked from the
// start page when there is a mirror; without one a 503 page saying why.
func TestStatsPage(t *testing.T) {
	t.Parallel()
	m := startMirrored(t)
	plain := startE2E(t)
	resp, body := m.getPage(t, "/stats")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	checkPage(t, resp, body)
	charts := svgChart.FindAllSubmatch(body, -1)
	if len(charts) != 3 {
		t.Fatalf("%d accessible charts, want 3:\n%s", len(charts), body)
	}
	for _, c := range charts {
		if !bytes.Equal(c[1], c[2]) {
			t.Errorf("chart labelled by %s, titled %s", c[1], c[2])
		}
	}
	if got := bytes.Count(body, []byte("<table>")); got != 3 {
		t.Errorf("%d tables, want 3", got)
	}
	for _, w := range []string{"<h1>Network statistics</h1>", "/api/v1/stats", "network_statistics", `<th scope="row">Invoice</th>`, `<th scope="row">Belgium (BE)</th>`} {
		if !bytes.Contains(body, []byte(w)) {
			t.Errorf("no %q in the page", w)
		}
	}
	t.Logf("/stats weighs %d bytes", len(body))

	_, home := m.getPage(t, "/")
	if !bytes.Contains(home, []byte(`href="/stats"`)) {
		t.Error("the start page does not link to /stats")
	}
	if _, home := plain.getPage(t, "/"); bytes.Contains(home, []byte(`href="/stats"`)) {
		t.Error("the start page of a server without a mirror links to /stats")
	}
	// A search the mirror answers says so and as of when; the live Directory's does not.
	if _, page := m.getPage(t, "/search?country=BE"); !bytes.Contains(page, []byte("From peppolgate's copy of the Peppol Directory, as the Directory exported it on ")) {
		t.Errorf("a search from the mirror does not say so: %s", page)
	}
	if _, page := plain.getPage(t, "/search?country=BE"); bytes.Contains(page, []byte("copy of the Peppol Directory")) {
		t.Errorf("a live search says it comes from the mirror: %s", page)
	}
	// The mirror is the default network's: the test network's pages do not link to
	// statistics it has not.
	if _, page := m.getPage(t, "/search?q=acme&network=test"); bytes.Contains(page, []byte(`/stats`)) {
		t.Error("a page of the test network links to statistics")
	}
	for _, tt := range []struct {
		name string
		e    *e2e
		path string
	}{
		{"the test network has no mirror", m, "/stats?network=test"},
		{"a server without a mirror", plain, "/stats"},
	} {
		resp, body := tt.e.getPage(t, tt.path)
		checkPage(t, resp, body)
		// The page's advice is for people; the API's message for the operator is not shown.
		if resp.StatusCode != 503 || !strings.Contains(string(body), "Network statistics are not available here") ||
			!strings.Contains(string(body), "counted from peppolgate&#39;s copy of the Peppol Directory") || strings.Contains(string(body), "-mirror") {
			t.Errorf("%s: status %d:\n%s", tt.name, resp.StatusCode, body)
		}
	}
}
