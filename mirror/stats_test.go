package mirror

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
)

const (
	invoiceDoc = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	creditDoc  = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
)

// statsCard is a card with a registration date and document types.
func statsCard(pid, cc, reg string, docs ...string) *export.Card {
	c := card(pid, "Company "+pid, cc)
	c.Entities[0].RegDate = reg
	for _, d := range docs {
		c.DocTypes = append(c.DocTypes, export.DocType{Scheme: "busdox-docid-qns", Value: d})
	}
	return c
}

// TestIndexStats: counts by first country (UK as GB), by document kind (each kind once
// per card, unknown types as Other), by month of registration (older, future and
// malformed dates apart), of the last card of a participant only.
func TestIndexStats(t *testing.T) {
	t.Parallel()
	for _, d := range []string{invoiceDoc, creditDoc} {
		if _, ok := codelist.LookupDocumentType("busdox-docid-qns", d); !ok {
			t.Fatalf("the code list lacks %s", d)
		}
	}
	two := statsCard("0208:0000000002", "NL", "2026-09-01", invoiceDoc)
	two.Entities = append(two.Entities, export.Entity{Names: []export.Name{{Name: "Second"}}, CountryCode: "DE", RegDate: "2010-01-01"})
	ix := buildIndex(t,
		statsCard("0208:0000000001", "BE", "2026-09-29", invoiceDoc, creditDoc, invoiceDoc+"x"),
		two,
		statsCard("0208:0000000003", "UK", "2024-02-15", creditDoc),
		statsCard("0208:0000000004", "GB", "2016-10-01"),                       // the first month listed (testCreated is 2026-09)
		statsCard("0208:0000000005", "BE", "2016-09-30", invoiceDoc),           // the month before
		statsCard("0208:0000000006", "", "2026-10-01", invoiceDoc+"x"),         // after the export: no usable date
		statsCard("0208:0000000007", "BE", "26-01-01", invoiceDoc),             // malformed
		statsCard("0208:0000000008", "BE", "2025-13-01", invoiceDoc),           // malformed
		statsCard("0208:0000000009", "SE", "2019-05-05", invoiceDoc),           // replaced below
		statsCard("0208:0000000009", "NO", "2019-06-05", creditDoc, creditDoc), // the last card wins
	)
	st, err := ix.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Participants != 9 || st.Source != registry.SourceMirror || !st.DataAsOf.Equal(testCreated) {
		t.Errorf("participants %d, source %q, dataAsOf %v", st.Participants, st.Source, st.DataAsOf)
	}
	wantCountries := []registry.CountryCount{{Country: "BE", Count: 4}, {Country: "GB", Count: 2}, {Country: "NL", Count: 1}, {Country: "NO", Count: 1}}
	if !slices.Equal(st.Countries, wantCountries) || st.OtherCountries != 0 || st.WithoutCountry != 1 {
		t.Errorf("countries %v other %d without %d, want %v 0 1", st.Countries, st.OtherCountries, st.WithoutCountry, wantCountries)
	}
	wantKinds := []registry.KindCount{{Kind: "Invoice", Count: 5}, {Kind: "Credit Note", Count: 3}, {Kind: registry.KindOther, Count: 2}}
	if !slices.Equal(st.DocumentKinds, wantKinds) || st.WithoutDocumentTypes != 1 {
		t.Errorf("kinds %v without %d, want %v 1", st.DocumentKinds, st.WithoutDocumentTypes, wantKinds)
	}
	if len(st.Registrations) != registry.StatsMonths || st.Registrations[0].Month != "2016-10" || st.Registrations[len(st.Registrations)-1].Month != "2026-09" {
		t.Fatalf("registrations from %v to %v (%d months)", st.Registrations[0], st.Registrations[len(st.Registrations)-1], len(st.Registrations))
	}
	got := map[string]int{}
	sum := 0
	for _, m := range st.Registrations {
		if m.Count > 0 {
			got[m.Month] = m.Count
		}
		sum += m.Count
	}
	want := map[string]int{"2026-09": 2, "2024-02": 1, "2016-10": 1, "2019-06": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) || st.RegisteredEarlier != 1 || st.WithoutRegistrationDate != 3 {
		t.Errorf("registrations %v earlier %d without %d, want %v 1 3", got, st.RegisteredEarlier, st.WithoutRegistrationDate, want)
	}
	if sum+st.RegisteredEarlier+st.WithoutRegistrationDate != st.Participants {
		t.Errorf("registrations add up to %d, not %d", sum+st.RegisteredEarlier+st.WithoutRegistrationDate, st.Participants)
	}
	again, err := ix.Stats(t.Context())
	if err != nil || again != st {
		t.Errorf("second call: %p, %v; want the cached %p", again, err, st)
	}
}

