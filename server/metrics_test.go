package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/peppolgate/peppolgate/internal/clock"
)

// scrape fetches /metrics from h and parses it as the Prometheus text format.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	w := do(t, h, "GET", "/metrics", "Accept", "application/openmetrics-text; version=1.0.0, application/vnd.google.protobuf;q=0.9")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format 0.0.4 whatever Accept says", ct)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(w.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// sample returns the value of the series of name with exactly labels: a counter's or
// gauge's value, a histogram's sample count.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	mf := fams[name]
	if mf == nil {
		return 0, false
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range mf.GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		match := true
		for _, lp := range m.GetLabel() {
			if v, ok := want[lp.GetName()]; !ok || v != lp.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetricsEndpoint(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, limitedRegistry(), func(c *Config) {
		c.RateLimit = RateLimit{Rate: 1, Burst: 1}
	})
	clock := clock.NewFake(time.Now())
	useClock(s, clock)
	const route = "/api/v1/participant/{participantId}"
	for _, rq := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/v1/participant/0208:0999999999", 200},
		{"GET", "/api/v1/participant/0208:0888888888", 429},
		{"GET", "/api/v1/no/such/path", 404},
		{"DELETE", "/api/v1/search", 405},
		{"GET", "/healthz", 200},
	} {
		if w := do(t, s, rq.method, rq.path); w.Code != rq.status {
			t.Fatalf("%s %s: %d, want %d", rq.method, rq.path, w.Code, rq.status)
		}
	}
	s.metrics.Upstream("smp", "ok", 20*time.Millisecond)
	s.metrics.Upstream("sml", "timeout", time.Second)
	s.metrics.Upstream("ldap", "exploded", time.Millisecond) // not the registry's: "other"
	s.metrics.Cache("lookup", "hit")
	s.metrics.Cache("search", "stale")
	s.metrics.Cache("both", "maybe")
	scrape(t, s)
	clock.Advance(time.Second) // a scrape a second, as the limit allows
	fams := scrape(t, s)       // the second sees the first
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"peppolgate_http_requests_total", []string{"method", "GET", "route", route, "status", "200"}, 1},
		{"peppolgate_http_requests_total", []string{"method", "GET", "route", route, "status", "429"}, 1},
		{"peppolgate_http_requests_total", []string{"method", "GET", "route", unmatchedRoute, "status", "404"}, 1},
		{"peppolgate_http_requests_total", []string{"method", "DELETE", "route", unmatchedRoute, "status", "405"}, 1},
		{"peppolgate_http_requests_total", []string{"method", "GET", "route", "/healthz", "status", "200"}, 1},
		{"peppolgate_http_requests_total", []string{"method", "GET", "route", "/metrics", "status", "200"}, 1},
		{"peppolgate_http_request_duration_seconds", []string{"method", "GET", "route", route}, 2},
		{"peppolgate_http_rate_limited_total", []string{"class", "rest"}, 1},
		{"peppolgate_http_rate_limited_total", []string{"class", "ask"}, 0},
		{"peppolgate_http_rate_limited_total", []string{"class", "mcp"}, 0},
		{"peppolgate_http_event_streams_in_flight", nil, -1}, // no stream yet: no series
		{"peppolgate_upstream_requests_total", []string{"kind", "smp", "outcome", "ok"}, 1},
		{"peppolgate_upstream_requests_total", []string{"kind", "sml", "outcome", "timeout"}, 1},
		{"peppolgate_upstream_requests_total", []string{"kind", "directory", "outcome", "ratelimit"}, 0},
		{"peppolgate_upstream_requests_total", []string{"kind", "other", "outcome", "other"}, 1},
		{"peppolgate_upstream_request_duration_seconds", []string{"kind", "sml", "outcome", "timeout"}, 1},
		{"peppolgate_cache_requests_total", []string{"kind", "lookup", "result", "hit"}, 1},
		{"peppolgate_cache_requests_total", []string{"kind", "search", "result", "stale"}, 1},
		{"peppolgate_cache_requests_total", []string{"kind", "search", "result", "miss"}, 0},
		{"peppolgate_cache_requests_total", []string{"kind", "other", "result", "other"}, 1},
		{"peppolgate_build_info", []string{"version", "dev"}, 1},
	}
	for _, tt := range tests {
		got, ok := sample(fams, tt.name, tt.labels...)
		switch {
		case tt.want < 0 && ok:
			t.Errorf("%s%v exists, want none", tt.name, tt.labels)
		case tt.want >= 0 && (!ok || got != tt.want):
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes"} {
		if fams[name] == nil {
			t.Errorf("no %s: the Go collector is missing", name)
		}
	}
	if runtime.GOOS == "linux" && fams["process_resident_memory_bytes"] == nil {
		t.Errorf("no process_resident_memory_bytes: the process collector is missing")
	}
	// Route labels are patterns: no raw path, no participant id.
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if strings.Contains(lp.GetValue(), "0208") || strings.Contains(lp.GetValue(), "/no/such") {
					t.Errorf("%s has label %s=%q: a raw path", name, lp.GetName(), lp.GetValue())
				}
			}
		}
	}
	if l := logs.String(); strings.Contains(l, `"path":"/metrics"`) || !strings.Contains(l, `"path":"/healthz"`) {
		t.Errorf("access log: scrapes must be logged at debug level only, other requests at info:\n%s", l)
	}
}

