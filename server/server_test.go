package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// fakeRegistry answers from fields and records what it was asked. It stands in for
// the registry where the HTTP layer itself is under test; e2e_test.go uses the real one.
type fakeRegistry struct {
	mu        sync.Mutex
	gotID     peppol.ParticipantID
	gotQuery  registry.SearchQuery
	calls     int
	part      *registry.Participant
	result    *registry.SearchResult
	services  *registry.ServicesResult
	fresh     registry.Freshness
	err       error
	panicWith any
}

func (f *fakeRegistry) Lookup(ctx context.Context, id peppol.ParticipantID) (*registry.Participant, registry.Freshness, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.gotID = id
	if f.panicWith != nil {
		panic(f.panicWith)
	}
	if f.err != nil {
		return nil, registry.Freshness{}, f.err
	}
	return f.part, f.fresh, nil
}

func (f *fakeRegistry) Services(ctx context.Context, id peppol.ParticipantID, docType string) (*registry.ServicesResult, registry.Freshness, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.gotID = id
	if f.panicWith != nil {
		panic(f.panicWith)
	}
	if f.err != nil {
		return nil, registry.Freshness{}, f.err
	}
	if f.services == nil {
		// As a real registry: an answer or an error, never neither.
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeNotFound, Message: "participant " + id.String() + " is not registered"}
	}
	return f.services, f.fresh, nil
}

func (f *fakeRegistry) Search(ctx context.Context, q registry.SearchQuery) (*registry.SearchResult, registry.Freshness, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.gotQuery = q
	if f.panicWith != nil {
		panic(f.panicWith)
	}
	if f.err != nil {
		return nil, registry.Freshness{}, f.err
	}
	return f.result, f.fresh, nil
}

func samplePart(id string) *registry.Participant {
	return &registry.Participant{ParticipantID: id, Directory: &registry.DirectoryRecord{
		ParticipantID: registry.IDParts{Scheme: "0208", Value: "0999999999"},
		Name:          "Smith & Sons <Ltd>", CountryCode: "BE",
		Entities: []registry.Entity{}, DocTypes: []registry.IDParts{},
	}}
}

// newTestServer returns a Server whose every response is checked against its
// OpenAPI document (server/openapi_test.go), and its log.
func newTestServer(t *testing.T, reg registry.Registry, mod func(*Config)) (*Server, *bytes.Buffer) {
	t.Helper()
	s, logs := newUncheckedServer(t, reg, mod)
	s.handler = newOpenAPIValidator(t, s).wrap(t, s.handler)
	return s, logs
}

// prodAndTest returns the networks of the default deployment: production (prod) the
// default, and test per request.
func prodAndTest(t testing.TB, prod, test registry.Registry) *registry.Networks {
	t.Helper()
	nets, err := registry.NewNetworks(registry.NetworkProduction, map[string]registry.Registry{registry.NetworkProduction: prod, registry.NetworkTest: test})
	if err != nil {
		t.Fatal(err)
	}
	return nets
}

// newUncheckedServer is newTestServer without the OpenAPI check, for tests that make
// a route answer what it cannot (a fake registry's arbitrary errors).
func newUncheckedServer(t *testing.T, reg registry.Registry, mod func(*Config)) (*Server, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	cfg := Config{Networks: registry.One(reg), Logger: slog.New(slog.NewJSONHandler(&lockedWriter{w: &logs}, nil)), BaseURL: "http://localhost:8080"}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &logs
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// String returns what was written, when w is a fmt.Stringer (a bytes.Buffer).
func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.w.(fmt.Stringer); ok {
		return s.String()
	}
	return ""
}

func do(t *testing.T, h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func decodeError(t *testing.T, w *httptest.ResponseRecorder) errorDetail {
	t.Helper()
	var b errorBody
	dec := json.NewDecoder(w.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	return b.Error
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no networks", Config{BaseURL: "http://localhost:8080"}},
		{"no default registry", Config{Networks: registry.One(nil), BaseURL: "http://localhost:8080"}},
		{"relative base URL", Config{Networks: registry.One(&fakeRegistry{}), BaseURL: "/api"}},
		{"ftp base URL", Config{Networks: registry.One(&fakeRegistry{}), BaseURL: "ftp://example.com"}},
		{"no base URL", Config{Networks: registry.One(&fakeRegistry{})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); err == nil {
				t.Fatal("New accepted a bad config")
			}
		})
	}
}

func TestParticipantIDFromPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path   string
		wantID string
	}{
		{"/api/v1/participant/0208:0677424046", "0208:0677424046"},
		{"/api/v1/participant/0208%3A0677424046", "0208:0677424046"},
		{"/api/v1/participant/0208%3a0677424046", "0208:0677424046"},
		{"/api/v1/participant/iso6523-actorid-upis::0208:0677424046", "0208:0677424046"},
		{"/api/v1/participant/iso6523-actorid-upis%3A%3A0208%3A0677424046", "0208:0677424046"},
		{"/api/v1/participant/ISO6523-ACTORID-UPIS::9925:BE0677424046", "9925:be0677424046"},
		{"/api/v1/participant/9930:DE811152493", "9930:de811152493"},
		{"/api/v1/participant/0088:a+b", "0088:a+b"},
		{"/api/v1/participant/0088:a%2Bb", "0088:a+b"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			reg := &fakeRegistry{part: samplePart(tt.wantID)}
			s, _ := newTestServer(t, reg, nil)
			w := do(t, s, "GET", tt.path)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, body %s", w.Code, w.Body)
			}
			if got := reg.gotID.String(); got != tt.wantID {
				t.Errorf("registry got %q, want %q", got, tt.wantID)
			}
		})
	}
}

func TestParticipantInvalidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path    string
		wantMsg string // substring
	}{
		{"/api/v1/participant/0677424046", "has no ':'"},
		{"/api/v1/participant/208:0677424046", "scheme must be 4 digits"},
		{"/api/v1/participant/0208:", "is empty"},
		{"/api/v1/participant/0208:06774%2524046", "found '%'"},
		{"/api/v1/participant/0208:a%2Fb", "found '/'"},
		{"/api/v1/participant/0208:caf%C3%A9", "found 'é'"},
		{"/api/v1/participant/0208:" + strings.Repeat("1", 140), "at most 135"},
		// What people type instead of an id: the message names the id it most likely
		// is and the search that finds it.
		{"/api/v1/participant/BE0677424046", "has no ':'; expected <scheme>:<value>, e.g. 0208:0677424046. It looks like a Belgian enterprise number or a Belgian VAT number: " +
			"it most likely means participant id 0208:0677424046 (else 9925:be0677424046); look that up (GET /api/v1/participant/0208:0677424046, or the lookup_participant tool), " +
			"or search for what you have: GET /api/v1/search?q=BE0677424046"},
		{"/api/v1/participant/0208:0677%20424%20046", "found ' ' at position 10. It looks like participant id 0208:0677424046 written with separators: it most likely means participant id 0208:0677424046"},
		{"/api/v1/participant/KvK%2054441587", "most likely means participant id 0106:54441587; look that up (GET /api/v1/participant/0106:54441587"},
		{"/api/v1/participant/BE%200677.424.046", "GET /api/v1/search?q=BE+0677.424.046"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			reg := &fakeRegistry{}
			s, _ := newTestServer(t, reg, nil)
			w := do(t, s, "GET", tt.path)
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400; body %s", w.Code, w.Body)
			}
			e := decodeError(t, w)
			if e.Code != registry.CodeInvalidParticipantID || !strings.Contains(e.Message, tt.wantMsg) {
				t.Errorf("error %+v, want invalid_participant_id containing %q", e, tt.wantMsg)
			}
			if reg.calls != 0 {
				t.Error("registry called for an invalid id")
			}
			if got := w.Header().Get("Cache-Control"); got != "public, max-age=3600" {
				t.Errorf("Cache-Control %q", got)
			}
		})
	}
}

