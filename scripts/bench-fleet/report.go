package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/benchenv"
	"github.com/peppolgate/peppolgate/internal/phrase"
)

// env describes the machine and the build for the report.
type env struct {
	cpus                int
	cpuModel, goVersion string
	commit, date        string
	loadStart, loadEnd  string
}

func describeEnv(ctx context.Context) env {
	return env{cpus: runtime.NumCPU(), cpuModel: benchenv.CPUModel(), goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		commit: benchenv.GitCommit(ctx, ""), date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadStart: benchenv.LoadAvg()}
}

func loadAvg() string { return benchenv.LoadAvg() }

// report writes the Markdown tables of res.
func report(w io.Writer, o options, res *results) {
	e := res.env
	fmt.Fprintf(w, "# bench-fleet\n\n")
	fmt.Fprintf(w, "Command: `bench-fleet %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(w, "%s, %d CPUs (%s), %s, commit %s, redis-server %s on loopback; load average %s at the start, %s at the end. "+
		"Every replica, the client and netsim (the demo network) run in this process and share its cores.\n\n",
		e.date, e.cpus, e.cpuModel, e.goVersion, e.commit, res.redis, e.loadStart, e.loadEnd)
	if len(res.mix) > 0 {
		reportMix(w, o, res)
	}
	if len(res.kinds) > 0 {
		reportKinds(w, o, res)
	}
	if len(res.hits) > 0 {
		reportHits(w, res)
	}
	if len(res.tput) > 0 {
		reportThroughput(w, o, res)
	}
}

