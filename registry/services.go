package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

// CacheServices is the cache kind an Observer hears about for Services calls.
const CacheServices = "services"

// maxListedDocTypes bounds how many of the SMP's document types the not_found message
// of a Services call with an unlisted docType names.
const maxListedDocTypes = 10

// ServicesResult is the answer to a services lookup: every document type the
// participant's SMP lists (or the one asked for), with its processes and endpoints.
type ServicesResult struct {
	// ParticipantID is the identifier in "<scheme>:<value>" form, value lower-case.
	ParticipantID string `json:"participantId" jsonschema:"the participant identifier in <scheme>:<value> form, value lower-case, e.g. 0208:0677424046"`
	// Network names the Peppol network that answered (production, test or demo); the
	// adapters set it on a copy, the registry leaves it empty.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network that answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	// SMP says where the services were read.
	SMP ServicesSMP `json:"smp" jsonschema:"the participant's SMP, where the services were read"`
	// ServiceCount is the number of document types the ServiceGroup lists, which
	// exceeds len(Services) when one document type was asked for.
	ServiceCount int `json:"serviceCount" jsonschema:"number of document types the SMP lists for the participant; more than the services shown when one document type was asked for"`
	// Services are the document types in the SMP's order.
	Services []Service `json:"services" jsonschema:"the document types the participant can receive, in the SMP's order, each with its processes and endpoints; only the one asked for when docType was given"`
	// Warnings summarise the warnings of the services and endpoints (one per code) and
	// add those about the participant identifier.
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things a caller should know, one per code, summarising the services' and endpoints' warnings (e.g. certificate_expiring, endpoint_unavailable); absent when there are none"`
}

// ServicesSMP is the SMP a ServicesResult was read from.
type ServicesSMP struct {
	URL      string `json:"url" jsonschema:"the participant's ServiceGroup URL at its SMP, the identifier percent-encoded"`
	Hostname string `json:"hostname" jsonschema:"host name of the SMP"`
}

// Service is one document type with the processes and endpoints its ServiceMetadata
// gives.
type Service struct {
	// DocumentType is the document type with its code-list name and state.
	DocumentType CodeInfo `json:"documentType" jsonschema:"the document type, with its readable name and state from the Peppol code list"`
	// Processes is empty when the ServiceMetadata could not be fetched (see Warnings).
	Processes []ProcessInfo `json:"processes" jsonschema:"the business processes the document type is received in, each with its endpoints; empty when the service metadata could not be fetched (see warnings)"`
	// Warnings are about the document type and its ServiceMetadata; endpoint warnings
	// are on the endpoints.
	Warnings []Warning `json:"warnings,omitempty" jsonschema:"things to know about this document type, e.g. document_type_deprecated or endpoint_unavailable (its service metadata could not be fetched); absent when there are none"`
}

// CodeInfo is a document type or process identifier with what the Peppol code list
// (package peppol/codelist) says about it.
type CodeInfo struct {
	ID          string `json:"id" jsonschema:"the identifier with its scheme, <scheme>::<value>, as the SMP publishes it"`
	Scheme      string `json:"scheme" jsonschema:"the identifier scheme, e.g. busdox-docid-qns or cenbii-procid-ubl"`
	Value       string `json:"value" jsonschema:"the identifier value"`
	Name        string `json:"name,omitempty" jsonschema:"readable name from the Peppol code list, e.g. Peppol BIS Billing UBL Invoice V3; absent for identifiers the list does not have"`
	State       string `json:"state,omitempty" jsonschema:"state in the Peppol code list: active, deprecated (still works, on its way out) or removed (no longer allowed); absent for identifiers the list does not have"`
	NonStandard bool   `json:"nonStandard" jsonschema:"true when the Peppol code list does not have the identifier (a community-specific or mistyped id)"`
	Category    string `json:"category,omitempty" jsonschema:"for document types: the kind of business document, e.g. Invoice, Credit Note, Order; absent when unknown"`
}

