package nlq

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/registry"
)

// Tool names of package tools the rule planner plans calls to.
const (
	ruleToolLookup = "lookup_participant"
	ruleToolSearch = "search_directory"
	// ruleToolServices is planned with the lookup of a participant id when the
	// question is whether it can receive a document, or which access point receives
	// a named document for it.
	ruleToolServices = "get_participant_services"
	// ruleToolCheck is planned for a list of participant ids or numbers.
	ruleToolCheck = "check_participants"
)

// RulePlanner is the default planner: word lists and a few rules, no model. It reads
// questions in English, French, Dutch, German, Norwegian, Swedish, Spanish, Italian,
// Danish, Finnish and Polish. The zero value is
// ready to use and safe for concurrent use.
//
// How a question becomes a plan:
//
//   - A list. Two or more participant ids or numbers one after another, separated by
//     commas, semicolons, line breaks or "and" ("can these receive invoices:
//     0208:0677424046, BE 0677.424.046 and NO 923 609 016 MVA?"), are checked at
//     once: IntentCheck, one check_participants call with a row per identifier (ids
//     canonical, numbers as written, each with the country the question names),
//     asking about the document named (else the default kinds); see findList. A
//     question about a list's counts, certificates, document types or access points
//     is planned as about its first identifier.
//   - Subject. A participant id in any form ("0208:0677424046",
//     "iso6523-actorid-upis::0208:0677424046", any case, URL-encoded) is the subject,
//     canonical, and is looked up (and its services listed with
//     get_participant_services when the question is can_receive, certificate,
//     document_types, or access_point naming a document); it may also be written
//     with a space, dash or dot after the scheme ("0208 0677424046"). Otherwise a
//     national or VAT number that
//     peppol.Candidates recognises ("BE 0677.424.046", "NO 923 609 016 MVA",
//     "KvK 54441587") is the subject as written and is searched for, with no country
//     argument (the number carries its country). Otherwise text in quotes is the
//     company name. Otherwise the name is what remains after question words, filler,
//     country phrases and punctuation are stripped from both ends of the question;
//     words inside the name are never removed ("Bank of America", "Banque de France").
//     For a search or a count, plural category words are reduced to what they share
//     with their singular ("bakeries" → "baker", see singular); names are not.
//   - Language. The question's language is read from the words around the name (see
//     detectLanguage) and becomes Plan.Language, the language of the answer.
//   - Country. A country name after a preposition ("in Belgium", "aus Deutschland",
//     "i Norge"), after "country:" or in brackets, a country adjective ("belges",
//     "norske", "Nederlandse"), or a code in capitals where it clearly is one ("in BE",
//     "(SE)", "country: no"). A bare country name at the end of a name stays in it
//     ("Microsoft Belgium", "Telenor Norge"); lower-case "in be", "no" and "de" are no
//     countries.
//   - Country adjectives in names. An adjective (or a country name used as one,
//     "Luxembourg companies") written capitalised and followed by a capitalised word
//     that is not a keyword is part of the name: "Deutsche Bahn", "Norwegian Air
//     Shuttle", "Danske Bank", "Svenska Handelsbanken", "France Telecom", and also
//     "Belgian Acme". Followed by a keyword ("Belgian companies", "deutsche Firmen")
//     or written in lower case ("deutsche bahn"), it is a country filter. After a name
//     it is a filter only next to a company noun ("Acme, une société belge"). When a
//     country word is all that is left, it is the name ("Who is Danske?").
//   - Intent, by precedence: count ("how many") > certificate ("when does the
//     certificate expire") > document_types ("which document types / processes") >
//     a list ("which bakeries are on Peppol", "find dentists that are on Peppol":
//     search) > access_point (also "which SMP") > can_receive (a
//     capability verb: receive, accept, recevoir, ontvangen, empfangen, motta, ta
//     emot; the document is the first of credit note, order or invoice named, also
//     kept for access_point) >
//     on_peppol ("on Peppol", "registered" with a copula, or without lookup or search
//     words) > lookup > search. With none of these, a participant id or a number is a
//     lookup and a name is a search.
//   - Unknown. No subject, a subject of one character or of more than
//     registry.MaxQueryLength characters, greetings, general questions ("how does
//     Peppol work") and questions longer than MaxQueryLength are IntentUnknown with
//     no calls; what peppolgate cannot know ("what are the fees", "the weather") is
//     IntentOutOfScope with no calls (rules_kinds.go). A count question without a
//     name ("how many Belgian companies are on Peppol") searches its country alone,
//     which the Directory answers with its total; without a country either it asks
//     network_statistics (for the whole network or the document kind named).
//   - Issue 29's kinds (rules_kinds.go): Plan.Aspect for a certificate's issuer, a
//     transport profile or a registration date; a country's participants listed;
//     Plan.Subjects for several companies.
//   - Typos of keywords and country names ("recieve", "invoce", "Belguim", "peppl")
//     are corrected when one edit away from exactly one keyword; company names are
//     never corrected.
type RulePlanner struct{}

