package nlq

import (
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Item is one result of a question: a schema.org Organization (so that NLWeb and
// schema.org-aware clients read it as they are) with what the tools found about its
// Peppol registration when the question asked for it.
type Item struct {
	Context    string   `json:"@context" jsonschema:"always https://schema.org"`
	Type       string   `json:"@type" jsonschema:"always Organization"`
	Name       string   `json:"name" jsonschema:"company name; empty when the participant has no Directory card"`
	Identifier string   `json:"identifier" jsonschema:"the Peppol participant identifier <scheme>:<value>"`
	Address    *Address `json:"address,omitempty" jsonschema:"the country, when known"`
	// URL is peppolgate's own record of the participant.
	URL string `json:"url" jsonschema:"peppolgate's record of the participant: GET it for the full participant record"`
	// Peppol is set when the participant was looked up (not for plain search hits).
	Peppol *PeppolInfo `json:"peppol,omitempty" jsonschema:"what a lookup found, when the question needed one"`
}

// Address is a schema.org PostalAddress with only the country.
type Address struct {
	Type           string `json:"@type" jsonschema:"always PostalAddress"`
	AddressCountry string `json:"addressCountry" jsonschema:"ISO 3166 alpha-2 country code"`
}

// PeppolInfo is what a lookup found about a participant's Peppol registration.
type PeppolInfo struct {
	// Registered: the SML knows the participant and its SMP publishes it, so it can
	// receive over Peppol.
	Registered bool `json:"registered" jsonschema:"the SML knows the participant and its SMP publishes it: it can receive over Peppol"`
	// StaleSML: the SML points to an SMP that does not know the participant.
	StaleSML bool `json:"staleSml,omitempty" jsonschema:"the SML points to an SMP that does not know the participant"`
	// DirectoryCard: the Peppol Directory has a business card for it.
	DirectoryCard bool `json:"directoryCard" jsonschema:"the Peppol Directory has a business card for it"`
	// SMPHost is the host of its SMP, when registered.
	SMPHost string `json:"smpHost,omitempty" jsonschema:"host of its SMP"`
	// DocumentTypeCount is the number of document types its SMP lists.
	DocumentTypeCount int `json:"documentTypeCount" jsonschema:"number of document types its SMP lists"`
	// Endpoint is its access point endpoint for invoices (or its first endpoint), when
	// the SMP answer it was read from is validly signed by the network's SMP CA.
	Endpoint *EndpointInfo `json:"endpoint,omitempty" jsonschema:"its access point endpoint for invoices, or its first one; absent when the SMP answer it was read from is not validly signed by the network's SMP CA (see warnings)"`
	// CanReceive answers a "can it receive <document>" question (or "which access
	// point receives <document>"): registry.Judge's verdict is receives (registered,
	// its SMP lists that document kind, and an endpoint of it is not blocked); absent
	// when the question was not about it.
	CanReceive *bool `json:"canReceive,omitempty" jsonschema:"for a can-it-receive question, or an access point question naming a document: whether it is registered, its SMP lists that document kind and sending to it works right now (false with blocked set when it does not)"`
	// Blocked, when CanReceive is false although the SMP lists the document kind, are
	// the warning codes that make sending fail right now on every endpoint of it.
	Blocked []string `json:"blocked,omitempty" jsonschema:"when canReceive is false although the SMP lists the document kind: why sending fails right now on every endpoint of it, as warning codes (certificate_expired, certificate_revoked, certificate_chain_invalid, service_not_yet_active, service_expired, transport_profile_removed, smp_signature_invalid, smp_signature_missing, smp_certificate_not_peppol)"`
	// Unchecked, when CanReceive is false although the SMP lists the document kind:
	// no endpoint of it could be read, so whether it can be sent is not known.
	Unchecked bool `json:"unchecked,omitempty" jsonschema:"when canReceive is false although the SMP lists the document kind: its service metadata could not be read just now, so whether it can be sent is not known; retry later"`
	// Warnings are the lookup's warnings.
	Warnings []registry.Warning `json:"warnings,omitempty" jsonschema:"the lookup's warnings"`
	// Documents are, for a question naming a document kind, the document types of
	// that kind its SMP lists (for a question naming none, or an LLM answer, every
	// document type its services listed), each with the endpoints that receive it.
	Documents []DocumentInfo `json:"documents,omitempty" jsonschema:"for a question naming a document kind (invoice, credit note, order): the document types of that kind its SMP lists, with the endpoints that receive them and the warnings that matter for sending; for a can-receive question naming no kind, or when an LLM listed its services, every document type listed; absent when none or when its services were not listed"`
	// DocumentKinds are the kinds of every document type its SMP lists.
	DocumentKinds []string `json:"documentKinds,omitempty" jsonschema:"for a question about what it can receive: the kinds of all the document types its SMP lists, from the Peppol code list (e.g. Invoice, Credit Note, Order; Other for document types the list does not have), each once, in the SMP's order"`
}

// DocumentInfo is a document type a participant's SMP lists, with the endpoints that
// receive it and the warnings that matter for sending it.
type DocumentInfo struct {
	ID       string `json:"id" jsonschema:"the document type identifier with its scheme, <scheme>::<value>"`
	Name     string `json:"name,omitempty" jsonschema:"readable name from the Peppol code list, e.g. Peppol BIS Billing UBL Credit Note V3; absent for document types the list does not have"`
	Category string `json:"category,omitempty" jsonschema:"the kind of document from the Peppol code list, e.g. Invoice, Credit Note, Order; absent when unknown"`
	State    string `json:"state,omitempty" jsonschema:"state in the Peppol code list: active, deprecated (still works, on its way out) or removed (no longer sent); absent for document types the list does not have"`
	// Endpoints are the distinct endpoints of its processes.
	Endpoints []DocumentEndpoint `json:"endpoints,omitempty" jsonschema:"the access point endpoints that receive it, each URL and transport profile once; absent when its service metadata could not be read (see warnings) or was not asked for"`
	// Warnings are the service's and its endpoints' warnings, each once.
	Warnings []registry.Warning `json:"warnings,omitempty" jsonschema:"what may make sending it fail or is about to: certificate expired or expiring, service not yet active or expired, removed or deprecated transport profile or document type, endpoint not https or not on port 443, service metadata unavailable; absent when there are none"`
}

// DocumentEndpoint is an access point endpoint receiving a document type.
type DocumentEndpoint struct {
	URL              string `json:"url" jsonschema:"the access point's endpoint URL"`
	TransportProfile string `json:"transportProfile" jsonschema:"transport profile, e.g. peppol-transport-as4-v2_0"`
}

// EndpointInfo is an access point endpoint.
type EndpointInfo struct {
	URL              string `json:"url" jsonschema:"the access point's endpoint URL"`
	TransportProfile string `json:"transportProfile" jsonschema:"transport profile, e.g. peppol-transport-as4-v2_0"`
	DocumentType     string `json:"documentType" jsonschema:"document type the endpoint is for"`
}

func (e *Engine) newItem(id, name, country string) Item {
	it := Item{Context: "https://schema.org", Type: "Organization", Name: name, Identifier: id,
		URL: e.baseURL + "/api/v1/participant/" + id + e.itemQuery}
	if country != "" {
		it.Address = &Address{Type: "PostalAddress", AddressCountry: country}
	}
	return it
}

// hitItem is a search hit as an item.
func (e *Engine) hitItem(h registry.SearchHit) Item {
	return e.newItem(h.ParticipantID, h.Name, h.CountryCode)
}

// participantItem is a looked-up participant as an item. judge is set for a question
// naming a document kind or asking whether it can receive (plan.needsServices): the
// item then says whether it can receive doc (DocAny: anything), with the document
// types of that kind and what its SMP lists, read from svc when its services were
// listed (nil otherwise); svcErr is the services call's error when it failed, so the
// kinds the lookup alone cannot judge are unknown (registry.Evidence.ServicesErr).
func (e *Engine) participantItem(p *registry.Participant, svc *registry.ServicesResult, svcErr error, doc string, judge bool) Item {
	name, country := "", ""
	if d := p.Directory; d != nil {
		name, country = d.Name, d.CountryCode
	}
	it := e.newItem(p.ParticipantID, name, country)
	stale := p.SMP != nil && p.Has(registry.WarnSMPNotFound)
	info := &PeppolInfo{Registered: p.SMP != nil && !stale, StaleSML: stale, DirectoryCard: p.Directory != nil, Warnings: p.Warnings}
	// One verdict for every front door (registry.Judge, docs/INTERFACE.md §2.5): it
	// also says which endpoint may be shown as its access point.
	v := registry.Judge(registry.Evidence{Participant: p, Services: svc, ServicesErr: registry.ServicesFailed(svcErr)}, docKinds(doc))
	if s := p.SMP; s != nil {
		info.SMPHost, info.DocumentTypeCount = s.Hostname, s.ServiceCount
		if ep := s.Endpoint; ep != nil && v.AccessPoint != "" {
			info.Endpoint = &EndpointInfo{URL: ep.URL, TransportProfile: ep.TransportProfile, DocumentType: ep.DocumentType}
		}
	}
	if judge {
		if info.Registered {
			if types := listedTypes(p, svc); types != nil {
				info.Documents = documents(types, svc, doc)
				info.DocumentKinds = documentKinds(types)
			}
		}
		can := v.Reach == registry.Receives
		switch v.Reach {
		case registry.Blocked:
			info.Blocked = v.Blocked // listed, but sending fails right now
		case registry.Unknown:
			info.Unchecked = info.Registered // listed, but no endpoint could be read
		}
		info.CanReceive = &can
	}
	it.Peppol = info
	return it
}

// servicesItem adds what an LLM's get_participant_services call returned to the item of
// the participant (it, or a new item when it is nil): every document type listed, with
// its endpoints and warnings, and their kinds. An item without a lookup gets a Peppol
// member from the services alone: registered (its SMP lists it), with a Directory
// card when it came from a search hit.
func (e *Engine) servicesItem(it *Item, svc *registry.ServicesResult) Item {
	var out Item
	if it != nil {
		out = *it
	} else {
		out = e.newItem(svc.ParticipantID, "", "")
	}
	var info PeppolInfo
	if out.Peppol != nil {
		info = *out.Peppol
	} else {
		info = PeppolInfo{Registered: true, DirectoryCard: it != nil, SMPHost: svc.SMP.Hostname, DocumentTypeCount: svc.ServiceCount}
	}
	types := listedTypes(nil, svc)
	info.Documents = documents(types, svc, DocAny)
	info.DocumentKinds = documentKinds(types)
	out.Peppol = &info
	return out
}

// docKinds are the code-list categories Judge is asked about for doc: none (any
// document) for DocAny.
func docKinds(doc string) []string {
	if doc == DocAny {
		return nil
	}
	return []string{docCategory(doc)}
}

// canonicalID returns id in canonical form when it is a participant id, else id.
func canonicalID(id string) string {
	if p, err := peppol.ParseParticipantID(id); err == nil {
		return p.String()
	}
	return id
}
