package nlq

import (
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

// ruleSpan is the part of a question that is its subject: tokens [lo, hi) and the
// subject text.
type ruleSpan struct {
	lo, hi  int
	subject string
}

// findID returns the first participant id in the question, canonical
// (peppol.ParseParticipantID(...).String()): four digits, a colon and a value, with or
// without the scheme, in any case, also URL-encoded as in Directory links
// ("iso6523-actorid-upis%3A%3A0208%3A0677424046"), not inside a longer word.
func (s *ruleScan) findID() (ruleSpan, bool) {
	q := s.q
	for i := 0; i+5 < len(q); i++ {
		if !ruleDigits(q[i : i+4]) {
			continue
		}
		sep := ruleIDSeparator(q[i+4:])
		if sep == 0 {
			continue
		}
		start := i
		if n := ruleSchemePrefix(q[:i]); n > 0 {
			start = i - n
		}
		if start > 0 {
			if c := q[start-1]; c < utf8.RuneSelf && (ruleWordRune(rune(c)) || c == ':' || c == '-' || c == '.' || c == '%') {
				continue // inside a longer word or number
			}
		}
		end := i + 4 + sep
		for end < len(q) && ruleIDValueByte(q[end]) {
			end++
		}
		// A sentence's full stop or a dash after the id is no part of it.
		for end > i+4+sep && (q[end-1] == '.' || q[end-1] == '-') {
			end--
		}
		if end == i+4+sep {
			continue
		}
		id, err := peppol.ParseParticipantID(q[i:i+4] + ":" + q[i+4+sep:end])
		if err != nil {
			continue
		}
		lo, hi := s.tokensIn(start, end)
		return ruleSpan{lo: lo, hi: hi, subject: id.String()}, true
	}
	return ruleSpan{}, false
}

func ruleDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ruleIDSeparator returns the length of the ':' or "%3A" at the start of s, 0 if
// there is none.
func ruleIDSeparator(s string) int {
	switch {
	case strings.HasPrefix(s, ":"):
		return 1
	case len(s) >= 3 && strings.EqualFold(s[:3], "%3a"):
		return 3
	}
	return 0
}

// ruleSchemePrefix returns the length of the "iso6523-actorid-upis::" (or its
// URL-encoded form) that before ends with, 0 if none.
func ruleSchemePrefix(before string) int {
	for _, p := range [...]string{peppol.ParticipantScheme + "::", peppol.ParticipantScheme + "%3a%3a"} {
		if len(before) >= len(p) && strings.EqualFold(before[len(before)-len(p):], p) {
			return len(p)
		}
	}
	return 0
}

// ruleIDValueByte reports whether c may be part of a participant id's value.
func ruleIDValueByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '+'
}

// tokensIn returns the tokens that overlap bytes [start, end).
func (s *ruleScan) tokensIn(start, end int) (lo, hi int) {
	lo = len(s.toks)
	for i, t := range s.toks {
		if t.end > start && t.start < end {
			if i < lo {
				lo = i
			}
			hi = i + 1
		}
	}
	if hi == 0 {
		return 0, 0
	}
	return lo, hi
}

// ruleMaxNumberTokens bounds the tokens of a written number ("NO 923 609 016 MVA" has
// five; "SIRET 732 829 320 00074" five).
const ruleMaxNumberTokens = 7

// findNumber returns the national or VAT number in the question that
// peppol.Candidates recognises: the best-checking, then longest, then first run of
// number tokens, with a country prefix written in capitals ("BE 0677.424.046"), a
// label before it ("KvK 54441587", "org.nr. 923 609 016") and "MVA" or the like after
// it. The subject is that text as written.
func (s *ruleScan) findNumber() (ruleSpan, bool) {
	if !strings.ContainsAny(s.q, "0123456789") {
		return ruleSpan{}, false
	}
	best, bestRank := ruleSpan{}, -1
	toks := s.toks
	budget := ruleMaxNumberTries
	for i := 0; i < len(toks) && budget > 0; i++ {
		if !toks[i].digit || !toks[i].number {
			continue
		}
		// [a, b) is a run of digit-bearing tokens separated by white space only.
		a, b := i, i+1
		for b < len(toks) && b-a < ruleMaxNumberTokens && toks[b].digit && toks[b].number && s.spaced(b-1, b) {
			b++
		}
		i = b - 1
		first := a
		for first > 0 && a-first < 3 && s.numberPrefix(first-1, a) {
			first--
		}
		last := b
		if last < len(toks) && toks[last].word && ruleLex.numberSuffixes[toks[last].key] && s.spaced(last-1, last) {
			last++
		}
		for lo := first; lo < b; lo++ {
			if lo < a && !toks[lo].word {
				continue // never start at a label's colon
			}
			for hi := last; hi > max(lo, a); hi-- {
				if bestRank >= ruleValidRank && bestRank%ruleValidRank >= hi-lo {
					break // a checking reading at least as long is already found
				}
				text := s.q[toks[lo].start:toks[hi-1].end]
				if d := ruleCountDigits(text); d < ruleMinNumberDigits || d > peppol.MaxCandidateInput/4 || budget == 0 {
					continue
				}
				budget--
				cands := peppol.Candidates(text)
				if len(cands) == 0 {
					continue
				}
				// Better check digits first, then longer texts.
				rank := (3-ruleCheckRank(cands[0].Check))*ruleValidRank/3 + hi - lo
				if rank > bestRank {
					best, bestRank = ruleSpan{lo: lo, hi: hi, subject: strings.TrimSpace(text)}, rank
				}
				if cands[0].Check == peppol.CheckValid {
					break // shorter texts from lo read no better
				}
			}
		}
	}
	return best, bestRank >= 0
}

// ruleMinNumberDigits is the fewest digits of a number the planner reads as one: the
// national numbers have eight or more, and a shorter code after a country prefix
// ("EE 1") is more likely part of a name.
const ruleMinNumberDigits = 6

// ruleMaxNumberTries bounds the readings one question tries, so that a question full
// of digits costs no more than a few hundred microseconds.
const ruleMaxNumberTries = 48

func ruleCountDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// ruleValidRank is the rank of a reading whose check digits hold, before its length is
// added; ranks of other readings are lower thirds of it.
const ruleValidRank = 3000

// ruleCheckRank orders check results as peppol.Candidates does: 0 is best.
func ruleCheckRank(c peppol.CheckResult) int {
	switch c {
	case peppol.CheckValid:
		return 0
	case peppol.CheckNotDefined:
		return 1
	case peppol.CheckSoftInvalid:
		return 2
	}
	return 3
}

// spaced reports whether only white space separates tokens i and j.
func (s *ruleScan) spaced(i, j int) bool {
	gap := s.q[s.toks[i].end:s.toks[j].start]
	return strings.TrimSpace(gap) == "" && !strings.ContainsAny(gap, "\n\r")
}

// numberPrefix reports whether token i may precede a number that starts at token a:
// a country code in capitals right before the digits, a number label, or the colon,
// '#' or full stop after a label.
func (s *ruleScan) numberPrefix(i, a int) bool {
	t := s.toks[i]
	adjacent := s.spaced(i, i+1) || t.end == s.toks[i+1].start
	if !adjacent {
		return false
	}
	switch {
	case !t.word:
		return (t.key == ":" || t.key == "#" || t.key == ".") && i > 0 && s.toks[i-1].word && ruleLex.numberLabels[s.toks[i-1].key]
	case ruleLex.numberLabels[t.key]:
		return true
	case i+1 == a && len(t.key) == 2 && !t.lower && !t.digit && lexLetters(t.key):
		return true // "BE 0677.424.046"
	}
	return false
}
