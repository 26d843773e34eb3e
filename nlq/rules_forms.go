package nlq

import (
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

// ruleMinStem is the fewest letters a noun reduced from its plural keeps; shorter
// words are searched as written.
const ruleMinStem = 4

// singular returns the subject of tokens [lo, hi) for a substring search, with each
// plural common noun reduced to the part it shares with its singular ("bakeries" →
// "baker", "boulangeries" → "boulangerie", "Bäckereien" → "Bäckerei", "bakkerijen" →
// "bakkerij", "bagerier" → "bageri"), so that the Directory's substring search and the
// mirror's prefix search find the singular and the plural alike. Only words written in
// lower case are reduced, and the question's first word (capitalised because
// sentences start so); in German, where every noun is capitalised, also a subject of
// one word. Names stay as written.
//
// The Snowball stemmers were measured first (github.com/kljensen/snowball v0.10.0,
// which has English, French, Norwegian and Swedish but no Dutch or German) on 85 plural
// company words ("bakeries", "hôpitaux", "tannleger", "restauranger", "bakkerijen",
// "Bäckereien", ...): the stem is a substring of both plural and singular, as the
// Directory's search needs, for 54 of the 60 words of its four languages, these rules
// for 59 of 60 and 23 of the 25 Dutch and German ones. Snowball over-stems for
// indexing ("bakeries" → "bakeri", "companies" → "compani", "journaux" → "journal"),
// forms a substring search cannot use. Plurals that change a vowel ("Zahnärzte",
// "verkstäder") are left to the relaxed search.
func (s *ruleScan) singular(lo, hi int) string {
	t := tongueOf(s.lang)
	var b strings.Builder
	last := -1
	for i := lo; i < hi; i++ {
		tok := s.toks[i]
		if last >= 0 {
			b.WriteString(s.q[s.toks[last].end:tok.start])
		}
		last = i
		w := s.q[tok.start:tok.end]
		// A German noun is capitalised: a one-word subject is a noun ("Bäckereien"),
		// in a longer one a capitalised word is more likely part of a name.
		if tok.word && !tok.digit && (tok.lower || i == s.firstWord && s.onlyCapital(lo, hi, i) || s.lang == LangGerman && hi-lo == 1) && !ruleLex.vocab[tok.key] {
			w = reducePlural(t, w)
		}
		b.WriteString(w)
	}
	return b.String()
}

// category reports whether tokens [lo, hi) are a category of companies rather than a
// name: words in lower case (or one German noun) of which one is a plural.
func (s *ruleScan) category(lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if t := s.toks[i]; t.word && !t.lower && !(s.lang == LangGerman && hi-lo == 1) {
			return false
		}
	}
	return s.singular(lo, hi) != s.q[s.toks[lo].start:s.toks[hi-1].end]
}

// categoryBefore reports whether a lower-case country adjective at token a follows a
// lower-case plural noun ("pharmacies belges", "boulangeries allemandes"): a
// category with its country, not a name.
func (s *ruleScan) categoryBefore(a, lo int) bool {
	if a <= lo || s.caseless || !s.toks[a].lower {
		return false
	}
	t := s.toks[a-1]
	if !t.word || !t.lower || t.digit {
		return false
	}
	w := s.q[t.start:t.end]
	return reducePlural(tongueOf(s.lang), w) != w
}

// onlyCapital reports whether token k is the only capitalised word of tokens
// [lo, hi): a capitalised first word followed by others is a name ("Müller
// Maschinenbau GmbH"), alone or before lower-case words it is capitalised because the
// sentence starts ("Bakeries in ...").
func (s *ruleScan) onlyCapital(lo, hi, k int) bool {
	for i := lo; i < hi; i++ {
		if i != k && s.toks[i].word && s.toks[i].capital {
			return false
		}
	}
	return true
}

// reducePlural returns the longest prefix word shares with its singular under t's
// plural endings, or word itself when no ending applies or too little would be left.
func reducePlural(t *tongue, word string) string {
	lower := strings.ToLower(word)
	if utf8.RuneCountInString(lower) <= ruleMinStem || len(lower) != len(word) {
		return word
	}
	for _, r := range t.plurals {
		stem, ok := strings.CutSuffix(lower, r.suffix)
		if !ok || utf8.RuneCountInString(stem) < ruleMinStem {
			continue
		}
		if t.code == LangDutch && r.suffix == "en" {
			stem = dutchOpenSyllable(stem)
		}
		singular := stem + r.with
		n := 0
		for n < len(singular) && n < len(lower) && singular[n] == lower[n] {
			n++
		}
		for n > 0 && n < len(word) && !utf8.RuneStart(word[n]) {
			n--
		}
		if utf8.RuneCountInString(word[:n]) < ruleMinStem {
			return word
		}
		return word[:n]
	}
	return word
}

