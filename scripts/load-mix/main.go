// Command load-mix is the load test of `make load`: a mixed workload (cached and cold
// participant lookups, searches by name and by VAT number, POST /ask as JSON and as an
// event stream) offered at a fixed rate against peppolgate on the demo network, with
// latency percentiles, status counts and errors per kind, and the CPU split between
// server and generator.
//
// Two runs, each against a fresh server:
//
//   - binary: the built binary, `peppolgate -network demo -addr 127.0.0.1:0`.
//   - faults: the same stack (netsim, peppolnet.Registry, server.New, http.Server, wired
//     as cmd/peppolgate wires the demo) in a child process of this program, whose
//     simulated network takes fault commands; for part of the run SMP host 0 answers
//     500 and the Directory 429 with Retry-After. Every 5xx must be one the faults
//     explain.
//
// The load is open loop: requests are due at even intervals whatever the answers
// take, so a slow server cannot slow the load down and hide its own latency. Latency
// runs from sending a request to reading the last byte of its answer.
//
// Usage:
//
//	load-mix [-bin bin/peppolgate] [-runs binary,faults] [-duration 60s] [-rate 4000] …
//
// It prints Markdown tables on stdout and progress on stderr, and exits 1 when a run
// fails or has a failure the faults do not explain, 2 for bad flags.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	serve       bool
	bin         string
	serverArgs  []string
	runs        []string
	duration    time.Duration
	rate        float64
	maxInFlight int
	timeout     time.Duration
	hot         int
	seed        uint64
	faults      faultPlan
	keepLogs    bool
	quietWait   time.Duration
	cpuProfile  string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("load-mix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.serve, "serve", false, "internal: serve the in-stack target (commands on stdin)")
	fs.StringVar(&o.bin, "bin", "bin/peppolgate", "the peppolgate binary of the binary run")
	serverArgs := fs.String("server-args", "-rate-limit off -ask-rate-limit off -mcp-rate-limit off",
		"further flags for the binary, space-separated (default: no per-client rate limits, since the generator is one client)")
	runs := fs.String("runs", "binary,faults", "runs to do, comma-separated: binary, faults")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "length of each run")
	fs.Float64Var(&o.rate, "rate", 3000, "requests per second offered")
	fs.IntVar(&o.maxInFlight, "max-in-flight", 2000, "requests waiting for answers at most; more are skipped and counted")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "deadline of one request")
	fs.IntVar(&o.hot, "hot-companies", 100, "companies whose lookups, searches and questions are warmed and repeated")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the request order and of the cold pools")
	fs.DurationVar(&o.faults.at, "fault-at", 0, "faults run: when the faults start (default a third of -duration)")
	fs.DurationVar(&o.faults.length, "fault-for", 0, "faults run: how long they last (default a third of -duration)")
	fs.DurationVar(&o.faults.grace, "grace", 5*time.Second, "faults run: how long after the faults and the registry's breaker cooldown a failure still counts as theirs")
	fs.IntVar(&o.faults.smpHost, "fault-smp-host", 0, "faults run: the SMP host that fails")
	fs.BoolVar(&o.keepLogs, "keep-logs", false, "keep the servers' logs (printed path)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the generator's CPU profile to this file")
	fs.DurationVar(&o.quietWait, "quiet-wait", 0, "before each run, wait up to this long for other processes to use under a quarter of a core (shared machines)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.faults.smpStatus, o.faults.dirStatus, o.faults.retryAfter = 500, 429, "2"
	// The in-stack registry, like the binary's, runs with the default breaker.
	o.faults.cooldown = peppolnet.DefaultBreakerCooldown
	if o.faults.at == 0 {
		o.faults.at = (o.duration / 3).Truncate(time.Second)
	}
	if o.faults.length == 0 {
		o.faults.length = (o.duration / 3).Truncate(time.Second)
	}
	o.serverArgs = strings.Fields(*serverArgs)
	for r := range strings.SplitSeq(*runs, ",") {
		switch r = strings.TrimSpace(r); r {
		case "binary", "faults":
			o.runs = append(o.runs, r)
		default:
			return o, fmt.Errorf("-runs: unknown run %q (binary, faults)", r)
		}
	}
	switch {
	case o.rate <= 0 || o.duration <= 0 || o.maxInFlight <= 0 || o.timeout <= 0:
		return o, errors.New("-rate, -duration, -max-in-flight and -timeout must be positive")
	case slices.Contains(o.runs, "faults") && (o.faults.at <= 0 || o.faults.length <= 0 || o.faults.at+o.faults.length >= o.duration):
		return o, errors.New("the faults (-fault-at, -fault-for) must start after the start of the run and end before its end (-duration)")
	}
	return o, nil
}

