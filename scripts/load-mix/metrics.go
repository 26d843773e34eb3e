package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/stack"
)

// Series of the server's /metrics the report uses.
const (
	seriesUpstream    = "peppolgate_upstream_requests_total{"
	seriesRateLimited = "peppolgate_http_rate_limited_total{"
	seriesRSS         = "process_resident_memory_bytes"
	seriesGoroutines  = "go_goroutines"
)

// snapshot is the state of the target at one instant: its /metrics series the report
// uses, and for the in-stack target the simulated network's counters.
type snapshot struct {
	metrics map[string]float64
	hits    netsim.HitCounts
	err     error
}

// scrape reads the series the report uses from base's /metrics.
func scrape(ctx context.Context, c *client) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return parseMetrics(resp.Body)
}

// parseMetrics reads the Prometheus text format and keeps the series the report uses,
// keyed by name and labels as written.
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if !strings.HasPrefix(line, seriesUpstream) && !strings.HasPrefix(line, seriesRateLimited) &&
			!strings.HasPrefix(line, seriesRSS+" ") && !strings.HasPrefix(line, seriesGoroutines+" ") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %q: %w", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// labels returns the label values of a series "name{a="x",b="y"}" joined by spaces: "x y".
func labels(series string) string {
	_, rest, ok := strings.Cut(series, "{")
	if !ok {
		return ""
	}
	var vals []string
	for part := range strings.SplitSeq(strings.TrimSuffix(rest, "}"), ",") {
		if _, v, ok := strings.Cut(part, "="); ok {
			vals = append(vals, strings.Trim(v, `"`))
		}
	}
	return strings.Join(vals, " ")
}

// writeUpstream writes peppolgate's calls to the Peppol network per second in each
// phase, by kind and outcome, from /metrics snapshots at the phase boundaries
// (snaps[i] at the start of phases[i], the last at the end).
func writeUpstream(w io.Writer, phases []phase, snaps []snapshot) {
	var series []string
	for _, s := range snaps {
		for k := range s.metrics {
			if strings.HasPrefix(k, seriesUpstream) && !slices.Contains(series, k) {
				series = append(series, k)
			}
		}
	}
	slices.Sort(series)
	fmt.Fprint(w, "| upstream call (kind outcome), per second |")
	for _, p := range phases {
		fmt.Fprintf(w, " %s |", p.name)
	}
	fmt.Fprint(w, "\n|---|")
	for range phases {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, s := range series {
		var cells []string
		any := false
		for i, p := range phases {
			d := snaps[i+1].metrics[s] - snaps[i].metrics[s]
			any = any || d > 0
			cells = append(cells, fmt.Sprintf("%.1f", d/(p.to-p.from).Seconds()))
		}
		if any {
			fmt.Fprintf(w, "| %s | %s |\n", labels(s), strings.Join(cells, " | "))
		}
	}
}

// writeServerState writes the rate-limit refusals over the run and the server's memory
// and goroutines at its end, from the first and last snapshots.
func writeServerState(w io.Writer, first, last snapshot) {
	limited := 0.0
	for k, v := range last.metrics {
		if strings.HasPrefix(k, seriesRateLimited) {
			limited += v - first.metrics[k]
		}
	}
	fmt.Fprintf(w, "peppolgate's own rate limits refused %.0f requests; at the end of the run it held %.0f MB resident and %.0f goroutines (/metrics).\n",
		limited, last.metrics[seriesRSS]/1e6, last.metrics[seriesGoroutines])
}

// directoryRateNote warns when the run's Directory calls came near the registry's
// client-side limit on the demo network: its queue then turns requests away with
// search_failed, lookup_failed or ask_failed that no upstream fault caused.
func directoryRateNote(w io.Writer, first, last snapshot, d time.Duration) {
	calls := 0.0
	for k, v := range last.metrics {
		if strings.HasPrefix(k, seriesUpstream) && strings.Contains(k, `kind="directory"`) {
			calls += v - first.metrics[k]
		}
	}
	if rate := calls / d.Seconds(); rate >= 0.9*stack.DemoDirectoryRate {
		fmt.Fprintf(w, "Note: the cold kinds called the Directory %.0f times per second, at the registry's own limit on the demo network (%d/s, queue of %d): failures now also come from that queue being full (\"busy\"), not only from upstream faults. Lower -rate to stay under it.\n",
			rate, stack.DemoDirectoryRate, peppolnet.DefaultDirectoryQueue)
	}
}
