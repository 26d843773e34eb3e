package directory

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseResultTestdata(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, r *Result)
	}{
		{"search-current-shape.json", func(t *testing.T, r *Result) {
			wantHeader(t, r, header{3, 3, 0, 20, 0, 2, "q=lindqvist"})
			wantTime(t, r.CreationTime, time.Date(2026, 3, 14, 9, 26, 53, 589793238, time.UTC))
			if len(r.Matches) != 2 || len(r.Skipped) != 0 {
				t.Fatalf("matches=%d skipped=%v, want 2 and none", len(r.Matches), r.Skipped)
			}
			m := r.Matches[0]
			// The input value is upper-case; Peppol ids are case-insensitive and stored lower-case.
			if want := (peppol.ParticipantID{ICD: "9925", Value: "be0999888777"}); m.Participant != want {
				t.Errorf("participant = %#v, want %#v", m.Participant, want)
			}
			if len(m.DocTypes) != 2 || m.DocTypes[0].Scheme != "busdox-docid-qns" ||
				!strings.HasSuffix(m.DocTypes[1].Value, "CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1") {
				t.Errorf("doc types = %+v", m.DocTypes)
			}
			e := m.Entities[0]
			wantNames := []Name{{"Lindqvist Kaffebrenneri BV", "nl"}, {"Torréfaction Lindqvist SRL", "fr"}, {"Lindqvist Coffee", ""}}
			if !reflect.DeepEqual(e.Names, wantNames) {
				t.Errorf("names = %+v, want %+v", e.Names, wantNames)
			}
			if m.Name() != "Lindqvist Kaffebrenneri BV" || m.CountryCode() != "BE" {
				t.Errorf("Name()=%q CountryCode()=%q", m.Name(), m.CountryCode())
			}
			if e.GeoInfo != "Kaaistraat 12, 9000 Gent" {
				t.Errorf("geoInfo = %q", e.GeoInfo)
			}
			wantIDs := []Identifier{{"VAT", "BE0999888777"}, {"KBO-BCE", "0999.888.777"}}
			if !reflect.DeepEqual(e.Identifiers, wantIDs) {
				t.Errorf("identifiers = %+v", e.Identifiers)
			}
			if !reflect.DeepEqual(e.Websites, []string{"https://lindqvist-coffee.example", "www.lindqvist.example"}) {
				t.Errorf("websites = %q", e.Websites)
			}
			if e.AdditionalInfo != "Roastery and wholesale.\nInvoices in EN 16931 only, please." {
				t.Errorf("additionalInfo = %q", e.AdditionalInfo)
			}
			if e.RegistrationDate != "2021-06-30" {
				t.Errorf("regDate = %q", e.RegistrationDate)
			}
			m = r.Matches[1]
			if m.Participant.String() != "0088:7300009999994" || m.DocTypes != nil || len(m.Entities) != 2 {
				t.Fatalf("second match = %+v", m)
			}
			if m.Entities[1].CountryCode != "NO" || m.Entities[1].Names[0] != (Name{"Lindqvist Lager Norge AS", "no"}) {
				t.Errorf("second entity = %+v", m.Entities[1])
			}
			// 2019-02-29 does not exist.
			if m.Entities[1].RegistrationDate != "" {
				t.Errorf("impossible regDate kept: %q", m.Entities[1].RegistrationDate)
			}
		}},
		{"search-legacy-name.json", func(t *testing.T, r *Result) {
			wantHeader(t, r, header{2, 2, 0, 20, 0, 1, "q=9915:acme"})
			wantTime(t, r.CreationTime, time.Date(2018, 5, 2, 11, 4, 27, 123000000, time.UTC))
			if len(r.Matches) != 2 {
				t.Fatalf("matches = %d", len(r.Matches))
			}
			a, b := r.Matches[0], r.Matches[1]
			if a.Name() != "ACME Testing Ltd" || a.CountryCode() != "" {
				t.Errorf("legacy name/null country: Name()=%q CountryCode()=%q", a.Name(), a.CountryCode())
			}
			if !reflect.DeepEqual(a.Entities[0].Websites, []string{"https://acme.example"}) || a.Entities[0].RegistrationDate != "2015-11-03" {
				t.Errorf("first entity = %+v", a.Entities[0])
			}
			if b.Participant.String() != "9915:acme-two" || b.DocTypes != nil || b.CountryCode() != "GB" || b.Entities[0].GeoInfo != "Leeds" {
				t.Errorf("second match = %+v", b)
			}
		}},
		{"search-empty.json", func(t *testing.T, r *Result) {
			wantHeader(t, r, header{0, 0, 0, 20, 0, -1, "participant=iso6523-actorid-upis::0208:0123456749"})
			wantTime(t, r.CreationTime, time.Date(2026, 9, 1, 7, 0, 0, 500000000, time.UTC))
			if r.Matches == nil || len(r.Matches) != 0 || r.Skipped != nil {
				t.Errorf("matches = %#v, skipped = %#v; want empty non-nil and nil", r.Matches, r.Skipped)
			}
		}},
		{"search-bad-participants.json", func(t *testing.T, r *Result) {
			wantHeader(t, r, header{4, 4, 1, 4, 4, 7, "country=XX"})
			wantTime(t, r.CreationTime, time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
			if len(r.Matches) != 1 || r.Matches[0].Participant.String() != "0192:999999999" {
				t.Fatalf("matches = %+v", r.Matches)
			}
			m := r.Matches[0]
			// The first entity has an empty name array; Name() falls through to the next.
			if m.Name() != "Valid Nordic" || m.CountryCode() != "XX" || m.Entities[1].RegistrationDate != "" {
				t.Errorf("match = %+v", m)
			}
			if len(r.Skipped) != 3 {
				t.Fatalf("skipped = %+v, want 3", r.Skipped)
			}
			for i, want := range []string{"has no ':'", "is not iso6523-actorid-upis", "no participantID"} {
				if !strings.Contains(r.Skipped[i].Reason, want) {
					t.Errorf("skipped[%d].Reason = %q, want it to mention %q", i, r.Skipped[i].Reason, want)
				}
			}
			if r.Skipped[0].Value != "not an id" || r.Skipped[1].Scheme != "other-scheme" {
				t.Errorf("skipped = %+v", r.Skipped)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := ParseResult(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("re-marshal: %v", err)
			}
		})
	}
}

type header struct {
	total, used, pageIndex, pageCount, first, last int
	terms                                          string
}

func wantHeader(t *testing.T, r *Result, w header) {
	t.Helper()
	got := header{r.TotalCount, r.UsedCount, r.PageIndex, r.PageCount, r.FirstIndex, r.LastIndex, r.QueryTerms}
	if got != w {
		t.Errorf("header = %+v, want %+v", got, w)
	}
}

func wantTime(t *testing.T, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("creation time = %v, want %v (UTC)", got, want)
	}
}

