package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

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

// BenchmarkCachedParticipantTraced is BenchmarkCachedParticipant with tracing on, the
// spans batched to an exporter that drops them (what is measured is the server's cost,
// not a collector's): with a 1 % sampler (parentbased_traceidratio 0.01, what
// docs/DEPLOY.md suggests for production) and with every request sampled. With
// tracing off it is BenchmarkCachedParticipant (BENCHMARKS.md, "Issue 28: traces").
func BenchmarkCachedParticipantTraced(b *testing.B) {
	for _, bc := range []struct {
		name  string
		ratio float64
	}{{"sampled=1%", 0.01}, {"sampled=100%", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(dropSpans{}),
				sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(bc.ratio))))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			p := samplePart("0208:0677424046")
			p.SMP = &registry.SMPRecord{URL: "https://smp.example/iso6523-actorid-upis%3A%3A0208%3A0677424046", Hostname: "smp.example", ServiceCount: 2}
			s, err := New(Config{BaseURL: "http://localhost:8080", TracerProvider: tp,
				Networks: registry.One(&fakeRegistry{part: p, fresh: registry.Freshness{Cached: true, TTL: 15 * time.Minute}})})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			benchServe(b, s, "/api/v1/participant/0208%3A0677424046")
		})
	}
}

// dropSpans is a span exporter that drops what it gets.
type dropSpans struct{}

func (dropSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (dropSpans) Shutdown(context.Context) error                             { return nil }
