package mirror

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Search semantics (Index.Search):
//
//   - The query is cut into folded terms (see terms): case, diacritics and the letters
//     ø æ ß ł đ þ œ do not matter; punctuation and any query syntax separate terms.
//   - A card matches by name when every term is a term of one of its names (of any
//     entity); the last term also matches as a prefix when it has 2 runes or more.
//   - Typos: a term of 5+ runes (not a number) also matches name terms one edit away
//     (insertion, deletion, substitution, transposition), from 9 runes two edits away
//     when both fall in the same half of the word; the alternatives are terms of 4 to
//     maxVocabLen runes, not numbers. At most maxFuzzy alternatives per term, the
//     closest and most frequent first. The last term's prefix matches count as exact,
//     not as typos.
//   - A last term of one rune matches exactly.
//   - Ids: the query as a participant id in any notation ("0208:0677424046",
//     "iso6523-actorid-upis::0208:0677424046") and the ids peppol.Candidates derives
//     from a VAT or registration number; and the cards whose additional identifiers or
//     own participant id value equal the query (or a candidate's value) with
//     punctuation and spaces removed (a query without digits only when it is one token
//     of at least 6 letters).
//   - country keeps the cards with an entity in that country (codes compared folded).
//   - An empty (or white-space) text with a country lists the cards having an entity
//     in that country, in export order, and TotalCount is the exact number of them;
//     an empty text without a country matches nothing.
//   - Exact id matches come first, then the name matches ranked (see rank.go): exact
//     name (the display name's terms are the query's), all terms exact or prefix, typo;
//     within each, the filter country's own cards, then by score; equal keys in card
//     order (shorter folded display names first, then import order). Each card appears
//     once, in its best place.
//   - TotalCount is the number of distinct cards in all tiers (at most maxIDHits from
//     ids).
//
// Evaluation (see termIndex): each query term becomes a matcher, a range of term ids
// (one term, or the terms the last term is a prefix of) and its typo alternatives. The
// term whose matchers' postings are fewest drives: its cards are enumerated in card
// order (when they are many, ANDed with a bitmap of the other term with the fewest
// postings) and every other term and the country are checked against each card's own
// sorted term ids. Every match is counted and ranked; the best limit are kept.

// maxFuzzy is the most typo alternatives one query term gets.
const maxFuzzy = 12

// maxIDHits bounds the cards one identifier query returns.
const maxIDHits = 1000

// maxTerms bounds the terms of a query that are searched; further terms are ignored.
const maxTerms = 16

// Search answers a search: at most limit hits and the exact number of matches (see the
// rules above); it is SearchPage from offset 0.
func (ix *Index) Search(ctx context.Context, text, country string, limit int) (*registry.SearchResult, error) {
	return ix.SearchPage(ctx, text, country, 0, limit)
}

// SearchPage answers a page of a search: the hits from offset (0-based) on, at most
// limit of them, in the order Search gives them, and the exact number of all matches
// (see the rules above). The result's DataAsOf is this index's Meta().DataAsOf (nil when
// it has none), so it always names the data the hits come from. ctx is checked between
// the steps; the file reads themselves are not interrupted (see readCtx). It returns
// errors of reading the file or ctx's, and errClosed after Close.
func (ix *Index) SearchPage(ctx context.Context, text, country string, offset, limit int) (*registry.SearchResult, error) {
	if !ix.enter() {
		return nil, fmt.Errorf("mirror: search %q: %w", text, errClosed)
	}
	defer ix.leave()
	res, err := ix.search(ctx, text, country, max(offset, 0), max(limit, 0))
	if err != nil {
		return nil, fmt.Errorf("mirror: search %q: %w", text, err)
	}
	return res, nil
}

