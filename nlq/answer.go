package nlq

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/registry"
)

// maxListed is how many matches an answer's text names; the items carry them all.
const maxListed = 10

func notUnderstood(t *tongue, plan Plan) string {
	if plan.Intent == IntentCount && plan.Subject == "" {
		return t.countNeeds + " " + t.examples
	}
	return t.notUnderstood + " " + t.examples
}

// label names a participant: its id, then the name its business card gives and its
// country, "0208:0677424046 (“Vandelanotte NV”, BE)", or just the id. The name is
// the card owner's words, not ours: it is quoted, cleaned and capped, and never opens
// a sentence (untrusted.Quote; docs/ARCHITECTURE.md §6).
func label(name, id, country string) string {
	switch {
	case name == "":
		return id
	case country == "":
		return fmt.Sprintf("%s (%s)", id, untrusted.Quote(name))
	default:
		return fmt.Sprintf("%s (%s, %s)", id, untrusted.Quote(name), untrusted.Short(country))
	}
}

func itemLabel(it Item) string {
	c := ""
	if it.Address != nil {
		c = it.Address.AddressCountry
	}
	return label(it.Name, it.Identifier, c)
}

func inCountry(t *tongue, plan Plan) string {
	if plan.Country == "" {
		return ""
	}
	return fmt.Sprintf(t.inCountry, plan.Country)
}

// verdict starts a yes/no sentence: "Yes: ...", "Oui : ...".
func verdict(t *tongue, word, sentence string) string { return word + t.colon + sentence }

// gist is a warning as an answer says it: its gist from the tongue's table, or, for a
// language that quotes the registry's messages (or a code the table lacks), the first
// clause of its message (what is wrong; the items carry the whole message).
func gist(t *tongue, w registry.Warning) string {
	if !t.quotesMessages {
		if g, ok := t.gists[w.Code]; ok {
			return g
		}
	}
	return strings.TrimSuffix(firstClause(w.Message), ".")
}

// firstClause is m up to its first ": " outside brackets and curly quotes, so that a
// cut never leaves one open; m whole when there is none.
func firstClause(m string) string {
	depth := 0
	for i, r := range m {
		switch r {
		case '(', '[', '“':
			depth++
		case ')', ']', '”':
			depth = max(0, depth-1)
		case ':':
			if depth == 0 && strings.HasPrefix(m[i:], ": ") {
				return m[:i]
			}
		}
	}
	return m
}

// participantAnswer answers a question about one participant, looked up as p, with
// its services svc when they were listed (nil otherwise).
func participantAnswer(t *tongue, plan Plan, p *registry.Participant, svc *registry.ServicesResult, it Item) string {
	var b strings.Builder
	who := itemLabel(it)
	info := it.Peppol
	switch {
	case info.StaleSML && plan.Aspect != AspectRegistered: // the card's date is known all the same
		s := fmt.Sprintf(t.staleSML, who, untrusted.Short(info.SMPHost), docName(t, plan.Document))
		if plan.Intent == IntentCanReceive {
			s = verdict(t, t.no, s)
		}
		b.WriteString(s)
	case plan.Aspect != "":
		b.WriteString(aspectSentence(t, plan, who, p, svc, info))
	case plan.Intent == IntentCanReceive:
		b.WriteString(canReceiveSentence(t, plan, who, p, svc, info))
	case plan.Intent == IntentAccessPoint && plan.Document != DocAny:
		b.WriteString(documentAccessPointSentence(t, plan, who, p, svc, info))
	case plan.Intent == IntentAccessPoint:
		b.WriteString(accessPointSentence(t, who, p, info))
	case plan.Intent == IntentCertificate:
		b.WriteString(certificateSentence(t, who, svc, info))
	case plan.Intent == IntentDocumentTypes:
		b.WriteString(documentTypesSentence(t, who, svc, info))
	default:
		b.WriteString(registrationSentence(t, who, info))
	}
	for _, w := range p.Warnings {
		if w.Code == registry.WarnSMPNotFound || w.Code == registry.WarnDirectoryCardMissing && !t.quotesMessages || slices.Contains(info.Blocked, w.Code) {
			continue // said above (a quoted card warning says more than the gist)
		}
		if svc != nil && plan.needsServices() && serviceCodes[w.Code] {
			// Judged from the services: the warnings of the document types asked
			// about were said, those of the lookup's one endpoint and of the
			// other document types do not answer the question.
			continue
		}
		if t.quotesMessages {
			fmt.Fprintf(&b, t.note, strings.TrimSuffix(w.Message, "."))
		} else {
			fmt.Fprintf(&b, t.note, gist(t, w))
		}
	}
	if svc == nil && plan.needsServices() && info.Registered {
		b.WriteString(" " + partialText(t, t.notChecked, nil))
	}
	return b.String()
}

