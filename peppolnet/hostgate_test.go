package peppolnet

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

func TestHostGatesCap(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(2, 3, time.Minute, 30*time.Second, clock.Now)
	ctx := context.Background()
	var dones []func(smp.HostOutcome)
	for range 2 {
		done, err := g.Enter(ctx, "smp.example.com")
		if err != nil {
			t.Fatal(err)
		}
		dones = append(dones, done)
	}
	// Another host has its own slots.
	other, err := g.Enter(ctx, "smp.example.net")
	if err != nil {
		t.Fatal(err)
	}
	// The third request to the full host waits until its context ends.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.Enter(cctx, "smp.example.com")
	var busy *hostBusyError
	if !errors.As(err, &busy) || !errors.Is(err, context.Canceled) || retryAfter(err) != busyRetryAfter {
		t.Fatalf("third request: %v, want *hostBusyError", err)
	}
	// A slot handed back is taken by the next request.
	dones[0](smp.HostUp)
	dones[0](smp.HostUp) // a second call is harmless
	done, err := g.Enter(ctx, "smp.example.com")
	if err != nil {
		t.Fatal(err)
	}
	done(smp.HostUp)
	dones[1](smp.HostUp)
	other(smp.HostUp)
	if len(g.hosts) != 0 {
		t.Errorf("%d hosts remembered with nothing in flight and nothing failing", len(g.hosts))
	}
}

func TestHostGatesBreaker(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(8, 3, time.Minute, 30*time.Second, clock.Now)
	ctx := context.Background()
	fail := func(host string, o smp.HostOutcome) {
		t.Helper()
		done, err := g.Enter(ctx, host)
		if err != nil {
			t.Fatal(err)
		}
		done(o)
	}
	for _, o := range []smp.HostOutcome{smp.HostDown, smp.HostUnknown, smp.HostDown, smp.HostDown} {
		fail("down.example", o)
	}
	fail("up.example", smp.HostDown) // another host is not affected
	_, err := g.Enter(ctx, "down.example")
	var co *circuitOpenError
	if !errors.As(err, &co) || co.retryAfter != 30*time.Second || retryAfter(err) != 30*time.Second {
		t.Fatalf("open breaker: %v", err)
	}
	if _, err := g.Enter(ctx, "up.example"); err != nil {
		t.Fatalf("other host refused: %v", err)
	}
	if len(g.hosts) != 2 {
		t.Errorf("%d hosts remembered, want the 2 with failures on record", len(g.hosts))
	}
	clock.Advance(30 * time.Second)
	probe, err := g.Enter(ctx, "down.example")
	if err != nil {
		t.Fatalf("probe refused: %v", err)
	}
	if _, err := g.Enter(ctx, "down.example"); !errors.As(err, &co) || !co.probing {
		t.Fatalf("second request while probing: %v", err)
	}
	probe(smp.HostUp)
	fail("down.example", smp.HostUp)
}

func TestHostGatesForgetIdleHosts(t *testing.T) {
	t.Parallel()
	clock := clock.NewFake(testNow)
	g := newHostGates(1, 3, time.Minute, 30*time.Second, clock.Now)
	for i := range maxIdleHosts + 10 {
		done, err := g.Enter(context.Background(), "h"+strconv.Itoa(i)+".example")
		if err != nil {
			t.Fatal(err)
		}
		done(smp.HostDown) // each remembers one failure
	}
	if len(g.hosts) != maxIdleHosts+10 {
		t.Fatalf("%d hosts", len(g.hosts))
	}
	clock.Advance(2 * time.Minute) // the failures are out of the window
	done, _ := g.Enter(context.Background(), "new.example")
	done(smp.HostUp)
	if len(g.hosts) != 0 {
		t.Errorf("%d hosts remembered after a sweep; want none", len(g.hosts))
	}
}
