package main

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldSpecial spells out the letters that Unicode does not decompose into a base letter
// and a combining mark.
var foldSpecial = map[rune]string{
	'ß': "ss", 'æ': "ae", 'ø': "o", 'œ': "oe", 'đ': "d", 'ł': "l", 'þ': "th", 'ð': "d", 'ı': "i",
}

// fold lower-cases s and folds diacritics away (ü→u, é→e, ø→o, æ→ae, å→a, ß→ss), the
// way PostgreSQL's side of the benchmark stores and queries names.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if t, ok := foldSpecial[r]; ok {
			b.WriteString(t)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// terms are the folded words of q: the runs of letters and digits.
func terms(q string) []string {
	return strings.FieldsFunc(fold(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// idKey is an identifier normalised for exact matching: its letters and digits,
// folded, e.g. "BE 0677.424.046" → "be0677424046".
func idKey(s string) string {
	return strings.Join(terms(s), "")
}

// pidKey is a participant identifier as the benchmark stores it, "<icd>:<value>"
// lower-case, without the "iso6523-actorid-upis::" scheme when present.
func pidKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	return s
}
