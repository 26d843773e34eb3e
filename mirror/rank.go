package mirror

import (
	"container/heap"
	"slices"
)

// Ranking of name matches (Index.Search; docs/INTERFACE.md describes it for users).
// Every matching card gets a key, higher first, ties in card order (shorter folded
// display names first, then import order):
//
//  1. its tier: the exact name (the display name's terms are the query's), then all
//     terms exact or as a prefix, then with a typo;
//  2. with a country filter, whether the card's main (first) entity is in that country;
//  3. a score, the sum of
//     - coverage: how much of the card's names the query's words carry, weighing every
//     term by its IDF, ln(cards/postings), known from the term index without reading
//     postings: Σ over the query terms of IDF(the term matched) × its match weight
//     (whole for the word as typed, half for a longer word the last term begins, less
//     than whole for a typo by the kind of slip: see typoWeight), divided by Σ IDF over
//     all of the card's distinct terms (nameW). A card whose other words are common
//     (legal forms, trades) is covered more than one with other rare words, and a
//     rarer word matched weighs more than a common one;
//     - adjacency: the share of the query's neighbouring terms that are neighbours in
//     that order in the card's names;
//     - a start: half as much when the query's first term begins one of the names.
//
// The scan keeps the best offset+limit cards in a bounded heap, so a search costs what
// the scan of its candidates costs plus O(log k) per candidate; the count stays exact.
// Where a match is known without reading the card's terms (two terms, both as bitmaps),
// a full heap is entered only by cards whose bound (rankBound) could beat its worst;
// the bound takes from the postings whether the first term begins a name, whether the
// second follows it and the card's own coverage numerator (see pairPos), so that of
// tens of thousands of matches of two common words a few hundred are ranked.
const (
	scoreUnit = 1024 // coverage and adjacency at most; the start half of it

	keyTierShift = 40
	keyMainShift = 39
)

// rankKey is the ranking key of card c, whose sorted term ids are fw, matched by the
// terms of q at the indexes at of fw with the weights ws; fuzzy says a typo was needed.
func (ix *Index) rankKey(q *nameQuery, c uint32, fw []uint32, at []int, ws []uint8, fuzzy bool) uint64 {
	x := ix.terms
	off := int(x.fwdOff[c])
	adj := 0
	for i := 1; i < len(at); i++ {
		if x.fpos[off+at[i]]&^posStart == x.fpos[off+at[i-1]]&^posStart+1 {
			adj++
		}
	}
	first := x.fpos[off+at[0]]
	tier := uint64(1)
	switch {
	case fuzzy:
		tier = 0
	case q.repeats || first == posStart && adj == len(at)-1:
		// The display name (the first name: positions from 0) can be the query's terms
		// only when they begin it in order; only then is its hash read.
		if x.nameHash[c] == q.nameKey {
			tier = 2
		}
	}
	key := tier << keyTierShift
	if q.ccMain != nil && q.ccMain[x.cset[c]] {
		key |= 1 << keyMainShift
	}
	score := 0
	if den := int(x.nameW[c]) * typoExact; den > 0 {
		num := 0
		for i, j := range at {
			num += int(x.idf[fw[j]]) * int(ws[i])
		}
		score = min(num*scoreUnit/den, scoreUnit)
	}
	if len(at) > 1 {
		score += adj * scoreUnit / (len(at) - 1)
	}
	if first&posStart != 0 {
		score += scoreUnit / 2
	}
	return key | uint64(score)
}

