package main

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate/netsim"
)

// printDemoBanner tells a first-time user what to try, with commands that work as
// pasted. The examples come from the dataset, not from constants, so they cannot
// drift from what the network serves.
// test, when not nil, is the simulated test network offered with ?network=test.
func printDemoBanner(w io.Writer, n, test *netsim.Network, baseURL string) {
	ds := n.Dataset()
	showcase := netsim.ShowcaseParticipants()
	fmt.Fprintf(w, "peppolgate demo: a simulated Peppol network on 127.0.0.1 (%d participants and %d built to show lookup warnings, %d SMPs, seed %d)\n",
		len(ds.Participants)-len(showcase), len(showcase), len(ds.SMPHosts), ds.Seed)
	fmt.Fprintf(w, "serving %s\n\nParticipants to try:\n", baseURL)
	for _, ex := range []struct{ id, what string }{
		{netsim.KnownBelgian, "a Belgian company in the SML, its SMP and the Directory"},
		{netsim.KnownSMLOnly, "registered in the SML and its SMP, no Directory card (directory: null)"},
		{netsim.KnownDirectoryOnly, "a Directory card but no SML registration (smp: null)"},
	} {
		fmt.Fprintf(w, "  %s\n    curl -s %s/api/v1/participant/%s\n", ex.what, baseURL, ex.id)
	}
	fmt.Fprintf(w, "  with lookup warnings, e.g. an expired access point certificate or deprecated document types\n")
	for _, id := range []string{netsim.KnownCertExpired, netsim.KnownDeprecatedDocType} {
		fmt.Fprintf(w, "    curl -s %s/api/v1/participant/%s\n", baseURL, id)
	}
	if test != nil {
		fmt.Fprintf(w, "  on the simulated test network, a participant production does not have\n    curl -s '%s/api/v1/participant/%s?network=test'\n",
			baseURL, netsim.TestKnownInvoice)
	}
	fmt.Fprintf(w, "\nSearches to try:\n")
	if name := ds.CardName(netsim.KnownNorwegian); name != "" {
		fmt.Fprintf(w, "  by company name\n    curl -s '%s/api/v1/search?q=%s'\n", baseURL, url.QueryEscape(name))
	}
	vat := cardVAT(ds, netsim.KnownBelgian)
	fmt.Fprintf(w, "  by VAT number\n    curl -s '%s/api/v1/search?q=%s'\n", baseURL, url.QueryEscape(vat))
	fmt.Fprintf(w, "\nStop with Ctrl-C.\n")
}

// cardVAT returns the VAT number on id's card, or the VAT-based identifier's value when
// the card has none.
func cardVAT(ds *netsim.Dataset, id string) string {
	if p := ds.MustLookup(id); p != nil && p.Card != nil {
		for _, e := range p.Card.Entities {
			for _, ident := range e.Identifiers {
				if strings.EqualFold(ident.Scheme, "VAT") {
					return ident.Value
				}
			}
		}
	}
	_, v, _ := strings.Cut(netsim.KnownBelgianVAT, ":")
	return strings.ToUpper(v)
}
