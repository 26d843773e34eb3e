package registry

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errLimiterBusy is returned by limiter.wait when too many callers already wait, or
// when the caller's deadline comes before its turn would.
var errLimiterBusy = errors.New("registry: directory request queue is full")

// limiter is a token bucket shared by every Directory call, so that lookups and
// searches together stay under the Directory's per-IP rate limit. Callers queue in
// order of arrival by reserving future tokens; at most maxWaiters wait at once, so a
// burst of traffic is refused quickly instead of piling up goroutines and deadlines.
type limiter struct {
	now        func() time.Time
	rate       float64 // tokens per second
	burst      float64
	maxWaiters int

	mu      sync.Mutex
	tokens  float64 // may be negative: tokens promised to waiters
	last    time.Time
	waiters int
}

func newLimiter(rate float64, burst, maxWaiters int, now func() time.Time) *limiter {
	return &limiter{now: now, rate: rate, burst: float64(burst), maxWaiters: maxWaiters, tokens: float64(burst), last: now()}
}

// reserve takes one token, possibly in the future, and returns how long the caller
// must wait before using it. It returns errLimiterBusy without taking a token when
// maxWaiters callers already wait or the wait would outlast deadline (zero: none).
func (l *limiter) reserve(deadline time.Time) (time.Duration, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if el := now.Sub(l.last); el > 0 {
		l.tokens += el.Seconds() * l.rate
		if l.tokens > l.burst {
			l.tokens = l.burst
		}
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return 0, nil
	}
	if l.waiters >= l.maxWaiters {
		return 0, errLimiterBusy
	}
	wait := time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
	if !deadline.IsZero() && now.Add(wait).After(deadline) {
		return 0, errLimiterBusy
	}
	l.tokens--
	l.waiters++
	return wait, nil
}

// done ends a wait that reserve granted. A caller that gave up before its turn
// (cancelled) hands its token back so that those behind it are not delayed for nothing.
func (l *limiter) done(cancelled bool) {
	l.mu.Lock()
	l.waiters--
	if cancelled {
		l.tokens++
	}
	l.mu.Unlock()
}

// wait blocks until the caller may send one request. It returns errLimiterBusy when
// the queue is full or ctx's deadline comes first, and ctx.Err() when ctx ends while
// waiting.
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	d, err := l.reserve(deadline)
	if err != nil || d == 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		l.done(false)
		return nil
	case <-ctx.Done():
		l.done(true)
		return ctx.Err()
	}
}
