package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/registry"
)

// ServicesArgs are the arguments of get_participant_services.
type ServicesArgs struct {
	ParticipantID *string `json:"participantId"`
	DocType       string  `json:"docType"`
	Network       string  `json:"network"`
}

func getParticipantServices() Tool {
	return Tool{
		Name:  "get_participant_services",
		Title: "List what a Peppol participant can receive",
		Description: `List every document type a Peppol participant's SMP says it can receive, each with its processes and access point endpoints: names and code-list state (active, deprecated, removed) from the Peppol code lists, transport profile, endpoint URL, activation and expiration dates, and the access point certificate (issuer, validity, days remaining). Warnings say what would make sending fail or is about to: certificate expired or expiring within ` + strconv.Itoa(int(registry.ExpiringWithin/(24*time.Hour))) + ` days or not issued by the Peppol access point CA, service not yet active or expired, endpoint not https or not on port 443, deprecated or removed transport profile or document type, non-standard ids.

verdict says whether it can be sent invoices and credit notes right now (with docType: that document type), judged from every endpoint: receives, blocked (blocked names the warnings) or registered_without_that_document.

Use it before sending a document to check that the participant can receive that document type (pass docType to ask about one) and will be reachable today, or to answer "can X receive credit notes / orders?" with the full list rather than the one invoice endpoint lookup_participant shows.

Do not use it to find a company (use search_directory) or for the Directory business card (use lookup_participant).

participantId is <scheme>:<value>, e.g. 0208:0677424046 or 0088:5790000435975. docType, optional, is a document type identifier with its scheme, <scheme>::<value>, e.g. busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1.

Errors: invalid_participant_id (fix the identifier's form), invalid_request (docType is not <scheme>::<value>), not_found (the participant is not registered in the SML, or its SMP does not list that docType: the message names those it lists; do not retry), lookup_failed (the Peppol network did not answer; retry later with backoff).`,
		Input:       servicesInput(),
		Output:      ServicesSchema(),
		Annotations: readOnly(),
		Call:        callServices,
	}
}

// ServicesSchema returns the JSON Schema (draft 2020-12) of a services answer, the body
// of GET /api/v1/participant/{participantId}/services and the result of
// get_participant_services, derived from registry.ServicesResult. Each call returns a
// new schema.
func ServicesSchema() *jsonschema.Schema {
	s := outputSchema[registry.ServicesResult]()
	s.Description = "What a Peppol participant's SMP says it can receive: every document type with its processes and endpoints, named from the Peppol code lists and checked."
	s.Properties["participantId"].Pattern = canonicalIDPattern
	return s
}

// servicesInput is the input schema of get_participant_services.
func servicesInput() *jsonschema.Schema {
	s := lookupInput()
	s.Properties["docType"] = &jsonschema.Schema{
		Type: "string",
		Description: "Optional: only this document type, as <scheme>::<value>, e.g. " +
			"busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1.",
		MinLength: ptr(3),
		MaxLength: ptr(registry.MaxDocTypeLength),
	}
	return s
}

func callServices(ctx context.Context, nets *registry.Networks, raw json.RawMessage) (*Result, error) {
	var a ServicesArgs
	if err := decodeArgs("get_participant_services", raw, &a, "participantId and optionally docType and network"); err != nil {
		return nil, err
	}
	id, err := participantArg(a.ParticipantID)
	if err != nil {
		return nil, err
	}
	doc, err := registry.ParseDocType(a.DocType)
	if err != nil {
		return nil, err
	}
	reg, network, err := nets.Select(a.Network)
	if err != nil {
		return nil, err
	}
	res, fresh, err := reg.Services(ctx, id, doc)
	if err != nil {
		return nil, err
	}
	res = res.On(network).Judged(doc)
	return &Result{Value: res, Text: servicesText(res) + verdictText(res.Verdict), Freshness: fresh}, nil
}

// servicesText renders a services answer: one line per document type with its name,
// state and endpoints, then the warnings. What the SMP wrote (identifiers the code
// list lacks, URLs) is cleaned and capped (untrusted.Short; docs/ARCHITECTURE.md §6).
func servicesText(r *registry.ServicesResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: SMP %s lists %s.", r.ParticipantID, untrusted.Short(r.SMP.Hostname), phrase.Plural(r.ServiceCount, "document type"))
	for _, s := range r.Services {
		name := s.DocumentType.Name
		if name == "" {
			name = untrusted.Short(s.DocumentType.ID)
		}
		fmt.Fprintf(&b, "\n- %s", name)
		switch {
		case s.DocumentType.NonStandard:
			b.WriteString(" (not in the Peppol code list)")
		case s.DocumentType.State != "" && s.DocumentType.State != "active":
			fmt.Fprintf(&b, " (%s)", s.DocumentType.State)
		}
		// An endpoint read from an answer not validly signed is marked so, never
		// presented as its access point (docs/INTERFACE.md §2.5).
		unverified := ""
		if slices.ContainsFunc(s.Warnings, func(w registry.Warning) bool { return registry.Unverified(w.Code) }) {
			unverified = ", not verified"
		}
		var eps []string
		for _, p := range s.Processes {
			for _, e := range p.Endpoints {
				eps = append(eps, untrusted.Short(e.URL)+" ("+untrusted.Short(e.TransportProfile.ID)+unverified+")")
			}
		}
		if len(eps) > 0 {
			b.WriteString(": " + strings.Join(eps, ", "))
		}
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "\nWarning (%s): %s", w.Code, w.Message)
	}
	return b.String()
}
