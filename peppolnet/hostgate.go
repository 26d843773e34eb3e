package peppolnet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/peppol/smp"
)

// busyRetryAfter is the wait suggested when a request found its SMP host's slots full
// until its deadline.
const busyRetryAfter = time.Second

// maxIdleHosts is how many SMP hosts with nothing in flight hostGates keeps before it
// forgets those whose breakers have nothing to remember.
const maxIdleHosts = 1024

// hostGates is the smp.Gate of a Registry: at most perHost requests in flight
// to each SMP host (others wait their turn within their deadline), and a circuit
// breaker per host. Hosts are created on first use and forgotten when idle, so the
// map stays as small as the set of hosts in use or failing.
type hostGates struct {
	perHost  int
	failures int
	window   time.Duration
	cooldown time.Duration
	now      func() time.Time

	mu    sync.Mutex
	hosts map[string]*hostGate
}

// hostGate is one SMP host's slots and breaker.
type hostGate struct {
	slots chan struct{}
	br    *breaker
	users int // callers holding or waiting for a slot; guarded by hostGates.mu
}

var _ smp.Gate = (*hostGates)(nil)

func newHostGates(perHost, failures int, window, cooldown time.Duration, now func() time.Time) *hostGates {
	return &hostGates{perHost: perHost, failures: failures, window: window, cooldown: cooldown, now: now, hosts: map[string]*hostGate{}}
}

// hostBusyError is the cause of a request that did not get one of its host's slots
// before its context ended.
type hostBusyError struct {
	host  string
	limit int
	cause error
}

func (e *hostBusyError) Error() string {
	return fmt.Sprintf("%d requests to %s already in flight until the deadline: %v", e.limit, e.host, e.cause)
}

func (e *hostBusyError) Unwrap() error { return e.cause }

// hostCircuitError is a *circuitOpenError naming the host, for logs.
type hostCircuitError struct {
	host string
	*circuitOpenError
}

func (e *hostCircuitError) Error() string { return e.host + ": " + e.circuitOpenError.Error() }

func (e *hostCircuitError) Unwrap() error { return e.circuitOpenError }

// Enter implements smp.Gate: it refuses at once while host's breaker is open, waits
// for one of its slots until ctx ends (then *hostBusyError), and asks the breaker
// again once it has one (it may have opened meanwhile).
func (g *hostGates) Enter(ctx context.Context, host string) (func(smp.HostOutcome), error) {
	hg := g.join(host)
	if e := hg.br.blocked(g.now()); e != nil {
		g.leave(host, hg)
		return nil, &hostCircuitError{host: host, circuitOpenError: e}
	}
	select {
	case hg.slots <- struct{}{}:
	case <-ctx.Done():
		g.leave(host, hg)
		return nil, &hostBusyError{host: host, limit: g.perHost, cause: ctx.Err()}
	}
	probe, refused := hg.br.allow(g.now())
	if refused != nil {
		<-hg.slots
		g.leave(host, hg)
		return nil, &hostCircuitError{host: host, circuitOpenError: refused}
	}
	var once sync.Once
	return func(o smp.HostOutcome) {
		once.Do(func() {
			hg.br.record(g.now(), hostHealth(o), probe)
			<-hg.slots
			g.leave(host, hg)
		})
	}, nil
}

// join returns host's gate, creating it, and counts the caller as one of its users.
func (g *hostGates) join(host string) *hostGate {
	g.mu.Lock()
	defer g.mu.Unlock()
	hg, ok := g.hosts[host]
	if !ok {
		if len(g.hosts) >= maxIdleHosts {
			g.sweep()
		}
		hg = &hostGate{slots: make(chan struct{}, g.perHost), br: newBreaker(g.failures, g.window, g.cooldown)}
		g.hosts[host] = hg
	}
	hg.users++
	return hg
}

// leave uncounts a user, forgetting the host when nobody uses it and its breaker has
// nothing to remember.
func (g *hostGates) leave(host string, hg *hostGate) {
	g.mu.Lock()
	defer g.mu.Unlock()
	hg.users--
	if hg.users == 0 && hg.br.idle(g.now()) && g.hosts[host] == hg {
		delete(g.hosts, host)
	}
}

// sweep forgets unused hosts whose breakers have nothing to remember; g.mu is held.
func (g *hostGates) sweep() {
	now := g.now()
	for h, hg := range g.hosts {
		if hg.users == 0 && hg.br.idle(now) {
			delete(g.hosts, h)
		}
	}
}

// hostHealth maps what the SMP client says about a request to what a breaker counts.
func hostHealth(o smp.HostOutcome) health {
	switch o {
	case smp.HostUp:
		return healthUp
	case smp.HostDown:
		return healthDown
	}
	return healthUnknown
}
