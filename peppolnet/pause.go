package peppolnet

import (
	"sync"
	"time"
)

// pause remembers until when an upstream asked us to stay away (a 429 with
// Retry-After), so that no request is sent before then: asking again early only
// prolongs the limit and wastes the caller's time. In a fleet the pause is shared too
// (fleetPolite.pauseDirectory, directoryTurn): one replica's 429 pauses every replica.
type pause struct {
	mu    sync.Mutex
	until time.Time
}

// remaining returns how long the pause still lasts at now, 0 when it is over.
func (p *pause) remaining(now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return max(p.until.Sub(now), 0)
}

// extend makes the pause last at least d from now.
func (p *pause) extend(now time.Time, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := now.Add(d); t.After(p.until) {
		p.until = t
	}
}
