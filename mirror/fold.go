package mirror

// Terms cuts s into the folded terms the mirror indexes and searches names by: runs of
// letters and digits, lower-cased, diacritics dropped and ø æ ß ł đ þ œ spelt out (see
// terms). Other packages that compare names with what people type (nlq's entity
// linking) fold with it, so that a name matches there exactly when it matches here.
func Terms(s string) []string { return terms(s) }

// WithinTypo reports whether the typed term is within the mirror's typo tolerance of
// the name term: equal, or one edit away for a term of 5 runes or more, two from 9
// (insertion, deletion, substitution, transposition); a number only when equal. Both
// are folded terms (Terms).
func WithinTypo(typed, term string) bool {
	if typed == term {
		return true
	}
	a, b := []rune(typed), []rune(term)
	n := maxEdits(typed, len(a))
	return n > 0 && !isDigits(term) && editDistance(a, b, n) <= n
}