func (ix *Index) search(ctx context.Context, text, country string, offset, limit int) (*registry.SearchResult, error) {
	res := &registry.SearchResult{Query: text, Results: []registry.SearchHit{}}
	if t := ix.meta.DataAsOf; !t.IsZero() {
		res.DataAsOf = &t
	}
	x := ix.terms
	cc := compactKey(country)
	if cc != "" && strings.TrimSpace(text) == "" {
		return ix.countryList(ctx, res, cc, offset, limit)
	}
	var ccOK []bool
	if cc != "" {
		ccOK = x.countryOK(cc)
	}

	// Tier 0: identifiers.
	idHits, err := ix.idMatches(ctx, text, ccOK)
	if err != nil {
		return nil, err
	}
	ts := terms(text)
	if len(ts) > maxTerms {
		ts = ts[:maxTerms]
	}
	var q *nameQuery
	if len(ts) > 0 {
		q = ix.compile(ts, ccOK)
		if cc != "" {
			q.ccMain = x.countryMain(cc)
		}
	}
	order := slices.Clone(idHits)
	total := len(idHits)
	if q != nil {
		var isID map[uint32]bool
		if len(idHits) > 0 {
			isID = make(map[uint32]bool, len(idHits))
			for _, c := range idHits {
				isID[c] = true
				if q.matches(x, c) != 0 {
					total-- // counted again among the name matches
				}
			}
		}
		// The best offset+limit name matches: enough for the page whatever the
		// identifier matches before them.
		best, n := ix.evaluate(q, offset+limit, isID)
		total += n
		order = append(order, best...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.page(ctx, res, order, total, offset, limit)
}

// page completes res with the cards of order from offset, at most limit of them, and
// the total count.
func (ix *Index) page(ctx context.Context, res *registry.SearchResult, order []uint32, total, offset, limit int) (*registry.SearchResult, error) {
	res.TotalCount = total
	lo := min(offset, len(order))
	hits, err := ix.hits(ctx, order[lo:min(lo+limit, len(order))])
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Results = hits
	return res, nil
}

// countryList completes res with the cards having an entity in the folded country cc,
// in export order, from offset and at most limit of them, and the number of all such
// cards.
func (ix *Index) countryList(ctx context.Context, res *registry.SearchResult, cc string, offset, limit int) (*registry.SearchResult, error) {
	cards := ix.terms.byCountry[cc]
	return ix.page(ctx, res, cards, len(cards), offset, limit)
}

// matcher is what one query term matches: the term ids [lo, hi) (the term, or the
// terms the last term is a prefix of), or one of the typo alternatives fuzzy.
type matcher struct {
	lo, hi uint32
	fuzzy  []uint32 // ascending
	fuzzyW []uint8  // the weight of each of fuzzy (see typoWeight)
	whole  bool     // lo is the query term itself (not only terms it is a prefix of)
	docs   int      // postings of all of them
}

// nameQuery is a compiled name search.
type nameQuery struct {
	terms   []matcher
	ccOK    []bool // by country set; nil: any country
	ccMain  []bool // by country set: its first (the card's main entity's) country is the filter's
	nameKey uint64 // nameKeyHash of the query's terms
	nameLen int    // the runes of the query's terms joined by spaces, as cards are ordered by (at most maxRankLen)
	repeats bool   // a term is in the query twice
	ranked  int    // the cards whose terms evaluate read to rank them (a measure of its work)
}

// compile turns the query terms ts into matchers.
func (ix *Index) compile(ts []string, ccOK []bool) *nameQuery {
	x := ix.terms
	key := strings.Join(ts, " ")
	q := &nameQuery{ccOK: ccOK, nameKey: nameKeyHash(key), nameLen: min(utf8.RuneCountInString(key), maxRankLen)}
	for i, t := range ts {
		q.repeats = q.repeats || slices.Contains(ts[:i], t)
	}
	for i, t := range ts {
		last := i == len(ts)-1
		var m matcher
		if last && utf8.RuneCountInString(t) >= 2 {
			m.lo, m.hi = x.prefixRange(t)
		} else {
			m.lo, m.hi = x.lookup(t)
		}
		m.whole = m.lo < m.hi && x.term(m.lo) == t
		m.docs = int(x.postOff[m.hi] - x.postOff[m.lo])
		alts := x.typos(t, last)
		slices.SortFunc(alts, func(a, b typoAlt) int { return compareInts(a.id, b.id) })
		for _, a := range alts {
			m.fuzzy = append(m.fuzzy, a.id)
			m.fuzzyW = append(m.fuzzyW, a.weight)
			m.docs += x.docs(a.id)
		}
		q.terms = append(q.terms, m)
	}
	return q
}

// match reports how a card with the sorted term ids fw meets m: how is 0 not, 1
// exactly (or as a prefix), 2 only through a typo alternative; at is the index in fw of
// the term matched and w the match's weight (typoExact, or the alternative's).
func (m *matcher) match(fw []uint32) (how, at int, w uint8) {
	// A card has a few terms: a linear scan beats a binary search.
	i := 0
	for i < len(fw) && fw[i] < m.lo {
		i++
	}
	if i < len(fw) && fw[i] < m.hi {
		if fw[i] == m.lo && m.whole {
			return 1, i, typoExact
		}
		return 1, i, typoPrefix
	}
	if len(m.fuzzy) == 0 {
		return 0, 0, 0
	}
	// The card's terms looked up among the alternatives.
	for i, t := range fw {
		if j, ok := slices.BinarySearch(m.fuzzy, t); ok {
			return 2, i, m.fuzzyW[j]
		}
	}
	return 0, 0, 0
}

// matches reports how card c meets every term of q and the country: 0 not, 1 with
// exact terms, 2 with a typo.
func (q *nameQuery) matches(x *termIndex, c uint32) int {
	if q.ccOK != nil && !q.ccOK[x.cset[c]] {
		return 0
	}
	fw := x.fwd[x.fwdOff[c]:x.fwdOff[c+1]]
	how := 1
	for i := range q.terms {
		switch h, _, _ := q.terms[i].match(fw); h {
		case 0:
			return 0
		case 2:
			how = 2
		}
	}
	return how
}

// sortLimit is the most postings a driving term's cards are collected by sorting;
// beyond, a bitmap of all cards is used.
const sortLimit = 2048

// evaluate finds the cards matching q: the best limit of them not in skip, best first
// (see rankKey), and the number of all matches.
func (ix *Index) evaluate(q *nameQuery, limit int, skip map[uint32]bool) (best []uint32, total int) {
	x := ix.terms
	d := 0
	for i := range q.terms {
		if q.terms[i].docs < q.terms[d].docs {
			d = i
		}
	}
	drv := &q.terms[d]
	top := topK{k: limit}
	at := make([]int, len(q.terms))
	ws := make([]uint8, len(q.terms))
	visit := func(c uint32, _ bool) {
		if q.ccOK != nil && !q.ccOK[x.cset[c]] {
			return
		}
		fw := x.fwd[x.fwdOff[c]:x.fwdOff[c+1]]
		fuzzy := false
		for i := range q.terms {
			how, j, w := q.terms[i].match(fw)
			switch how {
			case 0:
				return
			case 2:
				fuzzy = true
			}
			at[i], ws[i] = j, w
		}
		total++
		if skip[c] || limit == 0 {
			return
		}
		q.ranked++
		top.offer(ix.rankKey(q, c, fw, at, ws, fuzzy), c)
	}
	lists := int(drv.hi-drv.lo) + len(drv.fuzzy)
	switch {
	case lists == 0:
	case len(q.terms) == 1:
		ix.evaluateOne(q, limit, skip, &top, &total)
	case lists == 1 && (drv.docs <= sortLimit || filterTerm(q, d) < 0):
		id, fuzzy := drv.lo, false
		if drv.hi == drv.lo {
			id, fuzzy = drv.fuzzy[0], true
		}
		for _, c := range x.post[x.postOff[id]:x.postOff[id+1]] {
			visit(c, fuzzy)
		}
	case drv.docs <= sortLimit:
		// card<<1 | typo, sorted: of a card found both ways the exact one comes first.
		buf := make([]uint32, 0, drv.docs)
		buf = append(buf, x.post[x.postOff[drv.lo]:x.postOff[drv.hi]]...)
		for i := range buf {
			buf[i] <<= 1
		}
		for _, f := range drv.fuzzy {
			for _, c := range x.post[x.postOff[f]:x.postOff[f+1]] {
				buf = append(buf, c<<1|1)
			}
		}
		slices.Sort(buf)
		prev := uint32(1<<32 - 1)
		for _, v := range buf {
			if c := v >> 1; c != prev {
				prev = c
				visit(c, v&1 == 1)
			}
		}
	default:
		bm := ix.bitmaps.get()
		exact, typo, filter := bm.exact, bm.typo, bm.filter
		// The other term with the fewest postings, when they are not many more than
		// the driver's, as a bitmap too: setting a bit per posting costs far less than
		// looking at a candidate's terms, so only the cards of both are visited.
		o := filterTerm(q, d)
		filtered := o >= 0
		// With two terms, a card in both bitmaps matches: it is counted, and once the
		// heap is full it is ranked only when a bound of its key without its terms
		// (see rankBound) could enter. The bound knows from the postings' position
		// bytes whether the first term begins a name (start) and whether the second
		// follows it (adj), so the term of the two that is first in the query is set
		// first.
		confirmed := filtered && len(q.terms) == 2
		var pos *pairPos
		if confirmed {
			if bm.pos == nil { // only two-term searches need them
				bm.start, bm.adj = make([]uint64, len(exact)), make([]uint64, len(exact))
				bm.pos, bm.num, bm.numO = make([]uint8, x.n), make([]uint8, x.n), make([]uint8, x.n)
			}
			pos = &pairPos{start: bm.start, adj: bm.adj, at: bm.pos, num: bm.num, numO: bm.numO}
		}
		// The driver's cards first (recording their positions), then the other term's
		// among them only: its postings are the many, so each costs a bit test.
		x.setDriver(drv, exact, typo, pos, d == 0)
		if filtered {
			x.setOther(&q.terms[o], exact, typo, filter, pos, o == 0)
		}
		var exactLo, exactHi uint32 // the cards whose display name is as long as the query
		if confirmed {
			exactLo, exactHi = x.nameLenRange(q.nameLen)
		}
		for w := range exact {
			e, f := exact[w], typo[w]
			if e|f == 0 {
				continue
			}
			exact[w], typo[w] = 0, 0
			all := e | f
			if filtered {
				all &= filter[w]
			}
			for ; all != 0; all &= all - 1 {
				b := uint32(bits.TrailingZeros64(all))
				c, typoOnly := uint32(w)<<6|b, e&(1<<b) == 0
				if confirmed && top.full() {
					if q.ccOK != nil && !q.ccOK[x.cset[c]] {
						continue
					}
					total++
					if skip[c] {
						continue
					}
					exactName := c >= exactLo && c < exactHi
					num := typoExact * (int(pos.num[c]) + int(pos.numO[c]))
					if !top.mayEnter(ix.rankBound(q, c, typoOnly, exactName, pos.start[w]&(1<<b) != 0, pos.adj[w]&(1<<b) != 0, num), c) {
						continue
					}
					total-- // visit counts it
				}
				visit(c, typoOnly)
			}
		}
		if filtered {
			clear(filter)
		}
		if confirmed {
			clear(bm.start)
			clear(bm.adj)
		}
		ix.bitmaps.put(bm)
	}
	return top.sorted(), total
}

// evaluateOne is evaluate for a query of one term: its posting lists are walked in the
// order match prefers them (the exact or prefix terms, then the typo alternatives, each
// by term id), each card taken once, at its first list, with its position in the
// posting's postPos, so that the cards' own terms are never read.
func (ix *Index) evaluateOne(q *nameQuery, limit int, skip map[uint32]bool, top *topK, total *int) {
	x := ix.terms
	m := &q.terms[0]
	var seen []uint64
	lists := int(m.hi-m.lo) + len(m.fuzzy)
	if lists > 1 {
		bm := ix.bitmaps.get()
		defer ix.bitmaps.put(bm)
		seen = bm.filter
		defer func() {
			if m.docs < len(seen) {
				for t := m.lo; t < m.hi; t++ {
					for _, c := range x.post[x.postOff[t]:x.postOff[t+1]] {
						seen[c>>6] = 0
					}
				}
				for _, t := range m.fuzzy {
					for _, c := range x.post[x.postOff[t]:x.postOff[t+1]] {
						seen[c>>6] = 0
					}
				}
				return
			}
			clear(seen)
		}()
	}
	walk := func(t uint32, w uint8, fuzzy bool) {
		a := x.postOff[t]
		for i, c := range x.post[a:x.postOff[t+1]] {
			if seen != nil {
				if seen[c>>6]&(1<<(c&63)) != 0 {
					continue
				}
				seen[c>>6] |= 1 << (c & 63)
			}
			if q.ccOK != nil && !q.ccOK[x.cset[c]] {
				continue
			}
			*total++
			if skip[c] || limit == 0 {
				continue
			}
			top.offer(ix.rankKeyOne(q, c, t, w, x.postPos[int(a)+i], fuzzy), c)
		}
	}
	for t := m.lo; t < m.hi; t++ {
		w := uint8(typoPrefix)
		if t == m.lo && m.whole {
			w = typoExact
		}
		walk(t, w, false)
	}
	for j, t := range m.fuzzy {
		walk(t, m.fuzzyW[j], true)
	}
}

// scratchPool keeps up to kept bitmaps for the next searches. Unlike a sync.Pool, a
// garbage collection does not empty it: at millions of cards making the arrays again
// (and their pages) would cost a search milliseconds after each collection and grow
// the heap the collector paces by.
type scratchPool struct {
	mu   sync.Mutex
	free []*bitmaps
	new  func() *bitmaps
	// kept bounds len(free): runtime.GOMAXPROCS(0) when the index is opened, as
	// searches run at most one per P at a time. It bounds the memory kept between
	// searches to kept sets of about 14 MB each at 4M cards (5 bitmaps of a bit a card
	// and 3 bytes a card once a two-term search has made them).
	kept int
}

// get returns kept bitmaps, or new ones when none is kept.
func (p *scratchPool) get() *bitmaps {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	return p.new()
}

// put keeps b (cleared) for a later search, unless p.kept are kept already.
func (p *scratchPool) put(b *bitmaps) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.kept {
		p.free = append(p.free, b)
	}
}

// bitmaps are bitmaps of all cards, cleared after use, and a position byte per card
// (see pairPos; start, adj and pos are made by the first search that needs them).
type bitmaps struct {
	exact, typo, filter, start, adj []uint64
	pos, num, numO                  []uint8
}

// pairPos is what the postings of a query of two terms tell of each card's positions
// (evaluate): start has the cards where the query's first term begins a name, adj
// those where the second term follows the first; at is, per card of the driver, the
// position byte of the driver's term there; num and numO are, per card, the most its
// driver's and its other term's matches can add to rankKey's coverage numerator, in
// units of typoExact (IDF × match weight / typoExact, rounded up). Where a card has
// several terms a query term matches (a prefix, typo alternatives), start, adj, num and
// numO say what any of them could: so they bound what rankKey finds, never less.
type pairPos struct {
	start, adj []uint64
	at         []uint8
	num, numO  []uint8
}

// numUnits is IDF × match weight of term t, weight w, in units of typoExact, rounded
// up (see pairPos).
func (x *termIndex) numUnits(t uint32, w uint8) uint8 {
	return uint8(min(255, (int(x.idf[t])*int(w)+typoExact-1)/typoExact))
}

// weight is the match weight of m's term t (an exact or prefix term, or fuzzy
// alternative j when j >= 0), as matcher.match gives it.
func (m *matcher) weight(t uint32, j int) uint8 {
	switch {
	case j >= 0:
		return m.fuzzyW[j]
	case t == m.lo && m.whole:
		return typoExact
	}
	return typoPrefix
}

// setDriver sets the bits of the driving term m's cards: of its term or prefix
// completions in ex, of its typo alternatives in ty. With p set it records each card's
// position byte in p.at (a card met twice gets adj set: either position could be
// followed or follow) and p.num, and, when m is the query's first term, sets p.start
// where it begins a name.
func (x *termIndex) setDriver(m *matcher, ex, ty []uint64, p *pairPos, first bool) {
	one := func(t uint32, dst []uint64, j int) {
		a, b := x.postOff[t], x.postOff[t+1]
		if p == nil {
			for _, c := range x.post[a:b] {
				dst[c>>6] |= 1 << (c & 63)
			}
			return
		}
		n := x.numUnits(t, m.weight(t, j))
		for i, c := range x.post[a:b] {
			w, bit := c>>6, uint64(1)<<(c&63)
			if (ex[w]|ty[w])&bit != 0 {
				p.adj[w] |= bit // met before: its other position is not kept
				p.num[c] = max(p.num[c], n)
			} else {
				p.num[c] = n
			}
			dst[w] |= bit
			pb := x.postPos[int(a)+i]
			p.at[c] = pb
			if first && pb&posStart != 0 {
				p.start[w] |= bit
			}
		}
	}
	for t := m.lo; t < m.hi; t++ {
		one(t, ex, -1)
	}
	for j, f := range m.fuzzy {
		one(f, ty, j)
	}
}

// setOther sets in filter the bits of the cards of m (a term other than the driver)
// that are among the driver's (ex or ty). With p set (a query of two terms) it records
// p.numO, sets p.start where m, the query's first term (first), begins a name, and
// p.adj where the second term follows the first, from m's position byte and the
// driver's in p.at.
func (x *termIndex) setOther(m *matcher, ex, ty, filter []uint64, p *pairPos, first bool) {
	one := func(t uint32, j int) {
		a, b := x.postOff[t], x.postOff[t+1]
		var n uint8
		if p != nil {
			n = x.numUnits(t, m.weight(t, j))
		}
		for i, c := range x.post[a:b] {
			w, bit := c>>6, uint64(1)<<(c&63)
			if (ex[w]|ty[w])&bit == 0 {
				continue
			}
			if p != nil {
				if filter[w]&bit != 0 {
					p.numO[c] = max(p.numO[c], n)
				} else {
					p.numO[c] = n
				}
			}
			filter[w] |= bit
			if p == nil {
				continue
			}
			pb, pd := x.postPos[int(a)+i], p.at[c]
			if first {
				if pb&posStart != 0 {
					p.start[w] |= bit
				}
				pb, pd = pd, pb // the driver's term is the second
			}
			if pb&^posStart == pd&^posStart+1 {
				p.adj[w] |= bit
			}
		}
	}
	for t := m.lo; t < m.hi; t++ {
		one(t, -1)
	}
	for j, f := range m.fuzzy {
		one(f, j)
	}
}

// filterFactor is how many times the driver's postings another term's may have to be
// walked for evaluate's filter bitmap: each of them costs a bit test in the driver's
// bitmaps (a nanosecond or two), a candidate whose terms are read a hundred or more
// (a cache miss or two), and with two terms the bitmaps spare most candidates' ranking
// too (see rankBound), so 64 is on the safe side.
const filterFactor = 64

// filterTerm returns the index of the term of q other than the driver d with the fewest
// postings, when they are at most filterFactor times the driver's; else -1.
func filterTerm(q *nameQuery, d int) int {
	o := -1
	for i := range q.terms {
		if i != d && (o < 0 || q.terms[i].docs < q.terms[o].docs) {
			o = i
		}
	}
	if o < 0 || q.terms[o].docs > filterFactor*q.terms[d].docs {
		return -1
	}
	return o
}

// typoAlt is a typo alternative of a query term: its term id and weight.
type typoAlt struct {
	id     uint32
	weight uint8
}

// typos returns up to maxFuzzy terms within maxEdits of t with their weights (see
// typoWeight), closest and most frequent first (the weights rank the matches, they do
// not choose the alternatives: so the matches and their count are those of before
// ranking); for the last term (a prefix) not those that t is a prefix of.
//
// A term within one edit of t keeps t's first n/2 runes as its prefix or t's last
// n-n/2-1 runes as its suffix, whichever half the edit is not in, and its length is
// within one of t's: so the candidates are the terms of one prefix range of the
// dictionary and of one suffix range of the reversed dictionary, verified.
func (x *termIndex) typos(t string, last bool) []typoAlt {
	r := []rune(t)
	n := len(r)
	k := maxEdits(t, n)
	if k == 0 {
		return nil
	}
	a := n / 2
	type cand struct {
		id   uint32
		d    int
		w    uint8
		docs int
	}
	var cands []cand
	var ed editBuf
	consider := func(id uint32) {
		if rn := int(x.typoLen[id]); rn == 0 || rn < n-k || rn > n+k {
			return
		}
		s := x.term(id)
		if s == t || (last && strings.HasPrefix(s, t)) {
			return
		}
		for _, c := range cands {
			if c.id == id {
				return
			}
		}
		if d := ed.distance(r, s, k); d <= k {
			cands = append(cands, cand{id, d, typoWeight(r, ed.b, d), x.docs(id)})
		}
	}
	lo, hi := x.prefixRange(string(r[:a]))
	for id := lo; id < hi; id++ {
		consider(id)
	}
	rlo, rhi := x.suffixRange(string(r[a+1:]))
	for _, id := range x.rev[rlo:rhi] {
		consider(id)
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.d != y.d {
			return x.d - y.d
		}
		if x.docs != y.docs {
			return y.docs - x.docs
		}
		return int(x.id) - int(y.id)
	})
	out := make([]typoAlt, 0, min(len(cands), maxFuzzy))
	for _, c := range cands[:min(len(cands), maxFuzzy)] {
		out = append(out, typoAlt{c.id, c.w})
	}
	return out
}

