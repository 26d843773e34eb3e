package httpx

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// IdleWatch ends a download that stalls: it calls cancel (typically the request
// context's) when no Kick comes for its timeout. A deadline on the whole request would
// also cut a download that is slow but alive; the watch only cuts one that has gone
// quiet. Kick it whenever bytes arrive, or read the body through Reader; Stop it when
// the download is over.
type IdleWatch struct {
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool

	mu      sync.Mutex // orders Kick's Reset after Stop
	stopped bool
}

// NewIdleWatch starts a watch that calls cancel once nothing has arrived for d.
func NewIdleWatch(d time.Duration, cancel func()) *IdleWatch {
	w := &IdleWatch{d: d}
	w.t = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel()
	})
	return w
}

// Kick restarts the idle period: bytes arrived. After the watch fired or was stopped
// it does nothing.
func (w *IdleWatch) Kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped && !w.fired.Load() {
		w.t.Reset(w.d)
	}
}

// Fired reports whether the watch called cancel, so that the caller can tell an idle
// timeout from other reasons the download ended.
func (w *IdleWatch) Fired() bool { return w.fired.Load() }

// Stop ends the watch; unless it fired already, cancel is not called.
func (w *IdleWatch) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.t.Stop()
}

// Reader returns r with every read that returns bytes kicking w.
func (w *IdleWatch) Reader(r io.Reader) io.Reader { return idleReader{r, w} }

type idleReader struct {
	r io.Reader
	w *IdleWatch
}

func (i idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.w.Kick()
	}
	return n, err
}
