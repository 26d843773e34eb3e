// Command bench-fleet is the benchmark of `make bench-fleet` (issue 27): peppolgate
// run as a fleet of replicas sharing one Redis, over one simulated Peppol network.
//
// It starts its own redis-server (Debian's; make redis-server installs it) on a
// free loopback port with no persistence, and the demo network (netsim, 3,000
// participants) in this process. A replica is what `peppolgate serve -redis …` runs:
// its own stack.Build (registries, caches, breakers, limiters) and server.New, with
// its own *fleet.Fleet on the shared Redis, served on a loopback port; every replica
// of a configuration asks the same simulated network, whose counters (netsim Hits)
// say what went upstream. Each configuration starts from new replicas and an empty
// Redis. Redis's own counters (INFO commandstats and stats, before and after) say
// which commands and how many bytes each phase cost; the benchmark's own INFO,
// CONFIG and FLUSHALL are left out; a go-redis hook on every replica's client counts
// the commands it sent (an EVALSHA is one command sent, whatever its script runs
// inside Redis). It measures:
//
//   - mix: -requests requests (lookups, searches and services in the shares of
//     -mix, each item drawn with a Zipf popularity of exponent -zipf, so that some are
//     asked for the first time and most again) sent round robin to 1 replica without
//     Redis and to each count of -replicas with Redis: upstream requests per 1,000
//     client requests (the goal: flat as replicas are added), Redis commands and bytes
//     per request;
//   - kinds: each kind of request alone (cold, answered by the replica's in-process
//     cache, answered by another replica), -kind-requests each, on the most replicas:
//     the Redis commands and bytes of each, for the capacity model of BENCHMARKS.md;
//   - hit: the latency (p50, p99) of a cached lookup answered by the replica's own
//     cache, by a replica that has not seen the id, and of a bare Redis GET + decode of
//     a participant through fleet.Do, one request at a time, -hit-samples each;
//   - throughput: cached lookups of -hot popular ids, round robin, as fast as
//     -throughput-concurrency clients can for -duration: 1 replica without Redis
//     against the most replicas with Redis. Every replica, the client and netsim share
//     this process and the machine's cores: this measures what the fleet costs, not
//     how it scales across machines.
//
// Usage:
//
//	bench-fleet [-requests 20000] [-replicas 1,2,3] [-mix 700,200,100] [-zipf 1.1] …
//
// It prints Markdown tables on stdout and progress on stderr. Exit status 0 when every
// phase ran and no request failed (5xx or transport), 1 otherwise, 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	requests        int
	replicas        []int
	shares          mixShares
	zipf            float64
	seed            uint64
	concurrency     int
	kindRequests    int
	hitSamples      int
	hot             int
	tputConcurrency int
	duration        time.Duration
	limits          bool
	prefix          string
	redisServer     string
	timeout         time.Duration
	verbose         bool
}

func (o options) maxReplicas() int { return slices.Max(o.replicas) }

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench-fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.requests, "requests", 20000, "requests of the mix, per configuration")
	replicas := fs.String("replicas", "1,2,3", "replica counts with Redis, comma-separated (1 replica without Redis always runs first)")
	mix := fs.String("mix", "700,200,100", "shares per mille of lookups, searches and services in the mix")
	fs.Float64Var(&o.zipf, "zipf", 1.1, "exponent (> 1) of the Zipf popularity of the mix's participants and queries")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the mix")
	fs.IntVar(&o.concurrency, "concurrency", 16, "requests in flight in the mix and the kinds")
	fs.IntVar(&o.kindRequests, "kind-requests", 300, "requests of each kind asked alone")
	fs.IntVar(&o.hitSamples, "hit-samples", 2000, "requests of each cache-hit latency")
	fs.IntVar(&o.hot, "hot", 200, "popular ids of the throughput run, warmed on every replica")
	fs.IntVar(&o.tputConcurrency, "throughput-concurrency", 32, "requests in flight in the throughput run")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of each throughput run")
	fs.BoolVar(&o.limits, "limits", true, "a per-client rate limit on every API request (1,000,000/s: it decides on every request and refuses none)")
	fs.StringVar(&o.prefix, "redis-prefix", "bench-fleet", "key prefix of the replicas")
	fs.StringVar(&o.redisServer, "redis-server", "redis-server", "the redis-server binary to start")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "longest the whole benchmark may take")
	fs.BoolVar(&o.verbose, "v", false, "log the replicas' warnings to stderr")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for f := range strings.SplitSeq(*replicas, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 16 {
			return o, fmt.Errorf("-replicas: %q is no count from 1 to 16", f)
		}
		if !slices.Contains(o.replicas, n) {
			o.replicas = append(o.replicas, n)
		}
	}
	var sh []int
	for f := range strings.SplitSeq(*mix, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return o, fmt.Errorf("-mix: %q is no share", f)
		}
		sh = append(sh, n)
	}
	if len(sh) != 3 || sh[0]+sh[1]+sh[2] != 1000 {
		return o, errors.New("-mix: three shares (lookups, searches, services) adding up to 1000")
	}
	o.shares = mixShares{lookup: sh[0], search: sh[1], services: sh[2]}
	switch {
	case o.zipf <= 1:
		return o, errors.New("-zipf must be more than 1")
	case o.requests < 1 || o.concurrency < 1 || o.kindRequests < 1 || o.hitSamples < 1 || o.hot < 1 || o.tputConcurrency < 1:
		return o, errors.New("-requests, -concurrency, -kind-requests, -hit-samples, -hot and -throughput-concurrency must be positive")
	case o.duration <= 0 || o.timeout <= 0:
		return o, errors.New("-duration and -timeout must be positive")
	}
	return o, nil
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-fleet:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	res, err := measure(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench-fleet:", err)
		if res == nil {
			return 1
		}
	}
	report(stdout, o, res)
	if err != nil || res.failed() {
		return 1
	}
	return 0
}