// TestIndexStatsSynthetic: over a synthetic export, the counts agree with the full
// records decoded one by one (decodeRecord), and the top countries and the others add
// up to every participant.
func TestIndexStatsSynthetic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "directory.db")
	importExport(t, writeExport(t, dir, 5000), path)
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	countries, kinds := map[string]int{}, map[string]int{}
	months := map[string]int{}
	n, noDocs := 0, 0
	rows, err := ix.db.QueryContext(t.Context(), "SELECT pid, name, data FROM card")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var pid, name string
		var blob []byte
		if err := rows.Scan(&pid, &name, &blob); err != nil {
			t.Fatal(err)
		}
		rec, err := decodeRecord(pid, name, blob, ix.docTypes)
		if err != nil {
			t.Fatal(err)
		}
		n++
		cc := ""
		for _, e := range rec.Entities {
			if e.CountryCode != "" {
				cc = e.CountryCode
				break
			}
		}
		if cc == "UK" {
			cc = "GB"
		}
		countries[cc]++
		seen := map[string]bool{}
		for _, d := range rec.DocTypes {
			k := registry.KindOther
			if dt, ok := codelist.LookupDocumentType(d.Scheme, d.Value); ok {
				k = dt.Category
			}
			if !seen[k] {
				seen[k] = true
				kinds[k]++
			}
		}
		if len(rec.DocTypes) == 0 {
			noDocs++
		}
		if rec.RegistrationDate != nil && len(*rec.RegistrationDate) >= 7 {
			months[(*rec.RegistrationDate)[:7]]++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if st.Participants != n || n != ix.Meta().Cards {
		t.Errorf("participants %d, decoded %d, meta %d", st.Participants, n, ix.Meta().Cards)
	}
	total := st.OtherCountries + st.WithoutCountry
	for _, c := range st.Countries {
		if countries[c.Country] != c.Count {
			t.Errorf("country %s: %d, decoded %d", c.Country, c.Count, countries[c.Country])
		}
		total += c.Count
	}
	if total != n || len(st.Countries) != min(len(countries), registry.StatsTopCountries) || st.WithoutCountry != countries[""] {
		t.Errorf("countries add up to %d of %d; %d listed of %d; without %d, decoded %d", total, n, len(st.Countries), len(countries), st.WithoutCountry, countries[""])
	}
	if len(st.DocumentKinds) != len(kinds) || st.WithoutDocumentTypes != noDocs {
		t.Errorf("kinds %v, decoded %v; without %d, decoded %d", st.DocumentKinds, kinds, st.WithoutDocumentTypes, noDocs)
	}
	for _, k := range st.DocumentKinds {
		if kinds[k.Kind] != k.Count {
			t.Errorf("kind %s: %d, decoded %d", k.Kind, k.Count, kinds[k.Kind])
		}
	}
	for _, m := range st.Registrations {
		if months[m.Month] != m.Count {
			t.Errorf("month %s: %d, decoded %d", m.Month, m.Count, months[m.Month])
		}
	}
}

// TestStoreStats: an empty Store has no statistics; after a Reload onto a new file
// they are the new file's.
func TestStoreStats(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Stats(t.Context()); !errors.Is(err, registry.ErrMirrorUnavailable) {
		t.Fatalf("empty store: %v", err)
	}
	build := func(cards ...*export.Card) {
		src := &sliceSource{hdr: export.Header{Format: export.FormatXMLv3, Created: testCreated}, cards: cards}
		if _, err := Build(context.Background(), path, src, BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	build(statsCard("0208:0000000001", "BE", "2026-01-01"))
	// The loaded file's statistics are counted in the background (warmStats), before
	// anyone asks: wait for that count, then check it is the one Stats answers.
	var warm *statsCall
	for warm == nil {
		h := s.acquire()
		h.ix.statsMu.Lock()
		warm = h.ix.stats
		h.ix.statsMu.Unlock()
		s.release(h)
		if warm == nil {
			time.Sleep(time.Millisecond)
		}
	}
	<-warm.done
	if warm.err != nil || warm.st == nil || warm.st.Participants != 1 {
		t.Fatalf("warm-up: %+v, %v", warm.st, warm.err)
	}
	if st, err := s.Stats(t.Context()); err != nil || st != warm.st {
		t.Fatalf("one card: %+v, %v", st, err)
	}
	build(statsCard("0208:0000000001", "BE", "2026-01-01"), statsCard("0208:0000000002", "NL", "2026-01-01"))
	if st, err := s.Stats(t.Context()); err != nil || st.Participants != 2 {
		t.Fatalf("after reload: %+v, %v", st, err)
	}
}

// BenchmarkStats computes the statistics of a 200,000-card synthetic index (uncached:
// a fresh Index each time, the file in the OS cache).
func BenchmarkStats(b *testing.B) {
	const n = 200_000
	dir := b.TempDir()
	path := filepath.Join(dir, "directory.db")
	importExport(b, writeExport(b, dir, n), path)
	for b.Loop() {
		b.StopTimer()
		ix, err := OpenIndex(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ix.Stats(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "cards/s")
}
