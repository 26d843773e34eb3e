package nlq

import (
	"fmt"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
)

// examples tell a user what can be asked.
const examples = `Ask for example "Can Vandelanotte receive credit notes?", "Who is 0208:0677424046?", "Which access point serves BE0677424046?" or "Find Acme in Belgium".`

// maxListed is how many matches an answer's text names; the items carry them all.
const maxListed = 10

func notUnderstood(plan Plan) string {
	if plan.Intent == IntentCount && plan.Subject == "" {
		return "I can count Peppol Directory matches for a company name or number, not whole countries. " + examples
	}
	return "I did not understand the question. " + examples
}

// label names a participant: "Name (id, CC)" or just the id.
func label(name, id, country string) string {
	switch {
	case name == "":
		return id
	case country == "":
		return fmt.Sprintf("%s (%s)", name, id)
	default:
		return fmt.Sprintf("%s (%s, %s)", name, id, country)
	}
}

func itemLabel(it Item) string {
	c := ""
	if it.Address != nil {
		c = it.Address.AddressCountry
	}
	return label(it.Name, it.Identifier, c)
}

func inCountry(plan Plan) string {
	if plan.Country == "" {
		return ""
	}
	return " in " + plan.Country
}

// participantAnswer answers a question about one participant, looked up as p, with
// its services svc when they were listed (nil otherwise).
func participantAnswer(plan Plan, p *registry.Participant, svc *registry.ServicesResult, it Item) string {
	var b strings.Builder
	who := itemLabel(it)
	info := it.Peppol
	switch {
	case info.StaleSML:
		if plan.Intent == IntentCanReceive {
			b.WriteString("No: ")
		}
		fmt.Fprintf(&b, "%s is in the SML, but its SMP %s does not know it, so it cannot receive %s over Peppol until its registration is fixed.",
			who, info.SMPHost, docName(plan.Document))
	case plan.Intent == IntentCanReceive:
		b.WriteString(canReceiveSentence(plan, who, p, svc, info))
	case plan.Intent == IntentAccessPoint && plan.Document != DocAny:
		b.WriteString(documentAccessPointSentence(plan, who, p, svc, info))
	case plan.Intent == IntentAccessPoint:
		b.WriteString(accessPointSentence(who, info))
	default:
		b.WriteString(registrationSentence(who, info))
	}
	for _, w := range p.Warnings {
		if w.Code == registry.WarnSMPNotFound {
			continue // said above
		}
		if svc != nil && info.CanReceive != nil && serviceCodes[w.Code] {
			// Judged from the services: the warnings of the document types asked
			// about were said, those of the lookup's one endpoint and of the
			// other document types do not answer the question.
			continue
		}
		fmt.Fprintf(&b, " Note: %s", strings.TrimSuffix(w.Message, "."))
		b.WriteByte('.')
	}
	return b.String()
}

func registrationSentence(who string, info *PeppolInfo) string {
	if !info.Registered {
		return who + " has a Peppol Directory business card but is not registered in the SML, so it cannot receive documents over Peppol."
	}
	s := fmt.Sprintf("%s is registered on Peppol: its SMP %s lists %s.", who, info.SMPHost, phrase.Plural(info.DocumentTypeCount, "document type"))
	if ep := info.Endpoint; ep != nil {
		s += fmt.Sprintf(" Its access point endpoint is %s (%s).", ep.URL, ep.TransportProfile)
	}
	if !info.DirectoryCard {
		s += " It has no Peppol Directory business card."
	}
	return s
}

func accessPointSentence(who string, info *PeppolInfo) string {
	switch {
	case !info.Registered:
		return who + " is not registered in the SML, so no access point serves it on Peppol."
	case info.Endpoint == nil:
		return fmt.Sprintf("%s is registered with the SMP %s, but no access point endpoint could be read from it.", who, info.SMPHost)
	default:
		return fmt.Sprintf("%s is served by the access point at %s (%s); its SMP is %s, listing %s.",
			who, info.Endpoint.URL, info.Endpoint.TransportProfile, info.SMPHost, phrase.Plural(info.DocumentTypeCount, "document type"))
	}
}

// documentAccessPointSentence answers which access point receives a named document
// for the participant, from the endpoints of the document types of that kind.
func documentAccessPointSentence(plan Plan, who string, p *registry.Participant, svc *registry.ServicesResult, info *PeppolInfo) string {
	what := docName(plan.Document)
	switch {
	case !info.Registered:
		return fmt.Sprintf("%s is not registered in the SML, so no access point receives %s for it on Peppol.", who, what)
	case info.CanReceive == nil || !*info.CanReceive:
		if types := listedTypes(p, svc); types != nil {
			return fmt.Sprintf("%s is on Peppol (SMP %s) but lists no %s, so no access point receives them for it; %s.", who, info.SMPHost, what, acceptsPhrase(types))
		}
		return accessPointSentence(who, info)
	}
	names := listNames(documentNames(info.Documents))
	eps := endpointsPhrase(info.Documents)
	if eps == "" {
		return fmt.Sprintf("%s receives %s over Peppol (%s), but their access point endpoint could not be read from its SMP %s just now.%s", who, what, names, info.SMPHost, warningsText(info.Documents))
	}
	return fmt.Sprintf("%s receives %s (%s) through the access point at %s; its SMP is %s, listing %s.%s",
		who, what, names, eps, info.SMPHost, phrase.Plural(info.DocumentTypeCount, "document type"), warningsText(info.Documents))
}

