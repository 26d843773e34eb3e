package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/registry"
)

type ctxKey int

const requestIDKey ctxKey = 0

// RequestID returns the request id the server gave the request in ctx, or "" when ctx
// is not a request's context.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// maxRequestIDLength bounds an incoming X-Request-Id that is reused.
const maxRequestIDLength = 64

// fixedHeaders are set on every answer. Security (the OWASP REST set): no MIME
// sniffing, and a CSP that lets a browser run nothing from the answer nor frame it
// (frame-ancestors supersedes X-Frame-Options; a JSON answer sends no referrer worth a
// Referrer-Policy, and every header costs on every request). CORS: any origin
// may read the answers, because the API is public, read-only and needs no credentials.
// The values are assigned to each response's header map as they are (never appended
// to), which is much cheaper than one Header.Set per header on every request.
func fixedHeaders() []headerValue {
	return []headerValue{
		{"X-Content-Type-Options", []string{"nosniff"}},
		{"Content-Security-Policy", []string{"default-src 'none'; frame-ancestors 'none'"}},
		{"Access-Control-Allow-Origin", []string{"*"}},
		{"Access-Control-Expose-Headers", []string{"X-Request-Id, X-Cache, Age, Retry-After, RateLimit, RateLimit-Policy"}},
	}
}

// headerValue is one canonical header key with its value.
type headerValue struct {
	key   string
	value []string
}

// edge is the outermost handler. It gives every request an id (sent back as
// X-Request-Id and put in every log line), sets the fixed headers, turns a panic into
// a 500, counts the request in the metrics (by the route pattern the router matched,
// never the raw path) and writes one access-log line after the request is served:
// every answer, even a panic's, carries the id and the headers and is logged. A
// proxy's incoming id is kept when it is short and made of safe characters, so one
// id follows a request through the chain; anything else is replaced, because it is
// echoed into headers and logs. Scrapes of /metrics are logged at debug level only,
// so that a scraper every few seconds does not fill the log, and so are the successful
// requests Config.RequestLog leaves out (-log-requests errors or sample:N).
func (s *Server) edge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = s.ids.next()
		}
		h := w.Header()
		for _, hv := range s.fixed {
			h[hv.key] = hv.value
		}
		h["X-Request-Id"] = []string{id}
		// The client rides along so that the registry shares the Directory's budget
		// fairly between clients (registry.WithClient).
		ctx := registry.WithClient(context.WithValue(r.Context(), requestIDKey, id), clientKey(r, s.trustedProxies))
		rec := &recorder{ResponseWriter: w, metrics: s.metrics}
		// The server span (tracing.go); none with tracing off, nor for probes.
		if s.tracer != nil && !untraced(r.URL.Path) {
			var span trace.Span
			ctx, span = s.startSpan(ctx, r)
			defer func() { endSpan(span, rec.status, id) }()
		}
		r = r.WithContext(ctx)
		// Deferred, so that a stream aborted by a panic is no longer counted open.
		defer rec.endStream()
		s.serveRecovering(rec, r, next)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		route := rec.route
		if route == "" {
			route = unmatchedRoute
		}
		elapsed := time.Since(start)
		s.metrics.request(r.Method, route, status, elapsed)
		level := slog.LevelInfo
		switch {
		case status >= 500:
			level = slog.LevelWarn
		case route == metricsPath:
			level = slog.LevelDebug
		case status < 400 && !s.successes.logged():
			level = slog.LevelDebug
		}
		if !s.log.Enabled(r.Context(), level) {
			return
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("request_id", id),
			slog.String("cache", h.Get("X-Cache")),
		)
	})
}

