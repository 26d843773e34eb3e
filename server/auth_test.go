package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestUnauthorized checks the 401 a future authenticated endpoint will answer: the
// error object and the RFC 9728 §5.1 challenge pointing at the metadata.
func TestUnauthorized(t *testing.T) {
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	h := s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		return s.unauthorized(w, "this endpoint needs a bearer token")
	})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/private", nil))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("status %d", w.Code)
	}
	if got, want := w.Header().Get("WWW-Authenticate"), `Bearer resource_metadata="http://localhost:8080/.well-known/oauth-protected-resource"`; got != want {
		t.Errorf("WWW-Authenticate %q, want %q", got, want)
	}
	if e := decodeError(t, w); e.Code != CodeUnauthorized || e.Message == "" || w.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("error %+v, Cache-Control %q", e, w.Header().Get("Cache-Control"))
	}
}
