package mirror

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Search semantics (Index.Search):
//
//   - The query is cut into folded terms (see terms): case, diacritics and the letters
//     ø æ ß ł đ þ œ do not matter; punctuation and FTS5 syntax separate terms.
//   - A card matches by name when every term is a term of one of its names (of any
//     entity); the last term also matches as a prefix when it has 2 runes or more.
//   - Typos: a term of 5+ runes (not a number) also matches vocabulary terms one edit
//     away (insertion, deletion, substitution, transposition), from 9 runes two edits
//     away when both fall in the same half of the word. At most maxFuzzy alternatives
//     per term, the closest and most frequent first. The last term's prefix matches
//     count as exact, not as typos.
//   - A last term of one rune matches exactly. Terms longer than maxVocabLen runes are
//     found by exact match only.
//   - Ids: the query as a participant id in any notation ("0208:0677424046",
//     "iso6523-actorid-upis::0208:0677424046") and the ids peppol.Candidates derives
//     from a VAT or registration number; and the cards whose additional identifiers
//     equal the query (or a candidate's value) with punctuation and spaces removed.
//   - country keeps the cards with an entity in that country (one term of the query is
//     searched as its per-country token, e.g. "bygg_no").
//   - Tiers, in this order: exact id, exact name (the display name's terms are the query's),
//     all terms exact or prefix, typo. Within a tier cards come in rowid order: shorter
//     display names first, then import order. Each card appears once, in its best tier.
//   - TotalCount is the number of distinct cards in all tiers (at most maxIDHits from
//     ids).

// maxFuzzy is the most typo alternatives one query term gets.
const maxFuzzy = 12

// maxIDHits bounds the cards one identifier query returns.
const maxIDHits = 1000

// maxTerms bounds the terms of a query that are searched; further terms are ignored.
const maxTerms = 16

// Search answers a search: at most limit hits and the exact number of matches (see the
// rules above). It returns errors of reading the file or ctx's.
func (ix *Index) Search(ctx context.Context, text, country string, limit int) (*registry.SearchResult, error) {
	res, err := ix.search(ctx, text, country, limit)
	if err != nil {
		return nil, fmt.Errorf("mirror: search %q: %w", text, err)
	}
	return res, nil
}

func (ix *Index) search(ctx context.Context, text, country string, limit int) (*registry.SearchResult, error) {
	res := &registry.SearchResult{Query: text, Results: []registry.SearchHit{}}
	limit = max(limit, 0)
	cc := compactKey(country)
	seen := map[int64]bool{}
	var order []int64

	// Tier 0: identifiers.
	idHits, err := ix.idMatches(ctx, text, country)
	if err != nil {
		return nil, err
	}
	for _, id := range idHits {
		if !seen[id] {
			seen[id] = true
			order = append(order, id)
		}
	}
	ts := terms(text)
	if len(ts) > maxTerms {
		ts = ts[:maxTerms]
	}
	total := 0
	if len(ts) > 0 {
		exact, full, err := ix.expressions(ctx, ts, cc)
		if err != nil {
			return nil, err
		}
		// Tier 1: exact name.
		nameHits, err := ix.exactName(ctx, ts, exact)
		if err != nil {
			return nil, err
		}
		for _, id := range nameHits {
			if !seen[id] {
				seen[id] = true
				order = append(order, id)
			}
		}
		// Tier 2 and 3: the FTS matches in rowid order, enough of them to fill the page
		// after the ones already taken.
		want := limit + len(order)
		tier2, more2, err := ix.ftsIDs(ctx, exact, want)
		if err != nil {
			return nil, err
		}
		var tier3 []int64
		more3 := false
		if full != exact {
			if tier3, more3, err = ix.ftsIDs(ctx, "("+full+") NOT ("+exact+")", want); err != nil {
				return nil, err
			}
		}
		for _, id := range slices.Concat(tier2, tier3) {
			if !seen[id] {
				seen[id] = true
				order = append(order, id)
			}
		}
		if more2 || more3 {
			if total, err = ix.count(ctx, full); err != nil {
				return nil, err
			}
		} else {
			total = len(tier2) + len(tier3)
		}
		// Id and exact-name hits outside the FTS matches count on top. Exact-name hits
		// are always FTS matches (same terms); id hits usually are not.
		if len(idHits) > 0 {
			inFTS, err := ix.ftsMembers(ctx, full, idHits)
			if err != nil {
				return nil, err
			}
			total += len(idHits) - inFTS
		}
	} else {
		total = len(idHits)
	}
	res.TotalCount = total
	if len(order) > limit {
		order = order[:limit]
	}
	hits, err := ix.hits(ctx, order)
	if err != nil {
		return nil, err
	}
	res.Results = hits
	return res, nil
}

