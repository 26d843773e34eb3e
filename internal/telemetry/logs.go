package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// WithTraceIDs wraps h so that a record logged with the context of a traced request
// carries its trace_id and span_id (hex, as the tracing backends show them): an
// operator goes from a log line to the request's trace and back. Records without a
// span in their context pass unchanged.
func WithTraceIDs(h slog.Handler) slog.Handler { return traceIDHandler{h} }

type traceIDHandler struct{ next slog.Handler }

func (h traceIDHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h traceIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.next.Handle(ctx, r)
}

func (h traceIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceIDHandler{h.next.WithAttrs(as)}
}

func (h traceIDHandler) WithGroup(name string) slog.Handler {
	return traceIDHandler{h.next.WithGroup(name)}
}