// Plan reads the question and returns its plan; it never fails (see RulePlanner for
// the rules). Calls is never nil.
func (RulePlanner) Plan(query string) Plan {
	if !utf8.ValidString(query) {
		query = strings.ToValidUTF8(query, "")
	}
	if utf8.RuneCountInString(query) > MaxQueryLength {
		return Plan{Intent: IntentUnknown, Language: LangEnglish, Calls: []Call{}}
	}
	// Room for the tokens of most questions in one allocation.
	var buf [32]ruleToken
	s := ruleScan{q: query, toks: ruleTokenize(query, buf[:0])}
	if !s.init() {
		return Plan{Intent: IntentUnknown, Language: LangEnglish, Calls: []Call{}}
	}
	s.lang = s.detectLanguage()
	return s.plan()
}

// ruleKind is what a question's subject is.
type ruleKind uint8

const (
	ruleName   ruleKind = iota
	ruleQuoted          // a name in quotes, taken as written
	ruleID
	ruleNumber
)

// ruleScan is the state of reading one question.
type ruleScan struct {
	q    string
	toks []ruleToken
	// caseless: the question has no lower-case letters, so capitals say nothing.
	caseless bool
	// firstWord is the index of the question's first word token.
	firstWord int
	// receive: a capability verb occurs anywhere in the question.
	receive bool
	// inner is the phrase last stripped from the right, next to the subject.
	inner    lexEntry
	innerSet bool
	sig      ruleSignals
	// lang is the question's language (detectLanguage).
	lang string
}

// ruleSignals is what the stripped phrases said.
type ruleSignals struct {
	lookup, search, count, accessPoint bool
	certificate, documentTypes, named  bool
	which, relative                    bool
	receive, presence, copula, starter bool
	doc, country                       string
	docAt, countryAt                   int
	// adjective are the tokens of the last country adjective or bare country name
	// stripped.
	adjective [2]int
	// kinds are what the phrases of issue 29's kinds of questions said (rules_kinds.go).
	kinds kindSignals
}

// init reads the tokens' case and typos and reports whether the question has a word.
func (s *ruleScan) init() bool {
	s.caseless = true
	s.firstWord = -1
	for i := range s.toks {
		t := &s.toks[i]
		if !t.word {
			continue
		}
		if s.firstWord < 0 {
			s.firstWord = i
		}
		if s.caseless && strings.ContainsFunc(s.q[t.start:t.end], unicode.IsLower) {
			s.caseless = false
		}
		if rest, ok := strings.CutPrefix(t.key, "peppol"); ok && rest != "" && ruleLex.peppolSuffixes[strings.TrimPrefix(rest, "-")] && !lexSaysPresence(t.key) {
			t.key = "peppol" // "Peppol-Netzwerk", "peppolnettverket"; "Peppol-verkossa" says "on Peppol" itself
		}
		// A word of what peppolgate cannot know is no typo ("cuesta" is not "cuenta").
		if !ruleLex.vocab[t.key] && !kindOutOfScope[t.key] {
			if k, ok := ruleFuzzy(t.key); ok {
				t.key = k
			}
		}
	}
	if s.firstWord < 0 {
		return false
	}
	for i := range s.toks {
		if s.hasRole(i, lexReceive) {
			s.receive = true
			break
		}
	}
	return true
}

// hasRole reports whether a phrase of role r starts at token i.
func (s *ruleScan) hasRole(i int, r lexRole) bool {
	n := ruleLex.left
	for j := i; j < len(s.toks); j++ {
		if n = n.child(s.toks[j].key); n == nil {
			return false
		}
		for _, e := range n.entries {
			if e.role == r && !s.capitalVerb(e, i) {
				return true
			}
		}
	}
	return false
}

