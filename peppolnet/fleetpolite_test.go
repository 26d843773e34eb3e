package peppolnet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// replica is one simulated replica of a fleet: a Registry over the shared netsim
// network with its own *fleet.Fleet on the shared Redis, and its own fake clock (for
// its breakers' cool-downs).
type replica struct {
	*Registry
	clock *clock.Fake
	fleet *fleet.Fleet
}

// newPoliteReplicas returns count Registries over n, each with its own fleet.Open on srv's
// Redis and the same FleetScope, as the replicas of one deployment; edit adjusts every
// config before New.
func newPoliteReplicas(t *testing.T, n *netsim.Network, srv *redistest.Server, count int, edit func(*Config)) []replica {
	t.Helper()
	var out []replica
	for range count {
		// A generous deadline per operation: these tests show what is shared, and a
		// busy test machine must not make Redis look slow (then each replica falls
		// back to its own limits, as TestFleetPolitenessRedisDown shows).
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "polite", ProbeEvery: 50 * time.Millisecond, OpTimeout: 2 * time.Second})
		if err != nil {
			t.Fatalf("fleet.Open: %v", err)
		}
		t.Cleanup(f.Close)
		l, clk := newLive(t, n, func(c *Config) {
			c.Fleet = f
			c.FleetScope = "net-test"
			if edit != nil {
				edit(c)
			}
		})
		out = append(out, replica{Registry: l, clock: clk, fleet: f})
	}
	return out
}

// checkShared fails t when a replica fell back to its own state during the test.
func checkShared(t *testing.T, rs []replica) {
	t.Helper()
	for i, r := range rs {
		if st := r.fleet.Status(); st.Downs != 0 {
			t.Fatalf("replica %d found Redis down during the test (%s): the test shows nothing shared", i+1, st.LastError)
		}
	}
}

// failLookups looks up ids on r while their SMP host fails, expecting lookup_failed.
func failLookups(t *testing.T, r replica, ids []peppol.ParticipantID) {
	t.Helper()
	for _, id := range ids {
		if _, _, err := r.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeLookupFailed {
			t.Fatalf("lookup of %s while its SMP fails: %v", id, err)
		}
	}
}

// refusedByBreaker reports whether err is lookup_failed for an open breaker, with a
// Retry-After of at most cooldown.
func refusedByBreaker(err error, cooldown time.Duration) bool {
	var e *registry.Error
	return errors.As(err, &e) && e.Code == registry.CodeLookupFailed && e.RetryAfter > 0 && e.RetryAfter <= cooldown &&
		strings.Contains(e.Message, "so peppolgate is not asking it for now")
}

// TestFleetBreakerSharedAcrossReplicas: an SMP host's breaker opened on replica 1 is
// open on replicas 2 and 3 at their next request to that host (so well within a
// second), although they found it healthy just before: they refuse lookups on that
// host without sending. When the fleet-wide
// cool-down ends the replicas probe, and a failed probe opens the breaker fleet-wide
// again.
func TestFleetBreakerSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 600)
	ids := hostParticipants(t, n, 0, 10)
	const cooldown = 2 * time.Second
	rs := newPoliteReplicas(t, n, srv, 3, func(c *Config) {
		c.BreakerFailures = 3
		c.BreakerCooldown = cooldown
	})
	// Replicas 2 and 3 have just found the host healthy.
	for i, r := range rs[1:] {
		if _, _, err := r.Lookup(context.Background(), ids[8+i]); err != nil {
			t.Fatalf("replica %d, healthy host: %v", i+2, err)
		}
	}
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{HTTPStatus: 503})
	failLookups(t, rs[0], ids[:3]) // opens replica 1's breaker

	checkShared(t, rs)
	before := n.Hits().SMP[0]
	for i, r := range rs[1:] {
		_, _, err := r.Lookup(context.Background(), ids[3+i])
		if !refusedByBreaker(err, cooldown) {
			t.Errorf("replica %d after replica 1 opened the breaker: %v, want lookup_failed for an open breaker", i+2, err)
		}
	}
	if after := n.Hits().SMP[0]; after != before {
		t.Fatalf("SMP hits went from %+v to %+v: replicas 2 and 3 sent to a host whose breaker replica 1 opened", before, after)
	}

	// The fleet's cool-down ends (Redis's clock) and so do the replicas' own (their
	// fake clocks): replica 2 probes, the host still fails, and the breaker is open
	// fleet-wide again.
	time.Sleep(cooldown)
	for _, r := range rs {
		r.clock.Advance(cooldown)
	}
	probeBefore := n.Hits().SMP[0].ServiceGroup
	failLookups(t, rs[1], ids[5:6])
	if got := n.Hits().SMP[0].ServiceGroup - probeBefore; got != 1 {
		t.Fatalf("replica 2 sent %d requests after the cool-down, want one probe", got)
	}
	before = n.Hits().SMP[0]
	for i, r := range []replica{rs[0], rs[2]} {
		_, _, err := r.Lookup(context.Background(), ids[6+i])
		if !refusedByBreaker(err, cooldown) {
			t.Errorf("replica %d after replica 2's probe failed: %v, want lookup_failed for an open breaker", 2*i+1, err)
		}
	}
	if after := n.Hits().SMP[0]; after != before {
		t.Errorf("SMP hits went from %+v to %+v after the failed probe re-opened the breaker", before, after)
	}
}

