package registry

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
)

// Reach is the verdict on whether a participant can receive the document kinds asked
// about (docs/INTERFACE.md §2.5).
type Reach string

// The verdicts of Judge.
const (
	// Receives: registered, its SMP lists every document kind asked about, and for each
	// an endpoint that nothing blocks (Blocking).
	Receives Reach = "receives"
	// Blocked: registered and its SMP lists every document kind asked about, but for
	// one of them every endpoint known is blocked right now (Verdict.Blocked says by
	// what): an expired, revoked or foreign access point certificate, an SMP answer not
	// validly signed or signed outside the network's SMP CA, a service not active.
	Blocked Reach = "blocked"
	// WithoutDocument: registered, but its SMP lists no document type of a kind asked
	// about (Verdict.Documents says which).
	WithoutDocument Reach = "registered_without_that_document"
	// NotRegistered: the SML does not know the participant, or names an SMP that does
	// not know it: nobody can send it documents over Peppol.
	NotRegistered Reach = "not_registered"
	// Unknown: the network could not be asked (an upstream failed), or the SMP lists a
	// kind asked about but no endpoint of it could be read, and no other kind is
	// blocked or missing.
	Unknown Reach = "unknown"
)

// Evidence is what Judge judges from: a lookup's answer or error, and a services
// answer when one was read.
type Evidence struct {
	// Participant is the lookup's answer; nil when the lookup failed or was not made.
	Participant *Participant
	// Services is the services answer (every document type), nil when not read. When
	// set, its endpoints are judged one by one; else the lookup's one endpoint stands
	// for every document type it lists.
	Services *ServicesResult
	// Err is the lookup's (or, without one, the services') error: CodeNotFound means
	// not registered, anything else unknown.
	Err error
	// ServicesErr is the error of a services read made because the lookup alone could
	// not judge (Participant.NeedsServices) and that failed: the kinds the lookup's one
	// endpoint does not stand for are then unknown, never received.
	ServicesErr error
}

// KindVerdict is the verdict on one document kind.
type KindVerdict struct {
	// Kind is the kind asked about, a code-list category (e.g. Invoice); "" asks
	// about any document.
	Kind string `json:"kind,omitempty" jsonschema:"the document kind, a category of the Peppol code list, e.g. Invoice or Credit Note; absent when the verdict is on any document type listed (a services answer for one docType)"`
	// Listed: the SMP lists a document type of this kind.
	Listed bool `json:"listed" jsonschema:"whether the participant's SMP lists a document type of this kind"`
	// Receives: listed, and an endpoint of it is not blocked.
	Receives bool `json:"receives" jsonschema:"whether it can be sent this kind right now: listed, and an endpoint receiving it is not blocked"`
	// Blocked are the blocking warning codes of its endpoints when it is listed but
	// none can be sent to.
	Blocked []string `json:"blocked,omitempty" jsonschema:"when listed but no endpoint can be sent to right now: the warning codes that block them"`
	// Unknown: listed, but no endpoint of it could be read (its ServiceMetadata could
	// not be fetched), so whether it can be sent is not known.
	Unknown bool `json:"unknown,omitempty" jsonschema:"when listed but no endpoint of it could be read (its service metadata could not be fetched): whether it can be sent is not known; retry later"`
}

