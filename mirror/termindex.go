package mirror

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The term index is the in-memory name search structure of an Index. Cards are numbered
// 0..N-1 in rank order (shorter folded display name first, then import order); terms
// are numbered in lexicographic (byte) order of the folded term, so that the terms a
// prefix starts are one contiguous id range.
type termIndex struct {
	n int // cards

	dict    string   // every term, concatenated in id order
	dictOff []uint32 // term id → its start in dict; len terms+1
	// rev lists the typo-eligible terms (see typoEligible) sorted by their bytes read
	// backwards, for the suffix half of typo candidates.
	rev []uint32
	// typoLen is each term's length in runes when it is typo-eligible, else 0; not
	// stored, computed when the index is loaded.
	typoLen []uint8

	postOff []uint32 // term id → its start in post; len terms+1 (doc frequency = difference)
	post    []uint32 // the card numbers of each term, ascending

	fwdOff []uint32 // card → its start in fwd; len n+1
	fwd    []uint32 // the distinct term ids of each card, ascending
	// fpos is, for each entry of fwd, where the term first occurs in the card's names:
	// bit 7 set when it begins a name, bits 0–6 its position among all the card's name
	// terms (the names one after another, one position left free between two names),
	// at most posMax. Ranking reads it for adjacency (see score).
	fpos []uint8
	// idf is each term's inverse document frequency, ln(n/postings), in units of
	// 1/idfScale, at most 255; not stored, computed when the index is loaded.
	idf []uint8
	// nameW is each card's Σ idf over its distinct terms, at most 65535: the
	// denominator of rankKey's coverage, one read instead of one per term; not stored,
	// computed with idf.
	nameW []uint16
	// postPos is, for each entry of post, the term's position byte in that card (see
	// fpos), so that a one-term search need not read the cards' terms; computed with
	// idf.
	postPos []uint8

	cset     []uint32   // card → its country set
	csets    [][]string // country set → its folded country codes
	nameHash []uint64   // card → nameKeyHash of its display name
	rowid    []int64    // card → its row in the card table, ascending

	// mem is the memory outside the Go heap that the arrays above live in (see
	// readTermIndex); nil for an index built in memory.
	mem [][]byte

	// byCountry maps a folded country code to the cards having an entity in that
	// country, in export (import sequence) order; not stored, computed when the index is
	// loaded (see setByCountry).
	byCountry map[string][]uint32
}

// posMax is the largest position fpos records; later terms all get it.
const posMax = 127

// posStart is fpos's bit for a term that begins a name.
const posStart = 0x80

// posByte is the fpos byte of a term at position pos, starting a name or not.
func posByte(pos int, start bool) uint8 {
	b := uint8(min(pos, posMax))
	if start {
		b |= posStart
	}
	return b
}

// idfScale is idf's unit: 1/16, so that ln of up to e^15.9 ≈ 8 million cards fits.
const idfScale = 16

// setIDF computes idf, nameW and postPos. It returns errCorrupt when a term is among
// more cards' terms than it has postings (see check).
func (x *termIndex) setIDF() error {
	var err error
	if x.idf, err = x.alloc(x.terms()); err != nil {
		return err
	}
	n := float64(max(x.n, 1))
	for id := range x.idf {
		df := float64(max(x.docs(uint32(id)), 1))
		x.idf[id] = uint8(min(255, max(1, math.Round(math.Log(n/df)*idfScale))))
	}
	b, err := x.alloc(2 * x.n)
	if err != nil {
		return err
	}
	x.nameW = viewU16(b)
	for c := range x.nameW {
		w := 0
		for _, t := range x.fwd[x.fwdOff[c]:x.fwdOff[c+1]] {
			w += int(x.idf[t])
		}
		x.nameW[c] = uint16(min(w, 1<<16-1))
	}
	if x.postPos, err = x.alloc(len(x.post)); err != nil {
		return err
	}
	// Each term must occur in as many cards' terms as it has postings: check verified
	// len(post) == len(fwd), so no term overflowing its postings means every count is
	// right. A damaged file returns errCorrupt here rather than writing out of range.
	cursor := slices.Clone(x.postOff[:x.terms()])
	for c := range x.n {
		for k := x.fwdOff[c]; k < x.fwdOff[c+1]; k++ {
			t := x.fwd[k]
			if cursor[t] >= x.postOff[t+1] {
				return fmt.Errorf("term index: term %d in more cards than its postings: %w", t, errCorrupt)
			}
			x.postPos[cursor[t]] = x.fpos[k]
			cursor[t]++
		}
	}
	return nil
}

