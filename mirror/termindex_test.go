package mirror

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/mirror/export"
)

// TestEvaluatePaths checks the evaluation of name queries (a driving term's cards
// enumerated from one posting list, by sorting, or through bitmaps) against a scan of
// every card with the same matchers.
func TestEvaluatePaths(t *testing.T) {
	t.Parallel()
	words := []string{"holding", "holdings", "hold", "holm", "holmen", "berg", "bergen", "berger",
		"consult", "consulting", "consultancy", "bygg", "byggservice", "nord", "nordisk", "norden"}
	countries := []string{"NO", "SE", "DK", "BE"}
	r := rand.New(rand.NewPCG(1, 2))
	var cards []*export.Card
	for i := range 6000 {
		n := 1 + r.IntN(3)
		var name []string
		for range n {
			name = append(name, words[r.IntN(len(words))])
		}
		if r.IntN(3) == 0 {
			name = append(name, "x"+strconv.Itoa(i%50))
		}
		if r.IntN(5) < 4 {
			name = append(name, "common")
		}
		if r.IntN(2) == 0 {
			name = append([]string{"often"}, name...)
		}
		cards = append(cards, card("0192:"+strconv.Itoa(100000+i), strings.Join(name, " "), countries[r.IntN(len(countries))]))
	}
	// Exact names, so that a full heap of them bounds the rest (rankBound).
	for i := range 60 {
		cards = append(cards, card("0192:"+strconv.Itoa(200000+i), "Often Common", countries[r.IntN(len(countries))]))
	}
	// Near them, a third word rare or common, short or long: which of these enter a
	// heap of 70 depends on their coverage (rankBound's name weight bound).
	for i := range 40 {
		third := words[r.IntN(len(words))]
		if i%2 == 0 {
			third = "rarer" + strconv.Itoa(i)
		}
		cards = append(cards, card("0192:"+strconv.Itoa(300000+i), "Often Common "+third, countries[r.IntN(len(countries))]))
	}
	ix := buildIndex(t, cards...)
	x := ix.terms
	queries := []struct{ q, cc string }{
		{"holding", ""}, {"ho", ""}, {"hol", "NO"}, {"holdinf", ""}, {"holdingz berg", ""},
		{"berg", ""}, {"berg consultin", ""}, {"consulting berger", "SE"}, {"nordisk bygg", ""},
		{"x1", ""}, {"x1 holding", ""}, {"b", ""}, {"holding holding", ""}, {"bergen nordisk", "DK"},
		{"consultancy", ""}, {"consultansy", "BE"}, {"nordisk norden", ""}, {"zzz", ""},
		// Both terms with more postings than sortLimit: the other one as a filter bitmap.
		{"common ho", ""}, {"common ho", "SE"}, {"commom ho", ""}, {"ho common", ""},
		// Two terms, both as bitmaps; exact names fill the heap first.
		{"often common", ""}, {"often commo", ""}, {"often common", "NO"}, {"often commom", ""}, {"ofter common", "SE"}, {"common often", ""},
		// Two terms, the bound's positions and numerators from either side: a typo in the
		// first, prefix completions a card has several of, the first term the filter.
		{"holdin common", ""}, {"common hol", ""}, {"often berge", ""}, {"common berg", "NO"}, {"ho often", ""},
		// One exact term: positions from the postings.
		{"common", ""}, {"consultancy", "NO"}, {"bygg", ""},
	}
	for _, tt := range queries {
		var ccOK []bool
		if tt.cc != "" {
			ccOK = x.countryOK(compactKey(tt.cc))
		}
		q := ix.compile(terms(tt.q), ccOK)
		for _, limit := range []int{0, 7, 70, 10000} {
			got, gotTotal := ix.evaluate(q, limit, nil)
			// The reference: every card scanned, ranked by its key, the best limit.
			var all []ranked
			for c := range uint32(x.n) {
				if q.matches(x, c) == 0 {
					continue
				}
				fw := x.fwd[x.fwdOff[c]:x.fwdOff[c+1]]
				at := make([]int, len(q.terms))
				ws := make([]uint8, len(q.terms))
				fuzzy := false
				for i := range q.terms {
					how, j, w := q.terms[i].match(fw)
					fuzzy = fuzzy || how == 2
					at[i], ws[i] = j, w
				}
				all = append(all, ranked{ix.rankKey(q, c, fw, at, ws, fuzzy), c})
			}
			slices.SortFunc(all, func(a, b ranked) int {
				if a.better(b) {
					return -1
				}
				return 1
			})
			var want []uint32
			for _, r := range all[:min(limit, len(all))] {
				want = append(want, r.card)
			}
			if gotTotal != len(all) {
				t.Errorf("%q %q limit %d: total %d, want %d", tt.q, tt.cc, limit, gotTotal, len(all))
			}
			if len(got) != len(want) || (len(want) > 0 && !slices.Equal(got, want)) {
				t.Errorf("%q %q limit %d: %v, want %v", tt.q, tt.cc, limit, got, want)
			}
		}
	}
	// The queries cover every path.
	res, err := ix.Search(context.Background(), "ho", "", 25)
	if err != nil || res.TotalCount <= sortLimit {
		t.Errorf("ho: %d matches, want more than %d (bitmap path); %v", res.TotalCount, sortLimit, err)
	}
	q := ix.compile(terms("common ho"), nil)
	d := 0
	if q.terms[1].docs < q.terms[0].docs {
		d = 1
	}
	if q.terms[d].docs <= sortLimit || filterTerm(q, d) != 1-d {
		t.Errorf("common ho: postings %d and %d, want both over %d and the other term as the filter", q.terms[0].docs, q.terms[1].docs, sortLimit)
	}
}