func registrationSentence(t *tongue, who string, info *PeppolInfo) string {
	if !info.Registered {
		return fmt.Sprintf(t.notRegisteredCard, who)
	}
	s := fmt.Sprintf(t.registered, who, untrusted.Short(info.SMPHost), t.count(info.DocumentTypeCount, t.docType))
	if ep := info.Endpoint; ep != nil {
		s += fmt.Sprintf(t.endpoint, untrusted.Short(ep.URL), untrusted.Short(ep.TransportProfile))
	}
	if !info.DirectoryCard {
		s += t.noCard
	}
	return s
}

func accessPointSentence(t *tongue, who string, p *registry.Participant, info *PeppolInfo) string {
	switch {
	case !info.Registered:
		return fmt.Sprintf(t.apNotRegistered, who)
	case info.Endpoint == nil:
		return fmt.Sprintf(t.apNoEndpoint, who, untrusted.Short(info.SMPHost))
	}
	s := fmt.Sprintf(t.apServed, who, untrusted.Short(info.Endpoint.URL), untrusted.Short(info.Endpoint.TransportProfile),
		untrusted.Short(info.SMPHost), t.count(info.DocumentTypeCount, t.docType))
	if p.SMP != nil && p.SMP.Endpoint != nil && p.SMP.Endpoint.Certificate != nil {
		if org := subjectOrganisation(p.SMP.Endpoint.Certificate.Subject); org != "" {
			s += fmt.Sprintf(t.apProvider, untrusted.Quote(org))
		}
	}
	return s
}

