package netsim

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/peppolgate/peppolgate/peppol"
)

// xmlExport is the XML v3 export as encoding/xml reads it, written independently of
// the generator's writer.
type xmlExport struct {
	XMLName   xml.Name  `xml:"urn:peppol:schema:pd:businesscard-generic:2025:03 root"`
	Version   string    `xml:"version,attr"`
	Created   string    `xml:"creationdt,attr"`
	CodeList  string    `xml:"codeListSupported,attr"`
	Cards     []xmlCard `xml:"businesscard"`
	Leftovers []string  `xml:",any"`
}

type xmlCard struct {
	Participant struct {
		Scheme string `xml:"scheme,attr"`
		Value  string `xml:"value,attr"`
	} `xml:"participant"`
	Entities []struct {
		Country string `xml:"countrycode,attr"`
		Names   []struct {
			Name     string `xml:"name,attr"`
			Language string `xml:"language,attr"`
		} `xml:"name"`
		GeoInfo string `xml:"geoinfo"`
		IDs     []struct {
			Scheme string `xml:"scheme,attr"`
			Value  string `xml:"value,attr"`
		} `xml:"id"`
		Websites []string `xml:"website"`
		Contacts []struct {
			Type  string `xml:"type,attr"`
			Name  string `xml:"name,attr"`
			Phone string `xml:"phone,attr"`
			Email string `xml:"email,attr"`
		} `xml:"contact"`
		AdditionalInfo string `xml:"additionalinfo"`
		RegDate        string `xml:"regdate"`
	} `xml:"entity"`
	DocTypes []struct {
		Scheme      string `xml:"scheme,attr"`
		Value       string `xml:"value,attr"`
		DisplayName string `xml:"displayname,attr"`
		State       string `xml:"state,attr"`
		NonStandard string `xml:"non-standard,attr"`
	} `xml:"doctypeid"`
}

// toCard converts a parsed card back into netsim's types for comparison.
func (c *xmlCard) toCard() *BusinessCard {
	out := &BusinessCard{}
	for _, e := range c.Entities {
		ne := Entity{CountryCode: e.Country, GeoInfo: e.GeoInfo, Websites: e.Websites, AdditionalInfo: e.AdditionalInfo, RegDate: e.RegDate}
		for _, n := range e.Names {
			ne.Names = append(ne.Names, Name{n.Name, n.Language})
		}
		for _, id := range e.IDs {
			ne.Identifiers = append(ne.Identifiers, Identifier{id.Scheme, id.Value})
		}
		for _, ct := range e.Contacts {
			ne.Contacts = append(ne.Contacts, Contact(ct))
		}
		out.Entities = append(out.Entities, ne)
	}
	for _, d := range c.DocTypes {
		out.DocTypes = append(out.DocTypes, DocumentType{d.Scheme, d.Value})
	}
	return out
}

func parseExport(t *testing.T, b []byte) *xmlExport {
	t.Helper()
	var x xmlExport
	if err := xml.Unmarshal(b, &x); err != nil {
		t.Fatalf("export does not parse: %v", err)
	}
	return &x
}

