package bulk

import (
	"strings"
	"testing"
)

// TestKinds: the kinds are the code list's categories, once each, and parse
// back to themselves.
func TestKinds(t *testing.T) {
	t.Parallel()
	kinds := Kinds()
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k] {
			t.Errorf("%q twice", k)
		}
		seen[k] = true
	}
	for _, want := range []string{"Invoice", "Credit Note", "Order", "Order Response", "Despatch Advice"} {
		if !seen[want] {
			t.Errorf("no kind %q in %v", want, kinds)
		}
	}
	got, err := ParseDocuments(kinds)
	if err != nil || strings.Join(got, "|") != strings.Join(kinds, "|") {
		t.Errorf("ParseDocuments(every kind) = %v, %v", got, err)
	}
	if got, err := ParseDocuments(nil); err != nil || strings.Join(got, "|") != strings.Join(DefaultDocuments(), "|") {
		t.Errorf("ParseDocuments(nil) = %v, %v", got, err)
	}
}
