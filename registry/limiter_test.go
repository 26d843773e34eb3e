package registry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestLimiterReserve(t *testing.T) {
	clock := &fakeClock{t: testNow}
	l := newLimiter(2, 2, 2, clock.Now)
	steps := []struct {
		advance time.Duration
		want    time.Duration
		wantErr error
	}{
		{0, 0, nil},                                 // burst
		{0, 0, nil},                                 // burst
		{0, 500 * time.Millisecond, nil},            // first waiter
		{0, time.Second, nil},                       // second waiter
		{0, 0, errLimiterBusy},                      // queue full
		{250 * time.Millisecond, 0, errLimiterBusy}, // still full
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		got, err := l.reserve(time.Time{})
		if got != s.want || !errors.Is(err, s.wantErr) {
			t.Fatalf("step %d: reserve = %v, %v; want %v, %v", i, got, err, s.want, s.wantErr)
		}
	}
	l.done(false)
	l.done(false)
	// 250ms have refilled half a token of the two owed; the next is due 1.25s after that.
	if got, err := l.reserve(time.Time{}); err != nil || got != 1250*time.Millisecond {
		t.Fatalf("after waiters left: %v, %v", got, err)
	}
	l.done(false)
	// A deadline before the turn is refused without taking a token.
	if _, err := l.reserve(clock.Now().Add(time.Second)); !errors.Is(err, errLimiterBusy) {
		t.Fatalf("deadline too early: %v", err)
	}
	clock.Advance(10 * time.Second) // refill caps at the burst
	for i := range 2 {
		if got, err := l.reserve(time.Time{}); got != 0 || err != nil {
			t.Fatalf("refilled token %d: %v, %v", i, got, err)
		}
	}
	if got, _ := l.reserve(time.Time{}); got != 500*time.Millisecond {
		t.Fatalf("burst not capped: wait %v", got)
	}
}

func TestLimiterWait(t *testing.T) {
	l := newLimiter(1000, 1, 1, time.Now)
	ctx := context.Background()
	if err := l.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.wait(ctx); err != nil { // waits about 1ms
		t.Fatal(err)
	}

	slow := newLimiter(0.001, 1, 1, time.Now)
	if err := slow.wait(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- slow.wait(cctx) }()
	// Wait until the goroutine is queued, then a second waiter is refused.
	for {
		slow.mu.Lock()
		w := slow.waiters
		slow.mu.Unlock()
		if w == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := slow.wait(ctx); !errors.Is(err, errLimiterBusy) {
		t.Errorf("second waiter: %v, want busy", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter: %v", err)
	}
	slow.mu.Lock()
	tokens, waiters := slow.tokens, slow.waiters
	slow.mu.Unlock()
	if waiters != 0 || tokens < -0.01 {
		t.Errorf("after cancel: waiters %d tokens %.3f; want the token handed back", waiters, tokens)
	}
	cctx, cancel = context.WithCancel(ctx)
	cancel()
	if err := slow.wait(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("done ctx: %v", err)
	}
}

func TestCacheEviction(t *testing.T) {
	c := newCache[int](2)
	c.put("a", cacheEntry[int]{val: 1})
	c.put("b", cacheEntry[int]{val: 2})
	c.get("a")
	c.put("c", cacheEntry[int]{val: 3})
	if _, ok := c.get("b"); ok {
		t.Error("least recently used entry b survived")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if e, ok := c.get(k); !ok || e.val != want {
			t.Errorf("get(%s) = %v, %v", k, e.val, ok)
		}
	}
	c.put("a", cacheEntry[int]{val: 10})
	if e, _ := c.get("a"); e.val != 10 || c.len() != 2 {
		t.Errorf("overwrite: %v, len %d", e.val, c.len())
	}
}