func writeExport(t *testing.T, cfg ExportConfig) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteExportXML(&buf, cfg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// normCard is a card as written, with empty slices as nil, for DeepEqual.
func normCard(c *BusinessCard) *BusinessCard {
	out := &BusinessCard{}
	for _, e := range c.Entities {
		e.Names = slicesOrNil(e.Names)
		e.Identifiers = slicesOrNil(e.Identifiers)
		e.Websites = slicesOrNil(e.Websites)
		e.Contacts = slicesOrNil(e.Contacts)
		out.Entities = append(out.Entities, e)
	}
	out.DocTypes = slicesOrNil(c.DocTypes)
	return out
}

func slicesOrNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestWriteExportXMLParses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  ExportConfig
	}{
		{"empty", ExportConfig{Seed: 1}},
		{"small", ExportConfig{Seed: 1, Cards: 500}},
		{"other seed", ExportConfig{Seed: 42, Cards: 300, Created: time.Date(2025, 11, 10, 2, 24, 17, 506e6, time.UTC)}},
		{"no doc types", ExportConfig{Seed: 7, Cards: 300, NoDocTypes: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := parseExport(t, writeExport(t, tt.cfg))
			wantCreated := "2026-11-21T02:00:00.000Z"
			if !tt.cfg.Created.IsZero() {
				wantCreated = tt.cfg.Created.Format("2006-01-02T15:04:05.000Z")
			}
			if x.Version != "3" || x.Created != wantCreated || x.CodeList != ExportCodeList {
				t.Errorf("root = version %q creationdt %q codeListSupported %q", x.Version, x.Created, x.CodeList)
			}
			if len(x.Cards) != tt.cfg.Cards {
				t.Fatalf("%d cards, want %d", len(x.Cards), tt.cfg.Cards)
			}
			err := ExportCards(tt.cfg, func(i int, id peppol.ParticipantID, card *BusinessCard) error {
				got := &x.Cards[i]
				if got.Participant.Scheme != peppol.ParticipantScheme {
					t.Errorf("card %d: participant scheme %q", i, got.Participant.Scheme)
				}
				pid, err := peppol.ParseParticipantID(got.Participant.Value)
				if err != nil || pid != id {
					t.Errorf("card %d: participant %q parses to %v (%v), want %v", i, got.Participant.Value, pid, err, id)
				}
				if r := peppol.CheckDigit(id.ICD, id.Value); r == peppol.CheckInvalid || r == peppol.CheckSoftInvalid {
					t.Errorf("card %d: %v fails its check digit (%v)", i, id, r)
				}
				if tt.cfg.NoDocTypes && len(card.DocTypes) > 0 {
					t.Errorf("card %d has doc types in a no-doc-types export", i)
				}
				if !tt.cfg.NoDocTypes && len(card.DocTypes) == 0 {
					t.Errorf("card %d has no doc types", i)
				}
				for _, d := range got.DocTypes {
					if d.NonStandard == "" && (d.DisplayName == "" || (d.State != "act" && d.State != "dep")) {
						t.Errorf("card %d: doc type %+v lacks displayname/state", i, d)
					}
				}
				if w, g := normCard(card), got.toCard(); !reflect.DeepEqual(w, g) {
					t.Errorf("card %d:\n got %+v\nwant %+v", i, g, w)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestExportDeterministic(t *testing.T) {
	t.Parallel()
	cfg := ExportConfig{Seed: 3, Cards: 400}
	a, b := writeExport(t, cfg), writeExport(t, cfg)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different bytes")
	}
	if c := writeExport(t, ExportConfig{Seed: 4, Cards: 400}); bytes.Equal(a, c) {
		t.Fatal("different seeds, same bytes")
	}
	// A shorter export is a prefix of a longer one (up to the closing tag).
	short := writeExport(t, ExportConfig{Seed: 3, Cards: 100})
	if !bytes.HasPrefix(a, bytes.TrimSuffix(short, []byte("</root>\n"))) {
		t.Error("the first 100 cards differ between a 100- and a 400-card export")
	}
	noDoc := ExportConfig{Seed: 3, Cards: 400, NoDocTypes: true}
	err := ExportCards(cfg, func(i int, id peppol.ParticipantID, card *BusinessCard) error {
		for _, c := range []ExportConfig{cfg, noDoc} {
			gid, gcard := ExportCard(c, i)
			if gid != id {
				t.Errorf("ExportCard(%d) id %v, ExportCards gave %v", i, gid, id)
			}
			want := *card
			if c.NoDocTypes {
				want.DocTypes = nil
			}
			if !reflect.DeepEqual(gcard, &want) {
				t.Errorf("ExportCard(%+v, %d) differs from ExportCards", c, i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExportCardsStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	calls := 0
	err := ExportCards(ExportConfig{Seed: 1, Cards: 100}, func(i int, _ peppol.ParticipantID, _ *BusinessCard) error {
		calls++
		if i == 9 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 10 {
		t.Fatalf("err %v after %d calls, want stop after 10", err, calls)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, io.ErrShortWrite
	}
	w.after--
	return len(p), nil
}

func TestWriteExportXMLWriterError(t *testing.T) {
	t.Parallel()
	for _, after := range []int{0, 1} {
		if err := WriteExportXML(&failWriter{after: after}, ExportConfig{Seed: 1, Cards: 2000}); !errors.Is(err, io.ErrShortWrite) {
			t.Errorf("after %d writes: err %v, want io.ErrShortWrite", after, err)
		}
	}
}

// exportStats counts what realism depends on.
type exportStats struct {
	cards, multiEntity, multiName, withLang, upper, withIDs, emptyID int
	noRegDate, nonStandard, dep, dupIDs                              int
	words                                                            map[string]int
	countries, schemes                                               map[string]int
}

func statsOf(t *testing.T, cfg ExportConfig) exportStats {
	t.Helper()
	s := exportStats{words: map[string]int{}, countries: map[string]int{}, schemes: map[string]int{}}
	seen := map[peppol.ParticipantID]bool{}
	err := ExportCards(cfg, func(i int, id peppol.ParticipantID, c *BusinessCard) error {
		s.cards++
		if seen[id] {
			s.dupIDs++
		}
		seen[id] = true
		s.schemes[id.ICD]++
		if len(c.Entities) > 1 {
			s.multiEntity++
		}
		for _, e := range c.Entities {
			s.countries[e.CountryCode]++
			if len(e.Names) > 1 {
				s.multiName++
			}
			if e.RegDate == "" {
				s.noRegDate++
			}
			if len(e.Identifiers) > 0 {
				s.withIDs++
			}
			for _, id := range e.Identifiers {
				if id.Value == "" {
					s.emptyID++
				}
			}
			for _, n := range e.Names {
				if n.Language != "" {
					s.withLang++
				}
				if n.Name == strings.ToUpper(n.Name) {
					s.upper++
				}
				for _, w := range strings.FieldsFunc(strings.ToLower(n.Name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
					s.words[w]++
				}
			}
		}
		for _, d := range c.DocTypes {
			m, ok := exportDocIndex[d.Value]
			if !ok || exportDocTypes[m].nonStandard {
				s.nonStandard++
			} else if exportDocTypes[m].state == "dep" {
				s.dep++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestExportDistribution(t *testing.T) {
	t.Parallel()
	small := statsOf(t, ExportConfig{Seed: 1, Cards: 2_000})
	big := statsOf(t, ExportConfig{Seed: 1, Cards: 20_000})
	t.Logf("distinct name words: %d at 2k cards, %d at 20k", len(small.words), len(big.words))
	if len(big.words) < 3*len(small.words) || len(big.words) < 10_000 {
		t.Errorf("distinct name words %d at 2k, %d at 20k: the vocabulary does not grow", len(small.words), len(big.words))
	}
	rare := 0
	for _, n := range big.words {
		if n == 1 {
			rare++
		}
	}
	if rare < len(big.words)/3 {
		t.Errorf("%d of %d words occur once: too few rare words", rare, len(big.words))
	}
	for _, w := range []string{"consult", "holding", "bygg", "bv", "as", "ltd"} {
		if big.words[w] < 100 {
			t.Errorf("common word %q only %d times in 20k cards", w, big.words[w])
		}
	}
	if big.dupIDs > 2 {
		t.Errorf("%d duplicate participant ids in 20k cards", big.dupIDs)
	}
	for _, c := range []string{"BE", "NO", "SE", "NL", "DK", "FI", "FR", "AU", "UK", "XX"} {
		if big.countries[c] == 0 {
			t.Errorf("no entity with country code %s", c)
		}
	}
	for _, icd := range []string{"0208", "9925", "0106", "0190", "0192", "0007", "0088", "0037", "0216", "0184", "9932", "0151", "0002", "0009", "9930"} {
		if big.schemes[icd] == 0 {
			t.Errorf("no participant under scheme %s", icd)
		}
	}
	if be := big.schemes["0208"] + big.schemes["9925"]; be < big.cards*4/10 {
		t.Errorf("%d Belgian cards of %d: Belgium should be about half", be, big.cards)
	}
	checks := []struct {
		name     string
		got, lo  int
		hi       int
		ofCards  bool
		fraction string
	}{
		{"cards with several entities", big.multiEntity, big.cards / 50, big.cards / 5, true, "2–20%"},
		{"entities with several names", big.multiName, big.cards / 20, big.cards / 2, true, "5–50%"},
		{"names with a language", big.withLang, big.cards / 20, big.cards, true, ""},
		{"names in capitals", big.upper, big.cards / 10, big.cards / 2, true, ""},
		{"entities with identifiers", big.withIDs, big.cards / 3, big.cards, true, ""},
		{"empty identifier values", big.emptyID, 10, big.cards / 10, true, ""},
		{"entities without regdate", big.noRegDate, big.cards / 20, big.cards / 4, true, ""},
		{"non-standard doc types", big.nonStandard, 10, big.cards / 50, true, ""},
		{"deprecated doc types", big.dep, 10, big.cards / 5, true, ""},
	}
	for _, c := range checks {
		if c.got < c.lo || c.got > c.hi {
			t.Errorf("%s: %d, want %d…%d", c.name, c.got, c.lo, c.hi)
		}
	}
}

func TestAppendEscaped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in         string
		attr, text string
	}{
		{"Müller & Söhne GmbH", "Müller &amp; Söhne GmbH", "Müller &amp; Söhne GmbH"},
		{`"A<B>" Ltd`, "&quot;A&lt;B&gt;&quot; Ltd", `"A&lt;B&gt;" Ltd`},
		{"a\r\nb\tc", "a&#13;&#10;b&#9;c", "a&#13;\nb\tc"},
		{"bad\x00\x1f\xff", "bad\uFFFD\uFFFD\uFFFD", "bad\uFFFD\uFFFD\uFFFD"},
		{"Łódź Ørjan Ålesund \uFFFE", "Łódź Ørjan Ålesund \uFFFD", "Łódź Ørjan Ålesund \uFFFD"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := string(appendEscaped(nil, tt.in, true)); got != tt.attr {
			t.Errorf("attr %q = %q, want %q", tt.in, got, tt.attr)
		}
		if got := string(appendEscaped(nil, tt.in, false)); got != tt.text {
			t.Errorf("text %q = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// TestWriteDatasetExport writes a dataset whose card names need escaping and reads it
// back: every participant with a card, in order, with its fields intact.
func TestWriteDatasetExport(t *testing.T) {
	t.Parallel()
	ds := Generate(DatasetConfig{Seed: 5, Participants: 120, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	tricky := &BusinessCard{Entities: []Entity{{
		Names:          []Name{{`Smith & "Sons" <Holding>`, "en"}, {"Ørjan Åsen\r\nLine", ""}},
		CountryCode:    "GB",
		GeoInfo:        "a < b & c > d",
		Identifiers:    []Identifier{{"VAT", ""}},
		Contacts:       []Contact{{}},
		AdditionalInfo: "tab\there",
	}}, DocTypes: []DocumentType{{DocTypeSchemeQNS, "urn:example:custom&doc"}}}
	ds.Participants[len(ds.Participants)-1].Card = tricky
	var buf bytes.Buffer
	if err := writeDatasetExport(&buf, ds, ds.Now); err != nil {
		t.Fatal(err)
	}
	x := parseExport(t, buf.Bytes())
	if x.Created != "2026-03-01T00:00:00.000Z" {
		t.Errorf("creationdt %q", x.Created)
	}
	var want []*Participant
	for i := range ds.Participants {
		if ds.Participants[i].Card != nil {
			want = append(want, &ds.Participants[i])
		}
	}
	if len(x.Cards) != len(want) {
		t.Fatalf("%d cards, want %d", len(x.Cards), len(want))
	}
	for i, p := range want {
		if x.Cards[i].Participant.Value != p.ID.String() {
			t.Errorf("card %d is %s, want %s", i, x.Cards[i].Participant.Value, p.ID)
		}
		if g, w := x.Cards[i].toCard(), normCard(p.Card); !reflect.DeepEqual(g, w) {
			t.Errorf("card %d (%s):\n got %+v\nwant %+v", i, p.ID, g, w)
		}
	}
	last := x.Cards[len(x.Cards)-1]
	if d := last.DocTypes[0]; d.NonStandard != "true" || d.DisplayName != "" {
		t.Errorf("unknown doc type written as %+v, want non-standard", d)
	}
}

func BenchmarkWriteExportXML(b *testing.B) {
	const cards = 50_000
	cw := &countingWriter{}
	for b.Loop() {
		if err := WriteExportXML(cw, ExportConfig{Seed: 1, Cards: cards}); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(cards*b.N)/s, "cards/s")
	b.ReportMetric(float64(cw.n)/s/1e6, "MB/s")
	b.ReportMetric(float64(cw.n)/float64(cards*b.N), "B/card")
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
