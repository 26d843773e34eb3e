package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
)

// TestChargeGoesIntoDebt: Charge takes its cost even beyond the burst, from any
// replica, and the debt refuses the next request of every replica until it is earned
// back; a refused request says nothing remains, never a negative number.
func TestChargeGoesIntoDebt(t *testing.T) {
	srv := redistest.Start(t)
	var fs [2]*fleet.Fleet
	for i := range fs {
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "t"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		fs[i] = f
	}
	ctx := context.Background()
	key := fs[0].Key("rl", "charge")
	const rate, burst = 1.0 / 60, 3 // a token a minute: nothing refills during the test
	steps := []struct {
		name    string
		f       *fleet.Fleet
		charge  bool
		cost    float64
		allowed bool
		// remaining, and RetryAfter and ResetAfter in whole minutes, rounded up
		remaining       float64
		retry, resetMin time.Duration
	}{
		{name: "first request", f: fs[0], cost: 1, allowed: true, remaining: 2, resetMin: 1},
		{name: "charged 5 more on the other replica", f: fs[1], charge: true, cost: 5, allowed: true, remaining: 0, resetMin: 6},
		{name: "refused on the first replica: 4 tokens to earn", f: fs[0], cost: 1, remaining: 0, retry: 4, resetMin: 6},
		{name: "a charge with the debt still owed", f: fs[1], charge: true, cost: 1, allowed: true, remaining: 0, resetMin: 7},
	}
	for _, st := range steps {
		do := st.f.Allow
		if st.charge {
			do = st.f.Charge
		}
		d, err := do(ctx, key, rate, burst, st.cost)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		minutes := func(d time.Duration) time.Duration { return (d + time.Minute - 1) / time.Minute }
		if d.Allowed != st.allowed || d.Remaining != st.remaining || minutes(d.RetryAfter) != st.retry || minutes(d.ResetAfter) != st.resetMin {
			t.Errorf("%s: %+v; want allowed %v, remaining %v, retry %d min, reset %d min", st.name, d, st.allowed, st.remaining, st.retry, st.resetMin)
		}
	}
}