// ProcessInfo is one process of a service with its endpoints.
type ProcessInfo struct {
	Process   CodeInfo       `json:"process" jsonschema:"the process identifier, with its readable name and state from the Peppol code list"`
	Endpoints []EndpointInfo `json:"endpoints" jsonschema:"the access point endpoints that receive the document type in this process"`
}

// EndpointInfo is one access point endpoint with checks applied.
type EndpointInfo struct {
	TransportProfile TransportProfileInfo `json:"transportProfile" jsonschema:"the transport profile, with its state from the Peppol code list"`
	URL              string               `json:"url" jsonschema:"the access point's endpoint URL"`
	ActivationDate   *time.Time           `json:"activationDate" jsonschema:"when the endpoint becomes active (RFC 3339); null when not given"`
	ExpirationDate   *time.Time           `json:"expirationDate" jsonschema:"when the endpoint expires (RFC 3339); null when not given"`
	Certificate      *CertificateInfo     `json:"certificate" jsonschema:"the access point's certificate, decoded and checked; null when the SMP gives none that can be read"`
	Warnings         []Warning            `json:"warnings,omitempty" jsonschema:"things to know about this endpoint, e.g. certificate_expired, certificate_expiring, service_not_yet_active, endpoint_not_https, transport_profile_removed; absent when there are none"`
}

// TransportProfileInfo is a transport profile with what the Peppol code list says
// about it.
type TransportProfileInfo struct {
	ID          string `json:"id" jsonschema:"the transport profile identifier, e.g. peppol-transport-as4-v2_0"`
	Name        string `json:"name,omitempty" jsonschema:"readable name, e.g. Peppol AS4 profile 2.0; absent for profiles the code list does not have"`
	State       string `json:"state,omitempty" jsonschema:"state in the Peppol code list: active, deprecated or removed (no longer allowed); absent for profiles the list does not have"`
	Protocol    string `json:"protocol,omitempty" jsonschema:"the protocol: AS4, AS2 or START; absent for profiles the code list does not have"`
	NonStandard bool   `json:"nonStandard" jsonschema:"true when the Peppol code list does not have the profile"`
}

// CertificateInfo is an endpoint's Certificate with the checks applied to it; the
// embedded Certificate's fields render first, as if declared here.
type CertificateInfo struct {
	Certificate
	// DaysRemaining is negative when the certificate has expired.
	DaysRemaining int  `json:"daysRemaining" jsonschema:"whole days until the certificate expires, rounded down; negative when it has expired"`
	Expired       bool `json:"expired" jsonschema:"true when the certificate's validity has ended: senders will refuse this access point"`
	// PeppolCA reports whether the issuer's name is one of the OpenPeppol access point
	// CAs (G2 or G3, production or test); the signature is not verified.
	PeppolCA bool `json:"peppolCA" jsonschema:"true when the issuer is named like an OpenPeppol access point CA (G3 or G2, production or test); the signature chain is not verified"`
	// PeppolCAName is the CA's common name when PeppolCA is true.
	PeppolCAName string `json:"peppolCAName,omitempty" jsonschema:"the OpenPeppol CA's name, e.g. PEPPOL ACCESS POINT CA - G3 (production) or PEPPOL ACCESS POINT TEST CA - G3 (test network); absent when peppolCA is false"`
}

// servicesFetch is what one upstream round of a Services call produced: an answer (a
// result or a not_found *Error) with its ttl, or a failure.
type servicesFetch struct {
	r   *ServicesResult
	err error // *Error: CodeNotFound is an answer, CodeLookupFailed a failure
	ttl time.Duration
}

