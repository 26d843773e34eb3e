package phrase

import "testing"

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "match", "0 matches"}, {1, "match", "1 match"}, {25, "Peppol Directory match", "25 Peppol Directory matches"},
		{1, "document type", "1 document type"}, {2, "document type", "2 document types"},
	} {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