// nameKeyHash is the hash of a name's folded terms joined by spaces: the exact-name tier
// compares it.
func nameKeyHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// typoEligible reports whether a term can be a typo alternative: 4 to maxVocabLen
// runes and not a number.
func typoEligible(t string) bool {
	if len(t) < 4 || isDigits(t) {
		return false
	}
	n := utf8.RuneCountInString(t)
	return n >= 4 && n <= maxVocabLen
}

// setTypoLen computes typoLen.
func (x *termIndex) setTypoLen() error {
	var err error
	if x.typoLen, err = x.alloc(x.terms()); err != nil {
		return err
	}
	for id := range x.typoLen {
		if t := x.term(uint32(id)); typoEligible(t) {
			x.typoLen[id] = uint8(utf8.RuneCountInString(t))
		}
	}
	return nil
}

func (x *termIndex) terms() int { return len(x.dictOff) - 1 }

func (x *termIndex) term(id uint32) string { return x.dict[x.dictOff[id]:x.dictOff[id+1]] }

func (x *termIndex) docs(id uint32) int { return int(x.postOff[id+1] - x.postOff[id]) }

// lowerBound is the first term id whose term is ≥ t.
func (x *termIndex) lowerBound(t string) uint32 {
	lo, hi := 0, x.terms()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.term(uint32(m)) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return uint32(lo)
}

// lookup returns the id range [id, id+1) of t, or an empty range.
func (x *termIndex) lookup(t string) (lo, hi uint32) {
	id := x.lowerBound(t)
	if int(id) < x.terms() && x.term(id) == t {
		return id, id + 1
	}
	return id, id
}

// prefixRange returns the id range of the terms that start with p.
func (x *termIndex) prefixRange(p string) (lo, hi uint32) {
	lo = x.lowerBound(p)
	l, h := int(lo), x.terms()
	for l < h {
		m := int(uint(l+h) >> 1)
		if strings.HasPrefix(x.term(uint32(m)), p) {
			l = m + 1
		} else {
			h = m
		}
	}
	return lo, uint32(l)
}

// compareReversed compares a and b read from their last byte to their first.
func compareReversed(a, b string) int {
	i, j := len(a)-1, len(b)-1
	for i >= 0 && j >= 0 {
		if a[i] != b[j] {
			if a[i] < b[j] {
				return -1
			}
			return 1
		}
		i--
		j--
	}
	switch {
	case i < 0 && j < 0:
		return 0
	case i < 0:
		return -1
	}
	return 1
}

// suffixRange returns the range of rev whose terms end with s.
func (x *termIndex) suffixRange(s string) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(x.rev, s, func(id uint32, s string) int { return compareReversed(x.term(id), s) })
	l, h := lo, len(x.rev)
	for l < h {
		m := int(uint(l+h) >> 1)
		if strings.HasSuffix(x.term(x.rev[m]), s) {
			l = m + 1
		} else {
			h = m
		}
	}
	return lo, l
}

// setByCountry computes byCountry: the cards in import sequence order (the low 32 bits
// of their row ids), then, per country, the cards whose country set holds it. All
// lists share one backing array of one entry per card and country.
func (x *termIndex) setByCountry() error {
	// Country sets → distinct country numbers.
	ccNum := map[string]int{}
	var codes []string
	setCCs := make([][]int, len(x.csets))
	for i, set := range x.csets {
		for _, cc := range set {
			k, ok := ccNum[cc]
			if !ok {
				k = len(codes)
				ccNum[cc] = k
				codes = append(codes, cc)
			}
			if !slices.Contains(setCCs[i], k) {
				setCCs[i] = append(setCCs[i], k)
			}
		}
	}
	counts := make([]int, len(codes))
	total := 0
	for _, cs := range x.cset {
		for _, k := range setCCs[cs] {
			counts[k]++
			total++
		}
	}
	// seq<<32 | card, sorted: the cards in import order.
	bySeq := make([]uint64, len(x.rowid))
	for c, r := range x.rowid {
		bySeq[c] = uint64(uint32(r))<<32 | uint64(c)
	}
	slices.Sort(bySeq)
	bb, err := x.alloc(4 * total)
	if err != nil {
		return err
	}
	backing := viewU32(bb)
	lists := make([][]uint32, len(codes))
	off := 0
	for k, n := range counts {
		lists[k] = backing[off : off : off+n]
		off += n
	}
	for _, v := range bySeq {
		c := uint32(v)
		for _, k := range setCCs[x.cset[c]] {
			lists[k] = append(lists[k], c)
		}
	}
	x.byCountry = make(map[string][]uint32, len(codes))
	for k, cc := range codes {
		x.byCountry[cc] = lists[k]
	}
	return nil
}

