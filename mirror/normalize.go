package mirror

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/peppolgate/peppolgate/peppol"
)

// Folding is what makes "Muller" find "Müller" and "orjan" find "ØRJAN": names and queries
// are cut into terms the same way (runs of letters and digits), lower-cased, decomposed
// (NFKD) with the combining marks dropped, and the letters Unicode does not decompose
// spelled the way people type them without their keyboard's key.

// specialFolds are letters without a Unicode decomposition, and how they are typed on a
// keyboard without them.
var specialFolds = map[rune]string{
	'ø': "o", 'Ø': "o", 'æ': "ae", 'Æ': "ae", 'ß': "ss", 'ẞ': "ss",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'þ': "th", 'Þ': "th", 'œ': "oe", 'Œ': "oe", 'ı': "i", 'ħ': "h", 'Ħ': "h",
	'ŧ': "t", 'Ŧ': "t", 'ŀ': "l", 'Ŀ': "l", 'ĳ': "ij", 'Ĳ': "ij",
}

// appendFolded appends the folded form of the letter or digit r to b.
func appendFolded(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(b, byte(r))
	}
	if s, ok := specialFolds[r]; ok {
		return append(b, s...)
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	d := norm.NFKD.Properties(buf[:n]).Decomposition()
	if d == nil {
		return utf8.AppendRune(b, unicode.ToLower(r))
	}
	for len(d) > 0 {
		c, size := utf8.DecodeRune(d)
		d = d[size:]
		switch {
		case unicode.Is(unicode.Mn, c):
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			b = appendFolded(b, c)
		}
	}
	return b
}

// terms cuts s into folded terms: maximal runs of letters and digits (combining marks
// inside a run are dropped, so a decomposed "é" stays one term), each folded. Anything
// else separates terms; in particular every character of the FTS5 query syntax.
func terms(s string) []string {
	var out []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && ('a' <= r && r <= 'z' || '0' <= r && r <= '9'):
			cur = append(cur, byte(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = appendFolded(cur, r)
		case unicode.Is(unicode.Mn, r) && len(cur) > 0:
		default:
			flush()
		}
	}
	flush()
	return out
}

// compactKey is an identifier as it is compared: folded, with everything but letters and
// digits removed ("BE 0677.424.046" → "be0677424046").
func compactKey(s string) string { return strings.Join(terms(s), "") }

// hasDigit reports whether s holds an ASCII digit.
func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}

// removeSpace drops every white-space character of s.
func removeSpace(s string) string {
	if strings.IndexFunc(s, unicode.IsSpace) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// normalisePID is the form under which a card's participant is stored and looked up:
// "<icd>:<value>" with the value lower-cased, the scheme prefix
// "iso6523-actorid-upis::" and all white space removed. An identifier that
// peppol.ParseParticipantID refuses is kept lower-cased as written.
func normalisePID(value string) string {
	v := removeSpace(value)
	if id, err := peppol.ParseParticipantID(v); err == nil {
		return id.String()
	}
	const prefix = peppol.ParticipantScheme + "::"
	if len(v) >= len(prefix) && strings.EqualFold(v[:len(prefix)], prefix) {
		v = v[len(prefix):]
	}
	return strings.ToLower(v)
}

// isDigits reports whether s is non-empty and all ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// editDistance is the optimal-string-alignment distance between a and b (insertions,
// deletions, substitutions and transpositions of adjacent runes), or max+1 when it
// exceeds max.
func editDistance(a, b []rune, max int) int {
	return editDistanceRows(a, b, max, make([]int, 3*(len(b)+1)))
}

// editDistanceRows is editDistance with its scratch space rows, of 3*(len(b)+1) ints.
func editDistanceRows(a, b []rune, max int, rows []int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	// Three rows: the one before the previous is needed for transpositions.
	w := len(b) + 1
	prev2, prev, cur := rows[:w], rows[w:2*w], rows[2*w:3*w]
	clear(prev2)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > max {
		return max + 1
	}
	return prev[len(b)]
}

// maxEdits is the typo tolerance for a term of n runes: none below 5, one edit from 5,
// two from 9. Numbers are never matched approximately.
func maxEdits(t string, n int) int {
	switch {
	case isDigits(t) || n < 5:
		return 0
	case n < 9:
		return 1
	default:
		return 2
	}
}