// run runs the command and returns its exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "load-mix:", err)
		return 2
	}
	if o.serve {
		if err := serveStack(ctx, stdin, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "load-mix -serve:", err)
			return 1
		}
		return 0
	}
	if os.Getenv("GOGC") == "" {
		// The generator's own garbage collection is CPU the server does not get.
		debug.SetGCPercent(400)
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "load-mix:", err)
			return 1
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ds := stack.DemoDataset()
	w := newWorkload(ds, o.seed, o.hot, need(o, askCold)*11/10)
	for _, k := range []kind{lookupCold, searchCold, askCold} {
		if n := need(o, k); len(w.cold[k]) < n {
			fmt.Fprintf(stderr, "load-mix: %s needs %d items at %.0f req/s for %v, the demo dataset gives %d; lower -rate or -duration\n",
				k, n, o.rate, o.duration, len(w.cold[k]))
			return 2
		}
	}
	dir, err := os.MkdirTemp("", "load-mix-")
	if err != nil {
		fmt.Fprintln(stderr, "load-mix:", err)
		return 1
	}
	writeHeader(stdout, o, w)
	ok := true
	for _, r := range o.runs {
		var err error
		var good bool
		if o.quietWait > 0 {
			waitQuiet(ctx, o.quietWait, stderr)
		}
		if r == "binary" {
			good, err = runBinary(ctx, o, w, dir, stdout, stderr)
		} else {
			good, err = runFaults(ctx, o, ds, w, dir, stdout, stderr)
		}
		if err != nil {
			fmt.Fprintf(stderr, "load-mix: %s run: %v\n", r, err)
			good = false
		}
		ok = ok && good
	}
	if o.keepLogs || !ok {
		fmt.Fprintln(stderr, "load-mix: server logs kept in", dir)
	} else {
		os.RemoveAll(dir)
	}
	if !ok {
		return 1
	}
	return 0
}

// quietCores is how much CPU other processes may use for the machine to count as quiet.
const quietCores = 0.25

// waitQuiet waits until the processes other than this one have used less than
// quietCores over 3 s, or d has passed, and says which on stderr.
func waitQuiet(ctx context.Context, d time.Duration, stderr io.Writer) {
	deadline := time.Now().Add(d)
	other := -1.0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		busy0, _, err1 := machineCPU()
		self0, err2 := procCPU("self")
		time.Sleep(3 * time.Second)
		busy1, _, err3 := machineCPU()
		self1, err4 := procCPU("self")
		if errors.Join(err1, err2, err3, err4) != nil {
			return // no /proc: nothing to wait for
		}
		if other = ((busy1 - busy0) - (self1 - self0)).Seconds() / 3; other < quietCores {
			fmt.Fprintf(stderr, "load-mix: the machine is quiet (other processes %.2f cores)\n", other)
			return
		}
	}
	fmt.Fprintf(stderr, "load-mix: the machine did not go quiet within %v (other processes %.2f cores); running anyway\n", d, other)
}

// timelineStep returns the slice length of a timeline of d: whole seconds, about a
// twelfth of d, between 1 and 5 s.
func timelineStep(d time.Duration) time.Duration {
	return min(5*time.Second, max((d/12).Truncate(time.Second), time.Second))
}

// need returns how many requests of kind k a run sends.
func need(o options, k kind) int {
	return int(math.Ceil(o.rate * o.duration.Seconds() * float64(specs()[k].perMille) / 1000))
}

func writeHeader(w io.Writer, o options, wl *workload) {
	fmt.Fprintf(w, "# load-mix: %.0f req/s offered for %v per run, open loop\n\n", o.rate, o.duration)
	fmt.Fprintln(w, "| kind | share | pool | what |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for k, s := range specs() {
		pool := len(wl.hot[k])
		if kind(k).isCold() {
			pool = len(wl.cold[k])
		}
		fmt.Fprintf(w, "| %s | %.1f %% | %d | %s |\n", kind(k), float64(s.perMille)/10, pool, s.what)
	}
	fmt.Fprintln(w)
}

