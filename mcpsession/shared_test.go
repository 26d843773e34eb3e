package mcpsession_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/mcpsession"
)

// replica is one simulated replica: its own fleet connection, clock and store, and
// the ids its store handed to Forget.
type replica struct {
	f     *fleet.Fleet
	clock *clock.Fake
	store *mcpsession.Shared

	mu     sync.Mutex
	forgot []string
}

func (r *replica) forgotten() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.forgot)
}

// replicas opens n stores on the Redis of srv, each with its own fleet.Open (so its
// own down/up state) and clock, with opt's TTL and caps.
func replicas(t *testing.T, srv *redistest.Server, n int, opt mcpsession.Options) []*replica {
	t.Helper()
	var out []*replica
	for range n {
		// A generous deadline: no test here is about it, and a busy machine misses
		// 50 ms and sends a replica local.
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "mcpt", OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		r := &replica{f: f, clock: clock.NewFake(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))}
		o := opt
		o.Now = r.clock.Now
		o.Forget = func(ids []string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.forgot = append(r.forgot, ids...)
		}
		r.store = mcpsession.NewShared(f, o)
		t.Cleanup(r.store.Halt)
		out = append(out, r)
	}
	return out
}

// defaults are the stores' options of the tests: a 30 min idle TTL and roomy caps.
func defaults() mcpsession.Options {
	return mcpsession.Options{TTL: 30 * time.Minute, Max: 100, PerClient: 10, ExemptPerClient: 50}
}

