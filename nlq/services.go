package nlq

import (
	"fmt"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/registry"
)

// Document kinds as the Peppol code list's categories name them (registry.CodeInfo's
// Category). The Invoice category holds every invoice syntax: Peppol BIS Billing,
// PINT and the national CIUS (XRechnung, UBL.BE, Factur-X, ...).
var docCategories = map[string]string{
	DocInvoice:    "Invoice",
	DocCreditNote: "Credit Note",
	DocOrder:      "Order",
}

// kindOther is the kind reported for a document type the code list does not have.
const kindOther = "Other"

// maxNamed is how many document type names, and access point endpoints, a sentence
// names; the items carry them all.
const maxNamed = 4

// serviceCodes are the warning codes about services and endpoints: when an answer is
// made from the services, those the lookup reports about its one endpoint are left
// to the services' own.
var serviceCodes = map[string]bool{
	registry.WarnEndpointUnavailable: true, registry.WarnEndpointNotFound: true,
	registry.WarnCertificateExpired: true, registry.WarnCertificateExpiring: true, registry.WarnCertificateChainInvalid: true,
	registry.WarnSMPSignatureInvalid: true, registry.WarnSMPSignatureMissing: true, registry.WarnSMPCertificateNotPeppol: true, registry.WarnSignatureAlgorithmWeak: true,
	registry.WarnCertificateRevoked: true, registry.WarnCertificateRevocationUnknown: true,
	registry.WarnServiceNotYetActive: true, registry.WarnServiceExpired: true,
	registry.WarnEndpointNotHTTPS: true, registry.WarnEndpointPort: true,
	registry.WarnTransportProfileDeprecated: true, registry.WarnTransportProfileRemoved: true, registry.WarnTransportProfileUnknown: true,
	registry.WarnDocumentTypeDeprecated: true, registry.WarnDocumentTypeRemoved: true, registry.WarnDocumentTypeNonStandard: true,
}

// isKind reports whether the document type t is of kind doc (every type is of
// DocAny), as registry.Judge tells kinds apart (registry.OfKind).
func isKind(t registry.CodeInfo, doc string) bool {
	return doc == DocAny || registry.OfKind(t, docCategory(doc))
}

// listedTypes are the document types a participant's SMP lists: from its services
// when they were listed, else from the lookup's ServiceGroup; nil when neither says.
func listedTypes(p *registry.Participant, svc *registry.ServicesResult) []registry.CodeInfo {
	if svc != nil {
		out := make([]registry.CodeInfo, len(svc.Services))
		for i, s := range svc.Services {
			out[i] = s.DocumentType
		}
		return out
	}
	if p != nil && p.SMP != nil {
		return p.SMP.DocumentTypes
	}
	return nil
}

