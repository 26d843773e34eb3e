package nlq

import (
	"strings"

	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/registry"
)

// Name matching for entity linking (docs/INTERFACE.md §4.3): how close a
// name as typed is to a name of the index. Both are folded as the mirror folds them
// (mirror.Terms: case, punctuation and diacritics aside, ø æ ß spelt out), then:
//
//   - transliterations are one spelling: ue/ü, oe/ö, ae/ä/æ, aa/å, ss/ß, ø/o
//     ("Koenig" is "König", "Moelgaard" is "Mølgaard"): translit reduces both sides;
//   - legal forms are optional and their spellings one (B.V./BV, S.p.A./SpA,
//     Sp. z o.o., Ltd/Limited, NV/SA): legalForms;
//   - a word for "and" stands for "&" (ruleListWords);
//   - a longer word may have one or two typos, as far as the mirror forgives them
//     (mirror.WithinTypo).

// legalForms maps the legal forms of companies, folded and written together ("b.v." is
// "bv"), to a class: forms of one class are one form written two ways.
var legalForms = map[string]string{
	"as": "as", "asa": "asa", "aps": "aps", "ab": "ab", "abpubl": "ab", "publ": "ab", "hb": "hb", "kb": "kb",
	"is": "is", "ivs": "ivs", "smba": "smba", "amba": "amba",
	"oy": "oy", "oyj": "oyj", "ky": "ky", "tmi": "tmi", "ay": "ay",
	"gmbh": "gmbh", "ag": "ag", "kg": "kg", "gmbhcokg": "gmbhcokg", "cokg": "gmbhcokg", "ohg": "ohg", "ug": "ug",
	"ughaftungsbeschrankt": "ug", "ek": "ek", "eu": "eu", "og": "og", "gbr": "gbr", "ev": "ev", "se": "se", "kgaa": "kgaa",
	"bv": "bv", "nv": "nv", "sa": "nv", "vof": "vof", "cv": "cv", "bvba": "bvba", "sprl": "bvba", "srl": "srl",
	"commv": "commv", "scomm": "commv", "vzw": "vzw", "asbl": "vzw", "cvba": "cvba", "scrl": "cvba",
	"sarl": "sarl", "sas": "sas", "sasu": "sasu", "eurl": "eurl", "snc": "snc", "sca": "sca", "sci": "sci", "scop": "scop",
	"ltd": "ltd", "limited": "ltd", "plc": "plc", "llp": "llp", "llc": "llc", "lp": "lp", "inc": "inc", "corp": "corp",
	"co": "co", "ptyltd": "ptyltd", "pty": "ptyltd", "ptyltdlimited": "ptyltd", "ptylimited": "ptyltd", "pteltd": "pteltd",
	"pte": "pteltd", "dac": "dac", "clg": "clg", "uc": "uc",
	"spa": "spa", "srls": "srl", "sapa": "sapa", "scarl": "scarl", "scrls": "scarl",
	"sl": "sl", "slu": "sl", "sll": "sl", "slne": "sl", "cb": "cb", "scoop": "scoop",
	"spzoo": "spzoo", "spj": "spj", "spk": "spk", "ska": "ska", "spp": "spp",
	"ks": "ks", "da": "da", "ans": "ans", "sf": "sf", "nuf": "nuf",
}

// foldTerms folds a name as the mirror indexes it (one fold for the domain).
func foldTerms(s string) []string { return mirror.Terms(s) }

// maxFormTerms bounds the terms of one legal form ("sp z o o" has four).
const maxFormTerms = 4

// linkName is a name cut for matching: its core terms, transliterated, and its legal
// form's class ("" when it has none).
type linkName struct {
	terms []string
	form  string
	// raw are the core terms as the mirror folds them, before transliteration.
	raw []string
}

// cutName folds s (mirror.Terms), leaves out words for "and" when conj, and cuts
// trailing legal forms ("GmbH & Co. KG", "AB (publ)") off its core.
func cutName(s string, conj bool) linkName {
	ts := foldTerms(s)
	if conj {
		kept := ts[:0:0]
		for _, t := range ts {
			if !ruleListWords[t] {
				kept = append(kept, t)
			}
		}
		ts = kept
	}
	var n linkName
	for len(ts) > 1 {
		cut := 0
		for k := min(maxFormTerms, len(ts)-1); k >= 1; k-- {
			if c, ok := legalForms[strings.Join(ts[len(ts)-k:], "")]; ok {
				cut = k
				if n.form == "" || c != "ab" {
					n.form = c
				}
				break
			}
		}
		if cut == 0 {
			break
		}
		ts = ts[:len(ts)-cut]
	}
	n.raw = ts
	n.terms = make([]string, len(ts))
	for i, t := range ts {
		n.terms[i] = translit(t)
	}
	return n
}

// translitPairs are the transliterations read as one letter, as mirror.Terms has
// already folded the letters they stand for (ü → u, ö → o, ä → a, å → a, ø → o, æ → ae,
// ß → ss).
var translitPairs = strings.NewReplacer("ue", "u", "oe", "o", "ae", "a", "aa", "a")