// Services lists what id can receive: every document type its SMP's ServiceGroup lists,
// each with the processes and endpoints of its ServiceMetadata, the ServiceMetadata
// fetched concurrently (at most Config.ServiceConcurrency at once per call, within
// the per-host cap). With docType ("<scheme>::<value>") only that document type is
// fetched. The document types, processes and transport profiles carry their Peppol
// code-list names and states, and the endpoints the warnings of the checks in
// insight.go (certificate, dates, URL, profile). Answers are cached and coalesced like
// Lookup's, keyed by id and docType. The Directory is not asked: the Directory checks
// are on Lookup's record.
//
// Errors (*Error): CodeInvalidParticipantID for a zero id; CodeInvalidRequest for a
// docType that is not "<scheme>::<value>"; CodeNotFound when the SML does not list id,
// when its SMP answers 404 for it, or when docType is given and the SMP does not list
// it (the message names the types it lists); CodeLookupFailed when DNS or the
// ServiceGroup fetch failed, the SML has no usable record, or ctx ended first, unless
// a positive answer at most StaleFor old is cached (then it is returned with
// Freshness.Stale). A ServiceMetadata that cannot be fetched is not an error: that
// service carries WarnEndpointUnavailable or WarnEndpointNotFound and no processes.
func (l *Live) Services(ctx context.Context, id peppol.ParticipantID, docType string) (*ServicesResult, Freshness, error) {
	if id.IsZero() || id.ICD == "" || id.Value == "" {
		return nil, Freshness{}, &Error{Code: CodeInvalidParticipantID, Message: "the participant identifier is empty; use <4-digit scheme>:<value>, e.g. 0208:0677424046"}
	}
	id.Value = strings.ToLower(id.Value)
	var filter *smp.Identifier
	if docType = strings.TrimSpace(docType); docType != "" {
		d, err := smp.ParseIdentifier(docType)
		if err != nil || d.Scheme == "" {
			return nil, Freshness{}, &Error{Code: CodeInvalidRequest, Message: "docType must be a document type identifier with its scheme, <scheme>::<value>, e.g. busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", Err: err}
		}
		filter = &d
	}
	key := id.String()
	ckey := key + "\x00" + docType
	cached, hit := l.services.get(ckey)
	if hit {
		if age := l.cfg.Now().Sub(cached.fetched); age < cached.ttl {
			l.cfg.Observer.Cache(CacheServices, CacheHit)
			return cached.val, Freshness{Cached: true, Age: age, TTL: cached.ttl}, cached.err
		}
	}
	r, err := l.servicesFlights.do(ctx, ckey, l.cfg.LookupTimeout, func(fctx context.Context) servicesFetch {
		r := l.fetchServices(fctx, id, filter)
		if ErrorCode(r.err) != CodeLookupFailed && !abandoned(fctx) {
			l.services.put(ckey, cacheEntry[*ServicesResult]{val: r.r, err: r.err, fetched: l.cfg.Now(), ttl: r.ttl})
		}
		return r
	})
	if err != nil {
		l.cfg.Observer.Cache(CacheServices, CacheMiss)
		return nil, Freshness{}, &Error{Code: CodeLookupFailed, Message: "the services lookup of " + key + " was cancelled before the Peppol network answered; retry with exponential backoff", Err: err}
	}
	if ErrorCode(r.err) == CodeLookupFailed {
		if hit && cached.err == nil && cached.val != nil {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.WarnContext(ctx, "services lookup failed, serving stale answer", "participant", key, "age", age, "err", r.err)
				l.cfg.Observer.Cache(CacheServices, CacheStale)
				return cached.val, Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Observer.Cache(CacheServices, CacheMiss)
		return nil, Freshness{}, r.err
	}
	l.cfg.Observer.Cache(CacheServices, CacheMiss)
	return r.r, Freshness{TTL: r.ttl}, r.err
}

// fetchServices runs one upstream round of a Services call: SML, ServiceGroup, then
// the ServiceMetadata of every listed document type (or of filter) concurrently.
func (l *Live) fetchServices(ctx context.Context, id peppol.ParticipantID, filter *smp.Identifier) servicesFetch {
	key := id.String()
	failed := func(what, advice string, wait time.Duration, err error) servicesFetch {
		if advice == "" {
			advice = "retry with exponential backoff"
		}
		return servicesFetch{err: &Error{Code: CodeLookupFailed, Message: "the Peppol network could not be queried for " + key + ": " + what + "; " + advice, RetryAfter: wait, Err: err}}
	}
	notFound := func(msg string) servicesFetch {
		return servicesFetch{err: &Error{Code: CodeNotFound, Message: msg}, ttl: l.cfg.NegativeTTL}
	}

	start := time.Now()
	res, err := l.cfg.Resolver.Lookup(ctx, id)
	l.observeCall(ctx, UpstreamSML, start, err, slog.String("participant", id.String()))
	switch {
	case errors.Is(err, sml.ErrNotRegistered):
		msg := "the SML answered that " + key + " is not registered, so it has no SMP and cannot receive documents over Peppol (a Peppol Directory card, if any, would not change that; the Directory is not asked for services); check the scheme and number, do not retry"
		if notes := identifierNotes(id); len(notes) > 0 {
			msg += "; note: " + strings.Join(notes, "; ")
		}
		return notFound(msg)
	case errors.Is(err, sml.ErrNoSMPService):
		return servicesFetch{err: &Error{Code: CodeLookupFailed, Message: "the SML has records for " + key + " but none points to a usable SMP, so its services cannot be read; retry later", Err: err}}
	case err != nil:
		return failed("the SML (DNS) did not give a definite answer", "", 0, err)
	}
	base := res.BaseURL
	out := &ServicesResult{ParticipantID: key, SMP: ServicesSMP{URL: smp.ServiceGroupURL(base, id)}, Services: []Service{}}
	if u, err := url.Parse(base); err == nil {
		out.SMP.Hostname = u.Hostname()
	}
	start = time.Now()
	sg, err := l.smp.ServiceGroup(ctx, base, id)
	l.observeCall(ctx, UpstreamSMP, start, err, slog.String("participant", id.String()))
	if err != nil {
		if errors.Is(err, smp.ErrNotFound) {
			return notFound("the SML points " + key + " to an SMP that does not know it, so it cannot receive documents there; do not retry until its registration is fixed")
		}
		what, advice, wait := smpFailure(err)
		return failed(what, advice, wait, err)
	}
	out.ServiceCount = len(sg.DocumentTypes)
	docs := sg.DocumentTypes
	if filter != nil {
		i := indexDocType(docs, *filter)
		if i < 0 {
			return notFound(unlistedDocType(key, filter.String(), docs))
		}
		docs = docs[i : i+1]
	}

	out.Services = make([]Service, len(docs))
	degraded := l.fetchServiceMetadata(ctx, id, base, docs, out.Services)
	out.Warnings = summarise(out.Services)
	for _, n := range identifierNotes(id) {
		out.Warnings = append(out.Warnings, Warning{Code: WarnIdentifier, Message: n})
	}
	ttl := l.cfg.PositiveTTL
	if degraded {
		ttl = min(ttl, l.cfg.WarningTTL)
	}
	var instants []time.Time
	for _, sv := range out.Services {
		for _, p := range sv.Processes {
			for _, e := range p.Endpoints {
				instants = append(instants, endpointInstants(e.ActivationDate, e.ExpirationDate, e.Certificate.cert())...)
			}
		}
	}
	return servicesFetch{r: out, ttl: untilDateChange(ttl, l.cfg.Now(), instants)}
}

// fetchServiceMetadata fills services[i] for docs[i], fetching at most
// Config.ServiceConcurrency ServiceMetadata at once. It reports whether one failed for
// a reason other than 404 (the answer is degraded and cached briefly).
func (l *Live) fetchServiceMetadata(ctx context.Context, id peppol.ParticipantID, base string, docs []smp.Identifier, services []Service) (degraded bool) {
	now := l.cfg.Now()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, l.cfg.ServiceConcurrency)
	)
	for i, doc := range docs {
		services[i] = Service{DocumentType: documentTypeInfo(doc), Processes: []ProcessInfo{}}
		services[i].Warnings = documentTypeWarnings(services[i].DocumentType)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				degraded = true
				mu.Unlock()
				services[i].Warnings = append(services[i].Warnings, Warning{Code: WarnEndpointUnavailable, Message: "the lookup's deadline passed before this document type's service metadata was asked for, so its endpoints are missing from this answer; retry later"})
				return
			}
			start := time.Now()
			sm, err := l.smp.ServiceMetadata(ctx, base, id, doc)
			<-sem
			l.observeCall(ctx, UpstreamSMP, start, err, slog.String("participant", id.String()))
			switch {
			case errors.Is(err, smp.ErrNotFound):
				services[i].Warnings = append(services[i].Warnings, Warning{Code: WarnEndpointNotFound, Message: "the SMP lists this document type but has no service metadata for it, so the participant cannot receive it; its SMP provider must fix the registration"})
			case err != nil:
				mu.Lock()
				degraded = true
				mu.Unlock()
				services[i].Warnings = append(services[i].Warnings, Warning{Code: WarnEndpointUnavailable, Message: endpointWarning(err)})
			default:
				services[i].Processes = processInfos(sm, now)
				for j := range services[i].Processes {
					for k := range services[i].Processes[j].Endpoints {
						e := &services[i].Processes[j].Endpoints[k]
						e.Warnings = append(e.Warnings, caNetworkWarnings(e.Certificate.cert(), l.cfg.Network)...)
					}
				}
			}
		}()
	}
	wg.Wait()
	return degraded
}

