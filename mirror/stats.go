package mirror

import (
	cmpx "cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
)

// statsCall is the one computation of an Index's statistics: done is closed when st or
// err is set.
type statsCall struct {
	done chan struct{}
	st   *registry.Stats
	err  error
}

// Stats returns the counts over every card of the index (see registry.Stats). They are
// computed once per Index, in one pass over the card table (the file never changes:
// a sync builds a new one), the first caller computing while the others wait; a failed
// computation is not kept. The result is shared: callers must not change it. Errors
// are ctx's (a caller that stops waiting; the computation goes on for the next) and
// those of reading the file, or errCorrupt.
func (ix *Index) Stats(ctx context.Context) (*registry.Stats, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mirror: stats: %w", err)
	}
	ix.statsMu.Lock()
	c := ix.stats
	first := c == nil
	if first {
		c = &statsCall{done: make(chan struct{})}
		ix.stats = c
	}
	ix.statsMu.Unlock()
	if first {
		c.st, c.err = ix.computeStats(context.WithoutCancel(ctx))
		if c.err != nil {
			ix.statsMu.Lock()
			ix.stats = nil // the next caller tries again
			ix.statsMu.Unlock()
		}
		close(c.done)
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("mirror: stats: %w", ctx.Err())
	}
	if c.err != nil {
		return nil, fmt.Errorf("mirror: stats: %w", c.err)
	}
	return c.st, nil
}

// maxKinds is how many document kinds a card's bit set holds; the code list has about
// a dozen categories.
const maxKinds = 64

