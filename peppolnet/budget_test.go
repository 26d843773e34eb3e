package peppolnet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// doneWithin waits for ctx to end, at most a minute.
func doneWithin(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the context never ended")
	}
}

// TestBudgetWaitNotCounted: a fetch's work clock stops while one of its requests waits
// for a turn, so a wait longer than the whole deadline leaves the deadline untouched;
// once the fetch works again its deadline comes, as context.DeadlineExceeded, which
// contexts made from it (a request's own timeout) report too.
func TestBudgetWaitNotCounted(t *testing.T) {
	t.Parallel()
	const work = time.Second
	b, cancel := newBudget(context.Background(), work)
	defer cancel()
	req, cancelReq := context.WithTimeout(b, time.Minute)
	defer cancelReq()
	turn := startWait(req)
	if _, ok := b.Deadline(); ok {
		t.Error("a budget reports a fixed deadline")
	}
	time.Sleep(2 * work)
	if err := b.Err(); err != nil {
		t.Fatalf("the deadline passed while the fetch only waited: %v", err)
	}
	turn.end()
	doneWithin(t, req)
	if !errors.Is(b.Err(), context.DeadlineExceeded) || !errors.Is(req.Err(), context.DeadlineExceeded) {
		t.Errorf("after the work time: budget %v, request %v; want both context.DeadlineExceeded", b.Err(), req.Err())
	}
	if abandoned(b) {
		t.Error("a fetch whose deadline passed counts as abandoned")
	}
}

// TestBudgetParentEnds: when every caller of a fetch has gone, its budget ends with the
// parent's cancellation and its cause (abandoned).
func TestBudgetParentEnds(t *testing.T) {
	t.Parallel()
	parent, leave := context.WithCancelCause(context.Background())
	b, cancel := newBudget(parent, time.Minute)
	defer cancel()
	leave(errAllLeft)
	doneWithin(t, b)
	if !errors.Is(b.Err(), context.Canceled) || !abandoned(b) {
		t.Errorf("budget %v, abandoned %v; want context.Canceled and abandoned", b.Err(), abandoned(b))
	}
}

// TestBudgetRaise: a bulk fetch may wait bulkWaitFactor times its deadline; raised
// (an interactive caller joined), it waits at most its deadline from then on, and its
// waits are interactive.
func TestBudgetRaise(t *testing.T) {
	t.Parallel()
	const work = time.Second
	b, cancel := newBudget(registry.WithBulk(context.Background()), work)
	defer cancel()
	turn := startWait(b)
	defer turn.end()
	if !turn.bulk || !bulkOf(b) {
		t.Fatal("a bulk fetch's wait is not bulk")
	}
	if d, _ := waitDeadline(b); !d.After(time.Now().Add(2 * work)) {
		t.Errorf("a bulk fetch may wait until %v, want about %v from now", d, bulkWaitFactor*work)
	}
	b.raise()
	select {
	case <-turn.raised:
	default:
		t.Fatal("raise did not tell the waiting request")
	}
	if d, _ := waitDeadline(b); d.After(time.Now().Add(work)) {
		t.Errorf("a raised fetch may wait until %v, more than its deadline from now", d)
	}
	again := startWait(b)
	again.end()
	if bulkOf(b) || again.bulk {
		t.Error("a raised fetch's requests are still bulk")
	}
	select {
	case <-turn.out:
	case <-time.After(time.Minute):
		t.Fatal("the raised fetch's allowance never ran out")
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestBudgetRaiseAfterAllowanceUsedUp: a bulk fetch that has waited as long as it may
// and is then raised (an interactive caller joined it) may wait again, an interactive
// fetch's allowance from then on: the caller who just joined is not refused for the
// rows' waiting. A wait refused before the raise learns it may go on.
func TestBudgetRaiseAfterAllowanceUsedUp(t *testing.T) {
	t.Parallel()
	const work = time.Minute
	b, cancel := newBudget(registry.WithBulk(context.Background()), work)
	defer cancel()
	b.mu.Lock()
	b.waitLeft = 0 // the rows have waited their allowance
	b.mu.Unlock()
	refused := startWait(b)
	defer refused.end()
	if !isClosed(refused.out) {
		t.Fatal("a wait past the allowance is not refused")
	}
	b.raise()
	if !refused.reopened() || isClosed(refused.out) {
		t.Error("the wait refused before the raise does not learn it may go on")
	}
	again := startWait(b)
	defer again.end()
	if isClosed(again.out) {
		t.Fatal("a raised fetch whose bulk allowance was used up may not wait")
	}
	if d, _ := waitDeadline(b); d.Before(time.Now().Add(work / 2)) {
		t.Errorf("a raised fetch may wait until %v, want about %v from now", d, work)
	}
}

// TestCutShort: a failed request that its fetch's deadline ended is the caller's
// deadline, not the upstream's failure, only while the upstream has not had a fair
// share of time on the wire: half the fetch's work time, at most fairWireTime. A
// request that had that long, however late in the fetch it was sent (after a slow DNS
// step), is the upstream's timeout, so a dead SMP cannot escape its breaker.
func TestCutShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		work   time.Duration
		onWire time.Duration
		want   bool
	}{
		{"sent late, cut after a moment on the wire", 10 * time.Second, 500 * time.Millisecond, true},
		{"sent late after a slow DNS step, 4 s on the wire", 10 * time.Second, 4 * time.Second, false},
		{"sent at once, cut at the deadline", 10 * time.Second, 10 * time.Second, false},
		{"short fetch, half its work time on the wire", 2 * time.Second, 1100 * time.Millisecond, false},
		{"short fetch, cut early", 2 * time.Second, 500 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, cancel := newBudget(context.Background(), tt.work)
			defer cancel()
			b.end(context.DeadlineExceeded)
			if got := cutShort(b, time.Now().Add(-tt.onWire)); got != tt.want {
				t.Errorf("cutShort after %v on the wire of a %v fetch = %v, want %v", tt.onWire, tt.work, got, tt.want)
			}
		})
	}
	t.Run("not the fetch's deadline", func(t *testing.T) {
		b, cancel := newBudget(context.Background(), time.Minute)
		defer cancel()
		if cutShort(b, time.Now()) {
			t.Error("a request of a fetch whose deadline has not come is cut short")
		}
	})
}
