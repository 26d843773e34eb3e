package mirror

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/netsim"
)

// writeExport writes netsim's synthetic XML v3 export of n cards (seed 1) to dir and
// returns its path; an existing file of that name is reused.
func writeExport(tb testing.TB, dir string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, "export-"+strconv.Itoa(n)+".xml")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := netsim.WriteExportXML(w, netsim.ExportConfig{Seed: 1, Cards: n}); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// importExport decodes the export file and builds the index at path.
func importExport(tb testing.TB, export_, path string) BuildStats {
	tb.Helper()
	f, err := os.Open(export_)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	dec, err := export.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		tb.Fatal(err)
	}
	st, err := Build(context.Background(), path, dec, BuildOptions{Source: export_})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// BenchmarkBuild imports a 50,000-card synthetic XML v3 export end to end (decode and
// index); cards/s is the import rate.
func BenchmarkBuild(b *testing.B) {
	const n = 50_000
	dir := b.TempDir()
	xml := writeExport(b, dir, n)
	b.ResetTimer()
	var st BuildStats
	for i := 0; b.Loop(); i++ {
		st = importExport(b, xml, filepath.Join(dir, "directory.db"))
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "cards/s")
	b.ReportMetric(float64(st.Bytes)/n, "bytes/card")
}

// benchQuery is one search of the benchmark mix.
type benchQuery struct {
	kind, text, country string
}

// queryMix derives n queries from the cards of the synthetic export of cards cards: name
// words, prefixes, typos, participant ids and VAT/registry numbers, about a fifth of the
// name queries with a country. Deterministic.
func queryMix(cards, n int) []benchQuery {
	cfg := netsim.ExportConfig{Seed: 1, Cards: cards}
	r := rand.New(rand.NewPCG(7, 7))
	var out []benchQuery
	for len(out) < n {
		id, c := netsim.ExportCard(cfg, r.IntN(cards))
		e := c.Entities[0]
		words := strings.Fields(strings.Trim(e.Names[0].Name, `"<> `))
		country := ""
		if r.IntN(5) == 0 {
			country = e.CountryCode
			if country == "UK" {
				country = "GB"
			}
		}
		switch k := r.IntN(100); {
		case k < 30: // name words
			m := min(len(words), 1+r.IntN(2))
			out = append(out, benchQuery{"name", strings.Join(words[:m], " "), country})
		case k < 50: // prefix of the last word
			w := words[0]
			if len(words) > 1 {
				w = words[0] + " " + words[1][:min(len(words[1]), 3+r.IntN(3))]
			} else {
				w = w[:min(len(w), 4)]
			}
			out = append(out, benchQuery{"prefix", w, country})
		case k < 65: // a typo in a word of 5+ letters
			var long []string
			for _, w := range words {
				if len([]rune(w)) >= 5 {
					long = append(long, w)
				}
			}
			if len(long) == 0 {
				continue
			}
			w := []rune(long[r.IntN(len(long))])
			p := 1 + r.IntN(len(w)-2)
			switch r.IntN(3) {
			case 0:
				w[p], w[p+1] = w[p+1], w[p]
			case 1:
				w = slices.Delete(w, p, p+1)
			default:
				w[p] = 'x'
			}
			out = append(out, benchQuery{"typo", string(w), country})
		case k < 80:
			out = append(out, benchQuery{"pid", id.String(), ""})
		default:
			if len(e.Identifiers) == 0 {
				continue
			}
			out = append(out, benchQuery{"number", e.Identifiers[r.IntN(len(e.Identifiers))].Value, ""})
		}
	}
	return out
}