// dutchOpenSyllable undoes the Dutch spelling of an open syllable: a plural in -en
// writes one vowel where the singular doubles it ("apotheken", "apotheek"), so the
// stem's last consonant after a single vowel is dropped ("apothek" → "apothe"); a
// doubled final consonant is undone ("bakken" → "bak").
func dutchOpenSyllable(stem string) string {
	n := len(stem)
	if n < 3 {
		return stem
	}
	c, v, p := stem[n-1], stem[n-2], stem[n-3]
	vowel := func(b byte) bool { return strings.IndexByte("aeiouy", b) >= 0 }
	switch {
	case c == stem[n-2] && !vowel(c):
		return stem[:n-1]
	case !vowel(c) && c != 'j' && vowel(v) && !vowel(p) && strings.IndexByte("aeou", v) >= 0:
		return stem[:n-1]
	}
	return stem
}

// findSpacedID returns a participant id written with a space, a dash or a dot between
// its scheme and its value ("0208 0677424046", "0208-0677424046", "9925 BE0677424046"),
// and with spaces, dots or dashes inside the value ("0192 923 609 016",
// "0007 556732-1707"): four digits naming a scheme of the code list, then a value
// that is valid for that scheme as written or with those separators removed.
func (s *ruleScan) findSpacedID() (ruleSpan, bool) {
	for i, t := range s.toks {
		if !t.word || !t.digit || len(t.key) < 4 {
			continue
		}
		icd, rest := t.key[:4], t.key[4:]
		if !ruleDigits(icd) {
			continue
		}
		if _, ok := peppol.LookupScheme(icd); !ok {
			continue
		}
		end := i + 1
		var value string
		switch {
		case rest == "" && i+1 < len(s.toks) && s.toks[i+1].word && s.toks[i+1].number && s.spaced(i, i+1):
			// "0208 0677424046": the value is the next tokens.
			start := s.toks[i+1].start
			for end = i + 2; end < len(s.toks) && end-i <= ruleMaxNumberTokens && s.toks[end].digit && s.toks[end].number && s.spaced(end-1, end); end++ {
			}
			for ; end > i+1; end-- {
				if id, ok := validSpacedID(icd, s.q[start:s.toks[end-1].end]); ok {
					return ruleSpan{lo: i, hi: end, subject: id}, true
				}
			}
			continue
		case len(rest) > 1 && (rest[0] == '-' || rest[0] == '.'):
			value = s.q[t.start+5 : t.end]
		default:
			continue
		}
		if id, ok := validSpacedID(icd, value); ok {
			return ruleSpan{lo: i, hi: end, subject: id}, true
		}
	}
	return ruleSpan{}, false
}

// validSpacedID returns the canonical participant id of scheme icd and value, as
// written or with spaces, dots and dashes removed, when the scheme can be registered
// and the code list's syntax accepts the value (or, for a scheme without one, its check
// digit or the form of a VAT number does); the value must have a digit.
func validSpacedID(icd, value string) (string, bool) {
	if !strings.ContainsAny(value, "0123456789") {
		return "", false
	}
	for _, v := range [...]string{value, strings.NewReplacer(" ", "", ".", "", "-", "").Replace(value)} {
		if strings.ContainsAny(v, " ") {
			continue
		}
		id, err := peppol.ParseParticipantID(icd + ":" + v)
		if err != nil {
			continue
		}
		// A wrong check digit does not stop it: the lookup then says what is wrong,
		// as it does for an id written with a colon.
		val := peppol.ValidateParticipantID(id)
		if val.Known && val.Scheme.Registrable && val.State != peppol.SchemeRemoved && val.SyntaxValid &&
			(val.SyntaxDefined || val.Check == peppol.CheckValid || ruleVATForm(v)) {
			return id.String(), true
		}
	}
	return "", false
}

// ruleVATForm reports whether v has the form of a VAT number: two letters and digits
// ("DE811907980"), for the schemes whose code list entry gives no syntax.
func ruleVATForm(v string) bool {
	if len(v) < 6 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i] | 0x20
		if i < 2 && (c < 'a' || c > 'z') || i >= 2 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}
