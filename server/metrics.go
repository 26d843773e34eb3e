package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/registry"
)

// metricsPath is where the Prometheus metrics are served.
const metricsPath = "/metrics"

// unmatchedRoute is the route label of a request no route matched (404, 405), so raw
// paths never become label values.
const unmatchedRoute = "unmatched"

// otherLabel replaces a label value outside the known set, so a caller cannot grow the
// number of series.
const otherLabel = "other"

// durationBuckets are the latency histogram buckets in seconds: cached answers take
// milliseconds, lookups up to the registry's deadline, /ask answers up to the LLM's.
func durationBuckets() []float64 {
	return []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
}

// Metrics holds peppolgate's Prometheus metrics in a registry of its own (never the
// process-wide default one, so two servers in one process, as in tests, do not mix
// their counts). It is the registry.Observer of upstream calls and cache decisions:
// pass it to peppolnet.Config.Observer and to Config.Metrics. It is safe for
// concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	streams     *prometheus.GaugeVec
	rateLimited *prometheus.CounterVec
	upstream    *prometheus.CounterVec
	upstreamDur *prometheus.HistogramVec
	cache       *prometheus.CounterVec
	build       *prometheus.GaugeVec

	// statuses are the label values of the status codes, made once: the request
	// counter is touched on every request.
	statuses [600]string
}

// NewMetrics returns Metrics with every series registered, including the Go runtime
// and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "peppolgate_http_requests_total",
		Help: "HTTP requests served, by method, route pattern (\"unmatched\" when no route matched) and status.",
	}, []string{"method", "route", "status"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "peppolgate_http_request_duration_seconds",
		Help:    "Time to serve an HTTP request, by method and route pattern; for event streams (/ask with text/event-stream, GET /mcp) the stream's lifetime.",
		Buckets: durationBuckets(),
	}, []string{"method", "route"})
	m.streams = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "peppolgate_http_event_streams_in_flight",
		Help: "Server-sent event streams open now, by route pattern (/ask answers, MCP streams).",
	}, []string{"route"})
	m.rateLimited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "peppolgate_http_rate_limited_total",
		Help: "Requests refused with 429 rate_limited, by limit class (rest, ask, mcp).",
	}, []string{"class"})
	m.upstream = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "peppolgate_upstream_requests_total",
		Help: "Calls to the Peppol network, by kind (sml, smp, directory) and outcome (ok, error, timeout, rejected, ratelimit).",
	}, []string{"kind", "outcome"})
	m.upstreamDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "peppolgate_upstream_request_duration_seconds",
		Help:    "Duration of calls to the Peppol network, by kind and outcome.",
		Buckets: durationBuckets(),
	}, []string{"kind", "outcome"})
	m.cache = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "peppolgate_cache_requests_total",
		Help: "Answer cache decisions, by kind (lookup, search) and result (hit, miss, stale).",
	}, []string{"kind", "result"})
	m.build = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "peppolgate_build_info",
		Help: "Always 1; the version label names the running build.",
	}, []string{"version"})
	m.reg.MustRegister(m.requests, m.duration, m.streams, m.rateLimited, m.upstream, m.upstreamDur, m.cache, m.build,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for i := range m.statuses {
		m.statuses[i] = strconv.Itoa(i)
	}
	// Series that exist from the start read 0 instead of being absent, so a rate()
	// over them works before the first event.
	for _, class := range []string{classREST, classAsk, classMCP, classDocs} {
		m.rateLimited.WithLabelValues(class)
	}
	for _, kind := range []string{registry.UpstreamSML, registry.UpstreamSMP, registry.UpstreamDirectory, registry.UpstreamMirror} {
		for _, outcome := range []string{registry.OutcomeOK, registry.OutcomeError, registry.OutcomeTimeout, registry.OutcomeRejected, registry.OutcomeLimited, registry.OutcomeCanceled} {
			m.upstream.WithLabelValues(kind, outcome)
		}
	}
	for _, kind := range []string{registry.CacheLookup, registry.CacheSearch, registry.CacheServices} {
		for _, result := range []string{registry.CacheHit, registry.CacheMiss, registry.CacheStale} {
			m.cache.WithLabelValues(kind, result)
		}
	}
	return m
}

