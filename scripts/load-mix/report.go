package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

// writeTable writes one Markdown table of buckets (one row per kind and a total row)
// for a phase of length d.
func writeTable(w io.Writer, b [numKinds]bucket, d time.Duration) {
	fmt.Fprintln(w, "| kind | share | requests | req/s | p50 | p99 | 2xx | 4xx | 5xx | X-Cache hit | other outcomes |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	var all bucket
	all.codes, all.cache = map[string]int{}, map[string]int{}
	sp := specs()
	for k := range numKinds {
		x := &b[k]
		writeRow(w, k.String(), fmt.Sprintf("%.1f %%", float64(sp[k].perMille)/10), x, d)
		all.add(x)
	}
	slices.Sort(all.lat)
	writeRow(w, "**all**", "100 %", &all, d)
}

func writeRow(w io.Writer, name, share string, b *bucket, d time.Duration) {
	hit := "—"
	if n := b.cache["hit"] + b.cache["miss"] + b.cache["stale"]; n > 0 {
		hit = fmt.Sprintf("%.1f %%", 100*float64(b.cache["hit"])/float64(n))
	}
	var other []string
	for _, c := range sortedCounts(b.codes) {
		other = append(other, fmt.Sprintf("%s ×%d", c, b.codes[c]))
	}
	if n := b.cache["stale"]; n > 0 {
		other = append(other, fmt.Sprintf("stale ×%d", n))
	}
	if b.degraded > 0 {
		other = append(other, fmt.Sprintf("200 degraded ×%d", b.degraded))
	}
	if b.classes[0] > 0 {
		other = append(other, fmt.Sprintf("no answer ×%d", b.classes[0]))
	}
	fmt.Fprintf(w, "| %s | %s | %d | %.0f | %s | %s | %d | %d | %d | %s | %s |\n",
		name, share, b.n(), float64(b.n())/d.Seconds(),
		ms(percentile(b.lat, 0.50)), ms(percentile(b.lat, 0.99)),
		b.classes[2], b.classes[4], b.classes[5], hit, strings.Join(other, ", "))
}

// ms formats a latency in milliseconds with three significant digits or so.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case d == 0:
		return "—"
	case v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case v < 100:
		return fmt.Sprintf("%.1f ms", v)
	}
	return fmt.Sprintf("%.0f ms", v)
}

// writeCPU writes the CPU split, and per request for rate requests per second.
func writeCPU(w io.Writer, s cpuSplit, what string, rate float64) {
	perReq := func(cores float64) float64 { return cores / rate * 1e6 }
	fmt.Fprintf(w, "CPU over the run, in cores of %d: server %.2f (%s; %.0f µs per request), generator %.2f (%.0f µs per request), other processes %.2f, idle %.2f.\n",
		s.cores, s.server, what, perReq(s.server), s.generator, perReq(s.generator), s.other, s.idle)
}

// writeHits writes what the simulated network served in each phase, from counter
// snapshots at the phase boundaries.
func writeHits(w io.Writer, phases []phase, snaps []snapshot) {
	fmt.Fprintln(w, "| phase | DNS queries/s | SMP requests/s (host 0) | Directory requests/s |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for i, p := range phases {
		if i+1 >= len(snaps) {
			break
		}
		a, b := snaps[i].hits, snaps[i+1].hits
		secs := (p.to - p.from).Seconds()
		smp := func(h netsim.HitCounts, host int) (all, one int64) {
			for j, s := range h.SMP {
				n := s.ServiceGroup + s.ServiceMetadata + s.Other
				all += n
				if j == host {
					one = n
				}
			}
			return all, one
		}
		aAll, aOne := smp(a, 0)
		bAll, bOne := smp(b, 0)
		fmt.Fprintf(w, "| %s | %.1f | %.1f (%.1f) | %.1f |\n", p.name,
			float64(b.DNS.Total()-a.DNS.Total())/secs,
			float64(bAll-aAll)/secs, float64(bOne-aOne)/secs,
			float64(b.Directory.Search+b.Directory.Other-a.Directory.Search-a.Directory.Other)/secs)
	}
}

// writeTimeline writes the run in slices of time: answers per second, latency and
// failures, so that stalls and the recovery after faults show.
func writeTimeline(w io.Writer, ts []timeSlice) {
	fmt.Fprintln(w, "| sent at | req/s | p50 | p99 | max | failures |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, t := range ts {
		fmt.Fprintf(w, "| %.0f–%.0f s | %.0f | %s | %s | %s | %d |\n", t.from.Seconds(), t.to.Seconds(),
			float64(t.n)/(t.to-t.from).Seconds(), ms(t.p50), ms(t.p99), ms(t.max), t.failed)
	}
}
