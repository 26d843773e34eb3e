package nlq

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Language codes of the languages questions are read and answered in.
const (
	LangEnglish   = "en"
	LangFrench    = "fr"
	LangDutch     = "nl"
	LangGerman    = "de"
	LangNorwegian = "no"
	LangSwedish   = "sv"
	LangSpanish   = "es"
	LangItalian   = "it"
	LangDanish    = "da"
	LangFinnish   = "fi"
	LangPolish    = "pl"
)

// tongues are the languages answers are phrased in, English first (the default). Each
// lives in a file of its own (tongue_<code>.go) with the words that tell it apart and
// every phrase of an answer; a twelfth language is a twelfth file and a line here.
// On a tie the earlier wins: Norwegian before Danish when no word tells them apart.
var tongues = []*tongue{&english, &french, &dutch, &german, &norwegian, &swedish, &spanish, &italian, &danish, &finnish, &polish}

// tongueOf returns the tongue of a language code, English for any other.
func tongueOf(code string) *tongue {
	for _, t := range tongues {
		if t.code == code {
			return t
		}
	}
	return &english
}

// langMarkers maps a folded word (ruleFold) to the languages it is typical of, as a
// bit set over tongues; built once from the tongues' markers.
var langMarkers, langHints = buildLangMarkers()

// langNouns holds every tongue's nouns, folded.
var langNouns = buildLangNouns()

func buildLangNouns() map[string]bool {
	m := map[string]bool{}
	for _, t := range tongues {
		for _, w := range strings.Split(t.nouns, "|") {
			if w != "" {
				m[ruleFold(w)] = true
			}
		}
	}
	return m
}

// namesKind reports whether a word of tokens [lo, hi) is a tongue's noun for a kind
// of company: a count of them ("Hur många bagerier i Sverige?") searches for it.
func (s *ruleScan) namesKind(lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if s.toks[i].word && langNouns[s.toks[i].key] {
			return true
		}
	}
	return false
}

func buildLangMarkers() (markers, hints map[string]uint16) {
	if len(tongues) > 16 {
		panic("nlq: the language bit sets hold 16 languages; widen them to add more")
	}
	markers, hints = make(map[string]uint16, 1024), make(map[string]uint16, 256)
	for i, t := range tongues {
		for _, w := range strings.Split(t.markers+"|"+moreMarkers[t.code]+"|"+t.nouns+"|"+t.kw.outOfScope, "|") {
			if w != "" {
				markers[ruleFold(w)] |= 1 << i
			}
		}
		for _, w := range strings.Split(t.hints, "|") {
			if w != "" {
				hints[ruleFold(w)] |= 1 << i
			}
		}
	}
	return markers, hints
}

// detectLanguage returns the language a question is written in: the tongue whose
// typical words (question words, verbs, articles, nouns of the domain) it uses most, a
// word shared by several languages counting for each; letters only some languages
// have (å ø æ ä ö ü ß é è ç ñ ą ł) break ties. A question with no such word is English,
// and so is one whose words are more typical of a language outside the eleven
// (foreignMarkers: Portuguese, Czech, Slovak, Estonian, Hungarian, Romanian, ...) than
// of any of ours: answers are never phrased in a language the asker did not write.
func (s *ruleScan) detectLanguage() string {
	return s.detectLanguageOutside(0, 0)
}

