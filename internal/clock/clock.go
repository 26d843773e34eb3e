// Package clock holds a settable clock for tests of code that takes its time from a
// Now func (peppolnet.Config.Now, mirror.SyncConfig.Now, the server's rate limiter).
package clock

import (
	"sync"
	"time"
)

// Fake is a clock that stands still until Advance moves it. It is safe for concurrent
// use; its method value Now fits wherever a func() time.Time is asked for.
type Fake struct {
	mu sync.Mutex
	t  time.Time
}

// NewFake returns a Fake that reads t.
func NewFake(t time.Time) *Fake { return &Fake{t: t} }

// Now returns the clock's time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock d forward (backward when d is negative).
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
