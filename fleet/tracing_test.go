package fleet_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
)

// TestDoSpans checks that with a tracer provider every operation Do sends to a real
// Redis is a span "redis <op>" under the caller's, a miss (redis.Nil) is no failure, and
// a command Redis refuses is recorded with status Error; without a span in the caller's
// context there is none.
func TestDoSpans(t *testing.T) {
	srv := redistest.Start(t)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), OpTimeout: 2 * time.Second, TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Outside any trace (a background release, a session check): no span, so that
	// Redis work never starts root traces of its own.
	if err := f.Do(context.Background(), "orphan", func(ctx context.Context, c *redis.Client) error {
		return c.Get(ctx, f.Key("c", "missing")).Err()
	}); !errors.Is(err, redis.Nil) {
		t.Fatalf("read of a missing key: %v, want redis.Nil", err)
	}
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	if err := f.Do(ctx, "cache read", func(ctx context.Context, c *redis.Client) error {
		return c.Get(ctx, f.Key("c", "missing")).Err()
	}); !errors.Is(err, redis.Nil) {
		t.Fatalf("read of a missing key: %v, want redis.Nil", err)
	}
	if err := f.Do(ctx, "bad command", func(ctx context.Context, c *redis.Client) error {
		return c.Do(ctx, "NOSUCHCOMMAND").Err()
	}); err == nil {
		t.Fatal("an unknown command succeeded")
	}
	parent.End()
	want := []struct {
		name string
		err  bool
	}{{"redis cache read", false}, {"redis bad command", true}}
	var got []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() != "request" {
			got = append(got, s)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d Redis spans, want %d", len(got), len(want))
	}
	for i, w := range want {
		s := got[i]
		if s.Name() != w.name || s.Parent().SpanID() != parent.SpanContext().SpanID() || (s.Status().Code == codes.Error) != w.err {
			t.Errorf("span %d: %s under %s, status %v; want %s under the request, error %v", i, s.Name(), s.Parent().SpanID(), s.Status(), w.name, w.err)
		}
	}
}
