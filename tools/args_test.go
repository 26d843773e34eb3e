package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

func TestParseSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q       string
		present bool
		country string
		want    registry.SearchQuery
		code    registry.Code
	}{
		{q: "acme", present: true, want: registry.SearchQuery{Q: "acme"}},
		{q: " acme ", present: true, country: " be ", want: registry.SearchQuery{Q: " acme ", Country: "BE"}},
		{q: "ab", present: true, country: "No", want: registry.SearchQuery{Q: "ab", Country: "NO"}},
		{q: "ÅÄ", present: true, want: registry.SearchQuery{Q: "ÅÄ"}},
		{present: false, code: registry.CodeMissingQuery},
		{present: false, country: "  ", code: registry.CodeMissingQuery},
		{present: false, country: "NO", want: registry.SearchQuery{Country: "NO"}},
		{present: false, country: " se ", want: registry.SearchQuery{Country: "SE"}},
		{q: "", present: true, country: "no", want: registry.SearchQuery{Country: "NO"}},
		{q: " \t ", present: true, country: "NO", code: registry.CodeInvalidRequest}, // a tab is a control character
		{q: "   ", present: true, country: "NO", want: registry.SearchQuery{Q: "   ", Country: "NO"}},
		{q: "a", present: true, country: "NO", code: registry.CodeQueryTooShort},
		{present: false, country: "NOR", code: registry.CodeInvalidRequest},
		{present: false, country: "N1", code: registry.CodeInvalidRequest},
		{q: "", present: true, code: registry.CodeQueryTooShort},
		{q: "  x  ", present: true, code: registry.CodeQueryTooShort},
		{q: strings.Repeat("é", registry.MaxQueryLength), present: true, want: registry.SearchQuery{Q: strings.Repeat("é", registry.MaxQueryLength)}},
		{q: strings.Repeat("é", registry.MaxQueryLength+1), present: true, code: registry.CodeInvalidRequest},
		{q: "a\xffb", present: true, code: registry.CodeInvalidRequest},
		{q: "ac\x00me", present: true, code: registry.CodeInvalidRequest},
		{q: "acme\u0085", present: true, code: registry.CodeInvalidRequest},
		{q: "acme", present: true, country: "BEL", code: registry.CodeInvalidRequest},
		{q: "acme", present: true, country: "1E", code: registry.CodeInvalidRequest},
		{q: "acme", present: true, country: "é", code: registry.CodeInvalidRequest},
	}
	for _, tt := range tests {
		got, err := ParseSearch(tt.q, tt.present, tt.country)
		if code := registry.ErrorCode(err); code != tt.code || (err == nil && got != tt.want) {
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
		var re *registry.Error
		if err == nil || registry.ErrorCode(err) != registry.CodeInvalidParticipantID || !errorAs(err, &re) || re.Message == "" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func errorAs(err error, re **registry.Error) bool {
	e, ok := err.(*registry.Error)
	*re = e
	return ok
}

func TestDecodeArgs(t *testing.T) {
	t.Parallel()
	type args struct {
		A *string `json:"a"`
		B int     `json:"b"`
	}
	tests := []struct {
		raw    string
		wantIn string // "" means success
	}{
		{raw: ``}, {raw: `null`}, {raw: `{}`}, {raw: ` {"a":"x","b":2} `},
		{raw: `{"c":1}`, wantIn: `unknown argument "c"; t takes a and b`},
		{raw: `{"a":1}`, wantIn: "argument a of t must be a JSON string, not a JSON number"},
		{raw: `{"b":"x"}`, wantIn: "argument b of t must be a JSON integer, not a JSON string"},
		{raw: `[1]`, wantIn: "must be a JSON object with a and b"},
		{raw: `"a"`, wantIn: "must be a JSON object"},
		{raw: `{"a":"x"} {}`, wantIn: "must be a JSON object"},
		{raw: `{"a":`, wantIn: "must be a JSON object"},
	}
	for _, tt := range tests {
		var a args
		err := decodeArgs("t", json.RawMessage(tt.raw), &a, "a and b")
		switch {
		case tt.wantIn == "" && err != nil:
			t.Errorf("%s: %v", tt.raw, err)
		case tt.wantIn != "" && (registry.ErrorCode(err) != registry.CodeInvalidRequest || !strings.Contains(err.Error(), tt.wantIn)):
			t.Errorf("%s: %v, want invalid_request containing %q", tt.raw, err, tt.wantIn)
		}
	}
}
