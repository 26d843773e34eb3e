package peppolnet

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

func TestHostGatesCap(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(2, 3, time.Minute, 30*time.Second, clock.Now)
	ctx := context.Background()
	var dones []func(smp.HostOutcome)
	for range 2 {
		done, err := g.Enter(ctx, "smp.example.com")
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	// Another host has its own slots.
	other, err := g.Enter(ctx, "smp.example.net")
	if err != nil {
		t.Fatal(err)
	}
	// The third request to the full host waits until its context ends.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.Enter(cctx, "smp.example.com")
	var busy *hostBusyError
	if !errors.As(err, &busy) || !errors.Is(err, context.Canceled) || retryAfter(err) != busyRetryAfter {
		t.Fatalf("third request: %v, want *hostBusyError", err)
	}
	// A slot handed back is taken by the next request.
	dones[0](smp.HostUp)
	dones[0](smp.HostUp) // a second call is harmless
	done, err := g.Enter(ctx, "smp.example.com")
	if err != nil {
		t.Fatal(err)
	}
	done(smp.HostUp)
	dones[1](smp.HostUp)
	other(smp.HostUp)
	if len(g.hosts) != 0 {
		t.Errorf("%d hosts remembered with nothing in flight and nothing failing", len(g.hosts))
	}
}

func TestHostGatesBreaker(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(8, 3, time.Minute, 30*time.Second, clock.Now)
	ctx := context.Background()
	fail := func(host string, o smp.HostOutcome) {
		t.Helper()
		done, err := g.Enter(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		done(o)
	}
	for _, o := range []smp.HostOutcome{smp.HostDown, smp.HostUnknown, smp.HostDown, smp.HostDown} {
		fail("down.example", o)
	}
	fail("up.example", smp.HostDown) // another host is not affected
	_, err := g.Enter(ctx, "down.example")
	var co *circuitOpenError
	if !errors.As(err, &co) || co.retryAfter != 30*time.Second || retryAfter(err) != 30*time.Second {
		t.Fatalf("open breaker: %v", err)
	}
	if _, err := g.Enter(ctx, "up.example"); err != nil {
		t.Fatalf("other host refused: %v", err)
	}
	if len(g.hosts) != 2 {
		t.Errorf("%d hosts remembered, want the 2 with failures on record", len(g.hosts))
	}
	clock.Advance(30 * time.Second)
	probe, err := g.Enter(ctx, "down.example")
	if err != nil {
		t.Fatalf("probe refused: %v", err)
	}
	if _, err := g.Enter(ctx, "down.example"); !errors.As(err, &co) || !co.probing {
		t.Fatalf("second request while probing: %v", err)
	}
	probe(smp.HostUp)
	fail("down.example", smp.HostUp)
}

func TestHostGatesForgetIdleHosts(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(1, 3, time.Minute, 30*time.Second, clock.Now)
	for i := range maxIdleHosts + 10 {
		done, err := g.Enter(context.Background(), "h"+strconv.Itoa(i)+".example")
		if err != nil {
			t.Fatal(err)
		}
		done(smp.HostDown) // each remembers one failure
	}
	if len(g.hosts) != maxIdleHosts+10 {
		t.Fatalf("%d hosts", len(g.hosts))
	}
	clock.Advance(2 * time.Minute) // the failures are out of the window
	done, _ := g.Enter(context.Background(), "new.example")
	done(smp.HostUp)
	if len(g.hosts) != 0 {
		t.Errorf("%d hosts remembered after a sweep; want none", len(g.hosts))
	}
}

// TestHostGatesBulkShare: bulk requests hold at most their share of a host's slots,
// the rest is kept for interactive requests, and a slot that comes free goes to a
// waiting interactive request before any waiting bulk one.
func TestHostGatesBulkShare(t *testing.T) {
	t.Parallel()
	g := newHostGates(4, 3, time.Minute, 30*time.Second, time.Now)
	if g.bulkShare != 3 {
		t.Fatalf("bulk share of 4 slots: %d, want 3", g.bulkShare)
	}
	const host = "smp.example"
	bulk := registry.WithBulk(context.Background())
	var bulks []func(smp.HostOutcome)
	for range 3 {
		done, err := g.Enter(bulk, host)
		if err != nil {
			t.Fatal(err)
		}
		bulks = append(bulks, done)
	}
	// A fourth bulk request waits although a slot is free: it is kept.
	queued := make(chan error, 1)
	go func() {
		done, err := g.Enter(bulk, host)
		if err == nil {
			done(smp.HostUp)
		}
		queued <- err
	}()
	waitUsers(t, g, host, 4)
	// An interactive request takes the kept slot at once.
	inter, err := g.Enter(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	// Another waits; the next slot to come free is its, not the bulk request's.
	second := make(chan func(smp.HostOutcome), 1)
	go func() {
		done, err := g.Enter(context.Background(), host)
		if err != nil {
			t.Error(err)
		}
		second <- done
	}()
	waitUsers(t, g, host, 6)
	bulks[0](smp.HostUp)
	var done func(smp.HostOutcome)
	select {
	case done = <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting interactive request did not get the freed slot")
	}
	g.mu.Lock()
	hg := g.hosts[host]
	busy, bulkBusy, waitingBulk := hg.busy, hg.bulk, len(hg.waiting[1])
	g.mu.Unlock()
	if busy != 4 || bulkBusy != 2 || waitingBulk != 1 {
		t.Errorf("busy %d, bulk %d, bulk waiting %d; want 4, 2, 1", busy, bulkBusy, waitingBulk)
	}
	// Slots the interactive requests give back go to the bulk request, within its
	// share.
	done(smp.HostUp)
	select {
	case err := <-queued:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bulk request never got a slot")
	}
	inter(smp.HostUp)
	for _, d := range bulks[1:] {
		d(smp.HostUp)
	}
	if len(g.hosts) != 0 {
		t.Errorf("%d hosts remembered with nothing in flight", len(g.hosts))
	}
}

// TestHostGatesQueuedRecordsNothing: a request that never got on the wire records
// nothing on its host's breaker, however its wait ended: its caller cancelled it,
// every caller of its fetch left, or its fetch waited as long as it may. Two failures
// recorded before stay two: the next failure opens the breaker (at 3), as if the waits
// had not been.
func TestHostGatesQueuedRecordsNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// wait returns the context of the waiting request and what ends its wait.
		wait func() (context.Context, func())
		want error
	}{
		{"caller cancels", func() (context.Context, func()) {
			ctx, cancel := context.WithCancel(context.Background())
			return ctx, cancel
		}, context.Canceled},
		{"every caller of the fetch leaves", func() (context.Context, func()) {
			parent, leave := context.WithCancel(context.Background())
			b, _ := newBudget(parent, time.Minute)
			return b, leave
		}, context.Canceled},
		{"bulk fetch raised and cancelled", func() (context.Context, func()) {
			parent, leave := context.WithCancel(registry.WithBulk(context.Background()))
			b, _ := newBudget(parent, time.Minute)
			return b, func() { b.raise(); leave() }
		}, context.Canceled},
		{"fetch waited its allowance", func() (context.Context, func()) {
			b, _ := newBudget(context.Background(), time.Second)
			return b, func() {}
		}, errWaitedTooLong},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := newHostGates(1, 3, time.Minute, 30*time.Second, time.Now)
			const host = "smp.example"
			for range 2 {
				done, err := g.Enter(context.Background(), host)
				if err != nil {
					t.Fatal(err)
				}
				done(smp.HostDown)
			}
			hold, err := g.Enter(context.Background(), host)
			if err != nil {
				t.Fatal(err)
			}
			ctx, end := c.wait()
			errc := make(chan error, 1)
			go func() {
				done, err := g.Enter(ctx, host)
				if err == nil {
					done(smp.HostDown)
				}
				errc <- err
			}()
			waitUsers(t, g, host, 2)
			end()
			select {
			case err = <-errc:
			case <-time.After(10 * time.Second):
				t.Fatal("the wait did not end")
			}
			var busy *hostBusyError
			if !errors.As(err, &busy) || !errors.Is(err, c.want) {
				t.Fatalf("queued request: %v, want *hostBusyError for %v", err, c.want)
			}
			hold(smp.HostUnknown)
			if run, open := failuresOf(g, host); run != 2 || open {
				t.Fatalf("breaker counts %d failures (open %v), want the 2 before", run, open)
			}
			done, err := g.Enter(context.Background(), host)
			if err != nil {
				t.Fatal(err)
			}
			done(smp.HostDown)
			if _, open := failuresOf(g, host); !open {
				t.Error("the third real failure did not open the breaker")
			}
		})
	}
}

