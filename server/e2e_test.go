package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// datasetNow pins the netsim dataset's dates, so golden files do not change daily.
var datasetNow = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// e2e is the real stack over a simulated network: netsim, the sml/smp/directory
// clients, peppolnet.Registry and the Server, served by httptest.
type e2e struct {
	net *netsim.Network
	// testNet is the test network, offered with ?network=test.
	testNet *netsim.Network
	ds      *netsim.Dataset
	url     string
	clock   *clock.Fake
	// logs are the server's log lines, JSON.
	logs *lockedWriter
}

func startE2E(t testing.TB) *e2e {
	t.Helper()
	return startE2EWith(t, nil, nil)
}

// startE2EWith is startE2E with the server's config changed by mod and its HTTP
// server by srv before it starts (either may be nil).
func startE2EWith(t testing.TB, mod func(*Config), srv func(*http.Server)) *e2e {
	t.Helper()
	return startE2EOn(t, nil, mod, srv)
}

// startE2EOn is startE2EWith with the production dataset changed by edit (nil: as
// generated) before the network starts.
func startE2EOn(t testing.TB, edit func(*netsim.Dataset), mod func(*Config), srv func(*http.Server)) *e2e {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	if edit != nil {
		edit(ds)
	}
	n := startSim(t, ds)
	testNet := startSim(t, netsim.Generate(netsim.DatasetConfig{Seed: 1, Network: netsim.NetworkTest, Now: datasetNow}))
	// The registries read the dataset's dates (certificates, service dates) at the
	// dataset's own instant, so the warnings in the golden files do not change with time.
	clock := clock.NewFake(datasetNow)
	// As the binary builds them (stack.Build), production the default and test per
	// request, with the Directory limiter out of the way (it is the registry's
	// business).
	st, err := stack.Build(stack.Config{
		Networks: []stack.Network{
			{Name: registry.NetworkProduction, Sim: n, DirectoryRate: 1000, DirectoryBurst: 1000},
			{Name: registry.NetworkTest, Sim: testNet, DirectoryRate: 1000, DirectoryBurst: 1000},
		},
		SMLTimeout:  time.Second,
		SMLAttempts: 1,
		Now:         clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	logs := &lockedWriter{w: &bytes.Buffer{}}
	cfg := Config{Networks: st.Networks, Cache: st.CachePolicy(), SML: st.SMLStatus(), BaseURL: "http://peppolgate.test",
		Logger: slog.New(slog.NewJSONHandler(logs, nil))}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var h http.Handler = s
	if _, bench := t.(*testing.B); !bench { // benchmarks measure the server, not the check
		h = validating(t, s)
	}
	hs := httptest.NewUnstartedServer(h)
	if srv != nil {
		srv(hs.Config)
	}
	hs.Start()
	t.Cleanup(hs.Close)
	return &e2e{net: n, ds: ds, testNet: testNet, url: hs.URL, clock: clock, logs: logs}
}

// startSim starts netsim on ds until the test ends.
func startSim(t testing.TB, ds *netsim.Dataset) *netsim.Network {
	t.Helper()
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (e *e2e) get(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	return e.do(t, "GET", path)
}

func (e *e2e) do(t *testing.T, method, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

var (
	loopbackPort = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
	sha256Field  = regexp.MustCompile(`"sha256": "[0-9a-fA-F:]+"`)
)

// normalise makes a body comparable across runs: indented for readable diffs, netsim's
// random ports and per-start certificate fingerprints replaced.
func normalise(t *testing.T, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	out := loopbackPort.ReplaceAll(buf.Bytes(), []byte("127.0.0.1:PORT"))
	out = sha256Field.ReplaceAll(out, []byte(`"sha256": "SHA256"`))
	return append(out, '\n')
}

func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	got := normalise(t, body)
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./server -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (rerun with -update if intended):\n%s", name, path, got)
	}
}

func firstName(t *testing.T, ds *netsim.Dataset, id string) string {
	t.Helper()
	name := ds.CardName(id)
	if name == "" {
		t.Fatalf("%s has no business card name in the dataset", id)
	}
	return name
}

func TestE2EGolden(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	absent := "0208:0999999999"
	if _, ok := e.ds.Lookup(peppol.ParticipantID{ICD: "0208", Value: "0999999999"}); ok {
		t.Fatalf("%s is in the dataset; pick another absent id", absent)
	}
	norwegian := firstName(t, e.ds, netsim.KnownNorwegian)
	tests := []struct {
		name       string
		path       string
		wantStatus int
	}{
		{"participant_belgian", "/api/v1/participant/" + netsim.KnownBelgian, 200},
		{"participant_gln", "/api/v1/participant/" + netsim.KnownGLN, 200},
		{"participant_sml_only", "/api/v1/participant/" + netsim.KnownSMLOnly, 200},
		{"participant_directory_only", "/api/v1/participant/" + netsim.KnownDirectoryOnly, 200},
		{"participant_not_found", "/api/v1/participant/" + absent, 404},
		{"participant_removed_scheme", "/api/v1/participant/9956:0677424046", 404},
		{"participant_smp_not_found", "/api/v1/participant/" + netsim.KnownSMPNotFound, 0},
		{"participant_invalid", "/api/v1/participant/0208-0677424046", 400},
		{"search_name", "/api/v1/search?q=" + url.QueryEscape(norwegian), 200},
		{"search_vat", "/api/v1/search?q=" + url.QueryEscape("BE0677.424.046"), 200},
		{"search_id", "/api/v1/search?q=" + url.QueryEscape(netsim.KnownGLN), 200},
		{"search_country_other", "/api/v1/search?q=" + url.QueryEscape(norwegian) + "&country=se", 200},
		{"search_country_match", "/api/v1/search?q=" + url.QueryEscape(norwegian) + "&country=no", 200},
		{"search_country_alone", "/api/v1/search?country=NO", 200},
		{"search_missing_query", "/api/v1/search", 400},
		{"search_query_too_short", "/api/v1/search?q=x", 400},
		{"route_not_found", "/api/v1/participants", 404},
		{"stats_no_mirror", "/api/v1/stats", 503},
		{"services_cert_expiring", "/api/v1/participant/" + netsim.KnownCertExpiring + "/services", 200},
		{"services_as2_only", "/api/v1/participant/" + netsim.KnownAS2Only + "/services", 200},
		{"services_deprecated_doctype", "/api/v1/participant/" + netsim.KnownDeprecatedDocType + "/services", 200},
		{"services_one_doctype", "/api/v1/participant/" + netsim.KnownBelgian + "/services?docType=" + url.QueryEscape("busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"), 200},
		{"services_doctype_not_listed", "/api/v1/participant/" + netsim.KnownBelgian + "/services?docType=" + url.QueryEscape("busdox-docid-qns::urn:example:none"), 404},
		{"participant_cert_non_peppol", "/api/v1/participant/" + netsim.KnownCertNonPeppolCA, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.get(t, tt.path)
			if tt.wantStatus != 0 && resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d; body %s", resp.StatusCode, tt.wantStatus, body)
			}
			checkGolden(t, tt.name, body)
		})
	}
}

