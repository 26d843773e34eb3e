package registry

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q       string
		present bool
		country string
		want    SearchQuery
		code    Code
	}{
		{q: "acme", present: true, want: SearchQuery{Q: "acme"}},
		{q: " acme ", present: true, country: " be ", want: SearchQuery{Q: " acme ", Country: "BE"}},
		{q: "ab", present: true, country: "No", want: SearchQuery{Q: "ab", Country: "NO"}},
		{q: "ÅÄ", present: true, want: SearchQuery{Q: "ÅÄ"}},
		{present: false, code: CodeMissingQuery},
		{present: false, country: "  ", code: CodeMissingQuery},
		{present: false, country: "NO", want: SearchQuery{Country: "NO"}},
		{present: false, country: " se ", want: SearchQuery{Country: "SE"}},
		{q: "", present: true, country: "no", want: SearchQuery{Country: "NO"}},
		{q: " \t ", present: true, country: "NO", code: CodeInvalidRequest}, // a tab is a control character
		{q: "   ", present: true, country: "NO", want: SearchQuery{Q: "   ", Country: "NO"}},
		{q: "a", present: true, country: "NO", code: CodeQueryTooShort},
		{present: false, country: "NOR", code: CodeInvalidRequest},
		{present: false, country: "N1", code: CodeInvalidRequest},
		{q: "", present: true, code: CodeQueryTooShort},
		{q: "  x  ", present: true, code: CodeQueryTooShort},
		{q: strings.Repeat("é", MaxQueryLength), present: true, want: SearchQuery{Q: strings.Repeat("é", MaxQueryLength)}},
		{q: strings.Repeat("é", MaxQueryLength+1), present: true, code: CodeInvalidRequest},
		{q: "a\xffb", present: true, code: CodeInvalidRequest},
		{q: "ac\x00me", present: true, code: CodeInvalidRequest},
		{q: "acme\u0085", present: true, code: CodeInvalidRequest},
		{q: "acme", present: true, country: "BEL", code: CodeInvalidRequest},
		{q: "acme", present: true, country: "1E", code: CodeInvalidRequest},
		{q: "acme", present: true, country: "é", code: CodeInvalidRequest},
	}
	for _, tt := range tests {
		got, err := ParseSearch(tt.q, tt.present, tt.country)
		if code := ErrorCode(err); code != tt.code || (err == nil && got != tt.want) {
			t.Errorf("ParseSearch(%q, %v, %q) = %+v, %v; want %+v, code %q", tt.q, tt.present, tt.country, got, err, tt.want, tt.code)
		}
	}
}

func TestParseParticipantID(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0208:0677424046", " iso6523-actorid-upis::0208:0677424046 ", "ISO6523-ACTORID-UPIS::0208:0677424046"} {
		id, err := ParseParticipantID(in)
		if err != nil || id.String() != "0208:0677424046" {
			t.Errorf("%q: %v %v", in, id, err)
		}
	}
	for _, in := range []string{"", "0208", "BE:0677424046", "0208:", "0208:a b", "0208:" + strings.Repeat("1", 140)} {
		_, err := ParseParticipantID(in)
		var re *Error
		if err == nil || ErrorCode(err) != CodeInvalidParticipantID || !errors.As(err, &re) || re.Message == "" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestParseSearchPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw  string
		want int
		code Code
		msg  string
	}{
		{"", 1, "", ""},
		{"1", 1, "", ""},
		{" 2 ", 2, "", ""},
		{"40", 40, "", ""},
		{"41", 0, CodeInvalidRequest, "the Peppol Directory serves no result beyond the 1000th"},
		{"100000000000000000000", 0, CodeInvalidRequest, "page must be a whole number from 1 to 40"},
		{"0", 0, CodeInvalidRequest, "page must be a whole number from 1 to 40"},
		{"-1", 0, CodeInvalidRequest, "page must be a whole number from 1 to 40"},
		{"two", 0, CodeInvalidRequest, "page must be a whole number from 1 to 40"},
		{"1.5", 0, CodeInvalidRequest, "page must be a whole number from 1 to 40"},
	}
	for _, tt := range tests {
		got, err := ParseSearchPage(tt.raw)
		if got != tt.want || ErrorCode(err) != tt.code || (err != nil && !strings.Contains(err.Error(), tt.msg)) {
			t.Errorf("ParseSearchPage(%q) = %d, %v; want %d, %q containing %q", tt.raw, got, err, tt.want, tt.code, tt.msg)
		}
	}
}

func TestNextSearchPage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ page, total, want int }{
		{1, 0, 0}, {1, 25, 0}, {1, 26, 2}, {0, 26, 2}, {2, 50, 0}, {2, 51, 3},
		{39, 5000, 40}, {40, 5000, 0}, // the Directory serves no result beyond the 1000th
	} {
		if got := NextSearchPage(tt.page, tt.total); got != tt.want {
			t.Errorf("NextSearchPage(%d, %d) = %d, want %d", tt.page, tt.total, got, tt.want)
		}
	}
}
