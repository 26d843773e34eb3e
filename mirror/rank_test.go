package mirror

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/peppolgate/peppolgate/mirror/export"
)

// rankCards is the index the ranking rules are tested on: a few cards under test and
// fillers that make some words common ("AS", "Rørleggerservice", "Fjordkraft").
func rankCards() []*export.Card {
	cs := []*export.Card{
		// IDF: of two cards with the query's word, the one whose other words are common
		// (the query carries more of its name) first, though its name is longer.
		card("0192:100000001", "Hansen Vik AS", "NO"),
		card("0192:100000002", "Hansen Rørleggerservice AS", "NO"),
		// A word typed whole before a longer word it begins.
		card("0192:100000003", "Holm Fjordkraft AS", "NO"),
		card("0192:100000004", "Holm Fjord AS", "NO"),
		// Adjacent words in the query's order before reversed or scattered ones.
		card("0192:100000005", "Bygg Nordic AS", "NO"),
		card("0192:100000006", "Nordic Trade Bygg AS", "NO"),
		card("0192:100000007", "Nordic Bygg Service AS", "NO"),
		// The whole name before the same words in another order.
		card("0192:100000008", "Bygg Aker", "NO"),
		card("0192:100000009", "Aker Bygg", "NO"),
		// A transposition is a likelier typo than a substitution.
		card("0192:100000010", "Hasten Lindqvist AS", "NO"),
		card("0192:100000011", "Hansen Lindqvist AS", "NO"),
		// Identical names: import order.
		card("0192:100000012", "Tietest Holding AS", "NO"),
		card("0192:100000013", "Tietest Holding AS", "NO"),
		card("0192:100000014", "Tietest Holding AS", "NO"),
	}
	// The country filter: the card whose main (first) entity is in the country first.
	dk := card("0088:5798000000011", "Nordisk Handel A/S", "DK")
	dk.Entities = append(dk.Entities, export.Entity{Names: []export.Name{{Name: "Nordisk Handel AB"}}, CountryCode: "SE"})
	cs = append(cs, dk, card("0007:5590000001", "Nordisk Handel Aktiebolag", "SE"))
	for i := range 12 {
		cs = append(cs, card(fmt.Sprintf("0192:2000000%02d", i), fmt.Sprintf("Filler%c Rørleggerservice AS", 'a'+i), "NO"))
		cs = append(cs, card(fmt.Sprintf("0192:3000000%02d", i), fmt.Sprintf("Fillerx%c Fjordkraft AS", 'a'+i), "NO"))
	}
	return cs
}

func TestSearchRanking(t *testing.T) {
	t.Parallel()
	ix := buildIndex(t, rankCards()...)
	tests := []struct {
		name, q, country string
		want             []string // hits that must come in this order (others may be between)
		total            int
	}{
		{"the query's word weighs more in a name of common words", "hansen", "", []string{"0192:100000002", "0192:100000001"}, 3},
		{"a word typed whole before a longer one it begins", "holm fjord", "", []string{"0192:100000004", "0192:100000003"}, 2},
		{"adjacent words in order before reversed ones", "nordic bygg", "", []string{"0192:100000007", "0192:100000005"}, 3},
		{"adjacent words in order before scattered ones", "nordic bygg", "", []string{"0192:100000007", "0192:100000006"}, 3},
		{"the whole name first", "aker bygg", "", []string{"0192:100000009", "0192:100000008"}, 2},
		{"a transposition before a substitution", "hasnen lindqvist", "", []string{"0192:100000011", "0192:100000010"}, 2},
		{"ties in import order", "tietest holding", "", []string{"0192:100000012", "0192:100000013", "0192:100000014"}, 3},
		{"the country's own cards first", "nordisk handel", "SE", []string{"0007:5590000001", "0088:5798000000011"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Search(context.Background(), tt.q, tt.country, 25)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, h.ParticipantID)
			}
			var order []string
			for _, id := range got {
				if slices.Contains(tt.want, id) {
					order = append(order, id)
				}
			}
			if !slices.Equal(order, tt.want) {
				t.Errorf("Search(%q, %q) = %v, want %v in this order", tt.q, tt.country, got, tt.want)
			}
			if res.TotalCount != tt.total {
				t.Errorf("TotalCount = %d, want %d", res.TotalCount, tt.total)
			}
		})
	}
}

