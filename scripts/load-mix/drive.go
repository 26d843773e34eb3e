package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// loadConfig is one timed run of the mix.
type loadConfig struct {
	// rate is the requests per second offered, whatever the answers take (open loop).
	rate     float64
	duration time.Duration
	// maxInFlight bounds the requests waiting for answers; beyond it requests are not
	// sent and counted as skipped.
	maxInFlight int
	mix         []kind
	// events run at their offsets, beside the load (fault switches).
	events   []event
	progress io.Writer
}

// event is an action at an offset of the run.
type event struct {
	at   time.Duration
	name string
	run  func() error
}

// eventResult says when an event's action started and ended, as offsets of the run.
type eventResult struct {
	name       string
	start, end time.Duration
	err        error
}

// driveResult is what the driver itself observed.
type driveResult struct {
	elapsed   time.Duration // until the last answer
	sent      [numKinds]int
	skipped   [numKinds]int // maxInFlight requests were waiting
	exhausted [numKinds]int // the cold pool was used up
	// lateOver2ms counts requests sent more than 2 ms after their time (the generator
	// fell behind); maxLate is the worst.
	lateOver2ms int
	maxLate     time.Duration
	events      []eventResult
}

// drive offers w's requests at cfg.rate for cfg.duration, in the order of cfg.mix, and
// records every outcome in rec. Requests are due at even intervals; the dispatcher
// sleeps until the next one is due and then sends everything due (Go's timers wake
// about every millisecond, so requests leave in small bursts). Up to maxInFlight
// requests wait for answers at once, so a slow answer never delays the next request.
func drive(ctx context.Context, c *client, w *workload, cfg loadConfig, rec *recorder) driveResult {
	var res driveResult
	start := time.Now()
	evc := runEvents(ctx, start, cfg.events)
	// maxInFlight workers live for the whole run (a goroutine per request would grow a
	// fresh stack for every one); a request goes to a free worker or is skipped.
	type job struct {
		rq   request
		sent time.Duration
	}
	jobs := make(chan job)
	var busy atomic.Int64
	var wg sync.WaitGroup
	for range cfg.maxInFlight {
		wg.Go(func() {
			for j := range jobs {
				rec.add(j.rq, j.sent, c.do(ctx, j.rq))
				busy.Add(-1)
			}
		})
	}
	stopProgress := progress(cfg.progress, start, cfg.duration, rec, &busy)
	var next [numKinds]int
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	interval := float64(time.Second) / cfg.rate
loop:
	for i := 0; ; i++ {
		due := time.Duration(float64(i) * interval)
		if due >= cfg.duration {
			break
		}
		if wait := due - time.Since(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				break loop
			case <-timer.C:
			}
		}
		now := time.Since(start)
		if late := now - due; late > 2*time.Millisecond {
			res.lateOver2ms++
			res.maxLate = max(res.maxLate, late)
		}
		k := cfg.mix[i%len(cfg.mix)]
		if busy.Load() >= int64(cfg.maxInFlight) {
			res.skipped[k]++
			continue
		}
		rq, ok := w.pick(k, &next)
		if !ok {
			res.exhausted[k]++
			continue
		}
		res.sent[k]++
		busy.Add(1)
		jobs <- job{rq, now}
	}
	close(jobs)
	wg.Wait()
	res.elapsed = time.Since(start)
	stopProgress()
	res.events = <-evc
	return res
}

// pick returns kind k's next request: cold pools in order, each item once; hot pools
// round robin. next holds the positions.
func (w *workload) pick(k kind, next *[numKinds]int) (request, bool) {
	i := next[k]
	next[k]++
	if k.isCold() {
		if i >= len(w.cold[k]) {
			return request{}, false
		}
		return w.cold[k][i], true
	}
	pool := w.hot[k]
	if len(pool) == 0 {
		return request{}, false
	}
	return pool[i%len(pool)], true
}

// runEvents runs events at their offsets from start in one goroutine and sends their
// results when the last has run or ctx is done.
func runEvents(ctx context.Context, start time.Time, events []event) <-chan []eventResult {
	out := make(chan []eventResult, 1)
	go func() {
		var res []eventResult
		defer func() { out <- res }()
		for _, e := range events {
			t := time.NewTimer(time.Until(start.Add(e.at)))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			s := time.Since(start)
			err := e.run()
			res = append(res, eventResult{name: e.name, start: s, end: time.Since(start), err: err})
		}
	}()
	return out
}

// progress prints a line to w every 10 s of the run until the returned function is
// called.
func progress(w io.Writer, start time.Time, d time.Duration, rec *recorder, inFlight *atomic.Int64) func() {
	if w == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				el := time.Since(start)
				fmt.Fprintf(w, "  %3.0f/%.0f s: %d answers (%.0f/s), %d failures, %d in flight\n",
					el.Seconds(), d.Seconds(), rec.done.Load(), float64(rec.done.Load())/el.Seconds(), rec.failed.Load(), inFlight.Load())
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}
