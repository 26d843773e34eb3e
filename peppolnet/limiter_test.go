package peppolnet

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// TestLimiterRoundRobin: tokens go to the waiting clients in turn, not in order of
// arrival: a client that queued four calls before another client's one gets one token,
// then the other client, then the rest.
func TestLimiterRoundRobin(t *testing.T) {
	t.Parallel()
	l := newLimiter(1, 1, 16, time.Now)
	a, b, c := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("2001:db8::"), netip.Addr{}
	l.mu.Lock()
	defer l.mu.Unlock()
	var want []*ticket
	a1, a2, a3, a4 := l.enqueueAs(a, false), l.enqueueAs(a, false), l.enqueueAs(a, false), l.enqueueAs(a, false)
	b1 := l.enqueueAs(b, false)
	c1, c2 := l.enqueueAs(c, false), l.enqueueAs(c, false)
	want = append(want, a1, b1, c1, a2, c2, a3, a4)
	for i, w := range want {
		if got := l.pop(); got != w {
			t.Fatalf("pop %d: got another client's call (order %v)", i, want)
		}
	}
	if l.waiters != 0 || len(l.ring) != 0 || len(l.queues) != 0 {
		t.Errorf("after popping everything: %d waiters, ring %v, %d queues", l.waiters, l.ring, len(l.queues))
	}
	// A client that gives up leaves its turn to the others.
	a1, b1, a2 = l.enqueueAs(a, false), l.enqueueAs(b, false), l.enqueueAs(a, false)
	l.remove(b, b1)
	if l.pop() != a1 || l.pop() != a2 || l.waiters != 0 {
		t.Error("removing a waiter broke the turn order")
	}
}

// TestLimiterClientShare: one client holds at most its share of the queue; another
// client still gets a place, and the first client's excess calls are refused at once.
func TestLimiterClientShare(t *testing.T) {
	t.Parallel()
	l := newLimiter(0.001, 1, 8, time.Now) // one token, then none for a long time
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := l.wait(ctx); err != nil {
		t.Fatal(err)
	}
	flood := registry.WithClient(ctx, netip.MustParseAddr("192.0.2.1"))
	other := registry.WithClient(ctx, netip.MustParseAddr("192.0.2.2"))
	results := make(chan error, 16)
	for range perClientShare(8) {
		go func() { results <- l.wait(flood) }()
	}
	waitWaiters(t, l, perClientShare(8))
	for range 3 {
		if err := l.wait(flood); !errors.Is(err, errLimiterBusy) {
			t.Fatalf("a call beyond the client's share: %v, want busy", err)
		}
	}
	go func() { results <- l.wait(other) }()
	waitWaiters(t, l, perClientShare(8)+1)
	cancel()
	for range perClientShare(8) + 1 {
		if err := <-results; !errors.Is(err, context.Canceled) {
			t.Errorf("queued call: %v", err)
		}
	}
}

// waitWaiters polls until n callers wait in l.
func waitWaiters(t *testing.T, l *limiter, n int) {
	t.Helper()
	for range 5000 {
		l.mu.Lock()
		w := l.waiters
		l.mu.Unlock()
		if w == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("never %d waiters", n)
}

// TestLimiterDeadline: a caller whose deadline comes before its turn is refused at
// once, without a place in the queue.
func TestLimiterDeadline(t *testing.T) {
	t.Parallel()
	l := newLimiter(1, 1, 8, time.Now)
	if err := l.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := l.wait(ctx); !errors.Is(err, errLimiterBusy) {
		t.Errorf("wait with a deadline before the next token: %v, want busy", err)
	}
	if l.waiters != 0 {
		t.Errorf("%d waiters after a refusal", l.waiters)
	}
}

func TestLimiterWait(t *testing.T) {
	t.Parallel()
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
		t.Errorf("after cancel: waiters %d tokens %.3f", waiters, tokens)
	}
	cctx, cancel = context.WithCancel(ctx)
	cancel()
	if err := slow.wait(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("done ctx: %v", err)
	}
}