func TestTermIndexDictionary(t *testing.T) {
	t.Parallel()
	ix := buildIndex(t, card("0192:1", "Berg Bergen Berger", "NO"), card("0192:2", "Ab Abc Abd Bb", "SE"))
	x := ix.terms
	var all []string
	for id := range x.terms() {
		all = append(all, x.term(uint32(id)))
	}
	if want := []string{"ab", "abc", "abd", "bb", "berg", "bergen", "berger"}; !slices.Equal(all, want) {
		t.Fatalf("dictionary = %q, want %q", all, want)
	}
	for _, tt := range []struct {
		p      string
		lo, hi uint32
	}{{"ab", 0, 3}, {"abc", 1, 2}, {"b", 3, 7}, {"berg", 4, 7}, {"c", 7, 7}, {"", 0, 7}, {"aa", 0, 0}} {
		if lo, hi := x.prefixRange(tt.p); lo != tt.lo || hi != tt.hi {
			t.Errorf("prefixRange(%q) = %d, %d; want %d, %d", tt.p, lo, hi, tt.lo, tt.hi)
		}
	}
	if lo, hi := x.lookup("abe"); lo != hi {
		t.Errorf("lookup(abe) = %d, %d", lo, hi)
	}
	var rev []string
	for _, id := range x.rev {
		rev = append(rev, x.term(id))
	}
	if want := []string{"berg", "bergen", "berger"}; !slices.Equal(rev, want) {
		t.Errorf("rev = %q, want %q (typo-eligible terms by reversed bytes)", rev, want)
	}
	if lo, hi := x.suffixRange("en"); hi-lo != 1 || x.term(x.rev[lo]) != "bergen" {
		t.Errorf("suffixRange(en) = %d, %d", lo, hi)
	}
	if got := x.docs(x.lowerBound("berg")); got != 1 {
		t.Errorf("docs(berg) = %d", got)
	}
}