func decodeJSON[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return v
}

// TestE2ESearchCountryAlone: GET /api/v1/search with a country and no q answers 200
// with the number of the country's Directory entries as totalCount and its first page;
// without q and country it is still missing_query, and a short q with a country
// query_too_short.
func TestE2ESearchCountryAlone(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	entities := func(cc string) (n int) {
		for _, p := range e.ds.Participants {
			if p.Card == nil {
				continue
			}
			for _, en := range p.Card.Entities {
				if en.CountryCode == cc {
					n++
				}
			}
		}
		return n
	}
	tests := []struct {
		name, path  string
		wantStatus  int
		wantCode    registry.Code
		wantCountry string
	}{
		{"NO", "/api/v1/search?country=NO", 200, "", "NO"},
		{"lower case", "/api/v1/search?country=be", 200, "", "BE"},
		{"empty q", "/api/v1/search?q=&country=NO", 200, "", "NO"},
		{"white-space q", "/api/v1/search?q=++&country=SE", 200, "", "SE"},
		{"nobody there", "/api/v1/search?country=ZZ", 200, "", "ZZ"},
		{"test network", "/api/v1/search?country=NO&network=test", 200, "", "NO"},
		{"neither q nor country", "/api/v1/search", 400, registry.CodeMissingQuery, ""},
		{"empty country", "/api/v1/search?country=", 400, registry.CodeMissingQuery, ""},
		{"short q with a country", "/api/v1/search?q=x&country=NO", 400, registry.CodeQueryTooShort, ""},
		{"country not two letters", "/api/v1/search?country=NOR", 400, registry.CodeInvalidRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.get(t, tt.path)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus != 200 {
				got := decodeJSON[errorBody](t, body).Error
				if got.Code != tt.wantCode || got.Message == "" {
					t.Errorf("error %+v, want code %s", got, tt.wantCode)
				}
				if tt.wantCode == registry.CodeMissingQuery && !strings.Contains(got.Message, "country alone") {
					t.Errorf("missing_query message %q does not mention a country alone", got.Message)
				}
				return
			}
			res := decodeJSON[registry.SearchResult](t, body)
			if strings.Contains(tt.path, "network=test") {
				if res.Network != "test" || res.TotalCount < len(res.Results) {
					t.Errorf("test network: %s", body)
				}
				return
			}
			want := entities(tt.wantCountry)
			if res.TotalCount != want || res.Query != "" || res.Source != registry.SourceDirectory || (want > 0) != (len(res.Results) > 0) {
				t.Errorf("totalCount %d (want %d), query %q, source %q, %d results", res.TotalCount, want, res.Query, res.Source, len(res.Results))
			}
			if tt.wantCountry == "NO" && want <= registry.MaxSearchResults {
				t.Errorf("only %d entities in NO: the test proves little", want)
			}
			for _, h := range res.Results {
				if h.CountryCode != tt.wantCountry {
					t.Errorf("result %+v outside %s", h, tt.wantCountry)
				}
			}
		})
	}
}

