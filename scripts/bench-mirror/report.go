package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/phrase"
)

// side is one system's measurements; zero values are "not measured".
type side struct {
	// skipped says why the system was not measured, "" when it was.
	skipped string
	// failed is the error that ended its measurement early, if any.
	failed   error
	loadTime time.Duration
	cards    int
	size     int64
	// importRSS is the peak RSS of the import process.
	importRSS int64
	// idleRSS is the server's RSS when ready, serveHWM its peak after the queries.
	idleRSS, serveHWM int64
	// afterRSS is the server's memory after the queries: peppolgate's VmRSS, the
	// summed PSS of PostgreSQL's processes.
	afterRSS int64
	// cold is the first pass over the mix, warm the measured second pass.
	cold, warm []outcome
}

// loadRate is cards per second of the load, 0 when not measured.
func (s side) loadRate() float64 {
	if s.loadTime <= 0 {
		return 0
	}
	return float64(s.cards) / s.loadTime.Seconds()
}

// latencies are the durations of the successful outcomes, sorted.
func latencies(os []outcome) []time.Duration {
	var d []time.Duration
	for _, o := range os {
		if o.err == nil {
			d = append(d, o.took)
		}
	}
	slices.Sort(d)
	return d
}

// percentile is the nearest-rank p-th percentile of sorted d; -1 when d is empty.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return -1
	}
	k := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[max(0, min(k, len(d)-1))]
}

// mean is the mean of d; -1 when d is empty.
func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return -1
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

// recall counts the outcomes that found their card, and the errors.
func recall(os []outcome) (found, errs int) {
	for _, o := range os {
		if o.err != nil {
			errs++
		} else if o.found {
			found++
		}
	}
	return found, errs
}

// medianTotal is the median totalCount of the successful outcomes; -1 when none.
func medianTotal(os []outcome) int {
	var t []int
	for _, o := range os {
		if o.err == nil {
			t = append(t, o.total)
		}
	}
	if len(t) == 0 {
		return -1
	}
	slices.Sort(t)
	return t[(len(t)-1)/2]
}

// row is one line of the results table: values are numbers for the ratio, shown by
// format; a negative value, or zero unless zeroOK, is "not measured".
type row struct {
	metric   string
	gate, pg float64
	format   func(float64) string
	// zeroOK says that 0 is a measurement; such rows (counts, shares) get no ratio.
	zeroOK bool
}

// cell is the row's value for system s.
func (r row) cell(s side, v float64) string {
	switch {
	case s.skipped != "":
		return "skipped"
	case v < 0, v == 0 && !r.zeroOK:
		return "—"
	}
	return r.format(v)
}

// env describes the run for the environment line.
type env struct {
	cards, queries int
	cpus           int
	cpuModel       string
	goVersion      string
	pgVersion      string
	commit         string
	date           string
	exportSize     int64
	seed           uint64
	mixSeed        uint64 // the query mix's seed (-mix-seed; seed when not set)
	// loadAvg and loadAvgEnd are the 1-minute load averages when the run started and
	// before the report (a shared machine).
	loadAvg, loadAvgEnd string
}

