package peppolnet

import (
	"fmt"
	"sync"
	"time"
)

// health is what one upstream call says about its host.
type health int

const (
	healthUp      health = iota + 1 // the host answered
	healthDown                      // timeout, connection failure, 5xx
	healthUnknown                   // says nothing: cancelled by the caller, refused before sending, 429
)

// breakerState is where a circuit breaker stands.
type breakerState int

const (
	breakerClosed   breakerState = iota // calls go through; failures are counted
	breakerOpen                         // calls fail fast until the cool-down ends
	breakerHalfOpen                     // one probe call is let through; its result decides
)

// halfOpenRetryAfter is the wait suggested to callers refused while a probe is out:
// the probe answers within one upstream timeout, usually much sooner.
const halfOpenRetryAfter = 5 * time.Second

// breaker is a circuit breaker for one upstream host: after failures consecutive
// failures, the first of them at most window ago, it fails calls fast for cooldown,
// then lets one probe through; the probe's success closes it, its failure opens it
// for another cooldown. Its clock is passed in, so tests drive it with a fake one.
// In a fleet, a breaker that opens opens on every replica (record reports it, adopt
// takes another replica's; fleetpolite.go, docs/ARCHITECTURE.md §7).
// The zero value is not usable; a breaker is made by newBreaker.
type breaker struct {
	failures int
	window   time.Duration
	cooldown time.Duration

	mu      sync.Mutex
	state   breakerState
	run     int       // consecutive failures counted so far (closed)
	first   time.Time // when the run began
	until   time.Time // open: when the cool-down ends
	probing bool      // half-open: the probe is out
	// shown is the failure count an adopted opening reports (the opening replica's,
	// adopt); 0 means failures.
	shown int
}

func newBreaker(failures int, window, cooldown time.Duration) *breaker {
	return &breaker{failures: failures, window: window, cooldown: cooldown}
}

// circuitOpenError is the cause of a call a breaker refused.
type circuitOpenError struct {
	failures   int
	retryAfter time.Duration
	probing    bool // a probe is out; the cool-down itself is over
}

func (e *circuitOpenError) Error() string {
	if e.probing {
		return fmt.Sprintf("circuit breaker half-open after %d consecutive failures: a probe is in flight", e.failures)
	}
	return fmt.Sprintf("circuit breaker open after %d consecutive failures; next attempt in %v", e.failures, e.retryAfter)
}

// blocked reports, without changing anything, whether a call at now would be refused,
// with the error saying for how long.
func (b *breaker) blocked(now time.Time) *circuitOpenError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refusal(now)
}

// refusal is blocked with b.mu held.
func (b *breaker) refusal(now time.Time) *circuitOpenError {
	failures := b.failures
	if b.shown > 0 {
		failures = b.shown
	}
	switch {
	case b.state == breakerOpen && now.Before(b.until):
		return &circuitOpenError{failures: failures, retryAfter: b.until.Sub(now)}
	case b.state == breakerHalfOpen && b.probing:
		return &circuitOpenError{failures: failures, retryAfter: halfOpenRetryAfter, probing: true}
	}
	return nil
}

// allow decides a call at now: a nil refusal lets it through, and probe says whether
// it is the half-open probe, whose result record must be told.
func (b *breaker) allow(now time.Time) (probe bool, refused *circuitOpenError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.refusal(now); e != nil {
		return false, e
	}
	if b.state == breakerClosed {
		return false, nil
	}
	// Open with the cool-down over, or half-open with no probe out.
	b.state, b.probing = breakerHalfOpen, true
	return true, nil
}

// record takes the result of a call allow let through at the time it ended, and
// reports whether it opened the breaker (for a fleet, which then opens it on every
// replica: docs/ARCHITECTURE.md §7).
func (b *breaker) record(now time.Time, h health, probe bool) (opened bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
		switch h {
		case healthUp:
			b.state, b.run, b.shown = breakerClosed, 0, 0
		case healthDown:
			b.state, b.until, b.shown = breakerOpen, now.Add(b.cooldown), 0
			return true
		}
		// healthUnknown: still half-open; the next call probes.
		return false
	}
	if b.state != breakerClosed {
		// A call let through before the breaker opened says nothing the breaker
		// has not already concluded.
		return false
	}
	switch h {
	case healthUp:
		b.run = 0
	case healthDown:
		if b.run == 0 || now.Sub(b.first) > b.window {
			b.run, b.first = 0, now
		}
		b.run++
		if b.run >= b.failures {
			b.state, b.until, b.shown = breakerOpen, now.Add(b.cooldown), 0
			return true
		}
	}
	return false
}

// adopt opens the breaker at now for d, because another replica of the fleet opened
// it after failures failures and its shared cool-down has d left (docs/ARCHITECTURE.md
// §7). An open breaker's cool-down is only ever lengthened, and a half-open breaker
// whose probe is out is left to its probe. When the cool-down ends the breaker probes
// as if it had opened itself.
func (b *breaker) adopt(now time.Time, d time.Duration, failures int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d <= 0 || (b.state == breakerHalfOpen && b.probing) {
		return
	}
	until := now.Add(d)
	if b.state == breakerOpen && !until.After(b.until) {
		return
	}
	b.state, b.until, b.probing, b.shown = breakerOpen, until, false, failures
}

// idle reports whether the breaker remembers nothing worth keeping at now: closed
// with no failures counted that still matter, or open long enough ago that a fresh
// start is as good.
func (b *breaker) idle(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == breakerClosed {
		return b.run == 0 || now.Sub(b.first) > b.window
	}
	return !b.probing && now.Sub(b.until) > b.window
}

// current returns the state, for tests and logs.
func (b *breaker) current() breakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}
