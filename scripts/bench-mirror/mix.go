package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query kinds of the mix.
const (
	kindNames  = "names"  // one or two whole words of a card's name
	kindPrefix = "prefix" // the first word and the first 3–5 letters of the next
	kindTypo   = "typo"   // a word of ≥ 6 letters with one typo, maybe with another word
	kindID     = "id"     // a participant id or an additional identifier as written
)

// kinds are the query kinds in report order, with their shares of the queries without
// a country filter; a further countryShare of all queries has a country filter and
// draws its kind with the same relative weights.
var kinds = []struct {
	name  string
	share float64
}{{kindNames, 0.35}, {kindPrefix, 0.20}, {kindTypo, 0.15}, {kindID, 0.15}}

const countryShare = 0.15

// query is one query of the mix.
type query struct {
	// kind is one of the kind* constants.
	kind string
	// text is the q parameter.
	text string
	// country is the country filter, "" for none.
	country string
	// card is the index of the card the query was made from, pid its participant id.
	card int
	pid  string
}

// label is the query's kind with "+country" when it has a country filter.
func (q query) label() string {
	if q.country != "" {
		return q.kind + "+country"
	}
	return q.kind
}

// cardAt returns generated card i.
type cardAt func(i int) card

// A word is common (legal forms such as "GmbH", "AS" or "HB", "Société", "de") when
// it is in more than commonShare of the names, or in more than commonCountryShare of
// the names of one country. People do not search for a common word alone, so a names
// or typo query always has a word that is not common (and, for names, has at least
// three letters or digits: "e.U." is a legal form too).
const (
	commonShare        = 0.01
	commonCountryShare = 0.05
	// commonSample is how many cards, spread over the export, commonWords looks at.
	commonSample = 20000
)

// commonWords are the common words (by wordKey) of a sample of the cards.
func commonWords(at cardAt, ncards int) map[string]bool {
	n := min(ncards, commonSample)
	df := map[string]int{}
	cdf := map[[2]string]int{}
	names := 0
	cnames := map[string]int{}
	for k := range n {
		c := at(int(int64(k) * int64(ncards) / int64(n)))
		for _, name := range c.names {
			names++
			cnames[c.country]++
			seen := map[string]bool{}
			for _, w := range nameWords(name) {
				if f := wordKey(w); !seen[f] {
					seen[f] = true
					df[f]++
					cdf[[2]string{c.country, f}]++
				}
			}
		}
	}
	common := map[string]bool{}
	for w, k := range df {
		if float64(k) > commonShare*float64(names) {
			common[w] = true
		}
	}
	for cw, k := range cdf {
		if cn := cnames[cw[0]]; cn >= 100 && float64(k) > commonCountryShare*float64(cn) {
			common[cw[1]] = true
		}
	}
	return common
}

// buildMix makes n queries from the cards of at (ncards of them), deterministically
// from seed. It returns an error when the cards do not allow a kind (e.g. no card has
// a word long enough for a typo after many tries).
func buildMix(at cardAt, ncards, n int, seed uint64) ([]query, error) {
	if ncards <= 0 || n <= 0 {
		return nil, fmt.Errorf("need cards and queries, have %d cards and %d queries", ncards, n)
	}
	common := commonWords(at, ncards)
	r := rand.New(rand.NewPCG(seed, 0x6d6978))
	// Exact counts per kind, so that the composition does not depend on luck.
	var plan []query
	withCountry := int(float64(n)*countryShare + 0.5)
	rest := n - withCountry
	for _, part := range []struct {
		n       int
		country bool
	}{{rest, false}, {withCountry, true}} {
		counts := apportion(part.n)
		for k, c := range counts {
			for range c {
				q := query{kind: kinds[k].name}
				if part.country {
					q.country = "?"
				}
				plan = append(plan, q)
			}
		}
	}
	r.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	for i := range plan {
		q, err := makeQuery(r, at, ncards, plan[i].kind, common)
		if err != nil {
			return nil, err
		}
		if plan[i].country == "" {
			q.country = ""
		}
		plan[i] = q
	}
	return plan, nil
}

// apportion splits n over kinds by their shares, largest remainders first.
func apportion(n int) []int {
	total := 0.0
	for _, k := range kinds {
		total += k.share
	}
	counts := make([]int, len(kinds))
	rem := make([]float64, len(kinds))
	left := n
	for i, k := range kinds {
		exact := float64(n) * k.share / total
		counts[i] = int(exact)
		rem[i] = exact - float64(counts[i])
		left -= counts[i]
	}
	order := []int{0, 1, 2, 3}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for i := 0; left > 0; i++ {
		counts[order[i%len(order)]]++
		left--
	}
	return counts
}

