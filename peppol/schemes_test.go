package peppol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

func TestSchemesCountAndOrder(t *testing.T) {
	all := Schemes()
	if len(all) != 105 {
		t.Fatalf("Schemes() has %d entries, want 105", len(all))
	}
	if !slices.IsSortedFunc(all, func(a, b Scheme) int { return strings.Compare(a.ICD, b.ICD) }) {
		t.Error("Schemes() is not ordered by ICD")
	}
	for i := 1; i < len(all); i++ {
		if all[i].ICD == all[i-1].ICD {
			t.Errorf("ICD %s listed twice", all[i].ICD)
		}
	}
}

func TestSchemesReturnsCopies(t *testing.T) {
	a := Schemes()
	a[0].Examples[0] = "changed"
	a[0].ICD = "x"
	s, ok := LookupScheme("0002")
	if !ok || s.Examples[0] != "784301772" || Schemes()[0].ICD != "0002" {
		t.Fatal("changing the result of Schemes changed the table")
	}
	s.Examples[0] = "changed"
	if again, _ := LookupScheme("0002"); again.Examples[0] != "784301772" {
		t.Fatal("changing the result of LookupScheme changed the table")
	}
}

func TestLookupScheme(t *testing.T) {
	tests := []struct {
		icd                  string
		id, country          string
		state                SchemeState
		release, removal     string
		registrable          bool
		pattern, replacement string
	}{
		{"0208", "BE:EN", "BE", SchemeActive, "", "", true, `[01][0-9]{9}`, ""},
		{"0088", "GLN", "", SchemeActive, "", "", true, `[0-9]{13}`, ""},
		{"0037", "FI:OVT", "FI", SchemeRemoved, "8.9", "2024-12-31", false, `(0037)?[0-9]{7}-?[0-9][0-9A-Z]{0,5}`, "0216"},
		{"0193", "UBLBE", "BE", SchemeDeprecated, "9.6", "2026-07-07", true, `.{4,50}`, "0208"},
		{"0205", "IT:COD", "IT", SchemeActive, "", "", false, "", ""},
		{"9909", "NO:VAT", "NO", SchemeDeprecated, "1.1.0", "", true, `NO[0-9]{9}MVA`, "0192"},
		{"9912", "EU:VAT", "", SchemeDeprecated, "1.1.0", "", true, `[A-Z]{2}[A-Z0-9]{0,20}`, ""},
		{"9954", "NL:OIN", "NL", SchemeRemoved, "2", "2026-03-31", false, "", "0190"},
		{"9956", "BE:CBE", "BE", SchemeRemoved, "7.4", "2023-12-31", false, `0[0-9]{9}`, "0208"},
		{"9959", "US:EIN", "US", SchemeActive, "", "", true, "", ""},
	}
	for _, tt := range tests {
		s, ok := LookupScheme(tt.icd)
		if !ok {
			t.Errorf("LookupScheme(%s) not found", tt.icd)
			continue
		}
		got := []any{s.ICD, s.ID, s.Country, s.State, s.DeprecationRelease, s.RemovalDate, s.Registrable, s.Pattern, s.ReplacedBy}
		want := []any{tt.icd, tt.id, tt.country, tt.state, tt.release, tt.removal, tt.registrable, tt.pattern, tt.replacement}
		if !slices.Equal(got, want) {
			t.Errorf("LookupScheme(%s) = %v, want %v", tt.icd, got, want)
		}
	}
	for _, icd := range []string{"0202", "0217", "9903", "0000", "", "208", "02080", "abcd"} {
		if s, ok := LookupScheme(icd); ok {
			t.Errorf("LookupScheme(%q) = %v, want not found", icd, s)
		}
	}
}