// TestHostGatesCountRealFailures: the breaker counts what the host did: a timeout of a
// request that had the fetch's time (at least half of it) and an error, but not a
// request its fetch's deadline cut short soon after it was sent (the fetch had spent
// its time elsewhere) nor a cancelled one.
func TestHostGatesCountRealFailures(t *testing.T) {
	t.Parallel()
	const work = 2 * time.Second
	cases := []struct {
		name string
		// before is how long the fetch works before the request is sent; expire waits
		// for the fetch's deadline before the request ends.
		before  time.Duration
		expire  bool
		outcome smp.HostOutcome
		counted bool
	}{
		{"timeout with the whole deadline", 0, true, smp.HostDown, true},
		{"cut short by the fetch's deadline", work * 4 / 5, true, smp.HostDown, false},
		{"error answer (5xx, connection refused)", 0, false, smp.HostDown, true},
		{"cancelled", 0, false, smp.HostUnknown, false},
		{"answered", 0, false, smp.HostUp, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := newHostGates(8, 3, time.Minute, 30*time.Second, time.Now)
			b, cancel := newBudget(context.Background(), work)
			defer cancel()
			time.Sleep(c.before)
			done, err := g.Enter(b, "smp.example")
			if err != nil {
				t.Fatal(err)
			}
			if c.expire {
				select {
				case <-b.Done():
				case <-time.After(time.Minute):
					t.Fatal("the fetch's deadline never came")
				}
			}
			done(c.outcome)
			if run, _ := failuresOf(g, "smp.example"); (run == 1) != c.counted {
				t.Errorf("breaker counts %d failures, want counted %v", run, c.counted)
			}
		})
	}
}
