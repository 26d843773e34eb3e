package peppolnet

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

func TestLookupFullRecord(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	ds := n.Dataset()
	want := ds.MustLookup(netsim.KnownBelgian)

	p, fr, err := l.Lookup(context.Background(), mustID(t, netsim.KnownBelgian))
	if err != nil {
		t.Fatal(err)
	}
	if fr.Cached || fr.Stale || fr.TTL != registry.DefaultPositiveTTL {
		t.Errorf("freshness = %+v, want fresh with TTL %v", fr, registry.DefaultPositiveTTL)
	}
	if p.ParticipantID != netsim.KnownBelgian || len(withoutInsight(p.Warnings)) != 0 {
		t.Errorf("id %q warnings %v", p.ParticipantID, p.Warnings)
	}

	d := p.Directory
	if d == nil {
		t.Fatal("directory = nil")
	}
	card := want.Card
	if d.ParticipantID != (registry.IDParts{Scheme: "0208", Value: "0677424046"}) {
		t.Errorf("directory.participantId = %+v", d.ParticipantID)
	}
	if d.Name != card.Entities[0].Names[0].Name || d.Name != "Vandelanotte Installaties NV" || d.CountryCode != "BE" {
		t.Errorf("name %q country %q", d.Name, d.CountryCode)
	}
	if len(d.Entities) != len(card.Entities) {
		t.Fatalf("%d entities, want %d", len(d.Entities), len(card.Entities))
	}
	e := d.Entities[0]
	if len(e.Names) != len(card.Entities[0].Names) || e.Names[0] != (registry.Name{Name: "Vandelanotte Installaties NV", Language: "nl"}) {
		t.Errorf("names = %+v, want %+v", e.Names, card.Entities[0].Names)
	}
	for i, nm := range card.Entities[0].Names {
		if i < len(e.Names) && e.Names[i] != (registry.Name{Name: nm.Name, Language: nm.Language}) {
			t.Errorf("name %d = %+v, want %+v", i, e.Names[i], nm)
		}
	}
	if len(e.Identifiers) != 1 || e.Identifiers[0] != (registry.IDParts{Scheme: "VAT", Value: "BE0677424046"}) {
		t.Errorf("identifiers = %+v", e.Identifiers)
	}
	if len(e.Websites) != len(card.Entities[0].Websites) {
		t.Errorf("websites = %v, want %v", e.Websites, card.Entities[0].Websites)
	}
	checkOptional(t, "registrationDate", d.RegistrationDate, card.Entities[0].RegDate)
	checkOptional(t, "geoInfo", d.GeoInfo, card.Entities[0].GeoInfo)
	checkOptional(t, "additionalInfo", d.AdditionalInfo, card.Entities[0].AdditionalInfo)
	if len(d.DocTypes) != len(card.DocTypes) || len(d.DocTypes) == 0 || d.DocTypes[0] != (registry.IDParts{Scheme: card.DocTypes[0].Scheme, Value: card.DocTypes[0].Value}) {
		t.Errorf("docTypes = %+v, want %+v", d.DocTypes, card.DocTypes)
	}

	s := p.SMP
	if s == nil {
		t.Fatal("smp = nil")
	}
	wantURL := strings.TrimSuffix(n.SMPBaseURL(want.SMPHost), "/") + "/iso6523-actorid-upis%3A%3A0208%3A0677424046"
	if s.URL != wantURL || s.Hostname != "127.0.0.1" {
		t.Errorf("smp url %q host %q, want %q 127.0.0.1", s.URL, s.Hostname, wantURL)
	}
	if s.ServiceCount != len(want.Services) {
		t.Errorf("serviceCount = %d, want %d", s.ServiceCount, len(want.Services))
	}
	ep := s.Endpoint
	if ep == nil {
		t.Fatal("endpoint = nil")
	}
	if ep.DocumentType != bisBillingInvoice.String() || ep.TransportProfile != smp.TransportAS4 {
		t.Errorf("endpoint doc %q transport %q", ep.DocumentType, ep.TransportProfile)
	}
	var wantEP *netsim.Endpoint
	for _, svc := range want.Services {
		if svc.DocumentType.URI() == bisBillingInvoice.String() {
			wantEP = &svc.Processes[0].Endpoints[0]
		}
	}
	if wantEP == nil {
		t.Fatal("dataset: Belgian participant does not accept the BIS invoice")
	}
	ap := ds.AccessPoints[wantEP.AccessPoint]
	if ep.URL != wantEP.Address || ep.Certificate == nil || ep.Certificate.Subject != ap.Subject() || ep.Certificate.SerialNumber != strconv.FormatInt(ap.Serial, 10) {
		t.Errorf("endpoint url %q cert %+v, want %q %q serial %d", ep.URL, ep.Certificate, wantEP.Address, ap.Subject(), ap.Serial)
	}
	if !ep.Certificate.NotAfter.Equal(ap.NotAfter) || len(ep.Certificate.SHA256) != 64 {
		t.Errorf("cert notAfter %v sha256 %q, want %v", ep.Certificate.NotAfter, ep.Certificate.SHA256, ap.NotAfter)
	}
}