// capitalVerb reports whether e is a verb that implies its document ("invoice X") at
// token i written capitalised inside the question, or first and before a capitalised
// word: then it is a word of a name ("Find Invoice Solutions AB", "Invoice Ninja").
func (s *ruleScan) capitalVerb(e lexEntry, i int) bool {
	if e.role != lexReceive || e.doc == "" || s.caseless || s.toks[i].lower {
		return false
	}
	// The first word is a verb when what follows is not a name ("Invoice Ninja").
	return i != s.firstWord || s.nameGoesOn(i+1)
}

func (s *ruleScan) plan() Plan {
	if items, lo, hi, ok := s.findList(); ok {
		if p, ok := s.planList(items, lo, hi); ok {
			return p
		}
	}
	if sp, ok := s.findID(); ok {
		return s.planSpan(sp, ruleID)
	}
	if sp, ok := s.findSpacedID(); ok {
		return s.planSpan(sp, ruleID)
	}
	if sp, cc, ok := s.findSchemeNumber(); ok {
		// "NIF B15147895": a number after a scheme word peppol.Candidates does not
		// read (numbers_link.go); its country is the hint.
		p := s.planSpan(sp, ruleNumber)
		if p.Country == "" {
			p.Country = cc
		}
		return p
	}
	if sp, ok := s.findNumber(); ok {
		return s.planSpan(sp, ruleNumber)
	}
	if sp, ok := s.findQuoted(); ok {
		return s.planSpan(sp, ruleQuoted)
	}
	lo, hi := s.strip(0, len(s.toks))
	if lo >= hi && !s.sig.count && !s.listsCountry() && s.sig.adjective[1] > 0 && s.sig.countryAt == s.sig.adjective[0] {
		// Nothing but a country word was left: it is the name ("Who is Danske?").
		lo, hi = s.sig.adjective[0], s.sig.adjective[1]
		s.sig.country = ""
	}
	if s.sig.count && s.questionWords(lo, hi) && !s.namesKind(lo, hi) {
		lo = hi // "Hoeveel Peppol-deelnemers zijn er in België?": no name at all
	}
	lang := s.lang
	return s.withReadings(s.finish(s.subjectText(lo, hi), lo, hi, ruleName), lo, hi, lang)
}

// planSpan plans a question whose subject is already known: the words around it only
// give intent, country and document.
func (s *ruleScan) planSpan(sp ruleSpan, kind ruleKind) Plan {
	s.scanFree(0, sp.lo, lexLeft)
	s.scanFree(sp.hi, len(s.toks), lexRight)
	return s.finish(sp.subject, sp.lo, sp.hi, kind)
}

// finish turns the subject and the signals into a plan.
func (s *ruleScan) finish(subject string, lo, hi int, kind ruleKind) Plan {
	if kind == ruleName && subject != "" && !s.nameLike(subject, lo, hi) {
		subject = ""
	}
	if subject != "" && (kind == ruleName || kind == ruleQuoted) {
		s.lang = s.detectLanguageOutside(lo, hi)
	}
	unknown := Plan{Intent: IntentUnknown, Language: s.lang, Calls: []Call{}}
	if p, ok := s.planKinds(subject, lo, hi, kind); ok {
		return p
	}
	if subject == "" {
		if s.sig.count {
			p := Plan{Intent: IntentCount, Country: s.sig.country, Language: s.lang, Calls: []Call{}}
			if p.Country != "" {
				// The Directory takes a country alone and reports its total.
				p.Calls = []Call{{Tool: ruleToolSearch, Arguments: map[string]any{"country": p.Country}}}
			}
			return p
		}
		return unknown
	}
	p := Plan{Subject: subject, Country: s.sig.country, Language: s.lang}
	switch sg := s.sig; {
	case sg.count:
		p.Intent = IntentCount
	case sg.certificate:
		p.Intent = IntentCertificate
	case sg.documentTypes:
		p.Intent = IntentDocumentTypes
	case sg.accessPoint:
		p.Intent = IntentAccessPoint
		p.Document = sg.doc
	case sg.receive:
		p.Intent = IntentCanReceive
		p.Document = sg.doc
	case sg.presence && (sg.which || sg.search || sg.relative) && kind == ruleName && s.category(lo, hi):
		// "Which bakeries are on Peppol?", "find dentists that are on Peppol": a list.
		p.Intent = IntentSearch
	case sg.presence && (sg.copula || !sg.lookup && !sg.search):
		p.Intent = IntentOnPeppol
	case sg.lookup:
		p.Intent = IntentLookup
	case sg.search:
		p.Intent = IntentSearch
	case sg.starter && kind == ruleName:
		return unknown
	case kind == ruleName || kind == ruleQuoted:
		p.Intent = IntentSearch
	default:
		p.Intent = IntentLookup
	}
	switch kind {
	case ruleID:
		p.Calls = []Call{{Tool: ruleToolLookup, Arguments: map[string]any{"participantId": subject}}}
		if p.needsServices() {
			p.Calls = append(p.Calls, Call{Tool: ruleToolServices, Arguments: map[string]any{"participantId": subject}})
		}
	case ruleNumber:
		p.Calls = []Call{{Tool: ruleToolSearch, Arguments: map[string]any{"q": subject}}}
	default:
		q := subject
		if kind == ruleName && (p.Intent == IntentSearch || p.Intent == IntentCount) && !s.sig.named {
			q = s.singular(lo, hi)
		}
		args := map[string]any{"q": q}
		if p.Country != "" {
			args["country"] = p.Country
		}
		p.Calls = []Call{{Tool: ruleToolSearch, Arguments: args}}
	}
	s.finishKinds(&p, lo, hi, kind)
	return p
}

