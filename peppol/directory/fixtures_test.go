package directory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

// derived returns the path of rel in the derived shared fixtures, the sibling of the
// upstream tree that internal/fixtures locates, or skips when it is absent.
func derived(t *testing.T, rel string) string {
	t.Helper()
	up := fixtures.Upstream(t, "directory-search")
	p := filepath.Join(filepath.Dir(filepath.Dir(up)), "derived", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared derived fixtures absent (%s); skipping", p)
	}
	return p
}

func TestSharedFixtures(t *testing.T) {
	tests := []struct {
		name  string
		path  func(t *testing.T) string
		check func(t *testing.T, r *Result)
	}{
		{"upstream doc example with legacy string names", func(t *testing.T) string {
			return fixtures.Upstream(t, "directory-search/search-doc-example-q-9915-test.json")
		}, func(t *testing.T, r *Result) {
			// last-result-index 3 with two matches: indices count entities, not participants.
			wantHeader(t, r, header{4, 4, 0, 20, 0, 3, "q=9915:test"})
			if r.CreationTime.Format("2006-01-02T15:04:05.000Z07:00") != "2017-09-20T18:15:00.438Z" {
				t.Errorf("creation time = %v", r.CreationTime)
			}
			if len(r.Matches) != 2 || len(r.Skipped) != 0 {
				t.Fatalf("matches = %d, skipped = %v", len(r.Matches), r.Skipped)
			}
			a, b := r.Matches[0], r.Matches[1]
			if a.Participant.String() != "9915:test" || a.Name() != "Austrian Government" || a.CountryCode() != "AT" {
				t.Errorf("first match = %s %q %q", a.Participant, a.Name(), a.CountryCode())
			}
			if len(a.DocTypes) != 6 || a.DocTypes[0].Scheme != "busdox-docid-qns" {
				t.Errorf("doc types = %d", len(a.DocTypes))
			}
			e := a.Entities[0]
			if e.RegistrationDate != "2012-01-01" || len(e.Websites) != 1 || e.Websites[0] != "https://test.e-rechnung.gv.at" {
				t.Errorf("first entity = %+v", e)
			}
			if b.Participant.String() != "9915:digit_test" || b.DocTypes != nil || len(b.Entities) != 3 {
				t.Fatalf("second match = %+v", b)
			}
			third := b.Entities[2]
			if third.Names[0].Name != "Third entity - to the rescue" || third.CountryCode != "DE" ||
				third.GeoInfo != "Germany, Baden-Württemberg" || len(third.Identifiers) != 1 ||
				third.Identifiers[0] != (Identifier{"PLZ", "79110"}) {
				t.Errorf("third entity = %+v", third)
			}
			if b.Entities[1].Identifiers[0] != (Identifier{"GLN", "123454321"}) {
				t.Errorf("second entity identifiers = %+v", b.Entities[1].Identifiers)
			}
		}},
		{"derived JSON of a real participant answer", func(t *testing.T) string {
			return derived(t, "directory-search/search-participant-9915-b.json")
		}, func(t *testing.T, r *Result) {
			wantHeader(t, r, header{1, 1, 0, 20, 0, 0, "participant=iso6523-actorid-upis::9915:b"})
			if r.CreationTime.Format("2006-01-02T15:04:05.000Z07:00") != "2023-04-12T10:15:16.654Z" {
				t.Errorf("creation time = %v", r.CreationTime)
			}
			if len(r.Matches) != 1 {
				t.Fatalf("matches = %d", len(r.Matches))
			}
			m := r.Matches[0]
			if m.Participant.String() != "9915:b" || m.Name() != "Austrian Government" || m.CountryCode() != "AT" || len(m.DocTypes) != 5 {
				t.Errorf("match = %s %q %q, %d doc types", m.Participant, m.Name(), m.CountryCode(), len(m.DocTypes))
			}
			e := m.Entities[0]
			if !strings.HasPrefix(e.AdditionalInfo, "This is the production endpoint for the whole Austrian Government.\nGovernmental departments") ||
				!strings.HasSuffix(e.AdditionalInfo, "court of audit (Rechnungshof).") {
				t.Errorf("additionalInfo = %q", e.AdditionalInfo)
			}
			if e.RegistrationDate != "2010-01-01" || len(e.Websites) != 1 || e.Websites[0] != "https://www.erechnung.gv.at" {
				t.Errorf("entity = %+v", e)
			}
			if strings.Contains(fmtGoSyntax(r), "support-erb@") {
				t.Error("contact e-mail reached the model")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(tt.path(t))
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseResult(data)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
		})
	}
}