// route is the handler of one route pattern: it names the pattern for the metrics
// and the access log, and charges the request to its client's bucket of l (nil: no
// limit). CORS preflights are never charged: a browser sends them on its own, and a
// refused one would only show up as an opaque CORS failure.
func (s *Server) route(pattern string, l *limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec := findRecorder(w); rec != nil {
			rec.route = pattern
		}
		if s.tracer != nil {
			nameSpan(r, pattern)
		}
		if l != nil && r.Method != http.MethodOptions && !s.admit(w, r, l) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// findRecorder finds the edge's recorder under w, through any writers wrapped
// around it on the way.
func findRecorder(w http.ResponseWriter) *recorder {
	for range 8 {
		switch v := w.(type) {
		case *recorder:
			return v
		case interface{ Unwrap() http.ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// idSource makes request ids: a random prefix per process start and a counter, unique
// and cheap (no random read per request). Ids need not be secret, only distinct.
type idSource struct {
	prefix string
	n      atomic.Uint64
}

func newIDSource() *idSource {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return &idSource{prefix: hex.EncodeToString(b[:]) + "-"}
}

func (s *idSource) next() string {
	return s.prefix + strconv.FormatUint(s.n.Add(1), 36)
}

// Methods a preflight names: of a read endpoint, and of a POST one (/ask,
// /api/v1/check).
const (
	readMethods = "GET, HEAD, OPTIONS"
	postMethods = "POST, OPTIONS"
)

// preflight answers a CORS preflight for an endpoint that takes methods (readMethods
// or postMethods).
func preflight(methods string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Allow", methods)
		h.Set("Access-Control-Allow-Methods", methods)
		h.Set("Access-Control-Allow-Headers", "Accept, Content-Type, X-Request-Id")
		h.Set("Access-Control-Max-Age", "86400")
		h.Set("Cache-Control", "public, max-age=86400")
		w.WriteHeader(http.StatusNoContent)
	}
}

// serveRecovering serves r with next and turns a panic into a 500 internal_error (when
// nothing was written yet) and a log line with the stack, so one bad request cannot
// take the process down or leak a stack trace to the client. http.ErrAbortHandler is
// re-raised: it is net/http's way to abort a response on purpose.
func (s *Server) serveRecovering(rec *recorder, r *http.Request, next http.Handler) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
			panic(v)
		}
		s.log.LogAttrs(r.Context(), slog.LevelError, "panic",
			slog.String("request_id", RequestID(r.Context())),
			slog.String("panic", fmt.Sprint(v)),
			slog.String("stack", string(debug.Stack())))
		if rec.status != 0 {
			// Headers are out; the client sees a truncated answer. Abort the
			// connection so it cannot mistake it for a whole one.
			panic(http.ErrAbortHandler)
		}
		h := rec.Header()
		for _, k := range []string{"Age", "X-Cache", "Retry-After", "Allow"} {
			h.Del(k)
		}
		s.writeError(rec, r, errors.New("panic"))
	}()
	next.ServeHTTP(rec, r)
}

// recorder remembers the status and body size for the access log and whether the
// headers are out for panic recovery. It also holds the route pattern the router
// matched, and counts an event stream as open from its first byte to the end.
type recorder struct {
	http.ResponseWriter
	status  int
	bytes   int64
	route   string
	metrics *Metrics
	// stream is the open-streams gauge this answer incremented, if it is a stream.
	stream interface{ Dec() }
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.start(code)
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.start(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush sends what was written so far to the client. Streaming answers (MCP's event
// streams) need it, and mcp-go looks for http.Flusher rather than using
// http.ResponseController.
func (r *recorder) Flush() {
	if r.status == 0 {
		r.start(http.StatusOK)
	}
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// start records the status as the headers go out, and counts an event stream open.
func (r *recorder) start(code int) {
	r.status = code
	if r.metrics == nil || code != http.StatusOK {
		return
	}
	if ct := r.Header()["Content-Type"]; len(ct) > 0 && strings.HasPrefix(ct[0], "text/event-stream") {
		route := r.route
		if route == "" {
			route = unmatchedRoute
		}
		g := r.metrics.streams.WithLabelValues(route)
		g.Inc()
		r.stream = g
	}
}

// endStream counts the answer's stream, if it is one, closed.
func (r *recorder) endStream() {
	if r.stream != nil {
		r.stream.Dec()
		r.stream = nil
	}
}

// Unwrap lets http.ResponseController reach the underlying writer (Flush, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