// detectLanguageOutside is detectLanguage on the words outside tokens [lo, hi), the
// subject: a company's name says nothing about the asker's language ("Who is
// Boulangerie de la Gare?"). With no typical word outside, the whole question
// decides.
func (s *ruleScan) detectLanguageOutside(lo, hi int) string {
	// Words weigh 2 (4 when of one language only), names of countries and letters 1:
	// these only break ties between languages whose words say as much ("i Sverige"
	// after Danish "vis mig"). own counts what a language scored with words English
	// does not share, names and letters.
	var score, own [16]int
	foreign := 0
	for i, t := range s.toks {
		if !t.word {
			continue
		}
		if i >= lo && i < hi {
			// A word of another language in lower case is no part of a name: the
			// subject was read wrong ("Slovensku sú v Peppole").
			if !t.lower {
				continue
			}
			if raw := ruleFold(s.q[t.start:t.end]); foreignMarkers[raw] {
				if langMarkers[raw] != 0 || langHints[raw] != 0 {
					foreign += 2
				} else {
					foreign += 4
				}
			}
			continue
		}
		// The word as written: a typo correction may have made a word of one
		// language one of another ("faturas", "Bélgica"), and a country's name is a
		// hint only as written.
		raw, key := ruleFold(s.q[t.start:t.end]), t.key
		if langMarkers[raw] != 0 {
			key = raw
		}
		if foreignMarkers[raw] {
			// A word of another language counts as written, not as corrected.
			key = raw
			if langMarkers[raw] != 0 || langHints[raw] != 0 {
				foreign += 2
			} else {
				foreign += 4
			}
		}
		for i, b := 0, langHints[raw]; i < len(tongues); i++ {
			if b&(1<<i) != 0 {
				score[i]++
				own[i]++
			}
		}
		bits := langMarkers[key]
		for i := range tongues {
			if bits&(1<<i) != 0 {
				// A word of one language only counts double; one a language outside
				// the eleven has too ("por", "firma") is not of one language only.
				if bits == 1<<i && !foreignMarkers[raw] {
					score[i] += 4
				} else {
					score[i] += 2
				}
				if bits&1 == 0 {
					own[i]++
				}
			}
		}
	}
	var buf [16]rune
	letters := s.outsideLetters(lo, hi, buf[:0])
	for i, t := range tongues {
		if t.letters != "" && hasLetter(t.letters, letters) {
			score[i]++
			own[i]++
		}
	}
	if hasLetter(foreignLetters, letters) {
		foreign += 4
	}
	foreign += s.foreignPairWeight(lo, hi)
	// English words turn up in questions in every language ("access point",
	// "provider"): another language wins a tie with English, if it has a word,
	// name or letter of its own (Danish "find" alone is English "find"). Between two
	// others, the company's legal form or its id's country breaks a tie ("ApS",
	// "0184:…" are Danish; see tieLanguage).
	best, form := 0, s.tieLanguage()
	for i := 1; i < len(tongues); i++ {
		if score[i] > score[best] || best == 0 && score[i] == score[best] && score[i] > 0 && own[i] > 0 ||
			best != 0 && score[i] == score[best] && tongues[i].code == form {
			best = i
		}
	}
	if foreign > score[best] {
		return LangEnglish
	}
	if score[best] == 0 {
		if hi > lo {
			return s.detectLanguageOutside(0, 0)
		}
		return LangEnglish
	}
	return tongues[best].code
}

// outsideLetters appends to buf the distinct letters beyond ASCII of the tokens
// outside [lo, hi), once for every tongue's test (hasLetter).
func (s *ruleScan) outsideLetters(lo, hi int, buf []rune) []rune {
	for i, t := range s.toks {
		if i >= lo && i < hi {
			continue
		}
		w := s.q[t.start:t.end]
		for j := 0; j < len(w); j++ {
			if w[j] >= utf8.RuneSelf {
				for _, r := range w[j:] {
					r = unicode.ToLower(r) // "È" at the start of a question is "è"
					if r >= utf8.RuneSelf && !slices.Contains(buf, r) {
						buf = append(buf, r)
					}
				}
				break
			}
		}
	}
	return buf
}

// hasLetter reports whether one of found is in letters.
func hasLetter(letters string, found []rune) bool {
	for _, r := range found {
		if strings.ContainsRune(letters, r) {
			return true
		}
	}
	return false
}

// DetectLanguage returns the language code (LangEnglish, LangFrench, ...) a question
// is written in, as the rule planner reads it (the words around a company's name,
// not the name), English when it is none of the eleven; for answers the rule planner
// did not phrase (an LLM's).
func DetectLanguage(query string) string {
	if l := (RulePlanner{}).Plan(query).Language; l != "" {
		return l
	}
	return LangEnglish
}