// searchWords returns count distinct free-text queries (letters only, so each is one
// Directory request).
func searchWords(prefix string, count int) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = fmt.Sprintf("%s%c%c", prefix, 'a'+i/26, 'a'+i%26)
	}
	return out
}

// TestFleetDirectoryBudget: searches spread over three replicas at once reach the
// Directory no faster than one budget allows (burst, then rate per second), and all
// are answered.
func TestFleetDirectoryBudget(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 100)
	const rate, burst, perReplica = 10, 2, 10
	rs := newPoliteReplicas(t, n, srv, 3, func(c *Config) {
		c.DirectoryRate = rate
		c.DirectoryBurst = burst
		c.SearchTimeout = 20 * time.Second
	})
	n.ResetHits()
	start := time.Now()
	var wg sync.WaitGroup
	for i, r := range rs {
		for _, q := range searchWords(fmt.Sprintf("firm%c", 'a'+i), perReplica) {
			wg.Go(func() {
				if _, _, err := r.Search(context.Background(), registry.SearchQuery{Q: q}); err != nil {
					t.Errorf("replica %d, search %q: %v", i+1, q, err)
				}
			})
		}
	}
	wg.Wait()
	checkShared(t, rs)
	elapsed := time.Since(start)
	got := n.Hits().Directory.Search
	if got != 3*perReplica {
		t.Fatalf("the Directory saw %d searches, want %d", got, 3*perReplica)
	}
	// Every request reached the Directory within elapsed: one budget allows at most
	// burst + rate·elapsed of them (one more for rounding).
	if allowed := burst + rate*elapsed.Seconds() + 1; float64(got) > allowed {
		t.Errorf("the Directory saw %d searches in %v; one budget of %d/s (burst %d) allows %.1f", got, elapsed.Round(time.Millisecond), rate, burst, allowed)
	}
}

// TestFleetSMPHostCap: cold lookups of distinct participants of one slow SMP host,
// spread over three replicas at once, never have more requests in flight at that host
// than one SMPHostConcurrency, and all are answered.
func TestFleetSMPHostCap(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 600)
	const limit, perReplica = 2, 3
	ids := hostParticipants(t, n, 0, 3*perReplica)
	rs := newPoliteReplicas(t, n, srv, 3, func(c *Config) {
		c.SMPHostConcurrency = limit
		c.LookupTimeout = 20 * time.Second
	})
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{Latency: 200 * time.Millisecond})
	n.ResetHits()
	var wg sync.WaitGroup
	for i, id := range ids {
		r := rs[i%len(rs)]
		wg.Go(func() {
			if p, _, err := r.Lookup(context.Background(), id); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
				t.Errorf("lookup %s: %+v, %v", id, p, err)
			}
		})
	}
	wg.Wait()
	checkShared(t, rs)
	h := n.Hits().SMP[0]
	if want := int64(len(ids)); h.ServiceGroup != want || h.ServiceMetadata != want {
		t.Errorf("hits %+v, want %d of each", h, want)
	}
	// Nine lookups waiting on a 200 ms host fill every slot of the fleet; none beyond.
	if h.MaxInFlight != limit {
		t.Errorf("the SMP host held %d requests at once, want the fleet's cap, %d", h.MaxInFlight, limit)
	}
	for i, r := range rs {
		if len(r.smpGates.hosts) != 0 {
			t.Errorf("replica %d remembers %d SMP hosts after all went well", i+1, len(r.smpGates.hosts))
		}
	}
}

