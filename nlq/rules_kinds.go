package nlq

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Issue 29's kinds of questions (docs/INTERFACE.md §5): the certificate's issuer, the
// SMP host (an access point question, whose answer names it), the transport profile and the registration date of a participant; the
// participants of a country (with a document kind too); counts of the whole network
// and per document kind from the statistics; several companies in one question; and
// what peppolgate cannot know. Their words are the tongues' (kindWords), so that a
// language added as a tongue file brings its words along.

// IntentOutOfScope: the question asks for something peppolgate cannot know (fees,
// prices, legal deadlines, bank details, the weather); Calls is empty and the answer
// says so, unlike IntentUnknown's "I did not understand".
const IntentOutOfScope Intent = "out_of_scope"

// Aspects: the one fact a question about a participant asks for (Plan.Aspect).
const (
	// AspectIssuer: who issued the access point certificate (its CA); with
	// IntentCertificate.
	AspectIssuer = "issuer"
	// AspectTransport: the transport profile (AS4, AS2) of its access point; with
	// IntentAccessPoint.
	AspectTransport = "transport_profile"
	// AspectRegistered: its registration date, from its Directory business card; with
	// IntentLookup.
	AspectRegistered = "registration_date"
)

// ruleToolStats is planned for a count of the whole network or of a document kind.
const ruleToolStats = "network_statistics"

// Phrase markers of kindWords that are no aspect of their own.
const (
	aspectWhen    = "when"    // "when was", "since when": a registration date with "registered"
	aspectCompare = "compare" // "compare", "versus": several companies
	aspectJoined  = "joined"  // "joined", "added to": with when, a registration date
)

// maxSubjects is the most companies one question is answered about; the answer says
// when there were more.
const maxSubjects = 5

// kindWords are one language's words for issue 29's kinds of questions, "|"-separated
// phrases written as people type them (expanded like lexGroups' phrases). A tongue may
// leave any empty: the other languages' words are read in every question anyway.
type kindWords struct {
	// issuer asks who issued a certificate ("who issued", "issuer", "CA").
	issuer string
	// smp asks for the SMP host ("smp host", "registered with").
	smp string
	// transport asks for the transport profile ("transport profile", "AS4").
	transport string
	// registered asks for the registration date ("registration date").
	registered string
	// when asks since when ("when was", "since when"): with a presence phrase
	// ("registered", "on Peppol") it asks for the registration date.
	when string
	// joined says someone joined the network ("joined", "added to"): with when, it
	// asks for the registration date.
	joined string
	// filler are words around these questions that mean nothing for the plan
	// ("been", "both", "used for").
	filler string
	// compare introduces several companies ("compare").
	compare string
	// total says "the whole network" around a count ("in total", "altogether").
	total string
	// outOfScope are words (one each) of what peppolgate cannot know: fees, prices,
	// legal deadlines, bank details, the weather.
	outOfScope string
}

// kindSignals are what the phrases of kindWords said in one question.
type kindSignals struct {
	aspect string
	// doc is a document kind of kindDocs ("despatch advice"), counted and listed.
	doc                         string
	when, joined, compare, noun bool
}

// note records the aspect or marker of a phrase stripped from the question.
func (k *kindSignals) note(e lexEntry) {
	if doc, ok := strings.CutPrefix(e.aspect, aspectDoc); ok {
		if k.doc == "" {
			k.doc = doc
		}
		return
	}
	switch e.aspect {
	case "":
	case aspectWhen:
		k.when = true
	case aspectCompare:
		k.compare = true
	case aspectJoined:
		k.joined = true
	default:
		if k.aspect == "" {
			k.aspect = e.aspect
		}
	}
}

