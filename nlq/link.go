package nlq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Entity linking (docs/INTERFACE.md §4.3): the rule planner reads a company's name as
// what is left when the question's words are stripped from both ends, which keeps
// words inside the question with it ("the AS4 endpoint URL for sending invoices to
// Smith Supplies Ltd"). The planner therefore also proposes other readings: the spans
// of the subject between question words (of any tongue: the phrase tables and every
// tongue's typical words, so a new tongue adds its words), each planned with the words
// around it. The engine asks the index (the mirror, else the live Directory within
// maxLiveSearches) for the subject, then for the readings and their cores (without
// legal form and "and"), and the first that finds a name matching it (matchName) wins.

// maxReadings bounds the other readings the planner proposes for one subject.
const maxReadings = 3

// maxLiveSearches bounds the Directory searches linking makes for one question when the
// live Directory answers (its budget is shared with every client); maxMirrorSearches
// when the mirror does (a search there costs microseconds).
const (
	maxLiveSearches   = 3
	maxMirrorSearches = 8
)

// questionSearches is the most live Directory searches one question naming n companies
// makes (docs/INTERFACE.md §4.3): one for each company (at most maxSubjects), one for
// the whole as one name when there are several, and maxLiveSearches-1 more (other
// readings, relaxed spellings) shared by all: 3 for one company, at most 8.
func questionSearches(n int) int {
	n = min(max(n, 1), maxSubjects)
	if n > 1 {
		n++
	}
	return n + maxLiveSearches - 1
}

// ruleMaxConnector is the longest lower-case word between two words of a name that stays
// in it ("Transports de Marseille", "Jansen en Zonen").
const ruleMaxConnector = 3

// withReadings adds to p, planned from the name in tokens [lo, hi), the other readings
// of that name (Plan.Readings).
//
// A question whose subject was no name (too many lower-case words around it: "Welk
// access point gebruiken we voor de facturen aan Bakkerij Jansen BV?") is planned as
// its first reading when the words around that ask something of a company: whether it
// can receive, is on Peppol, its access point, certificate or document types (not a
// mere "what is", search or count).
func (s *ruleScan) withReadings(p Plan, lo, hi int, lang string) Plan {
	rescue := p.Subject == "" && p.Intent == IntentUnknown && !s.caseless && hi-lo >= 2
	if !rescue && (p.Subject == "" || len(p.Calls) == 0 || p.Calls[0].Tool != ruleToolSearch || p.Intent == IntentCount || hi-lo < 2) {
		return p
	}
	var spans [maxReadings + 1][2]int
	n := 0
	for a := lo; a < hi && n < len(spans); {
		if !s.linkNameWord(a) {
			a++
			continue
		}
		b := a + 1
		for b < hi {
			switch {
			case s.linkNameWord(b) || s.linkInner(b):
			case s.linkConnector(b) && b+1 < hi && s.linkNameWord(b+1) && s.toks[b-1].word:
			default:
				goto end
			}
			b++
		}
	end:
		for b > a+1 && !s.toks[b-1].word && s.toks[b-1].key != ")" && s.toks[b-1].key != "." {
			b--
		}
		// Lower-case words at the ends of a span are the question's, when the question
		// writes names capitalised ("for invoicing Meijer Zorg", "Örebro Maskin wants").
		for a < b-1 && s.linkLowerEdge(a, b) {
			a++
		}
		for b > a+1 && s.linkLowerTail(a, b) {
			b--
		}
		if (a != lo || b != hi) && s.linkSpanNamed(a, b) && !s.linkNamedBefore(lo, a) {
			spans[n] = [2]int{a, b}
			n++
		}
		if b <= a {
			b = a + 1
		}
		a = b
	}
	if n == 0 {
		return p
	}
	// Spans with more words written as names first; ties keep their order.
	order := spans[:n]
	slices.SortStableFunc(order, func(x, y [2]int) int { return s.linkWeight(y[0], y[1]) - s.linkWeight(x[0], x[1]) })
	for _, sp := range order[:min(n, maxReadings)] {
		r := ruleScan{q: s.q, toks: s.toks, caseless: s.caseless, firstWord: s.firstWord, receive: s.receive, lang: lang}
		rp := r.planSpan(ruleSpan{lo: sp[0], hi: sp[1], subject: r.subjectText(sp[0], sp[1])}, ruleName)
		if rp.Subject == "" || rp.Subject == p.Subject || len(rp.Calls) == 0 || rp.Calls[0].Tool != ruleToolSearch {
			continue
		}
		if rescue {
			switch rp.Intent {
			case IntentCanReceive, IntentAccessPoint, IntentCertificate, IntentDocumentTypes, IntentOnPeppol:
				return rp
			}
			continue
		}
		if rp.Intent == IntentSearch && p.Intent != IntentSearch {
			// The words around the span said less than those around the whole subject
			// (a stripped edge phrase): keep what the question asked.
			rp.Intent, rp.Document = p.Intent, p.Document
		}
		p.Readings = append(p.Readings, rp)
	}
	return p
}