// report writes the results in Markdown.
func report(w io.Writer, e env, qs []query, gate, pg side) {
	ms := func(v float64) string { return fmt.Sprintf("%.2f ms", v) }
	dms := func(d time.Duration) float64 {
		if d < 0 {
			return -1
		}
		return float64(d) / float64(time.Millisecond)
	}
	gw, pw := latencies(gate.warm), latencies(pg.warm)
	gc, pc := latencies(gate.cold), latencies(pg.cold)
	gf, ge := recall(gate.warm)
	pf, pe := recall(pg.warm)
	if len(gate.warm) == 0 {
		ge = -1
	}
	if len(pg.warm) == 0 {
		pe = -1
	}
	rows := []row{
		{metric: "import / load rate (target ≥ 40,000 cards/s)", gate: gate.loadRate(), pg: pg.loadRate(), format: func(v float64) string { return phrase.Grouped(int64(v+0.5), ",") + " cards/s" }},
		{metric: "import / load time", gate: gate.loadTime.Seconds(), pg: pg.loadTime.Seconds(), format: func(v float64) string { return fmt.Sprintf("%.1f s", v) }},
		{metric: "index size on disk", gate: float64(gate.size), pg: float64(pg.size), format: func(v float64) string { return human(int64(v)) }},
		{metric: "peak RSS during import", gate: float64(gate.importRSS), pg: -1, format: func(v float64) string { return human(int64(v)) }},
		{metric: "RSS serving, idle after start", gate: float64(gate.idleRSS), pg: -1, format: func(v float64) string { return human(int64(v)) }},
		{metric: "memory after the queries (mirror VmRSS, PG summed PSS)", gate: float64(gate.afterRSS), pg: float64(pg.afterRSS), format: func(v float64) string { return human(int64(v)) }},
		{metric: "peak RSS serving, VmHWM (target ≤ 1 GiB)", gate: float64(gate.serveHWM), pg: -1, format: func(v float64) string { return human(int64(v)) }},
		{metric: "search p50 (target ≤ 2 ms)", gate: dms(percentile(gw, 50)), pg: dms(percentile(pw, 50)), format: ms},
		{metric: "search p90", gate: dms(percentile(gw, 90)), pg: dms(percentile(pw, 90)), format: ms},
		{metric: "search p99 (target ≤ 20 ms)", gate: dms(percentile(gw, 99)), pg: dms(percentile(pw, 99)), format: ms},
		{metric: "search max", gate: dms(percentile(gw, 100)), pg: dms(percentile(pw, 100)), format: ms},
		{metric: "search mean", gate: dms(mean(gw)), pg: dms(mean(pw)), format: ms},
		{metric: "first pass p50", gate: dms(percentile(gc, 50)), pg: dms(percentile(pc, 50)), format: ms},
		{metric: "first pass p99", gate: dms(percentile(gc, 99)), pg: dms(percentile(pc, 99)), format: ms},
		{metric: "source card in the top 25 (recall)", gate: pct(gf, len(gate.warm)), pg: pct(pf, len(pg.warm)), format: func(v float64) string { return fmt.Sprintf("%.1f %%", v) }, zeroOK: true},
		{metric: "failed queries", gate: float64(ge), pg: float64(pe), format: func(v float64) string { return strconv.Itoa(int(v)) }, zeroOK: true},
	}
	fmt.Fprintf(w, "## Directory mirror benchmark\n\n")
	fmt.Fprintf(w, "%s cards, %s queries, %d CPUs (%s), %s, PostgreSQL %s, peppolgate %s, %s; export %s; load average %s at start, %s at the end\n\n",
		phrase.Grouped(int64(e.cards), ","), phrase.Grouped(int64(e.queries), ","), e.cpus, orDash(e.cpuModel), e.goVersion,
		orDash(e.pgVersion), orDash(e.commit), e.date, human(e.exportSize), orDash(e.loadAvg), orDash(e.loadAvgEnd))
	if busy(e.loadAvg, e.cpus) || busy(e.loadAvgEnd, e.cpus) {
		fmt.Fprintf(w, "**The machine was busy (load average above half its %d CPUs): other work competed with the benchmark; the latencies are not reliable.**\n\n", e.cpus)
	}
	fmt.Fprintln(w, "| metric | peppolgate mirror | PostgreSQL 15 pg_trgm | ratio PG / mirror |")
	fmt.Fprintln(w, "|---|---:|---:|---:|")
	for _, r := range rows {
		ratio := "—"
		if !r.zeroOK && r.gate > 0 && r.pg > 0 {
			ratio = fmt.Sprintf("%.2f×", r.pg/r.gate)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.metric, r.cell(gate, r.gate), r.cell(pg, r.pg), ratio)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Search latency is the second pass over the mix, one query at a time, after a first pass over the same mix;")
	fmt.Fprintln(w, "peppolgate as full HTTP GETs over loopback (body read), PostgreSQL as pgx queries over loopback (all rows read).")
	fmt.Fprintln(w, "PostgreSQL's load time is COPY of the generated cards plus index builds and VACUUM ANALYZE; peppolgate's is")
	fmt.Fprintln(w, "`peppolgate mirror import` of the XML v3 export file, start to exit. PostgreSQL's size is its tables and indexes.")
	fmt.Fprintln(w, "PostgreSQL answers like the mirror: totalCount and the top 25 of exact participant id or additional identifier,")
	fmt.Fprintln(w, "or every term a substring of the folded names (GIN gin_trgm_ops), optional country, by similarity() then id;")
	fmt.Fprintf(w, "it has no typo tolerance. Its settings: %s.\n", strings.Join(pgSettings, ", "))
	fmt.Fprintln(w)
	mixSeed := ""
	if e.mixSeed != 0 && e.mixSeed != e.seed {
		mixSeed = fmt.Sprintf(", the mix from seed %d", e.mixSeed)
	}
	fmt.Fprintf(w, "The mix (seed %d%s, from the generated cards; recall counts the card a query was made from in the top 25): names = one\n", e.seed, mixSeed)
	fmt.Fprintln(w, "or two whole words of a name, at least one not common and of ≥ 3 letters (a common word, e.g. a legal form, is in")
	fmt.Fprintln(w, "> 1 % of all names or > 5 % of a country's); prefix = first word and 3–5 letters of the next; typo = an uncommon word of ≥ 6 letters")
	fmt.Fprintln(w, "with one substitution, transposition or deletion after its first letter, half the time with another word of")
	fmt.Fprintln(w, "the name; id = the participant id or an additional identifier as written; +country = with the card's country.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| query kind | n | mirror p50 | mirror p99 | mirror recall | mirror median total | PG p50 | PG p99 | PG recall | PG median total |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, l := range labels(qs) {
		var g, p []outcome
		for i, q := range qs {
			if q.label() != l {
				continue
			}
			if i < len(gate.warm) {
				g = append(g, gate.warm[i])
			}
			if i < len(pg.warm) {
				p = append(p, pg.warm[i])
			}
		}
		cnt := 0
		for _, q := range qs {
			if q.label() == l {
				cnt++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", l, cnt,
			kindMS(latencies(g), 50), kindMS(latencies(g), 99), kindRecall(g), kindTotal(g),
			kindMS(latencies(p), 50), kindMS(latencies(p), 99), kindRecall(p), kindTotal(p))
	}
	fmt.Fprintln(w)
	if gate.skipped == "" && gate.failed == nil && len(gate.warm) > 0 {
		fmt.Fprintf(w, "Targets (mirror, set for 4,000,000 cards): import ≥ 40,000 cards/s %s; serving peak RSS ≤ 1 GiB %s; p50 ≤ 2 ms %s; p99 ≤ 20 ms %s.\n\n",
			met(gate.loadRate() >= 40000), met(gate.serveHWM <= 1<<30),
			met(percentile(gw, 50) <= 2*time.Millisecond), met(percentile(gw, 99) <= 20*time.Millisecond))
	}
	for _, s := range []struct {
		name string
		side
	}{{"peppolgate mirror", gate}, {"PostgreSQL", pg}} {
		if s.skipped != "" {
			fmt.Fprintf(w, "%s skipped: %s\n\n", s.name, s.skipped)
		}
		if s.failed != nil {
			fmt.Fprintf(w, "%s failed: %v\n\n", s.name, s.failed)
		}
		if err := firstErr(s.warm); err != nil {
			fmt.Fprintf(w, "%s, first failed query: %v\n\n", s.name, err)
		}
	}
}

// busy says whether the load average la is above half of cpus.
func busy(la string, cpus int) bool {
	v, err := strconv.ParseFloat(la, 64)
	return err == nil && v > float64(cpus)/2
}

// firstErr is the first outcome's error, if any.
func firstErr(os []outcome) error {
	for _, o := range os {
		if o.err != nil {
			return o.err
		}
	}
	return nil
}

func kindMS(d []time.Duration, p float64) string {
	if len(d) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f ms", float64(percentile(d, p))/float64(time.Millisecond))
}

func kindRecall(os []outcome) string {
	if len(os) == 0 {
		return "—"
	}
	f, _ := recall(os)
	return fmt.Sprintf("%.0f %%", pct(f, len(os)))
}

func kindTotal(os []outcome) string {
	t := medianTotal(os)
	if t < 0 {
		return "—"
	}
	return phrase.Grouped(int64(t), ",")
}

func met(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**missed**"
}

func pct(k, n int) float64 {
	if n == 0 {
		return -1
	}
	return 100 * float64(k) / float64(n)
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// human formats a byte count in binary units, e.g. "1.5 GiB".
func human(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
