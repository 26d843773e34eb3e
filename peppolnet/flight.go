package peppolnet

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/registry"
)

// errAllLeft is the cause of a fetch's cancellation when every caller waiting for it
// has gone. A fetch that ends so must not cache what it got: parts of it were cut
// short for nobody's sake, and the answer would be wrong for the next caller.
var errAllLeft = errors.New("every caller waiting for this fetch has gone")

// abandoned reports whether the fetch of fctx was cancelled because every caller left.
func abandoned(fctx context.Context) bool {
	return errors.Is(context.Cause(fctx), errAllLeft)
}

// flights coalesces identical concurrent upstream fetches, like singleflight, and
// also cancels a fetch once every caller waiting for it has gone: a client that
// disconnects stops the upstream work it alone asked for, while a fetch that other
// callers still wait for goes on. A fetch runs detached from the first caller's
// cancellation, bounded by its own budget of time (budget.go).
type flights[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
	// tracer, when tracing is on, gives a caller that joins a fetch in flight a
	// "coalesced wait" span linked to the first caller's span, under which the
	// fetch's work is.
	tracer trace.Tracer
}

// busy reports whether a fetch of key is in flight: a caller that would join it need
// not read the shared cache first (the fetch does: sharedflight.go).
func (g *flights[T]) busy(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.m[key]
	return ok
}

type flight[T any] struct {
	done    chan struct{}
	val     T
	waiters int
	cancel  context.CancelCauseFunc
	budget  *budget
	leader  trace.SpanContext // the first caller's span, if any
}

// do returns the result of fn for key, running fn once for all concurrent callers
// with the same key. fn gets a context that ends after timeout of work (time spent
// waiting for turns, an SMP host's slot or the Directory's budget, is not counted but
// bounded apart: see budget) or when every caller has left (then abandoned(ctx) is
// true, and fn must not cache its result). The fetch runs at the first caller's
// priority (registry.IsBulk) until an interactive caller joins it, which raises it.
// When ctx ends first, do returns ctx.Err() and the zero T; the fetch goes on as long
// as another caller waits.
func (g *flights[T]) do(ctx context.Context, key string, timeout time.Duration, fn func(ctx context.Context) T) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string]*flight[T]{}
	}
	f, ok := g.m[key]
	if !ok {
		cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
		fctx, cancelTimeout := newBudget(cctx, timeout)
		f = &flight[T]{done: make(chan struct{}), cancel: cancel, budget: fctx}
		if g.tracer != nil {
			f.leader = trace.SpanContextFromContext(ctx)
		}
		g.m[key] = f
		go func() {
			defer cancel(nil)
			defer cancelTimeout()
			v := fn(fctx)
			g.mu.Lock()
			f.val = v
			if g.m[key] == f {
				delete(g.m, key)
			}
			g.mu.Unlock()
			close(f.done)
		}()
	}
	f.waiters++
	leader := f.leader
	g.mu.Unlock()
	if ok && leader.IsValid() && trace.SpanContextFromContext(ctx).IsValid() && !telemetry.Untraced(ctx) {
		// The work is in the first caller's trace: this one's shows the wait, linked.
		var span trace.Span
		ctx, span = g.tracer.Start(ctx, "coalesced wait", trace.WithLinks(trace.Link{SpanContext: leader}))
		defer span.End()
	}
	if !registry.IsBulk(ctx) {
		// An interactive caller does not wait behind bulk requests for a fetch a
		// bulk check started: the fetch is raised to its priority.
		f.budget.raise()
	}

	select {
	case <-f.done:
		g.mu.Lock()
		f.waiters--
		g.mu.Unlock()
		return f.val, nil
	case <-ctx.Done():
		g.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			// Nobody wants the answer any more: stop the upstream work, and let the
			// next caller start afresh rather than join a cancelled fetch.
			f.cancel(errAllLeft)
			f.budget.end(context.Canceled) // at once, not when its watch of cctx runs
			if g.m[key] == f {
				delete(g.m, key)
			}
		}
		g.mu.Unlock()
		var zero T
		return zero, ctx.Err()
	}
}
