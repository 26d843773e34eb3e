package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// spanAttrs is a span's attributes as strings.
func spanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, a := range s.Attributes() {
		out[string(a.Key)] = a.Value.String()
	}
	return out
}

// TestServerSpans checks the server span of requests the router treats apart: a page
// route is named by its template like the API's, a method a client made up never
// reaches the span's name, and the span carries no raw client address
// (docs/DEPLOY.md "Traces (OpenTelemetry)").
func TestServerSpans(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, path, accept string
		span, route, methodAttr    string
		original                   string
	}{
		{"page route", http.MethodGet, "/participant/0208:0677424046", "text/html", "GET /participant/{participantId}", "/participant/{participantId}", "GET", ""},
		{"API route", http.MethodGet, "/api/v1/participant/0208:0677424046", "", "GET /api/v1/participant/{participantId}", "/api/v1/participant/{participantId}", "GET", ""},
		{"made-up method", "X0208-0677424046", "/nowhere", "", "other", "", "_OTHER", "X0208-0677424046"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			s, _ := newUncheckedServer(t, &fakeRegistry{part: samplePart("0208:0677424046")}, func(c *Config) { c.TracerProvider = tp })
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			s.ServeHTTP(httptest.NewRecorder(), req)
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want the server span alone", len(spans))
			}
			sp := spans[0]
			a := spanAttrs(sp)
			if sp.Name() != tt.span || a["http.route"] != tt.route || a["http.request.method"] != tt.methodAttr || a["http.request.method_original"] != tt.original {
				t.Errorf("span %q %v; want %q with http.route %q, http.request.method %q, http.request.method_original %q", sp.Name(), a, tt.span, tt.route, tt.methodAttr, tt.original)
			}
			if _, ok := a["client.address"]; ok {
				t.Errorf("span carries the raw client address: %v", a)
			}
		})
	}
}
