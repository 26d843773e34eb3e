package peppolnet

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// waitUsers waits (at most 10 s) until host's gate counts users callers holding or
// waiting for its slots.
func waitUsers(t *testing.T, g *hostGates, host string, users int) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		n := 0
		if hg := g.hosts[host]; hg != nil {
			n = hg.users
		}
		g.mu.Unlock()
		if n == users {
			return
		}
	}
	t.Fatalf("%s never had %d users", host, users)
}

// failuresOf returns how many consecutive failures host's breaker counts and whether
// it is open (a forgotten host counts none).
func failuresOf(g *hostGates, host string) (int, bool) {
	g.mu.Lock()
	hg := g.hosts[host]
	g.mu.Unlock()
	if hg == nil {
		return 0, false
	}
	hg.br.mu.Lock()
	defer hg.br.mu.Unlock()
	return hg.br.run, hg.br.state != breakerClosed
}

// TestQueueWaitNotCountedAgainstDeadline: a bulk row's lookup whose SMP request waits
// for its host's slot twice as long as the lookup's deadline (a bulk fetch may wait
// bulkWaitFactor times it) still answers in full, because the deadline counts only the
// time the lookup works; nothing is recorded as a timeout or a refusal, and the host's
// breaker counts nothing. (Before, the wait ate the deadline: the lookup failed with
// "too many requests in flight".)
func TestQueueWaitNotCountedAgainstDeadline(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	id := hostParticipants(t, n, 0, 1)[0]
	const deadline = 2 * time.Second
	obs := &recordingObserver{}
	l, _ := newLive(t, n, func(c *Config) {
		c.SMPHostConcurrency = 1
		c.LookupTimeout = deadline
		c.Observer = obs
	})
	host := hostOf(n.SMPBaseURL(0))
	hold, err := l.smpGates.Enter(t.Context(), host) // the host's only slot, taken
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		p   *registry.Participant
		err error
	}
	got := make(chan answer, 1)
	go func() {
		p, _, err := l.Lookup(registry.WithBulk(context.Background()), id)
		got <- answer{p, err}
	}()
	waitUsers(t, l.smpGates, host, 2) // the lookup waits for the slot
	time.Sleep(2 * deadline)
	hold(smp.HostUnknown)
	var a answer
	select {
	case a = <-got:
	case <-time.After(time.Minute):
		t.Fatal("the lookup did not answer within a minute")
	}
	if a.err != nil || a.p.SMP == nil || a.p.SMP.Endpoint == nil {
		t.Fatalf("lookup after a long wait for the slot: %+v, %v", a.p, a.err)
	}
	for _, o := range obs.upstream(registry.UpstreamSMP) {
		if o != registry.OutcomeOK {
			t.Errorf("SMP calls observed %v, want every one ok", obs.upstream(registry.UpstreamSMP))
			break
		}
	}
	if run, open := failuresOf(l.smpGates, host); run != 0 || open {
		t.Errorf("the host's breaker counts %d failures (open %v), want none", run, open)
	}
}

// TestBreakerCountsRealTimeouts: an SMP host that never answers is a real failure,
// deadlines or not: each lookup's request has the whole lookup to answer, times out,
// and after BreakerFailures of them the breaker opens and the next lookup is refused
// without a request.
func TestBreakerCountsRealTimeouts(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	ids := hostParticipants(t, n, 0, 4)
	l, _ := newLive(t, n, func(c *Config) {
		c.BreakerFailures = 3
		c.LookupTimeout = 4 * time.Second // room for the DNS step on a busy machine
	})
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{Hang: true})
	host := hostOf(n.SMPBaseURL(0))
	for i, id := range ids[:3] {
		_, _, err := l.Lookup(context.Background(), id)
		if registry.ErrorCode(err) != registry.CodeLookupFailed {
			t.Fatalf("lookup %d of a hanging SMP: %v, want lookup_failed", i, err)
		}
	}
	if _, open := failuresOf(l.smpGates, host); !open {
		t.Fatal("the breaker is closed after 3 timeouts of a hanging host")
	}
	before := n.Hits().SMP[0]
	_, _, err := l.Lookup(context.Background(), ids[3])
	var co *circuitOpenError
	if !errors.As(err, &co) {
		t.Errorf("lookup with the breaker open: %v, want it refused by the breaker", err)
	}
	if after := n.Hits().SMP[0]; after.ServiceGroup != before.ServiceGroup || after.ServiceMetadata != before.ServiceMetadata {
		t.Errorf("hits went from %+v to %+v; an open breaker must not send", before, after)
	}
}