func TestSearchParameters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query       string
		wantStatus  int
		wantCode    registry.Code
		wantQ       string
		wantCountry string
	}{
		{"", 400, registry.CodeMissingQuery, "", ""},
		{"?country=BE", 200, "", "", "BE"},
		{"?country=", 400, registry.CodeMissingQuery, "", ""},
		{"?country=+no+", 200, "", "", "NO"},
		{"?q=&country=no", 200, "", "", "NO"},
		{"?q=+&country=NO", 200, "", " ", "NO"},
		{"?q=a&country=NO", 400, registry.CodeQueryTooShort, "", ""},
		{"?country=NOR", 400, registry.CodeInvalidRequest, "", ""},
		{"?q=", 400, registry.CodeQueryTooShort, "", ""},
		{"?q=a", 400, registry.CodeQueryTooShort, "", ""},
		{"?q=+a+", 400, registry.CodeQueryTooShort, "", ""},
		{"?q=%C3%A9", 400, registry.CodeQueryTooShort, "", ""},
		{"?q=" + strings.Repeat("x", registry.MaxQueryLength+1), 400, registry.CodeInvalidRequest, "", ""},
		{"?q=%FF%FE", 400, registry.CodeInvalidRequest, "", ""},
		{"?q=acme&country=BEL", 400, registry.CodeInvalidRequest, "", ""},
		{"?q=acme&country=1e", 400, registry.CodeInvalidRequest, "", ""},
		{"?q=ab", 200, "", "ab", ""},
		{"?q=%C3%A9%C3%A9", 200, "", "éé", ""},
		{"?q=+Acme+%26+Co+&country=be", 200, "", " Acme & Co ", "BE"},
		{"?q=acme&q=other&country=", 200, "", "acme", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			reg := &fakeRegistry{result: &registry.SearchResult{Query: "x", Results: []registry.SearchHit{}}}
			s, _ := newTestServer(t, reg, nil)
			w := do(t, s, "GET", "/api/v1/search"+tt.query)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d; body %s", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantStatus != 200 {
				if e := decodeError(t, w); e.Code != tt.wantCode || e.Message == "" {
					t.Errorf("error %+v, want code %s", e, tt.wantCode)
				}
				if reg.calls != 0 {
					t.Error("registry called for a bad query")
				}
				return
			}
			if reg.gotQuery.Q != tt.wantQ || reg.gotQuery.Country != tt.wantCountry {
				t.Errorf("registry got %+v, want q=%q country=%q", reg.gotQuery, tt.wantQ, tt.wantCountry)
			}
		})
	}
}

func TestErrorTableRendering(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		wantStatus int
		wantCode   registry.Code
		wantMsg    string
		wantCache  string
		wantRetry  string
	}{
		{&registry.Error{Code: registry.CodeNotFound, Message: "not registered"}, 404, registry.CodeNotFound, "not registered", "public, max-age=60", ""},
		{&registry.Error{Code: registry.CodeLookupFailed, Message: "SML failed", Err: errors.New("dial 10.0.0.1:53")}, 502, registry.CodeLookupFailed, "SML failed", "no-store", ""},
		{&registry.Error{Code: registry.CodeSearchFailed, Message: "rate limited", RetryAfter: 1500 * time.Millisecond}, 502, registry.CodeSearchFailed, "rate limited", "no-store", "2"},
		{&registry.Error{Code: registry.CodeSearchFailed, Message: "busy", RetryAfter: 3 * time.Second}, 502, registry.CodeSearchFailed, "busy", "no-store", "3"},
		{&registry.Error{Code: registry.CodeSearchFailed, Message: "tiny", RetryAfter: time.Millisecond}, 502, registry.CodeSearchFailed, "tiny", "no-store", "1"},
		{&registry.Error{Code: CodeRateLimited, Message: "slow down", RetryAfter: time.Minute}, 429, CodeRateLimited, "slow down", "no-store", "60"},
		{&registry.Error{Code: registry.CodeInvalidRequest, Message: "bad"}, 400, registry.CodeInvalidRequest, "bad", "public, max-age=3600", ""},
		// Wrapped registry errors keep their code.
		{errors.Join(errors.New("ctx"), &registry.Error{Code: registry.CodeNotFound, Message: "nf"}), 404, registry.CodeNotFound, "nf", "public, max-age=60", ""},
		// Anything else is a 500 that says nothing about the cause.
		{errors.New("dial tcp 10.1.2.3:443: secret-host.internal refused"), 500, CodeInternal, "internal error", "no-store", ""},
		{&registry.Error{Code: "made_up", Message: "secret-host.internal"}, 500, CodeInternal, "internal error", "no-store", ""},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			// Unchecked: the fake registry makes the participant route answer codes it
			// cannot (search_failed, rate_limited), to test the renderer.
			s, logs := newUncheckedServer(t, &fakeRegistry{err: tt.err}, nil)
			w := do(t, s, "GET", "/api/v1/participant/0208:0677424046")
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d", w.Code, tt.wantStatus)
			}
			e := decodeError(t, w)
			if e.Code != tt.wantCode || !strings.Contains(e.Message, tt.wantMsg) {
				t.Errorf("error %+v, want %s containing %q", e, tt.wantCode, tt.wantMsg)
			}
			if strings.Contains(w.Body.String(), "secret-host") || strings.Contains(w.Body.String(), "10.") {
				t.Errorf("body leaks the cause: %s", w.Body)
			}
			if tt.wantStatus == 500 && !strings.Contains(e.Message, w.Header().Get("X-Request-Id")) {
				t.Errorf("500 message %q does not name the request id", e.Message)
			}
			if tt.wantStatus >= 500 && !strings.Contains(logs.String(), w.Header().Get("X-Request-Id")) {
				t.Error("failure not logged with its request id")
			}
			if got := w.Header().Get("Cache-Control"); got != tt.wantCache {
				t.Errorf("Cache-Control %q, want %q", got, tt.wantCache)
			}
			if got := w.Header().Get("Retry-After"); got != tt.wantRetry {
				t.Errorf("Retry-After %q, want %q", got, tt.wantRetry)
			}
		})
	}
}