// subjectOrganisation returns the O= of a distinguished name written as
// "CN=POP000123,O=Acme AS,C=NO" (a comma escaped with a backslash stays in the
// value), or its CN when it has no O; "" when it has neither.
func subjectOrganisation(dn string) string {
	var parts []string
	start := 0
	for i := 0; i < len(dn); i++ {
		switch dn[i] {
		case '\\':
			i++
		case ',', '+':
			parts = append(parts, dn[start:i])
			start = i + 1
		}
	}
	parts = append(parts, dn[start:])
	cn := ""
	for _, p := range parts {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		v = strings.ReplaceAll(v, `\`, "")
		switch strings.ToUpper(k) {
		case "O":
			return v
		case "CN":
			cn = v
		}
	}
	return cn
}

// documentAccessPointSentence answers which access point receives a named document
// for the participant, from the endpoints of the document types of that kind.
func documentAccessPointSentence(t *tongue, plan Plan, who string, p *registry.Participant, svc *registry.ServicesResult, info *PeppolInfo) string {
	what := docName(t, plan.Document)
	switch {
	case !info.Registered:
		return fmt.Sprintf(t.docAPNotReg, who, what)
	case len(info.Blocked) > 0 || info.Unchecked:
		// Listed, but sending fails right now or could not be checked: no access
		// point "receives" it, and none read from an answer not validly signed is named
		// (docs/INTERFACE.md §2.5).
		return canReceiveSentence(t, plan, who, p, svc, info)
	case info.CanReceive == nil || !*info.CanReceive:
		if types := listedTypes(p, svc); types != nil {
			return fmt.Sprintf(t.docAPNone, who, untrusted.Short(info.SMPHost), what, acceptsPhrase(t, types))
		}
		return accessPointSentence(t, who, p, info)
	}
	names := listNames(t, documentNames(info.Documents))
	eps := endpointsPhrase(t, info.Documents)
	if eps == "" {
		return fmt.Sprintf(t.docAPNoEndpoint, who, what, names, untrusted.Short(info.SMPHost)) + warningsText(t, info.Documents)
	}
	return fmt.Sprintf(t.docAP, who, what, names, eps, untrusted.Short(info.SMPHost), t.count(info.DocumentTypeCount, t.docType)) + warningsText(t, info.Documents)
}

func canReceiveSentence(t *tongue, plan Plan, who string, p *registry.Participant, svc *registry.ServicesResult, info *PeppolInfo) string {
	what := docName(t, plan.Document)
	types := listedTypes(p, svc)
	switch {
	case !info.Registered:
		return verdict(t, t.no, fmt.Sprintf(t.crNotRegistered, who, what))
	case info.Unchecked:
		return fmt.Sprintf(t.crUnchecked, who, what, untrusted.Short(info.SMPHost))
	case len(info.Blocked) > 0:
		var why []string
		for _, code := range info.Blocked {
			g := gist(t, registry.Warning{Code: code, Message: blockedMessage(info.Documents, p.Warnings, code)})
			if !slices.Contains(why, g) {
				why = append(why, g)
			}
		}
		return verdict(t, t.notNow, fmt.Sprintf(t.crNotNow, who, what, listNames(t, why)))
	case info.CanReceive != nil && *info.CanReceive && info.Documents != nil:
		s := verdict(t, t.yes, fmt.Sprintf(t.crYes, who, what))
		if plan.Document == DocAny {
			s += fmt.Sprintf(t.crKinds, t.count(len(types), t.docType), listNames(t, kindNames(t, info.DocumentKinds)))
		} else {
			s += fmt.Sprintf(t.crAs, listNames(t, documentNames(info.Documents)))
		}
		switch eps := endpointsPhrase(t, info.Documents); {
		case eps != "":
			s += fmt.Sprintf(t.crThrough, eps)
		case svc == nil && info.Endpoint != nil && endpointReceives(info.Endpoint, info.Documents):
			s += fmt.Sprintf(t.crThrough, untrusted.Short(info.Endpoint.URL)+" ("+untrusted.Short(info.Endpoint.TransportProfile)+")")
		case svc == nil:
			s += "."
		default:
			s += t.crEndpointUnknown
		}
		return s + warningsText(t, info.Documents)
	case info.CanReceive != nil && *info.CanReceive:
		s := verdict(t, t.yes, fmt.Sprintf(t.crYes, who, what))
		if ep := info.Endpoint; ep != nil {
			return s + fmt.Sprintf(t.crThrough, untrusted.Short(ep.URL)+" ("+untrusted.Short(ep.TransportProfile)+")")
		}
		return s + "."
	case types != nil:
		return verdict(t, t.no, fmt.Sprintf(t.crNotListed, who, untrusted.Short(info.SMPHost), what, t.count(len(types), t.docType), acceptsPhrase(t, types)))
	case p.Directory == nil:
		return verdict(t, t.probably, fmt.Sprintf(t.crProbably, who, untrusted.Short(info.SMPHost), t.count(info.DocumentTypeCount, t.docType)))
	default:
		return verdict(t, t.no, fmt.Sprintf(t.crNotListed, who, untrusted.Short(info.SMPHost), what, t.count(info.DocumentTypeCount, t.docType), t.acceptsNone))
	}
}

// blockedMessage returns the message of the first warning with code among docs'
// warnings, else among the lookup's.
func blockedMessage(docs []DocumentInfo, lookup []registry.Warning, code string) string {
	for _, d := range docs {
		for _, w := range d.Warnings {
			if w.Code == code {
				return w.Message
			}
		}
	}
	for _, w := range lookup {
		if w.Code == code {
			return w.Message
		}
	}
	return code
}

// certificateSentence answers when the access point certificate(s) of the participant
// expire, from its services' endpoints.
func certificateSentence(t *tongue, who string, svc *registry.ServicesResult, info *PeppolInfo) string {
	if !info.Registered {
		return fmt.Sprintf(t.apNotRegistered, who)
	}
	if svc == nil {
		return fmt.Sprintf(t.certNone, who, untrusted.Short(info.SMPHost))
	}
	var certs []*registry.CertificateInfo
	seen := map[string]bool{}
	for _, s := range svc.Services {
		for _, pr := range s.Processes {
			for _, e := range pr.Endpoints {
				if c := e.Certificate; c != nil && !seen[c.SHA256] {
					seen[c.SHA256] = true
					certs = append(certs, c)
				}
			}
		}
	}
	if len(certs) == 0 {
		return fmt.Sprintf(t.certNone, who, untrusted.Short(info.SMPHost))
	}
	// The one that expires first decides.
	slices.SortStableFunc(certs, func(a, b *registry.CertificateInfo) int { return a.NotAfter.Compare(b.NotAfter) })
	c := certs[0]
	date := t.date(c.NotAfter)
	var s string
	if c.Expired {
		s = fmt.Sprintf(t.certExpired, t.notNow, who, date, t.count(-c.DaysRemaining, t.day))
	} else {
		org := subjectOrganisation(c.Subject)
		if org == "" {
			org = c.Subject
		}
		s = fmt.Sprintf(t.certValid, who, untrusted.Quote(org), date, t.count(c.DaysRemaining, t.day))
	}
	if len(certs) > 1 {
		s += " " + fmt.Sprintf(t.certSeveral, t.count(len(certs), t.certificate))
	}
	return s
}

// documentTypesSentence lists the document types and processes the participant's SMP
// lists.
func documentTypesSentence(t *tongue, who string, svc *registry.ServicesResult, info *PeppolInfo) string {
	if !info.Registered {
		return fmt.Sprintf(t.apNotRegistered, who)
	}
	if svc == nil {
		return fmt.Sprintf(t.registered, who, untrusted.Short(info.SMPHost), t.count(info.DocumentTypeCount, t.docType))
	}
	if len(svc.Services) == 0 {
		return fmt.Sprintf(t.docTypesNone, who, untrusted.Short(info.SMPHost))
	}
	var procs []string
	for _, s := range svc.Services {
		for _, p := range s.Processes {
			n := p.Process.Name
			if n == "" {
				n = untrusted.Short(p.Process.Value)
			}
			if n != "" && !slices.Contains(procs, n) {
				procs = append(procs, n)
			}
		}
	}
	docs := documents(listedTypes(nil, svc), svc, DocAny)
	s := fmt.Sprintf(t.docTypes, who, untrusted.Short(info.SMPHost), t.count(len(svc.Services), t.docType), listNames(t, documentNames(docs)))
	if len(procs) > 0 {
		s += fmt.Sprintf(t.processes, listNames(t, procs))
	}
	return s + warningsText(t, docs)
}

// searchAnswer answers a search or count question from the hits; approx is the query
// that found them when the one asked found nothing ("" otherwise).
func searchAnswer(t *tongue, plan Plan, sr *registry.SearchResult, approx string) string {
	if plan.Intent == IntentCount && plan.Subject == "" {
		if sr.TotalCount == 0 {
			return fmt.Sprintf(t.countNoData, plan.Country)
		}
		// The mirror counts cards; the live Directory counts business entities, and a
		// card may have several.
		noun := t.entry
		if sr.Source == registry.SourceMirror {
			noun = t.card
		}
		return fmt.Sprintf(t.countCountry, t.count(sr.TotalCount, noun), plan.Country)
	}
	if len(sr.Results) == 0 && plan.Intent != IntentCount {
		return fmt.Sprintf(t.noMatch, untrusted.Inner(sr.Query), inCountry(t, plan))
	}
	var b strings.Builder
	if approx != "" {
		b.WriteString(fmt.Sprintf(t.approximate, untrusted.Inner(approx)) + " ")
	}
	query := plan.Subject
	if query == "" || approx != "" || plan.Intent != IntentCount && plan.Intent != IntentSearch {
		query = sr.Query
	}
	switch {
	case plan.Intent == IntentCount:
		fmt.Fprintf(&b, t.countAnswer, t.count(sr.TotalCount, t.match), untrusted.Inner(query), inCountry(t, plan))
	case sr.TotalCount > len(sr.Results):
		fmt.Fprintf(&b, t.listFirst, capital(t.count(sr.TotalCount, t.match)), untrusted.Inner(query), inCountry(t, plan), len(sr.Results))
	default:
		fmt.Fprintf(&b, t.listAll, capital(t.count(len(sr.Results), t.match)), untrusted.Inner(query), inCountry(t, plan))
	}
	if plan.Intent != IntentCount {
		for i, h := range sr.Results {
			if i == maxListed {
				fmt.Fprintf(&b, t.andMoreResults, len(sr.Results)-maxListed)
				break
			}
			fmt.Fprintf(&b, "\n- %s", label(h.Name, h.ParticipantID, h.CountryCode))
		}
	}
	return b.String()
}

// followUpAnswer answers from the looked-up first hits of a search. failed are the
// labels of the hits that could not be looked up, failures the calls that failed (their
// cause is said).
func followUpAnswer(t *tongue, plan Plan, sr *registry.SearchResult, found []participantDetail, gone map[string]bool, items []Item, failed []string, failures []FailedCall, approx string) string {
	var b strings.Builder
	if approx != "" {
		b.WriteString(fmt.Sprintf(t.approximate, untrusted.Inner(approx)) + "\n")
	}
	if sr.TotalCount > 1 {
		fmt.Fprintf(&b, t.detailHeader, capital(t.count(sr.TotalCount, t.match)), untrusted.Inner(sr.Query), inCountry(t, plan))
		if len(items) < sr.TotalCount {
			fmt.Fprintf(&b, t.detailFirst, len(items))
		}
		b.WriteString(".\n")
	}
	// A company is often registered under two identifiers (e.g. its enterprise and
	// its VAT number) with the same card and access point: say it once, with both ids.
	var lines []string
	ids := map[string][]string{}
	for _, it := range items {
		var d *participantDetail
		for i := range found {
			if found[i].p.ParticipantID == it.Identifier {
				d = &found[i]
			}
		}
		text := fmt.Sprintf(t.couldNotLookUp, itemLabel(it))
		if gone[it.Identifier] {
			text = fmt.Sprintf(t.gone, itemLabel(it))
		}
		if d != nil {
			text = participantAnswer(t, plan, d.p, d.svc, it)
		}
		key := strings.ReplaceAll(text, it.Identifier, "\x00")
		if _, seen := ids[key]; !seen {
			lines = append(lines, key)
		}
		ids[key] = append(ids[key], it.Identifier)
	}
	for i, key := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.ReplaceAll(key, "\x00", strings.Join(ids[key], " "+t.and+" ")))
	}
	if len(failed) > 0 {
		b.WriteString("\n" + partialText(t, listNames(t, failed), failures))
	}
	return b.String()
}

// notFoundAnswer answers a lookup of a participant that does not exist.
func notFoundAnswer(t *tongue, plan Plan, c Call) string {
	id, _ := c.Arguments["participantId"].(string)
	what := t.docs[DocAny]
	if plan.Intent == IntentCanReceive {
		what = docName(t, plan.Document)
	}
	return fmt.Sprintf(t.notFound, canonicalID(id), what)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}

// endpointReceives reports whether the lookup's endpoint ep is for one of docs.
func endpointReceives(ep *EndpointInfo, docs []DocumentInfo) bool {
	for _, d := range docs {
		if d.ID == ep.DocumentType || strings.HasSuffix(d.ID, "::"+ep.DocumentType) {
			return true
		}
	}
	return false
}