// maxExactName bounds the cards read to find the exact-name matches.
const maxExactName = 200

// exactName returns the cards whose display name, folded, is the query's terms ts. They
// match the exact expression and their rowids carry the name's length in the high bits,
// so only the matches in that rowid range need to be read.
func (ix *Index) exactName(ctx context.Context, ts []string, exact string) ([]int64, error) {
	q := strings.Join(ts, " ")
	n := utf8.RuneCountInString(q)
	if n >= maxRankLen {
		return nil, nil
	}
	lo := int64(n) << 32
	rows, err := ix.db.QueryContext(ctx, "SELECT c.id, c.name FROM fts JOIN card c ON c.id = fts.rowid WHERE fts MATCH ? AND fts.rowid BETWEEN ? AND ? ORDER BY fts.rowid LIMIT ?",
		exact, lo, lo|0xffffffff, maxExactName)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if strings.Join(terms(name), " ") == q {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// idMatches returns the cards the query names by identifier, best first: the participant
// ids it may be, then the cards with an additional identifier equal to it, each in
// country when country is set.
func (ix *Index) idMatches(ctx context.Context, text, country string) ([]int64, error) {
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
	var out []int64
	for _, p := range pids {
		var id int64
		err := ix.pidLookup.QueryRowContext(ctx, p).Scan(&id)
		if err == nil {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
			continue
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	for _, k := range keys {
		rows, err := ix.identLook.QueryContext(ctx, k, maxIDHits)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			if !slices.Contains(out, id) && len(out) < maxIDHits {
				out = append(out, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if country != "" && len(out) > 0 {
		return ix.inCountry(ctx, out, country)
	}
	return out, nil
}

// inCountry keeps the cards of ids with an entity in country, in order.
func (ix *Index) inCountry(ctx context.Context, ids []int64, country string) ([]int64, error) {
	rows, err := ix.db.QueryContext(ctx, "SELECT id, ccs FROM card WHERE id IN ("+placeholders(ids)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ok := map[int64]bool{}
	for rows.Next() {
		var id int64
		var ccs string
		if err := rows.Scan(&id, &ccs); err != nil {
			return nil, err
		}
		if slices.Contains(strings.Fields(ccs), country) {
			ok[id] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ids, func(id int64) bool { return !ok[id] }), nil
}

// placeholders returns the integer list of ids for an IN clause; they are numbers, so
// writing them into the statement is safe.
func placeholders(ids []int64) string {
	b := make([]byte, 0, len(ids)*12)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(b)
}

// quoteTerm is t as an FTS5 string. Terms hold only letters and digits, but quoting
// keeps words such as AND, OR, NOT and NEAR from being operators.
func quoteTerm(t string) string { return `"` + strings.ReplaceAll(t, `"`, `""`) + `"` }

// termGroup is what one query term matches: any of the terms exact (the term itself, or
// for the last term the vocabulary terms it is a prefix of), or FTS5's prefix query of
// native, and, only in the full expression, any of fuzzy.
type termGroup struct {
	exact  []string
	native string
	fuzzy  []string
}

// render writes the group as an FTS5 expression; with a country code cc the terms are
// the per-country tokens (term_cc) so that no separate country term is needed. It
// reports whether it used cc: a native prefix query cannot.
func (g termGroup) render(b *strings.Builder, withFuzzy bool, cc string) bool {
	if g.native != "" {
		b.WriteString(quoteTerm(g.native) + "*")
		return false
	}
	alts := g.exact
	if withFuzzy {
		alts = slices.Concat(g.exact, g.fuzzy)
	}
	if len(alts) > 1 {
		b.WriteString("(")
	}
	for i, a := range alts {
		if i > 0 {
			b.WriteString(" OR ")
		}
		if cc != "" {
			a += "_" + cc
		}
		b.WriteString(quoteTerm(a))
	}
	if len(alts) > 1 {
		b.WriteString(")")
	}
	return cc != ""
}

// expressions returns the FTS5 queries of the terms: exact (every term, the last one as
// a prefix) and full (each term or one of its typo alternatives); full == exact when no
// term has alternatives. cc is the folded country code or "".
func (ix *Index) expressions(ctx context.Context, ts []string, cc string) (exact, full string, err error) {
	groups := make([]termGroup, len(ts))
	fuzzyAny := false
	for i, t := range ts {
		last := i == len(ts)-1
		g := &groups[i]
		if last && utf8.RuneCountInString(t) >= 2 {
			if g.exact, g.native, err = ix.prefixTerms(ctx, t); err != nil {
				return "", "", err
			}
		} else {
			g.exact = []string{t}
		}
		if g.fuzzy, err = ix.typos(ctx, t, last); err != nil {
			return "", "", err
		}
		fuzzyAny = fuzzyAny || len(g.fuzzy) > 0
	}
	render := func(withFuzzy bool) string {
		var b strings.Builder
		usedCC := false
		for i, g := range groups {
			if i > 0 {
				b.WriteString(" AND ")
			}
			c := cc
			if usedCC {
				c = "" // one term carrying the country is enough
			}
			usedCC = g.render(&b, withFuzzy, c) || usedCC
		}
		if cc != "" && !usedCC {
			b.WriteString(" AND " + quoteTerm("_"+cc))
		}
		return b.String()
	}
	exact = render(false)
	if !fuzzyAny {
		return exact, exact, nil
	}
	return exact, render(true), nil
}

// maxPrefixTerms is the most vocabulary terms a prefix is expanded to; a prefix of
// more is left to FTS5.
const maxPrefixTerms = 128

// prefixTerms returns the terms that t is a prefix of, or native = t when FTS5's own
// prefix query is to be used. FTS5 answers a prefix query by merging every matching
// term's doclist in full before anything else, which costs ~1 ms per 1000 matching
// cards even when another term is rare; an OR of the same terms is evaluated lazily.
// So a prefix of 4+ runes (not a number), whose terms are all in the vocabulary,
// becomes an OR of at most maxPrefixTerms terms; prefixes of 2 and 3 runes use FTS5's
// prefix indexes.
func (ix *Index) prefixTerms(ctx context.Context, t string) (terms []string, native string, err error) {
	n := utf8.RuneCountInString(t)
	if n < 4 || isDigits(t) || n > maxVocabLen {
		return nil, t, nil
	}
	lens := make([]byte, 0, 4*(maxVocabLen-n+1))
	for l := n; l <= maxVocabLen; l++ {
		if l > n {
			lens = append(lens, ',')
		}
		lens = strconv.AppendInt(lens, int64(l), 10)
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT t FROM vocab WHERE len IN ("+string(lens)+") AND t >= ? AND t < ? LIMIT ?", t, t+"\xff", maxPrefixTerms+1)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			return nil, "", err
		}
		terms = append(terms, a)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	switch {
	case len(terms) > maxPrefixTerms:
		return nil, t, nil
	case len(terms) == 0:
		return []string{t}, "", nil // matches nothing: t would be in the vocabulary
	}
	return terms, "", nil
}

// typos returns up to maxFuzzy vocabulary terms within maxEdits of t, most frequent
// first; for the last term (a prefix) not those that t is a prefix of.
//
// A term within one edit of t keeps t's first n/2 runes as its prefix or t's last
// n-n/2-1 runes as its suffix, whichever half the edit is not in, and its length is
// within one of t's: so the candidates are found by two range scans of the (len, term)
// and (len, reversed term) indexes, and verified.
func (ix *Index) typos(ctx context.Context, t string, last bool) ([]string, error) {
	r := []rune(t)
	n := len(r)
	k := maxEdits(t, n)
	if k == 0 {
		return nil, nil
	}
	a := n / 2
	prefix := string(r[:a])
	suffix := reverse(string(r[a+1:]))
	lens := make([]string, 0, 2*k+1)
	for l := n - k; l <= n+k; l++ {
		lens = append(lens, strconv.Itoa(l))
	}
	in := strings.Join(lens, ",")
	type cand struct {
		t    string
		d    int
		docs int
	}
	var cands []cand
	consider := func(s string, docs int) {
		if s == t || (last && strings.HasPrefix(s, t)) {
			return
		}
		for _, c := range cands {
			if c.t == s {
				return
			}
		}
		if d := editDistance(r, []rune(s), k); d <= k {
			cands = append(cands, cand{s, d, docs})
		}
	}
	scan := func(q, from string, reversed bool) error {
		rows, err := ix.db.QueryContext(ctx, q, from, from+"\xff")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			var docs int
			if err := rows.Scan(&s, &docs); err != nil {
				return err
			}
			if reversed {
				s = reverse(s)
			}
			consider(s, docs)
		}
		return rows.Err()
	}
	if err := scan("SELECT t, docs FROM vocab WHERE len IN ("+in+") AND t >= ? AND t < ?", prefix, false); err != nil {
		return nil, err
	}
	if err := scan("SELECT r, docs FROM vocab_rev WHERE len IN ("+in+") AND r >= ? AND r < ?", suffix, true); err != nil {
		return nil, err
	}
	slices.SortFunc(cands, func(x, y cand) int {
		if x.d != y.d {
			return x.d - y.d
		}
		if x.docs != y.docs {
			return y.docs - x.docs
		}
		return strings.Compare(x.t, y.t)
	})
	out := make([]string, 0, min(len(cands), maxFuzzy))
	for _, c := range cands[:min(len(cands), maxFuzzy)] {
		out = append(out, c.t)
	}
	return out, nil
}

// count returns the number of cards matching expr. Counting a query that matches
// 100,000 cards reads all their postings (~15 ms per 100,000); the index never changes,
// so the counts of the last countCacheSize such queries are kept.
func (ix *Index) count(ctx context.Context, expr string) (int, error) {
	if n, ok := ix.counts.get(expr); ok {
		return n, nil
	}
	var n int
	if err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ?", expr).Scan(&n); err != nil {
		return 0, err
	}
	if n >= countCacheMin {
		ix.counts.put(expr, n)
	}
	return n, nil
}

// countCacheSize is how many counts an Index keeps; countCacheMin the least count
// worth keeping.
const (
	countCacheSize = 4096
	countCacheMin  = 5000
)

// countCache is a fixed-size map of counts, evicting the oldest entry.
type countCache struct {
	mu    sync.Mutex
	m     map[string]int
	order []string // ring of keys, oldest at next
	next  int
}

func (c *countCache) get(k string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[k]
	return n, ok
}

func (c *countCache) put(k string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]int, countCacheSize)
		c.order = make([]string, countCacheSize)
	}
	if _, ok := c.m[k]; ok {
		return
	}
	if old := c.order[c.next]; old != "" {
		delete(c.m, old)
	}
	c.order[c.next] = k
	c.next = (c.next + 1) % countCacheSize
	c.m[k] = n
}

// ftsIDs returns up to want rowids matching expr in rowid order, and whether there are
// more.
func (ix *Index) ftsIDs(ctx context.Context, expr string, want int) ([]int64, bool, error) {
	rows, err := ix.db.QueryContext(ctx, "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid LIMIT ?", expr, want+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, false, err
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	if len(out) > want {
		return out[:want], true, nil
	}
	return out, false, nil
}

// ftsMembers counts the ids that match expr.
func (ix *Index) ftsMembers(ctx context.Context, expr string, ids []int64) (int, error) {
	var n int
	err := ix.db.QueryRowContext(ctx, "SELECT count(*) FROM fts WHERE fts MATCH ? AND rowid IN ("+placeholders(ids)+")", expr).Scan(&n)
	return n, err
}

// hits reads the hits of ids, in order.
func (ix *Index) hits(ctx context.Context, ids []int64) ([]registry.SearchHit, error) {
	out := make([]registry.SearchHit, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT id, pid, name, ccs FROM card WHERE id IN ("+placeholders(ids)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[int64]registry.SearchHit, len(ids))
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
	for _, id := range ids {
		if h, ok := byID[id]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}