// Verdict is Judge's answer: whether the participant can receive the document kinds
// asked about, each kind's verdict, what blocks sending, and the access point shown.
type Verdict struct {
	// Reach is the verdict over every kind asked about.
	Reach Reach `json:"status" jsonschema:"receives (every kind asked about can be sent right now), blocked (registered and listed, but sending fails right now: see blocked), registered_without_that_document (a kind asked about is not listed), not_registered or unknown (the network could not be asked)"`
	// Kinds are the verdicts on each kind asked about, in the order asked.
	Kinds []KindVerdict `json:"documents,omitempty" jsonschema:"the verdict on each document kind asked about"`
	// Blocked are the blocking warning codes of the kinds that are listed but cannot be
	// sent to, each once; set for Blocked, and for WithoutDocument when a listed kind is
	// blocked too.
	Blocked []string `json:"blocked,omitempty" jsonschema:"why sending fails right now, as warning codes (certificate_expired, certificate_revoked, certificate_chain_invalid, service_not_yet_active, service_expired, transport_profile_removed, smp_signature_invalid, smp_signature_missing, smp_certificate_not_peppol)"`
	// AccessPoint is the URL of the lookup's endpoint when the SMP answer it was read
	// from is validly signed by the network's SMP CA; "" otherwise (an unverified URL
	// is never shown as the access point).
	AccessPoint string `json:"accessPoint,omitempty" jsonschema:"the access point endpoint URL, only when read from an SMP answer validly signed by the network's SMP CA"`
	// FromList: the services were not read, so the lookup's one endpoint was judged
	// for every kind it lists.
	FromList bool `json:"-"`
}

// DefaultKinds are the document kinds a verdict is about when a front door names none:
// the code list's categories of the invoice and the credit note.
func DefaultKinds() []string { return []string{"Invoice", "Credit Note"} }

// Unverified reports whether a warning with code says that the SMP answer it is about
// is not validly signed by the network's SMP CA, so that nothing read from it (an
// endpoint URL, a certificate) may be presented as the participant's.
func Unverified(code string) bool {
	switch code {
	case WarnSMPSignatureInvalid, WarnSMPSignatureMissing, WarnSMPCertificateNotPeppol:
		return true
	}
	return false
}

// Judge decides, from ev, whether the participant can receive each of kinds (code-list
// categories, any case; none asks about any document): the one decision every front
// door renders (docs/INTERFACE.md §2.5). A kind is received when its SMP lists a
// document type of it with an endpoint no Blocking warning is about; with services
// read, each endpoint is judged with its own and its service's warnings, else the
// lookup's warnings judge its one endpoint for every kind listed. A signature that is
// invalid, missing or outside the network's SMP CA, and an access point certificate
// expired, revoked or outside the network's AP CA, always block.
func Judge(ev Evidence, kinds []string) Verdict {
	p, svc := ev.Participant, ev.Services
	switch {
	case svc == nil && p == nil && ErrorCode(ev.Err) == CodeNotFound:
		return Verdict{Reach: NotRegistered}
	case svc == nil && p == nil:
		return Verdict{Reach: Unknown}
	case svc == nil && (p.SMP == nil || p.has(WarnSMPNotFound)):
		return Verdict{Reach: NotRegistered}
	}
	if len(kinds) == 0 {
		kinds = []string{""}
	}
	v := Verdict{Reach: Receives, FromList: svc == nil}
	// The lookup's endpoint, its blocking codes, and whether its answer is signed.
	var lookupBlocked []string
	unverified := false
	if p != nil {
		for _, w := range p.Warnings {
			if Blocking(w.Code) {
				lookupBlocked = addCode(lookupBlocked, w.Code)
			}
			unverified = unverified || Unverified(w.Code)
		}
		if p.SMP != nil && p.SMP.Endpoint != nil && !unverified {
			v.AccessPoint = p.SMP.Endpoint.URL
		}
	}
	for _, kind := range kinds {
		k := KindVerdict{Kind: kind}
		known := false // an endpoint of the kind was judged
		if svc != nil {
			for _, s := range svc.Services {
				if !OfKind(s.DocumentType, kind) {
					continue
				}
				k.Listed = true
				var svcCodes []string
				for _, w := range s.Warnings {
					if Blocking(w.Code) {
						svcCodes = addCode(svcCodes, w.Code)
					}
				}
				for _, proc := range s.Processes {
					for _, e := range proc.Endpoints {
						known = true
						codes := slices.Clone(svcCodes)
						for _, w := range e.Warnings {
							if Blocking(w.Code) {
								codes = addCode(codes, w.Code)
							}
						}
						if len(codes) == 0 {
							k.Receives = true
						}
						for _, c := range codes {
							k.Blocked = addCode(k.Blocked, c)
						}
					}
				}
			}
		} else if p.SMP != nil {
			k.Listed = slices.ContainsFunc(p.SMP.DocumentTypes, func(t CodeInfo) bool { return OfKind(t, kind) })
		}
		if k.Listed && !known {
			switch {
			case svc == nil && ev.ServicesErr != nil && p.NeedsServices([]string{kind}):
				// The services that would say how its other document types fare
				// could not be read: whether it can be sent is not known.
				k.Unknown, k.Blocked = true, nil
			case svc != nil && noEndpointBlocked(svc, kind) != nil:
				// Every service of the kind without an endpoint says why: its SMP
				// answers 404 for its metadata, or it is blocked.
				k.Blocked = noEndpointBlocked(svc, kind)
			case p != nil && p.SMP != nil && p.SMP.Endpoint != nil && (svc == nil || p.endpointOfKind(kind)):
				// Only the lookup's one endpoint is known: it stands for the kind
				// (with services read, only when it was read for a document type of
				// the kind).
				k.Receives, k.Blocked = len(lookupBlocked) == 0, slices.Clone(lookupBlocked)
			case svc == nil && len(lookupBlocked) > 0 && !p.has(WarnEndpointUnavailable):
				k.Blocked = slices.Clone(lookupBlocked)
			default:
				// No endpoint could be read: whether it can be sent is not known.
				k.Unknown, k.Blocked = true, nil
			}
		}
		if k.Receives {
			k.Blocked = nil
		}
		switch {
		case !k.Listed:
			v.Reach = WithoutDocument
		case k.Unknown:
			if v.Reach == Receives {
				v.Reach = Unknown
			}
		case !k.Receives:
			if v.Reach == Receives || v.Reach == Unknown {
				v.Reach = Blocked
			}
			for _, c := range k.Blocked {
				v.Blocked = addCode(v.Blocked, c)
			}
		}
		v.Kinds = append(v.Kinds, k)
	}
	return v
}