func TestTermIndexCorrupt(t *testing.T) {
	t.Parallel()
	ix := buildIndex(t, card("0192:1", "Berg Bergen", "NO"), card("0192:2", "Ab", "SE"))
	for name, spoil := range map[string]func(x *termIndex){
		"posting beyond the cards":   func(x *termIndex) { x.post[0] = 99 },
		"offsets past the end":       func(x *termIndex) { x.fwdOff[len(x.fwdOff)-1]++ },
		"offsets decreasing":         func(x *termIndex) { x.dictOff[1], x.dictOff[2] = x.dictOff[2], x.dictOff[1] },
		"term id beyond the terms":   func(x *termIndex) { x.fwd[0] = 1000 },
		"country set beyond":         func(x *termIndex) { x.cset[0] = 7 },
		"missing row ids":            func(x *termIndex) { x.rowid = x.rowid[:1] },
		"reversed list out of range": func(x *termIndex) { x.rev = append(x.rev, 55) },
		"postings fewer than cards' terms": func(x *termIndex) {
			x.post = x.post[:len(x.post)-1]
			x.postOff[len(x.postOff)-1]--
		},
	} {
		x := *ix.terms
		x.post, x.fwdOff, x.dictOff, x.fwd, x.cset, x.rev = slices.Clone(x.post), slices.Clone(x.fwdOff), slices.Clone(x.dictOff), slices.Clone(x.fwd), slices.Clone(x.cset), slices.Clone(x.rev)
		x.postOff = slices.Clone(x.postOff)
		spoil(&x)
		if err := x.check(); !errors.Is(err, errCorrupt) {
			t.Errorf("%s: check = %v", name, err)
		}
	}
	if err := ix.terms.check(); err != nil {
		t.Errorf("intact index: %v", err)
	}
}

// TestByPID checks the participant id order and the duplicates found while sorting
// the ids, through the 8-byte prefixes and the full ids, against a plain sort.
func TestByPID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		pids        []string
		wantWinners []uint32
		wantLosers  []uint32
	}{
		{"empty", nil, nil, nil},
		{"short and shared prefixes", []string{"0088:12345678b", "0088:12345678a", "0088", "0088:1", "0088\x00"},
			[]uint32{3, 5, 4, 2, 1}, nil},
		{"last card of a participant wins", []string{"0088:123456789", "9915:x", "0088:123456789", "9915:x", "0088:123456789"},
			[]uint32{5, 4}, []uint32{1, 2, 3}},
		{"prefix tie but different", []string{"0088:1234xyz", "0088:1234xy", "0088:1234xyz"},
			[]uint32{2, 3}, []uint32{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := newTermBuilder()
			for _, p := range tt.pids {
				tb.addIDs(p, nil)
			}
			winners, losers := tb.byPID()
			if !slices.Equal(winners, tt.wantWinners) && len(winners)+len(tt.wantWinners) > 0 {
				t.Errorf("winners = %v, want %v", winners, tt.wantWinners)
			}
			if !slices.Equal(losers, tt.wantLosers) {
				t.Errorf("losers = %v, want %v", losers, tt.wantLosers)
			}
		})
	}
}

// TestByteArena checks that strings stored across chunks, including one longer than a
// chunk, come back unchanged.
func TestByteArena(t *testing.T) {
	t.Parallel()
	var a byteArena
	want := []string{"", "a", strings.Repeat("x", arenaChunk-1), "bc", strings.Repeat("y", arenaChunk+5), "d"}
	var refs []arenaRef
	for _, s := range want {
		refs = append(refs, a.add(s))
	}
	for i, r := range refs {
		if got := string(a.get(r)); got != want[i] {
			t.Errorf("string %d: got %d bytes, want %d", i, len(got), len(want[i]))
		}
	}
}