// countryOK returns, per country set, whether it holds the folded country code cc.
func (x *termIndex) countryOK(cc string) []bool {
	ok := make([]bool, len(x.csets))
	for i, s := range x.csets {
		ok[i] = slices.Contains(s, cc)
	}
	return ok
}

// termBuilder collects the term index while cards are read: terms get provisional ids
// in first-seen order, and each card (by import sequence) its provisional term ids.
type termBuilder struct {
	ids   map[string]uint32
	terms []string

	tids  []uint32 // the cards' provisional term ids, card after card
	tpos  []uint8  // the position byte of each of tids
	toff  []uint32 // card seq-1 → start in tids; one more at the end
	rowid []int64  // card seq-1 → its row id
	cset  []uint32
	hash  []uint64

	csetIDs map[string]uint32
	csets   [][]string

	// The participant ids and additional identifiers live in arenas, not as strings,
	// so that the garbage collector has nothing to scan in them.
	pids   []arenaRef // card seq-1 → normalised participant id, in pidArena
	idents []identRef // every card's compacted additional identifiers, in identArena

	pidArena, identArena byteArena
}

// identRef is an additional identifier of the card with import sequence seq.
type identRef struct {
	key arenaRef
	seq uint32
}

// byteArena stores byte strings in chunks that are never moved or grown, so that
// holding millions of them costs a few bytes each beyond their bytes and no pointers.
type byteArena struct {
	chunks [][]byte
}

// arenaRef locates a string in a byteArena.
type arenaRef struct {
	chunk, off, n uint32
}

// arenaChunk is the size of a byteArena's chunks; a longer string gets its own chunk.
const arenaChunk = 1 << 20

// add stores s and returns where.
func (a *byteArena) add(s string) arenaRef {
	last := len(a.chunks) - 1
	if last < 0 || cap(a.chunks[last])-len(a.chunks[last]) < len(s) {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, len(s))))
		last++
	}
	c := a.chunks[last]
	r := arenaRef{chunk: uint32(last), off: uint32(len(c)), n: uint32(len(s))}
	a.chunks[last] = append(c, s...)
	return r
}

// get returns the bytes of r; they must not be changed.
func (a *byteArena) get(r arenaRef) []byte {
	return a.chunks[r.chunk][r.off : r.off+r.n : r.off+r.n]
}

// addIDs records the next card's participant id and additional identifiers.
func (tb *termBuilder) addIDs(pid string, idents []string) {
	tb.pids = append(tb.pids, tb.pidArena.add(pid))
	seq := uint32(len(tb.pids))
	for _, k := range idents {
		tb.idents = append(tb.idents, identRef{tb.identArena.add(k), seq})
	}
}

// byPID returns the import sequences of the cards in participant id order, of each
// participant only the card read last (winners), and the sequences of the others
// (losers), ascending.
func (tb *termBuilder) byPID() (winners, losers []uint32) {
	pid := func(seq uint32) []byte { return tb.pidArena.get(tb.pids[seq-1]) }
	keys := make([]sortKey, len(tb.pids))
	for i, r := range tb.pids {
		keys[i] = sortKey{keyPrefix(tb.pidArena.get(r)), uint32(i + 1)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := compareInts(a.prefix, b.prefix); c != 0 {
			return c
		}
		if c := bytes.Compare(pid(a.i), pid(b.i)); c != 0 {
			return c
		}
		return compareInts(b.i, a.i)
	})
	winners = make([]uint32, 0, len(keys))
	for j, k := range keys {
		if j > 0 && keys[j-1].prefix == k.prefix && bytes.Equal(pid(keys[j-1].i), pid(k.i)) {
			losers = append(losers, k.i)
			continue
		}
		winners = append(winners, k.i)
	}
	slices.Sort(losers)
	return winners, losers
}

