package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry/otlptest"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestSetupDecides checks which OTEL_* settings turn tracing on, which leave it off
// (a noop provider), and which are errors naming the variable. Setup's decision reads
// only getenv (the test's map), never the process environment.
func TestSetupDecides(t *testing.T) {
	t.Parallel()
	const ep = "http://127.0.0.1:1" // never dialled: nothing is exported here
	for _, tt := range []struct {
		name string
		env  map[string]string
		on   bool
		err  string
	}{
		{"nothing set", nil, false, ""},
		{"only a sampler", map[string]string{"OTEL_TRACES_SAMPLER": "always_on"}, false, ""},
		{"endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep}, true, ""},
		{"traces endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ep + "/v1/traces"}, true, ""},
		{"exporter otlp alone", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, ""},
		{"sdk disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_SDK_DISABLED": "true"}, false, ""},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_TRACES_EXPORTER": "none"}, false, ""},
		{"1 % sampler", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.01"}, true, ""},
		{"http/protobuf", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, true, ""},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, false, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"},
		{"http/json", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, false, "only"},
		{"unknown sampler", map[string]string{"OTEL_TRACES_SAMPLER": "often"}, false, "OTEL_TRACES_SAMPLER=\"often\""},
		{"ratio above 1", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1.5"}, false, "between 0 and 1"},
		{"ratio not a number", map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1%"}, false, "OTEL_TRACES_SAMPLER_ARG"},
		{"console exporter", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, false, "OTEL_TRACES_EXPORTER"},
		{"endpoint without scheme", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, false, "http(s) URL"},
		{"sdk disabled not a boolean", map[string]string{"OTEL_SDK_DISABLED": "yes please"}, false, "OTEL_SDK_DISABLED"},
		{"sdk disabled TRUE", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_SDK_DISABLED": "TRUE"}, false, ""},
		{"sdk disabled false", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_SDK_DISABLED": "false"}, true, ""},
		{"sdk disabled 1 is not true", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_SDK_DISABLED": "1"}, false, "OTEL_SDK_DISABLED"},
		{"sampler always_off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_TRACES_SAMPLER": "always_off"}, false, ""},
		{"headers without =", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_HEADERS": "api-key"}, false, "OTEL_EXPORTER_OTLP_HEADERS"},
		{"traces headers bad escape", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=%zz"}, false, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"},
		{"headers", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc%20d,x-team=1"}, true, ""},
		{"timeout with a unit", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TIMEOUT": "5s"}, false, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{"traces timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "5000"}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tp, shutdown, err := Setup(t.Context(), envOf(tt.env), slog.New(slog.DiscardHandler), "v-test")
			if tt.err != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want a *ConfigError with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if On(tp) != tt.on {
				t.Errorf("On = %v, want %v", On(tp), tt.on)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = shutdown(ctx) // nothing was traced, so nothing to send
		})
	}
}

// TestSetupOffExportsNothing runs Setup with no OTEL_* setting through getenv while the
// process environment points the exporter at a live receiver: the provider is the noop
// one, its spans are not recorded and nothing reaches the receiver, even at shutdown.
// (t.Setenv: not parallel.)
func TestSetupOffExportsNothing(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	tp, shutdown, err := Setup(t.Context(), envOf(nil), slog.New(slog.DiscardHandler), "v-test")
	if err != nil {
		t.Fatal(err)
	}
	if On(tp) {
		t.Fatalf("provider %T is on without OTEL_* settings", tp)
	}
	_, span := tp.Tracer("test").Start(t.Context(), "x")
	if span.IsRecording() || span.SpanContext().IsValid() {
		t.Error("the noop provider's span records or has ids")
	}
	span.End()
	if err := shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, _ := recv.Requests(); n != 0 {
		t.Errorf("the receiver got %d export requests with tracing off", n)
	}
}

// TestSetupExports sends one span through the OTLP/HTTP exporter Setup makes to an
// in-process receiver and flushes it at shutdown. (t.Setenv: not parallel.)
func TestSetupExports(t *testing.T) {
	recv := otlptest.Start(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "")
	tp, shutdown, err := Setup(t.Context(), envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": recv.URL}), slog.New(slog.DiscardHandler), "v-test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("test").Start(t.Context(), "one")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	spans := recv.Spans()
	if len(spans) != 1 || spans[0].Name != "one" || spans[0].Resource["service.name"] != "peppolgate" || spans[0].Resource["service.version"] != "v-test" {
		t.Fatalf("received %+v; want span one from service peppolgate v-test", spans)
	}
}

// TestSetupLogsExportFailure: a collector that refuses the spans is a warning in our
// own log (not otel's global error handler's unstructured line), and the spans are
// dropped. (t.Setenv: not parallel.)
func TestSetupLogsExportFailure(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Error(w, "no", http.StatusBadRequest) // not retried by the exporter
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	var buf syncBuilder
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	tp, shutdown, err := Setup(t.Context(), envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), log, "v-test")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tp.Tracer("test").Start(t.Context(), "one")
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = shutdown(ctx)
	if !strings.Contains(buf.String(), `"msg":"trace export failed`) || !strings.Contains(buf.String(), "400") {
		t.Errorf("log:\n%s\nwant a warning trace export failed with the collector's status", buf.String())
	}
}

// syncBuilder is a strings.Builder safe for the exporter's goroutine and the test's.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestClient checks an upstream request's span (host, method, status, bytes, the
// failure) and that no trace context goes upstream.
func TestClient(t *testing.T) {
	t.Parallel()
	var sawTraceparent []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawTraceparent = append(sawTraceparent, r.Header.Get("Traceparent")+r.Header.Get("Tracestate"))
		if r.URL.Path == "/gone" {
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "hello, world")
	}))
	defer upstream.Close()
	rec := &recorder{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(rec))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	c := Client(&http.Client{Timeout: 10 * time.Second}, tp, "SMP")

	ctx, parent := tp.Tracer("test").Start(context.Background(), "lookup")
	for _, path := range []string{"/ok", "/gone"} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, upstream.URL+path, nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	parent.End()
	for _, h := range sawTraceparent {
		if h != "" {
			t.Errorf("the upstream got trace context %q; none must be sent", h)
		}
	}
	spans := rec.spans
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 2 requests and the parent", len(spans))
	}
	host := strings.TrimPrefix(upstream.URL, "http://")
	for i, want := range []struct {
		status, size int64
		err          bool
	}{{200, 12, false}, {503, 5, true}} {
		s := spans[i]
		attrs := map[string]any{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.AsInterface()
		}
		if s.Name() != "SMP GET" || s.Parent().SpanID() != parent.SpanContext().SpanID() ||
			attrs["server.address"] != host || attrs["http.response.status_code"] != want.status ||
			attrs["http.response.body.size"] != want.size || (s.Status().Code.String() == "Error") != want.err {
			t.Errorf("span %d: %s under %s, attributes %v, status %v; want SMP GET under the lookup, %s, %d, %d bytes, error %v",
				i, s.Name(), s.Parent().SpanID(), attrs, s.Status(), host, want.status, want.size, want.err)
		}
	}

	if Client(nil, nil, "SMP") != nil {
		t.Error("Client with tracing off must return the client it was given")
	}
}

// recorder keeps the spans it is given, in order of their end.
type recorder struct{ spans []sdktrace.ReadOnlySpan }

func (r *recorder) ExportSpans(_ context.Context, s []sdktrace.ReadOnlySpan) error {
	r.spans = append(r.spans, s...)
	return nil
}
func (r *recorder) Shutdown(context.Context) error { return nil }

// TestWithTraceIDs checks that a log line written with a span's context carries its
// ids, and one without passes unchanged.
func TestWithTraceIDs(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	log := slog.New(WithTraceIDs(slog.NewTextHandler(&buf, nil)))
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "r")
	log.InfoContext(ctx, "inside")
	log.Info("outside")
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sc := span.SpanContext()
	if len(lines) != 2 || !strings.Contains(lines[0], "trace_id="+sc.TraceID().String()) || !strings.Contains(lines[0], "span_id="+sc.SpanID().String()) ||
		strings.Contains(lines[1], "trace_id") {
		t.Errorf("log:\n%s\nwant trace_id and span_id on the first line only", buf.String())
	}
}

// TestCheck: Check refuses what Setup refuses, with Setup's *ConfigError, and starts
// nothing for good settings (an endpoint nobody listens on is never dialled).
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		env map[string]string
		bad bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, true},
		{map[string]string{"OTEL_TRACES_SAMPLER_ARG": "2", "OTEL_TRACES_SAMPLER": "traceidratio"}, true},
		{map[string]string{"OTEL_SDK_DISABLED": "maybe"}, true},
	} {
		getenv := func(k string) string { return tt.env[k] }
		err := Check(getenv)
		_, flush, serr := Setup(t.Context(), getenv, slog.New(slog.DiscardHandler), "test")
		if flush != nil {
			flush(t.Context()) // no span: nothing to send
		}
		var ce *ConfigError
		if (err != nil) != tt.bad || (tt.bad && (!errors.As(err, &ce) || serr == nil || err.Error() != serr.Error())) {
			t.Errorf("%v: Check %v, Setup %v", tt.env, err, serr)
		}
	}
}
