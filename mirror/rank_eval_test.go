package mirror

import (
	"bufio"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
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
	}
	by := map[string]*agg{}
	var all []time.Duration
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	miss := os.Getenv("MIRROR_EVAL_MISSES")
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		kind, q, cc, pid := p[0], p[1], p[2], p[4]
		if cc != "" {
			kind += "+country"
		}
		t0 := time.Now()
		res, err := ix.Search(context.Background(), q, cc, 25)
		d := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		a := by[kind]
		if a == nil {
			a = &agg{}
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
			t.Logf("%-15s n=%4d recall %5.1f %%  p50 %v p99 %v mean %v", k, a.n, 100*float64(a.found)/float64(a.n), pct(a.lat, .5), pct(a.lat, .99), mean(a.lat))
		}
	}
	t.Logf("all p50 %v p99 %v mean %v", pct(all, .5), pct(all, .99), mean(all))
}