func TestStatusTable(t *testing.T) {
	t.Parallel()
	want := map[registry.Code]int{
		"invalid_participant_id": 400, "missing_query": 400, "query_too_short": 400,
		"invalid_request": 400, "not_found": 404, "route_not_found": 404,
		"method_not_allowed": 405, "rate_limited": 429, "lookup_failed": 502,
		"search_failed": 502, "internal_error": 500, "forbidden": 403,
		"unsupported_media_type": 415, "ask_failed": 502,
		"service_unavailable": 503, "body_too_large": 413, "too_many_rows": 413,
		"too_many_bulk_requests": 429, "statistics_unavailable": 503, "too_many_streams": 429,
	}
	codes := Codes()
	if len(codes) != len(want) {
		t.Errorf("Codes() = %v, want %d codes", codes, len(want))
	}
	for _, c := range codes {
		if Status(c) != want[c] {
			t.Errorf("Status(%s) = %d, want %d", c, Status(c), want[c])
		}
	}
	if Status("nonsense") != 500 {
		t.Error("unknown code is not 500")
	}
}

func TestFreshnessHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		fresh              registry.Freshness
		cache, xcache, age string
	}{
		{"miss", registry.Freshness{TTL: 15 * time.Minute}, "public, max-age=900", "miss", ""},
		{"hit", registry.Freshness{Cached: true, TTL: 15 * time.Minute, Age: 100*time.Second + 500*time.Millisecond}, "public, max-age=799", "hit", ""},
		{"hit past TTL", registry.Freshness{Cached: true, TTL: time.Minute, Age: 2 * time.Minute}, "public, max-age=0", "hit", ""},
		{"stale", registry.Freshness{Cached: true, Stale: true, TTL: 15 * time.Minute, Age: 3 * time.Hour}, "public, max-age=0, must-revalidate", "stale", "10800"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &fakeRegistry{part: samplePart("0208:0677424046"), fresh: tt.fresh,
				result: &registry.SearchResult{Query: "ab", Results: []registry.SearchHit{}}}
			s, _ := newTestServer(t, reg, nil)
			for _, path := range []string{"/api/v1/participant/0208:0677424046", "/api/v1/search?q=ab"} {
				w := do(t, s, "GET", path)
				h := w.Header()
				if h.Get("Cache-Control") != tt.cache || h.Get("X-Cache") != tt.xcache || h.Get("Age") != tt.age {
					t.Errorf("%s: Cache-Control %q X-Cache %q Age %q; want %q %q %q", path,
						h.Get("Cache-Control"), h.Get("X-Cache"), h.Get("Age"), tt.cache, tt.xcache, tt.age)
				}
			}
		})
	}
}

