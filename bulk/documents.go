package bulk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
)

// Kinds returns the document kinds a check may ask about: the categories of the
// Peppol code list's document types, sorted.
func Kinds() []string {
	var kinds []string
	for _, d := range codelist.DocumentTypes() {
		if d.Category != "" && !slices.Contains(kinds, d.Category) {
			kinds = append(kinds, d.Category)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// ParseDocuments checks document kinds against the code list's categories (any case,
// surrounding space ignored) and returns them as the code list spells them, without
// duplicates; none gives DefaultDocuments. It returns a *registry.Error with
// CodeInvalidRequest naming the known kinds for one it does not know.
func ParseDocuments(raw []string) ([]string, error) {
	if len(raw) == 0 {
		return DefaultDocuments(), nil
	}
	known := Kinds()
	var out []string
	for _, r := range raw {
		i := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, strings.TrimSpace(r)) })
		if i < 0 {
			return nil, &registry.Error{Code: registry.CodeInvalidRequest,
				Message: fmt.Sprintf("unknown document kind %s; the Peppol code list's kinds are %s", phrase.Quote(r), strings.Join(known, ", "))}
		}
		if !slices.Contains(out, known[i]) {
			out = append(out, known[i])
		}
	}
	return out, nil
}
