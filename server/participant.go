package server

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// participant serves GET /api/v1/participant/{participantId} (docs/INTERFACE.md §4.1).
func (s *Server) participant(w http.ResponseWriter, r *http.Request) error {
	id, err := participantParam(r)
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	p, fresh, err := reg.Lookup(r.Context(), id)
	if err != nil {
		return err
	}
	// The verdict is registry.JudgeParticipant's, as at every front door
	// (docs/INTERFACE.md §2.5): from the lookup, and the services when it reads them;
	// the answer is then as fresh as both.
	j := registry.JudgeParticipant(r.Context(), reg, id, p, nil, registry.DefaultKinds())
	setFreshness(w.Header(), j.Freshness(fresh))
	mark := func() any {
		c := p.On(network).WithVerdict(j.Verdict)
		c.Warnings = j.Warnings(p.Warnings)
		return c
	}
	switch {
	case j.Err != nil:
		// A verdict from a failed services read is not remembered: the next
		// request may read them.
		s.writeJSON(w, r, http.StatusOK, mark())
	case j.Services != nil:
		// The body depends on the services answer too: remember it per both.
		s.writeShared(w, r, http.StatusOK, judgedPair{p, j.Services}, network, "", mark)
	default:
		s.writeShared(w, r, http.StatusOK, p, network, "", mark)
	}
	return nil
}

// judgedPair is a lookup answer and the services answer its verdict was judged from
// besides, as the key of its remembered body (hotPath.sharedBody): both are shared
// from the registry's cache, so the pair changes when either does.
type judgedPair struct {
	p   *registry.Participant
	svc *registry.ServicesResult
}

// services serves GET /api/v1/participant/{participantId}/services[?docType=].
func (s *Server) services(w http.ResponseWriter, r *http.Request) error {
	id, err := participantParam(r)
	if err != nil {
		return err
	}
	rawDoc, _, err := s.hot.queryValue(r.URL.RawQuery, "docType")
	if err != nil {
		return err
	}
	doc, err := registry.ParseDocType(rawDoc)
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	res, fresh, err := reg.Services(r.Context(), id, doc)
	if err != nil {
		return err
	}
	setFreshness(w.Header(), fresh)
	s.writeShared(w, r, http.StatusOK, res, network, "docType="+doc, func() any { return res.On(network).Judged(doc) })
	return nil
}

// network returns the registry of the network the request's network query parameter
// names (the default when it names none) and its name ("" when the server names no
// network). It returns a *registry.Error with CodeInvalidRequest, naming the offered
// networks, for a network that is unknown or not offered (registry.ParseNetwork).
func (s *Server) network(r *http.Request) (registry.Registry, string, error) {
	raw, _, err := s.hot.queryValue(r.URL.RawQuery, "network")
	if err != nil {
		return nil, "", err
	}
	return s.nets.Select(raw)
}

// participantParam reads the participant id from the path. Clients percent-encode it
// (0208%3A0677424046, iso6523-actorid-upis%3A%3A…) or not; both are accepted. chi
// routes on the raw path when the URL has one, so the parameter is decoded exactly
// once, and only then: decoding an already decoded value would turn "%2541" into "A".
// It returns an *registry.Error with CodeInvalidParticipantID.
func participantParam(r *http.Request) (peppol.ParticipantID, error) {
	raw := chi.URLParam(r, "participantId")
	if r.URL.RawPath != "" {
		dec, err := url.PathUnescape(raw)
		if err != nil {
			return peppol.ParticipantID{}, apiError(registry.CodeInvalidParticipantID,
				"participant id is not correctly percent-encoded; expected <scheme>:<value>, e.g. 0208:0677424046")
		}
		raw = dec
	}
	return registry.ParseParticipantID(raw)
}

// participantRoutes describes and serves the lookups of one participant (docs/INTERFACE.md §4).
func (s *Server) participantRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/participant/{participantId}", OperationID: "getParticipant", Tag: "participants",
			Summary: "Look up a Peppol participant",
			Description: "Resolves one participant by its identifier: its Peppol Directory business card and what its SMP publishes " +
				"(its document types, named from the Peppol code lists, and the access point endpoint for invoices), with `warnings` about anything that would make sending fail " +
				"(certificates, service dates, transport profile, deprecated document types, a missing or disagreeing Directory card). `directory` is null when there is no card, " +
				"`smp` null when the SML does not know the participant. 404 only when neither knows it; an upstream failure is 502, never 404.",
			Params:    k.network(k.participantID),
			Responses: k.jsonOK("The participant record.", tools.ParticipantSchema()),
			Errors:    append([]registry.Code{registry.CodeInvalidParticipantID, registry.CodeInvalidRequest, registry.CodeNotFound, registry.CodeLookupFailed}, commonErrors()...),
			Headers:   k.freshness,
		}, handler: s.participant, class: classREST},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/participant/{participantId}/services", OperationID: "getParticipantServices", Tag: "participants",
			Summary: "List what a participant can receive",
			Description: "Every document type the participant's SMP lists, each with its processes and access point endpoints: names and code-list states " +
				"(active, deprecated, removed) from the Peppol code lists, transport profile, URL, activation and expiration dates and the certificate " +
				"(issuer, validity, days remaining). The ServiceMetadata documents are fetched concurrently, a few at a time. `warnings` on each endpoint, " +
				"each service and (one per code) on the whole answer say what would make sending fail or is about to: certificate expired or expiring " +
				"within " + strconv.Itoa(int(registry.ExpiringWithin/(24*time.Hour))) + " days or not issued by the Peppol access point CA, service not yet active or expired, endpoint not https or not on port 443, " +
				"deprecated or removed transport profile or document type, non-standard ids. With `docType`, only that document type. " +
				"404 when the participant is not registered or its SMP does not list `docType`; an upstream failure is 502, never 404.",
			Params: k.network(k.participantID,
				discovery.Param{Name: "docType", In: "query", Description: "Only this document type, `<scheme>::<value>`, e.g. the Peppol BIS Billing 3.0 invoice " +
					"`busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`.",
					Schema:  &jsonschema.Schema{Type: "string", MinLength: ptr(3), MaxLength: ptr(registry.MaxDocTypeLength)},
					Example: "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"},
			),
			Responses: k.jsonOK("The participant's services.", tools.ServicesSchema()),
			Errors:    append([]registry.Code{registry.CodeInvalidParticipantID, registry.CodeInvalidRequest, registry.CodeNotFound, registry.CodeLookupFailed}, commonErrors()...),
			Headers:   k.freshness,
		}, handler: s.services, class: classREST},
	}
}