// TestMetricsOwnRegistry checks that each server counts in its own registry and
// leaves the process-wide default registry alone.
func TestMetricsOwnRegistry(t *testing.T) {
	t.Parallel()
	a, _ := newTestServer(t, limitedRegistry(), nil)
	b, _ := newTestServer(t, limitedRegistry(), nil)
	do(t, a, "GET", "/healthz")
	do(t, a, "GET", "/healthz")
	do(t, b, "GET", "/healthz")
	for _, c := range []struct {
		s    *Server
		want float64
	}{{a, 2}, {b, 1}} {
		got, _ := sample(scrape(t, c.s), "peppolgate_http_requests_total", "method", "GET", "route", "/healthz", "status", "200")
		if got != c.want {
			t.Errorf("/healthz counted %v, want %v", got, c.want)
		}
	}
	fams, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range fams {
		if strings.HasPrefix(mf.GetName(), "peppolgate_") {
			t.Errorf("%s is in the default registry", mf.GetName())
		}
	}
	// One Metrics may serve two servers (and a registry), which then add up.
	m := NewMetrics()
	for range 2 {
		s, _ := newTestServer(t, limitedRegistry(), func(c *Config) { c.Metrics = m })
		do(t, s, "GET", "/healthz")
	}
	if got, _ := sample(gather(t, m), "peppolgate_http_requests_total", "method", "GET", "route", "/healthz", "status", "200"); got != 2 {
		t.Errorf("shared Metrics counted %v, want 2", got)
	}
}

func gather(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range fams {
		out[mf.GetName()] = mf
	}
	return out
}

// TestMetricsEventStreams checks that an event stream counts as open from its first
// byte until it ends, also when its handler panics mid-stream.
func TestMetricsEventStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		stream    bool
		panicWith any
	}{
		{name: "stream", stream: true},
		{name: "JSON answer", stream: false},
		{name: "stream that panics", stream: true, panicWith: errors.New("boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newUncheckedServer(t, limitedRegistry(), nil)
			open := func() float64 {
				v, _ := sample(gather(t, s.metrics), "peppolgate_http_event_streams_in_flight", "route", "/ask")
				return v
			}
			var during float64
			h := s.edge(s.route("/ask", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ct := "application/json"
				if tt.stream {
					ct = "text/event-stream"
				}
				w.Header().Set("Content-Type", ct)
				fmt.Fprint(w, "event: start\ndata: {}\n\n")
				_ = http.NewResponseController(w).Flush()
				during = open()
				if tt.panicWith != nil {
					panic(tt.panicWith)
				}
			})))
			func() {
				defer func() {
					if v := recover(); v != nil && v != http.ErrAbortHandler {
						t.Errorf("panic %v, want http.ErrAbortHandler", v)
					}
				}()
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/ask", bytes.NewReader(nil)))
			}()
			want := 0.0
			if tt.stream {
				want = 1
			}
			if during != want {
				t.Errorf("open streams while streaming: %v, want %v", during, want)
			}
			if after := open(); after != 0 {
				t.Errorf("open streams after the answer: %v, want 0", after)
			}
		})
	}
}

// TestMetricsLabelsBounded checks the label guards: unknown methods and statuses
// outside HTTP's range do not make new label values.
func TestMetricsLabelsBounded(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	for _, tt := range []struct {
		method string
		status int
		labels []string
	}{
		{"GET", 200, []string{"method", "GET", "route", "/x", "status", "200"}},
		{"BREW", 200, []string{"method", "other", "route", "/x", "status", "200"}},
		{"GET", 1000, []string{"method", "GET", "route", "/x", "status", "other"}},
		{"GET", -1, []string{"method", "GET", "route", "/x", "status", "other"}},
	} {
		m.request(tt.method, "/x", tt.status, time.Millisecond)
		if v, ok := sample(gather(t, m), "peppolgate_http_requests_total", tt.labels...); !ok || v < 1 {
			t.Errorf("%s %d: no series %v", tt.method, tt.status, tt.labels)
		}
	}
}