// Match weights, in eighths of a term's IDF (see rankKey): an exact match counts
// whole, a longer term the query's last term is a prefix of half (the word typed whole
// is likelier meant than a longer one it begins), a typo less than whole, the less the rarer such a slip is when people type: a
// swapped pair of letters or a letter left out or doubled is commoner than a wrong
// letter, two slips rarer still, and a wrong first letter rarest (Damerau 1964, and
// the common observation that the first letter is seldom mistyped).
const (
	typoExact        = 8
	typoPrefix       = 4
	typoTransposed   = 6
	typoInsertDelete = 6
	typoSubstituted  = 5
	typoTwo          = 3
)

// typoWeight is the weight of the alternative b of the typed term a, d edits apart.
func typoWeight(a, b []rune, d int) uint8 {
	w := uint8(typoTwo)
	if d == 1 {
		switch {
		case len(a) != len(b):
			w = typoInsertDelete
		case transposed(a, b):
			w = typoTransposed
		default:
			w = typoSubstituted
		}
	}
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		w -= 2
	}
	return w
}

// transposed reports whether a and b, of the same length, differ by two adjacent
// letters swapped.
func transposed(a, b []rune) bool {
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
}

// editBuf is editDistance's scratch space, reused across candidates.
type editBuf struct {
	b    []rune
	rows []int
}