func checkOptional(t *testing.T, field string, got *string, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s = %q, want null", field, *got)
	case want != "" && (got == nil || *got != want):
		t.Errorf("%s = %v, want %q", field, got, want)
	}
}

func TestLookupNullRules(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	tests := []struct {
		id          string
		wantCode    registry.Code
		wantDir     bool
		wantSMP     bool
		wantEP      bool
		wantWarning string
	}{
		{id: netsim.KnownDirectoryOnly, wantDir: true},
		{id: netsim.KnownSMLOnly, wantSMP: true, wantEP: true, wantWarning: registry.WarnDirectoryCardMissing},
		{id: netsim.KnownSMPNotFound, wantDir: true, wantSMP: true, wantWarning: registry.WarnSMPNotFound},
		{id: netsim.KnownRedirect, wantDir: true, wantSMP: true, wantEP: true},
		{id: netsim.KnownGLN, wantDir: true, wantSMP: true, wantEP: true},
		{id: netsim.KnownAustralian, wantDir: true, wantSMP: true, wantEP: true},
		{id: "0208:0000000097", wantCode: registry.CodeNotFound},
		{id: "9915:nobody-here", wantCode: registry.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			p, _, err := l.Lookup(context.Background(), mustID(t, tt.id))
			if registry.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if tt.wantCode != "" {
				if p != nil {
					t.Errorf("participant %+v with error", p)
				}
				return
			}
			if (p.Directory != nil) != tt.wantDir || (p.SMP != nil) != tt.wantSMP {
				t.Fatalf("directory %v smp %v, want directory %v smp %v", p.Directory != nil, p.SMP != nil, tt.wantDir, tt.wantSMP)
			}
			if p.SMP != nil && (p.SMP.Endpoint != nil) != tt.wantEP {
				t.Errorf("endpoint %+v, want present=%v", p.SMP.Endpoint, tt.wantEP)
			}
			if tt.wantWarning != "" && !hasWarning(p, tt.wantWarning) || tt.wantWarning == "" && len(withoutInsight(p.Warnings)) > 0 {
				t.Errorf("warnings %+v, want %q", p.Warnings, tt.wantWarning)
			}
			if tt.wantWarning == registry.WarnSMPNotFound && p.SMP.ServiceCount != 0 {
				t.Errorf("serviceCount = %d, want 0", p.SMP.ServiceCount)
			}
			if p.SMP != nil && p.SMP.Endpoint != nil && p.SMP.Endpoint.TransportProfile != smp.TransportAS4 {
				t.Errorf("transport %q, want AS4 preferred", p.SMP.Endpoint.TransportProfile)
			}
		})
	}
}

