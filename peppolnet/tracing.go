package peppolnet

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/miekg/dns"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/registry"
)

// The spans of the upstream work (docs/ARCHITECTURE.md §3). Only the cold path makes
// them: an answer from the cache starts none. The SMP, Directory and OCSP requests are
// the spans of their HTTP clients (telemetry.Client, wrapped in New); this file names
// the rest: the SML query, the mirror, the signature and chain checks and OCSP. Span
// names never hold a participant id; attributes may, as the log lines do.

// tracerFor is the registry's tracer for cfg, nil when tracing is off.
func tracerFor(cfg Config) trace.Tracer {
	if !telemetry.On(cfg.TracerProvider) {
		return nil
	}
	return cfg.TracerProvider.Tracer("github.com/peppolgate/peppolgate/peppolnet")
}

// traced reports whether the work under ctx makes spans: tracing is on and ctx is not
// under telemetry.WithoutSpans (a bulk check).
func (l *Registry) traced(ctx context.Context) bool {
	return l.tracer != nil && !telemetry.Untraced(ctx)
}

// startSpan starts a span named name under ctx's, or does nothing when tracing is
// off or ctx is untraced (traced): it returns ctx and the trace package's own
// non-recording span, which costs no allocation. Callers whose attributes cost
// something (an id's String) check traced first and build nothing.
func (l *Registry) startSpan(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !l.traced(ctx) {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return l.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endSpan records err on span when it is a failure, not an answer (not registered,
// 404: outcomeOf), with the kind of failure (timeout, DNS SERVFAIL, TLS, HTTP 503...),
// and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil && outcomeOf(err) != registry.OutcomeOK {
		telemetry.Fail(span, err, failureKind(err))
	}
	span.End()
}

// smpFailed and directoryFailed say which HTTP statuses of an SMP and of the Directory
// are failures on their spans, as outcomeOf counts them: an SMP's 404 (not registered)
// and the Directory's 400 (a query it cannot search) are answers.
func smpFailed(status int) bool       { return status >= 400 && status != http.StatusNotFound }
func directoryFailed(status int) bool { return status >= 400 && status != http.StatusBadRequest }

// smlSpanAttrs are the attributes of the SML query's span once it is answered: the DNS
// rcode and server, and the host of the SMP the NAPTR record names.
func smlSpanAttrs(res *sml.Result, err error) []attribute.KeyValue {
	if err == nil {
		return []attribute.KeyValue{attribute.String("dns.rcode", "NOERROR"), attribute.String("dns.server", res.Server),
			attribute.String("peppol.smp.host", hostOf(res.BaseURL))}
	}
	var se *sml.Error
	if !errors.As(err, &se) {
		return nil
	}
	rcode := "none"
	if se.Rcode != sml.NoRcode {
		rcode = dns.RcodeToString[se.Rcode]
	}
	return []attribute.KeyValue{attribute.String("dns.rcode", rcode), attribute.String("dns.server", se.Server), attribute.Int("dns.attempts", se.Attempts)}
}

// zoneAttr is the SML zone, without its trailing dot.
func (l *Registry) zoneAttr() attribute.KeyValue {
	return attribute.String("peppol.sml.zone", strings.TrimSuffix(l.cfg.Resolver.Zone(), "."))
}