// NeedsServices reports whether p's lookup alone cannot judge kinds (none: any
// document): its SMP lists a document type of a kind asked about other than the one
// its endpoint was read from (without an endpoint: one of several it lists), whose
// endpoints only a services answer gives (docs/INTERFACE.md §2.5). False for nil, an
// unregistered participant, or one its SMP does not know.
func (p *Participant) NeedsServices(kinds []string) bool {
	if p == nil || p.SMP == nil || p.has(WarnSMPNotFound) {
		return false
	}
	if len(kinds) == 0 {
		kinds = []string{""}
	}
	for _, t := range p.SMP.DocumentTypes {
		if !slices.ContainsFunc(kinds, func(k string) bool { return OfKind(t, k) }) {
			continue
		}
		if p.SMP.Endpoint == nil {
			if len(p.SMP.DocumentTypes) > 1 {
				return true
			}
			continue
		}
		if !sameDocType(t.ID, p.SMP.Endpoint.DocumentType) {
			return true
		}
	}
	return false
}

// endpointOfKind reports whether p's lookup read its endpoint for a document type
// of kind.
func (p *Participant) endpointOfKind(kind string) bool {
	return slices.ContainsFunc(p.SMP.DocumentTypes, func(t CodeInfo) bool {
		return sameDocType(t.ID, p.SMP.Endpoint.DocumentType) && OfKind(t, kind)
	})
}

// sameDocType reports whether the document type identifiers a and b
// ("<scheme>::<value>") are the same: schemes compare ignoring case, values exactly.
func sameDocType(a, b string) bool {
	as, av, _ := strings.Cut(a, "::")
	bs, bv, _ := strings.Cut(b, "::")
	return av == bv && strings.EqualFold(as, bs)
}