// kindGroups are the phrase table rows of every tongue's kindWords.
func kindGroups() []lexGroup {
	var out []lexGroup
	add := func(g lexGroup) {
		if g.phrases != "" {
			out = append(out, g)
		}
	}
	for _, t := range tongues {
		w := t.kw
		add(lexGroup{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagPossessive, intent: IntentCertificate, aspect: AspectIssuer, phrases: w.issuer}) // "the Peppol CA"
		// The access point answer names the SMP host.
		add(lexGroup{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagLowerRight | flagPossessive, intent: IntentAccessPoint, phrases: w.smp})
		// "AS4" is written in capitals at the end of a question too.
		add(lexGroup{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagPossessive, intent: IntentAccessPoint, aspect: AspectTransport, phrases: w.transport})
		add(lexGroup{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagLowerRight | flagPossessive, intent: IntentLookup, aspect: AspectRegistered, phrases: w.registered})
		add(lexGroup{role: lexFiller, side: lexLeft, flags: flagNoTypo, aspect: aspectWhen, phrases: w.when})
		add(lexGroup{role: lexFiller, side: lexLeft, flags: flagNoTypo, aspect: aspectCompare, phrases: w.compare})
		add(lexGroup{role: lexFiller, side: lexBoth, flags: flagNoTypo | flagLowerRight, aspect: aspectJoined, phrases: w.joined})
		add(lexGroup{role: lexFiller, side: lexBoth, flags: flagNoTypo | flagPossessive, phrases: w.filler})
		add(lexGroup{role: lexFiller, side: lexBoth, flags: flagNoTypo | flagLowerRight, phrases: w.total})
	}
	out = append(out, lexGroup{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagPossessive, intent: IntentCertificate, aspect: AspectIssuer, phrases: kindIssuer2})
	for _, d := range kindDocs {
		out = append(out, lexGroup{role: lexFiller, side: lexBoth, flags: flagNoTypo | flagLowerRight, aspect: aspectDoc + d.doc, phrases: d.phrases})
	}
	return append(out, kindGroups2...)
}

// kindOutOfScope holds every tongue's outOfScope words, folded.
var kindOutOfScope = buildOutOfScope()

func buildOutOfScope() map[string]bool {
	m := map[string]bool{}
	for _, t := range tongues {
		for _, w := range strings.Split(t.kw.outOfScope+"|"+kindOutOfScope2, "|") {
			if w != "" && !strings.Contains(w, " ") {
				m[ruleFold(w)] = true
			}
		}
	}
	return m
}

// listsCountry reports whether the question asks for a list of companies (a search
// word or "which", and a company noun: "show all Belgian companies", "welche dänischen
// Firmen"), so that a country
// adjective left alone is the country listed, not a name.
func (s *ruleScan) listsCountry() bool {
	return (s.sig.search || s.sig.which || s.sig.receive) && s.sig.kinds.noun && !s.sig.named
}

// outOfScope reports whether the question asks for what peppolgate cannot know: a
// word of kindWords.outOfScope outside the subject when it is quoted, written in lower
// case (in German also capitalised, as its nouns are), or an acronym ("IBAN"); a
// capitalised word elsewhere is part of a name ("Price Waterhouse").
func (s *ruleScan) outOfScope(lo, hi int, kind ruleKind) bool {
	for i, t := range s.toks {
		if !t.word || kind == ruleQuoted && i >= lo && i < hi {
			continue
		}
		if !s.outOfScopePhrase(i) && !s.outOfScopeWord(i) { // "chiffre d'affaires", "fees"
			continue
		}
		// "Price" is a name's; "IBAN" and "IBAN-nummer" are acronyms.
		w := []rune(s.q[t.start:t.end])
		titled := len(w) > 1 && unicode.IsUpper(w[0]) && unicode.IsLower(w[1])
		if !titled || s.caseless || i == s.firstWord {
			return true
		}
		// German capitalises its nouns: "Umsatz" is one unless a name goes on after it
		// ("Gewinn Immobilien GmbH", "Discountpreis GmbH").
		if s.lang == LangGerman && !s.nameGoesOn(i+1) {
			return true
		}
	}
	return false
}

// nameGoesOn reports whether token i goes on with a name: a capitalised word (or a
// legal form: "GmbH", "AG").
func (s *ruleScan) nameGoesOn(i int) bool {
	return i < len(s.toks) && s.toks[i].word && s.toks[i].capital
}

