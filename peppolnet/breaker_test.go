package peppolnet

import (
	"testing"
	"time"
)

// TestBreakerStateMachine drives one breaker (3 failures within 1m open it for 30s)
// through a script of calls on a fake clock.
func TestBreakerStateMachine(t *testing.T) {
	t.Parallel()
	type step struct {
		at        time.Duration // since the start
		result    health        // 0: only ask allow, do not record
		wantAllow bool
		wantProbe bool
		wantRetry time.Duration // of a refusal
		wantState breakerState  // after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"up keeps it closed", []step{
			{0, healthUp, true, false, 0, breakerClosed},
			{time.Second, healthUp, true, false, 0, breakerClosed},
		}},
		{"three failures open it", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{time.Second, healthDown, true, false, 0, breakerClosed},
			{2 * time.Second, healthDown, true, false, 0, breakerOpen},
			{3 * time.Second, 0, false, false, 29 * time.Second, breakerOpen},
		}},
		{"a success in between resets the count", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{time.Second, healthDown, true, false, 0, breakerClosed},
			{2 * time.Second, healthUp, true, false, 0, breakerClosed},
			{3 * time.Second, healthDown, true, false, 0, breakerClosed},
			{4 * time.Second, healthDown, true, false, 0, breakerClosed},
			{5 * time.Second, healthDown, true, false, 0, breakerOpen},
		}},
		{"unknown results do not count either way", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{time.Second, healthUnknown, true, false, 0, breakerClosed},
			{2 * time.Second, healthDown, true, false, 0, breakerClosed},
			{3 * time.Second, healthDown, true, false, 0, breakerOpen},
		}},
		{"failures spread over more than the window do not open it", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{30 * time.Second, healthDown, true, false, 0, breakerClosed},
			{61 * time.Second, healthDown, true, false, 0, breakerClosed}, // a new run begins
			{62 * time.Second, healthDown, true, false, 0, breakerClosed},
			{63 * time.Second, healthDown, true, false, 0, breakerOpen},
		}},
		{"after the cool-down one probe; its success closes", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerOpen},
			{29 * time.Second, 0, false, false, time.Second, breakerOpen},
			{30 * time.Second, healthUp, true, true, 0, breakerClosed},
			{30 * time.Second, healthDown, true, false, 0, breakerClosed}, // counting afresh
		}},
		{"a failed probe opens it for another cool-down", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerOpen},
			{40 * time.Second, healthDown, true, true, 0, breakerOpen},
			{41 * time.Second, 0, false, false, 29 * time.Second, breakerOpen},
			{70 * time.Second, healthUp, true, true, 0, breakerClosed},
		}},
		{"an inconclusive probe leaves it half-open for the next", []step{
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerClosed},
			{0, healthDown, true, false, 0, breakerOpen},
			{30 * time.Second, healthUnknown, true, true, 0, breakerHalfOpen},
			{31 * time.Second, healthUp, true, true, 0, breakerClosed},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
			b := newBreaker(3, time.Minute, 30*time.Second)
			for i, s := range tt.steps {
				now := start.Add(s.at)
				blocked := b.blocked(now)
				probe, refused := b.allow(now)
				if (refused == nil) != s.wantAllow || (blocked == nil) != s.wantAllow || probe != s.wantProbe {
					t.Fatalf("step %d: allow = (probe %v, refused %v), blocked %v; want allowed %v, probe %v", i, probe, refused, blocked, s.wantAllow, s.wantProbe)
				}
				if refused != nil && (refused.retryAfter != s.wantRetry || refused.failures != 3) {
					t.Errorf("step %d: refusal %+v, want retry after %v", i, refused, s.wantRetry)
				}
				if refused == nil && s.result != 0 {
					b.record(now, s.result, probe)
				}
				if got := b.current(); got != s.wantState {
					t.Fatalf("step %d: state %d, want %d", i, got, s.wantState)
				}
			}
		})
	}
}

// TestBreakerOneProbe checks that while the probe is out every other call is refused,
// with a short wait, and that results of calls let through before the breaker opened
// change nothing.
func TestBreakerOneProbe(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	b := newBreaker(1, time.Minute, 30*time.Second)
	if _, r := b.allow(now); r != nil {
		t.Fatal(r)
	}
	if _, r := b.allow(now); r != nil { // a second call already in flight
		t.Fatal(r)
	}
	b.record(now, healthDown, false)
	if b.current() != breakerOpen {
		t.Fatal("not open after one failure")
	}
	b.record(now, healthUp, false) // the late one: ignored
	if b.current() != breakerOpen {
		t.Fatal("a late success closed an open breaker")
	}
	now = now.Add(30 * time.Second)
	probe, r := b.allow(now)
	if !probe || r != nil {
		t.Fatalf("probe %v refusal %v", probe, r)
	}
	for range 3 {
		if p, r := b.allow(now); p || r == nil || r.retryAfter != halfOpenRetryAfter || !r.probing {
			t.Fatalf("second call while probing: probe %v refusal %+v", p, r)
		}
	}
	if b.idle(now.Add(time.Hour)) {
		t.Error("idle while the probe is out")
	}
	b.record(now, healthUp, true)
	if b.current() != breakerClosed || !b.idle(now) {
		t.Errorf("state %d idle %v after a good probe", b.current(), b.idle(now))
	}
}

// TestBreakerAdopt: a breaker opened by another replica of the fleet (adopt) refuses
// with that replica's failure count until the shared cool-down ends, is never
// shortened by it, leaves a probe in flight alone, and probes when it cools down.
func TestBreakerAdopt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		prepare   func(b *breaker) // before adopt(now, 10s, 7)
		wantRetry time.Duration    // of the refusal right after; 0: not refused
		wantShown int
	}{
		{"closed opens for the shared cool-down", func(*breaker) {}, 10 * time.Second, 7},
		{"a longer local cool-down is kept", func(b *breaker) { b.record(now, healthDown, false) }, 30 * time.Second, 1},
		{"a probe in flight decides", func(b *breaker) {
			b.record(now.Add(-time.Minute), healthDown, false)
			b.allow(now) // the probe
		}, halfOpenRetryAfter, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBreaker(1, time.Minute, 30*time.Second)
			tt.prepare(b)
			b.adopt(now, 10*time.Second, 7)
			e := b.blocked(now)
			if e == nil || e.retryAfter != tt.wantRetry || e.failures != tt.wantShown {
				t.Fatalf("after adopt: %+v, want retry after %v with %d failures", e, tt.wantRetry, tt.wantShown)
			}
		})
	}
	b := newBreaker(3, time.Minute, 30*time.Second)
	b.adopt(now, 10*time.Second, 5)
	b.adopt(now, 2*time.Second, 5) // never shortened
	if e := b.blocked(now.Add(5 * time.Second)); e == nil || e.retryAfter != 5*time.Second {
		t.Fatalf("5 s into an adopted 10 s cool-down: %+v", e)
	}
	probe, refused := b.allow(now.Add(10 * time.Second))
	if !probe || refused != nil {
		t.Fatalf("after the adopted cool-down: probe %v, refused %v; want a probe", probe, refused)
	}
	if !b.record(now.Add(10*time.Second), healthDown, true) {
		t.Error("a failed probe of an adopted breaker did not report that it opened it")
	}
	if e := b.blocked(now.Add(10 * time.Second)); e == nil || e.failures != 3 {
		t.Errorf("re-opened by its own probe: %+v, want this replica's 3 failures", e)
	}
}