// TestFleetPolitenessRedisDown: Redis killed in the middle of searches that wait for
// the fleet's Directory budget: every search and lookup is still answered, under each
// replica's own limits; once Redis is back, breakers are shared again.
func TestFleetPolitenessRedisDown(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 600)
	rs := newPoliteReplicas(t, n, srv, 3, func(c *Config) {
		c.DirectoryRate = 10
		c.DirectoryBurst = 2
		c.SearchTimeout = 20 * time.Second
		c.LookupTimeout = 20 * time.Second
		c.BreakerFailures = 3
		c.SMPHostConcurrency = 2
	})
	var wg sync.WaitGroup
	for i, r := range rs {
		for _, q := range searchWords(fmt.Sprintf("corp%c", 'a'+i), 8) {
			wg.Go(func() {
				if _, _, err := r.Search(context.Background(), registry.SearchQuery{Q: q}); err != nil {
					t.Errorf("replica %d, search %q: %v", i+1, q, err)
				}
			})
		}
	}
	time.Sleep(500 * time.Millisecond) // some searches are waiting for the fleet's budget
	srv.Kill()
	ids := hostParticipants(t, n, 1, 6)
	n.SetFault(netsim.SMPHostTarget(1), netsim.Fault{Latency: 50 * time.Millisecond})
	for i, id := range ids {
		r := rs[i%len(rs)]
		wg.Go(func() {
			if p, _, err := r.Lookup(context.Background(), id); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
				t.Errorf("lookup %s with Redis down: %+v, %v", id, p, err)
			}
		})
	}
	wg.Wait()
	for i, r := range rs {
		if r.fleet.Up() {
			t.Errorf("replica %d still thinks Redis is up", i+1)
		}
	}

	srv.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for _, r := range rs {
		for !r.fleet.Up() {
			if time.Now().After(deadline) {
				t.Fatal("the replicas did not find Redis again within 10 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	n.ClearFaults()
	fail := hostParticipants(t, n, 2, 5)
	n.SetFault(netsim.SMPHostTarget(2), netsim.Fault{HTTPStatus: 503})
	failLookups(t, rs[0], fail[:3])
	before := n.Hits().SMP[2]
	for i, r := range rs[1:] {
		if _, _, err := r.Lookup(context.Background(), fail[3+i]); !refusedByBreaker(err, DefaultBreakerCooldown) {
			t.Errorf("replica %d after Redis came back and replica 1 opened a breaker: %v", i+2, err)
		}
	}
	if after := n.Hits().SMP[2]; after != before {
		t.Errorf("SMP hits went from %+v to %+v: the breaker is not shared after Redis came back", before, after)
	}
}

// TestFleetDirectoryPauseAndBreaker: the Directory's Retry-After and its breaker, met
// by replica 1, hold on replicas 2 and 3 at once: their searches fail fast with
// search_failed and a Retry-After, and nothing reaches the Directory.
func TestFleetDirectoryPauseAndBreaker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		fault    netsim.Fault
		failures int // searches replica 1 makes while the Directory fails
	}{
		{"429 with Retry-After pauses every replica", netsim.Fault{HTTPStatus: 429, RetryAfter: "30"}, 1},
		{"a breaker opened on one replica is open on all", netsim.Fault{HTTPStatus: 500}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			n := startNet(t, 50)
			rs := newPoliteReplicas(t, n, srv, 3, func(c *Config) { c.BreakerFailures = 3 })
			// Replicas 2 and 3 have just found the Directory healthy.
			for i, r := range rs[1:] {
				if _, _, err := r.Search(context.Background(), registry.SearchQuery{Q: fmt.Sprintf("warm%c", 'a'+i)}); err != nil {
					t.Fatalf("replica %d, healthy Directory: %v", i+2, err)
				}
			}
			n.SetFault(netsim.DirectoryTarget(), tt.fault)
			for _, q := range searchWords("fail", tt.failures) {
				if _, _, err := rs[0].Search(context.Background(), registry.SearchQuery{Q: q}); registry.ErrorCode(err) != registry.CodeSearchFailed {
					t.Fatalf("replica 1, search %q while the Directory fails: %v", q, err)
				}
			}
			checkShared(t, rs)
			before := n.Hits().Directory.Search
			for i, r := range rs[1:] {
				_, _, err := r.Search(context.Background(), registry.SearchQuery{Q: fmt.Sprintf("later%c", 'a'+i)})
				var e *registry.Error
				if !errors.As(err, &e) || e.Code != registry.CodeSearchFailed || e.RetryAfter <= 0 || e.RetryAfter > 30*time.Second {
					t.Errorf("replica %d after replica 1 met the fault: %v, want search_failed with a Retry-After", i+2, err)
				}
			}
			if after := n.Hits().Directory.Search; after != before {
				t.Errorf("replicas 2 and 3 sent %d Directory requests, want none", after-before)
			}
		})
	}
}

