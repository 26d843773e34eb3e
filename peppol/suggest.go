package peppol

import (
	"regexp"
	"slices"
	"strings"
)

// schemeThenValue is a participant id written with a space or a dash instead of the
// colon, or with separators in its value: "0208 0677424046", "0208-0677424046",
// "0208:0677 424 046".
var schemeThenValue = regexp.MustCompile(`^(?i:iso6523-actorid-upis::)?([0-9]{4})\s*([:\s-])\s*(.+)$`)

// Suggestion is what a string that is not a participant id most likely means.
type Suggestion struct {
	// IDs are the participant ids it most likely means, best first (at most 3).
	IDs []ParticipantID
	// What says what the input looks like, e.g. "a Belgian VAT number" or "participant
	// id 0208:0677424046 written with separators".
	What string
}

// Suggest returns what raw, which ParseParticipantID refused, most likely means: a
// participant id written with a space for the colon or with spaces (and, where the
// scheme's syntax has none, dots, dashes or slashes) in its value, or a national or VAT
// number (see Candidates). ok is false when raw looks like neither.
func Suggest(raw string) (s Suggestion, ok bool) {
	in := strings.TrimSpace(raw)
	if in == "" || len(in) > MaxCandidateInput {
		return Suggestion{}, false
	}
	m := schemeThenValue.FindStringSubmatch(in)
	if m != nil && m[2] != ":" {
		// Four digits and a space or dash are a scheme only if the code list has it;
		// else they may be part of a national number.
		if _, known := LookupScheme(m[1]); !known {
			m = nil
		}
	}
	if m != nil {
		icd := m[1]
		compact := strings.Join(strings.Fields(m[3]), "")
		bare := strings.NewReplacer(".", "", "-", "", "/", "").Replace(compact)
		// A reading with the scheme's syntax, better one whose check digit does not
		// fail; an id its scheme could never issue is no suggestion.
		var best *ParticipantID
		bestRank := -1
		for _, v := range []string{compact, bare} {
			id, err := ParseParticipantID(icd + ":" + v)
			if err != nil {
				continue
			}
			if sc, known := LookupScheme(icd); known && !sc.MatchesSyntax(id.Value) {
				continue
			}
			rank := 0
			if CheckDigit(id.ICD, id.Value) != CheckInvalid {
				rank++
			}
			if rank > bestRank {
				best, bestRank = &id, rank
			}
		}
		if best != nil {
			how := "written with separators"
			if m[2] != ":" {
				how = "written without its colon"
			}
			return Suggestion{IDs: []ParticipantID{*best}, What: "participant id " + best.String() + " " + how}, true
		}
	}
	cands := Candidates(in)
	if len(cands) == 0 {
		return Suggestion{}, false
	}
	var what []string
	for _, c := range cands[:min(len(cands), 3)] {
		s.IDs = append(s.IDs, c.ID)
		if d := c.Description; d != "" && !slices.Contains(what, article(d)+" "+d) {
			what = append(what, article(d)+" "+d)
		}
	}
	s.What = strings.Join(what, " or ")
	if s.What == "" {
		s.What = "a registration number"
	}
	return s, true
}

// article is "an" before a vowel sound (as far as the descriptions go), else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
