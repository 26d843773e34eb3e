package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// FuzzRequest sends arbitrary paths and queries through the whole handler: whatever
// comes in, the answer is never a panic or a 5xx; a JSON answer is one object, and an
// error is the error object with a code from the status table (the documents and the
// MCP transport answer in other media types).
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
	s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(reg)})
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
		if method == "GET" && u.Path == mcpPath {
			return // MCP's event stream: open until the client leaves, by design
		}
		req := &http.Request{Method: method, URL: u, RequestURI: target, Header: http.Header{}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "example.com",
			Body: http.NoBody} // as net/http: a server request's Body is never nil
		// Any other answer is immediate (the fake registry does not wait); one that
		// is not is a stream nobody asked for.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		req = req.WithContext(ctx)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if ctx.Err() != nil {
			t.Fatalf("%s %q: still answering after 5s", method, target)
		}
		if w.Code >= 500 {
			t.Fatalf("%s %q: status %d %s", method, target, w.Code, w.Body)
		}
		if w.Code == http.StatusNoContent || method == "HEAD" {
			return
		}
		if !isJSONType(w.Header().Get("Content-Type")) {
			// The documents (Markdown, HTML, Prometheus text) and the MCP transport's
			// own plain-text refusals (documented on /mcp) are not JSON.
			if w.Code >= 400 && u.Path != mcpPath {
				t.Fatalf("%s %q: status %d with Content-Type %q: %q", method, target, w.Code, w.Header().Get("Content-Type"), w.Body)
			}
			return
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %q: body is not a JSON object: %q", method, target, w.Body)
		}
		if w.Code >= 400 && u.Path != mcpPath { // JSON-RPC errors are not ours
			var e errorBody
			if json.Unmarshal(w.Body.Bytes(), &e) != nil || Status(e.Error.Code) != w.Code || e.Error.Message == "" {
				t.Fatalf("%s %q: error body %q does not match status %d", method, target, w.Body, w.Code)
			}
		}
	})
}