// newFleetGates returns count hostGates of perHost slots, one per simulated replica,
// each with its own fleet.Open on srv's Redis.
func newFleetGates(t *testing.T, srv *redistest.Server, count, perHost int) []*hostGates {
	t.Helper()
	var out []*hostGates
	for range count {
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "gates", OpTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		g := newHostGates(perHost, 3, time.Minute, 30*time.Second, time.Now)
		g.fleet = newFleetPolite(Config{Fleet: f, FleetScope: "s", SMP: &smp.Client{}, SMPHostConcurrency: perHost, BreakerFailures: 3, BreakerCooldown: 30 * time.Second})
		out = append(out, g)
	}
	return out
}

// TestFleetHostSlots: an SMP host's slots are counted over the fleet, bulk requests
// hold at most their share of them fleet-wide (3 of 4), and the slots of a replica
// that crashed holding them come free when their holders expire.
func TestFleetHostSlots(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	gs := newFleetGates(t, srv, 2, 4)
	a, b := gs[0], gs[1]
	const host = "smp.example:443"
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel() // takes a free slot, but cannot wait for one
	bulk := registry.WithBulk(ctx)

	// Replica a's bulk requests take the fleet's bulk share.
	var dones []func(smp.HostOutcome)
	for i := range 3 {
		done, err := a.Enter(bulk, host)
		if err != nil {
			t.Fatalf("bulk request %d on replica a: %v", i+1, err)
		}
		dones = append(dones, done)
	}
	// Replica b has local slots free, but the fleet's bulk share is used up.
	var busy *hostBusyError
	if _, err := b.Enter(registry.WithBulk(cancelled), host); !errors.As(err, &busy) {
		t.Fatalf("a bulk request on replica b beyond the fleet's bulk share: %v, want *hostBusyError", err)
	}
	// An interactive request gets the last slot, and then the host is full.
	done, err := b.Enter(ctx, host)
	if err != nil {
		t.Fatalf("an interactive request on replica b: %v", err)
	}
	if _, err := b.Enter(cancelled, host); !errors.As(err, &busy) {
		t.Fatalf("a fifth request over the fleet: %v, want *hostBusyError", err)
	}
	// A slot given back on a is free for b.
	dones[0](smp.HostUp)
	next, err := b.Enter(cancelled, host)
	if err != nil {
		t.Fatalf("after replica a gave a slot back: %v", err)
	}
	next(smp.HostUp)
	done(smp.HostUp)

	// Replica a crashes holding every slot of another host (they are never given
	// back); they come free when their holders expire, and b's waiting request gets
	// one.
	const other = "smp.example.net:443"
	a.fleet.slotTTL = 500 * time.Millisecond
	for range 4 {
		if _, err := a.Enter(ctx, other); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Enter(cancelled, other); !errors.As(err, &busy) {
		t.Fatalf("with replica a holding every slot: %v, want *hostBusyError", err)
	}
	waitCtx, stop := context.WithTimeout(ctx, 30*time.Second)
	defer stop()
	if _, err := b.Enter(waitCtx, other); err != nil {
		t.Fatalf("waiting for a crashed replica's slots to expire: %v", err)
	}
}

// BenchmarkHostGateEnter measures what an SMP request pays at its host's gate on the
// happy path (a slot free, breaker closed): in memory, and with the fleet (one Lua
// script to take the fleet-wide slot, one ZREM to give it back, over loopback).
func BenchmarkHostGateEnter(b *testing.B) {
	srv := redistest.Start(b)
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(f.Close)
	for _, tt := range []struct {
		name  string
		fleet *fleet.Fleet
	}{{"local", nil}, {"fleet", f}} {
		b.Run(tt.name, func(b *testing.B) {
			g := newHostGates(8, 3, time.Minute, 30*time.Second, time.Now)
			g.fleet = newFleetPolite(Config{Fleet: tt.fleet, FleetScope: "s", SMP: &smp.Client{}, SMPHostConcurrency: 8, BreakerFailures: 3, BreakerCooldown: 30 * time.Second})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				done, err := g.Enter(ctx, "smp.example:443")
				if err != nil {
					b.Fatal(err)
				}
				done(smp.HostUp)
			}
			if !tt.fleet.Up() && tt.fleet != nil {
				b.Fatal("Redis went down during the benchmark: the numbers are the local path's")
			}
		})
	}
}

