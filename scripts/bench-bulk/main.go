// Command bench-bulk is the benchmark of `make bench-bulk` (issue 18): the bulk engine
// (bulk.Check) over a simulated Peppol network with realistic upstream latency, cold
// and cached, and its peak memory from ten thousand to a million rows.
//
// Each run is a child process of this command (the same binary with -child), so that
// its peak RSS is its own. A child generates a netsim dataset with -hosts SMP hosts,
// starts netsim on loopback, builds a Directory mirror from the simulated Directory's
// export (what a bulk user configures, so that no row waits for the Directory's rate
// limit; -directory live asks the live Directory instead), builds the registry with
// stack.Build, and then sets the latency: -dns-latency on every DNS answer and
// -smp-latency on every request to every SMP host. It picks -distinct registered
// participants, the same number on every SMP host, each costing exactly one
// ServiceGroup and one ServiceMetadata request when looked up cold, and streams rows
// naming them through bulk.Check at -concurrency:
//
//   - cold: the distinct participants once each, on an empty cache;
//   - cached: -rows rows cycling over the same participants, every one a cache hit.
//
// Rows are made on the fly and results are counted, never kept. The bound of the cold
// pass is what the registry's per-SMP-host cap allows (peppolnet.Config
// SMPHostConcurrency requests in flight per host): rows ÷ (the busiest host's SMP
// requests × -smp-latency ÷ the cap); with the rows spread evenly that is hosts × cap ÷
// (2 × -smp-latency), 320 rows/s at the defaults. DNS answers hold no host slot, and the
// OCSP responder is a server of its own whose answers are remembered per certificate.
//
// Usage:
//
//	bench-bulk [-sizes 10000,100000,1000000] [-distinct 10000] [-concurrency 128] [-sweep 32,64,256] …
//
// It prints Markdown tables on stdout and progress on stderr. Exit status 0 when every
// run finished and answered every row as expected, 1 otherwise, 2 for bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/internal/benchenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Row orders of -order.
const (
	orderShuffled   = "shuffled"
	orderHosts      = "hosts"
	orderRoundRobin = "roundrobin"
)

// Directory modes of -directory.
const (
	directoryMirror = "mirror"
	directoryLive   = "live"
)

// options are the command's flags.
type options struct {
	child       bool
	sizes       []int
	distinct    int
	concurrency int
	sweep       []int
	order       string
	hosts       int
	seed        int64
	dnsLatency  time.Duration
	smpLatency  time.Duration
	directory   string
	dirRate     float64
	dirLatency  time.Duration
	timeout     time.Duration
	quietWait   time.Duration
	memProfile  string
	// rows is the child's number of rows of the cached pass.
	rows int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench-bulk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.child, "child", false, "internal: run one size in this process and print its result as JSON")
	sizes := fs.String("sizes", "10000,100000,1000000", "rows of the cached pass, one run each, comma-separated")
	fs.IntVar(&o.distinct, "distinct", 10000, "distinct participants: the rows of the cold pass (at most the registry's cache, 10,000)")
	fs.IntVar(&o.concurrency, "concurrency", 128, "bulk.Config.Concurrency of the runs of -sizes")
	sweep := fs.String("sweep", "", "further runs of -distinct rows at these concurrencies, comma-separated (e.g. 32,64,256)")
	fs.StringVar(&o.order, "order", orderShuffled, "order of the rows: shuffled (seeded), hosts (grouped by SMP host: the worst case) or roundrobin (host after host)")
	fs.IntVar(&o.hosts, "hosts", 4, "simulated SMP hosts")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the dataset and of the row order")
	fs.DurationVar(&o.dnsLatency, "dns-latency", 20*time.Millisecond, "latency of every DNS answer")
	fs.DurationVar(&o.smpLatency, "smp-latency", 50*time.Millisecond, "latency of every request to an SMP host")
	fs.StringVar(&o.directory, "directory", directoryMirror, "where the Directory half of a lookup comes from: mirror (built from the simulated Directory's export) or live (the simulated Directory, under -directory-rate)")
	fs.Float64Var(&o.dirRate, "directory-rate", 0, "with -directory live: the registry's Directory requests per second (0: its default, 2/s, the real Directory's limit)")
	fs.DurationVar(&o.dirLatency, "directory-latency", 0, "with -directory live: latency of every Directory request")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "longest one run may take")
	fs.DurationVar(&o.quietWait, "quiet-wait", 0, "before each run, wait up to this long for other processes to use under a quarter of a core (shared machines)")
	fs.StringVar(&o.memProfile, "memprofile", "", "write a heap profile after each run's cold pass to this file (a run's rows and concurrency are added to its name)")
	fs.IntVar(&o.rows, "rows", 0, "internal: with -child, the rows of the cached pass")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if o.sizes, err = intList("-sizes", *sizes); err != nil {
		return o, err
	}
	if o.sweep, err = intList("-sweep", *sweep); err != nil {
		return o, err
	}
	switch {
	case o.distinct < 1 || o.concurrency < 1 || o.hosts < 1 || o.timeout <= 0:
		return o, errors.New("-distinct, -concurrency, -hosts and -timeout must be positive")
	case o.dnsLatency < 0 || o.smpLatency <= 0 || o.dirLatency < 0 || o.dirRate < 0:
		return o, errors.New("-smp-latency must be positive; -dns-latency, -directory-latency and -directory-rate not negative")
	case o.order != orderShuffled && o.order != orderHosts && o.order != orderRoundRobin:
		return o, fmt.Errorf("-order: unknown order %q (shuffled, hosts, roundrobin)", o.order)
	case o.directory != directoryMirror && o.directory != directoryLive:
		return o, fmt.Errorf("-directory: unknown source %q (mirror, live)", o.directory)
	case o.child && o.rows < 1:
		return o, errors.New("-child needs -rows")
	case !o.child && len(o.sizes) == 0 && len(o.sweep) == 0:
		return o, errors.New("nothing to run: -sizes and -sweep are empty")
	}
	return o, nil
}