// runBinary runs the mix against the binary and reports it; false when a failure
// happened (there are no faults to explain one).
func runBinary(ctx context.Context, o options, w *workload, dir string, stdout, stderr io.Writer) (bool, error) {
	fmt.Fprintf(stderr, "load-mix: binary run: %s -network demo -addr 127.0.0.1:0 %s\n", o.bin, strings.Join(o.serverArgs, " "))
	t, err := startBinary(ctx, o.bin, o.serverArgs, dir)
	if err != nil {
		return false, err
	}
	defer t.stop()
	phases := []phase{{"whole run", 0, o.duration}}
	res, err := load(ctx, o, w, t, phases, nil, stderr)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "## Run 1: the binary\n\n`%s -network demo -addr 127.0.0.1:0 %s` (demo network in its process, logs at its default level to a file)\n\n",
		o.bin, strings.Join(o.serverArgs, " "))
	writeTable(stdout, res.rec.merged(0, 1), o.duration)
	fmt.Fprintln(stdout)
	res.writeNotes(stdout, "its in-process demo network included")
	writeTimeline(stdout, res.rec.timeline(timelineStep(o.duration), o.duration))
	fmt.Fprintln(stdout)
	if res.snapErr == nil {
		writeUpstream(stdout, phases, res.snaps)
		fmt.Fprintln(stdout)
	}
	v := explain(res.rec.failures, nil, nil)
	writeVerdict(stdout, v)
	return v.unexplained == 0, nil
}

// runFaults runs the mix against the in-stack server with faults in the middle.
func runFaults(ctx context.Context, o options, ds *netsim.Dataset, w *workload, dir string, stdout, stderr io.Writer) (bool, error) {
	fmt.Fprintf(stderr, "load-mix: faults run: in-stack server; %s\n", o.faults.describe())
	t, err := startStack(ctx, dir)
	if err != nil {
		return false, err
	}
	defer t.stop()
	p := o.faults
	phases := []phase{
		{"before the faults", 0, p.at},
		{"during the faults", p.at, p.at + p.length},
		{"after the faults", p.at + p.length, o.duration},
	}
	res, err := load(ctx, o, w, t, phases, &p, stderr)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(stdout, "## Run 2: upstream faults\n\nThe same stack in a child process of load-mix, wired as `peppolgate -network demo` (no per-client rate limit); %s.\n\n", p.describe())
	for i, ph := range phases {
		fmt.Fprintf(stdout, "### %s (%.0f–%.0f s)\n\n", ph.name, ph.from.Seconds(), ph.to.Seconds())
		writeTable(stdout, res.rec.merged(i, i+1), ph.to-ph.from)
		fmt.Fprintln(stdout)
	}
	res.writeNotes(stdout, "its simulated network included")
	writeTimeline(stdout, res.rec.timeline(timelineStep(o.duration), o.duration))
	fmt.Fprintln(stdout)
	for _, e := range res.drive.events {
		if e.err != nil {
			return false, fmt.Errorf("%s: %w", e.name, e.err)
		}
	}
	if len(res.drive.events) != 2 {
		return false, errors.New("the faults were not switched on and off (interrupted?)")
	}
	on, off := res.drive.events[0], res.drive.events[1]
	win := p.window(on.start, off.end)
	fmt.Fprintf(stdout, "Faults on at %.2f s, off at %.2f s. Failures overlapping %.2f–%.2f s may be theirs: the registry's circuit breakers fail fast for their cooldown (%v) after the last failure they saw, plus a grace of %v.",
		on.start.Seconds(), off.end.Seconds(), win.from.Seconds(), win.to.Seconds(), p.cooldown, p.grace)
	if n := len(res.rec.failures); n > 0 {
		last := slices.MaxFunc(res.rec.failures, func(a, b failure) int { return cmp.Compare(a.sent, b.sent) })
		fmt.Fprintf(stdout, " The last failure was sent at %.2f s, %.1f s after the faults ended.", last.sent.Seconds(), (last.sent - off.end).Seconds())
	}
	fmt.Fprint(stdout, "\n\n")
	if res.snapErr == nil {
		writeUpstream(stdout, phases, res.snaps)
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "What the simulated network received:")
		fmt.Fprintln(stdout)
		writeHits(stdout, phases, res.snaps)
		fmt.Fprintln(stdout)
	}
	v := explain(res.rec.failures, &win, affectedBy(ds, p.smpHost))
	writeVerdict(stdout, v)
	return v.unexplained == 0, nil
}