func TestE2EParticipantIDForms(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	tests := []struct {
		path, wantID string
	}{
		{netsim.KnownBelgian, netsim.KnownBelgian},
		{"0208%3A0677424046", netsim.KnownBelgian},
		{"iso6523-actorid-upis::0208:0677424046", netsim.KnownBelgian},
		{"iso6523-actorid-upis%3A%3A0208%3A0677424046", netsim.KnownBelgian},
		{"9925:BE0677424046", netsim.KnownBelgianVAT},
		{"9925%3ABe0677424046", netsim.KnownBelgianVAT},
		{"9930:DE811152493", netsim.KnownGerman},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := e.get(t, "/api/v1/participant/"+tt.path)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			p := decodeJSON[registry.Participant](t, body)
			if p.ParticipantID != tt.wantID {
				t.Errorf("participantId %q, want %q", p.ParticipantID, tt.wantID)
			}
			if p.SMP == nil {
				t.Fatal("smp is null")
			}
			// The ServiceGroup URL carries the id percent-encoded the SMP way.
			wantSuffix := "/" + peppol.PathEscape("iso6523-actorid-upis::"+tt.wantID)
			if !strings.HasSuffix(p.SMP.URL, wantSuffix) || !strings.Contains(p.SMP.URL, "%3A%3A") {
				t.Errorf("smp.url %q does not end in %q", p.SMP.URL, wantSuffix)
			}
		})
	}
}

func TestE2ENullRules(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	tests := []struct {
		id               string
		wantDir, wantSMP bool
	}{
		{netsim.KnownBelgian, true, true},
		{netsim.KnownSMLOnly, false, true},
		{netsim.KnownDirectoryOnly, true, false},
	}
	for _, tt := range tests {
		_, body := e.get(t, "/api/v1/participant/"+tt.id)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatal(err)
		}
		if got := string(raw["directory"]) != "null"; got != tt.wantDir {
			t.Errorf("%s: directory present = %v, want %v", tt.id, got, tt.wantDir)
		}
		if got := string(raw["smp"]) != "null"; got != tt.wantSMP {
			t.Errorf("%s: smp present = %v, want %v", tt.id, got, tt.wantSMP)
		}
	}
}

func TestE2ECacheHeaders(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	path := "/api/v1/participant/" + netsim.KnownNorwegian
	resp, _ := e.get(t, path)
	if resp.Header.Get("X-Cache") != "miss" || resp.Header.Get("Cache-Control") != "public, max-age=900" {
		t.Errorf("cold: X-Cache %q Cache-Control %q", resp.Header.Get("X-Cache"), resp.Header.Get("Cache-Control"))
	}
	e.clock.Advance(5 * time.Minute)
	resp, _ = e.get(t, path)
	if resp.Header.Get("X-Cache") != "hit" || resp.Header.Get("Cache-Control") != "public, max-age=600" || resp.Header.Get("Age") != "" {
		t.Errorf("warm: X-Cache %q Cache-Control %q Age %q", resp.Header.Get("X-Cache"), resp.Header.Get("Cache-Control"), resp.Header.Get("Age"))
	}
	// Past the TTL with every upstream down: the old answer, marked stale, not a 502.
	e.clock.Advance(2 * time.Hour)
	e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 503})
	resp, body := e.get(t, path)
	if resp.StatusCode != 200 {
		t.Fatalf("stale: status %d %s", resp.StatusCode, body)
	}
	if resp.Header.Get("X-Cache") != "stale" || resp.Header.Get("Age") != strconv.Itoa(int((2*time.Hour+5*time.Minute)/time.Second)) ||
		resp.Header.Get("Cache-Control") != "public, max-age=0, must-revalidate" {
		t.Errorf("stale: X-Cache %q Age %q Cache-Control %q", resp.Header.Get("X-Cache"), resp.Header.Get("Age"), resp.Header.Get("Cache-Control"))
	}
	if p := decodeJSON[registry.Participant](t, body); p.ParticipantID != netsim.KnownNorwegian || p.SMP == nil {
		t.Errorf("stale answer %+v", p)
	}
}