// translit reduces a folded term's transliterations: "koenig" and "könig" (folded
// "konig") are both "konig".
func translit(t string) string {
	if len(t) < 2 {
		return t
	}
	return translitPairs.Replace(t)
}

// nameMatch is how a typed name matches a name of the index.
type nameMatch struct {
	// ok: every core word typed is in the name.
	ok bool
	// words is how many core words typed matched.
	words int
	// typos is how many matched only within the typo tolerance; translit how many
	// only after transliteration.
	typos, translit int
	// prefix is how many (the last at most) matched only as the start of the name's
	// word ("Electric" for "ELECTRICAL"): an approximate reading too.
	prefix int
	// formDiff: the typed legal form is not the name's.
	formDiff bool
	// extra is how many core words of the name were not typed.
	extra int
}

// approximate reports whether the match is not the name as typed: a typo, a
// transliteration or another legal form.
func (m nameMatch) approximate() bool {
	return m.typos > 0 || m.translit > 0 || m.prefix > 0 || m.formDiff
}

// better reports whether m is a closer match than o.
func (m nameMatch) better(o nameMatch) bool {
	switch {
	case m.ok != o.ok:
		return m.ok
	case m.words != o.words:
		return m.words > o.words
	case m.typos != o.typos:
		return m.typos < o.typos
	case m.translit != o.translit:
		return m.translit < o.translit
	case m.prefix != o.prefix:
		return m.prefix < o.prefix
	case m.formDiff != o.formDiff:
		return !m.formDiff
	}
	return m.extra < o.extra
}

// matchName matches typed (cut with cutName) against name: every core word typed must
// be one of the name's, equal, the same transliterated, within the typo tolerance, or,
// for the last one, a prefix of at least three letters.
func matchName(typed linkName, name string) nameMatch {
	n := cutName(name, false)
	m := nameMatch{}
	if len(typed.terms) == 0 || len(n.terms) == 0 {
		return m
	}
	used := make([]bool, len(n.terms))
	for i, t := range typed.terms {
		best, how := -1, 4 // 0 exact, 1 transliterated, 2 prefix, 3 typo
		for j, nt := range n.terms {
			if used[j] {
				continue
			}
			h := 4
			switch {
			case typed.raw[i] == n.raw[j]:
				h = 0
			case t == nt:
				h = 1
			case i == len(typed.terms)-1 && len(t) >= 3 && strings.HasPrefix(n.raw[j], typed.raw[i]):
				h = 2
			case mirror.WithinTypo(t, nt) || shortTypo(typed.raw[i], n.raw[j]):
				h = 3
			}
			if h < how {
				best, how = j, h
			}
		}
		if best < 0 {
			return nameMatch{words: m.words}
		}
		used[best] = true
		m.words++
		switch how {
		case 1:
			m.translit++
		case 2:
			m.prefix++
		case 3:
			m.typos++
		}
	}
	m.ok = true
	m.extra = len(n.terms) - m.words
	m.formDiff = typed.form != "" && n.form != "" && typed.form != n.form
	return m
}

// translitQuery is a name with its transliterations reduced as the index folds the
// letters they stand for ("Loevaas Bygg" → "lovas bygg", as "LØVÅS BYGG" is indexed),
// for a search the index's typo tolerance does not bridge (two transliterations in one
// word); "" when it reduces nothing.
func translitQuery(subject string) string {
	ts := foldTerms(subject)
	changed := false
	for i, t := range ts {
		if r := translit(t); r != t {
			ts[i], changed = r, true
		}
	}
	if !changed {
		return ""
	}
	q := strings.Join(ts, " ")
	if len([]rune(q)) < registry.MinQueryLength {
		return ""
	}
	return q
}

// shortTypoLen is the length of the shortest word a typo is forgiven in when the index
// does not forgive it (mirror.WithinTypo: five letters): "Cafe" for "Caffè".
const shortTypoLen = 4

// shortTypo reports whether typed, a word of four letters, is one letter left out,
// added, changed or two swapped from term, with the same first letter.
func shortTypo(typed, term string) bool {
	a, b := []rune(typed), []rune(term)
	if len(a) != shortTypoLen || len(b) < 3 || a[0] != b[0] || len(b)-len(a) > 1 || len(a)-len(b) > 1 {
		return false
	}
	if typed == term {
		return true
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) == len(b):
		if i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:]) {
			return true // swapped
		}
		return string(a[i+1:]) == string(b[i+1:])
	case len(a) < len(b):
		return string(a[i:]) == string(b[i+1:])
	default:
		return string(a[i+1:]) == string(b[i:])
	}
}

// longWordsQuery is a name without its short words (shortTypoLen letters or fewer)
// when it has some and a longer one: a search for what the index can match when a
// short word was mistyped ("Torino Cafe" → "Torino"); matchName still compares every
// word typed. "" when there is nothing to leave out.
func longWordsQuery(subject string) string {
	n := cutName(subject, true)
	var long []string
	short := false
	for _, t := range n.raw {
		if len([]rune(t)) <= shortTypoLen {
			short = true
			continue
		}
		long = append(long, t)
	}
	if !short || len(long) == 0 {
		return ""
	}
	q := strings.Join(long, " ")
	if len([]rune(q)) < registry.MinQueryLength {
		return ""
	}
	return q
}