// makeQuery draws cards until one allows a query of kind; the query carries the card's
// country, which the caller drops for queries without a filter.
func makeQuery(r *rand.Rand, at cardAt, ncards int, kind string, common map[string]bool) (query, error) {
	for range 1000 {
		i := r.IntN(ncards)
		c := at(i)
		q := query{kind: kind, card: i, pid: c.pid, country: c.country}
		if len(c.names) == 0 {
			continue
		}
		words := nameWords(c.names[r.IntN(len(c.names))])
		switch kind {
		case kindNames:
			var rare []int
			for k, w := range words {
				if key := wordKey(w); !common[key] && len([]rune(strings.ReplaceAll(key, " ", ""))) >= 3 {
					rare = append(rare, k)
				}
			}
			if len(rare) == 0 {
				continue
			}
			// A rare word, alone or with its neighbour.
			k := rare[r.IntN(len(rare))]
			switch {
			case len(words) > 1 && r.IntN(2) == 0 && k+1 < len(words):
				q.text = words[k] + " " + words[k+1]
			case len(words) > 1 && r.IntN(2) == 0 && k > 0:
				q.text = words[k-1] + " " + words[k]
			default:
				q.text = words[k]
			}
		case kindPrefix:
			if len(words) < 2 || utf8.RuneCountInString(words[1]) < 3 {
				continue
			}
			next := []rune(words[1])
			q.text = words[0] + " " + string(next[:min(len(next), 3+r.IntN(3))])
		case kindTypo:
			var long []int
			for k, w := range words {
				if letters(w) >= 6 && !common[wordKey(w)] {
					long = append(long, k)
				}
			}
			if len(long) == 0 {
				continue
			}
			k := long[r.IntN(len(long))]
			q.text = typo(r, words[k])
			if len(words) > 1 && r.IntN(2) == 0 {
				o := r.IntN(len(words) - 1)
				if o >= k {
					o++
				}
				if o < k {
					q.text = words[o] + " " + q.text
				} else {
					q.text += " " + words[o]
				}
			}
		case kindID:
			if len(c.ids) > 0 && r.IntN(2) == 0 {
				q.text = c.ids[r.IntN(len(c.ids))]
			} else {
				q.text = c.pid
			}
		default:
			return q, fmt.Errorf("unknown query kind %q", kind)
		}
		return q, nil
	}
	return query{}, fmt.Errorf("no card among 1,000 drawn allows a %s query", kind)
}

// nameWords are the whitespace-separated words of a name that have a letter or digit.
func nameWords(name string) []string {
	var out []string
	for _, w := range strings.Fields(name) {
		if strings.IndexFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) >= 0 {
			out = append(out, w)
		}
	}
	return out
}

// wordKey is a word as commonWords counts it: folded, without punctuation.
func wordKey(w string) string { return strings.Join(terms(w), " ") }

// letters counts the letters of w.
func letters(w string) int {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// typo makes one substitution, transposition or deletion in w, never at its first
// letter (people rarely get that wrong), such that the folded result is no longer a
// substring of the folded word (a deleted last letter would make a prefix query).
func typo(r *rand.Rand, w string) string {
	rs := []rune(w)
	for range 100 {
		out := slices.Clone(rs)
		i := 1 + r.IntN(len(rs)-1)
		switch r.IntN(3) {
		case 0: // substitution
			c := rune('a' + r.IntN(26))
			if unicode.IsUpper(rs[i]) {
				c = unicode.ToUpper(c)
			}
			out[i] = c
		case 1: // transposition with the previous letter
			out[i-1], out[i] = out[i], out[i-1]
		default: // deletion
			out = slices.Delete(out, i, i+1)
		}
		if !strings.Contains(fold(w), fold(string(out))) {
			return string(out)
		}
	}
	return w + "x"
}

// composition counts the queries per label, in report order.
func composition(qs []query) [][2]string {
	count := map[string]int{}
	for _, q := range qs {
		count[q.label()]++
	}
	var out [][2]string
	for _, suffix := range []string{"", "+country"} {
		for _, k := range kinds {
			if c := count[k.name+suffix]; c > 0 {
				out = append(out, [2]string{k.name + suffix, fmt.Sprint(c)})
			}
		}
	}
	return out
}

// labels are the query labels present in qs, in report order.
func labels(qs []query) []string {
	var out []string
	for _, c := range composition(qs) {
		out = append(out, c[0])
	}
	return out
}
