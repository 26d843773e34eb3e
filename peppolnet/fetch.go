package peppolnet

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// bisBillingInvoice is the document type whose endpoint a lookup shows when the
// participant accepts it: the Peppol BIS Billing 3.0 invoice, the one most senders use.
var bisBillingInvoice = smp.Identifier{
	Scheme: smp.DocTypeScheme,
	Value:  "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
}

// smpOutcome is the result of the SML → SMP branch.
type smpOutcome struct {
	rec           *registry.SMPRecord
	notRegistered bool // the SML says so: a definite answer
	// noSMPService is the sml.ErrNoSMPService error when the SML has records but none
	// usable. The participant is registered, so this is never not_found; without a
	// Directory card there is nothing to answer.
	noSMPService error
	warnings     []registry.Warning
	// sgDocs are the document types of the ServiceGroup and sgFetched says it was
	// read, so the Directory card can be compared with it.
	sgDocs    []smp.Identifier
	sgFetched bool
	degraded  bool  // a warning stems from an upstream failure
	err       error // DNS failure or SMP unavailable: the answer is unknown
	what      string
	// advice says what to do about err; "" means retry with exponential backoff.
	advice string
	// retryAfter is how long the caller should wait before retrying err; 0 when
	// nothing more definite than backoff can be said.
	retryAfter time.Duration
}

// dirOutcome is the result of the Directory branch.
type dirOutcome struct {
	rec *registry.DirectoryRecord
	err error
	// mirrorAsOf is set when the answer came from the Directory mirror: its data's
	// export time, which the Directory warnings must mention (a card published since
	// is not in it).
	mirrorAsOf time.Time
	// staleWarn is set when the live Directory failed and a stale mirror answered.
	staleWarn *registry.Warning
}

// fetch runs one upstream round for id: both branches in parallel, then the merge.
func (l *Registry) fetch(ctx context.Context, id peppol.ParticipantID) fetchResult {
	var (
		wg sync.WaitGroup
		so smpOutcome
		do dirOutcome
	)
	wg.Add(2)
	go func() { defer wg.Done(); so = l.smpBranch(ctx, id) }()
	go func() { defer wg.Done(); do = l.dirBranch(ctx, id) }()
	wg.Wait()
	return l.merge(id, so, do)
}

