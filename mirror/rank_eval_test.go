package mirror

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// TestRankEval is a development aid, skipped unless MIRROR_EVAL_DB names an index built
// by `make bench-mirror` and MIRROR_EVAL_QUERIES its queries.tsv: it runs the mix in
// process and prints recall (the source card in the top 25) and latency per query kind,
// so that ranking changes can be tried without the HTTP benchmark. The benchmark itself
// (scripts/bench-mirror) is what BENCHMARKS.md records.
func TestRankEval(t *testing.T) {
	db, qf := os.Getenv("MIRROR_EVAL_DB"), os.Getenv("MIRROR_EVAL_QUERIES")
	if db == "" || qf == "" {
		t.Skip("MIRROR_EVAL_DB and MIRROR_EVAL_QUERIES not set")
	}
	ix, err := OpenIndex(db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	f, err := os.Open(qf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type agg struct {
		n, found int
		lat      []time.Duration
		tieMiss  int     // misses where the source card ties with the 25th
		tieShare float64 // Σ over them of 25/(cards with the source's key, from the 25th's rank on) (expected finds)
		why      map[string]int
		ceiling  float64 // Σ of the chance an ideal ranking has to find the source (see evalWhy)
	}
	by := map[string]*agg{}
	var all []time.Duration
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	var searchWall time.Duration
	miss := os.Getenv("MIRROR_EVAL_MISSES")
	repeat, _ := strconv.Atoi(os.Getenv("MIRROR_EVAL_REPEAT"))
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		kind, q, cc, pid := p[0], p[1], p[2], p[4]
		if cc != "" {
			kind += "+country"
		}
		// With MIRROR_EVAL_REPEAT=n each query's time is the least of n runs: on a
		// shared machine that is the search's own cost more than the others' load.
		var res *registry.SearchResult
		d := time.Duration(1<<63 - 1)
		for range max(1, repeat) {
			t0 := time.Now()
			res, err = ix.Search(context.Background(), q, cc, 25)
			d = min(d, time.Since(t0))
		}
		searchWall += d
		if err != nil {
			t.Fatal(err)
		}
		a := by[kind]
		if a == nil {
			a = &agg{why: map[string]int{}}
			by[kind] = a
		}
		a.n++
		a.lat = append(a.lat, d)
		all = append(all, d)
		found := false
		for _, h := range res.Results {
			hp := strings.ToLower(h.ParticipantID)
			if i := strings.Index(hp, "::"); i >= 0 {
				hp = hp[i+2:]
			}
			found = found || hp == pid
		}
		if os.Getenv("MIRROR_EVAL_ANALYSE") != "" && !strings.HasPrefix(kind, "id") {
			why, ceil := evalWhy(ix, q, cc, pid)
			a.ceiling += ceil
			if !found {
				a.why[why]++
			}
		}
		if !found && len(res.Results) == 25 && os.Getenv("MIRROR_EVAL_TIES") != "" {
			if ties, ok := evalTie(ix, q, cc, pid); ok {
				a.tieMiss++
				a.tieShare += ties
			}
		}
		if os.Getenv("MIRROR_EVAL_SLOW") != "" && d > 5*time.Millisecond {
			t.Logf("slow %v %s %q total %d", d, kind, q, res.TotalCount)
		}
		if !found && len(res.Results) < 25 {
			t.Logf("unmatched %s %q total %d", kind, q, res.TotalCount)
		}
		if found {
			a.found++
		} else if miss != "" && strings.HasPrefix(kind, miss) {
			var names []string
			for _, h := range res.Results[:min(5, len(res.Results))] {
				names = append(names, h.Name)
			}
			t.Logf("miss %s %q total %d top %q", kind, q, res.TotalCount, names)
		}
	}
	pct := func(l []time.Duration, p float64) time.Duration {
		s := slices.Clone(l)
		slices.Sort(s)
		return s[min(len(s)-1, int(float64(len(s))*p))]
	}
	mean := func(l []time.Duration) time.Duration {
		var s time.Duration
		for _, d := range l {
			s += d
		}
		return s / time.Duration(len(l))
	}
	for _, k := range []string{"names", "prefix", "typo", "id", "names+country", "prefix+country", "typo+country", "id+country"} {
		if a := by[k]; a != nil {
			t.Logf("%-15s n=%4d recall %5.1f %%  p50 %v p99 %v mean %v; misses tied with the 25th %d", k, a.n, 100*float64(a.found)/float64(a.n), pct(a.lat, .5), pct(a.lat, .99), mean(a.lat), a.tieMiss)
			if len(a.why) > 0 {
				ws := slices.Sorted(maps.Keys(a.why))
				var b strings.Builder
				for _, w := range ws {
					fmt.Fprintf(&b, " %s %d;", w, a.why[w])
				}
				t.Logf("%-15s misses:%s ceiling %.1f %%", k, b.String(), 100*a.ceiling/float64(a.n))
			}
		}
	}
	t.Logf("all p50 %v p99 %v mean %v", pct(all, .5), pct(all, .99), mean(all))
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	t.Logf("process CPU time over the mix %v (%v a search; the searches' wall time %v)", cpu, cpu/time.Duration(len(all)*max(1, repeat)), searchWall)
}

// evalTie reports, for a query whose source card (participant id pid) is not in the
// top 25, whether it has the same ranking key as the 25th card, and how many cards
// share that key.
func evalTie(ix *Index, text, country, pid string) (float64, bool) {
	x := ix.terms
	var rowid int64
	if err := ix.pidLookup.QueryRow(pid).Scan(&rowid); err != nil {
		// try with the scheme as stored
		if err := ix.pidLookup.QueryRow(normalisePID("iso6523-actorid-upis::" + pid)).Scan(&rowid); err != nil {
			return 0, false
		}
	}
	src, ok := slices.BinarySearch(x.rowid, rowid)
	if !ok {
		return 0, false
	}
	var ccOK []bool
	cc := compactKey(country)
	if cc != "" {
		ccOK = x.countryOK(cc)
	}
	q := ix.compile(terms(text), ccOK)
	if cc != "" {
		q.ccMain = x.countryMain(cc)
	}
	key := func(c uint32) (uint64, bool) {
		fw := x.fwd[x.fwdOff[c]:x.fwdOff[c+1]]
		at := make([]int, len(q.terms))
		ws := make([]uint8, len(q.terms))
		fuzzy := false
		for i := range q.terms {
			how, j, w := q.terms[i].match(fw)
			if how == 0 {
				return 0, false
			}
			fuzzy = fuzzy || how == 2
			at[i], ws[i] = j, w
		}
		return ix.rankKey(q, c, fw, at, ws, fuzzy), true
	}
	best, _ := ix.evaluate(q, 1<<30, nil)
	if len(best) < 25 {
		return 0, false
	}
	k25, _ := key(best[24])
	ks, ok := key(uint32(src))
	if os.Getenv("MIRROR_EVAL_WHY") != "" {
		rank := slices.Index(best, uint32(src))
		var name, n25 string
		ix.db.QueryRow("SELECT name FROM card WHERE id = ?", rowid).Scan(&name)
		ix.db.QueryRow("SELECT name FROM card WHERE id = ?", x.rowid[best[24]]).Scan(&n25)
		fmt.Printf("WHY %q src %q rank %d of %d key %x vs 25th %q %x\n", text, name, rank, len(best), ks, n25, k25)
	}
	if !ok || ks != k25 {
		return 0, false
	}
	first, same := -1, 0
	for i, c := range best {
		if k, _ := key(c); k == k25 {
			if first < 0 {
				first = i
			}
			same++
		}
	}
	return float64(25-first) / float64(same), true
}

// evalWhy classifies the source card (participant id pid) of a query for
// MIRROR_EVAL_ANALYSE: "unmatched" (not among the matches: candidate generation), or, by
// how likely the query is from a card (see extra below), "outranked by >=25 likelier
// cards", "tied among >25 as likely (or covered) cards", else "found" or "rankable" with
// its rank. ceil is the chance that a ranking by that likelihood, ties broken at random,
// puts the source in the top 25. With MIRROR_EVAL_WHY it prints the source's name, its
// rank and the counts.
func evalWhy(ix *Index, text, country, pid string) (why string, ceil float64) {
	x := ix.terms
	var rowid int64
	if err := ix.pidLookup.QueryRow(pid).Scan(&rowid); err != nil {
		if err := ix.pidLookup.QueryRow(normalisePID("iso6523-actorid-upis::" + pid)).Scan(&rowid); err != nil {
			return "no card", 0
		}
	}
	src, ok := slices.BinarySearch(x.rowid, rowid)
	if !ok {
		return "no card", 0
	}
	var ccOK []bool
	cc := compactKey(country)
	if cc != "" {
		ccOK = x.countryOK(cc)
	}
	ts := terms(text)
	if len(ts) > maxTerms {
		ts = ts[:maxTerms]
	}
	q := ix.compile(ts, ccOK)
	if cc != "" {
		q.ccMain = x.countryMain(cc)
	}
	best, total := ix.evaluate(q, 1<<30, nil)
	rank := slices.Index(best, uint32(src))
	var name string
	ix.db.QueryRow("SELECT name FROM card WHERE id = ?", rowid).Scan(&name)
	if os.Getenv("MIRROR_EVAL_WHY") != "" {
		fmt.Printf("WHY %q cc %q src %q rank %d of %d\n", text, country, name, rank, total)
	}
	if rank < 0 {
		return "unmatched", 0
	}
	// extra is the number of a card's uncommon words (in at most 1 % of the cards, as
	// the mix's generator counts common words) that the query does not carry, exactly
	// or through a typo or prefix match: the fewer, the likelier the query is from the
	// card (with none it is "covered"). So no ranking by how likely the query is from a
	// card can put the source before the cards with fewer extra words, and it ties with
	// those with as many.
	extra := func(c uint32) int {
		fw := x.fwd[x.fwdOff[c]:x.fwdOff[c+1]]
		used := make([]bool, len(fw))
		for i := range q.terms {
			if how, j, _ := q.terms[i].match(fw); how != 0 {
				used[j] = true
			}
		}
		k := 0
		for j, t := range fw {
			if !used[j] && x.docs(t)*100 <= x.n {
				k++
			}
		}
		return k
	}
	ks := extra(uint32(src))
	fewer, same := 0, 0
	for _, c := range best {
		switch k := extra(c); {
		case k < ks:
			fewer++
		case k == ks:
			same++
		}
	}
	if os.Getenv("MIRROR_EVAL_WHY") != "" {
		fmt.Printf("WHYCOV %q source's extra words %d; cards with fewer %d, as many %d\n", text, ks, fewer, same)
	}
	ceil = min(1, max(0, float64(25-fewer)/float64(same)))
	switch {
	case fewer >= 25 && ks == 0:
		why = "impossible"
	case fewer >= 25:
		why = "outranked by >=25 likelier cards"
	case fewer+same > 25 && ks == 0:
		why = "tied among >25 covered cards"
	case fewer+same > 25:
		why = "tied among >25 as likely cards"
	case rank < 25:
		why = "found"
	case rank < 100:
		why = "rankable, rank 26-100"
	case rank < 1000:
		why = "rankable, rank 101-1000"
	default:
		why = "rankable, rank >1000"
	}
	return why, ceil
}