// documentKinds returns the kinds of types, each once, in order.
func documentKinds(types []registry.CodeInfo) []string {
	var out []string
	for _, t := range types {
		k := t.Category
		if k == "" {
			k = kindOther
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// documents returns the document types of kind doc: with their endpoints and warnings
// when svc lists them, else as types names them.
func documents(types []registry.CodeInfo, svc *registry.ServicesResult, doc string) []DocumentInfo {
	var out []DocumentInfo
	if svc != nil {
		for _, s := range svc.Services {
			if isKind(s.DocumentType, doc) {
				out = append(out, serviceDocument(s))
			}
		}
		return out
	}
	for _, t := range types {
		if isKind(t, doc) {
			out = append(out, DocumentInfo{ID: t.ID, Name: t.Name, Category: t.Category, State: t.State})
		}
	}
	return out
}

// serviceDocument is a service as a DocumentInfo: its distinct endpoints, and its
// warnings and those of its endpoints, each once.
func serviceDocument(s registry.Service) DocumentInfo {
	t := s.DocumentType
	d := DocumentInfo{ID: t.ID, Name: t.Name, Category: t.Category, State: t.State}
	d.Warnings = addWarnings(d.Warnings, s.Warnings)
	for _, p := range s.Processes {
		for _, e := range p.Endpoints {
			ep := DocumentEndpoint{URL: e.URL, TransportProfile: e.TransportProfile.ID}
			if !slices.Contains(d.Endpoints, ep) {
				d.Endpoints = append(d.Endpoints, ep)
			}
			d.Warnings = addWarnings(d.Warnings, e.Warnings)
		}
	}
	return d
}

// addWarnings appends the warnings of ws that to does not have yet.
func addWarnings(to, ws []registry.Warning) []registry.Warning {
	for _, w := range ws {
		if !slices.Contains(to, w) {
			to = append(to, w)
		}
	}
	return to
}

// docLabel is how a sentence names a document type: its code-list name, else its id
// as the SMP gave it, cleaned and capped (untrusted.Short).
func docLabel(d DocumentInfo) string {
	if d.Name != "" {
		return d.Name
	}
	return untrusted.Short(d.ID)
}

// listNames joins names for a sentence, at most maxNamed of them: "A", "A and B",
// "A, B, C and 2 more".
func listNames(t *tongue, names []string) string {
	and := " " + t.and + " "
	if len(names) > maxNamed {
		return strings.Join(names[:maxNamed-1], ", ") + and + fmt.Sprintf(t.more, len(names)-maxNamed+1)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + and + names[len(names)-1]
}

// kindNames are the code list's categories as t names them.
func kindNames(t *tongue, kinds []string) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k
		if n, ok := t.kinds[k]; ok {
			out[i] = n
		}
	}
	return out
}

// documentNames are the names of docs, each once, the active ones first.
func documentNames(docs []DocumentInfo) []string {
	var active, other []string
	for _, d := range docs {
		n := docLabel(d)
		if slices.Contains(active, n) || slices.Contains(other, n) {
			continue
		}
		if d.State == "active" {
			active = append(active, n)
		} else {
			other = append(other, n)
		}
	}
	return append(active, other...)
}

// endpointsPhrase names the distinct endpoints of docs read from validly signed
// answers: "https://ap/as4 (peppol-transport-as4-v2_0)"; "" when there is none.
func endpointsPhrase(t *tongue, docs []DocumentInfo) string {
	var eps []string
	for _, d := range docs {
		if slices.ContainsFunc(d.Warnings, func(w registry.Warning) bool { return registry.Unverified(w.Code) }) {
			// Read from an answer not validly signed: never named as its access
			// point (docs/INTERFACE.md §2.5).
			continue
		}
		for _, e := range d.Endpoints {
			s := untrusted.Short(e.URL) + " (" + untrusted.Short(e.TransportProfile) + ")"
			if !slices.Contains(eps, s) {
				eps = append(eps, s)
			}
		}
	}
	return listNames(t, eps)
}

// warningsText renders the warnings of docs that matter for sending, each once, as
// sentences: "Warning: the access point certificate expired on 2026-02-15 (15 days
// ago)." Each gives the first clause of the message (what is wrong); the items
// carry the whole message (what to do).
func warningsText(t *tongue, docs []DocumentInfo) string {
	var seen []string
	var b strings.Builder
	for _, d := range docs {
		for _, w := range d.Warnings {
			m := gist(t, w)
			if slices.Contains(seen, m) {
				continue
			}
			seen = append(seen, m)
			fmt.Fprintf(&b, t.warning, m)
		}
	}
	return b.String()
}

// acceptsPhrase says what a participant's SMP lists, for an answer that it does not
// list the kind asked for: the names of a few types, or the kinds of many.
func acceptsPhrase(t *tongue, types []registry.CodeInfo) string {
	if len(types) == 0 {
		return t.acceptsNone
	}
	if len(types) <= maxNamed {
		all := documents(types, nil, DocAny)
		return fmt.Sprintf(t.accepts, listNames(t, documentNames(all)))
	}
	return fmt.Sprintf(t.acceptsKinds, t.count(len(types), t.docType), listNames(t, kindNames(t, documentKinds(types))))
}
