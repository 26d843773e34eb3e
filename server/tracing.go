package server

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// The server span of a request is made here rather than by otelhttp's handler: the
// edge already knows the request id, the client (after -trust-proxy) and, through
// the recorder, the status and the chi route template, so the span needs no wrapper
// of its own around the response writer; and with tracing off the edge skips it on
// one nil check, with no allocation at all on the cached path (BenchmarkCachedParticipant,
// BENCHMARKS.md "Issue 28: traces"), which otelhttp's handler does not promise.

// untraced are the paths that make no span: probes and scrapes come every few
// seconds from the kubelet, the load balancer and Prometheus, say nothing about a
// lookup, and would fill a trace store (and a ratio sampler's share) with noise.
func untraced(path string) bool {
	return path == "/healthz" || path == "/readyz" || path == metricsPath
}

// startSpan starts the server span of r under the trace its W3C traceparent (and
// tracestate) names, if any, so that a caller's trace continues in ours; a malformed
// one is ignored. Its name is the method (methodLabel: "other" for one HTTP does not
// define) until route or routePage names the route template.
func (s *Server) startSpan(ctx context.Context, r *http.Request) (context.Context, trace.Span) {
	ctx = propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(r.Header))
	method := methodLabel(r.Method)
	ctx, span := s.tracer.Start(ctx, method, s.serverSpan...)
	// The attributes only for a span that is recorded: with a 1 % sampler, 99 % of the
	// requests do not pay for them (no sampler of OTEL_TRACES_SAMPLER reads them).
	// No client address: the project never keeps a client's IP raw (docs/ARCHITECTURE.md
	// §7, keys), and a trace store goes wherever the operator sends it.
	if span.IsRecording() {
		if method == r.Method {
			span.SetAttributes(attribute.String("http.request.method", method), attribute.String("url.scheme", scheme(r)))
		} else {
			// A method HTTP does not define: "_OTHER" as the semantic conventions say,
			// and the client's own only as an attribute, never in the span's name.
			span.SetAttributes(attribute.String("http.request.method", "_OTHER"),
				attribute.String("http.request.method_original", r.Method), attribute.String("url.scheme", scheme(r)))
		}
	}
	return ctx, span
}

// nameSpan names the request's span after the route template the router matched
// ("GET /api/v1/participant/{participantId}"), never the raw path: ids stay out of span names.
func nameSpan(r *http.Request, pattern string) {
	span := trace.SpanFromContext(r.Context())
	if !span.IsRecording() {
		return
	}
	span.SetName(methodLabel(r.Method) + " " + pattern)
	span.SetAttributes(attribute.String("http.route", pattern))
}

// endSpan records the status on span (0: nothing written, 200) and ends it; a 5xx is
// an error of ours.
func endSpan(span trace.Span, status int, requestID string) {
	if !span.IsRecording() {
		span.End()
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	span.SetAttributes(attribute.Int("http.response.status_code", status), attribute.String("peppolgate.request_id", requestID))
	if status >= 500 {
		span.SetStatus(codes.Error, "HTTP "+strconv.Itoa(status))
	}
	span.End()
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// tracerOf is the server's tracer for tp, nil when tracing is off.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	if !telemetry.On(tp) {
		return nil
	}
	return tp.Tracer("github.com/peppolgate/peppolgate/server")
}