func TestCommonHeadersAndJSON(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart("0208:0999999999"), fresh: registry.Freshness{TTL: time.Minute}}
	s, _ := newTestServer(t, reg, nil)
	for _, path := range []string{"/api/v1/participant/0208:0999999999", "/api/v1/participant/bad", "/nowhere", "/healthz"} {
		w := do(t, s, "GET", path)
		want := map[string]string{
			"Content-Type":                "application/json; charset=utf-8",
			"X-Content-Type-Options":      "nosniff",
			"Content-Security-Policy":     "default-src 'none'; frame-ancestors 'none'",
			"Access-Control-Allow-Origin": "*",
		}
		for k, v := range want {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", path, k, got, v)
			}
		}
		if id := w.Header().Get("X-Request-Id"); !saneRequestID(id) {
			t.Errorf("%s: X-Request-Id %q", path, id)
		}
		if !json.Valid(w.Body.Bytes()) || !bytes.HasSuffix(w.Body.Bytes(), []byte("}\n")) || bytes.Count(w.Body.Bytes(), []byte("\n")) != 1 {
			t.Errorf("%s: body is not one line of JSON: %q", path, w.Body)
		}
		if cl := w.Header().Get("Content-Length"); (cl != "" || w.Body.Len() > netHTTPBufferedBody) && cl != strconv.Itoa(w.Body.Len()) {
			t.Errorf("%s: Content-Length %q for %d bytes", path, w.Header().Get("Content-Length"), w.Body.Len())
		}
	}
	w := do(t, s, "GET", "/api/v1/participant/0208:0999999999")
	if !strings.Contains(w.Body.String(), `"name":"Smith & Sons <Ltd>"`) {
		t.Errorf("HTML escaped or name missing: %s", w.Body)
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method, path string
		wantStatus   int
		wantCode     registry.Code
		wantAllow    string
	}{
		{"GET", "/index.html", 404, CodeRouteNotFound, ""},
		{"GET", "/api/v2/participant/0208:1", 404, CodeRouteNotFound, ""},
		{"GET", "/api/v1/participant/", 404, CodeRouteNotFound, ""},
		{"GET", "/api/v1/participant/0208:1/extra", 404, CodeRouteNotFound, ""},
		{"POST", "/api/v1/participant/0208:0677424046", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"DELETE", "/api/v1/search?q=ab", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"PUT", "/healthz", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
		{"POST", "/nowhere", 404, CodeRouteNotFound, ""},
		// A method nothing serves, on a path that does not exist: 404, never a 405
		// with an empty Allow.
		{"PROPFIND", "/nowhere", 404, CodeRouteNotFound, ""},
		{"BREW", "/api/v1/nope", 404, CodeRouteNotFound, ""},
		{"PROPFIND", "/api/v1/search?q=ab", 405, CodeMethodNotAllowed, "GET, HEAD, OPTIONS"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			reg := &fakeRegistry{}
			s, _ := newTestServer(t, reg, nil)
			w := do(t, s, tt.method, tt.path)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d", w.Code, tt.wantStatus)
			}
			if e := decodeError(t, w); e.Code != tt.wantCode || e.Message == "" {
				t.Errorf("error %+v, want %s", e, tt.wantCode)
			}
			if got := w.Header().Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow %q, want %q", got, tt.wantAllow)
			}
			if reg.calls != 0 {
				t.Error("registry called")
			}
		})
	}
}

func TestHeadMatchesGet(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart("0208:0677424046"), result: &registry.SearchResult{Query: "ab", Results: []registry.SearchHit{}}}
	s := httptest.NewServer(func() http.Handler { s, _ := newTestServer(t, reg, nil); return s }())
	defer s.Close()
	for _, path := range []string{"/api/v1/participant/0208:0677424046", "/api/v1/search?q=ab", "/api/v1/search", "/healthz", "/readyz", "/nope"} {
		get, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		getBody, _ := io.ReadAll(get.Body)
		get.Body.Close()
		head, err := http.Head(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		headBody, _ := io.ReadAll(head.Body)
		head.Body.Close()
		if head.StatusCode != get.StatusCode || len(headBody) != 0 {
			t.Errorf("%s: HEAD %d with %d body bytes, GET %d", path, head.StatusCode, len(headBody), get.StatusCode)
		}
		if head.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("%s: HEAD headers %v differ from GET's (%d bytes)", path, head.Header, len(getBody))
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	for _, path := range []string{"/api/v1/participant/0208:0677424046", "/api/v1/search"} {
		w := do(t, s, "OPTIONS", path, "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
		if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
			t.Errorf("%s: preflight %d %q", path, w.Code, w.Body)
		}
		h := w.Header()
		if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" || h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("%s: preflight headers %v", path, h)
		}
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, &fakeRegistry{}, nil)
	tests := []struct {
		incoming string
		keep     bool
	}{
		{"", false},
		{"abc-123_X.y:z", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"bad id", false},
		{"x\"y", false},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		w := do(t, s, "GET", "/healthz", "X-Request-Id", tt.incoming)
		got := w.Header().Get("X-Request-Id")
		if tt.keep && got != tt.incoming {
			t.Errorf("incoming %q replaced by %q", tt.incoming, got)
		}
		if !tt.keep {
			if got == tt.incoming || !saneRequestID(got) || seen[got] {
				t.Errorf("incoming %q: generated id %q not fresh and sane", tt.incoming, got)
			}
			seen[got] = true
		}
		if !strings.Contains(logs.String(), `"request_id":"`+got+`"`) {
			t.Errorf("request id %q not in the access log", got)
		}
	}
}

