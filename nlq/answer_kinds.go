package nlq

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// kindPhrases are one language's phrases for the answers to issue 29's kinds of
// questions (rules_kinds.go) and for the causes of failures. Format strings take their
// arguments in the order each field's comment gives; a field a tongue leaves empty is
// English's (phrasesOf), so a new tongue works before it has them all.
type kindPhrases struct {
	certIssuer string // who, CA name, expiry date
	// certExpiredBy: the certificate has expired: who, CA name, expiry date.
	certExpiredBy    string
	certIssuerNone   string // who, SMP host
	transport        string // who, profile id, profile name, access point URL
	transportNone    string // who, SMP host
	registeredOn     string // who, date (YYYY-MM-DD)
	registeredNoDate string // who
	registeredNoCard string // who
	stats            string // n participants, date of the Directory export
	statsKind        string // n participants, docs, date of the Directory export
	statsKindNone    string // docs, date of the Directory export
	statsNone        string // (the server has no Directory mirror to count from)
	statsCountry     string // n participants, country code, date of the Directory export
	statsKindWhole   string // n participants, docs (over the whole network)
	listCountry      string // n listed, country code, n in all
	listOutside      string // n left out, country code
	listKind         string // n that can receive, n checked, docs, country code
	listKindNone     string // n checked, docs, country code
	several          string // n companies
	severalCap       string // n answered, n asked
	outOfScope       string
	// caPeppol and caNotPeppol follow certIssuer: whether the CA is an OpenPeppol
	// access point CA of the network.
	caPeppol, caNotPeppol string
	// listMore follows a list of a country's participants that shows only some: how
	// to see others.
	listMore string
	// partialCause says what could not be checked and why: what, the cause (causes).
	partialCause string
	// causes say why the network failed, by registry.Cause; "" (unclassified) too.
	causes map[registry.Cause]string
}

// phrasesOf returns t's kindPhrases, English's where t has none.
func phrasesOf(t *tongue) *kindPhrases {
	if t == &english {
		return &t.kp
	}
	k, en := t.kp, &english.kp
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&k.certIssuer, en.certIssuer}, {&k.certExpiredBy, en.certExpiredBy}, {&k.certIssuerNone, en.certIssuerNone},
		{&k.transport, en.transport}, {&k.transportNone, en.transportNone}, {&k.registeredOn, en.registeredOn},
		{&k.registeredNoDate, en.registeredNoDate}, {&k.registeredNoCard, en.registeredNoCard}, {&k.stats, en.stats},
		{&k.statsKind, en.statsKind}, {&k.statsKindNone, en.statsKindNone}, {&k.statsNone, en.statsNone}, {&k.statsCountry, en.statsCountry}, {&k.statsKindWhole, en.statsKindWhole},
		{&k.listCountry, en.listCountry}, {&k.listOutside, en.listOutside}, {&k.listKind, en.listKind},
		{&k.listKindNone, en.listKindNone}, {&k.several, en.several}, {&k.severalCap, en.severalCap},
		{&k.outOfScope, en.outOfScope}, {&k.partialCause, en.partialCause},
		{&k.caPeppol, en.caPeppol}, {&k.caNotPeppol, en.caNotPeppol}, {&k.listMore, en.listMore},
	} {
		if *f.dst == "" {
			*f.dst = f.src
		}
	}
	if k.causes == nil {
		k.causes = en.causes
	}
	return &k
}

// causeClause says why the network failed, in t's words: the clause of cause, or of
// an unclassified failure.
func causeClause(t *tongue, cause registry.Cause) string {
	k := phrasesOf(t)
	if s, ok := k.causes[cause]; ok {
		return s
	}
	if s, ok := k.causes[""]; ok {
		return s
	}
	return english.kp.causes[""]
}

// partialText says what could not be checked (what) and why (the first classified
// cause of failed; t.partial, which names none, when there is none): "did not answer
// in time" only for a timeout.
func partialText(t *tongue, what string, failed []FailedCall) string {
	for _, f := range failed {
		if f.Cause != "" {
			return fmt.Sprintf(phrasesOf(t).partialCause, what, causeClause(t, f.Cause))
		}
	}
	return fmt.Sprintf(t.partial, what)
}

