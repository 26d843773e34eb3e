package telemetry

import (
	"context"
	"sync/atomic"
)

// quietKey is the context key of WithoutSpans.
type quietKey struct{}

// quiet counts the upstream calls made under WithoutSpans.
type quiet struct{ calls atomic.Int64 }

// WithoutSpans returns ctx under which the packages start no span (Untraced), for work
// too large to trace call by call: a bulk check of up to 10,000 rows would be a trace
// of hundreds of thousands of spans, more than an exporter's queue holds. calls reports
// the upstream calls made under it (CountCall), for an attribute of the span that
// holds the work.
func WithoutSpans(ctx context.Context) (_ context.Context, calls func() int64) {
	q := &quiet{}
	return context.WithValue(ctx, quietKey{}, q), q.calls.Load
}

// Untraced reports whether ctx is under WithoutSpans.
func Untraced(ctx context.Context) bool {
	_, ok := ctx.Value(quietKey{}).(*quiet)
	return ok
}

// CountCall counts one upstream call (an HTTP request, a DNS query, a mirror query)
// made under WithoutSpans in ctx, and reports whether ctx is under it (Untraced).
func CountCall(ctx context.Context) bool {
	q, ok := ctx.Value(quietKey{}).(*quiet)
	if ok {
		q.calls.Add(1)
	}
	return ok
}