// merge applies the outcome rules: a technical failure is never reported as absence.
func (l *Registry) merge(id peppol.ParticipantID, so smpOutcome, do dirOutcome) fetchResult {
	key := id.String()
	if so.err != nil {
		advice := so.advice
		if advice == "" {
			advice = "retry with exponential backoff"
		}
		return fetchResult{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the Peppol network could not be queried for " + key + ": " + so.what + "; " + advice, RetryAfter: so.retryAfter, Err: so.err}}
	}
	if so.notRegistered {
		if do.err != nil {
			// The SML's answer is definite and is what Services answers too; only the
			// Directory's half is unknown.
			msg := "the SML answered that " + key + " is not registered, so it cannot receive documents over Peppol (its services lookup says the same), but the Peppol Directory could not be asked whether it has a business card; retry with exponential backoff for the full answer"
			if wait := retryAfter(do.err); wait > 0 {
				msg = "the SML answered that " + key + " is not registered, so it cannot receive documents over Peppol (its services lookup says the same), but the Peppol Directory is failing and not being asked for now, so whether it has a business card is unknown; retry after " + seconds(wait) + " for the full answer"
			}
			return fetchResult{err: &registry.Error{Code: registry.CodeLookupFailed, Message: msg, RetryAfter: retryAfter(do.err), Err: do.err}}
		}
		if do.rec == nil {
			msg := "participant " + key + " is not registered on the Peppol network (not in the SML, no Peppol Directory card); check the scheme and number, do not retry"
			if notes := peppol.Notes(id); len(notes) > 0 {
				msg += "; note: " + strings.Join(notes, "; ")
			}
			return fetchResult{err: &registry.Error{Code: registry.CodeNotFound, Message: msg}, ttl: l.cfg.NegativeTTL}
		}
	}
	if so.noSMPService != nil && do.rec == nil {
		what := "the Peppol Directory has no card for it"
		if do.err != nil {
			what = "the Peppol Directory could not be asked"
		}
		return fetchResult{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the SML has records for " + key + " but none points to a usable SMP, and " + what + "; retry with exponential backoff", Err: errors.Join(so.noSMPService, do.err)}}
	}
	p := &registry.Participant{ParticipantID: key, Directory: do.rec, SMP: so.rec, Warnings: so.warnings}
	for _, n := range peppol.Notes(id) {
		p.Warnings = append(p.Warnings, registry.Warning{Code: registry.WarnIdentifier, Message: n})
	}
	if so.sgFetched && do.err == nil {
		for _, w := range directoryWarnings(do.rec, so.sgDocs) {
			if !do.mirrorAsOf.IsZero() {
				w.Message = "as of the Directory export of " + do.mirrorAsOf.UTC().Format(time.RFC3339) + " (peppolgate's local copy): " + w.Message
			}
			p.Warnings = append(p.Warnings, w)
		}
	}
	degraded := so.degraded
	if do.staleWarn != nil {
		degraded = true
		p.Warnings = append(p.Warnings, *do.staleWarn)
	}
	if do.err != nil {
		degraded = true
		p.Warnings = append(p.Warnings, registry.Warning{Code: registry.WarnDirectoryUnavailable, Message: "the Peppol Directory could not be asked, so the business card (directory) is missing from this answer; retry later for the full record"})
	}
	ttl := l.cfg.PositiveTTL
	if degraded {
		ttl = min(ttl, l.cfg.WarningTTL)
	}
	if p.SMP != nil && p.SMP.Endpoint != nil {
		e := p.SMP.Endpoint
		ttl = untilDateChange(ttl, l.cfg.Now(), endpointInstants(e.ActivationDate, e.ExpirationDate, e.Certificate))
	}
	return fetchResult{p: p, ttl: ttl}
}

// smpBranch asks the SML for id's SMP, then the SMP for its ServiceGroup and one
// ServiceMetadata, and applies the insight checks: every listed document type against
// the code list, the shown endpoint's certificate, dates, URL and transport profile.
func (l *Registry) smpBranch(ctx context.Context, id peppol.ParticipantID) smpOutcome {
	res, err := l.resolve(ctx, id)
	if err != nil {
		if errors.Is(err, sml.ErrNotRegistered) {
			return smpOutcome{notRegistered: true}
		}
		if errors.Is(err, sml.ErrNoSMPService) {
			// Like a DNS failure, an unusable record is never reported as absence; a
			// broken or half-published record is likely to be fixed, so cache briefly.
			return smpOutcome{noSMPService: err, degraded: true, warnings: []registry.Warning{{Code: registry.WarnSMLNoSMPService, Message: "the SML has records for this participant but none points to a usable SMP, so no SMP or endpoint is shown; retry later"}}}
		}
		return smpOutcome{err: err, what: smlFailure(err)}
	}
	base := res.BaseURL
	rec := &registry.SMPRecord{URL: smp.ServiceGroupURL(base, id), DocumentTypes: []registry.CodeInfo{}}
	if u, err := url.Parse(base); err == nil {
		rec.Hostname = u.Hostname()
	}
	start := time.Now()
	sg, err := l.smp.ServiceGroup(ctx, base, id)
	l.observeCall(ctx, registry.UpstreamSMP, start, err, slog.String("participant", id.String()))
	if err != nil {
		if errors.Is(err, smp.ErrNotFound) {
			return smpOutcome{rec: rec, warnings: []registry.Warning{{Code: registry.WarnSMPNotFound, Message: "the SML points to an SMP that does not know this participant, so it cannot receive documents there"}}}
		}
		what, advice, wait := smpFailure(err)
		return smpOutcome{err: err, what: what, advice: advice, retryAfter: wait}
	}
	rec.ServiceCount = len(sg.DocumentTypes)
	rec.DocumentTypes = make([]registry.CodeInfo, len(sg.DocumentTypes))
	for i, d := range sg.DocumentTypes {
		rec.DocumentTypes[i] = documentTypeInfo(d)
	}
	if len(sg.DocumentTypes) == 0 {
		return smpOutcome{rec: rec, sgFetched: true}
	}
	doc := sg.DocumentTypes[0]
	for _, d := range sg.DocumentTypes {
		if d == bisBillingInvoice {
			doc = d
			break
		}
	}
	start = time.Now()
	sm, err := l.smp.ServiceMetadata(ctx, base, id, doc)
	l.observeCall(ctx, registry.UpstreamSMP, start, err, slog.String("participant", id.String()))
	out := smpOutcome{rec: rec, sgDocs: sg.DocumentTypes, sgFetched: true}
	// The code list needs no ServiceMetadata: every listed document type is checked.
	for _, d := range sg.DocumentTypes {
		out.warnings = append(out.warnings, documentTypeWarnings(documentTypeInfo(d))...)
	}
	switch {
	case errors.Is(err, smp.ErrNotFound):
		out.warnings = append(out.warnings, registry.Warning{Code: registry.WarnEndpointNotFound, Message: "the SMP lists document type " + untrusted.Quote(doc.String()) + " but has no service metadata for it, so no endpoint is shown"})
		return out
	case err != nil:
		out.degraded = true
		out.warnings = append(out.warnings, registry.Warning{Code: registry.WarnEndpointUnavailable, Message: endpointWarning(err)})
		return out
	}
	now := l.cfg.Now()
	var ep *smp.Endpoint
	rec.Endpoint, ep = pickEndpoint(doc, sm)
	var sigWarnings []registry.Warning
	rec.Signature, sigWarnings = l.signatureOf(ctx, sm, "document type "+untrusted.Quote(doc.String()), now)
	out.warnings = append(out.warnings, sigWarnings...)
	out.warnings = append(out.warnings, recordEndpointWarnings(rec.Endpoint, now)...)
	if rec.Endpoint != nil {
		out.warnings = append(out.warnings, l.checkAPChain(ctx, ep.Certificate, rec.Endpoint.Certificate, nil, now)...)
	}
	return out
}

// pickEndpoint returns the AS4 endpoint of sm if there is one, else the first endpoint
// of the first process, else nil; and the endpoint as the SMP gave it.
func pickEndpoint(doc smp.Identifier, sm *smp.ServiceMetadata) (*registry.Endpoint, *smp.Endpoint) {
	var (
		proc  smp.Identifier
		ep    *smp.Endpoint
		found bool
	)
	for _, p := range sm.Processes {
		for i := range p.Endpoints {
			if p.Endpoints[i].TransportProfile == smp.TransportAS4 {
				proc, ep, found = p.ID, &p.Endpoints[i], true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		for _, p := range sm.Processes {
			if len(p.Endpoints) > 0 {
				proc, ep = p.ID, &p.Endpoints[0]
				break
			}
		}
	}
	if ep == nil {
		return nil, nil
	}
	out := &registry.Endpoint{
		DocumentType:     doc.String(),
		Process:          proc.String(),
		TransportProfile: ep.TransportProfile,
		URL:              ep.Address,
		ActivationDate:   ep.ActivationDate,
		ExpirationDate:   ep.ExpirationDate,
		Certificate:      certificate(ep.Certificate),
	}
	return out, ep
}

// dirBranch asks the Directory for id's business card.
func (l *Registry) dirBranch(ctx context.Context, id peppol.ParticipantID) dirOutcome {
	st, asOf := l.mirrorAt(l.cfg.Now())
	if st == mirrorFresh {
		if rec, ok := l.mirrorCard(ctx, id); ok {
			return dirOutcome{rec: rec, mirrorAsOf: asOf}
		}
	}
	res, err := l.directorySearch(ctx, directory.Query{Participant: id})
	if err != nil {
		if st == mirrorStale {
			// Stale data with a warning beats a missing card. A card missing from the
			// stale copy proves nothing (it may have been published since), so the
			// Directory stays unknown then.
			if rec, ok := l.mirrorCard(ctx, id); ok && rec != nil {
				l.cfg.Logger.WarnContext(ctx, "the live Directory failed; answering the business card from the stale mirror",
					"upstream", registry.UpstreamDirectory, "participant", id.String(), "mirror_data_as_of", asOf.UTC().Format(time.RFC3339), "err", err)
				w := l.staleFallback(asOf, "asked")
				return dirOutcome{rec: rec, mirrorAsOf: asOf, staleWarn: &w}
			}
		}
		return dirOutcome{err: err}
	}
	for _, m := range res.Matches {
		if m.Participant == id {
			return dirOutcome{rec: directoryRecord(m)}
		}
	}
	return dirOutcome{}
}

// directoryRecord maps a Directory match to the record of docs/INTERFACE.md §2.2. The card-level
// registration date, additional info and geo info are those of the first entity.
func directoryRecord(m directory.Match) *registry.DirectoryRecord {
	rec := &registry.DirectoryRecord{
		ParticipantID: registry.IDParts{Scheme: m.Participant.ICD, Value: m.Participant.Value},
		Name:          m.Name(),
		CountryCode:   m.CountryCode(),
		Entities:      make([]registry.Entity, 0, len(m.Entities)),
		DocTypes:      make([]registry.IDParts, 0, len(m.DocTypes)),
	}
	for _, e := range m.Entities {
		ent := registry.Entity{
			Names:            make([]registry.Name, 0, len(e.Names)),
			CountryCode:      e.CountryCode,
			Identifiers:      make([]registry.IDParts, 0, len(e.Identifiers)),
			Websites:         append([]string{}, e.Websites...),
			RegistrationDate: optional(e.RegistrationDate),
			AdditionalInfo:   optional(e.AdditionalInfo),
			GeoInfo:          optional(e.GeoInfo),
		}
		for _, n := range e.Names {
			ent.Names = append(ent.Names, registry.Name{Name: n.Name, Language: n.Language})
		}
		for _, i := range e.Identifiers {
			ent.Identifiers = append(ent.Identifiers, registry.IDParts{Scheme: i.Scheme, Value: i.Value})
		}
		rec.Entities = append(rec.Entities, ent)
	}
	if len(rec.Entities) > 0 {
		first := rec.Entities[0]
		rec.RegistrationDate, rec.AdditionalInfo, rec.GeoInfo = first.RegistrationDate, first.AdditionalInfo, first.GeoInfo
	}
	for _, d := range m.DocTypes {
		rec.DocTypes = append(rec.DocTypes, registry.IDParts{Scheme: d.Scheme, Value: d.Value})
	}
	return rec
}

// optional returns nil for "" and &s otherwise, so that JSON shows null for absent text.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
