package peppolnet

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/peppol/smp"
)

// busyRetryAfter is the wait suggested when a request found its SMP host's slots full
// for as long as it could wait.
const busyRetryAfter = time.Second

// maxIdleHosts is how many SMP hosts with nothing in flight hostGates keeps before it
// forgets those whose breakers have nothing to remember.
const maxIdleHosts = 1024

// hostGates is the smp.Gate of a Registry: at most perHost requests in flight
// to each SMP host (others wait their turn within their fetch's waiting allowance,
// which does not eat into its deadline: see budget), and a circuit breaker per host.
// Requests have two priorities (docs/ARCHITECTURE.md §3, Bulk check): interactive ones
// are served first, and bulk ones (a check's rows, registry.WithBulk) hold at most
// bulkShare of a host's slots, so that the rest is always left to interactive
// requests and a check, however large, neither starves them nor makes them wait
// long. Hosts are created on first use and forgotten when idle, so the map stays as
// small as the set of hosts in use or failing.
type hostGates struct {
	perHost   int
	bulkShare int
	failures  int
	window    time.Duration
	cooldown  time.Duration
	now       func() time.Time
	// fleet, when set, makes the caps and breakers fleet-wide (fleetpolite.go,
	// docs/ARCHITECTURE.md §7); nil keeps them in this process.
	fleet *fleetPolite

	mu    sync.Mutex
	hosts map[string]*hostGate
}

// hostGate is one SMP host's slots, queues and breaker; its counts and queues are
// guarded by hostGates.mu.
type hostGate struct {
	br    *breaker
	users int // callers holding or waiting for a slot
	busy  int // slots held
	bulk  int // of which by bulk requests
	// waiting are the requests waiting for a slot, interactive ones first ([0]),
	// then bulk ones ([1]), each in arrival order.
	waiting [2][]*slotWait
}

// slotWait is one request waiting for a slot of its host.
type slotWait struct {
	bulk    bool
	ready   chan struct{} // closed when granted
	granted bool          // a slot is held for it (as bulk when bulk)
}

var _ smp.Gate = (*hostGates)(nil)

// BulkShare returns how many of an SMP host's perHost request slots (the Registry's
// Config.SMPHostConcurrency) a bulk check's requests may hold at once: all but a
// quarter, at least one kept for interactive requests (6 of 8); all of a single slot.
func BulkShare(perHost int) int {
	if perHost <= 1 {
		return perHost
	}
	return perHost - max(1, perHost/4)
}

func newHostGates(perHost, failures int, window, cooldown time.Duration, now func() time.Time) *hostGates {
	return &hostGates{perHost: perHost, bulkShare: BulkShare(perHost), failures: failures, window: window, cooldown: cooldown, now: now, hosts: map[string]*hostGate{}}
}

// hostBusyError is the cause of a request that did not get one of its host's slots
// before its context ended or its fetch had waited as long as it may.
type hostBusyError struct {
	host  string
	limit int
	cause error
}