// nameLike reports whether a stripped subject can be a company name: two to
// registry.MaxQueryLength characters; a word with a letter that is neither a general
// word nor a keyword in lower case ("in 2023", "this" are no names); no off-topic word
// in lower case or alone ("weather in Paris", "Witz"); and not a lower-case sentence
// of four words or more.
func (s *ruleScan) nameLike(subject string, lo, hi int) bool {
	n := utf8.RuneCountInString(subject)
	if n < registry.MinQueryLength || n > registry.MaxQueryLength || !strings.ContainsFunc(subject, unicode.IsLetter) {
		return false
	}
	words, lower, named := 0, 0, false
	for i := lo; i < hi; i++ {
		t := s.toks[i]
		if !t.word {
			continue
		}
		words++
		letters := strings.ContainsFunc(s.q[t.start:t.end], unicode.IsLetter)
		low := letters && (t.lower || s.caseless)
		if low && s.inLegalForm(i) {
			continue // "sp. z o.o."
		}
		if low {
			lower++
		}
		// German nouns are capitalised: "Sinn des Lebens" is off-topic too.
		if ruleLex.offtopic[t.key] && (low || lo+1 == hi || s.lowerWordAt(i+1, hi)) {
			return false
		}
		if ruleLex.general[t.key] || !letters {
			continue
		}
		if !low || !ruleLex.vocab[t.key] {
			named = true
		}
	}
	return named && (words < 4 || s.caseless || 2*lower <= words)
}

// lowerWordAt reports whether token i (before hi) is a word in lower case.
func (s *ruleScan) lowerWordAt(i, hi int) bool {
	return i < hi && s.toks[i].word && s.toks[i].lower && !s.toks[i].digit
}

// strip removes phrases, country words and punctuation from both ends of tokens
// [lo, hi), recording what they said, and returns what is left: the name.
func (s *ruleScan) strip(lo, hi int) (int, int) {
	for lo < hi {
		moved := false
		if s.enclosed(lo, hi) {
			lo, hi, moved = lo+1, hi-1, true
		}
		if lo < hi {
			if n := s.stripLeft(lo, hi); n > 0 {
				lo, moved = lo+n, true
			}
		}
		if lo < hi {
			if n := s.stripRight(lo, hi); n > 0 {
				hi, moved = hi-n, true
			}
		}
		if !moved && lo < hi {
			if n := s.leadingJunk(lo, hi); n > 0 {
				lo, moved = lo+n, true
			}
		}
		if !moved {
			break
		}
	}
	return lo, hi
}

// ruleMaxJunk bounds the unknown words leadingJunk skips.
const ruleMaxJunk = 3

