// Command bench-mirror is the benchmark of `make bench-mirror` (issue 8): the
// Directory mirror at a given number of generated business cards, next to PostgreSQL 15
// with pg_trgm loaded with the same cards.
//
// It generates the XML v3 export with netsim (kept in -dir and reused by later runs of
// the same size), builds cmd/peppolgate, times `peppolgate mirror import` (its peak RSS
// from rusage), starts `peppolgate serve -mirror` and runs a fixed, seeded mix of
// queries made from the generated cards (whole name words, prefixes, typos, ids, some
// with a country filter) over HTTP one at a time, twice (the first pass warms); then it
// starts a PostgreSQL 15 of its own on loopback in -dir/pg, loads the same cards with
// COPY, indexes them (GIN trigram on the folded names, btree on ids) and runs the same
// mix through pgx. It prints a Markdown table on stdout, writes it to
// -dir/results.md, and keeps the children's logs in -dir.
//
// Usage:
//
//	bench-mirror [-cards 4000000] [-queries 1000] [-dir .bench/mirror] [-pg=true] [-gate=true] …
//
// Every child process is stopped on exit, on SIGINT and on SIGTERM. Exit status 0 when
// everything ran (a peppolgate without the `mirror` command is skipped with a
// message), 1 when a part failed, 2 for bad flags.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
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

// options are the command's flags.
type options struct {
	cards, queries int
	seed, mixSeed  uint64
	dir, repo, bin string
	pg, gate       bool
	gzip           bool
	importTimeout  time.Duration
	readyTimeout   time.Duration
	queryTimeout   time.Duration
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench-mirror", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.cards, "cards", 4_000_000, "generated business cards")
	fs.IntVar(&o.queries, "queries", 1000, "queries in the mix")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the cards and of the query mix")
	fs.Uint64Var(&o.mixSeed, "mix-seed", 0, "seed of the query mix alone, when not 0 (another mix over the same cards)")
	fs.StringVar(&o.dir, "dir", ".bench/mirror", "directory for the export, the indexes, PostgreSQL, the logs and results.md")
	fs.StringVar(&o.repo, "repo", ".", "the peppolgate repository to build cmd/peppolgate from")
	fs.StringVar(&o.bin, "bin", "", "a peppolgate binary to use instead of building one into -dir")
	fs.BoolVar(&o.pg, "pg", true, "measure PostgreSQL 15 with pg_trgm")
	fs.BoolVar(&o.gate, "gate", true, "measure the peppolgate mirror")
	fs.BoolVar(&o.gzip, "gzip", false, "import a gzip-compressed export")
	fs.DurationVar(&o.importTimeout, "import-timeout", 3*time.Hour, "longest the mirror import may take")
	fs.DurationVar(&o.queryTimeout, "query-timeout", time.Minute, "longest one query may take (it then counts as failed)")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 10*time.Minute, "longest `peppolgate serve -mirror` may take to be ready")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.cards < 1 || o.queries < 1 {
		return o, errors.New("-cards and -queries must be positive")
	}
	if o.mixSeed == 0 {
		o.mixSeed = o.seed
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 2
	}
	var cs children
	defer cs.stopAll()
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 1
	}
	if o.dir, err = filepath.Abs(o.dir); err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 1
	}

	src := newSource(o.seed, o.cards)
	start := time.Now()
	qs, err := buildMix(src.at, src.cards, o.queries, o.mixSeed)
	if err != nil {
		fmt.Fprintln(stderr, "bench-mirror: building the query mix:", err)
		return 1
	}
	var comp []string
	for _, c := range composition(qs) {
		comp = append(comp, c[0]+" "+c[1])
	}
	fmt.Fprintf(stderr, "bench-mirror: %d queries (%s) from %d cards in %v\n", len(qs), strings.Join(comp, ", "), src.cards, time.Since(start).Round(time.Millisecond))
	if err := writeMix(filepath.Join(o.dir, "queries.tsv"), qs); err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 1
	}

	e := env{cards: src.cards, queries: len(qs), cpus: runtime.NumCPU(), cpuModel: benchenv.CPUModel(),
		goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		commit:    benchenv.GitCommit(ctx, o.repo), date: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		seed: o.seed, mixSeed: o.mixSeed, loadAvg: benchenv.LoadAvg()}
	gate, pg := side{skipped: "-gate=false"}, side{skipped: "-pg=false (BENCH_PG=0)"}
	if o.gate {
		gate = benchGate(ctx, &cs, o, src, qs, &e, stderr)
	}
	if ctx.Err() == nil && o.pg {
		pg = benchPG(ctx, &cs, o, src, qs, &e, stderr)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "bench-mirror: interrupted")
		return 1
	}
	e.loadAvgEnd = benchenv.LoadAvg()
	var buf bytes.Buffer
	report(&buf, e, qs, gate, pg)
	stdout.Write(buf.Bytes())
	out := filepath.Join(o.dir, "results.md")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 1
	}
	if err := writeSlowest(filepath.Join(o.dir, "slowest.tsv"), qs, 20, map[string]side{"mirror": gate, "pg": pg}); err != nil {
		fmt.Fprintln(stderr, "bench-mirror:", err)
		return 1
	}
	fmt.Fprintln(stderr, "bench-mirror: results in", out, "(the 20 slowest queries of each in slowest.tsv, the mix in queries.tsv)")
	if gate.failed != nil || pg.failed != nil || firstErr(gate.warm) != nil || firstErr(pg.warm) != nil {
		return 1
	}
	return 0
}

