package telemetry

import (
	"context"
	"log/slog"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exportWarnEvery bounds how often a failing collector is logged: once a minute, like
// the fleet's Redis trouble, since a collector that is down fails every batch.
const exportWarnEvery = time.Minute

// loggedExporter is the OTLP exporter whose failures are warnings in our log. The SDK
// would report them only to otel's process-wide error handler (an unstructured line
// on stderr), which peppolgate does not set: it would be package state, the last
// server to start winning.
type loggedExporter struct {
	sdktrace.SpanExporter
	log *slog.Logger

	mu     sync.Mutex
	last   time.Time // of the last warning
	missed int       // failures not logged since
}

// ExportSpans exports spans and logs a failure, at most once a minute with the number
// of failures since the last warning. It returns nil after a logged failure: the batch
// processor's only use of the error is otel's global error handler, which would print
// it a second time; the spans are dropped either way.
func (e *loggedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	if err == nil {
		return nil
	}
	now := time.Now()
	e.mu.Lock()
	due := e.last.IsZero() || now.Sub(e.last) >= exportWarnEvery
	missed := e.missed
	if due {
		e.last, e.missed = now, 0
	} else {
		e.missed++
	}
	e.mu.Unlock()
	if due {
		e.log.Warn("trace export failed: check OTEL_EXPORTER_OTLP_ENDPOINT and the collector; the spans are dropped",
			"err", err, "spans", len(spans), "failures_not_logged", missed)
	}
	return nil
}
