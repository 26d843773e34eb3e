package main

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/stack"
)

func TestMixSequence(t *testing.T) {
	sum := 0
	for _, s := range specs() {
		sum += s.perMille
	}
	if sum != 1000 {
		t.Fatalf("shares add up to %d per mille, want 1000", sum)
	}
	tests := []struct {
		name string
		seed uint64
	}{{"seed 1", 1}, {"seed 2", 2}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := mixSequence(tt.seed)
			var got [numKinds]int
			for _, k := range seq {
				got[k]++
			}
			for k, s := range specs() {
				if got[k] != s.perMille {
					t.Errorf("%s: %d in the sequence, want %d", kind(k), got[k], s.perMille)
				}
			}
			if again := mixSequence(tt.seed); !equalKinds(seq, again) {
				t.Error("the same seed gave another order")
			}
		})
	}
	if equalKinds(mixSequence(1), mixSequence(2)) {
		t.Error("seeds 1 and 2 gave the same order")
	}
}

func equalKinds(a, b []kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWorkloadPools checks that the default run fits the demo dataset and that no
// request of one pool can warm another pool's cache entries.
func TestWorkloadPools(t *testing.T) {
	o, err := parseOptions(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorkload(stack.DemoDataset(), o.seed, o.hot, need(o, askCold)*11/10)
	for _, k := range []kind{lookupCold, searchCold, askCold} {
		if n := need(o, k); len(w.cold[k]) < n {
			t.Errorf("%s: pool of %d, the default run needs %d", k, len(w.cold[k]), n)
		}
	}
	for _, k := range []kind{lookupHot, searchName, searchVAT, askJSON, askSSE} {
		if len(w.hot[k]) < 50 {
			t.Errorf("%s: only %d hot requests", k, len(w.hot[k]))
		}
	}
	hotIDs := map[string]bool{}
	for _, rq := range w.hot[lookupHot] {
		hotIDs[rq.id] = true
		if w.names[rq.id] == "" {
			t.Errorf("hot id %s has no expected name", rq.id)
		}
	}
	seen := map[string]kind{}
	for _, k := range []kind{lookupCold, searchCold, askCold} {
		for _, rq := range w.cold[k] {
			key := rq.path + " " + rq.body
			if prev, dup := seen[key]; dup {
				t.Errorf("%s and %s both send %s", prev, k, key)
			}
			seen[key] = k
			if hotIDs[rq.id] {
				t.Errorf("cold lookup of hot id %s", rq.id)
			}
		}
	}
	for _, rq := range w.hot[askJSON] {
		if _, dup := seen["/ask "+rq.body]; dup {
			t.Errorf("hot question %s is also cold", rq.body)
		}
	}
	// No two pools may fill the same cache entry, as far as the plans tell.
	owner := map[string]string{}
	claim := func(pool string, keys []string) {
		for _, k := range keys {
			if prev, ok := owner[k]; ok && prev != pool {
				t.Errorf("%s and %s both fill %q", prev, pool, k)
			}
			owner[k] = pool
		}
	}
	for _, rq := range w.hot[lookupHot] {
		claim("hot", []string{lookupKey(rq.id)})
	}
	for _, k := range []kind{searchName, searchVAT, searchCold} {
		pool := "hot"
		if k.isCold() {
			pool = k.String()
		}
		for _, rq := range w.hot[k] {
			claim(pool, []string{searchKey(queryOf(t, rq.path))})
		}
		for _, rq := range w.cold[k] {
			claim(pool, []string{searchKey(queryOf(t, rq.path))})
		}
	}
	for _, rq := range w.cold[lookupCold] {
		claim("lookup_cold", []string{lookupKey(rq.id)})
	}
	for _, pool := range []struct {
		name string
		rqs  []request
	}{{"hot", w.hot[askJSON]}, {"ask_cold", w.cold[askCold]}} {
		for _, rq := range pool.rqs {
			var body struct{ Query string }
			if err := json.Unmarshal([]byte(rq.body), &body); err != nil {
				t.Fatal(err)
			}
			claim(pool.name, cacheKeys(body.Query))
		}
	}
}

// queryOf returns the q parameter of a search path.
func queryOf(t *testing.T, path string) string {
	t.Helper()
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("q")
}

func TestQuestionsUnderstood(t *testing.T) {
	tests := []struct {
		subject string
		want    bool
	}{
		{"Vandelanotte Installaties NV", true},
		{"BE0677424046", true},
		{"0208:0677424046", true},
		{"", false},
	}
	for _, tt := range tests {
		for _, tmpl := range askTemplates() {
			q, ok := question(tmpl, tt.subject)
			if ok != tt.want {
				t.Errorf("%s with %q: ok %v, want %v", tmpl.format, tt.subject, ok, tt.want)
			}
			var body struct{ Query string }
			if err := json.Unmarshal([]byte(askBody(q)), &body); err != nil || body.Query != q {
				t.Errorf("askBody(%q) = %s, not {\"query\": the question}", q, askBody(q))
			}
		}
	}
	// Every template alone must be understood, or it would silently drop out.
	for _, tmpl := range askTemplates() {
		q := strings.Replace(tmpl.format, "%s", "0208:0677424046", 1)
		if (nlq.RulePlanner{}).Plan(q).Intent == nlq.IntentUnknown {
			t.Errorf("%q is not understood", q)
		}
	}
}

func TestPick(t *testing.T) {
	w := &workload{}
	w.hot[lookupHot] = []request{{path: "a"}, {path: "b"}}
	w.cold[lookupCold] = []request{{path: "c"}}
	var next [numKinds]int
	tests := []struct {
		k    kind
		want string
		ok   bool
	}{
		{lookupHot, "a", true},
		{lookupHot, "b", true},
		{lookupHot, "a", true},
		{lookupCold, "c", true},
		{lookupCold, "", false},
		{searchName, "", false},
	}
	for i, tt := range tests {
		rq, ok := w.pick(tt.k, &next)
		if ok != tt.ok || rq.path != tt.want {
			t.Errorf("pick %d (%s) = %q, %v; want %q, %v", i, tt.k, rq.path, ok, tt.want, tt.ok)
		}
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"-runs", "binary", "-duration", "5s"}, ""},
		{[]string{"-runs", "faults", "-duration", "5s"}, ""},
		{[]string{"-runs", "faults", "-duration", "5s", "-fault-at", "3s", "-fault-for", "2s"}, "faults"},
		{[]string{"-runs", "faults", "-duration", "2s"}, "faults"},
		{[]string{"-runs", "nope"}, "unknown run"},
		{[]string{"-rate", "0"}, "positive"},
		{[]string{"extra"}, "unexpected"},
	}
	for _, tt := range tests {
		_, err := parseOptions(tt.args, new(strings.Builder))
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%q: error %v, want one containing %q", tt.args, err, tt.wantErr)
		}
	}
}

func TestTimelineStep(t *testing.T) {
	tests := []struct{ d, want time.Duration }{
		{60 * time.Second, 5 * time.Second},
		{24 * time.Second, 2 * time.Second},
		{15 * time.Second, time.Second},
		{5 * time.Second, time.Second},
	}
	for _, tt := range tests {
		if got := timelineStep(tt.d); got != tt.want {
			t.Errorf("timelineStep(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}