// rankKeyOne is rankKey for a query of one term matching card c with the term id t, of
// weight w, whose position byte in c is pos; fuzzy says t is a typo alternative.
func (ix *Index) rankKeyOne(q *nameQuery, c, t uint32, w, pos uint8, fuzzy bool) uint64 {
	x := ix.terms
	tier := uint64(1)
	switch {
	case fuzzy:
		tier = 0
	case pos == posStart && x.nameHash[c] == q.nameKey:
		tier = 2
	}
	key := tier << keyTierShift
	if q.ccMain != nil && q.ccMain[x.cset[c]] {
		key |= 1 << keyMainShift
	}
	score := 0
	if den := int(x.nameW[c]) * typoExact; den > 0 {
		score = min(int(x.idf[t])*int(w)*scoreUnit/den, scoreUnit)
	}
	if pos&posStart != 0 {
		score += scoreUnit / 2
	}
	return key | uint64(score)
}

// rankBound is a key no lower than rankKey's for card c, a match of q, read without the
// card's terms: its tier at most (a typo tier when the driving term matched only
// through a typo, the exact-name tier only when the display name is as long as the
// query's (exactLen: cards are numbered by that length, see nameLenRange) and its hash
// is the query's), its main country, a score with the coverage of the numerator num
// (at least rankKey's: see pairPos) over the card's name weight, adjacency when adj
// (the second term may follow the first) and the start when start (the first term may
// begin a name).
func (ix *Index) rankBound(q *nameQuery, c uint32, typoOnly, exactLen, start, adj bool, num int) uint64 {
	x := ix.terms
	tier := uint64(1)
	switch {
	case typoOnly:
		tier = 0
	case exactLen && x.nameHash[c] == q.nameKey:
		tier = 2
	}
	score := 0
	if start {
		score += scoreUnit / 2
	}
	if adj && len(q.terms) > 1 {
		score += scoreUnit
	}
	if den := int(x.nameW[c]) * typoExact; den > 0 {
		score += min(num*scoreUnit/den, scoreUnit)
	}
	key := tier<<keyTierShift | uint64(score)
	if q.ccMain != nil && q.ccMain[x.cset[c]] {
		key |= 1 << keyMainShift
	}
	return key
}

// countryMain returns, per country set, whether its first country (the card's main
// entity's) is the folded country code cc.
func (x *termIndex) countryMain(cc string) []bool {
	ok := make([]bool, len(x.csets))
	for i, s := range x.csets {
		ok[i] = len(s) > 0 && s[0] == cc
	}
	return ok
}

// ranked is a card and its ranking key.
type ranked struct {
	key  uint64
	card uint32
}

// better reports whether a ranks before b: the higher key, then the lower card number.
func (a ranked) better(b ranked) bool {
	return a.key > b.key || a.key == b.key && a.card < b.card
}

// topK keeps the best k cards offered, the worst of them at the root of a heap.
type topK struct {
	k int
	h rankHeap
}

// offer considers card c with key.
func (t *topK) offer(key uint64, c uint32) {
	r := ranked{key, c}
	switch {
	case len(t.h) < t.k:
		heap.Push(&t.h, r)
	case r.better(t.h[0]):
		t.h[0] = r
		heap.Fix(&t.h, 0)
	}
}

// full reports whether k cards are kept.
func (t *topK) full() bool { return len(t.h) >= t.k }

// mayEnter reports whether card c with a key of at most bound could be kept.
func (t *topK) mayEnter(bound uint64, c uint32) bool {
	switch {
	case len(t.h) < t.k:
		return true
	case t.k == 0:
		return false
	}
	return (ranked{bound, c}).better(t.h[0])
}

// sorted returns the cards kept, best first.
func (t *topK) sorted() []uint32 {
	slices.SortFunc(t.h, func(a, b ranked) int {
		if a.better(b) {
			return -1
		}
		return 1
	})
	out := make([]uint32, len(t.h))
	for i, r := range t.h {
		out[i] = r.card
	}
	return out
}

// rankHeap is a heap of ranked cards, the worst first.
type rankHeap []ranked

func (h rankHeap) Len() int           { return len(h) }
func (h rankHeap) Less(i, j int) bool { return h[j].better(h[i]) }
func (h rankHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rankHeap) Push(v any)        { *h = append(*h, v.(ranked)) }
func (h *rankHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