func TestSchemeStateString(t *testing.T) {
	for s, want := range map[SchemeState]string{SchemeActive: "active", SchemeDeprecated: "deprecated", SchemeRemoved: "removed", SchemeUnknown: "unknown", 42: "unknown"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

func TestSchemePatternsCompile(t *testing.T) {
	for _, s := range schemeTable {
		if s.Pattern == "" {
			continue
		}
		if _, err := regexp.Compile(s.Pattern); err != nil {
			t.Errorf("%s: pattern %q does not compile: %v", s.ICD, s.Pattern, err)
		}
		if strings.ContainsAny(s.Pattern, "^$") || strings.Contains(s.Pattern, "{,") || strings.Contains(s.Pattern, " (") {
			t.Errorf("%s: pattern %q still has anchors, '{,' or prose", s.ICD, s.Pattern)
		}
	}
}

// exampleMismatches are code-list examples that legitimately do not match their own
// scheme's syntax, with the reason.
var exampleMismatches = map[string]string{
	// The code list's example for NO:VAT omits the "NO" its own RegEx requires.
	"9909 990399123MVA": "example lacks the NO prefix",
}

func TestSchemeExamplesMatchSyntax(t *testing.T) {
	checked := 0
	for _, s := range Schemes() {
		for _, ex := range s.Examples {
			// Examples are verbatim: some carry the "<icd>:" prefix (0037) or the
			// grouping spaces of the printed form (0151).
			v := strings.ReplaceAll(strings.TrimPrefix(ex, s.ICD+":"), " ", "")
			if why, ok := exampleMismatches[s.ICD+" "+ex]; ok {
				if s.MatchesSyntax(v) {
					t.Errorf("%s example %q now matches; drop the exception (%s)", s.ICD, ex, why)
				}
				continue
			}
			if !s.MatchesSyntax(v) {
				t.Errorf("%s example %q does not match %q", s.ICD, ex, s.Pattern)
			}
			if strings.ToLower(v) != v && !s.MatchesSyntax(strings.ToLower(v)) {
				t.Errorf("%s example %q does not match when lower-cased", s.ICD, ex)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d examples checked", checked)
	}
}

func TestSchemeSyntaxIsAnchoredAndCaseInsensitive(t *testing.T) {
	be, _ := LookupScheme("0208")
	for v, want := range map[string]bool{"0677424046": true, "x0677424046": false, "06774240461": false, "": false} {
		if be.MatchesSyntax(v) != want {
			t.Errorf("0208 MatchesSyntax(%q) = %v", v, !want)
		}
	}
	ch, _ := LookupScheme("0183")
	if !ch.MatchesSyntax("che116281710") || !ch.MatchesSyntax("CHE116281710") {
		t.Error("0183 syntax is not case-insensitive")
	}
	it, _ := LookupScheme("9907")
	if !it.MatchesSyntax("rssbbr69c48f839a") || !it.MatchesSyntax("06363391001") || it.MatchesSyntax("rssbbr69c48f839a (personal identification)") {
		t.Error("9907 alternatives are wrong")
	}
	none, _ := LookupScheme("9930")
	if !none.MatchesSyntax("anything") {
		t.Error("a scheme without syntax should accept any value")
	}
}

// TestSchemeTableMatchesCodeList compares the table, entry by entry, with the published
// JSON code list committed in codelist/testdata/upstream (from which codelist/internal/gen
// generates it; decoded here independently of the generator).
func TestSchemeTableMatchesCodeList(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("codelist", "testdata", "upstream", "participant-identifier-schemes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Version    string `json:"version"`
		EntryCount int    `json:"entry-count"`
		Values     []struct {
			ICD         string `json:"iso6523"`
			ID          string `json:"schemeid"`
			Country     string `json:"country"`
			Name        string `json:"scheme-name"`
			Agency      string `json:"issuing-agency"`
			State       string `json:"state"`
			Release     string `json:"deprecation-release"`
			Removal     string `json:"removal-date"`
			Registrable bool   `json:"registrable"`
			Examples    string `json:"examples"`
			Rules       string `json:"validation-rules"`
		} `json:"values"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	if list.Version != CodeListVersion || list.EntryCount != len(list.Values) || len(list.Values) == 0 {
		t.Fatalf("code list version %s with %d/%d entries; want %s", list.Version, list.EntryCount, len(list.Values), CodeListVersion)
	}
	table := Schemes()
	if len(table) != len(list.Values) {
		t.Fatalf("table has %d entries, code list %d", len(table), len(list.Values))
	}
	for i, e := range list.Values {
		s := table[i]
		country := e.Country
		if country == "international" {
			country = ""
		}
		if s.ICD != e.ICD || s.ID != e.ID || s.Country != country || s.State.String() != e.State {
			t.Errorf("entry %d: table %s %s %q %s, code list %s %s %q %s", i, s.ICD, s.ID, s.Country, s.State, e.ICD, e.ID, e.Country, e.State)
		}
		if s.DeprecationRelease != e.Release || s.RemovalDate != e.Removal || s.Registrable != e.Registrable {
			t.Errorf("%s: table %q %q %v, code list %q %q %v", e.ICD, s.DeprecationRelease, s.RemovalDate, s.Registrable, e.Release, e.Removal, e.Registrable)
		}
		if s.Name != strings.Join(strings.Fields(e.Name), " ") {
			t.Errorf("%s: name %q, code list %q", e.ICD, s.Name, e.Name)
		}
		if s.Agency != strings.Join(strings.Fields(e.Agency), " ") {
			t.Errorf("%s: agency %q, code list %q", e.ICD, s.Agency, e.Agency)
		}
		// ReplacedBy is the project's (codelist/overlay.json): a listed scheme, named only
		// for schemes on their way out.
		if s.ReplacedBy != "" {
			if next, ok := LookupScheme(s.ReplacedBy); !ok || s.State == SchemeActive || next.ICD == s.ICD {
				t.Errorf("%s (%s) is replaced by %q, which is not a listed scheme, or it is still active", e.ICD, s.State, s.ReplacedBy)
			}
		}
		var examples []string
		for _, ex := range strings.Split(e.Examples, "\n") {
			if ex = strings.TrimSpace(ex); ex != "" {
				examples = append(examples, ex)
			}
		}
		if !slices.Equal(s.Examples, examples) {
			t.Errorf("%s: examples %q, code list %q", e.ICD, s.Examples, examples)
		}
		// Patterns agree with the code list's RegEx line, except where PatternNote says
		// why they were rewritten.
		var regexLines []string
		for _, line := range strings.Split(e.Rules, "\n") {
			if p, ok := strings.CutPrefix(line, "RegEx:"); ok {
				regexLines = append(regexLines, strings.TrimSpace(p))
			}
		}
		switch {
		case s.PatternNote != "":
			if len(regexLines) == 0 {
				t.Errorf("%s: has a PatternNote but the code list has no RegEx", e.ICD)
			}
		case len(regexLines) == 0:
			if s.Pattern != "" {
				t.Errorf("%s: pattern %q but the code list has none", e.ICD, s.Pattern)
			}
		default:
			if len(regexLines) != 1 || s.Pattern != regexLines[0] {
				t.Errorf("%s: pattern %q, code list %q", e.ICD, s.Pattern, regexLines)
			}
		}
	}
}

func TestValidateParticipantID(t *testing.T) {
	tests := []struct {
		id          string
		ok          bool
		known       bool
		state       SchemeState
		syntax      bool
		check       CheckResult
		problems    []string // substrings, one per expected problem
		warningPart string
	}{
		{"0208:0677424046", true, true, SchemeActive, true, CheckValid, nil, ""},
		{"0208:0123456789", false, true, SchemeActive, true, CheckInvalid, []string{"fails the check-digit test of scheme 0208 (BE:EN)"}, ""},
		{"0208:2677424046", false, true, SchemeActive, false, CheckInvalid, []string{"does not have the syntax of scheme 0208 (BE:EN): [01][0-9]{9}"}, ""},
		{"9956:0899965307", false, true, SchemeRemoved, true, CheckValid, []string{"scheme 9956 (BE:CBE) was removed on 2023-12-31; use 0208"}, ""},
		{"9906:it06363391001", false, true, SchemeRemoved, true, CheckValid, []string{"scheme 9906 (IT:VAT) was removed on 2023-05-24; use 0211"}, ""},
		{"1234:abc", false, false, SchemeUnknown, true, CheckNotDefined, []string{"scheme '1234' is not in the Peppol participant identifier scheme code list 9.7"}, ""},
		{"0202:abc", false, false, SchemeUnknown, true, CheckNotDefined, []string{"not in the Peppol"}, ""},
		{"9909:no923609016mva", true, true, SchemeDeprecated, true, CheckValid, nil, "scheme 9909 (NO:VAT) is deprecated since code list release 1.1.0; use 0192"},
		{"0193:abcdef", true, true, SchemeDeprecated, true, CheckNotDefined, nil, "to be removed on 2026-07-07; use 0208"},
		{"0205:abc", false, true, SchemeActive, true, CheckNotDefined, []string{"scheme 0205 (IT:COD) cannot be registered"}, ""},
		{"0184:12345678", true, true, SchemeActive, true, CheckSoftInvalid, nil, "historical check-digit test"},
		{"9930:de811152493", true, true, SchemeActive, true, CheckNotDefined, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			id, err := ParseParticipantID(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			v := ValidateParticipantID(id)
			if v.OK() != tt.ok || v.Known != tt.known || v.State != tt.state || v.SyntaxValid != tt.syntax || v.Check != tt.check {
				t.Errorf("got ok=%v known=%v state=%v syntax=%v check=%v; want %v %v %v %v %v (problems %q)",
					v.OK(), v.Known, v.State, v.SyntaxValid, v.Check, tt.ok, tt.known, tt.state, tt.syntax, tt.check, v.Problems)
			}
			if len(v.Problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %d matching %q", v.Problems, len(tt.problems), tt.problems)
			}
			for i, p := range tt.problems {
				if !strings.Contains(v.Problems[i], p) {
					t.Errorf("problem %q does not contain %q", v.Problems[i], p)
				}
			}
			if tt.warningPart == "" && len(v.Warnings) > 0 || tt.warningPart != "" && (len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], tt.warningPart)) {
				t.Errorf("warnings %q, want one containing %q", v.Warnings, tt.warningPart)
			}
			if v.ID != id || v.Known && v.Scheme.ICD != id.ICD {
				t.Errorf("validation of %v reports id %v scheme %v", id, v.ID, v.Scheme.ICD)
			}
		})
	}
}

// TestRealIdentifiersNotWarned: identifiers as their registers really issue them, and
// as real participants register them, get no syntax or check-digit problem. Each row
// failed before the project's syntax overrides (scheme_overrides.go).
func TestRealIdentifiersNotWarned(t *testing.T) {
	for _, raw := range []string{
		"0106:54441587",          // KvK number: 8 digits
		"0106:55872255",          // ditto, from a real SMP answer
		"0106:12345678901234567", // the code list's old 17-digit form stays valid
		"9915:test",              // the test network's free-form test participants
		"9915:digit_test",        //
		"9915:123456789",         //
		"9915:test-peppolgate-invoice",
		"0208:0677424046",
		"0192:991825827",
		"0007:5590700299",
		"0088:5798009811578",
	} {
		id, err := ParseParticipantID(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if v := ValidateParticipantID(id); len(v.Problems) > 0 || !v.SyntaxValid {
			t.Errorf("%s: %v", raw, v.Problems)
		}
	}
	// The overrides still catch what a register never issues.
	for _, raw := range []string{"0106:5444158", "0106:544415870", "0106:54441587x"} {
		id, _ := ParseParticipantID(raw)
		if v := ValidateParticipantID(id); v.SyntaxValid {
			t.Errorf("%s: accepted", raw)
		}
	}
	for _, o := range syntaxOverrides() {
		s, ok := LookupScheme(o.ICD)
		if !ok || s.Pattern != o.Pattern || s.PatternNote != o.Why || o.Why == "" {
			t.Errorf("override of %s not applied or without a reason: %+v", o.ICD, s)
		}
	}
}

// TestFixtureIdentifiersNotWarned: every participant id in the real upstream samples
// (SMP answers, business cards, Directory exports and searches) of a scheme that is
// still active has the syntax its scheme prescribes; a syntax warning on a real
// participant is a false warning.
func TestFixtureIdentifiersNotWarned(t *testing.T) {
	root := fixtures.Upstream(t, "")
	re := regexp.MustCompile(`(?i)(?:iso6523-actorid-upis::|>)([0-9]{4}:[a-z0-9._+-]+)`)
	seen := map[string]bool{}
	for _, dir := range []string{"smp-peppol", "smp-bdxr1", "smp-bdxr2", "businesscard", "directory-export", "directory-search"} {
		files, _ := filepath.Glob(filepath.Join(root, dir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				seen[strings.ToLower(m[1])] = true
			}
		}
	}
	checked := 0
	for raw := range seen {
		id, err := ParseParticipantID(raw)
		if err != nil {
			continue
		}
		s, ok := LookupScheme(id.ICD)
		if !ok || s.State == SchemeRemoved || id.Value == "example" {
			continue // removal warnings are true; "example" is a documentation placeholder
		}
		checked++
		if v := ValidateParticipantID(id); !v.SyntaxValid {
			t.Errorf("%s from the samples: %v", raw, v.Problems)
		}
	}
	if checked < 10 {
		t.Errorf("only %d participant ids found in the samples: the test proves little", checked)
	}
}
