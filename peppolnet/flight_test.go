package peppolnet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

func TestFlightsCoalesce(t *testing.T) {
	t.Parallel()
	var g flights[int]
	var runs atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{})
	fn := func(ctx context.Context) int {
		if runs.Add(1) == 1 {
			close(started)
		}
		<-release
		return 42
	}
	var wg sync.WaitGroup
	results := make([]int, 5)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := g.do(t.Context(), "k", time.Minute, fn)
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		}()
	}
	<-started
	// Let the other callers join the flight before it lands.
	for {
		g.mu.Lock()
		w := g.m["k"].waiters
		g.mu.Unlock()
		if w == len(results) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("fn ran %d times, want 1", runs.Load())
	}
	for _, v := range results {
		if v != 42 {
			t.Errorf("result %d", v)
		}
	}
}

func TestFlightsCancelWhenAllCallersLeave(t *testing.T) {
	t.Parallel()
	var g flights[error]
	fetchCtx := make(chan context.Context, 1)
	fn := func(ctx context.Context) error {
		fetchCtx <- ctx
		<-ctx.Done()
		return ctx.Err()
	}

	// One caller stays: the other's leaving does not stop the fetch.
	stay, cancelStay := context.WithCancel(t.Context())
	leave, cancelLeave := context.WithCancel(t.Context())
	stayDone := make(chan error, 1)
	go func() {
		_, err := g.do(stay, "k", time.Minute, fn)
		stayDone <- err
	}()
	fctx := <-fetchCtx
	leaveDone := make(chan error, 1)
	go func() {
		_, err := g.do(leave, "k", time.Minute, fn)
		leaveDone <- err
	}()
	for {
		g.mu.Lock()
		w := g.m["k"].waiters
		g.mu.Unlock()
		if w == 2 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancelLeave()
	if err := <-leaveDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leaving caller: %v", err)
	}
	// The leaving caller cancels synchronously, if at all, before do returns.
	if fctx.Err() != nil {
		t.Fatal("fetch cancelled although a caller still waits")
	}

	// The last caller leaves: the fetch's context ends, and a new caller starts a new
	// fetch instead of joining the cancelled one.
	cancelStay()
	if err := <-stayDone; !errors.Is(err, context.Canceled) {
		t.Errorf("last caller: %v", err)
	}
	if fctx.Err() == nil || !abandoned(fctx) {
		t.Fatalf("fetch context after every caller left: err %v, abandoned %v", fctx.Err(), abandoned(fctx))
	}
	go func() { _, _ = g.do(t.Context(), "k", time.Minute, fn) }()
	select {
	case c := <-fetchCtx:
		if c == fctx {
			t.Error("joined the cancelled fetch")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no new fetch")
	}
}

func TestFlightsTimeout(t *testing.T) {
	t.Parallel()
	var g flights[error]
	var gone bool
	err, cerr := g.do(t.Context(), "k", 10*time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		gone = abandoned(ctx)
		return ctx.Err()
	})
	if cerr != nil || !errors.Is(err, context.DeadlineExceeded) || gone {
		t.Errorf("got %v / %v, abandoned %v; want the fetch's deadline, not abandoned", err, cerr, gone)
	}
}

func TestFlightsCallerAlreadyGone(t *testing.T) {
	t.Parallel()
	var g flights[int]
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ran := false
	if _, err := g.do(ctx, "k", time.Minute, func(context.Context) int { ran = true; return 1 }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("err %v, ran %v: a caller already gone must not start a fetch", err, ran)
	}
}

// TestAbandonedLookupIsNotCached: a client that leaves while the Directory hangs
// cancels the lookup; the half-done answer (SMP found, Directory cut short) must not be
// cached for the next caller.
func TestAbandonedLookupIsNotCached(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, nil)
	id := mustID(t, netsim.KnownBelgian)
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for n.Hits().Directory.Search == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		// Let the SML and SMP side finish (its last request is the ServiceMetadata; a
		// loopback answer takes well under the pause), so that only the Directory is
		// cut short.
		for _, sm := smpHits(n.Hits()); sm == 0 && ctx.Err() == nil; _, sm = smpHits(n.Hits()) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	if _, _, err := l.Lookup(ctx, id); registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Fatalf("abandoned lookup: %v", err)
	}
	// Let the abandoned fetch wind up (its Directory request is seen cancelled, then it
	// merges what it has) before asking again.
	for deadline := time.Now().Add(5 * time.Second); n.Hits().Abandoned == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("netsim never saw the Directory request cancelled")
		}
	}
	time.Sleep(100 * time.Millisecond)
	n.ClearFaults()
	p, fresh, err := l.Lookup(t.Context(), id)
	if err != nil || fresh.Cached || p.Directory == nil || hasWarning(p, registry.WarnDirectoryUnavailable) {
		t.Errorf("next lookup: cached %v, %+v, %v", fresh.Cached, p, err)
	}
}