// TestContactsNeverReachModel proves the personal data in "contacts" is dropped by the
// decoder: no field of the model, and nothing a caller marshals from it, contains it.
func TestContactsNeverReachModel(t *testing.T) {
	data := readTestdata(t, "search-current-shape.json")
	personal := []string{"ingrid.vermeulen@lindqvist-coffee.example", "Ingrid Vermeulen", "+32 9 555 01 23",
		"Accounts payable", "lars.lindqvist@logistik.example"}
	for _, p := range personal {
		if !strings.Contains(string(data), p) {
			t.Fatalf("testdata no longer contains %q; the test would prove nothing", p)
		}
	}
	r, err := ParseResult(data)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// %#v reaches unexported and untagged fields that json.Marshal would not show.
	dump := string(out) + fmtGoSyntax(r)
	for _, p := range personal {
		if strings.Contains(dump, p) {
			t.Errorf("personal data %q reached the model", p)
		}
	}
	if strings.Contains(strings.ToLower(string(out)), "contact") {
		t.Errorf("model JSON mentions contacts: %s", out)
	}
}

func TestParseResultNames(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []Name
	}{
		{"array with language", `[{"name":"A","language":"de"}]`, []Name{{"A", "de"}}},
		{"array without language", `[{"name":"A"},{"name":"B"}]`, []Name{{"A", ""}, {"B", ""}}},
		{"legacy string", `"Old Style"`, []Name{{"Old Style", ""}}},
		{"array of strings", `["X", {"name":" Y ","language":" en "}]`, []Name{{"X", ""}, {"Y", "en"}}},
		{"empty names dropped", `[{"name":""},{"name":"  "},null,{"language":"fr"}]`, []Name{}},
		{"null", `null`, nil},
		{"empty string", `""`, nil},
		{"unknown keys in item", `[{"name":"Z","script":"Latn"}]`, []Name{{"Z", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"matches":[{"participantID":{"scheme":"iso6523-actorid-upis","value":"0208:0677424046"},"entities":[{"name":` + tt.json + `}]}]}`
			r, err := ParseResult([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			got := r.Matches[0].Entities[0].Names
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("names = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseResultErrors(t *testing.T) {
	tests := []struct{ name, json string }{
		{"empty", ``},
		{"array", `[]`},
		{"string", `"No valid query term provided!"`},
		{"truncated", `{"total-result-count":1,"matches":[{"participantID":`},
		{"count as string", `{"total-result-count":"1"}`},
		{"name as number", `{"matches":[{"entities":[{"name":42}]}]}`},
		{"name item as number", `{"matches":[{"entities":[{"name":[42]}]}]}`},
		{"matches as object", `{"matches":{}}`},
		{"html", `<html><body>Bad gateway</body></html>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if r, err := ParseResult([]byte(tt.json)); err == nil {
				t.Errorf("ParseResult(%q) = %+v, want error", tt.json, r)
			}
		})
	}
}

func TestParseCreationTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2026-09-08T20:53:31.064151933Z", time.Date(2026, 9, 8, 20, 53, 31, 64151933, time.UTC)},
		{"2017-09-20T18:15:00.438Z", time.Date(2017, 9, 20, 18, 15, 0, 438000000, time.UTC)},
		{"2026-01-02T03:04:05+02:00", time.Date(2026, 1, 2, 1, 4, 5, 0, time.UTC)},
		{"2026-01-02T03:04:05.12", time.Date(2026, 1, 2, 3, 4, 5, 120000000, time.UTC)},
		{"", time.Time{}},
		{"yesterday", time.Time{}},
		{"0000-01-01T00:00:00+01:00", time.Time{}}, // year -1 in UTC cannot be marshalled
	}
	for _, tt := range tests {
		if got := parseCreationTime(tt.in); !got.Equal(tt.want) {
			t.Errorf("parseCreationTime(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestMatchHelpersEmpty(t *testing.T) {
	var m Match
	if m.Name() != "" || m.CountryCode() != "" {
		t.Errorf("zero Match: Name()=%q CountryCode()=%q", m.Name(), m.CountryCode())
	}
}

// TestParseResultCleansThirdPartyText: a card's strings are the card owner's words;
// they reach the model without bidi or other format controls, on one line (free
// text keeps its line breaks), and capped (docs/ARCHITECTURE.md §6).
func TestParseResultCleansThirdPartyText(t *testing.T) {
	long := strings.Repeat("N", 5000)
	doc := map[string]any{"matches": []any{map[string]any{
		"participantID": map[string]any{"scheme": "iso6523-actorid-upis", "value": "0208:0677424046"},
		"entities": []any{map[string]any{
			"name": []any{
				map[string]any{"name": "Acme \u202etxt.exe\u202c Corp", "language": "n\u200bl"},
				map[string]any{"name": long},
				map[string]any{"name": "Line\r\nbreak\x00and\ttab"},
				map[string]any{"name": "\u200b\u202e"},
			},
			"countryCode":    "b\u200be",
			"geoInfo":        "Rue \u2066x\u2069 1\n1000 Bruxelles",
			"additionalInfo": "One\u202e line.\r\n\r\n\r\nTwo\x1b[2J lines.\u200f",
			"identifiers":    []any{map[string]any{"scheme": "V\u200eAT", "value": "BE\u202e0677424046"}},
			"websites":       []any{"https://acme.example/\u202eexe.txt", strings.Repeat("w", 5000)},
		}},
	}}}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseResult(data)
	if err != nil {
		t.Fatal(err)
	}
	e := r.Matches[0].Entities[0]
	wantNames := []Name{{"Acme txt.exe Corp", "nl"}, {strings.Repeat("N", 999) + "…", ""}, {"Line break and tab", ""}}
	if !reflect.DeepEqual(e.Names, wantNames) {
		t.Errorf("names = %.200q, want %.200q", e.Names, wantNames)
	}
	if e.CountryCode != "BE" || e.GeoInfo != "Rue x 1 1000 Bruxelles" || e.AdditionalInfo != "One line.\n\nTwo [2J lines." {
		t.Errorf("country %q, geoInfo %q, additionalInfo %q", e.CountryCode, e.GeoInfo, e.AdditionalInfo)
	}
	if !reflect.DeepEqual(e.Identifiers, []Identifier{{"VAT", "BE0677424046"}}) {
		t.Errorf("identifiers = %q", e.Identifiers)
	}
	if len(e.Websites) != 2 || e.Websites[0] != "https://acme.example/exe.txt" || len([]rune(e.Websites[1])) != 1000 {
		t.Errorf("websites = %.100q", e.Websites)
	}
}
