package peppolnet

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// The tests of this file run several Registries, each with its own *fleet.Fleet (its
// own connection and down/up state, as a replica has), on one real redis-server and
// one netsim network: the replicas of one deployment (docs/ARCHITECTURE.md §7).

// replicaOpts say how to build one simulated replica.
type replicaOpts struct {
	url, prefix, scope string
	clock              *clock.Fake
}

// newReplica returns a Registry over n sharing Redis at o.url under o.prefix and
// o.scope, reading o.clock.
func newReplica(t testing.TB, n *netsim.Network, o replicaOpts) *Registry {
	t.Helper()
	// A generous deadline per operation: the tests must not race 50 ms on a busy
	// machine (a slow Redis is a fallback to local state, not what they test).
	f, err := fleet.Open(fleet.Options{URL: o.url, Prefix: o.prefix, OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("fleet.Open: %v", err)
	}
	t.Cleanup(f.Close)
	l, _ := newLive(t, n, func(c *Config) {
		c.Fleet = f
		c.FleetScope = o.scope
		c.Now = o.clock.Now
	})
	return l
}

// newReplicas returns count replicas of one deployment.
func newReplicas(t testing.TB, n *netsim.Network, o replicaOpts, count int) []*Registry {
	t.Helper()
	out := make([]*Registry, count)
	for i := range out {
		out[i] = newReplica(t, n, o)
	}
	return out
}

// upstreamRound is what one lookup asks upstream: NAPTR queries, ServiceGroups,
// ServiceMetadata and Directory searches.
type upstreamRound struct{ naptr, sg, sm, dir int64 }

// roundOf returns what the netsim hit counts h say was asked upstream.
func roundOf(h netsim.HitCounts) upstreamRound {
	sg, sm := smpHits(h)
	return upstreamRound{naptr: h.DNS.ByType["NAPTR"], sg: sg, sm: sm, dir: h.Directory.Search}
}

func TestFleetCoalescesColdLookups(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	reps := newReplicas(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clock.NewFake(testNow)}, 3)
	// Slow answers keep the first round in flight while the others arrive.
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: 200 * time.Millisecond})
	n.ResetHits()
	id := mustID(t, netsim.KnownBelgian)
	var wg sync.WaitGroup
	errs := make(chan error, 30)
	for i := range 30 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, _, err := reps[i%3].Lookup(ctx, id)
			if err == nil && p.SMP == nil {
				err = fmt.Errorf("replica %d: no smp record", i%3)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := roundOf(n.Hits()), (upstreamRound{1, 1, 1, 1}); got != want {
		t.Errorf("30 lookups over 3 replicas asked upstream %+v, want one round %+v", got, want)
	}
	for i, l := range reps {
		if st := l.cfg.Fleet.Status(); st.Downs != 0 {
			t.Errorf("replica %d: Redis found down: %+v", i, st)
		}
	}
}

func TestFleetSharesAnswers(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	reps := newReplicas(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clock.NewFake(testNow)}, 2)
	ctx := context.Background()
	id := mustID(t, netsim.KnownBelgian)
	missing := mustID(t, "0208:0000000097")
	search := registry.SearchQuery{Q: "BE 0677.424.046"}

	tests := []struct {
		name string
		ask  func(l *Registry) (any, registry.Freshness, error)
	}{
		{"lookup", func(l *Registry) (any, registry.Freshness, error) { return l.Lookup(ctx, id) }},
		{"not found", func(l *Registry) (any, registry.Freshness, error) { return l.Lookup(ctx, missing) }},
		{"services", func(l *Registry) (any, registry.Freshness, error) { return l.Services(ctx, id, "") }},
		{"services of one document type", func(l *Registry) (any, registry.Freshness, error) {
			return l.Services(ctx, id, bisBillingInvoice.String())
		}},
		{"search", func(l *Registry) (any, registry.Freshness, error) { return l.Search(ctx, search) }},
	}
	for _, tt := range tests {
		// Not parallel: each case counts the network's hits.
		t.Run(tt.name, func(t *testing.T) {
			v1, fr1, err1 := tt.ask(reps[0])
			if fr1.Cached {
				t.Fatalf("replica 1: first answer cached: %+v", fr1)
			}
			n.ResetHits()
			v2, fr2, err2 := tt.ask(reps[1])
			if got := roundOf(n.Hits()); got != (upstreamRound{}) {
				t.Errorf("replica 2 asked upstream %+v, want nothing (the shared cache answers)", got)
			}
			if !fr2.Cached || fr2.Stale || fr2.TTL != fr1.TTL {
				t.Errorf("replica 2: freshness %+v, want cached with TTL %v", fr2, fr1.TTL)
			}
			if fmt.Sprint(err1) != fmt.Sprint(err2) || registry.ErrorCode(err1) != registry.ErrorCode(err2) {
				t.Errorf("replica 2: err %v, want %v", err2, err1)
			}
			if a, b := mustJSON(t, v1), mustJSON(t, v2); a != b {
				t.Errorf("replica 2's answer differs:\n%s\nreplica 1's:\n%s", b, a)
			}
		})
	}
}

func TestFleetServesStaleAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	clk := clock.NewFake(testNow)
	reps := newReplicas(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clk}, 2)
	id := mustID(t, netsim.KnownNorwegian)
	first, _, err := reps[0].Lookup(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// Time passes for the replicas and for Redis, which measures a shared answer's age
	// by its key's TTL: that runs down as much.
	adv := registry.DefaultPositiveTTL + 5*time.Minute
	clk.Advance(adv)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	key := reps[0].lookups.redisKey("c", id.String())
	pttl, err := rdb.PTTL(context.Background(), key).Result()
	if err != nil || pttl <= adv {
		t.Fatalf("PTTL of the shared answer: %v, %v", pttl, err)
	}
	if err := rdb.PExpire(context.Background(), key, pttl-adv).Err(); err != nil {
		t.Fatal(err)
	}
	n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	got, fr, err := reps[1].Lookup(context.Background(), id)
	if err != nil {
		t.Fatalf("replica 2, upstream failing, answer of replica 1 expired: %v; want it served stale", err)
	}
	if !fr.Stale || !fr.Cached || fr.Age < adv || fr.Age > adv+time.Minute {
		t.Errorf("freshness %+v, want stale, age %v", fr, adv)
	}
	if a, b := mustJSON(t, first), mustJSON(t, got); a != b {
		t.Errorf("stale answer differs from replica 1's:\n%s\n%s", b, a)
	}
}

func TestFleetTakesOverFromDeadHolder(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	scope := "net-test"
	l := newReplica(t, n, replicaOpts{url: srv.URL(0), scope: scope, clock: clock.NewFake(testNow)})
	// A lookup that may wait a minute: only the take-over, not the waiting allowance,
	// can end its wait within a few seconds.
	l.cfg.LookupTimeout = time.Minute
	// A replica took the lease of this lookup and died: it never writes nor releases.
	lease := l.lookups.redisKey("lease", netsim.KnownBelgian)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if err := rdb.Set(context.Background(), lease, "dead-replica", 3*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	p, _, err := l.Lookup(ctx, mustID(t, netsim.KnownBelgian))
	if err != nil || p.SMP == nil {
		t.Fatalf("lookup under a dead holder's lease: %v", err)
	}
	// Taken over when the lease expired (3 s), long before the lookup's allowance.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the lookup took %v under a lease dead for 3 s: not taken over", took)
	}
	// The lookup waited for the lease to expire, took it over and released it.
	if v, err := rdb.Get(context.Background(), lease).Result(); err != redis.Nil {
		t.Errorf("lease = %q, %v after the lookup; want it taken over and released", v, err)
	}
	if got := roundOf(n.Hits()); got != (upstreamRound{1, 1, 1, 1}) {
		t.Errorf("upstream %+v, want one round", got)
	}
}

