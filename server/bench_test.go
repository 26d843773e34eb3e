package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// The benchmarks measure the HTTP layer's own cost (routing, middleware, JSON) over an
// answer the registry already has, next to a handler that writes a constant: the
// difference is what the server adds to a cached lookup.

func benchServe(b *testing.B, h http.Handler, target string) {
	b.Helper()
	req := httptest.NewRequest("GET", target, nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
	}
}

func BenchmarkTrivialHandler(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	benchServe(b, h, "/healthz")
}

func BenchmarkCachedParticipant(b *testing.B) {
	p := samplePart("0208:0677424046")
	p.SMP = &registry.SMPRecord{URL: "https://smp.example/iso6523-actorid-upis%3A%3A0208%3A0677424046", Hostname: "smp.example", ServiceCount: 2}
	s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(&fakeRegistry{part: p, fresh: registry.Freshness{Cached: true, TTL: 15 * time.Minute}})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	benchServe(b, s, "/api/v1/participant/0208%3A0677424046")
}

func BenchmarkCachedSearch(b *testing.B) {
	res := &registry.SearchResult{Query: "acme", TotalCount: 25}
	for range registry.MaxSearchResults {
		res.Results = append(res.Results, registry.SearchHit{ParticipantID: "0208:0677424046", Name: "Acme Installaties NV", CountryCode: "BE"})
	}
	s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(&fakeRegistry{result: res, fresh: registry.Freshness{Cached: true, TTL: 5 * time.Minute}})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	benchServe(b, s, "/api/v1/search?q=acme&country=BE")
}
