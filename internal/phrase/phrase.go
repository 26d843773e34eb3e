// Package phrase holds small helpers for the plain-language texts of the tools, of
// /ask and of error messages.
package phrase

import (
	"strconv"
	"strings"
)

// Plural renders n with noun, adding "es" (after "ch") or "s" when n is not 1:
// Plural(1, "match") is "1 match", Plural(3, "match") "3 matches".
func Plural(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	switch {
	case n == 1:
		return s
	case strings.HasSuffix(noun, "ch"):
		return s + "es"
	default:
		return s + "s"
	}
}

// quoteMax is how many runes of input Quote echoes.
const quoteMax = 80

// Shorten cuts s to at most n runes, marking a cut with "…".
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// Quote renders input echoed in a message: shortened to 80 runes and Go-quoted, with
// control and non-printable characters escaped, so that a message can neither grow
// without bound nor inject lines.
func Quote(s string) string {
	return strconv.Quote(Shorten(s, quoteMax))
}

// Grouped writes n with its digits in groups of three, separated by sep: Grouped(1234567,
// ",") is "1,234,567".
func Grouped(n int64, sep string) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// EditDistance is the Levenshtein distance of a and b, in runes: the number of runes
// to insert, delete or replace to turn one into the other (for "did you mean" hints).
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