// keys returns the session keys of the test's prefix (not the fleet's epoch key).
func keys(t *testing.T, f *fleet.Fleet) []string {
	t.Helper()
	var out []string
	err := f.Do(context.Background(), "keys", func(ctx context.Context, c *redis.Client) error {
		var err error
		out, err = c.Keys(ctx, f.Key("mcp", "v1", "s", "*")).Result()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// get returns the value of a key and its TTL.
func get(t *testing.T, f *fleet.Fleet, key string) (string, time.Duration) {
	t.Helper()
	var v string
	var ttl time.Duration
	err := f.Do(context.Background(), "get", func(ctx context.Context, c *redis.Client) error {
		var err error
		if v, err = c.Get(ctx, key).Result(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		ttl, err = c.PTTL(ctx, key).Result()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, ttl
}

// TestSharedAcrossReplicas: a session minted on one replica is valid on the others
// (which take it, with its client); its key holds no part of the id; a DELETE on one
// is refused as terminated on every other (at once where it was never seen, within
// Recheck where it was), and that replica forgets it in mcp-go too; a made-up id is
// unknown everywhere and its DELETE leaves nothing in Redis.
func TestSharedAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	rs := replicas(t, srv, 3, defaults())
	a, b, c := rs[0], rs[1], rs[2]
	client := netip.MustParseAddr("192.0.2.7")
	id := a.store.Generate(client, false)

	if term, err := b.store.Validate(id, false); err != nil || term {
		t.Fatalf("replica b: %v %v, want the session of replica a valid", term, err)
	}
	if b.store.Size() != 1 {
		t.Errorf("replica b holds %d sessions after using a's, want 1", b.store.Size())
	}
	ks := keys(t, a.f)
	if len(ks) != 1 || ks[0] != a.f.Key("mcp", "v1", "s", fleet.Hash(id)) {
		t.Fatalf("keys %q, want the one session key %s", ks, a.f.Key("mcp", "v1", "s", fleet.Hash(id)))
	}
	if v, ttl := get(t, a.f, ks[0]); v != "c:192.0.2.7" || ttl <= 29*time.Minute || ttl > 30*time.Minute {
		t.Errorf("the session's key holds %q with TTL %s, want c:192.0.2.7 and the 30 min idle TTL", v, ttl)
	}

	made := "mcp-session-7f1d6a7e-1111-2222-3333-444455556666"
	for i, r := range rs {
		if _, err := r.store.Validate(made, false); !errors.Is(err, mcpsession.ErrUnknown) {
			t.Errorf("replica %d: made-up id: %v, want ErrUnknown", i, err)
		}
	}
	b.store.Terminate(made)
	if ks := keys(t, a.f); len(ks) != 1 {
		t.Errorf("the DELETE of a made-up id left keys: %q", ks)
	}

	b.store.Terminate(id)
	if v, _ := get(t, a.f, ks[0]); v != "!terminated" {
		t.Errorf("after the DELETE the key holds %q, want the terminated marker", v)
	}
	if term, err := c.store.Validate(id, false); err != nil || !term {
		t.Errorf("replica c, which never held it: %v %v, want terminated", term, err)
	}
	// Replica a confirmed the session when it minted it; it trusts that for Recheck.
	if term, err := a.store.Validate(id, false); err != nil || term {
		t.Errorf("replica a within Recheck of its last check: %v %v, want still valid", term, err)
	}
	a.clock.Advance(mcpsession.Recheck)
	if term, err := a.store.Validate(id, false); err != nil || !term {
		t.Errorf("replica a after Recheck: %v %v, want terminated", term, err)
	}
	if got := a.forgotten(); !slices.Equal(got, []string{id}) {
		t.Errorf("replica a handed %q to Forget, want the terminated session (its mcp-go state goes)", got)
	}
	if a.store.Size() != 0 || b.store.Size() != 0 {
		t.Errorf("sessions held after the DELETE: a %d, b %d", a.store.Size(), b.store.Size())
	}
}

// TestSharedRefreshesTTLAtMostEveryRecheck: using a session refreshes its idle TTL in
// Redis, but at most once per Recheck per replica; untouched by use for the TTL, Redis
// forgets it, and so does every replica that does not hold it.
func TestSharedRefreshesTTLAtMostEveryRecheck(t *testing.T) {
	srv := redistest.Start(t)
	rs := replicas(t, srv, 2, defaults())
	a, b := rs[0], rs[1]
	id := a.store.Generate(netip.Addr{}, false)
	key := a.f.Key("mcp", "v1", "s", fleet.Hash(id))
	shorten := func() {
		t.Helper()
		if err := a.f.Do(context.Background(), "pexpire", func(ctx context.Context, c *redis.Client) error {
			return c.PExpire(ctx, key, time.Minute).Err()
		}); err != nil {
			t.Fatal(err)
		}
	}
	shorten()
	a.clock.Advance(mcpsession.Recheck / 2)
	if _, err := a.store.Validate(id, false); err != nil {
		t.Fatal(err)
	}
	if _, ttl := get(t, a.f, key); ttl > time.Minute {
		t.Errorf("a use within Recheck of the last check refreshed the TTL in Redis (%s)", ttl)
	}
	a.clock.Advance(mcpsession.Recheck)
	if _, err := a.store.Validate(id, false); err != nil {
		t.Fatal(err)
	}
	if _, ttl := get(t, a.f, key); ttl <= 29*time.Minute {
		t.Errorf("a use after Recheck left the TTL at %s, want the idle TTL again", ttl)
	}

	// Idle fleet-wide: Redis lets the key expire (here after 300 ms).
	if err := a.f.Do(context.Background(), "pexpire", func(ctx context.Context, c *redis.Client) error {
		return c.PExpire(ctx, key, 300*time.Millisecond).Err()
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ttl := get(t, a.f, key); ttl < 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis did not expire the key")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := b.store.Validate(id, false); !errors.Is(err, mcpsession.ErrUnknown) {
		t.Errorf("replica b after the session idled out in Redis: %v, want ErrUnknown", err)
	}
}

// TestSharedForgetting: a session a replica forgets for its per-client cap is forgotten
// by the fleet; one it forgets for idling there (it may be in use on another replica)
// and one mcp-go ends on its own (Drop: a replica shutting down) are not; Held sees a
// DELETE on another replica.
func TestSharedForgetting(t *testing.T) {
	srv := redistest.Start(t)
	opt := defaults()
	opt.PerClient = 1
	rs := replicas(t, srv, 2, opt)
	a, b := rs[0], rs[1]
	client := netip.MustParseAddr("192.0.2.9")
	first := a.store.Generate(client, false)
	second := a.store.Generate(client, false)
	if _, err := b.store.Validate(first, false); !errors.Is(err, mcpsession.ErrUnknown) {
		t.Errorf("a session evicted by replica a's per-client cap, on replica b: %v, want ErrUnknown", err)
	}
	if _, err := b.store.Validate(second, false); err != nil {
		t.Fatalf("the client's newer session on replica b: %v", err)
	}

	a.clock.Advance(opt.TTL + time.Minute)
	a.store.Sweep(slog.New(slog.DiscardHandler))
	if a.store.Size() != 0 {
		t.Fatalf("replica a holds %d sessions after its idle sweep, want 0", a.store.Size())
	}
	b.clock.Advance(mcpsession.Recheck)
	if _, err := b.store.Validate(second, false); err != nil {
		t.Errorf("a session idle on replica a only, on replica b: %v, want valid", err)
	}

	res := mcpsession.Resolver{Store: b.store}
	third := a.store.Generate(client, false)
	if _, err := b.store.Validate(third, false); err != nil {
		t.Fatal(err)
	}
	// mcp-go's shutdown (no request) and peppolgate's clean-up (Internal) end
	// sessions on this replica only.
	for name, r := range map[string]*http.Request{
		"shutdown": nil,
		"clean-up": httptest.NewRequestWithContext(mcpsession.Internal(context.Background()), http.MethodDelete, "/mcp", nil),
	} {
		if _, err := res.ResolveSessionIdManager(r).Terminate(third); err != nil {
			t.Fatal(err)
		}
		a.clock.Advance(mcpsession.Recheck)
		if term, err := a.store.Validate(third, false); err != nil || term {
			t.Errorf("after replica b's %s, replica a: %v %v, want valid", name, term, err)
		}
	}
	// A client's DELETE ends it everywhere.
	if _, err := res.ResolveSessionIdManager(httptest.NewRequest(http.MethodDelete, "/mcp", nil)).Terminate(third); err != nil {
		t.Fatal(err)
	}
	a.clock.Advance(mcpsession.Recheck)
	if term, _ := a.store.Validate(third, false); !term {
		t.Error("after a client's DELETE on replica b, replica a does not refuse the session as terminated")
	}

	// Held (an open event stream's question) learns of a DELETE elsewhere at once,
	// and forgets the session here, so that the stream ends with it.
	fourth := a.store.Generate(client, false)
	if !a.store.Held(fourth) || b.store.Held(fourth) {
		t.Errorf("Held: replica a %v, b %v; want true where it was minted, false where never used", a.store.Held(fourth), b.store.Held(fourth))
	}
	b.store.Terminate(fourth)
	if a.store.Held(fourth) {
		t.Error("replica a still holds a session DELETEd on replica b")
	}
	if got := a.forgotten(); !slices.Contains(got, fourth) {
		t.Errorf("replica a handed %q to Forget, want the session DELETEd elsewhere among them", got)
	}
}

// TestSharedRedisDown: with Redis killed, a replica keeps its sessions and mints new
// ones, and refuses ids it does not hold; restarted empty, the replicas put their
// sessions back and share them again.
func TestSharedRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rs := replicas(t, srv, 2, defaults())
	a, b := rs[0], rs[1]
	before := a.store.Generate(netip.Addr{}, false)
	srv.Kill()
	a.clock.Advance(mcpsession.Recheck)
	if _, err := a.store.Validate(before, false); err != nil {
		t.Errorf("replica a's own session, Redis down: %v", err)
	}
	during := a.store.Generate(netip.Addr{}, false)
	if _, err := a.store.Validate(during, false); err != nil {
		t.Errorf("a session minted with Redis down, on its replica: %v", err)
	}
	for _, id := range []string{before, during} {
		if _, err := b.store.Validate(id, false); !errors.Is(err, mcpsession.ErrUnknown) {
			t.Errorf("replica b, Redis down, with a session it does not hold: %v, want ErrUnknown", err)
		}
	}
	a.store.Republish() // Redis down: nothing to do, and no wait
	srv.Restart(t)
	for _, r := range rs {
		deadline := time.Now().Add(10 * time.Second)
		for !r.f.Up() {
			if time.Now().After(deadline) {
				t.Fatal("Redis not back")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	a.store.Republish()
	for _, id := range []string{before, during} {
		if _, err := b.store.Validate(id, false); err != nil {
			t.Errorf("replica b after Redis came back: %v, want replica a's session valid", err)
		}
	}
	if ks := keys(t, a.f); len(ks) != 2 {
		t.Errorf("keys after the republish: %q", ks)
	}
	for _, k := range keys(t, a.f) {
		if strings.Contains(k, "mcp-session") {
			t.Errorf("key %q holds a session id", k)
		}
	}
}

// waitUp waits (at most 10 s) until every replica's fleet finds Redis up again.
func waitUp(t *testing.T, rs ...*replica) {
	t.Helper()
	for _, r := range rs {
		deadline := time.Now().Add(10 * time.Second)
		for !r.f.Up() {
			if time.Now().After(deadline) {
				t.Fatal("Redis not back")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestSharedTerminateWhileRedisDown: a DELETE on one replica while Redis is down ends
// the session there; when Redis answers again (restarted empty) it is written to
// Redis before any replica puts its sessions back, so a replica that held the
// session (and puts it back) refuses it as terminated, and so does one that never
// held it.
func TestSharedTerminateWhileRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rs := replicas(t, srv, 3, defaults())
	a, b, c := rs[0], rs[1], rs[2]
	id := a.store.Generate(netip.Addr{}, false)
	if _, err := b.store.Validate(id, false); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	a.store.Terminate(id) // finds Redis down: this replica only, for now
	srv.Restart(t)
	waitUp(t, a, b)
	for _, order := range [][]*replica{{b, a}, {a, b}} { // either may put its state back first
		for _, r := range order {
			r.store.Republish()
		}
	}
	b.clock.Advance(mcpsession.Recheck)
	for name, r := range map[string]*replica{"b (held it)": b, "c (never held it)": c} {
		if term, err := r.store.Validate(id, false); err != nil || !term {
			t.Errorf("replica %s after Redis came back: %v %v, want the session DELETEd on a while Redis was down terminated", name, term, err)
		}
	}
}

// TestSharedEvictingALearntSession: a replica that learnt sessions of another (in
// Validate) and forgets one of them for its caps forgets it here only: the session
// goes on where it was minted; a session minted here and forgotten for the caps after a
// DELETE elsewhere stays terminated in Redis (not overwritten as forgotten).
func TestSharedEvictingALearntSession(t *testing.T) {
	srv := redistest.Start(t)
	opt := defaults()
	opt.PerClient = 1
	rs := replicas(t, srv, 3, opt)
	a, b, c := rs[0], rs[1], rs[2]
	client := netip.MustParseAddr("192.0.2.10")
	first := a.store.Generate(client, false)
	second := c.store.Generate(client, false)
	for _, id := range []string{first, second} { // b learns both: the second evicts the first on b
		if _, err := b.store.Validate(id, false); err != nil {
			t.Fatal(err)
		}
	}
	a.clock.Advance(mcpsession.Recheck)
	if term, err := a.store.Validate(first, false); err != nil || term {
		t.Errorf("replica a's session, evicted on b only, on a: %v %v, want valid", term, err)
	}

	own := b.store.Generate(client, false) // evicts second on b (learnt: b alone)
	a.store.Terminate(own)
	b.store.Generate(client, false) // evicts own, minted on b but DELETEd meanwhile
	if term, err := c.store.Validate(own, false); err != nil || !term {
		t.Errorf("a session DELETEd on a and then evicted on b, on c: %v %v, want terminated", term, err)
	}
}

// TestSharedRedisRestartedSilently: Redis restarted empty between two operations,
// without any of them failing (the driver redials): the upkeep notices it by the
// fleet's epoch key and puts the replica's sessions back.
func TestSharedRedisRestartedSilently(t *testing.T) {
	srv := redistest.Start(t)
	rs := replicas(t, srv, 2, defaults())
	a, b := rs[0], rs[1]
	id := a.store.Generate(netip.Addr{}, false)
	a.store.Republish()
	srv.Restart(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		a.store.Republish()
		_, err := b.store.Validate(id, false)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica b, Redis restarted empty: %v, want replica a's session put back", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSharedGenerateRacingRepublish: a session minted while Redis is down is put into
// Redis by a later republish even when one ran (Redis back) between Generate's failed
// store and its adding the session here: the store's clock, which Generate reads when
// it adds the session, runs that republish.
func TestSharedGenerateRacingRepublish(t *testing.T) {
	srv := redistest.Start(t)
	b := replicas(t, srv, 1, defaults())[0]
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "mcpt", OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	clk := clock.NewFake(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	var armed atomic.Bool
	var a *mcpsession.Shared
	opt := defaults()
	opt.Now = func() time.Time {
		if armed.CompareAndSwap(true, false) {
			srv.Restart(t)
			deadline := time.Now().Add(10 * time.Second)
			for !f.Up() && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			a.Republish()
		}
		return clk.Now()
	}
	a = mcpsession.NewShared(f, opt)
	t.Cleanup(a.Halt)
	a.Republish()
	srv.Kill()
	armed.Store(true)
	id := a.Generate(netip.Addr{}, false)
	if armed.Load() {
		t.Fatal("Generate did not read the clock after its store failed")
	}
	waitUp(t, b)
	a.Republish()
	if _, err := b.store.Validate(id, false); err != nil {
		t.Errorf("replica b after replica a's republish: %v, want the session minted on a while Redis was down valid", err)
	}
}
