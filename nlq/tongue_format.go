package nlq

import (
	"strconv"
	"time"
)

// date writes a day the way the language usually does ("05/03/2027" in Spanish,
// "5.3.2027" in Finnish); ISO 8601 for a language without a layout (English quotes
// the registry's messages, which write it so).
func (t *tongue) date(d time.Time) string {
	layout := t.dateLayout
	if layout == "" {
		layout = time.DateOnly
	}
	return d.UTC().Format(layout)
}

// number writes n with the language's digit grouping ("12.345", "12 345"); numbers
// below groupFrom are written as they are ("2345" in Polish).
func (t *tongue) number(n int) string {
	s := strconv.Itoa(n)
	if t.thousands == "" || n < t.groupFrom || n < 1000 {
		return s
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3*len(t.thousands)+1)
	if neg {
		out = append(out, '-')
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, t.thousands...)
		}
		out = append(out, s[i])
	}
	return string(out)
}

// polishFew reports whether n takes the 2-4 form of a Polish noun: ending in 2, 3 or
// 4, but not 12, 13 or 14 ("22 faktury", "12 faktur").
func polishFew(n int) bool {
	if n < 0 {
		n = -n
	}
	return n%10 >= 2 && n%10 <= 4 && (n%100 < 12 || n%100 > 14)
}