// benchGate measures the peppolgate mirror.
func benchGate(ctx context.Context, cs *children, o options, src *source, qs []query, e *env, logw io.Writer) side {
	s := side{cards: src.cards}
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(o.dir, "peppolgate")
		fmt.Fprintln(logw, "bench-mirror: building", bin)
		if err := buildGate(ctx, o.repo, bin, logw); err != nil {
			s.failed = err
			return s
		}
	}
	if err := checkMirrorCommand(ctx, bin); err != nil {
		if errors.Is(err, errNoMirror) {
			fmt.Fprintln(logw, "bench-mirror: skipping the peppolgate half:", err)
			s.skipped = "this peppolgate has no `mirror import` command yet"
		} else {
			s.failed = err
		}
		return s
	}
	export := filepath.Join(o.dir, fmt.Sprintf("export-v3-%d-seed%d.xml", src.cards, src.seed))
	if o.gzip {
		export += ".gz"
	}
	if took, err := ensureExport(export, src, o.gzip, logw); err != nil {
		s.failed = err
		return s
	} else if took > 0 {
		fmt.Fprintf(logw, "bench-mirror: wrote the export in %v\n", took.Round(time.Millisecond))
	}
	if fi, err := os.Stat(export); err == nil {
		e.exportSize = fi.Size()
	}
	db := filepath.Join(o.dir, "mirror.db")
	fmt.Fprintf(logw, "bench-mirror: peppolgate mirror import -mirror %s %s\n", db, export)
	imp, err := importMirror(ctx, cs, bin, db, export, filepath.Join(o.dir, "import.log"), logw, o.importTimeout)
	if err != nil {
		s.failed = err
		return s
	}
	s.loadTime, s.importRSS, s.size = imp.took, imp.maxRSS, imp.bytes
	fmt.Fprintf(logw, "bench-mirror: imported in %v (%.0f cards/s), peak RSS %s, index %s; its last line: %s\n",
		imp.took.Round(time.Millisecond), s.loadRate(), human(imp.maxRSS), human(imp.bytes), imp.lastLine)

	srv, err := serveMirror(ctx, cs, bin, db, src.config().CreatedAt(), filepath.Join(o.dir, "serve.log"), o.readyTimeout)
	if err != nil {
		s.failed = err
		return s
	}
	defer srv.proc.stop(srv.proc.signal(), 15*time.Second)
	if s.idleRSS, _, err = procStatus(srv.proc.cmd.Process.Pid); err != nil {
		s.failed = err
		return s
	}
	hs := httpSearcher{client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}, base: srv.base, timeout: o.queryTimeout}
	// A server that does not answer from the mirror would send the mix to the live
	// Directory.
	if first, ans := hs.get(ctx, qs[0]); first.err != nil {
		s.failed = fmt.Errorf("the first search: %w", first.err)
		return s
	} else if ans.Source != "mirror" || ans.DataAsOf == nil {
		s.failed = fmt.Errorf("the search answer says source %q, dataAsOf %v: not from the mirror; see %s", ans.Source, ans.DataAsOf, filepath.Join(o.dir, "serve.log"))
		return s
	}
	fmt.Fprintln(logw, "bench-mirror: peppolgate: first pass over the mix")
	if s.cold, err = runMix(ctx, hs, qs); err != nil {
		s.failed = err
		return s
	}
	fmt.Fprintln(logw, "bench-mirror: peppolgate: measured pass over the mix")
	if s.warm, err = runMix(ctx, hs, qs); err != nil {
		s.failed = err
		return s
	}
	if s.afterRSS, s.serveHWM, err = procStatus(srv.proc.cmd.Process.Pid); err != nil {
		s.failed = err
	}
	return s
}