// linkStop reports whether token i is a question word of some language rather than a
// word of a name: a word of the phrase tables or one typical of a tongue, in lower case
// (or in a question without case); capitalised only when it has a meaning for the plan
// (an intent, a capability, a document, "on Peppol"), as German nouns are written.
func (s *ruleScan) linkStop(i int) bool {
	t := s.toks[i]
	if !t.word || t.digit {
		return false
	}
	k := t.key
	if strings.HasPrefix(k, "peppol") {
		return true // "Peppol-Netz", "peppolnettverket"
	}
	if t.lower || s.caseless {
		return ruleLex.vocab[k] || langMarkers[k] != 0
	}
	if n := ruleLex.left.child(k); n != nil {
		for _, e := range n.entries {
			switch e.role {
			case lexIntent, lexReceive, lexDoc, lexPresence:
				return true
			}
		}
	}
	return false
}

// questionWords reports whether every word of tokens [lo, hi) is a question word
// (linkStop), so that they name no company.
func (s *ruleScan) questionWords(lo, hi int) bool {
	for i := lo; i < hi; i++ {
		if s.toks[i].word && !s.linkStop(i) {
			return false
		}
	}
	return true
}

// linkNameWord reports whether token i may be a word of a name: a word that is no
// question word.
func (s *ruleScan) linkNameWord(i int) bool {
	return s.toks[i].word && !s.linkStop(i)
}

// linkInner reports whether punctuation token i belongs inside a name ("&", "(publ)",
// "B.V.").
func (s *ruleScan) linkInner(i int) bool {
	switch s.toks[i].key {
	case "&", "(", ")", ".", "-", "'", "+", "/":
		return true
	}
	return false
}

// linkConnector reports whether token i is a short lower-case word that joins words of
// a name ("van", "den", "og", "and"): a word for "and", or a short one that does not
// start a phrase introducing a place ("i Stavanger", "in Gent", "aus Köln", "de la").
func (s *ruleScan) linkConnector(i int) bool {
	t := s.toks[i]
	if !t.word || !t.lower || t.digit {
		return false
	}
	return ruleListWords[t.key] || len(t.key) <= ruleMaxConnector && ruleLex.intro.child(t.key) == nil
}

// linkNamedBefore reports whether a word before token a in the subject [lo, a) is
// written as a name's (capitalised, with lower-case letters, no digit, no question
// word): a span after it is no company's name alone ("Fjordlys Bakeri i Stavanger" is
// not "Stavanger"), while "AS4", "URL" or "invoicing" before it are the question's.
func (s *ruleScan) linkNamedBefore(lo, a int) bool {
	if s.caseless {
		return false
	}
	for i := lo; i < a; i++ {
		if t := s.toks[i]; t.word && t.capital && !t.lower && !t.digit && s.linkNameWord(i) &&
			strings.ContainsFunc(s.q[t.start:t.end], unicode.IsLower) {
			return true
		}
	}
	return false
}

// linkLowerEdge reports whether token a, at the start of span [a, b), is a lower-case
// word before a capitalised one in a question that writes names capitalised.
func (s *ruleScan) linkLowerEdge(a, b int) bool {
	t := s.toks[a]
	if s.caseless || !t.word || !t.lower || t.digit {
		return false
	}
	for i := a + 1; i < b; i++ {
		if s.toks[i].word && s.toks[i].capital {
			return true
		}
	}
	return false
}

// linkLowerTail reports whether the last token of span [a, b) is a lower-case word after
// a capitalised one in a question that writes names capitalised ("Örebro Maskin wants").
func (s *ruleScan) linkLowerTail(a, b int) bool {
	t := s.toks[b-1]
	if s.caseless || !t.word || !t.lower || t.digit {
		return false
	}
	for i := a; i < b-1; i++ {
		if s.toks[i].word && s.toks[i].capital {
			return true
		}
	}
	return false
}

// linkSpanNamed reports whether span [a, b) has a word that can be a name's: with a
// letter, and capitalised when the question writes names so.
func (s *ruleScan) linkSpanNamed(a, b int) bool {
	for i := a; i < b; i++ {
		t := s.toks[i]
		if t.word && strings.ContainsFunc(s.q[t.start:t.end], unicode.IsLetter) && (t.capital || s.caseless || !s.anyCapital()) {
			return true
		}
	}
	return false
}