// BenchmarkSearch runs the query mix over an index of 200,000 synthetic cards built
// once; the per-op time is one search, p50 and p99 are reported.
func BenchmarkSearch(b *testing.B) {
	const n = 200_000
	ix := benchIndex(b, n)
	qs := queryMix(n, 1000)
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		t0 := time.Now()
		if _, err := ix.Search(ctx, q.text, q.country, 25); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// TestScale measures at large scale, outside the normal suite: with
// MIRROR_SCALE_CARDS=N (and MIRROR_SCALE_DIR, default a temporary directory) it imports
// a synthetic export of N cards unless MIRROR_SCALE_SERVE_ONLY=1, then runs the query
// mix and prints the numbers. Run it with -run TestScale -v -timeout 0.
func TestScale(t *testing.T) {
	t.Parallel()
	n, _ := strconv.Atoi(os.Getenv("MIRROR_SCALE_CARDS"))
	if n <= 0 {
		t.Skip("MIRROR_SCALE_CARDS not set")
	}
	dir := os.Getenv("MIRROR_SCALE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, "directory-"+strconv.Itoa(n)+".db")
	if os.Getenv("MIRROR_SCALE_SERVE_ONLY") == "" {
		xml := writeExport(t, dir, n)
		fi, _ := os.Stat(xml)
		st := importExport(t, xml, path)
		t.Logf("import: %d cards (%d participants, %d skipped) in %v = %.0f cards/s; export %d MB, index %d MB (%.0f bytes/card); peak RSS %s",
			st.Cards, st.Participants, st.Skipped, st.Elapsed.Round(time.Millisecond), float64(st.Cards)/st.Elapsed.Seconds(),
			fi.Size()>>20, st.Bytes>>20, float64(st.Bytes)/float64(st.Cards), procStatus("VmHWM"))
		runtime.GC()
	}
	t0 := time.Now()
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	t.Logf("open: %v (term index: %d terms, %d postings); RSS %s", time.Since(t0).Round(time.Millisecond), ix.terms.terms(), len(ix.terms.post), procStatus("VmRSS"))
	qs := queryMix(n, 1000)
	ctx := context.Background()
	byKind := map[string][]time.Duration{}
	var all []time.Duration
	for round := range 2 { // the first round warms the OS page cache
		all = all[:0]
		clear(byKind)
		for _, q := range qs {
			t0 := time.Now()
			if _, err := ix.Search(ctx, q.text, q.country, 25); err != nil {
				t.Fatal(err)
			}
			d := time.Since(t0)
			all = append(all, d)
			k := q.kind
			if q.country != "" {
				k += "+cc"
			}
			byKind[k] = append(byKind[k], d)
		}
		t.Logf("round %d: %s", round, pct(all))
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		t.Logf("  %-10s %s", k, pct(byKind[k]))
	}
	idx := make([]int, len(qs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(all[b] - all[a]) })
	for _, i := range idx[:15] {
		res, _ := ix.Search(ctx, qs[i].text, qs[i].country, 25)
		t.Logf("  slow: %v %s %q %q total %d", all[i], qs[i].kind, qs[i].text, qs[i].country, res.TotalCount)
	}
	t.Logf("RSS after searches %s (peak %s)", procStatus("VmRSS"), procStatus("VmHWM"))
}

func pct(d []time.Duration) string {
	s := slices.Clone(d)
	slices.Sort(s)
	return fmt.Sprintf("n=%d p50 %v p90 %v p99 %v max %v", len(s), s[len(s)/2], s[len(s)*9/10], s[len(s)*99/100], s[len(s)-1])
}

// procStatus returns a field of /proc/self/status, e.g. "VmRSS".
func procStatus(field string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// BenchmarkCountryIndex builds the per-country card lists (setByCountry, done when an
// index is loaded) for 1,000,000 cards over 40 countries, a tenth of them with a second
// entity abroad; the per-op time is what loading an index of that size adds.
func BenchmarkCountryIndex(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(1, 1))
	x := &termIndex{n: n, csets: [][]string{nil}, cset: make([]uint32, n), rowid: make([]int64, n)}
	for i := range 40 {
		cc := string(rune('a'+i/26)) + string(rune('a'+i%26))
		x.csets = append(x.csets, []string{cc}, []string{cc, "zz"})
	}
	// Row ids ascending: rank (name length) << 32 | import sequence, sequences shuffled
	// across ranks as real names are.
	seqs := r.Perm(n)
	for c := range n {
		x.rowid[c] = int64(c*64/n)<<32 | int64(seqs[c]+1)
		x.cset[c] = uint32(1 + r.IntN(len(x.csets)-1))
	}
	slices.SortFunc(x.rowid, func(a, b int64) int { return compareInts(uint64(a), uint64(b)) })
	for b.Loop() {
		x.setByCountry()
	}
	if len(x.byCountry) != 41 {
		b.Fatalf("%d countries", len(x.byCountry))
	}
}

// BenchmarkSearchCountryAlone lists the first 25 cards of a country and counts them, on
// an index of 200,000 synthetic cards built once.
func BenchmarkSearchCountryAlone(b *testing.B) {
	const n = 200_000
	ix := benchIndex(b, n)
	countries := []string{"NO", "BE", "NL", "DE", "SE"}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := ix.Search(ctx, "", countries[i%len(countries)], 25)
		if err != nil {
			b.Fatal(err)
		}
		if res.TotalCount == 0 {
			b.Fatalf("no cards in %s", countries[i%len(countries)])
		}
	}
}

// benchIndex builds and opens an index of n synthetic cards, closed when b ends.
func benchIndex(b *testing.B, n int) *Index {
	b.Helper()
	dir := b.TempDir()
	path := filepath.Join(dir, "directory.db")
	importExport(b, writeExport(b, dir, n), path)
	ix, err := OpenIndex(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix
}