func TestE2EUpstreamFailures(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	// SERVFAIL is "unknown", never "not registered": 502, not 404.
	e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	resp, body := e.get(t, "/api/v1/participant/"+netsim.KnownDutch)
	if resp.StatusCode != 502 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("DNS SERVFAIL: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	if e := decodeJSON[errorBody](t, body).Error; e.Code != registry.CodeLookupFailed || strings.Contains(e.Message, "127.0.0.1") {
		t.Errorf("DNS SERVFAIL: %+v", e)
	}
	e.net.ClearFaults()

	// An SMP 500 is a failure too.
	sw := e.ds.MustLookup(netsim.KnownSwedish)
	e.net.SetFault(netsim.SMPHostTarget(sw.SMPHost), netsim.Fault{HTTPStatus: 500})
	resp, body = e.get(t, "/api/v1/participant/"+netsim.KnownSwedish)
	if resp.StatusCode != 502 || decodeJSON[errorBody](t, body).Error.Code != registry.CodeLookupFailed {
		t.Errorf("SMP 500: %d %s", resp.StatusCode, body)
	}
	e.net.ClearFaults()

	// The Directory's 429 becomes search_failed with its Retry-After passed on.
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "7"})
	resp, body = e.get(t, "/api/v1/search?q=acme")
	if resp.StatusCode != 502 || resp.Header.Get("Retry-After") != "7" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Directory 429: %d Retry-After %q Cache-Control %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Cache-Control"), body)
	}
	if code := decodeJSON[errorBody](t, body).Error.Code; code != registry.CodeSearchFailed {
		t.Errorf("Directory 429: code %s", code)
	}
}

func TestE2EHTTPBehaviour(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	path := "/api/v1/participant/" + netsim.KnownBelgian
	get, getBody := e.get(t, path)
	head, headBody := e.do(t, "HEAD", path)
	if head.StatusCode != 200 || len(headBody) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
		t.Errorf("HEAD: %d, %d body bytes, Content-Length %q (GET had %d)", head.StatusCode, len(headBody), head.Header.Get("Content-Length"), len(getBody))
	}
	// Every answer is sent with a Content-Length, never chunked: short bodies get it
	// from net/http, longer ones from the server (hotPath.setLength); a short discovery
	// document and a JSON-RPC error of /mcp (GET without a session) too.
	big := "/api/v1/participant/" + netsim.KnownManyDocTypes // 48 document types: over 2 KiB
	for _, p := range []string{path, big, "/api/v1/search?q=BE0677424046", "/healthz", "/nowhere", "/.well-known/oauth-protected-resource", "/mcp"} {
		resp, body := e.get(t, p)
		if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
			t.Errorf("%s: Content-Length %d, Transfer-Encoding %v for %d bytes", p, resp.ContentLength, resp.TransferEncoding, len(body))
		}
	}
	if _, body := e.get(t, big); len(body) <= netHTTPBufferedBody {
		t.Errorf("%s answers %d bytes; the test needs one over %d", big, len(body), netHTTPBufferedBody)
	}
	if get.Header.Get("Access-Control-Allow-Origin") != "*" || len(get.Header.Get("X-Request-Id")) == 0 {
		t.Errorf("GET headers %v", get.Header)
	}
	resp, body := e.do(t, "POST", path)
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" || decodeJSON[errorBody](t, body).Error.Code != CodeMethodNotAllowed {
		t.Errorf("POST: %d Allow %q %s", resp.StatusCode, resp.Header.Get("Allow"), body)
	}
	resp, body = e.get(t, "/api/v1/nothing/here")
	if resp.StatusCode != 404 || decodeJSON[errorBody](t, body).Error.Code != CodeRouteNotFound {
		t.Errorf("unknown route: %d %s", resp.StatusCode, body)
	}
}
