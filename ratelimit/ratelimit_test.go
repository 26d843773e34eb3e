package ratelimit

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/internal/clock"
)

// openReplicas opens n fleets (n replicas, each with its own down/up state) on srv and
// returns the limiter of class "rest" for lim on each.
func openReplicas(t testing.TB, srv *redistest.Server, n int, lim Limit) ([]*fleet.Fleet, []Limiter) {
	t.Helper()
	var fs []*fleet.Fleet
	var ls []Limiter
	for range n {
		// A generous deadline: a busy machine must not turn a slow answer into a
		// fallback here (a killed Redis refuses at once).
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "rltest", OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		fs = append(fs, f)
		ls = append(ls, New("rest", lim, f, time.Now))
	}
	return fs, ls
}

// TestOneLimitForTheFleet: three limiters on three fleets sharing one redis-server
// give one client its burst once, not three times; three limiters without a fleet
// (today's in-memory buckets) give it three times; with Redis killed each replica's
// own buckets decide, without an error; once Redis is back (restarted empty, found by
// the probe) the limit is shared again.
func TestOneLimitForTheFleet(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	// A token a minute: nothing refills while the test runs.
	lim := Limit{Rate: 1.0 / 60, Burst: 5}
	client := netip.MustParseAddr("198.51.100.7")
	fs, shared := openReplicas(t, srv, 3, lim)
	var alone []Limiter
	for range 3 {
		alone = append(alone, New("rest", lim, nil, time.Now))
	}
	waitUp := func() {
		deadline := time.Now().Add(20 * time.Second)
		for _, f := range fs {
			for !f.Up() && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if !f.Up() {
				t.Fatalf("Redis restarted, but a replica still finds it down after 20 s: %+v", f.Status())
			}
		}
	}
	phases := []struct {
		name   string
		before func()
		ls     []Limiter
		want   int
	}{
		{name: "shared through Redis", ls: shared, want: lim.Burst},
		{name: "no fleet: each replica's own buckets", ls: alone, want: 3 * lim.Burst},
		{name: "Redis killed: each replica's own buckets", before: srv.Kill, ls: shared, want: 3 * lim.Burst},
		{name: "Redis back: shared again", before: func() { srv.Restart(t); waitUp() }, ls: shared, want: lim.Burst},
	}
	for _, ph := range phases {
		if ph.before != nil {
			ph.before()
		}
		allowed := 0
		for i := range 6 * lim.Burst {
			d := ph.ls[i%3].Take(context.Background(), client)
			if d.Allowed {
				allowed++
			} else if d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > time.Minute {
				t.Errorf("%s: request %d refused with %+v; want nothing remaining and a retry within a minute", ph.name, i, d)
			}
		}
		if allowed != ph.want {
			t.Errorf("%s: %d of %d requests over 3 replicas allowed, want %d", ph.name, allowed, 6*lim.Burst, ph.want)
		}
	}
	for i, f := range fs {
		if st := f.Status(); st.Downs != 1 || !st.Up {
			t.Errorf("replica %d: %+v; want up, and down once (the kill)", i, st)
		}
	}
	if _, ok := New("rest", lim, nil, time.Now).(*Local); !ok {
		t.Error("without a fleet the limiter is not the in-memory one")
	}
	if New("rest", Limit{}, fs[0], time.Now) != nil {
		t.Error("a limit that limits nothing has a limiter")
	}
}

// TestSharedDecidesAsLocal: the same requests decided by the fleet (each on another
// of three replicas) and by one replica's in-memory buckets (a frozen clock) come out
// the same: allowed or not, requests left, and when to retry and when the bucket is
// full (to the second; Redis's clock moves while the test runs). This is what the
// RateLimit and Retry-After headers are made of, in both modes.
func TestSharedDecidesAsLocal(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	lim := Limit{Rate: 1.0 / 60, Burst: 3}
	_, shared := openReplicas(t, srv, 3, lim)
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	local := NewLocal(lim, clk.Now, MaxClients)
	a, b := netip.MustParseAddr("198.51.100.7"), netip.MustParseAddr("2001:db8:1:2::")
	steps := []struct {
		name   string
		client netip.Addr
		charge float64 // 0: Take
		want   Decision
	}{
		{"first", a, 0, Decision{Allowed: true, Remaining: 2, ResetAfter: time.Minute}},
		{"second", a, 0, Decision{Allowed: true, Remaining: 1, ResetAfter: 2 * time.Minute}},
		{"a bulk check's 4 more: 3 in debt", a, 4, Decision{Allowed: true, Remaining: 0, ResetAfter: 6 * time.Minute}},
		{"refused until the debt and one more are earned", a, 0, Decision{Remaining: 0, RetryAfter: 4 * time.Minute, ResetAfter: 6 * time.Minute}},
		{"another client has its own bucket", b, 0, Decision{Allowed: true, Remaining: 2, ResetAfter: time.Minute}},
	}
	ctx := context.Background()
	for i, st := range steps {
		for _, l := range []struct {
			name string
			l    Limiter
		}{{"local", local}, {"shared", shared[i%3]}} {
			var d Decision
			if st.charge > 0 {
				d = l.l.Charge(ctx, st.client, st.charge)
			} else {
				d = l.l.Take(ctx, st.client)
			}
			d.RetryAfter, d.ResetAfter = d.RetryAfter.Round(time.Second), d.ResetAfter.Round(time.Second)
			if d != st.want {
				t.Errorf("%s, %s: %+v, want %+v", st.name, l.name, d, st.want)
			}
		}
	}
}

// BenchmarkDecide compares one rate-limit decision of this replica's buckets (local)
// with one of the fleet's (redis: a round trip to a redis-server on loopback), one
// client after another from many.
func BenchmarkDecide(b *testing.B) {
	lim := Limit{Rate: 20, Burst: 40}
	ctx := context.Background()
	run := func(b *testing.B, l Limiter) {
		i := 0
		for b.Loop() {
			i++
			l.Take(ctx, netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}))
		}
	}
	b.Run("local", func(b *testing.B) { run(b, New("rest", lim, nil, time.Now)) })
	b.Run("redis", func(b *testing.B) {
		srv := redistest.Start(b)
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "rlbench"}) // the deadline of production
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		run(b, New("rest", lim, f, time.Now))
		// A decision slower than the deadline falls back to the local buckets: say how
		// many did, so that the figure is read for what it is.
		st := f.Status()
		b.ReportMetric(float64(st.Errors+st.Skipped)/float64(b.N), "fallbacks/op")
	})
}
