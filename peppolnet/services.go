package peppolnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppol/smpsig"
	"github.com/peppolgate/peppolgate/registry"
)

// maxListedDocTypes bounds how many of the SMP's document types the not_found message
// of a Services call with an unlisted docType names.
const maxListedDocTypes = 10

// servicesFetch is what one upstream round of a Services call produced: an answer (a
// result or a not_found *Error) with its ttl, or a failure. With a fleet, the answer
// may be another replica's (shared, fetched at fetched).
type servicesFetch struct {
	r       *registry.ServicesResult
	err     error // *Error: CodeNotFound is an answer, CodeLookupFailed a failure
	ttl     time.Duration
	fetched time.Time
	shared  bool
}

// Services lists what id can receive: every document type its SMP's ServiceGroup lists,
// each with the processes and endpoints of its ServiceMetadata, the ServiceMetadata
// fetched concurrently (at most Config.ServiceConcurrency at once per call, within
// the per-host cap). With docType ("<scheme>::<value>") only that document type is
// fetched. The document types, processes and transport profiles carry their Peppol
// code-list names and states, and the endpoints the warnings of the checks in
// insight.go (certificate, dates, URL, profile). Answers are cached and coalesced like
// Lookup's (with Config.Fleet, across replicas), keyed by id and docType. The
// Directory is not asked: the Directory checks are on Lookup's record.
//
// Errors (*Error): CodeInvalidParticipantID for a zero id; CodeInvalidRequest for a
// docType that is not "<scheme>::<value>"; CodeNotFound when the SML does not list id,
// when its SMP answers 404 for it, or when docType is given and the SMP does not list
// it (the message names the types it lists); CodeLookupFailed when DNS or the
// ServiceGroup fetch failed, the SML has no usable record, or ctx ended first, unless
// a positive answer at most StaleFor old is cached (then it is returned with
// Freshness.Stale). A ServiceMetadata that cannot be fetched is not an error: that
// service carries WarnEndpointUnavailable or WarnEndpointNotFound and no processes.
func (l *Registry) Services(ctx context.Context, id peppol.ParticipantID, docType string) (_ *registry.ServicesResult, _ registry.Freshness, err error) {
	defer func() { err = withCause(err) }() // the cause, for answers in other words
	id, key, err := participantKey(id)
	if err != nil {
		return nil, registry.Freshness{}, err
	}
	var filter *smp.Identifier
	if docType = strings.TrimSpace(docType); docType != "" {
		d, err := smp.ParseIdentifier(docType)
		if err != nil || d.Scheme == "" {
			return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeInvalidRequest, Message: "docType must be a document type identifier with its scheme, <scheme>::<value>, e.g. busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", Err: err}
		}
		filter = &d
	}
	ckey := key + "\x00" + docType
	// A caller joining a fetch in flight here reads the L1 alone (sharedflight.go).
	var (
		cached cacheEntry[*registry.ServicesResult]
		hit    bool
	)
	joined := l.servicesFlights.busy(ckey)
	if joined {
		cached, hit = l.services.local(ckey)
	} else {
		cached, hit = l.services.find(ctx, ckey)
	}
	if hit {
		if age := l.cfg.Now().Sub(cached.fetched); age < cached.ttl {
			l.cfg.Observer.Cache(registry.CacheServices, registry.CacheHit)
			return cached.val, registry.Freshness{Cached: true, Age: age, TTL: cached.ttl}, cached.err
		}
	}
	r, err := l.servicesFlights.do(ctx, ckey, l.cfg.LookupTimeout, func(fctx context.Context) servicesFetch {
		e, shared, err := l.services.once(fctx, ckey, func(fctx context.Context) (cacheEntry[*registry.ServicesResult], bool) {
			r := l.fetchServices(fctx, id, filter)
			e := cacheEntry[*registry.ServicesResult]{val: r.r, err: r.err, fetched: l.cfg.Now(), ttl: r.ttl}
			return e, registry.ErrorCode(r.err) != registry.CodeLookupFailed && !abandoned(fctx)
		})
		if err != nil {
			return servicesFetch{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the services lookup of " + key + " was cancelled while another replica fetched it; retry with exponential backoff", Err: err}}
		}
		return servicesFetch{r: e.val, err: e.err, ttl: e.ttl, fetched: e.fetched, shared: shared}
	})
	if err != nil {
		l.cfg.Observer.Cache(registry.CacheServices, registry.CacheMiss)
		return nil, registry.Freshness{}, &registry.Error{Code: registry.CodeLookupFailed, Message: "the services lookup of " + key + " was cancelled before the Peppol network answered; retry with exponential backoff", Err: err}
	}
	if registry.ErrorCode(r.err) == registry.CodeLookupFailed {
		if joined && !hit {
			cached, hit = l.services.find(ctx, ckey) // the shared entry, to serve stale
		}
		if hit && cached.err == nil && cached.val != nil {
			if age := l.cfg.Now().Sub(cached.fetched); age <= l.cfg.StaleFor {
				l.cfg.Logger.WarnContext(ctx, "services lookup failed, serving stale answer", "participant", key, "age", age, "err", r.err)
				l.cfg.Observer.Cache(registry.CacheServices, registry.CacheStale)
				return cached.val, registry.Freshness{Cached: true, Stale: true, Age: age, TTL: cached.ttl}, nil
			}
		}
		l.cfg.Observer.Cache(registry.CacheServices, registry.CacheMiss)
		return nil, registry.Freshness{}, r.err
	}
	if r.shared {
		// Another replica fetched it while this one waited.
		l.cfg.Observer.Cache(registry.CacheServices, registry.CacheHit)
		return r.r, registry.Freshness{Cached: true, Age: l.cfg.Now().Sub(r.fetched), TTL: r.ttl}, r.err
	}
	l.cfg.Observer.Cache(registry.CacheServices, registry.CacheMiss)
	return r.r, registry.Freshness{TTL: r.ttl}, r.err
}

