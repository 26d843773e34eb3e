package registry

import (
	"context"
	"sync"
	"time"
)

// flights coalesces identical concurrent upstream fetches, like singleflight, and
// also cancels a fetch once every caller waiting for it has gone: a client that
// disconnects stops the upstream work it alone asked for, while a fetch that other
// callers still wait for goes on. A fetch runs detached from the first caller's
// cancellation, bounded by its own timeout.
type flights[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
}

type flight[T any] struct {
	done    chan struct{}
	val     T
	waiters int
	cancel  context.CancelFunc
}

// do returns the result of fn for key, running fn once for all concurrent callers
// with the same key. fn gets a context that ends after timeout or when every caller
// has left. When ctx ends first, do returns ctx.Err() and the zero T; the fetch goes
// on as long as another caller waits.
func (g *flights[T]) do(ctx context.Context, key string, timeout time.Duration, fn func(ctx context.Context) T) (T, error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string]*flight[T]{}
	}
	f, ok := g.m[key]
	if !ok {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		f = &flight[T]{done: make(chan struct{}), cancel: cancel}
		g.m[key] = f
		go func() {
			defer cancel()
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
	g.mu.Unlock()

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
			f.cancel()
			if g.m[key] == f {
				delete(g.m, key)
			}
		}
		g.mu.Unlock()
		var zero T
		return zero, ctx.Err()
	}
}
