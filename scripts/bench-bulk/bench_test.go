package main

import (
	"io"
	"math"
	"slices"
	"testing"
	"time"
)

func TestSelectRowsBalancedAndEligible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ hosts, distinct int }{{4, 1000}, {4, 1001}, {3, 500}, {1, 50}} {
		ds, picks, err := generate(1, tc.hosts, tc.distinct)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if len(picks) != tc.distinct {
			t.Fatalf("%+v: %d picks", tc, len(picks))
		}
		perHost := make([]int, tc.hosts)
		seen := map[string]bool{}
		for _, p := range picks {
			dp := ds.MustLookup(p.id)
			if dp == nil || !eligible(dp) || dp.SMPHost != p.host {
				t.Fatalf("%+v: pick %+v is not an eligible participant of its host", tc, p)
			}
			if seen[p.id] {
				t.Fatalf("%+v: %s picked twice", tc, p.id)
			}
			seen[p.id] = true
			perHost[p.host]++
		}
		if slices.Max(perHost)-slices.Min(perHost) > 1 {
			t.Errorf("%+v: rows per host %v, not even", tc, perHost)
		}
	}
}

func TestArrange(t *testing.T) {
	t.Parallel()
	_, picks, err := generate(1, 4, 400)
	if err != nil {
		t.Fatal(err)
	}
	key := func(p pick) string { return p.id }
	sorted := func(ps []pick) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = key(p)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		order string
		ok    func([]pick) bool
	}{
		{orderShuffled, func(ps []pick) bool { return !slices.Equal(ps, picks) }},
		{orderHosts, func(ps []pick) bool {
			return slices.IsSortedFunc(ps, func(a, b pick) int { return a.host - b.host })
		}},
		{orderRoundRobin, func(ps []pick) bool {
			for i, p := range ps {
				if p.host != i%4 {
					return false
				}
			}
			return true
		}},
	} {
		got := arrange(picks, tc.order, 1, 4)
		if !slices.Equal(sorted(got), sorted(picks)) {
			t.Errorf("%s: not a permutation of the picks", tc.order)
		}
		if !tc.ok(got) {
			t.Errorf("%s: not in that order", tc.order)
		}
	}
	if !slices.Equal(arrange(picks, orderShuffled, 1, 4), arrange(picks, orderShuffled, 1, 4)) {
		t.Error("the shuffle is not reproducible")
	}
}

func TestHistogramQuantiles(t *testing.T) {
	t.Parallel()
	var h histogram
	if h.quantile(0.5) != 0 {
		t.Error("an empty histogram has a median")
	}
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.95, 950 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, time.Second}} {
		got := h.quantile(tc.q)
		if rel := math.Abs(float64(got-tc.want)) / float64(tc.want); rel > 0.011 {
			t.Errorf("quantile(%v) = %v, want %v within 1 %%", tc.q, got, tc.want)
		}
	}
}

func TestStampsRing(t *testing.T) {
	t.Parallel()
	s := newStamps()
	s.offer(7)
	s.taken(7)
	if _, ok := s.since(7); !ok {
		t.Error("row 7 unmeasured")
	}
	// A row a whole ring later takes the slot.
	s.offer(7 + 1<<stampBits)
	if _, ok := s.since(7); ok {
		t.Error("row 7 measured from a slot another row took")
	}
	if _, ok := s.since(8); ok {
		t.Error("row 8, never offered, measured")
	}
}

func TestBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rows int
		reqs []int64
		want float64
	}{
		{10000, []int64{5000, 5000, 5000, 5000}, 320},
		// The busiest host sets the pace.
		{10000, []int64{8000, 4000, 4000, 4000}, 200},
	} {
		got := bound(passResult{Rows: tc.rows, SMPRequests: tc.reqs}, 50*time.Millisecond, 8)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("bound(%d rows, %v) = %v, want %v", tc.rows, tc.reqs, got, tc.want)
		}
	}
}

func TestOptionsAndPlan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []runSpec
		bad  bool
	}{
		{args: nil, want: []runSpec{{10000, 128}, {100000, 128}, {1000000, 128}}},
		{args: []string{"-sizes", "10_000", "-sweep", "32,128,256", "-concurrency", "128"}, want: []runSpec{{10000, 128}, {10000, 32}, {10000, 256}}},
		{args: []string{"-sizes", "", "-sweep", ""}, bad: true},
		{args: []string{"-sizes", "0"}, bad: true},
		{args: []string{"-order", "sideways"}, bad: true},
		{args: []string{"-child"}, bad: true},
	} {
		o, err := parseOptions(tc.args, io.Discard)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v", tc.args, err)
			continue
		}
		if !tc.bad && !slices.Equal(plan(o), tc.want) {
			t.Errorf("%q: plan %v, want %v", tc.args, plan(o), tc.want)
		}
	}
}