// sortKey is what byte strings are sorted by: the first 8 bytes as a number, so that
// most comparisons need not look at the strings, and the string's index.
type sortKey struct {
	prefix uint64
	i      uint32
}

// keyPrefix is the first 8 bytes of b, padded with zeros, as a big-endian number: of
// two byte strings the smaller has the smaller or the same prefix.
func keyPrefix(b []byte) uint64 {
	var p [8]byte
	copy(p[:], b)
	return binary.BigEndian.Uint64(p[:])
}

// writeIDs fills the pid table with the cards winners (import sequences in participant
// id order, from byPID) and the ident table in key order, leaving out the cards in
// losers (by sequence).
func (tb *termBuilder) writeIDs(ctx context.Context, tx *sql.Tx, winners []uint32, losers map[int64]bool) error {
	m, err := newMultiInsert(ctx, tx, "INSERT INTO pid(pid, card) VALUES", 2)
	if err != nil {
		return err
	}
	defer m.close()
	for _, s := range winners {
		if err := m.add(ctx, string(tb.pidArena.get(tb.pids[s-1])), tb.rowid[s-1]); err != nil {
			return err
		}
	}
	if err := m.flush(ctx); err != nil {
		return err
	}
	tb.pids, tb.pidArena = nil, byteArena{}

	key := func(r identRef) []byte { return tb.identArena.get(r.key) }
	refs := slices.DeleteFunc(tb.idents, func(r identRef) bool { return losers[int64(r.seq)] })
	keys := make([]sortKey, len(refs))
	for i, r := range refs {
		keys[i] = sortKey{keyPrefix(key(r)), uint32(i)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := compareInts(a.prefix, b.prefix); c != 0 {
			return c
		}
		ra, rb := refs[a.i], refs[b.i]
		if c := bytes.Compare(key(ra), key(rb)); c != 0 {
			return c
		}
		return compareInts(tb.rowid[ra.seq-1], tb.rowid[rb.seq-1])
	})
	mi, err := newMultiInsert(ctx, tx, "INSERT INTO ident(key, card) VALUES", 2)
	if err != nil {
		return err
	}
	defer mi.close()
	for j, k := range keys {
		r := refs[k.i]
		if j > 0 {
			if p := refs[keys[j-1].i]; p.seq == r.seq && bytes.Equal(key(p), key(r)) {
				continue
			}
		}
		if err := mi.add(ctx, string(key(r)), tb.rowid[r.seq-1]); err != nil {
			return err
		}
	}
	tb.idents, tb.identArena = nil, byteArena{}
	return mi.flush(ctx)
}