func TestAccessLog(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, &fakeRegistry{err: &registry.Error{Code: registry.CodeNotFound, Message: "nf"}}, nil)
	w := do(t, s, "GET", "/api/v1/participant/0208:0677424046?x=1")
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(logs.Bytes()), &line); err != nil {
		t.Fatalf("access log is not one JSON line: %q", logs)
	}
	want := map[string]any{"msg": "request", "method": "GET", "path": "/api/v1/participant/0208:0677424046",
		"status": float64(404), "bytes": float64(w.Body.Len()), "request_id": w.Header().Get("X-Request-Id")}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("log %s = %v, want %v", k, line[k], v)
		}
	}
	if _, ok := line["duration_ms"].(float64); !ok {
		t.Errorf("no duration_ms in %v", line)
	}
}

func TestPanicRecovery(t *testing.T) {
	t.Parallel()
	for _, v := range []any{"boom at 10.0.0.7", errors.New("nil map"), 42} {
		s, logs := newTestServer(t, &fakeRegistry{panicWith: v}, nil)
		for _, path := range []string{"/api/v1/participant/0208:0677424046", "/api/v1/search?q=ab"} {
			w := do(t, s, "GET", path)
			if w.Code != 500 {
				t.Fatalf("%s: status %d after panic", path, w.Code)
			}
			e := decodeError(t, w)
			if e.Code != CodeInternal || strings.Contains(e.Message, "10.0.0.7") || strings.Contains(e.Message, "boom") {
				t.Errorf("%s: error %+v", path, e)
			}
			if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s: headers %v", path, w.Header())
			}
			if !strings.Contains(logs.String(), `"msg":"panic"`) || !strings.Contains(logs.String(), "goroutine") {
				t.Errorf("%s: panic not logged with a stack: %s", path, logs)
			}
		}
	}
}

func TestAbortHandlerPanicPassesThrough(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{panicWith: http.ErrAbortHandler}, nil)
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler re-raised", v)
		}
	}()
	do(t, s, "GET", "/api/v1/participant/0208:0677424046")
}

func TestHealth(t *testing.T) {
	t.Parallel()
	notReady := errors.New("draining connections to 10.0.0.5")
	tests := []struct {
		name       string
		ready      func(context.Context) error
		path       string
		wantStatus int
		wantBody   string
	}{
		{"healthz", nil, "/healthz", 200, `{"status":"ok"}` + "\n"},
		{"healthz while not ready", func(context.Context) error { return notReady }, "/healthz", 200, `{"status":"ok"}` + "\n"},
		{"readyz no check", nil, "/readyz", 200, `{"status":"ok"}` + "\n"},
		{"readyz ready", func(context.Context) error { return nil }, "/readyz", 200, `{"status":"ok"}` + "\n"},
		{"readyz not ready", func(context.Context) error { return notReady }, "/readyz", 503,
			`{"status":"unavailable","message":"the service is not ready to take traffic; retry shortly"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) { c.Ready = tt.ready })
			w := do(t, s, "GET", tt.path)
			if w.Code != tt.wantStatus || w.Body.String() != tt.wantBody {
				t.Errorf("%d %q, want %d %q", w.Code, w.Body, tt.wantStatus, tt.wantBody)
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", w.Header().Get("Cache-Control"))
			}
		})
	}
}
