package server

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestDiscoveryDocuments fetches every discovery document the way a client does and
// checks what each RFC asks of the HTTP answer: status, media type, caching, and the
// api-catalog Link header on the catalog (GET and HEAD) and on the index.
func TestDiscoveryDocuments(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	const base = "http://localhost:8080"
	catalogLink := `<` + base + `/.well-known/api-catalog>; rel="api-catalog"`
	tests := []struct {
		method, path string
		hdr          []string
		ctype        string
		link         bool
		bodyHas      string
	}{
		{"GET", "/openapi.json", nil, "application/json", false, `"openapi": "3.1.0"`},
		{"GET", "/llms.txt", nil, "text/markdown; charset=utf-8", false, "# peppolgate"},
		{"GET", "/llms-full.txt", nil, "text/markdown; charset=utf-8", false, "# peppolgate"},
		{"GET", "/.well-known/api-catalog", nil, `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`, true, `"linkset"`},
		{"HEAD", "/.well-known/api-catalog", nil, `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"`, true, ""},
		{"GET", "/.well-known/oauth-protected-resource", nil, "application/json", false, `"resource": "` + base + `"`},
		{"GET", "/.well-known/oauth-protected-resource/mcp", nil, "application/json", false, `"resource": "` + base + `/mcp"`},
		{"GET", "/.well-known/oauth-authorization-server", nil, "application/json", false, `"issuer": "` + base + `"`},
		{"GET", "/", nil, "application/json", true, base + "/openapi.json"},
		{"GET", "/", []string{"Accept", "application/json"}, "application/json", true, base + "/openapi.json"},
		{"GET", "/", []string{"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}, "text/html; charset=utf-8", true, "<html"},
		{"HEAD", "/", nil, "application/json", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+strings.Join(tt.hdr, " "), func(t *testing.T) {
			w := do(t, s, tt.method, tt.path, tt.hdr...)
			if w.Code != 200 || w.Header().Get("Content-Type") != tt.ctype {
				t.Fatalf("%d %q", w.Code, w.Header().Get("Content-Type"))
			}
			if got := w.Header().Get("Link"); tt.link && got != catalogLink {
				t.Errorf("Link %q, want %q", got, catalogLink)
			}
			if tt.method == "HEAD" {
				return // net/http drops the body of a HEAD answer
			}
			if !strings.Contains(w.Body.String(), tt.bodyHas) {
				t.Errorf("body lacks %q", tt.bodyHas)
			}
			if strings.HasPrefix(tt.ctype, "application/") && !json.Valid(w.Body.Bytes()) {
				t.Error("body is not JSON")
			}
			if w.Header().Get("Cache-Control") != docCacheControl {
				t.Errorf("Cache-Control %q", w.Header().Get("Cache-Control"))
			}
		})
	}
}

// TestAPIDescribesEveryRoute: every code an endpoint lists is in the error table,
// operation ids are unique, and every route of the router is in the table (the router
// is built from it, so this guards the build loop).
func TestAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	api := s.API()
	ids := map[string]bool{}
	for _, ep := range api.Endpoints {
		if ids[ep.OperationID] || ep.OperationID == "" || ep.Summary == "" || len(ep.Responses) == 0 {
			t.Errorf("%s %s: operation id %q, summary %q, %d responses", ep.Method, ep.Path, ep.OperationID, ep.Summary, len(ep.Responses))
		}
		ids[ep.OperationID] = true
		for _, c := range ep.Errors {
			if _, ok := errorTable[c]; !ok {
				t.Errorf("%s %s lists %s, which is not in the error table", ep.Method, ep.Path, c)
			}
		}
		w := do(t, s, "OPTIONS", strings.ReplaceAll(ep.Path, "{participantId}", "0208:0677424046"))
		if ep.Path != mcpPath && w.Code != 204 {
			t.Errorf("%s: preflight %d", ep.Path, w.Code)
		}
	}
	if len(api.Errors) != len(errorTable) {
		t.Errorf("%d error codes described, %d in the table", len(api.Errors), len(errorTable))
	}
	for _, e := range api.Errors {
		if e.When == "" || e.Action == "" || e.Status == 0 {
			t.Errorf("error %s undocumented: %+v", e.Code, e)
		}
	}
}

// TestDocumentsConditionalAndGzip: the discovery documents carry a strong ETag, answer
// 304 to If-None-Match, and come gzip-compressed to clients that accept it (the same
// bytes once decompressed), so repeated fetches and scrapers cost little.
func TestDocumentsConditionalAndGzip(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	plain := do(t, s, "GET", "/openapi.json")
	etag := plain.Header().Get("ETag")
	if plain.Code != 200 || !strings.HasPrefix(etag, `"`) || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("plain: %d ETag %q encoding %q", plain.Code, etag, plain.Header().Get("Content-Encoding"))
	}
	gz := do(t, s, "GET", "/openapi.json", "Accept-Encoding", "br, gzip;q=0.8")
	if gz.Header().Get("Content-Encoding") != "gzip" || gz.Header().Get("ETag") != etag || !strings.Contains(gz.Header().Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip: %v", gz.Header())
	}
	gzLen := gz.Body.Len()
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, plain.Body.Bytes()) {
		t.Errorf("the gzip body is not the document (%v)", err)
	}
	if gzLen == 0 || gzLen*3 > plain.Body.Len() {
		t.Errorf("gzip body %d bytes for a %d-byte document", gzLen, plain.Body.Len())
	}
	if w := do(t, s, "GET", "/openapi.json", "Accept-Encoding", "gzip;q=0"); w.Header().Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that refuses it (q=0)")
	}
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		w := do(t, s, "GET", "/openapi.json", "If-None-Match", inm)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d with %d bytes", inm, w.Code, w.Body.Len())
		}
	}
	if w := do(t, s, "GET", "/openapi.json", "If-None-Match", `"stale"`); w.Code != 200 {
		t.Errorf("If-None-Match of another version: %d", w.Code)
	}
}

// BenchmarkOpenAPIDocument serves /openapi.json plain and gzip-compressed.
func BenchmarkOpenAPIDocument(b *testing.B) {
	s, err := New(Config{Networks: registry.One(&fakeRegistry{}), BaseURL: "http://peppolgate.test"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, enc := range []string{"", "gzip"} {
		b.Run("encoding="+enc, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/openapi.json", nil)
			req.RemoteAddr = "127.0.0.1:1234"
			if enc != "" {
				req.Header.Set("Accept-Encoding", enc)
			}
			var n int
			for b.Loop() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req)
				n = w.Body.Len()
			}
			b.ReportMetric(float64(n), "bytes/answer")
		})
	}
}
