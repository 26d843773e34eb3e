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
