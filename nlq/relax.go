package nlq

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// RelaxedQueries returns the queries to try, in order, when a company name q finds
// nothing: every word of five letters or more cut to its first 70 % (at least four
// letters: "Maschinenbau Nielsn" → "Maschinen Niels"), then, for a name of several
// words, the longest word so cut alone. A number is never relaxed (nil).
func RelaxedQueries(q string) []string {
	if len(peppol.Candidates(q)) > 0 {
		return nil
	}
	words := strings.Fields(q)
	cut := make([]string, 0, len(words))
	longest := ""
	for _, w := range words {
		c := cutWord(w)
		cut = append(cut, c)
		if utf8.RuneCountInString(c) > utf8.RuneCountInString(longest) {
			longest = c
		}
	}
	var out []string
	if all := strings.Join(cut, " "); all != q && utf8.RuneCountInString(all) >= registry.MinQueryLength {
		out = append(out, all)
	}
	if len(words) > 1 && utf8.RuneCountInString(longest) >= ruleMinStem && !slices.Contains(out, longest) {
		out = append(out, longest)
	}
	return out
}

// cutWord returns the first 70 % of a word of five letters or more, at least four.
func cutWord(w string) string {
	r := []rune(w)
	if len(r) < 5 {
		return w
	}
	return string(r[:max(ruleMinStem, (len(r)*7+9)/10)])
}

// anyNameHas reports whether some hit's name has every word of typed (NameHas); a
// number never needs to.
func anyNameHas(sr *registry.SearchResult, typed string) bool {
	if len(peppol.Candidates(typed)) > 0 {
		return true
	}
	return slices.ContainsFunc(sr.Results, func(h registry.SearchHit) bool { return NameHas(h.Name, typed) })
}

// NameHas reports whether name has every word of typed in it, case, diacritics and
// punctuation aside ("Alvdal" is in "Älvdal Konsult AB").
func NameHas(name, typed string) bool {
	folded := foldWords(name)
	for _, w := range strings.Fields(foldWords(typed)) {
		if !strings.Contains(folded, w) {
			return false
		}
	}
	return true
}

// foldWords folds s (ruleFold) and turns every character that is no letter or digit
// into a space, as the Directory and the mirror split words ("Müller-Bau").
func foldWords(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return ' '
	}, ruleFold(s))
}

// rankExactFirst moves the hits whose name is the typed name (folded: case and
// diacritics aside) to the front, keeping the order of the others.
func rankExactFirst(sr *registry.SearchResult, typed string) *registry.SearchResult {
	if typed == "" || len(sr.Results) < 2 {
		return sr
	}
	want := ruleFold(typed)
	if !slices.ContainsFunc(sr.Results, func(h registry.SearchHit) bool { return ruleFold(h.Name) == want }) {
		return sr
	}
	out := *sr
	out.Results = slices.Clone(sr.Results)
	slices.SortStableFunc(out.Results, func(a, b registry.SearchHit) int {
		return boolRank(ruleFold(a.Name) == want) - boolRank(ruleFold(b.Name) == want)
	})
	return &out
}

// boolRank sorts true before false.
func boolRank(b bool) int {
	if b {
		return 0
	}
	return 1
}

// RankByCloseness returns sr with its hits, those of a relaxed search, ordered by how
// close their names are to the typed name: the sum, over the typed words, of the edit
// distance to the nearest word of the name (compared on as many letters as the typed
// word has, plus one); ties keep the Directory's order. sr is not changed.
func RankByCloseness(sr *registry.SearchResult, typed string) *registry.SearchResult {
	words := strings.Fields(ruleFold(typed))
	out := *sr
	out.Results = slices.Clone(sr.Results)
	dist := make(map[string]int, len(out.Results))
	for _, h := range out.Results {
		name := strings.Fields(ruleFold(h.Name))
		d := 0
		for _, w := range words {
			best := utf8.RuneCountInString(w)
			for _, n := range name {
				if r := []rune(n); len(r) > len([]rune(w))+1 {
					n = string(r[:len([]rune(w))+1])
				}
				best = min(best, phrase.EditDistance(w, n))
			}
			d += best
		}
		dist[h.ParticipantID+"\x00"+h.Name] = d
	}
	slices.SortStableFunc(out.Results, func(a, b registry.SearchHit) int {
		return dist[a.ParticipantID+"\x00"+a.Name] - dist[b.ParticipantID+"\x00"+b.Name]
	})
	return &out
}