// aspectSentence answers a question about one fact of a participant (plan.Aspect).
func aspectSentence(t *tongue, plan Plan, who string, p *registry.Participant, svc *registry.ServicesResult, info *PeppolInfo) string {
	k := phrasesOf(t)
	if !info.Registered && plan.Aspect != AspectRegistered {
		return fmt.Sprintf(t.apNotRegistered, who)
	}
	switch plan.Aspect {
	case AspectIssuer:
		c := firstExpiring(svc)
		if c == nil {
			return fmt.Sprintf(k.certIssuerNone, who, untrusted.Short(info.SMPHost))
		}
		ca := c.PeppolCAName
		if ca == "" {
			ca = subjectOrganisation(c.Issuer)
		}
		peppolCA := k.caNotPeppol
		if c.PeppolCA {
			peppolCA = k.caPeppol
		}
		if c.Expired { // as the registry's clock found it, as answer.go's certificate answer
			return fmt.Sprintf(k.certExpiredBy, who, untrusted.Quote(ca), t.date(c.NotAfter)) + " " + peppolCA
		}
		return fmt.Sprintf(k.certIssuer, who, untrusted.Quote(ca), t.date(c.NotAfter)) + " " + peppolCA
	case AspectTransport:
		ep := info.Endpoint
		if ep == nil || ep.TransportProfile == "" {
			return fmt.Sprintf(k.transportNone, who, untrusted.Short(info.SMPHost))
		}
		// A profile the code list does not have is the SMP's text: quoted and capped.
		name := untrusted.Quote(ep.TransportProfile)
		if tp, ok := codelist.LookupTransportProfile(ep.TransportProfile); ok {
			name = tp.Name
		}
		return fmt.Sprintf(k.transport, who, untrusted.Short(ep.TransportProfile), name, untrusted.Short(ep.URL))
	case AspectRegistered:
		switch {
		case p.Directory == nil:
			return fmt.Sprintf(k.registeredNoCard, who)
		case p.Directory.RegistrationDate == nil || *p.Directory.RegistrationDate == "":
			return fmt.Sprintf(k.registeredNoDate, who)
		}
		// The card's date as the language writes dates; as the card gives it when it
		// is not a plain day.
		date := untrusted.Short(*p.Directory.RegistrationDate)
		if d, err := time.Parse(time.DateOnly, *p.Directory.RegistrationDate); err == nil {
			date = t.date(d)
		}
		s := fmt.Sprintf(k.registeredOn, who, date)
		if info.StaleSML {
			s += " " + fmt.Sprintf(t.staleSML, who, untrusted.Short(info.SMPHost), t.docs[plan.Document])
		} else if !info.Registered {
			s += " " + fmt.Sprintf(t.apNotRegistered, who) // a card, but not in the SML
		}
		return s
	}
	return registrationSentence(t, who, info)
}

// firstExpiring returns the access point certificate of svc's endpoints that expires
// first, nil when there is none.
func firstExpiring(svc *registry.ServicesResult) *registry.CertificateInfo {
	if svc == nil {
		return nil
	}
	var first *registry.CertificateInfo
	for _, s := range svc.Services {
		for _, pr := range s.Processes {
			for _, e := range pr.Endpoints {
				if c := e.Certificate; c != nil && (first == nil || c.NotAfter.Before(first.NotAfter)) {
					first = c
				}
			}
		}
	}
	return first
}

// kinds runs the plans of issue 29's kinds that the general run does not: what
// peppolgate cannot know, several companies, the statistics and a country's
// participants. It reports whether it answered (err is then the run's result).
func (r *run) kinds(ctx context.Context) (bool, error) {
	plan := r.plan
	switch {
	case plan.Intent == IntentOutOfScope:
		r.a.Answer = phrasesOf(r.t).outOfScope + " " + r.t.examples
		return true, nil
	case len(plan.Subjects) > 1:
		return true, r.several(ctx)
	case len(plan.Calls) == 0:
		return false, nil
	case plan.Calls[0].Tool == ruleToolStats:
		return true, r.stats(ctx, plan.Calls[0])
	case plan.Intent == IntentSearch && plan.Subject == "" && plan.Country != "":
		return true, r.listCountry(ctx, plan.Calls[0])
	case plan.Intent == IntentCount && plan.Subject == "" && plan.Country != "":
		return r.countryStats(ctx)
	}
	return false, nil
}

