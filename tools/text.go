package tools

import (
	"fmt"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
)

// participantText renders a participant record in a few plain sentences: who it is,
// whether it can receive documents over Peppol and where, and the warnings.
func participantText(p *registry.Participant) string {
	var b strings.Builder
	b.WriteString(p.ParticipantID)
	if d := p.Directory; d != nil {
		fmt.Fprintf(&b, ": %s", d.Name)
		if d.CountryCode != "" {
			fmt.Fprintf(&b, " (%s)", d.CountryCode)
		}
		fmt.Fprintf(&b, ". Peppol Directory card with %s.", phrase.Plural(len(d.DocTypes), "document type"))
	} else {
		b.WriteString(": no Peppol Directory business card.")
	}
	stale := false
	for _, w := range p.Warnings {
		stale = stale || w.Code == registry.WarnSMPNotFound
	}
	if s := p.SMP; s != nil && stale {
		fmt.Fprintf(&b, " In the SML, but its SMP %s does not know it: it cannot receive documents over Peppol.", s.Hostname)
	} else if s != nil {
		fmt.Fprintf(&b, " Registered on Peppol: SMP %s lists %s.", s.Hostname, phrase.Plural(s.ServiceCount, "document type"))
		if e := s.Endpoint; e != nil {
			fmt.Fprintf(&b, " Access point endpoint %s (%s).", e.URL, e.TransportProfile)
		}
	} else {
		b.WriteString(" Not registered in the SML: it cannot receive documents over Peppol.")
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, " Warning (%s): %s", w.Code, w.Message)
		if !strings.HasSuffix(w.Message, ".") {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// searchText renders a search result as a count and one line per match.
func searchText(r *registry.SearchResult, country string) string {
	var b strings.Builder
	in := ""
	if country != "" {
		in = " in " + country
	}
	if r.Query == "" && country != "" {
		// A country alone: how many participants it has.
		switch {
		case len(r.Results) == 0 && r.TotalCount == 0:
			fmt.Fprintf(&b, "No Peppol participants in %s in the Peppol Directory.", country)
			return b.String()
		case r.TotalCount > len(r.Results):
			fmt.Fprintf(&b, "%s in %s in the Peppol Directory; %s:", phrase.Plural(r.TotalCount, "Peppol participant"), country, shownMatches(r))
		default:
			fmt.Fprintf(&b, "%s in %s in the Peppol Directory:", phrase.Plural(r.TotalCount, "Peppol participant"), country)
		}
		for _, h := range r.Results {
			fmt.Fprintf(&b, "\n- %s %s", h.ParticipantID, h.Name)
		}
		return b.String()
	}
	switch {
	case len(r.Results) == 0:
		fmt.Fprintf(&b, "No Peppol Directory matches for %q%s.", r.Query, in)
		return b.String()
	case r.TotalCount > len(r.Results):
		fmt.Fprintf(&b, "%s for %q%s; %s:", phrase.Plural(r.TotalCount, "Peppol Directory match"), r.Query, in, shownMatches(r))
	default:
		fmt.Fprintf(&b, "%s for %q%s:", phrase.Plural(len(r.Results), "Peppol Directory match"), r.Query, in)
	}
	for _, h := range r.Results {
		fmt.Fprintf(&b, "\n- %s %s", h.ParticipantID, h.Name)
		if h.CountryCode != "" {
			fmt.Fprintf(&b, " (%s)", h.CountryCode)
		}
	}
	return b.String()
}
