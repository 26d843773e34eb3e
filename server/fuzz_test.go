package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// FuzzRequest sends arbitrary paths and queries through the whole handler: whatever
// comes in, the answer is one JSON document with a code from the status table, never a
// panic or a 500.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		"/api/v1/participant/0208:0677424046", "/api/v1/participant/0208%3A0677424046",
		"/api/v1/participant/iso6523-actorid-upis%3A%3A0208%3Aabc", "/api/v1/participant/%25",
		"/api/v1/search?q=acme&country=be", "/api/v1/search?q=%FF", "/api/v1/search?q=&q=x",
		"/healthz", "/nope", "//api/v1/search", "/api/v1/participant/0208:a%2Fb",
	} {
		f.Add("GET", s)
	}
	f.Add("POST", "/api/v1/search")
	reg := &fakeRegistry{part: samplePart("0208:0677424046"), result: &registry.SearchResult{Query: "q", Results: []registry.SearchHit{}}}
	s, err := New(Config{BaseURL: "http://localhost:8080", Registry: reg})
	f.Cleanup(func() { s.Close() })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, method, target string) {
		switch method {
		case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS":
		default:
			return
		}
		u, err := url.ParseRequestURI(target)
		if err != nil || !strings.HasPrefix(target, "/") {
			return
		}
		req := &http.Request{Method: method, URL: u, RequestURI: target, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "example.com"}
		req = req.WithContext(t.Context())
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q: status %d %s", method, target, w.Code, w.Body)
		}
		if w.Code == http.StatusNoContent || method == "HEAD" {
			return
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %q: body is not a JSON object: %q", method, target, w.Body)
		}
		if w.Code >= 400 {
			var e errorBody
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || Status(e.Error.Code) != w.Code || e.Error.Message == "" {
				t.Fatalf("%s %q: error body %q does not match status %d", method, target, w.Body, w.Code)
			}
		}
	})
}