// anyCapital reports whether some word of the question is capitalised after its first.
func (s *ruleScan) anyCapital() bool {
	for i, t := range s.toks {
		if i != s.firstWord && t.word && t.capital && !t.digit {
			return true
		}
	}
	return false
}

// linkWeight is how much span [a, b) looks like a name: its capitalised words.
func (s *ruleScan) linkWeight(a, b int) int {
	w := 0
	for i := a; i < b; i++ {
		if s.toks[i].word && s.toks[i].capital {
			w++
		}
	}
	return w
}

// coreQuery is a name without its legal form and its words for "and", for a search
// that forgives them: "Vestland og Dahl AS" → "Vestland Dahl"; "" when that is the name
// or too short.
func coreQuery(subject string) string {
	n := cutName(subject, true)
	if len(n.raw) == 0 {
		return ""
	}
	words := strings.Fields(subject)
	if len(words) == len(n.raw) {
		return ""
	}
	// Keep the typed words (with their diacritics) that the core kept.
	var out []string
	i := 0
	for _, w := range words {
		if i < len(n.raw) && strings.Join(foldTerms(w), "") == n.raw[i] {
			out = append(out, w)
			i++
			continue
		}
		// A word the fold splits ("B.V.", "Logistik-Nord") is kept whole when it starts
		// the next core term.
		if ft := foldTerms(w); i < len(n.raw) && len(ft) > 0 && ft[0] == n.raw[i] {
			out = append(out, w)
			i += len(ft)
		}
	}
	q := strings.Join(out, " ")
	if len([]rune(q)) < registry.MinQueryLength || q == subject {
		return ""
	}
	return q
}

// linkAttempt is one search linking may make: a reading of the question and the text
// searched for it.
type linkAttempt struct {
	plan Plan
	q    string
	// match is the name the hits are matched against: plan.Subject when "", the
	// searched stem for a Finnish name in a case (finnishStemQuery).
	match string
}

// linked is the best match linking found.
type linked struct {
	m     nameMatch
	plan  Plan
	sr    *registry.SearchResult
	typed string
	// match is what the hits were matched against (linkAttempt.match).
	match string
}

// link finds the participant a name question is about by searching the subject, then its
// other readings (Plan.Readings), then the cores of both (coreQuery), and answers from
// the first that finds a name matching what was typed. It returns handled false, with
// r.first set to the subject's own search result, when none does: the caller answers as
// before (relaxed searches within r.relaxBudget). The searches stop at
// maxLiveSearches, or maxMirrorSearches when the mirror answered the first.
func (r *run) link(ctx context.Context, c Call) (handled bool, err error) {
	plan := r.plan
	q, _ := c.Arguments["q"].(string)
	if plan.Subject == "" || q == "" || plan.Intent == IntentCount || len(peppol.Candidates(q)) > 0 {
		return false, nil
	}
	attempts := []linkAttempt{{plan: plan, q: q}}
	add := func(p Plan, q string) {
		if q != "" && !slices.ContainsFunc(attempts, func(a linkAttempt) bool { return strings.EqualFold(a.q, q) }) {
			attempts = append(attempts, linkAttempt{plan: p, q: q})
		}
	}
	for _, rd := range plan.Readings {
		rq, _ := rd.Calls[0].Arguments["q"].(string)
		add(rd, rq)
	}
	add(plan, coreQuery(plan.Subject))
	for _, rd := range plan.Readings {
		add(rd, coreQuery(rd.Subject))
	}
	add(plan, translitQuery(plan.Subject))
	add(plan, longWordsQuery(plan.Subject))
	if plan.Language == LangFinnish {
		if q := finnishStemQuery(plan.Subject); q != "" && !slices.ContainsFunc(attempts, func(a linkAttempt) bool { return strings.EqualFold(a.q, q) }) {
			attempts = append(attempts, linkAttempt{plan: plan, q: q, match: q})
		}
	}
	budget, used := maxLiveSearches, 0
	var best linked
	for i, at := range attempts {
		if i >= budget {
			break
		}
		if i > 0 && budget == maxLiveSearches {
			// Beyond a company's own search, the live Directory's searches come
			// from the question's one budget (run.extra).
			if *r.extra <= 0 {
				break
			}
			*r.extra--
		}
		call := Call{Tool: ruleToolSearch, Arguments: map[string]any{"q": at.q}}
		if at.plan.Country != "" {
			call.Arguments["country"] = at.plan.Country
		}
		if i == 0 {
			call = c
		} else {
			r.a.Calls = append(r.a.Calls, call)
		}
		used++
		res, err := r.e.call(ctx, call)
		if err != nil {
			if i == 0 {
				return true, r.callFailed(c, err)
			}
			r.a.Failed = append(r.a.Failed, failedCall(call, err))
			break
		}
		sr, _ := res.Value.(*registry.SearchResult)
		if sr == nil {
			return true, &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: errors.New("search_directory returned no search result")}
		}
		if i == 0 {
			r.first = sr
			if sr.Source == registry.SourceMirror {
				budget = maxMirrorSearches
			}
		}
		match := at.plan.Subject
		if at.match != "" {
			match = at.match
		}
		typed := cutName(match, true)
		if i > 0 && r.readName == "" && at.q == at.plan.Subject && at.plan.Subject != plan.Subject {
			r.readName = at.plan.Subject // a reading searched: a not-found answer names it
		}
		if m, ranked := rankByMatch(typed, sr); m.ok && (!best.m.ok || m.better(best.m)) {
			best = linked{m: m, plan: at.plan, sr: ranked, typed: at.plan.Subject, match: match}
		}
		if best.m.ok {
			break
		}
	}
	// The mirror forgives typos itself: a name that neither it nor linking matched is
	// not relaxed into a few letters that match anything. The live Directory's relaxed
	// searches share the budget.
	r.relaxBudget = 0
	if r.first != nil && r.first.Source != registry.SourceMirror {
		r.relaxBudget = max(0, min(maxLiveSearches-used, *r.extra))
	}
	if !best.m.ok {
		return false, nil
	}
	r.answerLinked(ctx, best)
	return true, nil
}