func TestFleetSurvivesRedisDeath(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	reps := newReplicas(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clock.NewFake(testNow)}, 3)
	ids := []string{netsim.KnownBelgian, netsim.KnownNorwegian, netsim.KnownGLN, netsim.KnownDutch,
		netsim.KnownSwedish, netsim.KnownGerman, netsim.KnownFrenchSIREN, "0208:0000000097"}
	ask := func(i int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		id := ids[i%len(ids)]
		_, _, err := reps[i%3].Lookup(ctx, mustID(t, id))
		if err != nil && registry.ErrorCode(err) != registry.CodeNotFound {
			t.Errorf("lookup %d of %s on replica %d: %v", i, id, i%3, err)
		}
	}
	for i := range 12 {
		ask(i)
	}
	srv.Kill()
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() { ask(12 + i) })
	}
	wg.Wait()
	for i, l := range reps {
		if l.cfg.Fleet.Up() {
			t.Errorf("replica %d: fleet up with Redis killed", i)
		}
	}

	srv.Restart(t)
	deadline := time.Now().Add(20 * time.Second)
	for _, l := range reps {
		for !fleetAnswers(l.cfg.Fleet) {
			if time.Now().After(deadline) {
				t.Fatal("the replicas did not find Redis again within 20 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	id := mustID(t, netsim.KnownAustralian)
	if _, _, err := reps[0].Lookup(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	n.ResetHits()
	_, fr, err := reps[1].Lookup(context.Background(), id)
	if err != nil || !fr.Cached {
		t.Errorf("after the restart, replica 2: freshness %+v err %v; want replica 1's answer from Redis", fr, err)
	}
	if got := roundOf(n.Hits()); got != (upstreamRound{}) {
		t.Errorf("after the restart, replica 2 asked upstream %+v", got)
	}
}

// fleetAnswers reports whether f is up and a PING through it succeeds.
func fleetAnswers(f *fleet.Fleet) bool {
	if !f.Up() {
		return false
	}
	return f.Do(context.Background(), "test ping", func(ctx context.Context, c *redis.Client) error {
		return c.Ping(ctx).Err()
	}) == nil
}

func TestFleetScopesAndPrefixesApart(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	clk := clock.NewFake(testNow)
	url := srv.URL(0)
	first := newReplica(t, n, replicaOpts{url: url, prefix: "blue", scope: "net-test", clock: clk})
	id := mustID(t, netsim.KnownBelgian)
	if _, _, err := first.Lookup(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		prefix, scope string
		shared        bool
	}{
		{"same deployment", "blue", "net-test", true},
		{"other network", "blue", "net-production", false},
		{"other deployment", "green", "net-test", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newReplica(t, n, replicaOpts{url: url, prefix: tt.prefix, scope: tt.scope, clock: clk})
			n.ResetHits()
			_, fr, err := l.Lookup(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			asked := roundOf(n.Hits()) != upstreamRound{}
			if fr.Cached != tt.shared || asked == tt.shared {
				t.Errorf("prefix %s scope %s: cached %v, asked upstream %v; want the first replica's answer shared: %v",
					tt.prefix, tt.scope, fr.Cached, asked, tt.shared)
			}
		})
	}
}

// mustJSON returns v as JSON, as clients see it.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFleetScopeRequired: a registry with a fleet but no FleetScope is refused, since
// two networks in one process would share answers under one scope.
func TestFleetScopeRequired(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	res, err := sml.New(sml.Config{Servers: []string{"127.0.0.1:53"}, Zone: "edelivery.tech.ec.europa.eu."})
	if err != nil {
		t.Fatal(err)
	}
	base := Config{Resolver: res, SMP: &smp.Client{}, Directory: &directory.Client{}, Fleet: f}
	tests := []struct {
		name    string
		scope   string
		wantErr bool
	}{
		{"no scope", "", true},
		{"a scope", "net-test", false},
	}
	for _, tt := range tests {
		c := base
		c.FleetScope = tt.scope
		if _, err := c.withDefaults(); (err != nil) != tt.wantErr {
			t.Errorf("%s: withDefaults: %v, want an error: %v", tt.name, err, tt.wantErr)
		}
	}
}

// TestFleetAgeOnRedisClock: an answer written by a replica whose clock is behind is
// not made older on the others: its age is measured on Redis's clock (the key's
// remaining TTL), not from the writer's fetched time.
func TestFleetAgeOnRedisClock(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	n := startNet(t, 300)
	behind := newReplica(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clock.NewFake(testNow.Add(-10 * time.Minute))})
	right := newReplica(t, n, replicaOpts{url: srv.URL(0), scope: "net-test", clock: clock.NewFake(testNow)})
	ctx := context.Background()
	id := mustID(t, netsim.KnownBelgian)
	if _, _, err := behind.Lookup(ctx, id); err != nil {
		t.Fatal(err)
	}
	_, fr, err := right.Lookup(ctx, id)
	if err != nil || !fr.Cached {
		t.Fatalf("lookup on the other replica: %+v, %v; want the shared answer", fr, err)
	}
	if fr.Age > time.Minute {
		t.Errorf("a just-fetched answer is %v old on a replica 10 min ahead of its writer, want under a minute", fr.Age)
	}
}