// intList parses a comma-separated list of positive integers; "" is none.
func intList(flagName, s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(strings.ReplaceAll(f, "_", ""))
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is no positive integer", flagName, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// runSpec is one child run.
type runSpec struct {
	rows, concurrency int
}

// plan lists the runs of o: each size at -concurrency, then -distinct rows at each
// concurrency of -sweep, without repeats.
func plan(o options) []runSpec {
	var out []runSpec
	add := func(r runSpec) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	for _, n := range o.sizes {
		add(runSpec{rows: n, concurrency: o.concurrency})
	}
	for _, c := range o.sweep {
		add(runSpec{rows: o.distinct, concurrency: c})
	}
	return out
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-bulk:", err)
		return 2
	}
	if o.child {
		res, err := runChild(ctx, o, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "bench-bulk -child:", err)
			return 1
		}
		if err := writeResult(stdout, res); err != nil {
			fmt.Fprintln(stderr, "bench-bulk -child:", err)
			return 1
		}
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "bench-bulk:", err)
		return 1
	}
	env := describeEnv(ctx)
	runs := plan(o)
	var results []childResult
	ok := true
	for i, r := range runs {
		if ctx.Err() != nil {
			break
		}
		if o.quietWait > 0 {
			waitQuiet(ctx, o.quietWait, 0.25, stderr)
		}
		fmt.Fprintf(stderr, "bench-bulk: run %d of %d: %d rows over %d distinct participants, concurrency %d\n", i+1, len(runs), r.rows, min(r.rows, o.distinct), r.concurrency)
		res, err := spawn(ctx, exe, childArgs(o, r), o.timeout, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "bench-bulk: run %d: %v\n", i+1, err)
			ok = false
			continue
		}
		if len(res.Problems) > 0 {
			ok = false
		}
		results = append(results, res)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "bench-bulk: interrupted")
		return 1
	}
	env.loadEnd = benchenv.LoadAvg()
	report(stdout, o, env, results)
	if !ok {
		return 1
	}
	return 0
}

// childArgs are the flags of the child of run r.
func childArgs(o options, r runSpec) []string {
	args := []string{
		"-child",
		"-rows", strconv.Itoa(r.rows),
		"-distinct", strconv.Itoa(min(r.rows, o.distinct)),
		"-concurrency", strconv.Itoa(r.concurrency),
		"-order", o.order,
		"-hosts", strconv.Itoa(o.hosts),
		"-seed", strconv.FormatInt(o.seed, 10),
		"-dns-latency", o.dnsLatency.String(),
		"-smp-latency", o.smpLatency.String(),
		"-directory", o.directory,
		"-directory-rate", strconv.FormatFloat(o.dirRate, 'g', -1, 64),
		"-directory-latency", o.dirLatency.String(),
		"-timeout", o.timeout.String(),
	}
	if o.memProfile != "" {
		args = append(args, "-memprofile", fmt.Sprintf("%s.%d-c%d", o.memProfile, r.rows, r.concurrency))
	}
	return args
}