// answerLinked answers from the search result linking chose: as a search (an approximate
// one says so), or by looking up its first hits, saying first how an approximate match
// read the name ("I read … as …").
func (r *run) answerLinked(ctx context.Context, l linked) {
	r.plan = l.plan
	r.a.Intent = l.plan.Intent
	plan, a, t := r.plan, r.a, r.t
	if plan.Intent == IntentSearch {
		// A list: an approximate one says so as relaxed searches do.
		approx := ""
		if l.m.approximate() {
			a.Approximate, approx = true, l.sr.Query
		}
		for _, h := range l.sr.Results {
			r.add(r.e.hitItem(h), nil)
		}
		a.Answer = searchAnswer(t, plan, l.sr, approx)
		return
	}
	// About one company: the hits whose names do not match what was typed are not it
	// (the live Directory matches words anywhere on a card).
	sr := *l.sr
	typed := cutName(l.match, true)
	sr.Results = slices.DeleteFunc(slices.Clone(sr.Results), func(h registry.SearchHit) bool { return !matchName(typed, h.Name).ok })
	if len(sr.Results) < len(l.sr.Results) {
		sr.TotalCount = len(sr.Results)
	}
	l.sr = &sr
	r.followUp(ctx, l.sr, "")
	if l.m.approximate() && len(l.sr.Results) > 0 {
		h := l.sr.Results[0]
		a.Approximate = true
		a.Answer = fmt.Sprintf(t.phrase(func(t *tongue) string { return t.readAs }), untrusted.Quote(l.typed), label(h.Name, h.ParticipantID, h.CountryCode)) + "\n" + a.Answer
	}
}

// rankByMatch returns the best match of typed among sr's hits, and sr with its hits
// ordered by match, best first (ties keep the index's order); sr is not changed.
func rankByMatch(typed linkName, sr *registry.SearchResult) (nameMatch, *registry.SearchResult) {
	if len(sr.Results) == 0 {
		return nameMatch{}, sr
	}
	ms := make([]nameMatch, len(sr.Results))
	idx := make([]int, len(sr.Results))
	best := 0
	for i, h := range sr.Results {
		ms[i], idx[i] = matchName(typed, h.Name), i
		if ms[i].better(ms[best]) {
			best = i
		}
	}
	slices.SortStableFunc(idx, func(x, y int) int {
		switch {
		case ms[x].better(ms[y]):
			return -1
		case ms[y].better(ms[x]):
			return 1
		}
		return 0
	})
	out := *sr
	out.Results = make([]registry.SearchHit, len(idx))
	for i, j := range idx {
		out.Results[i] = sr.Results[j]
	}
	return ms[best], &out
}

// phrase returns a phrase of t, or English's when t lacks it (a tongue added before
// the phrase was).
func (t *tongue) phrase(get func(*tongue) string) string {
	if s := get(t); s != "" {
		return s
	}
	return get(&english)
}