// stats answers a count of the whole network, or of the participants accepting a
// document kind, from the statistics, with the date of the Directory export counted.
func (r *run) stats(ctx context.Context, c Call) error {
	k := phrasesOf(r.t)
	res, err := r.e.call(ctx, c)
	if registry.ErrorCode(err) == registry.CodeStatsUnavailable {
		r.a.Answer = k.statsNone
		return nil
	}
	if err != nil {
		return r.callFailed(c, err)
	}
	st, _ := res.Value.(*registry.Stats)
	if st == nil {
		return &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: errors.New("network_statistics returned no statistics")}
	}
	date := r.t.date(st.DataAsOf)
	kind := docCategory(r.plan.Document)
	if kind == "" {
		r.a.Answer = fmt.Sprintf(k.stats, r.t.number(st.Participants), date)
		return nil
	}
	for _, kc := range st.DocumentKinds {
		if kc.Kind == kind {
			r.a.Answer = fmt.Sprintf(k.statsKind, r.t.number(kc.Count), docName(r.t, r.plan.Document), date)
			return nil
		}
	}
	r.a.Answer = fmt.Sprintf(k.statsKindNone, docName(r.t, r.plan.Document), date)
	return nil
}

// listCountry lists the participants of a country: the search's first page, less the
// hits whose card is in another country; with a document kind, only those a check
// finds can receive it.
func (r *run) listCountry(ctx context.Context, c Call) error {
	k, t, plan := phrasesOf(r.t), r.t, r.plan
	sr, _, err := r.search(ctx, c)
	if err != nil {
		return r.callFailed(c, err)
	}
	var hits []registry.SearchHit
	for _, h := range sr.Results {
		if strings.EqualFold(h.CountryCode, plan.Country) {
			hits = append(hits, h)
		}
	}
	outside := len(sr.Results) - len(hits)
	if len(hits) == 0 {
		r.a.Answer = fmt.Sprintf(t.countNoData, plan.Country)
		return nil
	}
	kind := docCategory(plan.Document)
	if kind == "" {
		var b strings.Builder
		fmt.Fprintf(&b, k.listCountry, t.number(len(hits)), plan.Country, t.number(sr.TotalCount))
		for _, h := range hits {
			r.add(r.e.hitItem(h), nil)
			fmt.Fprintf(&b, "\n- %s", label(h.Name, h.ParticipantID, h.CountryCode))
		}
		if outside > 0 {
			b.WriteString(" " + fmt.Sprintf(k.listOutside, t.number(outside), plan.Country))
		}
		if sr.TotalCount > len(hits) {
			b.WriteString("\n" + k.listMore)
		}
		r.a.Answer = b.String()
		return nil
	}
	// Few participants may receive a rarer kind (despatch advice): the next pages of
	// the country are checked too, up to listPages, until listWant receive it.
	var lines, failed []string
	checked := 0
	for page := 1; ; page++ {
		if err := r.checkKind(ctx, hits, kind, &lines, &failed); err != nil {
			return err
		}
		checked += len(hits)
		if len(lines) >= listWant || page >= listPages || sr.TotalCount <= page*registry.MaxSearchResults {
			break
		}
		next := Call{Tool: ruleToolSearch, Arguments: map[string]any{"country": plan.Country, "page": page + 1}}
		r.a.Calls = append(r.a.Calls, next)
		res, err := r.e.call(ctx, next)
		if err != nil {
			r.e.log.LogAttrs(ctx, slog.LevelWarn, "the next page of a country's list failed", slog.String("error", err.Error()))
			break // the pages checked are answered
		}
		more, _ := res.Value.(*registry.SearchResult)
		if more == nil {
			break
		}
		hits = nil
		for _, h := range more.Results {
			if strings.EqualFold(h.CountryCode, plan.Country) {
				hits = append(hits, h)
			}
		}
	}
	var b strings.Builder
	if len(lines) == 0 {
		fmt.Fprintf(&b, k.listKindNone, t.number(checked), docName(t, plan.Document), plan.Country)
	} else {
		fmt.Fprintf(&b, k.listKind, t.number(len(lines)), t.number(checked), docName(t, plan.Document), plan.Country)
		for _, l := range lines {
			b.WriteString("\n- " + l)
		}
	}
	if outside > 0 {
		b.WriteString(" " + fmt.Sprintf(k.listOutside, t.number(outside), plan.Country))
	}
	if sr.TotalCount > checked {
		b.WriteString("\n" + k.listMore)
	}
	if len(failed) > 0 {
		b.WriteString("\n" + partialText(t, listNames(t, failed), r.a.Failed))
	}
	r.a.Answer = b.String()
	return nil
}