// tongue is one language of the rule planner's answers: the words that tell a question
// in it apart, how its plural nouns are reduced for a substring search, and every
// phrase of an answer. Format strings take their arguments in the order each field's
// comment gives (use %[n]s to reorder).
type tongue struct {
	code string
	// markers are words typical of questions in the language, "|"-separated.
	markers string
	// nouns are kinds of companies a question may ask for ("bagerier"), typical of
	// the language: they count for it as markers do, but they are what is searched,
	// never question words (see ruleScan.namesKind).
	nouns string
	// hints are words that count less: the language's names of countries, which
	// also occur in company names ("Banque de France").
	hints string
	// letters are letters only a few of the languages use.
	letters string
	// plurals are the endings of plural (and definite) nouns, longest first, with what
	// replaces them; see reducePlural.
	plurals []pluralRule

	yes, no, probably, notNow string
	// colon separates a verdict from its sentence (": ", " : " in French).
	colon string
	// dateLayout is how the language writes a day (a time.Format layout; ISO 8601
	// when empty); thousands groups the digits of numbers from groupFrom on ("" for
	// none). See tongue_format.go.
	dateLayout, thousands string
	groupFrom             int
	// few are the forms of counted nouns after 2-4 (22-24, ...) in a language that has
	// one (Polish), by the noun's plural form.
	few map[string]string
	// docs name the document kinds, plural: DocInvoice, DocCreditNote, DocOrder, DocAny.
	docs map[string]string
	// kinds name the code list's categories (Invoice, Credit Note, ...); a missing
	// one is shown as the list names it.
	kinds map[string]string
	// nouns are counted nouns, singular and plural.
	docType, match, card, day [2]string
	// entry is what the live Directory counts (business entities; a card may have
	// several), certificate an access point certificate.
	entry, certificate [2]string
	and, more          string // "and", "%d more"
	inCountry          string // " in %s" (country code)

	notUnderstood, examples, countNeeds string
	couldNotRun                         string // reason
	askFailed                           string // reason
	upstreamDown                        string // the reason askFailed gives in this language
	// participant answers; who is "Name (id, CC)".
	staleSML          string // who, SMP host, docs
	note, warning     string // gist
	notRegisteredCard string // who
	registered        string // who, SMP host, n document types
	endpoint          string // URL, transport profile
	noCard            string
	apNotRegistered   string // who
	apNoEndpoint      string // who, SMP host
	apServed          string // who, URL, transport profile, SMP host, n document types
	apProvider        string // organisation
	docAPNone         string // who, SMP host, docs, what it accepts
	docAPNoEndpoint   string // who, docs, document type names, SMP host
	docAP             string // who, docs, document type names, endpoints, SMP host, n document types
	docAPNotReg       string // who, docs
	crNotRegistered   string // who, docs
	crYes             string // who, docs
	crKinds           string // n document types, kinds
	crAs              string // document type names
	crThrough         string // endpoints
	crEndpointUnknown string
	crNotListed       string // who, SMP host, docs, n document types, what it accepts
	crProbably        string // who, SMP host, n document types
	crNotNow          string // who, docs, why
	crUnchecked       string // who, docs, SMP host
	acceptsNone       string
	accepts           string // document type names
	acceptsKinds      string // n document types, kinds
	// search and count answers; the query is untrusted.Inner between the language's
	// own quotation marks.
	noMatch        string // query, in country
	countAnswer    string // n matches, query, in country
	countCountry   string // n cards, country code
	countNoData    string // country code
	listFirst      string // n matches, query, in country, shown
	listAll        string // n matches, query, in country
	andMoreResults string // n
	approximate    string // what was searched instead
	detailHeader   string // n matches, query, in country
	detailFirst    string // shown
	couldNotLookUp string // who
	gone           string // who
	partial        string // what could not be checked
	notFound       string // id, docs
	// check answers: a summary, then "- <input>: <verdict>" per identifier.
	chkReceive   string // n that can, n identifiers, docs
	chkOnPeppol  string // n on Peppol, n identifiers
	chkFailedSum string // n that could not be checked
	chkYes       string // who
	chkWithout   string // who, docs
	chkBlocked   string // who, the blocking warning codes
	chkNotReg    string
	chkInvalid   string
	chkFailed    string
	// certificate and document type answers.
	certValid    string // who, subject organisation, expiry date, n days left
	certExpired  string // verdict (notNow), who, expiry date, n days ago
	certNone     string // who, SMP host
	certSeveral  string // n certificates
	docTypes     string // who, SMP host, n document types, names
	processes    string // process names
	docTypesNone string // who, SMP host
	notChecked   string // what (services)
	// entity linking (link.go, numbers_link.go); English's is used when empty.
	readAs   string // typed name (quoted, untrusted.Quote), who: an approximate match, said before the answer
	numberAs string // typed number (quoted, untrusted.Quote), participant id
	// quotesMessages: the registry's messages are in this language, so answers quote
	// them (with their dates and advice) rather than a gist, and name the cause of a
	// failure in their words.
	quotesMessages bool
	// gists are short forms of the warnings, by code, for a language that does not
	// quote the messages; an unlisted code uses the first clause of the English message.
	gists map[string]string
	// kw are the words of issue 29's kinds of questions, kp their answers' phrases
	// (rules_kinds.go, answer_kinds.go); an empty phrase of kp is English's.
	kw kindWords
	kp kindPhrases
}

// pluralRule replaces a plural ending of a noun.
type pluralRule struct{ suffix, with string }

// count says n things: "1 document type", "3 document types", "3 typy dokumentów",
// with the number written as the language groups its digits.
func (t *tongue) count(n int, noun [2]string) string {
	if n == 1 {
		return "1 " + noun[0]
	}
	if f, ok := t.few[noun[1]]; ok && polishFew(n) {
		return t.number(n) + " " + f
	}
	return t.number(n) + " " + noun[1]
}
