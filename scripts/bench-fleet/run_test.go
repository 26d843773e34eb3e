package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSmallRun runs every phase on a real redis-server with tiny counts: the driver
// starts and stops its Redis and replicas, answers every request, counts what the
// bare Redis operations sent exactly, and prints every table.
func TestSmallRun(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("PEPPOLGATE_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server is not installed (PEPPOLGATE_REQUIRE_REDIS is set): apt-get install -y redis-server")
		}
		t.Skip("redis-server is not installed; apt-get install -y redis-server (make test does)")
	}
	if testing.Short() {
		t.Skip("starts Redis, the demo network and five sets of replicas")
	}
	var logw bytes.Buffer
	o, err := parseOptions([]string{"-requests", "40", "-replicas", "2", "-concurrency", "4", "-kind-requests", "4",
		"-hit-samples", "20", "-hot", "5", "-throughput-concurrency", "2", "-duration", "200ms"}, &logw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	res, err := measure(ctx, o, &logw)
	if err != nil {
		t.Fatalf("measure: %v\n%s", err, logw.String())
	}
	if res.failed() {
		t.Errorf("a phase failed:\n%s", logw.String())
	}
	if len(res.mix) != 2 || res.mix[0].redis || res.mix[0].replicas != 1 || !res.mix[1].redis || res.mix[1].replicas != 2 {
		t.Errorf("mix configurations %+v, want 1 replica without Redis, then 2 with", res.mix)
	}
	for _, m := range res.mix {
		if m.d.requests != 40 || m.d.statuses[200] == 0 {
			t.Errorf("mix on %d replicas: %d requests, statuses %v", m.replicas, m.d.requests, m.d.statuses)
		}
		if m.up.total() == 0 {
			t.Errorf("mix on %d replicas asked nothing upstream: the replicas do not use the network", m.replicas)
		}
	}
	if len(res.kinds) != 8 {
		t.Errorf("%d kinds, want 8", len(res.kinds))
	}
	byName := map[string]hitRow{}
	for _, h := range res.hits {
		byName[h.name] = h
	}
	get := byName["Redis GET + decode"]
	// Each GET is a round trip of its own; a busy machine may open a connection during
	// the phase, whose HELLO is one more.
	if get.ri.sent["get"] != 20 || get.ri.trips != 20+get.ri.sent["hello"] || get.ri.outBytes < int64(20*get.bytes) {
		t.Errorf("bare GETs: sent %v in %d round trips, %d bytes out for 20 values of %d bytes", get.ri.sent, get.ri.trips, get.ri.outBytes, get.bytes)
	}
	if allow := byName["Redis rate limit (fleet.Allow)"]; allow.ri.sent["evalsha"] != 20 {
		t.Errorf("fleet.Allow: sent %v, want 20 EVALSHA", allow.ri.sent)
	}
	if len(res.tput) != 2 || res.tput[0].d.requests == 0 || res.tput[1].d.requests == 0 {
		t.Errorf("throughput rows %+v", res.tput)
	}
	var out bytes.Buffer
	report(&out, o, res)
	for _, want := range []string{"## Upstream requests per 1,000 client requests", "## Redis commands and bytes per request, by kind",
		"## The cost of a cache hit", "## Cached lookups per second"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report has no %q:\n%s", want, out.String())
		}
	}
}