// leadingJunk returns how many unknown lower-case words at lo to skip ("need the"):
// they must be followed by a phrase with a meaning (intent, capability, presence,
// document or country; not a mere preposition, so "mairie de Lyon" and "gemeente van
// Amsterdam" stay names) that may be stripped there, and then by a capitalised name
// ("Need the Peppol ID for Cyberdyne Systems"). Names are written capitalised, so
// lower-case words before such a keyword are more question than name.
func (s *ruleScan) leadingJunk(lo, hi int) int {
	if s.caseless {
		return 0
	}
	for p := lo; p < hi && p-lo < ruleMaxJunk; p++ {
		t := s.toks[p]
		if !t.word || t.digit || !t.lower && p != s.firstWord || ruleLex.offtopic[t.key] {
			return 0 // an off-topic word is the question ("quel temps fait-il à Paris")
		}
		if n := s.match(p+1, hi, lexLeft, matchDry); n > 0 && p+1+n < hi && s.nameAt(p+1+n, hi, 2) {
			return p + 1 - lo
		}
	}
	return 0
}

// enclosed reports whether tokens [lo, hi) are wrapped in a pair of brackets.
func (s *ruleScan) enclosed(lo, hi int) bool {
	if hi-lo < 2 || s.toks[lo].word || s.toks[hi-1].word {
		return false
	}
	return ruleCloser(s.toks[lo].key) == s.toks[hi-1].key && s.closerAt(lo, hi) == hi-1
}

// ruleCloser returns the bracket that closes open, "" if open is none.
func ruleCloser(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	case "{":
		return "}"
	}
	return ""
}