// planKinds plans the kinds of questions that replace finish's plan as a whole: what
// peppolgate cannot know, a count of the whole network or of a document kind (the
// statistics), and the participants of a country.
func (s *ruleScan) planKinds(subject string, lo, hi int, kind ruleKind) (Plan, bool) {
	if s.outOfScope(lo, hi, kind) {
		if p, ok := s.inScopeClause(); ok {
			return p, true // "… is mandatory for us: can Acme receive invoices?"
		}
		// The whole question's language: what was read as a name is no company's.
		return Plan{Intent: IntentOutOfScope, Language: s.detectLanguage(), Calls: []Call{}}, true
	}
	if subject != "" && s.sig.country == "" && (s.sig.count || s.sig.search || s.sig.which) {
		if cc, ok := s.countrySubject(lo, hi); ok {
			s.sig.country, subject = cc, "" // "how many IE endpoints are there"
		}
	}
	if subject == "" && s.sig.count && s.sig.country == "" {
		if cc, ok := s.countryCodeBeforeNoun(); ok {
			s.sig.country = cc // "count of SE participants"
		}
	}
	if p, ok := s.registrationDate(subject, kind); ok {
		return p, true
	}
	if subject != "" {
		return Plan{}, false
	}
	sg := s.sig
	doc := DocAny
	if sg.receive {
		doc = sg.doc
	}
	if doc == DocAny && sg.kinds.doc != "" {
		doc = sg.kinds.doc // "how many can receive despatch advice"
	}
	switch {
	case sg.count && sg.country == "" && !s.hasYear():
		return Plan{Intent: IntentCount, Language: s.lang, Document: doc,
			Calls: []Call{{Tool: ruleToolStats, Arguments: map[string]any{}}}}, true
	case sg.count && sg.country != "" && doc != DocAny:
		// As without a document (finish), but the answer says the kind is counted
		// for the whole network only.
		return Plan{Intent: IntentCount, Country: sg.country, Language: s.lang, Document: doc,
			Calls: []Call{{Tool: ruleToolSearch, Arguments: map[string]any{"country": sg.country}}}}, true
	case sg.count && sg.country != "":
		// A country code read as the subject ("how many IE endpoints"): as finish
		// plans a country's count.
		return Plan{Intent: IntentCount, Country: sg.country, Language: s.lang,
			Calls: []Call{{Tool: ruleToolSearch, Arguments: map[string]any{"country": sg.country}}}}, true
	case !sg.count && sg.country != "" && (sg.search || sg.kinds.noun):
		// "list …", "which companies …", and a company noun with a country alone
		// ("Peppol participants in Singapore").
		return Plan{Intent: IntentSearch, Country: sg.country, Language: s.lang, Document: doc,
			Calls: []Call{{Tool: ruleToolSearch, Arguments: map[string]any{"country": sg.country}}}}, true
	}
	return Plan{}, false
}

// finishKinds adds to a plan about a subject what issue 29's kinds say: the aspect
// asked for, and the companies of a question naming several.
func (s *ruleScan) finishKinds(p *Plan, lo, hi int, kind ruleKind) {
	k := s.sig.kinds
	aspect := k.aspect
	if aspect == "" && k.when && (s.sig.presence || k.joined) {
		aspect = AspectRegistered // "when was X registered", "since when is X on Peppol"
	}
	if p.Document == DocAny && k.doc != "" && (p.Intent == IntentCanReceive || p.Intent == IntentAccessPoint) {
		p.Document = k.doc // "can X receive despatch advice?"
		if kind == ruleID && len(p.Calls) == 1 {
			p.Calls = append(p.Calls, Call{Tool: ruleToolServices, Arguments: map[string]any{"participantId": p.Subject}})
		}
	}
	switch {
	case aspect == AspectIssuer && p.Intent == IntentCertificate,
		aspect == AspectTransport && p.Intent == IntentAccessPoint:
		p.Aspect = aspect
	case aspect == AspectRegistered && (p.Intent == IntentLookup || p.Intent == IntentOnPeppol || p.Intent == IntentSearch && !s.sig.search):
		p.Intent, p.Aspect = IntentLookup, aspect
	}
	if kind == ruleID || kind == ruleNumber {
		if name := s.nameBesideID(lo, hi); name != "" {
			p.Subjects = []string{p.Subject, name} // "can <id> and Acme receive invoices?"
		}
		return
	}
	if kind != ruleName {
		return
	}
	compare := k.compare
	for i := lo; i < hi && !compare; i++ {
		compare = s.toks[i].key == "vs" || s.toks[i].key == "versus" // "A vs B"
	}
	switch p.Intent {
	case IntentCount, IntentSearch:
		if !compare {
			return
		}
	}
	parts := s.splitSubjects(lo, hi)
	if len(parts) < 2 {
		return
	}
	p.Subjects = parts
	if p.Intent == IntentSearch || p.Intent == IntentCount {
		p.Intent = IntentOnPeppol // "compare A, B and C"
	}
	if p.Intent == IntentOnPeppol || p.Intent == IntentLookup {
		p.Document = DocAny
	}
}

