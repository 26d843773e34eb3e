// Package phrase holds small helpers for the plain-language texts of the tools and
// of /ask.
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
