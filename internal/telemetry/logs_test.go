package telemetry

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type ctxKey struct{}

func fromKey(ctx context.Context) []slog.Attr {
	if v, ok := ctx.Value(ctxKey{}).(string); ok {
		return []slog.Attr{slog.String("request_id", v)}
	}
	return nil
}

// TestWithContextAttrs: one handler adds every context value to a record, in one
// layer however often it is wrapped, and never a key the record names itself.
func TestWithContextAttrs(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	base := slog.NewTextHandler(&buf, nil)
	h := WithTraceIDs(WithContextAttrs(base, fromKey))
	if c, ok := h.(contextHandler); !ok || c.next != base || len(c.attrs) != 2 {
		t.Fatalf("wrapping twice made %#v, want one layer over the text handler with both sources", h)
	}
	log := slog.New(h)
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.WithValue(context.Background(), ctxKey{}, "r-1"), "r")
	sc := span.SpanContext()
	log.InfoContext(ctx, "both")
	log.InfoContext(ctx, "own ids", "request_id", "mine", "trace_id", "theirs")
	log.With("a", 1).WithGroup("g").InfoContext(ctx, "grouped", "b", 2)
	log.Info("none")
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []struct{ has, hasNot []string }{
		{has: []string{"request_id=r-1", "trace_id=" + sc.TraceID().String(), "span_id=" + sc.SpanID().String()}},
		{has: []string{"request_id=mine", "trace_id=theirs", "span_id="}, hasNot: []string{"r-1", sc.TraceID().String()}},
		{has: []string{"a=1", "g.b=2", "g.request_id=r-1", "g.trace_id="}},
		{hasNot: []string{"request_id", "trace_id", "span_id"}},
	}
	if len(lines) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", buf.String(), len(want))
	}
	for i, w := range want {
		for _, s := range w.has {
			if !strings.Contains(lines[i], s) {
				t.Errorf("line %d %q lacks %q", i, lines[i], s)
			}
		}
		for _, s := range w.hasNot {
			if strings.Contains(lines[i], s) {
				t.Errorf("line %d %q has %q", i, lines[i], s)
			}
		}
	}
}