// fetchServices runs one upstream round of a Services call: SML, ServiceGroup, then
// the ServiceMetadata of every listed document type (or of filter) concurrently.
func (l *Registry) fetchServices(ctx context.Context, id peppol.ParticipantID, filter *smp.Identifier) servicesFetch {
	key := id.String()
	failed := func(what, advice string, wait time.Duration, err error) servicesFetch {
		if advice == "" {
			advice = "retry with exponential backoff"
		}
		return servicesFetch{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the Peppol network could not be queried for " + key + ": " + what + "; " + advice, RetryAfter: wait, Err: err}}
	}
	notFound := func(msg string) servicesFetch {
		return servicesFetch{err: &registry.Error{Code: registry.CodeNotFound, Message: msg}, ttl: l.cfg.NegativeTTL}
	}

	start := time.Now()
	res, err := l.cfg.Resolver.Lookup(ctx, id)
	l.observeCall(ctx, registry.UpstreamSML, start, err, slog.String("participant", id.String()))
	switch {
	case errors.Is(err, sml.ErrNotRegistered):
		msg := "the SML answered that " + key + " is not registered, so it has no SMP and cannot receive documents over Peppol (a Peppol Directory card, if any, would not change that; the Directory is not asked for services); check the scheme and number, do not retry"
		if notes := peppol.Notes(id); len(notes) > 0 {
			msg += "; note: " + strings.Join(notes, "; ")
		}
		return notFound(msg)
	case errors.Is(err, sml.ErrNoSMPService):
		return servicesFetch{err: &registry.Error{Code: registry.CodeLookupFailed, Message: "the SML has records for " + key + " but none points to a usable SMP, so its services cannot be read; retry later", Err: err}}
	case err != nil:
		return failed(smlFailure(err), "", 0, err)
	}
	base := res.BaseURL
	out := &registry.ServicesResult{ParticipantID: key, SMP: registry.ServicesSMP{URL: smp.ServiceGroupURL(base, id)}, Services: []registry.Service{}}
	if u, err := url.Parse(base); err == nil {
		out.SMP.Hostname = u.Hostname()
	}
	start = time.Now()
	sg, err := l.smp.ServiceGroup(ctx, base, id)
	l.observeCall(ctx, registry.UpstreamSMP, start, err, slog.String("participant", id.String()))
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

	out.Services = make([]registry.Service, len(docs))
	sigs := make([]*registry.Signature, len(docs))
	degraded := l.fetchServiceMetadata(ctx, id, base, docs, out.Services, sigs)
	out.SMP.Signature = firstNotValid(sigs)
	out.Warnings = summarise(out.Services)
	for _, n := range peppol.Notes(id) {
		out.Warnings = append(out.Warnings, registry.Warning{Code: registry.WarnIdentifier, Message: n})
	}
	ttl := l.cfg.PositiveTTL
	if degraded {
		ttl = min(ttl, l.cfg.WarningTTL)
	}
	var instants []time.Time
	for _, sv := range out.Services {
		for _, p := range sv.Processes {
			for _, e := range p.Endpoints {
				instants = append(instants, endpointInstants(e.ActivationDate, e.ExpirationDate, certOf(e.Certificate))...)
			}
		}
	}
	return servicesFetch{r: out, ttl: untilDateChange(ttl, l.cfg.Now(), instants)}
}

// fetchServiceMetadata fills services[i] for docs[i], fetching at most
// Config.ServiceConcurrency ServiceMetadata at once. It reports whether one failed for
// a reason other than 404 (the answer is degraded and cached briefly). sigs[i] is set
// to the verdict on docs[i]'s signature when its ServiceMetadata was read.
func (l *Registry) fetchServiceMetadata(ctx context.Context, id peppol.ParticipantID, base string, docs []smp.Identifier, services []registry.Service, sigs []*registry.Signature) (degraded bool) {
	now := l.cfg.Now()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, l.cfg.ServiceConcurrency)
	)
	for i, doc := range docs {
		services[i] = registry.Service{DocumentType: documentTypeInfo(doc), Processes: []registry.ProcessInfo{}}
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
				services[i].Warnings = append(services[i].Warnings, registry.Warning{Code: registry.WarnEndpointUnavailable, Message: "the lookup's deadline passed before this document type's service metadata was asked for, so its endpoints are missing from this answer; retry later"})
				return
			}
			start := time.Now()
			sm, err := l.smp.ServiceMetadata(ctx, base, id, doc)
			<-sem
			l.observeCall(ctx, registry.UpstreamSMP, start, err, slog.String("participant", id.String()))
			switch {
			case errors.Is(err, smp.ErrNotFound):
				services[i].Warnings = append(services[i].Warnings, registry.Warning{Code: registry.WarnEndpointNotFound, Message: "the SMP lists this document type but has no service metadata for it, so the participant cannot receive it; its SMP provider must fix the registration"})
			case err != nil:
				mu.Lock()
				degraded = true
				mu.Unlock()
				services[i].Warnings = append(services[i].Warnings, registry.Warning{Code: registry.WarnEndpointUnavailable, Message: endpointWarning(err)})
			default:
				var sigWarnings []registry.Warning
				sigs[i], sigWarnings = l.signatureOf(ctx, sm, "this document type", now)
				services[i].Warnings = append(services[i].Warnings, sigWarnings...)
				services[i].Processes = processInfos(sm, now)
				for j := range services[i].Processes {
					for k := range services[i].Processes[j].Endpoints {
						e := &services[i].Processes[j].Endpoints[k]
						if e.Certificate != nil {
							e.Warnings = append(e.Warnings, l.checkAPChain(ctx, sm.Processes[j].Endpoints[k].Certificate, &e.Certificate.Certificate, e.Certificate, now)...)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return degraded
}

// firstNotValid returns the first verdict that is not valid, else the first; nil when
// there is none.
func firstNotValid(sigs []*registry.Signature) *registry.Signature {
	var first *registry.Signature
	for _, s := range sigs {
		if s == nil {
			continue
		}
		if s.Status != string(smpsig.Valid) {
			return s
		}
		if first == nil {
			first = s
		}
	}
	return first
}

// processInfos maps the processes and endpoints of sm, with the endpoint checks
// applied at now.
func processInfos(sm *smp.ServiceMetadata, now time.Time) []registry.ProcessInfo {
	out := make([]registry.ProcessInfo, 0, len(sm.Processes))
	for _, p := range sm.Processes {
		pi := registry.ProcessInfo{Process: processInfo(p.ID), Endpoints: make([]registry.EndpointInfo, 0, len(p.Endpoints))}
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
func summarise(services []registry.Service) []registry.Warning {
	type seen struct {
		first registry.Warning
		where string
		count int
	}
	var (
		order []string
		byKey = map[string]*seen{}
	)
	add := func(w registry.Warning, where string) {
		s, ok := byKey[w.Code]
		if !ok {
			s = &seen{first: w, where: where}
			byKey[w.Code] = s
			order = append(order, w.Code)
		}
		s.count++
	}
	for _, s := range services {
		// What the SMP wrote is quoted and capped in the message (docs/INTERFACE.md §2.6).
		name := s.DocumentType.Name
		if name == "" {
			name = untrusted.Quote(s.DocumentType.ID)
		}
		for _, w := range s.Warnings {
			add(w, "document type "+name)
		}
		for _, p := range s.Processes {
			for _, e := range p.Endpoints {
				for _, w := range e.Warnings {
					add(w, "endpoint "+untrusted.Short(e.URL)+" for "+name)
				}
			}
		}
	}
	out := make([]registry.Warning, 0, len(order))
	for _, code := range order {
		s := byKey[code]
		msg := s.where + ": " + s.first.Message
		if s.count > 1 {
			msg += fmt.Sprintf(" (%d places in all; see the services)", s.count)
		}
		out = append(out, registry.Warning{Code: code, Message: msg})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
