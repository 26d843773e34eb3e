package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	thousand := make([]int, 1000)
	for i := range thousand {
		if i < 100 {
			hundred[i] = i + 1
		}
		thousand[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of three", ms(1, 2, 3), 0.5, 2 * time.Millisecond},
		{"median of four is the lower middle", ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p99 of 1000", ms(thousand...), 0.99, 990 * time.Millisecond},
		{"p100", ms(1, 2, 3), 1, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRecorder(t *testing.T) {
	phases := []phase{{"a", 0, 10 * time.Second}, {"b", 10 * time.Second, 20 * time.Second}}
	r := newRecorder(phases, 100)
	tests := []struct {
		rq   request
		sent time.Duration
		o    outcome
	}{
		{request{kind: lookupHot}, time.Second, outcome{status: 200, cache: "hit", latency: time.Millisecond}},
		{request{kind: lookupCold, id: "0208:1"}, 11 * time.Second, outcome{status: 502, code: "lookup_failed", cache: "miss", latency: 3 * time.Millisecond}},
		{request{kind: askSSE}, 12 * time.Second, outcome{status: 200, code: "ask_failed", latency: 2 * time.Millisecond}},
		{request{kind: searchCold}, 13 * time.Second, outcome{transport: "timeout", latency: 30 * time.Second}},
		{request{kind: lookupCold}, 25 * time.Second, outcome{status: 200, degraded: true}}, // past the end: last phase
		{request{kind: searchName}, 2 * time.Second, outcome{status: 400, code: "invalid_request"}},
	}
	for _, tt := range tests {
		r.add(tt.rq, tt.sent, tt.o)
	}
	a, b := r.merged(0, 1), r.merged(1, 2)
	checks := []struct {
		name      string
		got, want int
	}{
		{"a lookup_cached 2xx", a[lookupHot].classes[2], 1},
		{"a lookup_cached hits", a[lookupHot].cache["hit"], 1},
		{"a search_name 4xx", a[searchName].classes[4], 1},
		{"a search_name code", a[searchName].codes["400 invalid_request"], 1},
		{"b lookup_cold requests", b[lookupCold].n(), 2},
		{"b lookup_cold 5xx", b[lookupCold].classes[5], 1},
		{"b lookup_cold code", b[lookupCold].codes["502 lookup_failed"], 1},
		{"b lookup_cold degraded", b[lookupCold].degraded, 1},
		{"b ask_sse stream error", b[askSSE].codes["stream ask_failed"], 1},
		{"b search_cold no answer", b[searchCold].classes[0], 1},
		{"b search_cold transport", b[searchCold].codes["transport: timeout"], 1},
		{"failures", len(r.failures), 3},
		{"done", int(r.done.Load()), len(tests)},
		{"failed", int(r.failed.Load()), 3},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
	all := r.merged(0, 2)
	if got := all[lookupCold].lat; len(got) != 2 || got[0] > got[1] {
		t.Errorf("merged latencies %v are not the two sorted", got)
	}
	ts := r.timeline(10*time.Second, 20*time.Second)
	if len(ts) != 2 || ts[0].n != 2 || ts[1].n != 4 || ts[1].failed != 3 {
		t.Errorf("timeline %+v, want 2 requests then 4 with 3 failures", ts)
	}
}
