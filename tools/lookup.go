package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// LookupArgs are the arguments of lookup_participant.
type LookupArgs struct {
	ParticipantID *string `json:"participantId"`
	Network       string  `json:"network"`
}

func lookupParticipant() Tool {
	return Tool{
		Name:  "lookup_participant",
		Title: "Look up a Peppol participant",
		Description: `Resolve one Peppol participant by its identifier: is it registered on the Peppol e-invoicing network, what does its Peppol Directory business card say (name, country, identifiers, document types) and what does its SMP publish (how many document types it can receive and the access point endpoint for invoices, with certificate and dates).

Use it when you have a Peppol participant identifier, e.g. from search_directory or from an invoice. Do not use it to find a company by name or by a national/VAT number in free form: use search_directory first, which also recognises numbers such as BE0677424046 and returns the identifiers to look up.

participantId is <scheme>:<value>, a 4-digit ISO 6523 scheme code, a colon and the number, e.g. 0208:0677424046 (Belgian enterprise number), 9925:be0677424046 (Belgian VAT), 0192:923609016 (Norwegian organisation number), 0088:5790000435975 (GLN), 0007:5560360793 (Swedish organisation number), 0009:78430177200025 (French SIRET).

Result: directory is null when the participant has no business card; smp is null when it is not registered in the SML (it cannot receive documents over Peppol). warnings explain anything that could not be checked. verdict says whether it can be sent invoices and credit notes right now, as every peppolgate front door judges it: receives, blocked (registered, but sending fails right now: blocked names the warnings, e.g. certificate_expired or smp_signature_invalid; accessPoint is then absent when the SMP answer is not validly signed, so do not use the endpoint URL), registered_without_that_document or not_registered.

Errors: invalid_participant_id (fix the identifier's form and retry), not_found (the participant is not on the network: neither registered in the SML nor in the Directory; do not retry, try search_directory), lookup_failed (the Peppol network did not answer; retry later with backoff).`,
		Input:       lookupInput(),
		Output:      ParticipantSchema(),
		Annotations: readOnly(),
		Call:        callLookup,
	}
}

func callLookup(ctx context.Context, nets *registry.Networks, raw json.RawMessage) (*Result, error) {
	var a LookupArgs
	if err := decodeArgs("lookup_participant", raw, &a, "participantId and optionally network"); err != nil {
		return nil, err
	}
	id, err := participantArg(a.ParticipantID)
	if err != nil {
		return nil, err
	}
	reg, network, err := nets.Select(a.Network)
	if err != nil {
		return nil, err
	}
	p, fresh, err := reg.Lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	// The verdict is registry.JudgeParticipant's, as at every front door
	// (docs/INTERFACE.md §2.5): from the lookup, and the services when it reads them.
	j := registry.JudgeParticipant(ctx, reg, id, p, nil, registry.DefaultKinds())
	fresh = j.Freshness(fresh)
	p = p.On(network).WithVerdict(j.Verdict)
	p.Warnings = j.Warnings(p.Warnings)
	return &Result{Value: p, Text: participantText(p) + verdictText(p.Verdict), Freshness: fresh}, nil
}

// verdictText says registry.Judge's verdict v in a sentence for the text of a lookup
// or services result, so that an agent reading the text alone gets the verdict every
// other front door gives: "" when there is none or nothing to add (not registered is
// said by the text already).
func verdictText(v *registry.Verdict) string {
	if v == nil {
		return ""
	}
	var s string
	switch v.Reach {
	case registry.Receives:
		s = " Verdict: receives " + kindList(v, true) + "."
	case registry.Blocked:
		s = " Verdict: blocked: registered for " + kindList(v, false) + ", but sending to it fails right now (" + strings.Join(v.Blocked, ", ") + ")."
	case registry.WithoutDocument:
		s = " Verdict: registered_without_that_document: its SMP lists " + kindList(v, false) + "."
		if len(v.Blocked) > 0 {
			s += " Sending to it fails right now (" + strings.Join(v.Blocked, ", ") + ")."
		}
	case registry.Unknown:
		if len(v.Kinds) == 0 {
			return ""
		}
		s = " Verdict: unknown: its SMP lists " + kindList(v, false) + ", but the endpoints of " + unknownList(v) + " could not be read just now; retry later."
	default:
		return ""
	}
	// Only when no verified access point is shown: an unsigned answer of another
	// kind's services is not the one the lookup's endpoint was read from.
	for _, c := range v.Blocked {
		if v.AccessPoint == "" && registry.Unverified(c) {
			s += " The SMP answer its endpoint was read from is not validly signed: that URL is not its verified access point."
			break
		}
	}
	return s
}

// kindList names the kinds of v that receive (receiving) or are listed (else): "the
// document type asked about" for a verdict on any, "none of Invoice, Credit Note"
// when there is none.
func kindList(v *registry.Verdict, receiving bool) string {
	var out, all []string
	for _, k := range v.Kinds {
		if k.Kind == "" {
			return "the document type asked about"
		}
		all = append(all, k.Kind)
		if (receiving && k.Receives) || (!receiving && k.Listed) {
			out = append(out, k.Kind)
		}
	}
	if len(out) == 0 {
		return "none of " + strings.Join(all, ", ")
	}
	return strings.Join(out, " and ")
}

// unknownList names the kinds of v whose endpoints could not be read (Unknown), "the
// document type asked about" for a verdict on any.
func unknownList(v *registry.Verdict) string {
	var out []string
	for _, k := range v.Kinds {
		if k.Kind == "" {
			return "the document type asked about"
		}
		if k.Unknown {
			out = append(out, k.Kind)
		}
	}
	return strings.Join(out, " and ")
}

// participantArg checks the required participantId argument of a tool. It returns an
// *registry.Error with CodeInvalidParticipantID when it is missing or malformed.
func participantArg(raw *string) (peppol.ParticipantID, error) {
	if raw == nil {
		return peppol.ParticipantID{}, &registry.Error{Code: registry.CodeInvalidParticipantID,
			Message: "participantId is required: <scheme>:<value>, e.g. 0208:0677424046"}
	}
	return registry.ParseParticipantID(*raw)
}