func reportMix(w io.Writer, o options, res *results) {
	fmt.Fprintf(w, "## Upstream requests per 1,000 client requests\n\n")
	fmt.Fprintf(w, "%s requests per configuration: %d ‰ lookups, %d ‰ searches, %d ‰ services, over %s participants and %s names drawn with a Zipf popularity (exponent %g): %.0f %% of the requests ask for something for the first time. "+
		"Sent round robin, %d at a time, to new replicas on an empty Redis. The goal: the same upstream requests at 1, 2 and 3 replicas.\n\n",
		phrase.Grouped(int64(o.requests), ","), o.shares.lookup, o.shares.search, o.shares.services,
		phrase.Grouped(int64(len(res.population.ids)), ","), phrase.Grouped(int64(len(res.population.queries)), ","), o.zipf, 100*res.distinct, o.concurrency)
	fmt.Fprintln(w, "| replicas | Redis | DNS | SMP | Directory | OCSP | **upstream** | vs 1 without Redis | Redis round trips (commands) / request | Redis bytes in / out per request | Redis CPU / request | Redis trouble | X-Cache hit · miss · stale | p50 / p99 | failed |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|---|---:|")
	base := res.mix[0].up.total()
	for _, m := range res.mix {
		k := 1000 / float64(max(1, m.d.requests))
		redis := "no"
		if m.redis {
			redis = "yes"
		}
		fmt.Fprintf(w, "| %d | %s | %.0f | %.0f | %.0f | %.0f | **%.0f** | %s | %.2f (%s) | %.0f / %.0f | %.1f µs | %s | %d · %d · %d | %s / %s | %d |\n",
			m.replicas, redis, float64(m.up.dns)*k, float64(m.up.smp)*k, float64(m.up.dir)*k, float64(m.up.ocsp)*k, float64(m.up.total())*k,
			ratio(m.up.total(), base), float64(m.ri.trips)/float64(max(1, m.d.requests)), m.ri.sent.perRequest(m.d.requests),
			float64(m.ri.inBytes)/float64(max(1, m.d.requests)), float64(m.ri.outBytes)/float64(max(1, m.d.requests)), m.ri.cpu*1e6/float64(max(1, m.d.requests)),
			m.ri.trouble, m.d.cache["hit"], m.d.cache["miss"], m.d.cache["stale"], durText(m.d.lat.quantile(0.5)), durText(m.d.lat.quantile(0.99)), m.d.serverErrors())
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Redis round trips and commands are what the replicas sent (a go-redis hook on each: a pipeline or MULTI…EXEC transaction is one round trip of several commands, a script's EVALSHA one command whatever it runs inside Redis; HELLO opens a connection, PING is the probe of a replica that found Redis down); bytes what Redis read and wrote (INFO stats); Redis CPU its process's time (INFO cpu). Redis trouble is what the replicas' fleets counted (fleet.Status): times Redis was marked down (an operation failed or took over 50 ms), operations that failed, and operations not tried meanwhile, each answered from the replica's own state.")
	fmt.Fprintln(w)
	failures(w, "mix", func(yield func(string, *driveResult) bool) {
		for _, m := range res.mix {
			if !yield(fmt.Sprintf("%d replicas", m.replicas), m.d) {
				return
			}
		}
	})
}

func reportKinds(w io.Writer, o options, res *results) {
	fmt.Fprintf(w, "## Redis commands and bytes per request, by kind\n\n")
	fmt.Fprintf(w, "Each kind alone, %d requests, %d at a time, on %d replicas with Redis (new replicas, empty Redis), in this order. Round trips and commands are what the replicas sent (a go-redis hook on each: a pipeline or transaction is one round trip, a script's EVALSHA one command), bytes what Redis read and wrote on the network (INFO stats), Redis CPU its process's system and user time (INFO cpu; it includes Redis's own background work, about 1 ms a second).\n\n",
		o.kindRequests, o.concurrency, o.maxReplicas())
	fmt.Fprintln(w, "| request | Redis round trips (commands) / request | Redis bytes in / out per request | Redis CPU / request | Redis trouble | upstream / request (DNS · SMP · Directory · OCSP) | p50 / p99 | answers | failed |")
	fmt.Fprintln(w, "|---|---|---|---:|---|---|---|---|---:|")
	for _, k := range res.kinds {
		n := float64(max(1, k.d.requests))
		fmt.Fprintf(w, "| %s | %.2f (%s) | %.0f / %.0f | %.1f µs | %s | %.2f · %.2f · %.2f · %.2f | %s / %s | %s | %d |\n",
			k.name, float64(k.ri.trips)/n, k.ri.sent.perRequest(k.d.requests), float64(k.ri.inBytes)/n, float64(k.ri.outBytes)/n, k.ri.cpu*1e6/n, k.ri.trouble,
			float64(k.up.dns)/n, float64(k.up.smp)/n, float64(k.up.dir)/n, float64(k.up.ocsp)/n,
			durText(k.d.lat.quantile(0.5)), durText(k.d.lat.quantile(0.99)), statusText(k.d.statuses), k.d.serverErrors())
	}
	fmt.Fprintln(w)
	for _, k := range res.kinds {
		fmt.Fprintf(w, "- %s: %s.\n", k.name, k.what)
	}
	fmt.Fprintln(w)
	failures(w, "kinds", func(yield func(string, *driveResult) bool) {
		for _, k := range res.kinds {
			if !yield(k.name, k.d) {
				return
			}
		}
	})
}

func reportHits(w io.Writer, res *results) {
	fmt.Fprintf(w, "## The cost of a cache hit\n\n")
	fmt.Fprintln(w, "| answered by | samples | p50 | p99 | value | Redis commands / op | Redis bytes in / out per op | Redis CPU / op |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---|---|---:|")
	for _, h := range res.hits {
		size := "—"
		if h.bytes > 0 {
			size = phrase.Grouped(int64(h.bytes), ",") + " B"
		}
		cmds, bytes, cpu := "—", "—", "—"
		if h.ops > 0 {
			cmds = h.ri.sent.perRequest(h.ops)
			bytes = fmt.Sprintf("%.0f / %.0f", float64(h.ri.inBytes)/float64(h.ops), float64(h.ri.outBytes)/float64(h.ops))
			cpu = fmt.Sprintf("%.1f µs", h.ri.cpu*1e6/float64(h.ops))
		}
		fmt.Fprintf(w, "| %s | %d | %s | **%s** | %s | %s | %s | %s |\n", h.name, len(h.lat.d), durText(h.lat.quantile(0.5)), durText(h.lat.quantile(0.99)), size, cmds, bytes, cpu)
	}
	fmt.Fprintln(w)
	for _, h := range res.hits {
		p := ""
		if h.problems > 0 {
			p = fmt.Sprintf(" **%d failed.**", h.problems)
		}
		fmt.Fprintf(w, "- %s: %s.%s\n", h.name, h.what, p)
	}
	fmt.Fprintln(w)
}

func reportThroughput(w io.Writer, o options, res *results) {
	fmt.Fprintf(w, "## Cached lookups per second\n\n")
	fmt.Fprintf(w, "GET /api/v1/participant/{id} of %d popular ids warmed on every replica, round robin, %d at a time for %s. All replicas share this process's %d CPUs with the client and netsim.\n\n",
		res.tput[0].hot, o.tputConcurrency, o.duration, res.env.cpus)
	fmt.Fprintln(w, "| replicas | Redis | req/s | vs 1 without Redis | p50 / p99 | Redis round trips (commands) / request | Redis CPU / request | Redis trouble | failed |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---|---|---:|---|---:|")
	base := res.tput[0].d.requests
	for _, t := range res.tput {
		redis := "no"
		if t.redis {
			redis = "yes"
		}
		fmt.Fprintf(w, "| %d | %s | **%s** | %s | %s / %s | %.2f (%s) | %.1f µs | %s | %d |\n", t.replicas, redis,
			phrase.Grouped(int64(float64(t.d.requests)/t.d.seconds), ","), ratio(int64(t.d.requests), int64(base)),
			durText(t.d.lat.quantile(0.5)), durText(t.d.lat.quantile(0.99)),
			float64(t.ri.trips)/float64(max(1, t.d.requests)), t.ri.sent.perRequest(t.d.requests),
			t.ri.cpu*1e6/float64(max(1, t.d.requests)), t.ri.trouble, t.d.serverErrors())
	}
	fmt.Fprintln(w)
	failures(w, "throughput", func(yield func(string, *driveResult) bool) {
		for _, t := range res.tput {
			if !yield(fmt.Sprintf("%d replicas", t.replicas), t.d) {
				return
			}
		}
	})
}

// failures lists the first failed requests of each run.
func failures(w io.Writer, phase string, runs func(func(string, *driveResult) bool)) {
	found := false
	for name, d := range runs {
		for _, f := range d.failures {
			fmt.Fprintf(w, "- **Failed** (%s, %s): %s\n", phase, name, f)
			found = true
		}
	}
	if found {
		fmt.Fprintln(w)
	}
}

func ratio(a, b int64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

func durText(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

// statusText lists the HTTP statuses of a run: "200 × 98 · 404 × 2".
func statusText(st map[int]int) string {
	var codes []int
	for c := range st {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%d × %d", c, st[c])
	}
	return strings.Join(parts, " · ")
}