// TestFleetDirectoryTurnsInteractiveFirst: with bulk rows waiting for the fleet's
// Directory budget, interactive calls still get their tokens within their waiting
// allowance (they reserve the next turns in order; bulk rows take a token only while
// one remains for interactive calls), and the bulk rows are all served too.
func TestFleetDirectoryTurnsInteractiveFirst(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	var ps []*fleetPolite
	for range 2 {
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "dirturns", OpTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		ps = append(ps, newFleetPolite(Config{Fleet: f, FleetScope: "s", SMP: &smp.Client{}, DirectoryRate: 10, DirectoryBurst: 2}))
	}
	const rows = 30
	var wg sync.WaitGroup
	bulkErrs := make(chan error, rows)
	for range rows {
		wg.Go(func() {
			// A bulk row may wait 6 × 10 s: long enough for every row at 10/s.
			ctx, cancel := newBudget(registry.WithBulk(context.Background()), 10*time.Second)
			defer cancel()
			_, _, err := ps[0].directoryTurn(ctx)
			bulkErrs <- err
		})
	}
	time.Sleep(300 * time.Millisecond) // the rows are waiting
	const interactive = 3
	errs := make(chan error, interactive)
	for range interactive {
		wg.Go(func() {
			ctx, cancel := newBudget(context.Background(), time.Second)
			defer cancel()
			_, _, err := ps[1].directoryTurn(ctx)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	close(bulkErrs)
	for err := range errs {
		if err != nil {
			t.Errorf("an interactive call behind %d bulk rows: %v, want a token within its second", rows, err)
		}
	}
	for err := range bulkErrs {
		if err != nil {
			t.Errorf("a bulk row: %v", err)
		}
	}
}

// TestFleetSlotReleasedAfterBlip: a fleet-wide SMP slot whose release failed while
// Redis did not answer (here: paused, with its data kept) is given back once Redis
// answers again, rather than held until its holder expires.
func TestFleetSlotReleasedAfterBlip(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	// A short operation deadline: this test is about Redis not answering in time.
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "blip", OpTimeout: 200 * time.Millisecond, ProbeEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	p := newFleetPolite(Config{Fleet: f, FleetScope: "s", SMP: &smp.Client{}, SMPHostConcurrency: 4})
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	const host = "smp.example:443"
	interactive := func() bool { return false }
	release, _, err := p.acquireSlot(ctx, host, interactive)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.ZCard(ctx, p.hostSlotsKey(host)).Result(); err != nil || n != 1 {
		t.Fatalf("slot holders %d, %v; want 1", n, err)
	}
	if err := rdb.Do(ctx, "CLIENT", "PAUSE", "1500", "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	release() // times out: Redis does not answer
	deadline := time.Now().Add(20 * time.Second)
	for !f.Up() || !fleetAnswers(f) {
		if time.Now().After(deadline) {
			t.Fatal("Redis not back within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The replica's next request to any host gives the lost release's slot back.
	next, _, err := p.acquireSlot(ctx, "other.example:443", interactive)
	if err != nil {
		t.Fatal(err)
	}
	next()
	if n, err := rdb.ZCard(ctx, p.hostSlotsKey(host)).Result(); err != nil || n != 0 {
		t.Errorf("slot holders of %s after Redis came back: %d, %v; want 0", host, n, err)
	}
}