// closerAt returns the index of the bracket that closes the one at lo, -1 if none
// before hi.
func (s *ruleScan) closerAt(lo, hi int) int {
	open, close, depth := s.toks[lo].key, ruleCloser(s.toks[lo].key), 0
	for i := lo; i < hi; i++ {
		switch s.toks[i].key {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// stripLeft strips a phrase or a punctuation mark at lo and returns how many tokens
// it took.
func (s *ruleScan) stripLeft(lo, hi int) int {
	if n := s.match(lo, hi, lexLeft, matchStrip); n > 0 {
		return n
	}
	t := s.toks[lo]
	if t.word {
		return 0
	}
	if ruleCloser(t.key) != "" && s.closerAt(lo, hi) > 0 {
		return 0 // "(Europe) Acme": the bracket belongs to the name
	}
	return 1
}

// stripRight strips a phrase or a punctuation mark ending at hi and returns how many
// tokens it took.
func (s *ruleScan) stripRight(lo, hi int) int {
	if n := s.match(lo, hi, lexRight, matchStrip); n > 0 {
		return n
	}
	t := s.toks[hi-1]
	if t.word {
		return 0
	}
	for i := lo; i < hi-1; i++ {
		if ruleCloser(s.toks[i].key) == t.key {
			return 0 // "Acme (Europe)": the bracket belongs to the name
		}
	}
	s.inner, s.innerSet = lexEntry{}, true
	return 1
}

// scanFree records every phrase in tokens [lo, hi) around a known subject, phrases
// of side (lexLeft before it, lexRight after it).
func (s *ruleScan) scanFree(lo, hi int, side lexSide) {
	for i := lo; i < hi; {
		if n := s.match(i, hi, side, matchFree); n > 0 {
			i += n
		} else {
			i++
		}
	}
}

// ruleMaxPhrase bounds the words of one phrase.
const ruleMaxPhrase = 8

// ruleMatch says what match does.
type ruleMatch uint8

const (
	// matchStrip strips a phrase at the edge of the remaining tokens under all rules.
	matchStrip ruleMatch = iota
	// matchFree reads a phrase starting at lo around a known subject: only its side
	// and flagNeedReceive restrict it.
	matchFree
	// matchDry is matchStrip that records nothing and finds only phrases with a
	// meaning (intent, capability, presence, document, country), for leadingJunk.
	matchDry
)

// match finds the longest allowed phrase at the left (side lexLeft) or right
// (lexRight) edge of tokens [lo, hi) (for matchFree: starting at lo), records it
// unless dry, and returns its length in tokens; 0 when none applies.
func (s *ruleScan) match(lo, hi int, side lexSide, mode ruleMatch) int {
	if lo >= hi {
		return 0
	}
	var found [ruleMaxPhrase]*lexNode
	var lens [ruleMaxPhrase]int
	count := 0
	if side == lexRight && mode != matchFree {
		n := ruleLex.right
		for j := hi - 1; j >= lo && count < ruleMaxPhrase; j-- {
			if n = n.child(s.toks[j].key); n == nil {
				break
			}
			if len(n.entries) > 0 {
				found[count], lens[count] = n, hi-j
				count++
			}
		}
	} else {
		n := ruleLex.left
		for j := lo; j < hi && count < ruleMaxPhrase; j++ {
			if n = n.child(s.toks[j].key); n == nil {
				break
			}
			if len(n.entries) > 0 {
				found[count], lens[count] = n, j-lo+1
				count++
			}
		}
	}
	// A country phrase ("in Belgium", "aus der Schweiz", "(SE)") wins over shorter
	// phrases.
	cn, cc := s.countryAt(lo, hi, side, mode)
	for k := count - 1; k >= 0 && lens[k] > cn; k-- {
		a, b := lo, lo+lens[k]
		if side == lexRight && mode != matchFree {
			a, b = hi-lens[k], hi
		}
		// Every reading of the phrase that applies counts: "er" is a German pronoun
		// and the Norwegian "is".
		took := false
		for _, e := range found[k].entries {
			if !s.allowed(e, a, b, lo, hi, side, mode) {
				continue
			}
			if mode == matchDry {
				if e.role == lexIntent || e.role == lexReceive || e.role == lexPresence || e.role == lexDoc || e.role == lexCountry {
					return lens[k]
				}
				continue
			}
			s.record(e, a, b)
			if side == lexRight && mode == matchStrip && (!took || e.flags&flagPossessive != 0) {
				s.inner, s.innerSet = e, true
			}
			took = true
		}
		if took {
			return lens[k]
		}
	}
	if cn > 0 {
		if mode != matchDry {
			a, b := lo, lo+cn
			if side == lexRight && mode != matchFree {
				a, b = hi-cn, hi
			}
			e := lexEntry{role: lexCountry, side: lexBoth, country: cc}
			s.record(e, a, b)
			if side == lexRight && mode == matchStrip {
				s.inner, s.innerSet = e, true
			}
		}
		return cn
	}
	return 0
}

// countryAt finds a country phrase at the left (or, for lexRight when stripping,
// right) edge of tokens [lo, hi) and returns its length in tokens and its code: a
// preposition or label and a name ("in Belgium", "aus der Schweiz", "land: Norge"),
// a preposition and a code in capitals ("in BE"), a label and a code ("country NO",
// "country: no" in any case after a colon), a name or a code in capitals in brackets
// ("(Norge)", "(SE)"), or after a name a comma and a country name ("Acme, Belgium").
func (s *ruleScan) countryAt(lo, hi int, side lexSide, mode ruleMatch) (int, string) {
	if side == lexRight && mode != matchFree {
		return s.countryBefore(lo, hi)
	}
	best, cc := 0, ""
	take := func(n int, code string) {
		if n > best {
			best, cc = n, code
		}
	}
	// A bracketed name or code.
	if close := ruleCloser(s.toks[lo].key); close != "" && close != "}" {
		s.countryCore(lo+1, hi, false, func(end int, code string) {
			if end < hi && s.toks[end].key == close {
				take(end+1-lo, code)
			}
		})
	}
	// An introduction and a name or code.
	n := ruleLex.intro
	for j := lo; j < hi && j-lo < ruleMaxPhrase; j++ {
		if n = n.child(s.toks[j].key); n == nil {
			break
		}
		for _, e := range n.entries {
			k, anyCase := j+1, false
			if e.label && k < hi && (s.toks[k].key == ":" || s.toks[k].key == "=") {
				k, anyCase = k+1, true
			}
			s.countryCore(k, hi, anyCase, func(end int, code string) { take(end-lo, code) })
		}
	}
	return best, cc
}

// countryCore calls found with the end and code of every country name or code that
// starts at token k; a code must be in capitals unless anyCase.
func (s *ruleScan) countryCore(k, hi int, anyCase bool, found func(end int, code string)) {
	if k >= hi {
		return
	}
	if code, ok := s.codeAt(k, anyCase); ok {
		found(k+1, code)
	}
	n := ruleLex.names
	for j := k; j < hi && j-k < ruleMaxPhrase; j++ {
		if n = n.child(s.toks[j].key); n == nil {
			return
		}
		if len(n.entries) > 0 {
			found(j+1, n.entries[0].country)
		}
	}
}

// codeAt reports whether token k is a country code, and which: written in capitals
// ("BE", "UK") unless anyCase.
func (s *ruleScan) codeAt(k int, anyCase bool) (string, bool) {
	t := s.toks[k]
	if !t.word || len(t.key) != 2 {
		return "", false
	}
	code, ok := ruleLex.codes[t.key]
	if !ok {
		return "", false
	}
	if !anyCase && !s.capitals(k) {
		return "", false // "in be", "no": words, not codes
	}
	return code, true
}

// countryBefore is countryAt for the right edge: the phrase ends at hi.
func (s *ruleScan) countryBefore(lo, hi int) (int, string) {
	best, cc := 0, ""
	take := func(start int, code string) {
		if hi-start > best {
			best, cc = hi-start, code
		}
	}
	// A bracketed name or code.
	if closer := s.toks[hi-1].key; closer == ")" || closer == "]" {
		s.countryCoreBefore(lo, hi-1, func(start int, code string, isCode bool) {
			if (!isCode || s.capitals(start)) && start > lo && ruleCloser(s.toks[start-1].key) == closer {
				take(start-1, code)
			}
		})
	}
	// An introduction and a name or code.
	s.countryCoreBefore(lo, hi, func(start int, code string, isCode bool) {
		k, colon := start, false
		if k > lo && (s.toks[k-1].key == ":" || s.toks[k-1].key == "=") {
			k, colon = k-1, true
		}
		if !colon && !isCode && k > lo && s.toks[k-1].key == "," {
			take(k-1, code) // "Acme, Belgium"
		}
		n := ruleLex.introRev
		for j := k - 1; j >= lo && k-j <= ruleMaxPhrase; j-- {
			if n = n.child(s.toks[j].key); n == nil {
				break
			}
			for _, e := range n.entries {
				if colon && !e.label || isCode && !colon && !s.capitals(start) {
					continue // "in: no", "in be"
				}
				take(j, code)
			}
		}
	})
	return best, cc
}

// countryCoreBefore calls found with the start and country of every country name or
// code (isCode, in any case) that ends at hi.
func (s *ruleScan) countryCoreBefore(lo, hi int, found func(start int, code string, isCode bool)) {
	if hi <= lo {
		return
	}
	if code, ok := s.codeAt(hi-1, true); ok {
		found(hi-1, code, true)
	}
	n := ruleLex.namesRev
	for j := hi - 1; j >= lo && hi-j <= ruleMaxPhrase; j-- {
		if n = n.child(s.toks[j].key); n == nil {
			return
		}
		if len(n.entries) > 0 {
			found(j, n.entries[0].country, false)
		}
	}
}

// capitals reports whether token k is written in capitals (or the question has no
// lower case at all).
func (s *ruleScan) capitals(k int) bool {
	t := s.toks[k]
	w := s.q[t.start:t.end]
	return s.caseless || strings.ToUpper(w) == w
}

// allowed reports whether phrase e, found at tokens [a, b) of the remaining tokens
// [lo, hi), may be stripped from side.
func (s *ruleScan) allowed(e lexEntry, a, b, lo, hi int, side lexSide, mode ruleMatch) bool {
	if e.side&side == 0 {
		return false
	}
	if e.flags&flagNeedReceive != 0 && !s.receive {
		return false
	}
	if s.capitalVerb(e, a) {
		return false
	}
	if e.flags&flagAfterPeppol != 0 && (a == 0 || s.toks[a-1].key != "peppol") {
		return false
	}
	if mode == matchFree {
		return true
	}
	switch side {
	case lexLeft:
		if e.flags&(flagWeak|flagArticle) != 0 && s.keepAsName(a, b, hi, e.flags&flagArticle != 0) {
			return false
		}
	case lexRight:
		if e.flags&flagLowerRight != 0 && !s.caseless {
			for _, t := range s.toks[a:b] {
				if t.word && !t.lower {
					return false
				}
			}
		}
		if e.flags&flagAdjective != 0 && !(s.innerSet && s.inner.role == lexNoun) && !(a > lo && s.isNoun(a-1)) && !s.categoryBefore(a, lo) {
			return false
		}
	}
	return true
}

// keepAsName reports whether the phrase at tokens [a, b) starts a capitalised name:
// it is capitalised and followed by a capitalised word that is no keyword (and, for
// an article, is not the question's first word).
func (s *ruleScan) keepAsName(a, b, hi int, article bool) bool {
	if s.caseless || !s.toks[a].capital || b >= hi {
		return false
	}
	if article && a == s.firstWord {
		return false
	}
	return s.nameAt(b, hi, 2)
}

// nameAt reports whether token i starts a capitalised name: a capitalised word that
// is no keyword, or a capitalised article or adjective before one ("Den Norske Bank"),
// looking at most depth words ahead.
func (s *ruleScan) nameAt(i, hi, depth int) bool {
	t := s.toks[i]
	if !t.word || !t.capital {
		return false
	}
	if !ruleLex.vocab[t.key] {
		return true
	}
	if depth == 0 || i+1 >= hi {
		return false
	}
	n := ruleLex.left.child(t.key)
	if n == nil {
		return false
	}
	for _, e := range n.entries {
		if e.flags&(flagWeak|flagArticle) != 0 {
			return s.nameAt(i+1, hi, depth-1)
		}
	}
	return false
}

// isNoun reports whether token i is a company noun ("société", "company").
func (s *ruleScan) isNoun(i int) bool {
	n := ruleLex.left.child(s.toks[i].key)
	if n == nil {
		return false
	}
	for _, e := range n.entries {
		if e.role == lexNoun {
			return true
		}
	}
	return false
}

// record notes what a stripped phrase at tokens [pos, end) says.
func (s *ruleScan) record(e lexEntry, pos, end int) {
	sg := &s.sig
	switch e.role {
	case lexIntent:
		switch e.intent {
		case IntentLookup:
			sg.lookup = true
		case IntentSearch:
			sg.search = true
		case IntentCount:
			sg.count = true
		case IntentAccessPoint:
			sg.accessPoint = true
		case IntentCertificate:
			sg.certificate = true
		case IntentDocumentTypes:
			sg.documentTypes = true
		}
		if e.flags&flagNamed != 0 {
			sg.named = true
		}
	case lexFiller:
		if e.flags&flagWhich != 0 {
			sg.which = true
		}
	case lexReceive:
		sg.receive = true
		if e.doc != "" && sg.doc == "" {
			// "invoice X": an invoice unless a document is named anywhere.
			sg.doc, sg.docAt = e.doc, math.MaxInt
		}
	case lexDoc:
		if sg.doc == "" || pos < sg.docAt {
			sg.doc, sg.docAt = e.doc, pos
		}
	case lexPresence:
		sg.presence = true
		if e.flags&flagRelative != 0 {
			sg.relative = true
		}
	case lexCopula:
		sg.copula = true
	case lexCountry:
		if sg.country == "" || pos < sg.countryAt {
			sg.country, sg.countryAt = e.country, pos
		}
		if e.flags&flagAdjective != 0 {
			sg.adjective = [2]int{pos, end}
		}
	case lexStarter:
		sg.starter = true
	case lexNoun:
		sg.kinds.noun = true
	}
	sg.kinds.note(e)
}

// subjectText is the question's text from token lo to token hi, less an English
// possessive before an access point or id phrase ("Acme's access point"), plus the
// full stop of an abbreviation at its end ("Acme Inc.").
func (s *ruleScan) subjectText(lo, hi int) string {
	if lo >= hi {
		return ""
	}
	start, end := s.toks[lo].start, s.toks[hi-1].end
	last := s.toks[hi-1]
	switch {
	case s.innerSet && s.inner.flags&flagPossessive != 0 && len(last.key) > 2 && strings.HasSuffix(last.key, "'s"):
		if strings.HasSuffix(s.q[:end], "’s") {
			end -= len("’s")
		} else {
			end -= len("'s")
		}
	case hi < len(s.toks) && s.toks[hi].key == "." && s.toks[hi].start == end &&
		(strings.Contains(last.key, ".") || ruleLex.abbreviations[last.key]):
		end++
	}
	return strings.TrimSpace(s.q[start:end])
}

// findQuoted returns text in quotes as the company name: "…", “…”, „…“, «…», ‘…’, or
// '…' opened at the start of a word.
func (s *ruleScan) findQuoted() (ruleSpan, bool) {
	for i, t := range s.toks {
		if t.word || (t.key != `"` && t.key != "'") {
			continue
		}
		if t.key == "'" && i > 0 && s.toks[i-1].end == t.start && s.toks[i-1].word {
			continue // an apostrophe, not an opening quote
		}
		for j := i + 1; j < len(s.toks); j++ {
			if s.toks[j].key != t.key {
				continue
			}
			if j == i+1 {
				break
			}
			subject := strings.TrimSpace(s.q[t.end:s.toks[j].start])
			if n := utf8.RuneCountInString(subject); n < registry.MinQueryLength || n > registry.MaxQueryLength {
				break
			}
			return ruleSpan{lo: i, hi: j + 1, subject: subject}, true
		}
	}
	return ruleSpan{}, false
}