// listWant and listPages bound the pages of a country checked for a document kind:
// more are checked until listWant participants receive it, at most listPages pages.
const (
	listWant  = 3
	listPages = 3
)

// checkKind checks hits for document kind (check_participants) and adds those that
// receive it to the answer's items and to lines, those that could not be checked to
// failed and the answer's failed calls.
func (r *run) checkKind(ctx context.Context, hits []registry.SearchHit, kind string, lines, failed *[]string) error {
	if len(hits) == 0 {
		return nil
	}
	rows := make([]any, len(hits))
	for i, h := range hits {
		rows[i] = map[string]any{"input": h.ParticipantID}
	}
	cc := Call{Tool: ruleToolCheck, Arguments: map[string]any{"rows": rows, "documents": []any{kind}}}
	r.a.Calls = append(r.a.Calls, cc)
	res, err := r.e.call(ctx, cc)
	if err != nil {
		return r.callFailed(cc, err)
	}
	cr, _ := res.Value.(*tools.CheckResult)
	if cr == nil {
		return &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: errors.New("check_participants returned no check result")}
	}
	for i, row := range cr.Results {
		if i >= len(hits) {
			break
		}
		switch row.Status {
		case bulk.Receives:
			r.add(r.e.hitItem(hits[i]), nil)
			*lines = append(*lines, label(hits[i].Name, hits[i].ParticipantID, hits[i].CountryCode))
		case bulk.Failed:
			f := FailedCall{Call: Call{Tool: ruleToolCheck, Arguments: map[string]any{"rows": []any{map[string]any{"input": hits[i].ParticipantID}}, "documents": []any{kind}}}}
			if row.Error != nil {
				f.Code, f.Message = registry.Code(row.Error.Code), row.Error.Message
			}
			r.a.Failed = append(r.a.Failed, f)
			*failed = append(*failed, hits[i].ParticipantID)
		}
	}
	return nil
}

// several answers a question naming several companies (docs/INTERFACE.md §4.3): when
// the whole is one name ("Marks and Spencer", "Vestland og Dahl AS" for "Vestland & Dahl
// SA"), as that name, matched by linking as a question about one company is; otherwise
// each company (or participant id) in turn, none dropped (beyond maxSubjects the answer
// says how many were left). Each company is linked on its own, with only the readings
// inside its own name, and one that matches no name is not found: neither another
// company's result nor an unrelated one found by a few of its letters (run.part). When
// no company is found, the whole is one name not found, not several.
func (r *run) several(ctx context.Context) error {
	plan, k := r.plan, phrasesOf(r.t)
	if plan.Calls[0].Tool == ruleToolSearch {
		if done, err := r.asOneName(ctx); done {
			return err
		}
	} else {
		r.a.Calls = r.a.Calls[:0] // a participant id among them: each lists its calls
	}
	parts := plan.Subjects
	var b strings.Builder
	fmt.Fprintf(&b, k.several, r.t.number(len(parts)))
	if len(parts) > maxSubjects {
		b.WriteString(" " + fmt.Sprintf(k.severalCap, r.t.number(maxSubjects), r.t.number(len(parts))))
		parts = parts[:maxSubjects]
	}
	found := false // a company found, a call failed, or a participant id among them
	for _, part := range parts {
		sub := plan
		sub.Subject, sub.Subjects = part, nil
		sub.Readings = slices.DeleteFunc(slices.Clone(plan.Readings), func(rd Plan) bool { return !wordsWithin(rd.Subject, part) })
		args := map[string]any{"q": part}
		if plan.Country != "" {
			args["country"] = plan.Country
		}
		sub.Calls = []Call{{Tool: ruleToolSearch, Arguments: args}}
		if id, err := peppol.ParseParticipantID(part); err == nil && strings.Contains(part, ":") {
			sub.Calls, found = detailCalls(sub, id.String()), true
		}
		sa := &Answer{Calls: append([]Call{}, sub.Calls...), Results: []Item{}}
		one := &run{e: r.e, t: r.t, plan: sub, a: sa, part: true, extra: r.extra, add: func(it Item, f *FailedCall) {
			sa.Results = append(sa.Results, it)
			r.add(it, f)
		}}
		err := one.run(ctx)
		r.a.Calls = append(r.a.Calls, sa.Calls...)
		r.a.Failed = append(r.a.Failed, sa.Failed...)
		r.a.Approximate = r.a.Approximate || sa.Approximate
		found = found || err != nil || len(sa.Results) > 0 || len(sa.Failed) > 0
		text := sa.Answer
		if err != nil {
			f := failedCall(sub.Calls[0], err)
			r.a.Failed = append(r.a.Failed, f)
			text = partialText(r.t, fmt.Sprintf("%q", part), []FailedCall{f})
		}
		b.WriteString("\n\n" + text)
	}
	if !found {
		// No company found: the question named one that does not exist ("Bakkerij
		// Jansen en Zonen"), not several.
		r.a.Answer = searchAnswer(r.t, plan, &registry.SearchResult{Query: plan.Subject}, "")
		return nil
	}
	r.a.Answer = b.String()
	return nil
}

