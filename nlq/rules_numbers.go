package nlq

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

// ruleIDPattern finds participant ids written with or without their scheme, also
// URL-encoded as in Directory links ("iso6523-actorid-upis%3A%3A0208%3A0677424046").
var ruleIDPattern = regexp.MustCompile(`(?i)(?:iso6523-actorid-upis(?:::|%3a%3a))?[0-9]{4}(?::|%3a)[a-z0-9._+\-]+`)

// ruleSpan is the part of a question that is its subject: tokens [lo, hi) and the
// subject text.
type ruleSpan struct {
	lo, hi  int
	subject string
}

// findID returns the first participant id in the question, canonical
// (peppol.ParseParticipantID(...).String()).
func (s *ruleScan) findID() (ruleSpan, bool) {
	if !strings.Contains(s.q, ":") && !strings.Contains(s.q, "%3") {
		return ruleSpan{}, false
	}
	for _, m := range ruleIDPattern.FindAllStringIndex(s.q, 4) {
		start, end := m[0], m[1]
		if start > 0 {
			if c := s.q[start-1]; c < utf8.RuneSelf && (ruleWordRune(rune(c)) || c == ':' || c == '-' || c == '.') {
				continue // part of a longer word or number
			}
		}
		// A sentence's full stop or a dash after the id is no part of it.
		for end > start && (s.q[end-1] == '.' || s.q[end-1] == '-') {
			end--
		}
		text := s.q[start:end]
		if strings.Contains(text, "%") {
			text = strings.NewReplacer("%3a", ":", "%3A", ":").Replace(text)
		}
		id, err := peppol.ParseParticipantID(text)
		if err != nil {
			continue
		}
		lo, hi := s.tokensIn(start, end)
		return ruleSpan{lo: lo, hi: hi, subject: id.String()}, true
	}
	return ruleSpan{}, false
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
	for i := 0; i < len(toks); i++ {
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