// compareInts is cmp.Compare for integers (the package has its own cmp).
func compareInts[T uint32 | uint64 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func newTermBuilder() *termBuilder {
	return &termBuilder{ids: map[string]uint32{}, toff: []uint32{0}, csetIDs: map[string]uint32{"": 0}, csets: [][]string{nil}}
}

// add records the next card: its distinct folded name terms and their position bytes
// (see termIndex.fpos), folded country codes, row id and display name key.
func (tb *termBuilder) add(terms []string, tpos []uint8, ccs []string, rowid int64, nameKey string) {
	tb.tpos = append(tb.tpos, tpos...)
	for _, t := range terms {
		id, ok := tb.ids[t]
		if !ok {
			id = uint32(len(tb.terms))
			tb.ids[t] = id
			tb.terms = append(tb.terms, t)
		}
		tb.tids = append(tb.tids, id)
	}
	tb.toff = append(tb.toff, uint32(len(tb.tids)))
	key := strings.Join(ccs, " ")
	cs, ok := tb.csetIDs[key]
	if !ok {
		cs = uint32(len(tb.csets))
		tb.csetIDs[key] = cs
		tb.csets = append(tb.csets, slices.Clone(ccs))
	}
	tb.cset = append(tb.cset, cs)
	tb.rowid = append(tb.rowid, rowid)
	tb.hash = append(tb.hash, nameKeyHash(nameKey))
}

// build numbers the cards not in losers (by sequence) in row id order, the terms in
// lexicographic order, and builds the index with counting sorts.
func (tb *termBuilder) build(losers map[int64]bool) *termIndex {
	// Cards in row id order: row id = rank<<32 | seq, so a counting sort by rank over
	// the cards in sequence order.
	var byRank [maxRankLen + 2]uint32
	n := 0
	for s, r := range tb.rowid {
		if losers[int64(s+1)] {
			continue
		}
		byRank[r>>32+1]++
		n++
	}
	for i := 1; i < len(byRank); i++ {
		byRank[i] += byRank[i-1]
	}
	order := make([]uint32, n) // card number → seq-1
	for s, r := range tb.rowid {
		if losers[int64(s+1)] {
			continue
		}
		k := r >> 32
		order[byRank[k]] = uint32(s)
		byRank[k]++
	}

	// Doc frequencies by provisional id; terms of no remaining card are dropped.
	df := make([]uint32, len(tb.terms))
	for _, s := range order {
		for _, t := range tb.tids[tb.toff[s]:tb.toff[s+1]] {
			df[t]++
		}
	}
	sorted := make([]uint32, 0, len(tb.terms))
	for id := range tb.terms {
		if df[id] > 0 {
			sorted = append(sorted, uint32(id))
		}
	}
	slices.SortFunc(sorted, func(a, b uint32) int { return strings.Compare(tb.terms[a], tb.terms[b]) })
	newID := make([]uint32, len(tb.terms))
	x := &termIndex{n: n, dictOff: make([]uint32, len(sorted)+1), postOff: make([]uint32, len(sorted)+1)}
	var dict strings.Builder
	var total uint32
	for i, p := range sorted {
		newID[p] = uint32(i)
		dict.WriteString(tb.terms[p])
		x.dictOff[i+1] = uint32(dict.Len())
		total += df[p]
		x.postOff[i+1] = total
	}
	x.dict = dict.String()
	tb.ids, tb.terms = nil, nil

	x.fwdOff = make([]uint32, n+1)
	x.fwd = make([]uint32, 0, total)
	x.fpos = make([]uint8, 0, total)
	x.post = make([]uint32, total)
	cursor := slices.Clone(x.postOff[:len(sorted)])
	x.cset = make([]uint32, n)
	x.nameHash = make([]uint64, n)
	x.rowid = make([]int64, n)
	for c, s := range order {
		start := len(x.fwd)
		for j, t := range tb.tids[tb.toff[s]:tb.toff[s+1]] {
			id := newID[t]
			x.fwd = append(x.fwd, id)
			x.fpos = append(x.fpos, tb.tpos[int(tb.toff[s])+j])
			x.post[cursor[id]] = uint32(c)
			cursor[id]++
		}
		sortTerms(x.fwd[start:], x.fpos[start:])
		x.fwdOff[c+1] = uint32(len(x.fwd))
		x.cset[c] = tb.cset[s]
		x.nameHash[c] = tb.hash[s]
		x.rowid[c] = tb.rowid[s]
	}
	x.csets = tb.csets
	tb.tids, tb.toff, tb.tpos = nil, nil, nil

	for id := range x.terms() {
		if typoEligible(x.term(uint32(id))) {
			x.rev = append(x.rev, uint32(id))
		}
	}
	slices.SortFunc(x.rev, func(a, b uint32) int { return compareReversed(x.term(a), x.term(b)) })
	return x
}

// sortTerms sorts a card's term ids ascending, and their position bytes with them (an
// insertion sort: a card has few terms).
func sortTerms(ids []uint32, pos []uint8) {
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
			pos[j], pos[j-1] = pos[j-1], pos[j]
		}
	}
}

// The term index is stored in the table tindex(id, name, data): each array as
// little-endian chunks of at most blobChunk bytes, in id order.
const blobChunk = 16 << 20

// termIndexArrays names the arrays of x, in storage order.
func (x *termIndex) arrays() []struct {
	name string
	u32  *[]uint32
	u64  *[]uint64
	i64  *[]int64
	u8   *[]uint8
} {
	type arr = struct {
		name string
		u32  *[]uint32
		u64  *[]uint64
		i64  *[]int64
		u8   *[]uint8
	}
	return []arr{
		{name: "dict_off", u32: &x.dictOff},
		{name: "rev", u32: &x.rev},
		{name: "post_off", u32: &x.postOff},
		{name: "post", u32: &x.post},
		{name: "fwd_off", u32: &x.fwdOff},
		{name: "fwd", u32: &x.fwd},
		{name: "fwd_pos", u8: &x.fpos},
		{name: "cset", u32: &x.cset},
		{name: "name_hash", u64: &x.nameHash},
		{name: "rowid", i64: &x.rowid},
	}
}