func TestCacheEviction(t *testing.T) {
	t.Parallel()
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

// TestDirectoryBudgetSharedFairly: one client sends more uncached searches than the
// Directory's budget can take; the excess is refused at once (search_failed with a
// Retry-After), and another client's search, sent afterwards, still gets its turn and
// is answered. Before, the flood filled the whole queue and the other client's search
// was refused.
func TestDirectoryBudgetSharedFairly(t *testing.T) {
	t.Parallel()
	n := startNet(t, 60)
	l, _ := newLive(t, n, func(c *Config) {
		c.DirectoryRate, c.DirectoryBurst, c.DirectoryQueue = 1, 1, 8
		c.SearchTimeout = 20 * time.Second
	})
	flood := registry.WithClient(t.Context(), netip.MustParseAddr("192.0.2.1"))
	other := registry.WithClient(t.Context(), netip.MustParseAddr("192.0.2.2"))
	const sent = 12
	results := make(chan error, sent)
	for i := range sent {
		go func() {
			_, _, err := l.Search(flood, registry.SearchQuery{Q: fmt.Sprintf("flood query %d", i)})
			results <- err
		}()
	}
	// Every flood search but the client's share of the queue ends at once: the one
	// the burst lets through, and the refused ones.
	refused := 0
	for range sent - perClientShare(8) {
		err := <-results
		if err == nil {
			continue
		}
		var re *registry.Error
		if registry.ErrorCode(err) != registry.CodeSearchFailed || !errors.As(err, &re) || re.RetryAfter <= 0 {
			t.Fatalf("a flood search beyond the client's share: %v, want search_failed with a Retry-After", err)
		}
		refused++
	}
	// A token comes every second: a flood this fast gets one or two through.
	if refused < sent-perClientShare(8)-2 {
		t.Errorf("only %d of %d flood searches refused", refused, sent)
	}
	waitWaiters(t, l.dirLimit, perClientShare(8))
	if _, _, err := l.Search(other, registry.SearchQuery{Q: "another client"}); err != nil {
		t.Fatalf("the other client's search: %v", err)
	}
	for range perClientShare(8) {
		if err := <-results; err != nil {
			t.Errorf("a flood search within the client's share: %v", err)
		}
	}
}

// TestLimiterBulkYields: a client's interactive callers are served before its bulk
// callers (a check's rows) queued earlier, a client whose bulk callers fill its share
// may still queue interactive ones, and bulk callers leave the queue's last places to
// interactive ones.
func TestLimiterBulkYields(t *testing.T) {
	t.Parallel()
	a := netip.MustParseAddr("192.0.2.1")
	l := newLimiter(1, 1, 16, time.Now)
	l.mu.Lock()
	b1, b2 := l.enqueueAs(a, true), l.enqueueAs(a, true)
	i1 := l.enqueueAs(a, false)
	b3 := l.enqueueAs(a, true)
	i2 := l.enqueueAs(a, false)
	for n, want := range []*ticket{i1, i2, b1, b2, b3} {
		if l.pop() != want {
			t.Fatalf("pop %d is not the caller expected (interactive first, then bulk, each in arrival order)", n)
		}
	}
	l.mu.Unlock()

	l = newLimiter(0.001, 1, 8, time.Now) // one token, then none for a long time
	ctx, cancel := context.WithCancel(registry.WithClient(context.Background(), a))
	defer cancel()
	if err := l.wait(ctx); err != nil {
		t.Fatal(err)
	}
	bulk := registry.WithBulk(ctx)
	share := perClientShare(8) // 2
	results := make(chan error, 8)
	for range share {
		go func() { results <- l.wait(bulk) }()
	}
	waitWaiters(t, l, share)
	if err := l.wait(bulk); !errors.Is(err, errLimiterBusy) {
		t.Fatalf("a bulk call beyond the client's share: %v, want busy", err)
	}
	go func() { results <- l.wait(ctx) }()
	waitWaiters(t, l, share+1)
	// Other clients' bulk calls fill the queue up to the places kept for interactive
	// callers (8 - 2 = 6 waiters); then bulk calls are refused.
	for i, c := range []string{"192.0.2.2", "192.0.2.2", "192.0.2.3"} {
		other := registry.WithBulk(registry.WithClient(ctx, netip.MustParseAddr(c)))
		go func() { results <- l.wait(other) }()
		waitWaiters(t, l, share+2+i)
	}
	fourth := registry.WithBulk(registry.WithClient(ctx, netip.MustParseAddr("192.0.2.4")))
	if err := l.wait(fourth); !errors.Is(err, errLimiterBusy) {
		t.Errorf("a bulk call into the places kept for interactive callers: %v, want busy", err)
	}
	cancel()
	for range 8 - share {
		if err := <-results; !errors.Is(err, context.Canceled) {
			t.Errorf("queued call: %v", err)
		}
	}
}

// TestLimiterRaise: a bulk fetch raised while it waits for the Directory (an
// interactive caller joined it) moves ahead of its client's bulk callers queued before
// it, as an SMP host's queue does (hostgate.go).
func TestLimiterRaise(t *testing.T) {
	t.Parallel()
	a := netip.MustParseAddr("192.0.2.1")
	l := newLimiter(0.01, 1, 16, time.Now) // one token, then one every 100 s
	ctx, cancel := context.WithCancel(registry.WithClient(context.Background(), a))
	defer cancel()
	if err := l.wait(ctx); err != nil {
		t.Fatal(err)
	}
	first, endFirst := newBudget(registry.WithBulk(ctx), time.Minute)
	defer endFirst()
	joined, endJoined := newBudget(registry.WithBulk(ctx), time.Minute)
	defer endJoined()
	results := make(chan string, 2)
	go func() {
		if l.wait(first) == nil {
			results <- "first"
		}
	}()
	waitWaiters(t, l, 1)
	go func() {
		if l.wait(joined) == nil {
			results <- "joined"
		}
	}()
	waitWaiters(t, l, 2)
	joined.raise()
	moved := false
	for range 5000 {
		l.mu.Lock()
		q := l.queues[a]
		moved = len(q) == 2 && !q[0].bulk && q[1].bulk
		l.mu.Unlock()
		if moved {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if !moved {
		t.Fatal("the raised fetch's caller never moved ahead of the bulk caller queued first")
	}
	l.mu.Lock()
	l.tokens = 1 // a token comes
	l.mu.Unlock()
	l.dispatch()
	select {
	case got := <-results:
		if got != "joined" {
			t.Errorf("the token went to the %s caller, want the raised one", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("nobody got the token")
	}
}