// loadResult is one run's measurements.
type loadResult struct {
	rec    *recorder
	drive  driveResult
	warm   warmResult
	cpu    cpuSplit
	cpuErr error
	levels map[string]int
	// snaps are taken at the start of each phase and at the end of the run.
	snaps   []snapshot
	snapErr error
	o       options
}

// load warms t up, offers the mix for o.duration and collects the results.
func load(ctx context.Context, o options, w *workload, t *target, phases []phase, p *faultPlan, stderr io.Writer) (*loadResult, error) {
	c := newClient(t.base, o.timeout)
	defer c.close()
	res := &loadResult{o: o}
	fmt.Fprintf(stderr, "load-mix: %s listening at %s; warming up\n", t.name, t.base)
	var err error
	if res.warm, err = warm(ctx, c, w); err != nil {
		return nil, err
	}
	res.snaps = make([]snapshot, len(phases)+1)
	snap := func(i int) {
		s := snapshot{}
		s.metrics, s.err = scrape(ctx, c)
		if t.ctl != nil && s.err == nil {
			s.hits, s.err = t.ctl.hits()
		}
		res.snaps[i] = s
	}
	snap(0)
	var events []event
	if p != nil {
		events = p.events(t.ctl, snap)
	}
	fmt.Fprintf(stderr, "load-mix: %d warm-up requests; offering %.0f req/s for %v\n", res.warm.sent, o.rate, o.duration)
	res.rec = newRecorder(phases, int(o.rate*o.duration.Seconds()))
	cfg := loadConfig{rate: o.rate, duration: o.duration, maxInFlight: o.maxInFlight, mix: mixSequence(o.seed), events: events, progress: stderr}
	before, err1 := readCPU(t.pid())
	start := time.Now()
	res.drive = drive(ctx, c, w, cfg, res.rec)
	after, err2 := readCPU(t.pid())
	res.cpu, res.cpuErr = split(before, after, time.Since(start)), errors.Join(err1, err2)
	snap(len(phases))
	for _, s := range res.snaps {
		res.snapErr = cmp.Or(res.snapErr, s.err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.stop()
	res.levels = t.logLevels()
	return res, nil
}

// writeNotes writes what the generator observed of itself, the CPU split and the
// server's log levels.
func (r *loadResult) writeNotes(w io.Writer, serverIncludes string) {
	var sent, skipped, exhausted int
	for k := range numKinds {
		sent += r.drive.sent[k]
		skipped += r.drive.skipped[k]
		exhausted += r.drive.exhausted[k]
	}
	fmt.Fprintf(w, "Sent %d requests in %.1f s (%.0f/s) after %d warm-up requests", sent, r.o.duration.Seconds(),
		float64(sent)/r.o.duration.Seconds(), r.warm.sent)
	for k, d := range r.warm.dropped {
		fmt.Fprintf(w, " (%d %s dropped from the pool: %s)", len(d), k, d[0])
	}
	fmt.Fprintf(w, "; last answer %.1f s after the start. Not sent: %d at the in-flight cap of %d, %d for a used-up cold pool. Sent more than 2 ms late: %d (worst %v).\n",
		r.drive.elapsed.Seconds(), skipped, r.o.maxInFlight, exhausted, r.drive.lateOver2ms, r.drive.maxLate.Round(time.Microsecond))
	if r.cpuErr == nil {
		writeCPU(w, r.cpu, serverIncludes, float64(sent)/r.o.duration.Seconds())
	}
	if r.snapErr == nil {
		writeServerState(w, r.snaps[0], r.snaps[len(r.snaps)-1])
		directoryRateNote(w, r.snaps[0], r.snaps[len(r.snaps)-1], r.o.duration)
	} else {
		fmt.Fprintf(w, "No /metrics: %v.\n", r.snapErr)
	}
	fmt.Fprintf(w, "Server log lines: %d INFO, %d WARN, %d ERROR.\n\n", r.levels["INFO"], r.levels["WARN"], r.levels["ERROR"])
}

// writeVerdict writes the failures' classification.
func writeVerdict(w io.Writer, v verdict) {
	fmt.Fprintf(w, "Failures (5xx, failed event streams, transport errors): %d; explained by the faults: %d; **unexplained: %d**.\n",
		v.explained+v.unexplained, v.explained, v.unexplained)
	for _, r := range sortedCounts(v.reasons) {
		fmt.Fprintf(w, "- %s ×%d\n", r, v.reasons[r])
	}
	for _, e := range v.examples {
		fmt.Fprintf(w, "  - e.g. %s\n", e)
	}
	fmt.Fprintln(w)
}