// distance is editDistance(a, []rune(s), max) without allocating.
func (e *editBuf) distance(a []rune, s string, max int) int {
	e.b = e.b[:0]
	for _, c := range s {
		e.b = append(e.b, c)
	}
	e.rows = slices.Grow(e.rows[:0], 3*(len(e.b)+1))[:3*(len(e.b)+1)]
	return editDistanceRows(a, e.b, max, e.rows)
}

// idMatches returns the cards the query names by identifier, best first: the participant
// ids it may be, then the cards with an additional identifier equal to it, each in a
// country of ccOK when it is set.
func (ix *Index) idMatches(ctx context.Context, text string, ccOK []bool) ([]uint32, error) {
	rctx, err := readCtx(ctx)
	if err != nil {
		return nil, err
	}
	var pids []string
	var keys []string
	addKey := func(k string) {
		if len(k) >= 3 && hasDigit(k) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	addPID := func(p string) {
		if p != "" && !slices.Contains(pids, p) {
			pids = append(pids, p)
		}
	}
	if strings.Contains(text, ":") {
		addPID(normalisePID(text))
	}
	for _, c := range peppol.Candidates(text) {
		addPID(c.ID.String())
		addKey(compactKey(c.ID.Value))
	}
	addKey(compactKey(text))
	// A free-form participant value without digits ("9915:test-peppolgate-invoice")
	// is findable as typed too, when the query is one token that long.
	if k := compactKey(text); len(k) >= 6 && !hasDigit(k) && !strings.ContainsFunc(strings.TrimSpace(text), unicode.IsSpace) && !slices.Contains(keys, k) {
		keys = append(keys, k)
	}
	x := ix.terms
	var out []uint32
	add := func(rowid int64) {
		c, ok := slices.BinarySearch(x.rowid, rowid)
		if !ok || slices.Contains(out, uint32(c)) || len(out) >= maxIDHits {
			return
		}
		if ccOK != nil && !ccOK[x.cset[c]] {
			return
		}
		out = append(out, uint32(c))
	}
	for _, p := range pids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var id int64
		err := ix.pidLookup.QueryRowContext(rctx, p).Scan(&id)
		if err == nil {
			add(id)
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows, err := ix.identLook.QueryContext(rctx, k, maxIDHits)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			add(id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, ctx.Err()
}

// hits reads the hits of the cards, in order.
func (ix *Index) hits(ctx context.Context, cards []uint32) ([]registry.SearchHit, error) {
	out := make([]registry.SearchHit, 0, len(cards))
	if len(cards) == 0 {
		return out, nil
	}
	ctx, err := readCtx(ctx)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(cards)*12)
	for i, c := range cards {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, ix.terms.rowid[c], 10)
	}
	// The row ids are numbers, so writing them into the statement is safe.
	rows, err := ix.db.QueryContext(ctx, "SELECT id, pid, name, ccs FROM card WHERE id IN ("+string(b)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[int64]registry.SearchHit, len(cards))
	for rows.Next() {
		var id int64
		var h registry.SearchHit
		var ccs string
		if err := rows.Scan(&id, &h.ParticipantID, &h.Name, &ccs); err != nil {
			return nil, err
		}
		h.CountryCode, _, _ = strings.Cut(ccs, " ")
		byID[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, c := range cards {
		if h, ok := byID[ix.terms.rowid[c]]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}