// write stores x in the tindex table through tx.
func (x *termIndex) write(ctx context.Context, tx *sql.Tx) error {
	ins, err := tx.PrepareContext(ctx, "INSERT INTO tindex(name, data) VALUES(?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	put := func(name string, b []byte) error {
		for first := true; first || len(b) > 0; first = false {
			n := min(len(b), blobChunk)
			if _, err := ins.ExecContext(ctx, name, b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		return nil
	}
	if err := put("dict", []byte(x.dict)); err != nil {
		return err
	}
	var sets []string
	for _, s := range x.csets {
		sets = append(sets, strings.Join(s, " "))
	}
	if err := put("csets", []byte(strings.Join(sets, "\n"))); err != nil {
		return err
	}
	buf := make([]byte, 0, blobChunk)
	for _, a := range x.arrays() {
		buf = buf[:0]
		flush := func(force bool) error {
			if len(buf) >= blobChunk || force {
				if err := put(a.name, buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
			return nil
		}
		switch {
		case a.u32 != nil:
			for i, v := range *a.u32 {
				buf = binary.LittleEndian.AppendUint32(buf, v)
				if i%4096 == 4095 {
					if err := flush(false); err != nil {
						return err
					}
				}
			}
		case a.u8 != nil:
			b := *a.u8
			for len(b) > 0 {
				n := min(len(b), blobChunk-len(buf))
				buf = append(buf, b[:n]...)
				b = b[n:]
				if err := flush(false); err != nil {
					return err
				}
			}
		case a.u64 != nil:
			for i, v := range *a.u64 {
				buf = binary.LittleEndian.AppendUint64(buf, v)
				if i%4096 == 4095 {
					if err := flush(false); err != nil {
						return err
					}
				}
			}
		default:
			for i, v := range *a.i64 {
				buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
				if i%4096 == 4095 {
					if err := flush(false); err != nil {
						return err
					}
				}
			}
		}
		if err := flush(true); err != nil {
			return err
		}
	}
	return nil
}

// readTermIndex loads the term index of an index file with cards cards. Its arrays
// live outside the Go heap (see offHeapAlloc) until free is called. It returns
// errCorrupt when the arrays do not fit together.
func readTermIndex(ctx context.Context, db *sql.DB, cards int) (_ *termIndex, err error) {
	x := &termIndex{n: cards}
	defer func() {
		if err != nil {
			x.free()
		}
	}()
	// Each array's size first, so that it is allocated once, at its size.
	sizes := map[string]int{}
	// (length of a blob is read from the record header, without the blob.)
	srows, err := db.QueryContext(ctx, "SELECT name, length(data) FROM tindex")
	if err != nil {
		return nil, err
	}
	for srows.Next() {
		var name string
		var n int
		if err := srows.Scan(&name, &n); err != nil {
			srows.Close()
			return nil, err
		}
		sizes[name] += n
	}
	srows.Close()
	if err := srows.Err(); err != nil {
		return nil, err
	}
	arrs := x.arrays()
	bufs := map[string][]byte{}
	for name, n := range sizes {
		known := name == "dict" || name == "csets"
		for _, a := range arrs {
			known = known || a.name == name
		}
		if !known {
			return nil, errCorrupt
		}
		if name == "csets" {
			continue // small, and parsed into strings
		}
		if bufs[name], err = x.alloc(n); err != nil {
			return nil, err
		}
	}

	rows, err := db.QueryContext(ctx, "SELECT name, data FROM tindex ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var csets []byte
	filled := map[string]int{}
	for rows.Next() {
		var name string
		var b sql.RawBytes
		if err := rows.Scan(&name, &b); err != nil {
			return nil, err
		}
		if name == "csets" {
			csets = append(csets, b...)
			continue
		}
		buf, ok := bufs[name]
		if !ok || filled[name]+len(b) > len(buf) {
			return nil, errCorrupt
		}
		filled[name] += copy(buf[filled[name]:], b)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	x.dict = unsafe.String(unsafe.SliceData(bufs["dict"]), len(bufs["dict"]))
	for _, a := range arrs {
		b := bufs[a.name]
		switch {
		case a.u32 != nil:
			if len(b)%4 != 0 {
				return nil, errCorrupt
			}
			v := viewU32(b)
			for i := range v {
				v[i] = binary.LittleEndian.Uint32(b[4*i:])
			}
			*a.u32 = v
		case a.u64 != nil:
			if len(b)%8 != 0 {
				return nil, errCorrupt
			}
			v := viewU64(b)
			for i := range v {
				v[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
			*a.u64 = v
		case a.u8 != nil:
			*a.u8 = b
		default:
			if len(b)%8 != 0 {
				return nil, errCorrupt
			}
			v := viewU64(b)
			for i := range v {
				v[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
			*a.i64 = viewI64(b)
		}
	}
	for s := range strings.SplitSeq(string(csets), "\n") {
		x.csets = append(x.csets, strings.Fields(s))
	}
	if err := x.check(); err != nil {
		return nil, err
	}
	if err := x.setTypoLen(); err != nil {
		return nil, err
	}
	if err := x.setIDF(); err != nil {
		return nil, err
	}
	if err := x.setByCountry(); err != nil {
		return nil, err
	}
	return x, nil
}

// alloc returns n bytes outside the Go heap that free releases.
func (x *termIndex) alloc(n int) ([]byte, error) {
	b, err := offHeapAlloc(n)
	if err != nil {
		return nil, fmt.Errorf("term index: allocating %d bytes: %w", n, err)
	}
	if len(b) > 0 {
		x.mem = append(x.mem, b)
	}
	return b, nil
}

// free releases the memory of a term index from readTermIndex; x must not be used
// afterwards.
func (x *termIndex) free() {
	if x == nil {
		return
	}
	for _, b := range x.mem {
		offHeapFree(b) // only fails for memory that was not mapped
	}
	x.mem = nil
}

// viewU32, viewU16, viewU64 and viewI64 are b's bytes as numbers, in place (b's start must be
// aligned: offHeapAlloc's memory is page-aligned).
func viewU32(b []byte) []uint32 {
	if len(b) < 4 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

func viewU16(b []byte) []uint16 {
	if len(b) < 2 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}

func viewU64(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

func viewI64(b []byte) []int64 {
	if len(b) < 8 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}

// check verifies that the arrays fit together, so that searches cannot index out of
// range.
func (x *termIndex) check() error {
	nt := len(x.dictOff) - 1
	bad := nt < 0 || len(x.dict) > 1<<32-1 || len(x.postOff) != nt+1 || len(x.fwdOff) != x.n+1 || len(x.cset) != x.n ||
		len(x.nameHash) != x.n || len(x.rowid) != x.n || len(x.csets) == 0 || len(x.fpos) != len(x.fwd) ||
		len(x.post) != len(x.fwd) // every (term, card) pair once each way; setIDF checks per term
	if !bad {
		bad = !offsetsOK(x.dictOff, len(x.dict)) || !offsetsOK(x.postOff, len(x.post)) || !offsetsOK(x.fwdOff, len(x.fwd))
	}
	if !bad {
		for _, v := range x.rev {
			bad = bad || int(v) >= nt
		}
		for _, v := range x.post {
			bad = bad || int(v) >= x.n
		}
		for _, v := range x.fwd {
			bad = bad || int(v) >= nt
		}
		for _, v := range x.cset {
			bad = bad || int(v) >= len(x.csets)
		}
	}
	if bad {
		return fmt.Errorf("term index: %w", errCorrupt)
	}
	return nil
}

// offsetsOK reports whether off starts at 0, never decreases and ends at n.
func offsetsOK(off []uint32, n int) bool {
	if len(off) == 0 || off[0] != 0 || int(off[len(off)-1]) != n {
		return false
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return false
		}
	}
	return true
}

// nameLenRange returns the cards [lo, hi) whose display name's folded terms joined by
// spaces have n runes (n at most maxRankLen): cards are numbered by that length (their
// row ids' high half, see build).
func (x *termIndex) nameLenRange(n int) (lo, hi uint32) {
	l, _ := slices.BinarySearch(x.rowid, int64(n)<<32)
	h, _ := slices.BinarySearch(x.rowid, int64(n+1)<<32)
	return uint32(l), uint32(h)
}