// splitSubjects splits the name in tokens [lo, hi) at commas, semicolons and the
// languages' words for "and" into the companies it may name; nil unless each part
// can be a name of its own: two characters or more, with a capitalised word or a word
// that is no keyword ("acme and globex" typed in lower case).
func (s *ruleScan) splitSubjects(lo, hi int) []string {
	var parts []string
	start := lo
	flush := func(end int) bool {
		if start >= end {
			return true // ", and": no part between two separators
		}
		for start+1 < end && s.toks[start].word && kindEither[s.toks[start].key] {
			start++ // "either A or B"
		}
		named := s.caseless
		for i := start; i < end; i++ {
			t := s.toks[i]
			named = named || t.word && (t.capital || !ruleLex.vocab[t.key] && !t.digit)
		}
		text := strings.TrimSpace(s.q[s.toks[start].start:s.toks[end-1].end])
		if !named || utf8.RuneCountInString(text) < 2 {
			return false
		}
		parts = append(parts, text)
		return true
	}
	for i := lo; i < hi; i++ {
		t := s.toks[i]
		if t.key == "," || t.key == ";" || t.word && t.lower && s.joinsNames(t.key) {
			if t.key == "of" && s.anyLower(start, i) {
				return nil // Dutch "of" after words that are no name is "whether"
			}
			if !flush(i) {
				return nil
			}
			start = i + 1
		}
	}
	if len(parts) == 0 || !flush(hi) {
		return nil
	}
	return parts
}

// kindAnd are the tongues' words for "and", and "vs" and "or".
var kindAnd = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range tongues {
		m[ruleFold(t.and)] = true
	}
	// "A vs B", "A or B": each answered too.
	for _, w := range []string{"vs", "versus", "or", "ou", "oder", "eller"} {
		m[w] = true
	}
	return m
}()

// anyLower reports whether a word of tokens [lo, hi) is in lower case.
func (s *ruleScan) anyLower(lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if s.toks[i].word && s.toks[i].lower {
			return true
		}
	}
	return false
}

// kindEither are the words before the first of companies joined by "or" ("either
// A or B", "entweder A oder B", "soit A soit B"), not part of the name.
var kindEither = map[string]bool{
	"either": true, "entweder": true, "soit": true, "ofwel": true, "enten": true,
	"antingen": true, "joko": true, "albo": true, "bien": true, "sia": true,
}

// kindOrOf are the words for "or" that are also words of other tongues (Dutch "of" is
// "whether" and English "of"; "o" is a letter in "Sp. z o.o."), with the tongues whose
// "or" each is: a separator only in a question of those tongues.
var kindOrOf = map[string][]string{
	"o": {LangSpanish, LangItalian}, "of": {LangDutch}, "tai": {LangFinnish}, "lub": {LangPolish},
}

// kindAndOf are the tongues (a bit set over tongues) whose word for "and" each word is.
var kindAndOf = func() map[string]uint16 {
	m := map[string]uint16{}
	for i, t := range tongues {
		m[ruleFold(t.and)] |= 1 << i
	}
	return m
}()

// joinsNames reports whether the word key is a word for "and" between two companies
// in this question: a tongue's word for "and" that is also a word of another tongue
// (Polish "i" is "in" in Norwegian, Dutch "en" in Spanish) only in a question of a
// tongue whose "and" it is, so that "Fjordlys Bakeri i Stavanger" stays one bakery.
func (s *ruleScan) joinsNames(key string) bool {
	if langs, ok := kindOrOf[key]; ok {
		return slices.Contains(langs, s.lang)
	}
	if !kindAnd[key] {
		return false
	}
	own, ok := kindAndOf[key]
	if !ok || langMarkers[key]&^own == 0 {
		return true // "vs", "or"; "og", a word only its tongues use
	}
	for i, t := range tongues {
		if t.code == s.lang {
			return own&(1<<i) != 0
		}
	}
	return false
}

// hasYear reports whether the question names a year ("registered in 2023"), which the
// statistics' total does not answer.
func (s *ruleScan) hasYear() bool {
	for _, t := range s.toks {
		if t.digit && len(t.key) == 4 && (strings.HasPrefix(t.key, "19") || strings.HasPrefix(t.key, "20")) {
			return true
		}
	}
	return false
}

// nameBesideID returns the company name joined to the participant id at tokens
// [lo, hi) by a word for "and" ("<id> and Acme …", "… Acme and <id>"), read as a
// question's name is (strip, nameLike) by a scan of its own; "" when there is none.
func (s *ruleScan) nameBesideID(lo, hi int) string {
	try := func(from, to int) string {
		sc := *s
		sc.sig, sc.inner, sc.innerSet = ruleSignals{}, lexEntry{}, false
		a, b := sc.strip(from, to)
		if a >= b {
			return ""
		}
		if name := sc.subjectText(a, b); sc.nameLike(name, a, b) {
			return name
		}
		return ""
	}
	if hi+1 < len(s.toks) && s.toks[hi].word && s.joinsNames(s.toks[hi].key) {
		if name := try(hi+1, len(s.toks)); name != "" {
			return name
		}
	}
	if lo >= 2 && s.toks[lo-1].word && s.joinsNames(s.toks[lo-1].key) {
		return try(0, lo-1)
	}
	return ""
}
