package httpx

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// trickle reads one byte per read, pausing before each as its gaps say; after the
// gaps it ends, or blocks until ctx ends when stall is set.
type trickle struct {
	ctx   context.Context
	gaps  []time.Duration
	stall bool
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.gaps) == 0 {
		if t.stall {
			<-t.ctx.Done()
			return 0, t.ctx.Err()
		}
		return 0, io.EOF
	}
	gap := t.gaps[0]
	t.gaps = t.gaps[1:]
	select {
	case <-time.After(gap):
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	}
	p[0] = 'x'
	return 1, nil
}

func TestIdleWatch(t *testing.T) {
	// The gaps are far shorter than the idle timeout, so a busy machine's
	// stalls do not fire the watch where it must not fire.
	const idle = time.Second
	const gap = 150 * time.Millisecond
	for _, tt := range []struct {
		name      string
		gaps      []time.Duration
		stall     bool
		wantBytes int
		wantFired bool
	}{
		{"quick body", []time.Duration{0, 0, 0}, false, 3, false},
		// Slow in total (8 × 150 ms is more than the idle timeout) but never quiet for long.
		{"slow but alive", []time.Duration{gap, gap, gap, gap, gap, gap, gap, gap}, false, 8, false},
		{"stalls after two bytes", []time.Duration{0, 0}, true, 2, true},
		{"stalls at once", nil, true, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := NewIdleWatch(idle, cancel)
			defer w.Stop()
			b, err := io.ReadAll(w.Reader(&trickle{ctx: ctx, gaps: tt.gaps, stall: tt.stall}))
			if len(b) != tt.wantBytes {
				t.Errorf("read %d bytes, want %d", len(b), tt.wantBytes)
			}
			if w.Fired() != tt.wantFired {
				t.Errorf("Fired() = %v, want %v (err %v)", w.Fired(), tt.wantFired, err)
			}
			if tt.wantFired && err == nil {
				t.Error("a stalled body read to the end without an error")
			}
			if !tt.wantFired && err != nil {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func TestIdleWatchKickAndStop(t *testing.T) {
	fired := make(chan struct{})
	w := NewIdleWatch(time.Second, func() { close(fired) })
	for range 15 { // 1.5 s in all, longer than the watch's second
		time.Sleep(100 * time.Millisecond)
		w.Kick()
	}
	w.Stop()
	select {
	case <-fired:
		t.Fatal("the watch fired although it was kicked, then stopped")
	case <-time.After(1500 * time.Millisecond): // longer than the watch
	}
	if w.Fired() {
		t.Error("Fired() after Stop")
	}
	// Reads after Stop kick a stopped watch, which must not start it again.
	if _, err := io.Copy(io.Discard, w.Reader(strings.NewReader("after stop"))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fired: // a second close would have panicked already
		t.Fatal("a kick after Stop started the watch again")
	case <-time.After(1500 * time.Millisecond):
	}
}
