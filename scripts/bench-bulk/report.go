package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/internal/benchenv"
	"github.com/peppolgate/peppolgate/internal/phrase"
)

// spawn runs one child with args and returns its result, its peak RSS from rusage
// filled in. The child's stderr (progress) goes to logw.
func spawn(ctx context.Context, exe string, args []string, timeout time.Duration, logw io.Writer) (childResult, error) {
	var res childResult
	// The child bounds itself by -timeout; this is the backstop.
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, logw
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("%s %s: %w", exe, strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return res, fmt.Errorf("reading the child's result: %w", err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSSKB = ru.Maxrss // KB on Linux
	}
	return res, nil
}

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

// report writes the Markdown tables of the runs.
func report(w io.Writer, o options, e env, rs []childResult) {
	fmt.Fprintf(w, "# bench-bulk\n\n")
	fmt.Fprintf(w, "Command: `bench-bulk %s`\n\n", strings.Join(os.Args[1:], " "))
	fmt.Fprintf(w, "%s, %d CPUs (%s), %s, commit %s; load average %s at the start, %s at the end.\n\n", e.date, e.cpus, e.cpuModel, e.goVersion, e.commit, e.loadStart, e.loadEnd)
	if len(rs) == 0 {
		fmt.Fprintln(w, "No run finished.")
		return
	}
	r0 := rs[0]
	dir := fmt.Sprintf("a Directory mirror built from the simulated Directory's export (%d cards; no row asks the live Directory)", r0.MirrorCards)
	if r0.Directory == directoryLive {
		dir = fmt.Sprintf("the live (simulated) Directory, %s per request, limited by the registry to %g requests/s", o.dirLatency, r0.DirRate)
	}
	fmt.Fprintf(w, "netsim on loopback with %d SMP hosts, %s per DNS answer, %s per SMP request; %s. "+
		"The registry as stack.Build makes it: at most %d requests of a bulk check in flight per SMP host (its share of the host's slots), a cache of %d lookups. "+
		"Rows are registered participant ids (`<scheme>:<value>`), %s, the same number on each SMP host, each costing one ServiceGroup and one ServiceMetadata request cold; "+
		"the cached pass cycles over the same participants. GOGC %d, GOMAXPROCS %d; netsim runs in the same process.\n\n",
		r0.Hosts, r0.DNSLatency, r0.SMPLatency, dir, r0.HostCap, r0.CacheEntries, orderText(r0.Order), r0.GOGC, r0.GOMAXPROCS)
	fmt.Fprintf(w, "Bound of the cold pass: rows ÷ (busiest host's SMP requests × %s ÷ %d); with the rows spread evenly, %d hosts × %d ÷ (2 × %s) = %.0f rows/s.\n\n",
		r0.SMPLatency, r0.HostCap, r0.Hosts, r0.HostCap, r0.SMPLatency, r0.NominalBound)

	fmt.Fprintln(w, "| rows | distinct | concurrency | cold rows/s | bound | % of bound | cold p50 / p95 | cached rows/s | cached p50 / p95 | peak RSS: setup / cold / cached pass (from) |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---|---:|---|---|")
	for _, r := range rs {
		cachedRSS := mb(r.CachedHWMKB)
		if !r.HWMReset {
			cachedRSS = "— (whole run " + mb(r.MaxRSSKB) + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %.0f | **%.0f %%** | %s / %s | %s | %s / %s | %s / %s / **%s** (%s) |\n",
			phrase.Grouped(int64(r.Rows), ","), phrase.Grouped(int64(r.Distinct), ","), r.Concurrency, r.Cold.RowsPerSec, r.Bound, 100*r.Cold.RowsPerSec/r.Bound,
			msText(r.Cold.P50MS), msText(r.Cold.P95MS), phrase.Grouped(int64(r.Cached.RowsPerSec), ","), msText(r.Cached.P50MS), msText(r.Cached.P95MS),
			mb(r.SetupHWMKB), mb(r.ColdHWMKB), cachedRSS, mb(r.CachedStartKB))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Per-row latency runs from the engine taking the row off its input channel to its result. Peak RSS is VmHWM. Before the cached pass the cold pass's garbage is collected and returned to the system (debug.FreeOSMemory; the RSS it leaves is in brackets) and the peak is reset (/proc/self/clear_refs), so the last figure is the cached pass's own peak.")
	fmt.Fprintln(w)

	fmt.Fprintln(w, "What the cold pass asked upstream, how busy it kept each SMP host (requests the host was answering, sampled every 10 ms: mean, and the most seen; the cap is the most), and how the rows sat in the engine (mean rows of each host between being taken and answered, and the share of the time fewer than the cap):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| rows | concurrency | SMP requests per host | requests in flight per host: mean (most) | DNS | OCSP | Directory | rows per host in the engine: mean (time under the cap) | CPU cores cold / cached | other processes' cores cold / cached | live heap after cold / cached |")
	fmt.Fprintln(w, "|---:|---:|---|---|---:|---:|---:|---|---|---|---:|")
	for _, r := range rs {
		var hostRows, served []string
		for h := range r.Cold.HostRowsMean {
			hostRows = append(hostRows, fmt.Sprintf("%.1f (%.0f %%)", r.Cold.HostRowsMean[h], 100*r.Cold.HostRowsUnder[h]))
			served = append(served, fmt.Sprintf("%.1f (%d)", r.Cold.SMPInFlightMean[h], r.Cold.SMPMaxInFlight[h]))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %d | %d | %d | %s | %.2f / %.2f | %.2f / %.2f | %s / %s |\n",
			phrase.Grouped(int64(r.Rows), ","), r.Concurrency, joinInts(r.Cold.SMPRequests), strings.Join(served, " · "),
			r.Cold.DNSQueries, r.Cold.OCSPRequests, r.Cold.DirRequests, strings.Join(hostRows, " · "),
			r.Cold.CPUSeconds/r.Cold.Seconds, r.Cached.CPUSeconds/r.Cached.Seconds, r.Cold.OtherCores, r.Cached.OtherCores, mb(r.LiveHeapKB), mb(r.LiveHeapEndKB))
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		for _, p := range r.Problems {
			fmt.Fprintf(w, "- **Problem** (%s rows, concurrency %d): %s\n", phrase.Grouped(int64(r.Rows), ","), r.Concurrency, p)
		}
	}
}

func orderText(order string) string {
	switch order {
	case orderHosts:
		return "grouped by SMP host (all of host 0 first)"
	case orderRoundRobin:
		return "host after host in turn"
	}
	return "in a seeded random order"
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, " · ")
}

func msText(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f µs", ms*1000)
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }
