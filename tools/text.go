package tools

import (
	"fmt"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/registry"
)

// participantText renders a participant record in a few plain sentences: who it is,
// whether it can receive documents over Peppol and where (the access point only when
// its Verdict, set by Judged, vouches for it), and the warnings. What the
// participant's card and SMP say is theirs, not ours: its name is quoted as what the
// card says, and every such string is cleaned and capped (untrusted.Quote,
// untrusted.Short; docs/ARCHITECTURE.md §6). The result's structured content carries
// them whole, as fields.
func participantText(p *registry.Participant) string {
	var b strings.Builder
	b.WriteString("Participant " + p.ParticipantID + ".")
	if d := p.Directory; d != nil {
		if d.Name != "" {
			fmt.Fprintf(&b, " Its Peppol Directory card names it %s", untrusted.Quote(d.Name))
		} else {
			b.WriteString(" Its Peppol Directory card gives no name")
		}
		if d.CountryCode != "" {
			fmt.Fprintf(&b, " (%s)", untrusted.Short(d.CountryCode))
		}
		fmt.Fprintf(&b, " and lists %s.", phrase.Plural(len(d.DocTypes), "document type"))
	} else {
		b.WriteString(" It has no Peppol Directory business card.")
	}
	stale := false
	for _, w := range p.Warnings {
		stale = stale || w.Code == registry.WarnSMPNotFound
	}
	if s := p.SMP; s != nil && stale {
		fmt.Fprintf(&b, " In the SML, but its SMP %s does not know it: it cannot receive documents over Peppol.", untrusted.Short(s.Hostname))
	} else if s != nil {
		fmt.Fprintf(&b, " Registered on Peppol: SMP %s lists %s.", untrusted.Short(s.Hostname), phrase.Plural(s.ServiceCount, "document type"))
		// Only an endpoint the verdict vouches for is named as its access point
		// (docs/INTERFACE.md §2.5).
		switch e := s.Endpoint; {
		case e != nil && p.Verdict != nil && p.Verdict.AccessPoint == e.URL:
			fmt.Fprintf(&b, " Access point endpoint %s (%s).", untrusted.Short(e.URL), untrusted.Short(e.TransportProfile))
		case e != nil:
			b.WriteString(" Its access point endpoint is not shown: the SMP answer it was read from is not verified.")
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

// searchText renders a search result as a count and one line per match: its id, the
// name its card gives, quoted (untrusted.Quote), and its country.
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
			b.WriteString("\n- " + hitText(h, false))
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
		b.WriteString("\n- " + hitText(h, true))
	}
	return b.String()
}

// hitText renders one match: "0208:0677424046 “Vandelanotte NV” (BE)", its country
// when withCountry.
func hitText(h registry.SearchHit, withCountry bool) string {
	s := h.ParticipantID
	if h.Name != "" {
		s += " " + untrusted.Quote(h.Name)
	}
	if withCountry && h.CountryCode != "" {
		s += " (" + untrusted.Short(h.CountryCode) + ")"
	}
	return s
}
