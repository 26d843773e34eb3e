package registry

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestFlightsCoalesce(t *testing.T) {
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
	select {
	case <-fctx.Done():
		t.Fatal("fetch cancelled although a caller still waits")
	case <-time.After(20 * time.Millisecond):
	}

	// The last caller leaves: the fetch's context ends, and a new caller starts a new
	// fetch instead of joining the cancelled one.
	cancelStay()
	if err := <-stayDone; !errors.Is(err, context.Canceled) {
		t.Errorf("last caller: %v", err)
	}
	select {
	case <-fctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("fetch not cancelled after every caller left")
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
	var g flights[error]
	err, cerr := g.do(t.Context(), "k", 10*time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if cerr != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v / %v, want the fetch's deadline", err, cerr)
	}
}