// computeStats reads every card's first country, registration date and document types.
func (ix *Index) computeStats(ctx context.Context) (*registry.Stats, error) {
	// The kind of every document type of the index, as a bit of a card's set.
	kinds := []string{}
	kindOf := make([]uint64, len(ix.docTypes)+1) // by doctype table id
	for i, d := range ix.docTypes {
		k := registry.KindOther
		if dt, ok := codelist.LookupDocumentType(d.Scheme, d.Value); ok && dt.Category != "" {
			k = dt.Category
		}
		j := slices.Index(kinds, k)
		if j < 0 {
			if len(kinds) == maxKinds {
				j = slices.Index(kinds, registry.KindOther)
				if j < 0 {
					kinds[maxKinds-1] = registry.KindOther
					j = maxKinds - 1
				}
			} else {
				kinds = append(kinds, k)
				j = len(kinds) - 1
			}
		}
		kindOf[i+1] = 1 << j
	}

	asOf := ix.meta.DataAsOf.UTC()
	last := asOf.Year()*12 + int(asOf.Month()) - 1 // months since year 0
	first := last - registry.StatsMonths + 1
	months := make([]int, registry.StatsMonths)
	byKind := make([]int, len(kinds))
	var st registry.Stats

	rows, err := ix.db.QueryContext(ctx, "SELECT ccs, data FROM card")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ccs, blob []byte
	var ids []int
	ccIndex := map[string]int{} // country code → index in ccCounts
	var ccNames []string
	var ccCounts []int
	for rows.Next() {
		// The driver hands over copies; scanning into the same slices reuses them.
		if err := rows.Scan(&ccs, &blob); err != nil {
			return nil, err
		}
		st.Participants++
		cc := ccs
		if i := slices.Index(cc, ' '); i >= 0 {
			cc = cc[:i]
		}
		if string(cc) == "UK" { // the export writes UK for most British cards; ISO 3166 says GB
			cc[0], cc[1] = 'G', 'B' // ccs is the scan's own copy
		}
		if len(cc) == 0 {
			st.WithoutCountry++
		} else {
			i, seen := ccIndex[string(cc)] // a lookup with string(bytes) does not allocate
			if !seen {
				i = len(ccNames)
				ccIndex[string(cc)] = i
				ccNames = append(ccNames, string(cc))
				ccCounts = append(ccCounts, 0)
			}
			ccCounts[i]++
		}
		var reg []byte
		var ok bool
		reg, ids, ok = scanRecord(blob, ids)
		if !ok {
			return nil, errCorrupt
		}
		switch m, ok := month(reg); {
		case !ok || m > last:
			st.WithoutRegistrationDate++
		case m < first:
			st.RegisteredEarlier++
		default:
			months[m-first]++
		}
		var set uint64
		for _, id := range ids {
			if id < 1 || id >= len(kindOf) {
				return nil, errCorrupt
			}
			set |= kindOf[id]
		}
		if len(ids) == 0 {
			st.WithoutDocumentTypes++
		}
		for set != 0 {
			j := bits.TrailingZeros64(set)
			byKind[j]++
			set &^= 1 << j
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}

	st.Source = registry.SourceMirror
	st.DataAsOf = ix.meta.DataAsOf
	all := make([]registry.CountryCount, len(ccNames))
	for i, c := range ccNames {
		all[i] = registry.CountryCount{Country: c, Count: ccCounts[i]}
	}
	slices.SortFunc(all, func(a, b registry.CountryCount) int {
		return cmpx.Or(cmpx.Compare(b.Count, a.Count), strings.Compare(a.Country, b.Country))
	})
	st.Countries = []registry.CountryCount{}
	for i, c := range all {
		if i < registry.StatsTopCountries {
			st.Countries = append(st.Countries, c)
		} else {
			st.OtherCountries += c.Count
		}
	}
	st.DocumentKinds = []registry.KindCount{}
	for j, k := range kinds {
		if byKind[j] > 0 {
			st.DocumentKinds = append(st.DocumentKinds, registry.KindCount{Kind: k, Count: byKind[j]})
		}
	}
	slices.SortFunc(st.DocumentKinds, func(a, b registry.KindCount) int {
		return cmpx.Or(cmpx.Compare(b.Count, a.Count), strings.Compare(a.Kind, b.Kind))
	})
	st.Registrations = make([]registry.MonthCount, registry.StatsMonths)
	for i, n := range months {
		m := first + i
		st.Registrations[i] = registry.MonthCount{Month: fmt.Sprintf("%04d-%02d", m/12, m%12+1), Count: n}
	}
	return &st, nil
}

// month returns the month of a registration date "YYYY-MM-DD" (or "YYYY-MM…") as
// months since year 0; false when it does not start with a year and a month.
func month(d []byte) (int, bool) {
	if len(d) < 7 || d[4] != '-' {
		return 0, false
	}
	y, ok := digits(d[:4])
	if !ok {
		return 0, false
	}
	m, ok := digits(d[5:7])
	if !ok || m < 1 || m > 12 || (len(d) > 7 && d[7] != '-') {
		return 0, false
	}
	return y*12 + m - 1, true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// scanRecord reads from a record blob (index_codec.go) the first entity's
// registration date and the document type ids, appended to ids[:0], without building
// the record. ok is false for a blob it cannot read.
func scanRecord(blob []byte, ids []int) (regDate []byte, _ []int, ok bool) {
	d := decoder{b: blob}
	skip := func() {
		n := d.uint()
		if n > len(d.b) {
			d.err, d.b = true, nil
			return
		}
		d.b = d.b[n:]
	}
	if d.uint() != recordVersion {
		return nil, ids, false
	}
	ne := d.count()
	for i := 0; i < ne && !d.err; i++ {
		nn := d.count()
		for j := 0; j < nn && !d.err; j++ {
			skip() // name
			skip() // language
		}
		skip() // country code
		skip() // geo info
		ni := d.count()
		for j := 0; j < ni && !d.err; j++ {
			skip()
			skip()
		}
		nw := d.count()
		for j := 0; j < nw && !d.err; j++ {
			skip()
		}
		skip() // additional info
		n := d.uint()
		if n > len(d.b) {
			return nil, ids, false
		}
		if i == 0 {
			regDate = d.b[:n]
		}
		d.b = d.b[n:]
	}
	nd := d.count()
	ids = ids[:0]
	for range nd {
		ids = append(ids, d.uint())
	}
	if d.err || len(d.b) != 0 {
		return nil, ids, false
	}
	return regDate, ids, true
}

// Stats returns the counts over the current index's cards (see Index.Stats), computed
// once per index file. It returns registry.ErrMirrorUnavailable when there is no
// index, and the errors of Index.Stats.
func (s *Store) Stats(ctx context.Context) (*registry.Stats, error) {
	h := s.acquire()
	if h == nil {
		return nil, registry.ErrMirrorUnavailable
	}
	defer s.release(h)
	return h.ix.Stats(ctx)
}