// TestSearchRankingPages checks that pages of a ranked search are slices of one order,
// the same on every call, with the exact total on each.
func TestSearchRankingPages(t *testing.T) {
	t.Parallel()
	ix := buildIndex(t, rankCards()...)
	ctx := context.Background()
	for _, q := range []string{"as", "rørleggerservice", "fjordkraft as", "hansen", "fille"} {
		all, err := ix.Search(ctx, q, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ix.Search(ctx, q, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(all.Results, again.Results) {
			t.Errorf("%q: two calls differ: %v, %v", q, all.Results, again.Results)
		}
		if all.TotalCount != len(all.Results) {
			t.Errorf("%q: TotalCount %d, %d results", q, all.TotalCount, len(all.Results))
		}
		for off := 0; off < len(all.Results); off += 3 {
			p, err := ix.SearchPage(ctx, q, "", off, 3)
			if err != nil {
				t.Fatal(err)
			}
			if want := all.Results[off:min(off+3, len(all.Results))]; !slices.Equal(p.Results, want) {
				t.Errorf("%q page at %d = %v, want %v", q, off, p.Results, want)
			}
			if p.TotalCount != all.TotalCount {
				t.Errorf("%q page at %d: TotalCount %d, want %d", q, off, p.TotalCount, all.TotalCount)
			}
		}
	}
}

// TestSearchAfterClose checks that the term index, whose memory Close releases, is not
// released while a search is in flight, and is released when the last one leaves; later
// searches fail with errClosed. Deterministic: the search in flight is enter/leave.
func TestSearchAfterClose(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	src := &sliceSource{hdr: export.Header{Format: export.FormatXMLv3, Created: testCreated, CodeList: "9.4"}, cards: rankCards()}
	if _, err := Build(context.Background(), path, src, BuildOptions{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.enter() {
		t.Fatal("enter before Close = false")
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if ix.enter() {
		t.Error("enter after Close = true")
	}
	// The search in flight still reads the arrays.
	sum := 0
	for _, p := range ix.terms.post {
		sum += int(p)
	}
	if ix.terms.mem == nil || sum == 0 {
		t.Errorf("term index released under a search in flight (mem %v, sum %d)", ix.terms.mem != nil, sum)
	}
	ix.leave()
	if ix.terms.mem != nil {
		t.Error("term index not released when the last search left")
	}
	if _, err := ix.Search(context.Background(), "hansen", "", 25); !errors.Is(err, errClosed) {
		t.Errorf("search after Close: %v, want errClosed", err)
	}
	if err := ix.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestIndexCloseConcurrent closes an Index from several goroutines at once, with and
// without a search in flight: the term index must be released exactly once (under
// -race, two releases are a data race on its memory; unmapping twice can crash).
func TestIndexCloseConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	src := &sliceSource{hdr: export.Header{Format: export.FormatXMLv3, Created: testCreated, CodeList: "9.4"}, cards: rankCards()}
	if _, err := Build(context.Background(), path, src, BuildOptions{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, inFlight := range []bool{false, true} {
		ix, err := OpenIndex(path)
		if err != nil {
			t.Fatal(err)
		}
		if inFlight && !ix.enter() {
			t.Fatal("enter = false")
		}
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := ix.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
		}
		if inFlight {
			wg.Add(1)
			go func() { defer wg.Done(); ix.leave() }()
		}
		wg.Wait()
		if ix.terms.mem != nil {
			t.Errorf("in flight %v: term index not released", inFlight)
		}
	}
}

// TestRankBoundPrunes checks that a search of two terms with many matches in both
// (the bitmap path) reads the terms of few cards once its heap is full: a card whose
// first query word does not begin a name, or whose query words are not next to each
// other, cannot beat a full heap of cards that have what it lacks, and the bound that
// decides it knows both from the postings (rankBound). The order itself is checked
// against a full scan by TestEvaluatePaths.
func TestRankBoundPrunes(t *testing.T) {
	t.Parallel()
	var cs []*export.Card
	add := func(name string) {
		cs = append(cs, card(fmt.Sprintf("0192:%09d", 100000000+len(cs)), name, "NO"))
	}
	for i := range 2500 {
		add(fmt.Sprintf("Mid%02d Alfa Beta", i%20)) // fill the heap: in order, not at the start
		add(fmt.Sprintf("Rare%04d Alfa Beta", i))   // in order, not at the start, a rarer other word
		add(fmt.Sprintf("Alfa Rarer%04d Beta", i))  // at the start, not next to each other
	}
	for i := range 10000 {
		add(fmt.Sprintf("Filler%05d Other", i))
	}
	// A rare word the prefix "be" also begins: it must not lift every card's bound.
	add("Alfa Bezzzzz")
	ix := buildIndex(t, cs...)
	for _, text := range []string{"alfa beta", "alfa be"} {
		q := ix.compile(terms(text), nil)
		best, total := ix.evaluate(q, 25, nil)
		if want := 7500 + strings.Count(text, "be") - strings.Count(text, "beta"); total != want || len(best) != 25 {
			t.Fatalf("%s: %d matches, %d best; want %d, 25", text, total, len(best), want)
		}
		for i, c := range best {
			// Alfa Bezzzzz (two terms) is rightly first for "alfa be".
			if x := ix.terms; x.fwdOff[c+1]-x.fwdOff[c] > 2 && !strings.HasPrefix(x.term(x.fwd[x.fwdOff[c]+2]), "mid") {
				t.Errorf("%s: best %d is card %d, not a Mid card", text, i, c)
				break
			}
		}
		if q.ranked > 200 {
			t.Errorf("%s: the terms of %d cards read to rank them, want at most 200 (a bound prunes the rest)", text, q.ranked)
		}
	}
}

// TestScratchSurvivesGC checks that the bitmaps and per-card arrays a search works in
// are kept for the next search across garbage collections: at 4M cards they are
// 14 MB, and a server collects often, so making them again would cost every few
// hundred requests a few milliseconds and heap growth. It follows one set by its
// pointer (not by the process's allocation counts, which other tests' goroutines
// move): a search before and one after two collections (a sync.Pool empties in two)
// must both use it and give it back.
func TestScratchSurvivesGC(t *testing.T) {
	const n = 30000
	var cs []*export.Card
	for i := range n {
		cs = append(cs, card(fmt.Sprintf("0192:%09d", 100000000+i), fmt.Sprintf("Word%05d Alfa Beta", i%3000), "NO"))
	}
	ix := buildIndex(t, cs...)
	ctx := context.Background()
	kept := ix.bitmaps.get()
	ix.bitmaps.put(kept)
	if _, err := ix.Search(ctx, "alfa beta", "", 25); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	if _, err := ix.Search(ctx, "alfa beta", "", 25); err != nil {
		t.Fatal(err)
	}
	got := ix.bitmaps.get()
	defer ix.bitmaps.put(got)
	if got != kept {
		t.Fatalf("the scratch after two collections is %p, want the set kept before them, %p (made again after a collection)", got, kept)
	}
	// The two-term searches made its per-card arrays, and they are kept with it.
	if got.pos == nil || len(got.pos) != n || len(got.exact) != (n+63)/64 {
		t.Errorf("the kept scratch has %d position bytes and %d bitmap words, want %d and %d", len(got.pos), len(got.exact), n, (n+63)/64)
	}
}

// TestScratchKeptPerP checks that an index keeps at most one scratch set per P
// (GOMAXPROCS when it was opened), and that many.
func TestScratchKeptPerP(t *testing.T) {
	ix := buildIndex(t, card("0192:100000000", "Alfa Beta", "NO"))
	p := runtime.GOMAXPROCS(0)
	var sets []*bitmaps
	for range p + 2 {
		sets = append(sets, ix.bitmaps.get())
	}
	for _, b := range sets {
		ix.bitmaps.put(b)
	}
	if got := len(ix.bitmaps.free); got != p {
		t.Errorf("after %d sets given back the index keeps %d, want GOMAXPROCS = %d", p+2, got, p)
	}
}