// TestOpenIndexDamagedTermIndex damages the stored term index of a real file in ways
// check's per-array bounds do not see: OpenIndex must return errCorrupt, never panic
// (a panic would end the process during a reload, keepMirror's included).
func TestOpenIndexDamagedTermIndex(t *testing.T) {
	t.Parallel()
	u32s := func(b []byte) []uint32 {
		v := make([]uint32, len(b)/4)
		for i := range v {
			v[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return v
	}
	bytesOf := func(v []uint32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], x)
		}
		return b
	}
	for name, spoil := range map[string]func(t *testing.T, a map[string][]uint32){
		// One posting fewer than the cards' terms: the last term's postings overflow.
		"postings shorter than the cards' terms": func(t *testing.T, a map[string][]uint32) {
			a["post"] = a["post"][:len(a["post"])-1]
			a["post_off"][len(a["post_off"])-1]--
		},
		// As many postings as terms of cards, but one moved to the next term.
		"a term's postings count wrong": func(t *testing.T, a map[string][]uint32) {
			off := a["post_off"]
			for i := 1; i < len(off)-1; i++ {
				if off[i] < off[i+1] {
					off[i]++
					return
				}
			}
			t.Fatal("no term with postings to shift")
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "directory.db")
			cards := []*export.Card{card("0192:1", "Berg Bergen AS", "NO"), card("0192:2", "Ab Berg", "SE"), card("0192:3", "Fjord AS", "NO")}
			if _, err := Build(context.Background(), path, &sliceSource{cards: cards}, BuildOptions{}); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			a := map[string][]uint32{}
			for _, n := range []string{"post", "post_off"} {
				var rows int
				var b []byte
				if err := db.QueryRow("SELECT count(*), max(data) FROM tindex WHERE name = ?", n).Scan(&rows, &b); err != nil || rows != 1 {
					t.Fatalf("%s: %d rows, %v", n, rows, err)
				}
				a[n] = u32s(b)
			}
			spoil(t, a)
			for n, v := range a {
				if _, err := db.Exec("UPDATE tindex SET data = ? WHERE name = ?", bytesOf(v), n); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			ix, err := OpenIndex(path)
			if err == nil {
				ix.Close()
			}
			if !errors.Is(err, errCorrupt) {
				t.Errorf("OpenIndex = %v, want errCorrupt", err)
			}
		})
	}
}

// FuzzTermIndexLoad damages a term index's stored arrays (each 3 bytes of input: which
// array, which entry, the new value; or, for a value of 255, cut the array there) and
// runs what loading runs on them, check and then setIDF: a damaged index must be
// errCorrupt, never a panic.
func FuzzTermIndexLoad(f *testing.F) {
	ix := buildIndex(f, card("0192:1", "Berg Bergen AS", "NO"), card("0192:2", "Ab Berg", "SE"), card("0192:3", "Fjord AS", "NO"))
	// The index: post [0 1 2 0 2 2 1], postOff [0 1 3 5 6 7], fwd [0 2 1 4 1 2 3],
	// fwdOff [0 2 4 7]. Seeds 1 and 2 panicked before setIDF checked its bounds.
	f.Add([]byte{1, 4, 7})            // term 3 given term 4's posting: term 4 has none
	f.Add([]byte{0, 6, 255, 1, 5, 6}) // the last posting cut, offsets kept consistent
	f.Add([]byte{1, 1, 2})            // a posting moved from term 1 to term 0
	f.Add([]byte{0, 200, 255})        // postings cut short
	f.Add([]byte{3, 0, 9})            // a card's terms offset
	f.Add([]byte{2, 4, 0, 1, 0})      // a card's term id, and a posting
	f.Fuzz(func(t *testing.T, data []byte) {
		x := *ix.terms
		x.mem, x.idf, x.nameW, x.postPos = nil, nil, nil, nil
		arrs := []*[]uint32{&x.post, &x.postOff, &x.fwd, &x.fwdOff, &x.dictOff, &x.cset}
		for _, a := range arrs {
			*a = slices.Clone(*a)
		}
		for ; len(data) >= 3; data = data[3:] {
			a := arrs[int(data[0])%len(arrs)]
			if len(*a) == 0 {
				continue
			}
			i := int(data[1]) % len(*a)
			if data[2] == 255 {
				*a = (*a)[:i]
				continue
			}
			(*a)[i] = uint32(data[2])
		}
		defer x.free()
		err := x.check()
		if err == nil {
			err = x.setIDF()
		}
		if err != nil && !errors.Is(err, errCorrupt) {
			t.Errorf("damaged term index: %v, want errCorrupt", err)
		}
	})
}
