package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A real INFO reply of redis-server 7.0 (commandstats and stats), cut down.
const infoSample = "# CPU\r\n" +
	"used_cpu_sys:1.500000\r\n" +
	"used_cpu_user:0.250000\r\n" +
	"\r\n" +
	"# Stats\r\n" +
	"total_connections_received:12\r\n" +
	"total_commands_processed:4210\r\n" +
	"total_net_input_bytes:183341\r\n" +
	"total_net_output_bytes:912004\r\n" +
	"\r\n" +
	"# Commandstats\r\n" +
	"cmdstat_get:calls=1200,usec=2400,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_evalsha:calls=3000,usec=30000,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_info:calls=9,usec=900,usec_per_call=100.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_config|resetstat:calls=1,usec=9,usec_per_call=9.00,rejected_calls=0,failed_calls=0\r\n"

func TestParseInfo(t *testing.T) {
	got, err := parseInfo(infoSample)
	if err != nil {
		t.Fatal(err)
	}
	if got.inBytes != 183341 || got.outBytes != 912004 {
		t.Errorf("bytes in/out = %d/%d, want 183341/912004", got.inBytes, got.outBytes)
	}
	want := map[string]int64{"get": 1200, "evalsha": 3000, "info": 9, "config|resetstat": 1}
	for k, v := range want {
		if got.calls[k] != v {
			t.Errorf("calls[%q] = %d, want %d", k, got.calls[k], v)
		}
	}
	if len(got.calls) != len(want) {
		t.Errorf("calls = %v, want %v", got.calls, want)
	}
	if got.cpu != 1.75 {
		t.Errorf("cpu = %v s, want 1.75 (sys 1.5 + user 0.25)", got.cpu)
	}
}

func TestParseInfoRefusesAReplyWithoutStats(t *testing.T) {
	if _, err := parseInfo("# Commandstats\r\ncmdstat_get:calls=1,usec=2\r\n"); err == nil {
		t.Error("a reply without total_net_input_bytes parsed")
	}
}

func TestInfoDeltaLeavesOutTheBenchmarksOwnCommands(t *testing.T) {
	before := redisInfo{inBytes: 100, outBytes: 1000, cpu: 1, calls: counts{"get": 5, "info": 1}}
	after := redisInfo{inBytes: 400, outBytes: 5000, cpu: 1.5, calls: counts{"get": 25, "evalsha": 10, "info": 2, "config|resetstat": 1}}
	d := after.sub(before, 700)
	if d.inBytes != 300 || d.outBytes != 3300 {
		t.Errorf("bytes in/out = %d/%d, want 300/3300 (the first INFO's 700-byte reply left out)", d.inBytes, d.outBytes)
	}
	if d.calls["get"] != 20 || d.calls["evalsha"] != 10 {
		t.Errorf("calls = %v, want get 20 and evalsha 10", d.calls)
	}
	for _, own := range []string{"info", "config|resetstat"} {
		if _, ok := d.calls[own]; ok {
			t.Errorf("calls hold the benchmark's own %q: %v", own, d.calls)
		}
	}
	if d.cpu != 0.5 {
		t.Errorf("cpu = %v s, want 0.5", d.cpu)
	}
	if d.calls.total() != 30 {
		t.Errorf("total = %d, want 30", d.calls.total())
	}
	if got := d.calls.perRequest(10); got != "EVALSHA 1.00 · GET 2.00" {
		t.Errorf("perRequest(10) = %q", got)
	}
	if got := (counts{}).perRequest(10); got != "none" {
		t.Errorf("perRequest of nothing = %q", got)
	}
}