// TestInteractiveJoinRaisesBulkFlight: a lookup a bulk check started waits among the
// bulk requests; when an interactive caller asks for the same participant it joins that
// flight, which is raised: its request moves ahead of the bulk requests waiting before
// it and the interactive caller gets its answer while those still wait.
func TestInteractiveJoinRaisesBulkFlight(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	ids := hostParticipants(t, n, 0, 2)
	l, _ := newLive(t, n, func(c *Config) {
		c.SMPHostConcurrency = 2 // a bulk share of one slot, one kept for interactive requests
		c.LookupTimeout = 2 * time.Second
	})
	host := hostOf(n.SMPBaseURL(0))
	bulk := registry.WithBulk(context.Background())
	// The bulk share is taken, and the interactive slot too.
	holdBulk, err := l.smpGates.Enter(bulk, host)
	if err != nil {
		t.Fatal(err)
	}
	holdOther, err := l.smpGates.Enter(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	defer holdOther(smp.HostUnknown)
	// A bulk row waits first, then the bulk lookup of ids[1].
	first := make(chan error, 1)
	go func() {
		done, err := l.smpGates.Enter(bulk, host)
		if err == nil {
			done(smp.HostUnknown)
		}
		first <- err
	}()
	waitUsers(t, l.smpGates, host, 3)
	ctx, cancel := context.WithCancel(bulk)
	defer cancel()
	go func() { _, _, _ = l.Lookup(ctx, ids[1]) }()
	waitUsers(t, l.smpGates, host, 4)

	answer := make(chan error, 1)
	go func() {
		p, _, err := l.Lookup(context.Background(), ids[1])
		if err == nil && (p.SMP == nil || p.SMP.Endpoint == nil) {
			err = errors.New("no endpoint")
		}
		answer <- err
	}()
	// Once the interactive caller has joined (the flight's budget is raised), the bulk
	// slot comes free: it goes to the raised flight, not to the bulk row queued first.
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		l.smpGates.mu.Lock()
		hg := l.smpGates.hosts[host]
		moved := len(hg.waiting[0]) == 1 && len(hg.waiting[1]) == 1
		l.smpGates.mu.Unlock()
		if moved {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the raised flight's request never moved to the interactive queue")
		}
	}
	// The freed slot is handed over under the gate's lock before holdBulk returns: the
	// raised flight's request has left the interactive queue then. (The bulk row may
	// be served a moment later, once the raised flight's quick request is done, so its
	// queue is not looked at.)
	holdBulk(smp.HostUnknown)
	l.smpGates.mu.Lock()
	hg := l.smpGates.hosts[host]
	served := len(hg.waiting[0]) == 0
	l.smpGates.mu.Unlock()
	if !served {
		t.Error("the freed slot did not go to the raised flight ahead of the bulk row queued first")
	}
	select {
	case err := <-answer:
		if err != nil {
			t.Fatalf("the interactive caller: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the interactive caller got no answer within a minute")
	}
	select {
	case err := <-first: // its turn came after the raised flight's
		if err != nil {
			t.Errorf("the bulk row: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the bulk row never got its turn")
	}
}

// TestHostGatesWaitAllowance: a request of a fetch waits for its host's slot at most
// the fetch's waiting allowance, then gives up with *hostBusyError naming
// errWaitedTooLong, without the fetch's deadline having moved on meanwhile and without
// anything recorded on the breaker.
func TestHostGatesWaitAllowance(t *testing.T) {
	t.Parallel()
	g := newHostGates(1, 3, time.Minute, 30*time.Second, time.Now)
	hold, err := g.Enter(context.Background(), "smp.example")
	if err != nil {
		t.Fatal(err)
	}
	b, cancel := newBudget(context.Background(), time.Second)
	defer cancel()
	_, err = g.Enter(b, "smp.example")
	var busy *hostBusyError
	if !errors.As(err, &busy) || !errors.Is(err, errWaitedTooLong) || !refused(err) {
		t.Fatalf("a wait past the allowance: %v, want *hostBusyError for errWaitedTooLong", err)
	}
	if b.Err() != nil {
		t.Errorf("the fetch's budget ended while it only waited: %v", b.Err())
	}
	hold(smp.HostUp)
	if run, open := failuresOf(g, "smp.example"); run != 0 || open {
		t.Errorf("breaker counts %d (open %v) after a wait that gave up", run, open)
	}
	// Once a fetch has used its allowance, its further waits are refused at once.
	hold, _ = g.Enter(context.Background(), "smp.example")
	defer hold(smp.HostUp)
	if _, err := g.Enter(b, "smp.example"); !errors.Is(err, errWaitedTooLong) {
		t.Errorf("a second wait of the same fetch: %v", err)
	}
	if hg := g.hosts["smp.example"]; len(hg.waiting[0])+len(hg.waiting[1]) != 0 {
		t.Error("a wait that gave up is still queued")
	}
}

// TestBreakerCountsTimeoutsAfterSlowDNS: a dead SMP host asked late in its lookups,
// after a slow DNS step, is still a real failure: each request had seconds on the wire
// (more than fairWireTime) before the lookup's deadline ended it, though less than half
// the deadline, and after BreakerFailures of them the breaker opens.
func TestBreakerCountsTimeoutsAfterSlowDNS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 10 s")
	}
	t.Parallel()
	n := startNet(t, 300)
	ids := hostParticipants(t, n, 0, 3)
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: 9 * time.Second, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := newLive(t, n, func(c *Config) {
		c.BreakerFailures = 3
		c.LookupTimeout = 10 * time.Second
		c.Resolver = res
	})
	// The DNS answers after 5.5 s, so each SMP request has about 4.5 s of the 10 s
	// lookup: more than 3 s, less than half of it.
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: 5500 * time.Millisecond})
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{Hang: true})
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeLookupFailed {
				t.Errorf("lookup of a hanging SMP: %v, want lookup_failed", err)
			}
		})
	}
	wg.Wait()
	if run, open := failuresOf(l.smpGates, hostOf(n.SMPBaseURL(0))); !open {
		t.Errorf("the breaker is closed (%d failures counted) after 3 timeouts of a dead host asked after a slow DNS step", run)
	}
}
