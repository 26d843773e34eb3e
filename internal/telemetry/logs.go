package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// ContextAttrs returns the attributes a context carries for the records logged with it
// (nil for none): a request's id, a span's trace ids.
type ContextAttrs func(ctx context.Context) []slog.Attr

// WithContextAttrs wraps h so that a record logged with a context carries the
// attributes each of attrs finds in it, unless the record names that key itself. This
// is the one handler that adds context values to log lines (request ids, trace ids):
// wrapping a handler it returned adds attrs to it rather than another layer.
func WithContextAttrs(h slog.Handler, attrs ...ContextAttrs) slog.Handler {
	if c, ok := h.(contextHandler); ok {
		return contextHandler{next: c.next, attrs: append(c.attrs[:len(c.attrs):len(c.attrs)], attrs...)}
	}
	return contextHandler{next: h, attrs: attrs}
}

// WithTraceIDs wraps h (WithContextAttrs) so that a record logged with the context of
// a traced request carries its trace_id and span_id (hex, as the tracing backends show
// them): an operator goes from a log line to the request's trace and back. Records
// without a span in their context pass unchanged.
func WithTraceIDs(h slog.Handler) slog.Handler { return WithContextAttrs(h, traceIDs) }

// traceIDs are the trace_id and span_id of the span in ctx, nil without one.
func traceIDs(ctx context.Context) []slog.Attr {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []slog.Attr{slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String())}
}

type contextHandler struct {
	next  slog.Handler
	attrs []ContextAttrs
}

func (h contextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	cloned := false
	for _, f := range h.attrs {
		for _, a := range f(ctx) {
			if named(r, a.Key) {
				continue
			}
			if !cloned {
				r, cloned = r.Clone(), true
			}
			r.AddAttrs(a)
		}
	}
	return h.next.Handle(ctx, r)
}

// named reports whether r has an attribute key of its own.
func named(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

func (h contextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return contextHandler{next: h.next.WithAttrs(as), attrs: h.attrs}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{next: h.next.WithGroup(name), attrs: h.attrs}
}