// The replicas' own count of what they send: one EVALSHA whose script runs three
// commands inside Redis is one command sent, and pipelines count their commands.
func TestSentCounterCountsWhatTheClientSends(t *testing.T) {
	var c sentCounter
	ctx := t.Context()
	process := c.ProcessHook(func(context.Context, redis.Cmder) error { return nil })
	pipeline := c.ProcessPipelineHook(func(context.Context, []redis.Cmder) error { return nil })
	_ = process(ctx, redis.NewCmd(ctx, "evalsha", "abc", 1, "k"))
	_ = process(ctx, redis.NewStringCmd(ctx, "get", "k"))
	_ = pipeline(ctx, []redis.Cmder{redis.NewStringCmd(ctx, "get", "a"), redis.NewStringCmd(ctx, "get", "b")})
	got, trips := c.snapshot()
	if trips != 3 {
		t.Errorf("%d round trips, want 3 (two commands and one pipeline)", trips)
	}
	want := counts{"evalsha": 1, "get": 3}
	if len(got) != len(want) || got["evalsha"] != 1 || got["get"] != 3 {
		t.Errorf("sent = %v, want %v", got, want)
	}
	later := counts{"evalsha": 3, "get": 3, "del": 1}
	if d := later.sub(got); d["evalsha"] != 2 || d["del"] != 1 || len(d) != 2 {
		t.Errorf("later.sub = %v, want evalsha 2 and del 1", d)
	}
}

func TestMixHasItsSharesAndRepeats(t *testing.T) {
	pop := population{
		ids:     []string{"0208:1", "0208:2", "0208:3", "0208:4", "0208:5", "0208:6", "0208:7", "0208:8"},
		queries: []string{"a", "b", "c", "d"},
	}
	const n = 10000
	reqs := makeMix(pop, n, mixShares{lookup: 700, search: 200, services: 100}, 1.1, 1)
	if len(reqs) != n {
		t.Fatalf("%d requests, want %d", len(reqs), n)
	}
	count := map[kind]int{}
	seen := map[string]bool{}
	repeats := 0
	for _, r := range reqs {
		count[r.kind]++
		if seen[r.path] {
			repeats++
		}
		seen[r.path] = true
		switch r.kind {
		case kindLookup:
			if !strings.HasPrefix(r.path, "/api/v1/participant/") || strings.HasSuffix(r.path, "/services") {
				t.Fatalf("lookup path %q", r.path)
			}
		case kindServices:
			if !strings.HasSuffix(r.path, "/services") {
				t.Fatalf("services path %q", r.path)
			}
		case kindSearch:
			if !strings.HasPrefix(r.path, "/api/v1/search?q=") {
				t.Fatalf("search path %q", r.path)
			}
		}
	}
	for k, want := range map[kind]int{kindLookup: 7000, kindSearch: 2000, kindServices: 1000} {
		if count[k] != want {
			t.Errorf("%v: %d requests, want %d", k, count[k], want)
		}
	}
	if repeats < n/2 {
		t.Errorf("%d repeated requests of %d: the popularity is not skewed", repeats, n)
	}
	// The same seed gives the same mix: every configuration is asked the same.
	again := makeMix(pop, n, mixShares{lookup: 700, search: 200, services: 100}, 1.1, 1)
	for i := range reqs {
		if reqs[i] != again[i] {
			t.Fatalf("request %d differs between two mixes of one seed", i)
		}
	}
}

func TestQuantiles(t *testing.T) {
	var h latencies
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}, {1, 1000 * time.Microsecond}}
	for _, tt := range tests {
		if got := h.quantile(tt.q); got != tt.want {
			t.Errorf("quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	var empty latencies
	if got := empty.quantile(0.5); got != 0 {
		t.Errorf("empty quantile = %v", got)
	}
}

func TestTroubleString(t *testing.T) {
	tests := []struct {
		t    trouble
		want string
	}{
		{trouble{}, "none"},
		{trouble{errors: 2, skipped: 37, downs: 2}, "2 downs · 2 failed · 37 skipped"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.t, got, tt.want)
		}
	}
	if d := (trouble{errors: 3, skipped: 40, downs: 3}).sub(trouble{errors: 1, skipped: 3, downs: 1}); d != (trouble{errors: 2, skipped: 37, downs: 2}) {
		t.Errorf("sub = %+v", d)
	}
}