// Upstream counts one call to the Peppol network or the Directory mirror (registry.Observer). A kind or
// outcome the registry does not define is counted as "other".
func (m *Metrics) Upstream(kind, outcome string, d time.Duration) {
	switch kind {
	case registry.UpstreamSML, registry.UpstreamSMP, registry.UpstreamDirectory, registry.UpstreamMirror:
	default:
		kind = otherLabel
	}
	switch outcome {
	case registry.OutcomeOK, registry.OutcomeError, registry.OutcomeTimeout, registry.OutcomeRejected, registry.OutcomeLimited, registry.OutcomeCanceled:
	default:
		outcome = otherLabel
	}
	m.upstream.WithLabelValues(kind, outcome).Inc()
	m.upstreamDur.WithLabelValues(kind, outcome).Observe(d.Seconds())
}

// Cache counts one cache decision (registry.Observer). A kind or result the registry
// does not define is counted as "other".
func (m *Metrics) Cache(kind, result string) {
	switch kind {
	case registry.CacheLookup, registry.CacheSearch, registry.CacheServices:
	default:
		kind = otherLabel
	}
	switch result {
	case registry.CacheHit, registry.CacheMiss, registry.CacheStale:
	default:
		result = otherLabel
	}
	m.cache.WithLabelValues(kind, result).Inc()
}

// Metrics is a registry.Observer.
var _ registry.Observer = (*Metrics)(nil)

// request records one served request.
func (m *Metrics) request(method, route string, status int, d time.Duration) {
	method = methodLabel(method)
	m.requests.WithLabelValues(method, route, m.status(status)).Inc()
	m.duration.WithLabelValues(method, route).Observe(d.Seconds())
}

func (m *Metrics) status(code int) string {
	if code < 0 || code >= len(m.statuses) {
		return otherLabel
	}
	return m.statuses[code]
}

// methodLabel keeps the method label to the methods HTTP defines; anything a client
// makes up is "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return otherLabel
}

// handler serves the metrics in the Prometheus text format (version 0.0.4), whatever
// the client's Accept header asks for: scrapers read it, and one format keeps the
// documented answer exact. A collector that fails is logged by the caller's logger
// and the rest is still served.
func (m *Metrics) handler(errorLog promhttp.Logger) http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:        errorLog,
		ErrorHandling:   promhttp.ContinueOnError,
		AcceptedFormats: []expfmt.Format{expfmt.NewFormat(expfmt.TypeTextPlain)},
	})
}

// watchFleet adds the shared Redis's health to the metrics: whether it is up, and
// counts of failed operations, operations not tried while it was down (each one
// answered from this replica's own state) and times it went down. A second call for
// the same Metrics adds nothing.
func (m *Metrics) watchFleet(f *fleet.Fleet) {
	if f == nil {
		return
	}
	up := func() float64 {
		if f.Up() {
			return 1
		}
		return 0
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "peppolgate_redis_up",
			Help: "1 while the shared Redis answers; 0 while this replica serves from its own state because Redis is down, slow or full."}, up),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "peppolgate_redis_errors_total",
			Help: "Redis operations that failed (slower than -redis-timeout, refused, out of memory, ...); most mark Redis down until it answers a probe."},
			func() float64 { return float64(f.Status().Errors) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "peppolgate_redis_fallbacks_total",
			Help: "Redis operations not tried because Redis was down: each was answered from this replica's own state."},
			func() float64 { return float64(f.Status().Skipped) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "peppolgate_redis_downs_total",
			Help: "Times the shared Redis was found down."},
			func() float64 { return float64(f.Status().Downs) }),
	} {
		if err := m.reg.Register(c); err != nil {
			var dup prometheus.AlreadyRegisteredError
			if !errors.As(err, &dup) {
				panic(err) // a programming error: a name or help text prometheus refuses
			}
		}
	}
}
