package peppol

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	tests := []struct {
		in   string
		ids  []string
		what string
	}{
		{"BE0677424046", []string{"0208:0677424046", "9925:be0677424046"}, "a Belgian enterprise number or a Belgian VAT number"},
		{"0208:0677 424 046", []string{"0208:0677424046"}, "participant id 0208:0677424046 written with separators"},
		{"0208 0677424046", []string{"0208:0677424046"}, "participant id 0208:0677424046 written without its colon"},
		{"0208-0677424046", []string{"0208:0677424046"}, "participant id 0208:0677424046 written without its colon"},
		{" 0208 : 0677.424.046 ", []string{"0208:0677424046"}, "participant id 0208:0677424046 written with separators"},
		{"9925:BE 0677.424.046", []string{"9925:be0677424046"}, "participant id 9925:be0677424046 written with separators"},
		{"iso6523-actorid-upis::0106 54441587", []string{"0106:54441587"}, "participant id 0106:54441587 written without its colon"},
		{"KvK 54441587", []string{"0106:54441587"}, "a Dutch Chamber of Commerce (KvK) number"},
		{"NL851306469B01", []string{"9944:nl851306469b01"}, "a Dutch VAT number"},
		{"acme", nil, ""},
		{"0208-123", nil, ""}, // 0208:123 is no enterprise number: no suggestion
		{"", nil, ""},
		{"0208:", nil, ""},
	}
	for _, tt := range tests {
		s, ok := Suggest(tt.in)
		var ids []string
		for _, id := range s.IDs {
			ids = append(ids, id.String())
		}
		if ok != (tt.ids != nil) || !slices.Equal(ids, tt.ids) || s.What != tt.what {
			t.Errorf("Suggest(%q) = %v %q %v, want %v %q", tt.in, ids, s.What, ok, tt.ids, tt.what)
		}
	}
}