// processInfos maps the processes and endpoints of sm, with the endpoint checks
// applied at now.
func processInfos(sm *smp.ServiceMetadata, now time.Time) []ProcessInfo {
	out := make([]ProcessInfo, 0, len(sm.Processes))
	for _, p := range sm.Processes {
		pi := ProcessInfo{Process: processInfo(p.ID), Endpoints: make([]EndpointInfo, 0, len(p.Endpoints))}
		for _, ep := range p.Endpoints {
			pi.Endpoints = append(pi.Endpoints, endpointInfo(ep, now))
		}
		out = append(out, pi)
	}
	return out
}

// indexDocType returns the position of want in docs, or -1. Schemes compare ignoring
// case, values exactly (document type values are case-sensitive).
func indexDocType(docs []smp.Identifier, want smp.Identifier) int {
	for i, d := range docs {
		if d.Value == want.Value && strings.EqualFold(d.Scheme, want.Scheme) {
			return i
		}
	}
	return -1
}

// unlistedDocType is the not_found message for a docType the SMP does not list.
func unlistedDocType(key, docType string, docs []smp.Identifier) string {
	if len(docs) == 0 {
		return "the SMP of " + key + " lists no document types, so it cannot receive " + docType
	}
	names := make([]string, 0, min(len(docs), maxListedDocTypes))
	for _, d := range docs[:min(len(docs), maxListedDocTypes)] {
		n := d.String()
		if info := documentTypeInfo(d); info.Name != "" {
			n = info.Name + " (" + n + ")"
		}
		names = append(names, n)
	}
	msg := fmt.Sprintf("the SMP of %s does not list %s, so the participant cannot receive it over Peppol; it lists %d document type(s): %s", key, docType, len(docs), strings.Join(names, "; "))
	if len(docs) > maxListedDocTypes {
		msg += fmt.Sprintf("; and %d more", len(docs)-maxListedDocTypes)
	}
	return msg
}

// summarise returns one warning per code found on services and their endpoints, in
// order of first appearance, naming where it occurs and how often.
func summarise(services []Service) []Warning {
	type seen struct {
		first Warning
		where string
		count int
	}
	var (
		order []string
		byKey = map[string]*seen{}
	)
	add := func(w Warning, where string) {
		s, ok := byKey[w.Code]
		if !ok {
			s = &seen{first: w, where: where}
			byKey[w.Code] = s
			order = append(order, w.Code)
		}
		s.count++
	}
	for _, s := range services {
		name := s.DocumentType.Name
		if name == "" {
			name = s.DocumentType.ID
		}
		for _, w := range s.Warnings {
			add(w, "document type "+name)
		}
		for _, p := range s.Processes {
			for _, e := range p.Endpoints {
				for _, w := range e.Warnings {
					add(w, "endpoint "+e.URL+" for "+name)
				}
			}
		}
	}
	out := make([]Warning, 0, len(order))
	for _, code := range order {
		s := byKey[code]
		msg := s.where + ": " + s.first.Message
		if s.count > 1 {
			msg += fmt.Sprintf(" (%d places in all; see the services)", s.count)
		}
		out = append(out, Warning{Code: code, Message: msg})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