func (e *hostBusyError) Error() string {
	return fmt.Sprintf("%d requests to %s already in flight while this one could wait: %v", e.limit, e.host, e.cause)
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
// for one of its slots (at ctx's priority, bulkOf) until ctx ends or ctx's fetch may
// wait no longer (then *hostBusyError; the wait is not counted against the fetch's
// deadline, and nothing is recorded on the breaker), and asks the breaker again once
// it has one (it may have opened meanwhile). The breaker hears how the request went,
// except a request its fetch's deadline cut short before the host had a fair share of
// it (cutShort): that is the caller's deadline, not the host's failure. With a fleet,
// the request also takes one of the host's fleet-wide slots once it holds a local one,
// and a breaker another replica opened refuses it as this replica's own would
// (takeFleet); a breaker that opens here opens fleet-wide.
func (g *hostGates) Enter(ctx context.Context, host string) (func(smp.HostOutcome), error) {
	hg := g.join(host)
	if e := hg.br.blocked(g.now()); e != nil {
		g.leave(host, hg)
		return nil, &hostCircuitError{host: host, circuitOpenError: e}
	}
	w, err := g.take(ctx, host, hg)
	if err != nil {
		g.leave(host, hg)
		return nil, err
	}
	fleetDone, err := g.takeFleet(ctx, host, hg)
	if err != nil {
		g.release(hg, w)
		g.leave(host, hg)
		return nil, err
	}
	probe, refused := hg.br.allow(g.now())
	if refused != nil {
		fleetDone()
		g.release(hg, w)
		g.leave(host, hg)
		return nil, &hostCircuitError{host: host, circuitOpenError: refused}
	}
	sent := time.Now()
	var once sync.Once
	return func(o smp.HostOutcome) {
		once.Do(func() {
			fleetDone()
			h := hostHealth(o)
			if h == healthDown && cutShort(ctx, sent) {
				h = healthUnknown
			}
			if hg.br.record(g.now(), h, probe) && g.fleet != nil {
				g.fleet.openBreaker(g.fleet.hostBreakerKey(host))
			}
			g.release(hg, w)
			g.leave(host, hg)
		})
	}, nil
}

// takeFleet gets one of host's fleet-wide slots once the request holds a local one
// (fleetpolite.go): the local gate orders this replica's requests, the fleet's caps
// them all. It returns the func that gives the slot back (nothing to give without a
// fleet or when Redis failed: the local cap alone holds), a *hostBusyError when the
// fleet's slots stay full as long as the fetch may wait or ctx ends, and a
// *hostCircuitError when another replica opened host's breaker, which this replica's
// breaker then adopts until the shared cool-down ends.
func (g *hostGates) takeFleet(ctx context.Context, host string, hg *hostGate) (func(), error) {
	if g.fleet == nil {
		return func() {}, nil
	}
	release, open, err := g.fleet.acquireSlot(ctx, host, func() bool { return bulkOf(ctx) })
	if err != nil {
		return nil, &hostBusyError{host: host, limit: g.perHost, cause: err}
	}
	if open.d > 0 {
		now := g.now()
		hg.br.adopt(now, open.d, open.failures)
		if e := hg.br.blocked(now); e != nil {
			return nil, &hostCircuitError{host: host, circuitOpenError: e}
		}
		return func() {}, nil // not reached: adopt opened it, or this replica's probe is out
	}
	return release, nil
}

// take gets one of hg's slots for a request of ctx, waiting for it when none is free
// to its priority.
func (g *hostGates) take(ctx context.Context, host string, hg *hostGate) (*slotWait, error) {
	bulk := bulkOf(ctx)
	g.mu.Lock()
	w := &slotWait{bulk: bulk, ready: make(chan struct{})}
	if g.free(hg, bulk) {
		g.grant(hg, w)
		g.mu.Unlock()
		return w, nil
	}
	g.mu.Unlock()

	t := startWait(ctx)
	defer t.end()
	g.mu.Lock()
	if w.bulk && !t.bulk {
		w.bulk = false // raised meanwhile
	}
	g.enqueue(hg, w)
	g.dispatch(hg) // a slot may have come free meanwhile
	g.mu.Unlock()
	raised := t.raised
	for {
		var cause error
		select {
		case <-w.ready:
			return w, nil
		case <-raised:
			// The fetch was raised to interactive: wait among interactive requests.
			raised = nil
			g.mu.Lock()
			if !w.granted && w.bulk {
				g.dequeue(hg, w)
				w.bulk = false
				g.enqueue(hg, w)
				g.dispatch(hg)
			}
			g.mu.Unlock()
			continue
		case <-t.out:
			if t.reopened() {
				continue // raised after its allowance ran out: it may wait again
			}
			t.refuse()
			cause = errWaitedTooLong
		case <-ctx.Done():
			cause = ctx.Err()
		}
		g.mu.Lock()
		if w.granted {
			// Granted as the wait ended: hand the slot on.
			g.mu.Unlock()
			g.release(hg, w)
		} else {
			g.dequeue(hg, w)
			g.mu.Unlock()
		}
		return nil, &hostBusyError{host: host, limit: g.perHost, cause: cause}
	}
}

// free reports whether a request of the priority may take a slot of hg at once: one
// is free to it and nobody it would overtake waits; g.mu is held.
func (g *hostGates) free(hg *hostGate, bulk bool) bool {
	if hg.busy >= g.perHost || len(hg.waiting[0]) > 0 {
		return false
	}
	return !bulk || (hg.bulk < g.bulkShare && len(hg.waiting[1]) == 0)
}

// grant gives w a slot of hg; g.mu is held.
func (g *hostGates) grant(hg *hostGate, w *slotWait) {
	hg.busy++
	if w.bulk {
		hg.bulk++
	}
	w.granted = true
	close(w.ready)
}

// enqueue queues w in its priority's queue of hg; g.mu is held.
func (g *hostGates) enqueue(hg *hostGate, w *slotWait) {
	q := 0
	if w.bulk {
		q = 1
	}
	hg.waiting[q] = append(hg.waiting[q], w)
}

// dequeue takes w out of hg's queues; g.mu is held.
func (g *hostGates) dequeue(hg *hostGate, w *slotWait) {
	for q := range hg.waiting {
		for i, x := range hg.waiting[q] {
			if x == w {
				hg.waiting[q] = append(hg.waiting[q][:i:i], hg.waiting[q][i+1:]...)
				return
			}
		}
	}
}

// dispatch hands hg's free slots to the waiting requests: interactive ones first,
// then bulk ones within the bulk share; g.mu is held.
func (g *hostGates) dispatch(hg *hostGate) {
	for hg.busy < g.perHost {
		var w *slotWait
		switch {
		case len(hg.waiting[0]) > 0:
			w = hg.waiting[0][0]
			hg.waiting[0][0] = nil
			hg.waiting[0] = hg.waiting[0][1:]
		case len(hg.waiting[1]) > 0 && hg.bulk < g.bulkShare:
			w = hg.waiting[1][0]
			hg.waiting[1][0] = nil
			hg.waiting[1] = hg.waiting[1][1:]
		default:
			return
		}
		g.grant(hg, w)
	}
}

// release gives back the slot w holds and hands it on.
func (g *hostGates) release(hg *hostGate, w *slotWait) {
	g.mu.Lock()
	defer g.mu.Unlock()
	hg.busy--
	if w.bulk {
		hg.bulk--
	}
	g.dispatch(hg)
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
		hg = &hostGate{br: newBreaker(g.failures, g.window, g.cooldown)}
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