// results is everything measured, for the report.
type results struct {
	env        env
	redis      string
	population population
	distinct   float64
	mix        []mixRow
	kinds      []kindRow
	hits       []hitRow
	tput       []tputRow
}

func (r *results) failed() bool {
	for _, m := range r.mix {
		if m.d.serverErrors() > 0 {
			return true
		}
	}
	for _, k := range r.kinds {
		if k.d.serverErrors() > 0 {
			return true
		}
	}
	for _, h := range r.hits {
		if h.problems > 0 {
			return true
		}
	}
	for _, t := range r.tput {
		if t.d.serverErrors() > 0 {
			return true
		}
	}
	return len(r.mix) == 0
}

// measure runs every phase; what it measured before an error is returned with it.
func measure(ctx context.Context, o options, logw io.Writer) (*results, error) {
	stack.SetGC() // as the binary does
	level := slog.LevelError + 1
	if o.verbose {
		level = slog.LevelWarn
	}
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: level}))
	res := &results{env: describeEnv(ctx)}
	rs, err := startRedis(ctx, o.redisServer)
	if err != nil {
		return nil, err
	}
	defer rs.stop()
	res.redis = rs.version
	sims, stopSims, err := stack.StartDemo(ctx, []string{registry.NetworkDemo}, nil)
	if err != nil {
		return nil, err
	}
	defer stopSims()
	b := &bench{o: o, redis: rs, nets: sims, sim: sims[0].Sim, log: log, logw: logw, sent: &sentCounter{},
		client: newHTTPClient(max(o.concurrency, o.tputConcurrency)*2, 30*time.Second)}
	b.pop = demoPopulation(b.sim.Dataset(), o.seed)
	res.population = b.pop
	fmt.Fprintf(logw, "bench-fleet: redis-server %s on %s; the demo network: %d participants to look up, %d names to search\n", rs.version, rs.addr, len(b.pop.ids), len(b.pop.queries))

	reqs := makeMix(b.pop, o.requests, o.shares, o.zipf, o.seed)
	res.distinct = distinctShare(reqs)
	configs := []struct {
		n     int
		redis bool
	}{{1, false}}
	for _, n := range o.replicas {
		configs = append(configs, struct {
			n     int
			redis bool
		}{n, true})
	}
	for _, c := range configs {
		fmt.Fprintf(logw, "bench-fleet: mix: %d requests on %d replicas, Redis %v\n", len(reqs), c.n, c.redis)
		row, err := b.runMix(ctx, c.n, c.redis, reqs)
		if err != nil {
			return res, fmt.Errorf("mix on %d replicas: %w", c.n, err)
		}
		res.mix = append(res.mix, row)
		fmt.Fprintf(logw, "bench-fleet: … %.1f s, %d upstream requests, %d Redis commands\n", row.d.seconds, row.up.total(), row.ri.sent.total())
	}
	fmt.Fprintf(logw, "bench-fleet: kinds and cache hits on %d replicas\n", o.maxReplicas())
	if res.kinds, res.hits, err = b.runKinds(ctx); err != nil {
		return res, fmt.Errorf("kinds: %w", err)
	}
	for _, c := range []struct {
		n     int
		redis bool
	}{{1, false}, {o.maxReplicas(), true}} {
		fmt.Fprintf(logw, "bench-fleet: throughput: %d replicas, Redis %v, %s\n", c.n, c.redis, o.duration)
		row, err := b.runThroughput(ctx, c.n, c.redis)
		if err != nil {
			return res, fmt.Errorf("throughput on %d replicas: %w", c.n, err)
		}
		res.tput = append(res.tput, row)
	}
	b.client.CloseIdleConnections()
	res.env.loadEnd = loadAvg()
	return res, ctx.Err()
}