// Judgement is JudgeParticipant's answer: the verdict, and the services read for it.
type Judgement struct {
	// Verdict is Judge's verdict on the evidence read.
	Verdict Verdict
	// Services is the services answer read besides the lookup, nil when none was
	// read (or the read failed).
	Services *ServicesResult
	// Fresh is the services answer's freshness; zero when none was read.
	Fresh Freshness
	// Err is the services read's error when it failed: the kinds the lookup alone
	// cannot judge are then unknown (Evidence.ServicesErr).
	Err error
}

// JudgeParticipant is the verdict every front door gives on whether the participant
// id can receive kinds, from its lookup's answer p or error lookupErr
// (docs/INTERFACE.md §2.5). When the lookup's one endpoint does not stand for every
// document type of those kinds its SMP lists (NeedsServices), it also reads the
// services answer reg.Services(ctx, id, ""), the one the participant page and /ask
// judge from, which the registry caches, and judges from both: at most one services
// read, none for a participant that lists only the document type its lookup read.
// A failed read is not an error of the lookup: its kinds are unknown, never received
// (Judgement.Err).
func JudgeParticipant(ctx context.Context, reg Registry, id peppol.ParticipantID, p *Participant, lookupErr error, kinds []string) Judgement {
	ev := Evidence{Participant: p, Err: lookupErr}
	if lookupErr != nil || !p.NeedsServices(kinds) {
		return Judgement{Verdict: Judge(ev, kinds)}
	}
	svc, fresh, err := reg.Services(ctx, id, "")
	if err != nil {
		err = ServicesFailed(err)
		ev.ServicesErr = err
		return Judgement{Verdict: Judge(ev, kinds), Err: err}
	}
	ev.Services = svc
	return Judgement{Verdict: Judge(ev, kinds), Services: svc, Fresh: fresh}
}

// Freshness is the freshness of an answer carrying this judgement, whose lookup's was
// lookup: as fresh as both answers when the services were read; when their read
// failed, not cacheable (max-age 0: TTL = Age) and not a cache hit, since the next
// request may read them; else the lookup's (docs/INTERFACE.md §2.5).
func (j Judgement) Freshness(lookup Freshness) Freshness {
	switch {
	case j.Services != nil:
		return lookup.With(j.Fresh)
	case j.Err != nil:
		lookup.Cached, lookup.TTL = false, lookup.Age
	}
	return lookup
}

// Warnings are the warnings of an answer carrying this judgement whose lookup's were
// lookup: those, and when the services were read, their warning of each code that
// blocks the verdict (Verdict.Blocked) and lookup lacks, once per code, so that every
// blocking code the answer names comes with its advice (docs/INTERFACE.md §2.5).
func (j Judgement) Warnings(lookup []Warning) []Warning {
	if j.Services == nil {
		return lookup
	}
	out := lookup
	for _, c := range j.Verdict.Blocked {
		if slices.ContainsFunc(out, func(w Warning) bool { return w.Code == c }) {
			continue
		}
		if i := slices.IndexFunc(j.Services.Warnings, func(w Warning) bool { return w.Code == c }); i >= 0 {
			out = append(slices.Clip(out), j.Services.Warnings[i])
		}
	}
	return out
}

// ServicesFailed is err, the error of a services read made beside a lookup that found
// the participant registered, as an upstream failure (CodeLookupFailed, retryable):
// whatever it says, even not_found (the SMP no longer knows a participant its lookup
// just read), the kinds it would judge are unknown at every front door, never "not
// found" (docs/INTERFACE.md §2.5). Nil for nil; an error that already is
// CodeLookupFailed is returned as it is.
func ServicesFailed(err error) error {
	if err == nil || ErrorCode(err) == CodeLookupFailed {
		return err
	}
	msg := "its services could not be read; retry later"
	var re *Error
	switch {
	case ErrorCode(err) == CodeNotFound:
		msg = "its lookup found it registered, but its SMP now answers that it does not know it; retry later"
	case errors.As(err, &re):
		msg = re.Message
	}
	return &Error{Code: CodeLookupFailed, Message: msg, Err: err}
}