func TestLookupUpstreamFailures(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	ds := n.Dataset()
	be := ds.MustLookup(netsim.KnownBelgian)
	tests := []struct {
		name        string
		id          string
		target      netsim.Target
		fault       netsim.Fault
		wantCode    registry.Code
		wantWarning string
		wantTTL     time.Duration
	}{
		{name: "dns servfail, registered", id: netsim.KnownBelgian, target: netsim.DNSTarget(), fault: netsim.Fault{DNS: netsim.DNSServFail}, wantCode: registry.CodeLookupFailed},
		{name: "dns servfail, unregistered", id: "0208:0000000097", target: netsim.DNSTarget(), fault: netsim.Fault{DNS: netsim.DNSServFail}, wantCode: registry.CodeLookupFailed},
		{name: "dns timeout", id: netsim.KnownDirectoryOnly, target: netsim.DNSTarget(), fault: netsim.Fault{DNS: netsim.DNSTimeout}, wantCode: registry.CodeLookupFailed},
		{name: "smp 500", id: netsim.KnownBelgian, target: netsim.SMPHostTarget(be.SMPHost), fault: netsim.Fault{HTTPStatus: 500}, wantCode: registry.CodeLookupFailed},
		{name: "smp malformed", id: netsim.KnownBelgian, target: netsim.SMPHostTarget(be.SMPHost), fault: netsim.Fault{Malformed: true}, wantCode: registry.CodeLookupFailed},
		{name: "directory 500", id: netsim.KnownBelgian, target: netsim.DirectoryTarget(), fault: netsim.Fault{HTTPStatus: 500}, wantWarning: registry.WarnDirectoryUnavailable, wantTTL: DefaultWarningTTL},
		{name: "directory 500, unregistered", id: "0208:0000000097", target: netsim.DirectoryTarget(), fault: netsim.Fault{HTTPStatus: 500}, wantCode: registry.CodeLookupFailed},
		{name: "directory 429, sml-only", id: netsim.KnownSMLOnly, target: netsim.DirectoryTarget(), fault: netsim.Fault{HTTPStatus: 429, RetryAfter: "2"}, wantWarning: registry.WarnDirectoryUnavailable, wantTTL: DefaultWarningTTL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newLive(t, n, nil)
			n.SetFault(tt.target, tt.fault)
			defer n.ClearFaults()
			p, fr, err := l.Lookup(context.Background(), mustID(t, tt.id))
			if registry.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if err != nil {
				msg := err.(*registry.Error).Message
				if !strings.Contains(msg, "retry") || strings.Contains(msg, "127.0.0.1") {
					t.Errorf("message %q must say retry and name no host", msg)
				}
				// Failures are not cached: with the fault gone the next lookup answers.
				n.ClearFaults()
				if _, _, err := l.Lookup(context.Background(), mustID(t, tt.id)); registry.ErrorCode(err) == registry.CodeLookupFailed {
					t.Errorf("after clearing the fault: %v", err)
				}
				return
			}
			if !hasWarning(p, tt.wantWarning) || p.Directory != nil || p.SMP == nil {
				t.Errorf("warnings %+v directory %v smp %v", p.Warnings, p.Directory, p.SMP)
			}
			if fr.TTL != tt.wantTTL {
				t.Errorf("ttl = %v, want %v", fr.TTL, tt.wantTTL)
			}
		})
	}
}

func TestLookupServiceMetadataFailure(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	id := mustID(t, netsim.KnownRedirect)
	p := n.Dataset().MustLookup(netsim.KnownRedirect)
	// The redirect target serves only ServiceMetadata: a failure there hits the
	// metadata after a good ServiceGroup.
	n.SetFault(netsim.SMPHostTarget(p.RedirectHost), netsim.Fault{HTTPStatus: 503})
	got, _, err := l.Lookup(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.SMP == nil || got.SMP.Endpoint != nil || got.SMP.ServiceCount != len(p.Services) || !hasWarning(got, registry.WarnEndpointUnavailable) {
		t.Errorf("smp %+v warnings %+v", got.SMP, got.Warnings)
	}
}

func TestLookupStaleWhileError(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, clock := newLive(t, n, nil)
	id := mustID(t, netsim.KnownNorwegian)
	first, _, err := l.Lookup(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}

	clock.Advance(5 * time.Minute)
	_, fr, err := l.Lookup(context.Background(), id)
	if err != nil || !fr.Cached || fr.Stale || fr.Age != 5*time.Minute {
		t.Fatalf("fresh cache hit: freshness %+v err %v", fr, err)
	}

	n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	clock.Advance(15 * time.Minute)
	got, fr, err := l.Lookup(context.Background(), id)
	if err != nil {
		t.Fatalf("stale lookup: %v", err)
	}
	if got != first || !fr.Stale || fr.Age != 20*time.Minute {
		t.Errorf("stale answer: same=%v freshness %+v", got == first, fr)
	}

	clock.Advance(registry.DefaultStaleFor)
	if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Errorf("answer older than StaleFor: err = %v, want lookup_failed", err)
	}
}