// wordsWithin reports whether every word of sub (folded) is a word of name.
func wordsWithin(sub, name string) bool {
	words := strings.Fields(foldWords(name))
	for _, w := range strings.Fields(foldWords(sub)) {
		if !slices.Contains(words, w) {
			return false
		}
	}
	return true
}

// countryStats answers a count of a country's participants from the statistics, with
// their date, when there are statistics (a mirror) and they list the country; it
// reports false otherwise, and the country is counted by a search, as before. The
// statistics call is then the first of the answer's calls.
func (r *run) countryStats(ctx context.Context) (bool, error) {
	c := Call{Tool: ruleToolStats, Arguments: map[string]any{}}
	res, err := r.e.call(ctx, c)
	if err != nil {
		if registry.ErrorCode(err) != registry.CodeStatsUnavailable {
			r.e.log.LogAttrs(ctx, slog.LevelWarn, "statistics failed; counting by search", slog.String("error", err.Error()))
		}
		return false, nil
	}
	st, _ := res.Value.(*registry.Stats)
	if st == nil {
		return false, nil
	}
	for _, cc := range st.Countries {
		if strings.EqualFold(cc.Country, r.plan.Country) {
			k, date := phrasesOf(r.t), r.t.date(st.DataAsOf)
			r.a.Calls = []Call{c}
			r.a.Answer = fmt.Sprintf(k.statsCountry, r.t.number(cc.Count), r.plan.Country, date)
			if kind := docCategory(r.plan.Document); kind != "" {
				// The statistics count kinds over the whole network, not per country.
				for _, kc := range st.DocumentKinds {
					if kc.Kind == kind {
						r.a.Answer += " " + fmt.Sprintf(k.statsKindWhole, r.t.number(kc.Count), docName(r.t, r.plan.Document))
					}
				}
			}
			return true, nil
		}
	}
	return false, nil
}

// asOneName answers the question as about one company when linking (link.go) matches
// the whole of its subject to a name, as it matches a question about one company:
// every core word typed in the name, legal forms, transliterations and typos forgiven
// (and said). The whole is searched less its words for "and" (a name may write "&":
// "Løvås & Hågensen ASA"); that search replaces the one planned for the whole, and the
// readings of the whole are left out (they are its companies). It reports whether it
// answered; a failing search is no answer (each company is then asked on its own).
func (r *run) asOneName(ctx context.Context) (bool, error) {
	plan := r.plan
	var words []string
	for _, w := range strings.Fields(plan.Subject) {
		if w = strings.Trim(w, ",;"); !kindAnd[ruleFold(w)] {
			words = append(words, w)
		}
	}
	whole := strings.Join(words, " ")
	probe := Call{Tool: ruleToolSearch, Arguments: map[string]any{"q": whole}}
	if plan.Country != "" {
		probe.Arguments["country"] = plan.Country
	}
	r.a.Calls[0] = probe
	one := *r
	one.plan.Subjects, one.plan.Readings, one.plan.Calls = nil, nil, []Call{probe}
	handled, err := one.link(ctx, probe)
	if !handled || one.first == nil {
		return false, nil // no name matched, or the search failed
	}
	return true, err
}