// With returns the freshness of an answer made of two answers, one f and one o: from
// the cache only when both were, stale when either was, as old as the older, and
// fresh only as long as both are.
func (f Freshness) With(o Freshness) Freshness {
	left := min(f.TTL-f.Age, o.TTL-o.Age)
	age := max(f.Age, o.Age)
	return Freshness{Cached: f.Cached && o.Cached, Stale: f.Stale || o.Stale, Age: age, TTL: age + max(left, 0)}
}

// noEndpointBlocked are the blocking codes of the services of kind in svc that have
// no endpoint, when every one of them has one (an SMP 404 for its metadata is
// endpoint_not_found, a block); nil when one of them could not be read.
func noEndpointBlocked(svc *ServicesResult, kind string) []string {
	var codes []string
	for _, s := range svc.Services {
		if !OfKind(s.DocumentType, kind) || slices.ContainsFunc(s.Processes, func(p ProcessInfo) bool { return len(p.Endpoints) > 0 }) {
			continue
		}
		var own []string
		for _, w := range s.Warnings {
			if Blocking(w.Code) {
				own = addCode(own, w.Code)
			}
		}
		if own == nil {
			return nil
		}
		for _, c := range own {
			codes = addCode(codes, c)
		}
	}
	return codes
}

// Has reports whether p carries a warning with code.
func (p *Participant) Has(code string) bool { return p.has(code) }

// has reports whether p carries a warning with code.
func (p *Participant) has(code string) bool {
	return slices.ContainsFunc(p.Warnings, func(w Warning) bool { return w.Code == code })
}

// addCode appends code to codes unless it is there.
func addCode(codes []string, code string) []string {
	if slices.Contains(codes, code) {
		return codes
	}
	return append(codes, code)
}

// kindMarkers are, for the kinds whose document types the code list may not have, the
// UBL/CII root elements a document type identifier of that kind names
// ("...:Invoice-2::Invoice##...").
func kindMarkers(kind string) []string {
	switch strings.ToLower(kind) {
	case "invoice":
		return []string{"::Invoice##", "::CrossIndustryInvoice##"}
	case "credit note":
		return []string{"::CreditNote##"}
	case "order":
		return []string{"::Order##"}
	}
	return nil
}

// OfKind reports whether the document type t is of kind, a code-list category compared
// without regard to case ("" is any kind): by its category, or for a type the code
// list does not have, by the root element its identifier names.
func OfKind(t CodeInfo, kind string) bool {
	if kind == "" {
		return true
	}
	if t.Category != "" {
		return strings.EqualFold(t.Category, kind)
	}
	for _, m := range kindMarkers(kind) {
		if strings.Contains(t.Value, m) {
			return true
		}
	}
	return false
}

// Judged returns a copy of p with its Verdict on DefaultKinds set from p alone; nil
// for nil. A front door renders JudgeParticipant's verdict instead (WithVerdict),
// which reads the services when p alone cannot judge (NeedsServices).
func (p *Participant) Judged() *Participant {
	if p == nil {
		return nil
	}
	c := *p
	v := Judge(Evidence{Participant: p}, DefaultKinds())
	c.Verdict = &v
	return &c
}

// WithVerdict returns a copy of p with its Verdict set to v (JudgeParticipant's), for
// an adapter to render; nil for nil.
func (p *Participant) WithVerdict(v Verdict) *Participant {
	if p == nil {
		return nil
	}
	c := *p
	c.Verdict = &v
	return &c
}

// Judged returns a copy of r with its Verdict set: on DefaultKinds, or on any of the
// document types listed when one was asked for (docType); nil for nil.
func (r *ServicesResult) Judged(docType string) *ServicesResult {
	if r == nil {
		return nil
	}
	c := *r
	var kinds []string
	if docType == "" {
		kinds = DefaultKinds()
	}
	v := Judge(Evidence{Services: r}, kinds)
	c.Verdict = &v
	return &c
}