// benchPG measures PostgreSQL 15 with pg_trgm.
func benchPG(ctx context.Context, cs *children, o options, src *source, qs []query, e *env, logw io.Writer) side {
	s := side{cards: src.cards}
	fmt.Fprintln(logw, "bench-mirror: starting PostgreSQL 15 in", filepath.Join(o.dir, "pg"))
	pg, err := startPG(ctx, cs, filepath.Join(o.dir, "pg"), logw)
	if err != nil {
		s.failed = err
		return s
	}
	defer pg.proc.stop(pg.proc.signal(), 60*time.Second)
	e.pgVersion = pg.version
	fmt.Fprintf(logw, "bench-mirror: PostgreSQL %s on 127.0.0.1:%d; loading %d cards\n", pg.version, pg.port, src.cards)
	ld, err := pg.load(ctx, src, logw)
	if err != nil {
		s.failed = fmt.Errorf("loading PostgreSQL: %w", err)
		return s
	}
	s.loadTime, s.size = ld.total, ld.bytes
	fmt.Fprintf(logw, "bench-mirror: PostgreSQL loaded in %v (COPY %v, indexes and analyse %v), %s\n",
		ld.total.Round(time.Millisecond), ld.copyTime.Round(time.Millisecond), ld.indexTime.Round(time.Millisecond), human(ld.bytes))
	conn, err := pg.connect(ctx)
	if err != nil {
		s.failed = err
		return s
	}
	ps := &pgSearcher{conn: conn, reconnect: pg.connect, timeout: o.queryTimeout}
	defer func() { ps.conn.Close(context.WithoutCancel(ctx)) }()
	fmt.Fprintln(logw, "bench-mirror: PostgreSQL: first pass over the mix")
	if s.cold, err = runMix(ctx, ps, qs); err != nil {
		s.failed = err
		return s
	}
	fmt.Fprintln(logw, "bench-mirror: PostgreSQL: measured pass over the mix")
	if s.warm, err = runMix(ctx, ps, qs); err != nil {
		s.failed = err
		return s
	}
	if s.afterRSS, err = treePSS(pg.proc.cmd.Process.Pid); err != nil {
		fmt.Fprintln(logw, "bench-mirror: PostgreSQL's memory:", err)
	}
	return s
}

// writeMix writes the queries as tab-separated lines for reference.
func writeMix(path string, qs []query) error {
	var b strings.Builder
	b.WriteString("kind\tq\tcountry\tcard\tpid\n")
	for _, q := range qs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%s\n", q.kind, q.text, q.country, q.card, q.pid)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeSlowest writes the n slowest queries of each system's measured pass.
func writeSlowest(path string, qs []query, n int, sides map[string]side) error {
	var b strings.Builder
	b.WriteString("system\tms\ttotal\tfound\tkind\tq\tcountry\n")
	for _, name := range []string{"mirror", "pg"} {
		s := sides[name]
		idx := make([]int, len(s.warm))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(s.warm[b].took, s.warm[a].took) })
		for _, i := range idx[:min(n, len(idx))] {
			o, q := s.warm[i], qs[i]
			fmt.Fprintf(&b, "%s\t%.2f\t%d\t%v\t%s\t%s\t%s\n", name, float64(o.took)/1e6, o.total, o.found, q.kind, q.text, q.country)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