func canReceiveSentence(plan Plan, who string, p *registry.Participant, svc *registry.ServicesResult, info *PeppolInfo) string {
	what := docName(plan.Document)
	types := listedTypes(p, svc)
	switch {
	case !info.Registered:
		return fmt.Sprintf("No: %s is not registered in the SML, so it cannot receive %s over Peppol.", who, what)
	case info.CanReceive != nil && *info.CanReceive && info.Documents != nil:
		s := fmt.Sprintf("Yes: %s can receive %s over Peppol", who, what)
		if plan.Document == DocAny {
			s += fmt.Sprintf(": %s of the kinds %s", phrase.Plural(len(types), "document type"), listNames(info.DocumentKinds))
		} else {
			s += " as " + listNames(documentNames(info.Documents))
		}
		switch eps := endpointsPhrase(info.Documents); {
		case eps != "":
			s += ", through the access point at " + eps + "."
		case svc == nil && info.Endpoint != nil && endpointReceives(info.Endpoint, info.Documents):
			s += fmt.Sprintf(", through the access point at %s (%s).", info.Endpoint.URL, info.Endpoint.TransportProfile)
		case svc == nil:
			s += "."
		default:
			s += "; its access point endpoint could not be read just now."
		}
		return s + warningsText(info.Documents)
	case info.CanReceive != nil && *info.CanReceive:
		s := fmt.Sprintf("Yes: %s can receive %s over Peppol", who, what)
		if ep := info.Endpoint; ep != nil {
			s += fmt.Sprintf(", through the access point at %s (%s)", ep.URL, ep.TransportProfile)
		}
		return s + "."
	case types != nil:
		return fmt.Sprintf("No: %s is on Peppol (SMP %s) but does not list %s among its %s; %s.",
			who, info.SMPHost, what, phrase.Plural(len(types), "document type"), acceptsPhrase(types))
	case p.Directory == nil:
		return fmt.Sprintf("Probably: %s is registered on Peppol (SMP %s, %s), but it has no Directory card saying which document types; its SMP endpoint is for another document type.",
			who, info.SMPHost, phrase.Plural(info.DocumentTypeCount, "document type"))
	default:
		return fmt.Sprintf("Not as far as its registration shows: %s is on Peppol (SMP %s) but lists no %s among its %s.",
			who, info.SMPHost, strings.TrimSuffix(what, "s"), phrase.Plural(info.DocumentTypeCount, "document type"))
	}
}

// searchAnswer answers a search or count question from the hits.
func searchAnswer(plan Plan, sr *registry.SearchResult) string {
	if len(sr.Results) == 0 {
		return fmt.Sprintf("No Peppol Directory business card matches %q%s. Business cards are optional, so a company can be on Peppol without one; with its participant id, ask \"Is <id> on Peppol?\".",
			sr.Query, inCountry(plan))
	}
	var b strings.Builder
	if plan.Intent == IntentCount {
		fmt.Fprintf(&b, "The Peppol Directory has %s for %q%s.", phrase.Plural(sr.TotalCount, "match"), sr.Query, inCountry(plan))
	} else if sr.TotalCount > len(sr.Results) {
		fmt.Fprintf(&b, "%s for %q%s; the first %d:", capital(phrase.Plural(sr.TotalCount, "Peppol Directory match")), sr.Query, inCountry(plan), len(sr.Results))
	} else {
		fmt.Fprintf(&b, "%s for %q%s:", capital(phrase.Plural(len(sr.Results), "Peppol Directory match")), sr.Query, inCountry(plan))
	}
	if plan.Intent != IntentCount {
		for i, h := range sr.Results {
			if i == maxListed {
				fmt.Fprintf(&b, "\n- and %d more (see results)", len(sr.Results)-maxListed)
				break
			}
			fmt.Fprintf(&b, "\n- %s", label(h.Name, h.ParticipantID, h.CountryCode))
		}
	}
	return b.String()
}

// followUpAnswer answers from the looked-up first hits of a search.
func followUpAnswer(plan Plan, sr *registry.SearchResult, found []participantDetail, gone map[string]bool, items []Item, partial bool) string {
	var b strings.Builder
	if sr.TotalCount > 1 {
		fmt.Fprintf(&b, "%s for %q%s", capital(phrase.Plural(sr.TotalCount, "Peppol Directory match")), sr.Query, inCountry(plan))
		if len(items) < sr.TotalCount {
			fmt.Fprintf(&b, "; the first %d in detail", len(items))
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
		text := itemLabel(it) + ": could not be looked up just now."
		if gone[it.Identifier] {
			text = itemLabel(it) + ": not on Peppol any more (neither the SML nor the Peppol Directory knows it now)."
		}
		if d != nil {
			text = participantAnswer(plan, d.p, d.svc, it)
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
		b.WriteString(strings.ReplaceAll(key, "\x00", strings.Join(ids[key], " and ")))
	}
	if partial {
		b.WriteString("\nSome lookups failed upstream; ask again later for those.")
	}
	return b.String()
}

// notFoundAnswer answers a lookup of a participant that does not exist.
func notFoundAnswer(plan Plan, c Call) string {
	id, _ := c.Arguments["participantId"].(string)
	what := "documents"
	if plan.Intent == IntentCanReceive {
		what = docName(plan.Document)
	}
	return fmt.Sprintf("%s is not on Peppol: the SML does not know it and the Peppol Directory has no card for it, so it cannot receive %s over Peppol. Check the scheme and number, or search by company name.",
		canonicalID(id), what)
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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