func TestLookupNegativeCache(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, clock := newLive(t, n, nil)
	id := mustID(t, "0208:0000000097")
	for range 2 {
		if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeNotFound {
			t.Fatalf("err = %v", err)
		}
	}
	if got := n.Hits().DNS.ByType["NAPTR"]; got != 1 {
		t.Errorf("NAPTR queries = %d, want 1 (second answer from cache)", got)
	}
	clock.Advance(registry.DefaultNegativeTTL)
	if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeNotFound {
		t.Fatalf("err = %v", err)
	}
	if got := n.Hits().DNS.ByType["NAPTR"]; got != 2 {
		t.Errorf("NAPTR queries = %d, want 2 (negative TTL expired)", got)
	}
}

func TestLookupCoalesced(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	// Slow answers keep the first round in flight while the others arrive.
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: 200 * time.Millisecond})
	n.ResetHits()
	id := mustID(t, netsim.KnownBelgian)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, _, err := l.Lookup(context.Background(), id)
			if err == nil && p.SMP == nil {
				err = errors.New("no smp record")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	h := n.Hits()
	sg, sm := smpHits(h)
	if h.DNS.ByType["NAPTR"] != 1 || sg != 1 || sm != 1 || h.Directory.Search != 1 {
		t.Errorf("upstream requests: NAPTR %d, ServiceGroup %d, ServiceMetadata %d, Directory %d; want 1 each",
			h.DNS.ByType["NAPTR"], sg, sm, h.Directory.Search)
	}
}

func TestLookupCaseInsensitive(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	upper := peppol.ParticipantID{ICD: "9925", Value: "BE0677424046"}
	lower := mustID(t, "9925:BE0677424046")
	p1, _, err := l.Lookup(context.Background(), upper)
	if err != nil {
		t.Fatal(err)
	}
	p2, fr, err := l.Lookup(context.Background(), lower)
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 || !fr.Cached || p1.ParticipantID != netsim.KnownBelgianVAT {
		t.Errorf("second lookup cached=%v same=%v id %q", fr.Cached, p1 == p2, p1.ParticipantID)
	}
	if !strings.Contains(p1.SMP.URL, "iso6523-actorid-upis%3A%3A9925%3Abe0677424046") {
		t.Errorf("smp url %q", p1.SMP.URL)
	}
	if got := n.Hits().DNS.ByType["NAPTR"]; got != 1 {
		t.Errorf("NAPTR queries = %d, want 1", got)
	}
}

func TestLookupInvalidAndCancelled(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	if _, _, err := l.Lookup(context.Background(), peppol.ParticipantID{}); registry.ErrorCode(err) != registry.CodeInvalidParticipantID {
		t.Errorf("zero id: %v", err)
	}
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := l.Lookup(ctx, mustID(t, netsim.KnownDutch))
	if registry.ErrorCode(err) != registry.CodeLookupFailed || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled lookup: %v", err)
	}
}

func TestNewConfig(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, nil)
	good := l.cfg
	tests := []struct {
		name string
		edit func(*Config)
	}{
		{"no resolver", func(c *Config) { c.Resolver = nil }},
		{"no smp", func(c *Config) { c.SMP = nil }},
		{"no directory", func(c *Config) { c.Directory = nil }},
		{"negative ttl", func(c *Config) { c.PositiveTTL = -1 }},
		{"negative rate", func(c *Config) { c.DirectoryRate = -1 }},
	}
	for _, tt := range tests {
		cfg := good
		tt.edit(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
	l2, err := New(Config{Resolver: good.Resolver, SMP: good.SMP, Directory: good.Directory})
	if err != nil {
		t.Fatal(err)
	}
	if c := l2.cfg; c.PositiveTTL != registry.DefaultPositiveTTL || c.NegativeTTL != registry.DefaultNegativeTTL || c.StaleFor != registry.DefaultStaleFor ||
		c.SearchTTL != registry.DefaultSearchTTL || c.DirectoryRate != registry.DefaultDirectoryRate || c.MaxCacheEntries != DefaultMaxCacheEntries || c.Now == nil || c.Logger == nil {
		t.Errorf("defaults not applied: %+v", c)
	}
}
