package mirror

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"Müller Maschinenbau GmbH", []string{"muller", "maschinenbau", "gmbh"}},
		{"Société Générale", []string{"societe", "generale"}},
		{"ØRJAN HAUGSVÆR", []string{"orjan", "haugsvaer"}},
		{"Straße Łódź Đoković Œuvre Þór", []string{"strasse", "lodz", "dokovic", "oeuvre", "thor"}},
		{"Åse Ærø", []string{"ase", "aero"}},
		{"Soe\u0301ren", []string{"soeren"}}, // decomposed é stays in the term
		{"TA-EIENDOM 2 AS", []string{"ta", "eiendom", "2", "as"}},
		{"Söderorts Bygg & Betong AB", []string{"soderorts", "bygg", "betong", "ab"}},
		{`"bygg*" OR (hold) NEAR/2 -x ^y :z`, []string{"bygg", "or", "hold", "near", "2", "x", "y", "z"}},
		{"ﬁrma ＡＢＣ", []string{"firma", "abc"}}, // compatibility forms
		{"Ελληνική Εταιρεία", []string{"ελληνικη", "εταιρεια"}},
		{`"*:()^-+"`, nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := terms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalisePID(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0208:0677424046", "0208:0677424046"},
		{"9925:BE0677424046", "9925:be0677424046"},
		{"iso6523-actorid-upis::0208:0677424046", "0208:0677424046"},
		{" 0106 : 54441587\n", "0106:54441587"},
		{"ISO6523-ACTORID-UPIS::Weird Value!", "weirdvalue!"},
		{"12:abc", "12:abc"},
	}
	for _, tt := range tests {
		if got := normalisePID(tt.in); got != tt.want {
			t.Errorf("normalisePID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCompactKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"BE 0677.424.046": "be0677424046",
		"NL851306469B01":  "nl851306469b01",
		"556036-0793":     "5560360793",
		" ":               "",
	} {
		if got := compactKey(in); got != want {
			t.Errorf("compactKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		max  int
		want int
	}{
		{"hansen", "hansen", 2, 0},
		{"hansen", "hanssen", 2, 1},  // insertion
		{"hansen", "hanen", 2, 1},    // deletion
		{"hansen", "hansan", 2, 1},   // substitution
		{"hansen", "hnasen", 2, 1},   // transposition
		{"hansen", "jansan", 2, 2},   // two substitutions
		{"hansen", "nahsen", 1, 2},   // beyond max
		{"hansen", "andersen", 1, 2}, // length differs by 2
		{"müller", "muller", 1, 1},   // runes, not bytes
		{"", "ab", 2, 2},
	}
	for _, tt := range tests {
		if got := editDistance([]rune(tt.a), []rune(tt.b), tt.max); got != tt.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.max, got, tt.want)
		}
	}
}

func TestMaxEdits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		t    string
		want int
	}{{"bygg", 0}, {"hansen", 1}, {"kristians", 2}, {"123456789", 0}, {"holde", 1}} {
		if got := maxEdits(tt.t, len([]rune(tt.t))); got != tt.want {
			t.Errorf("maxEdits(%q) = %d, want %d", tt.t, got, tt.want)
		}
	}
}
