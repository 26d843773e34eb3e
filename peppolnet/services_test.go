package peppolnet

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

func TestServicesAll(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := servicesLive(t, n, nil)
	ds := n.Dataset()
	want := ds.MustLookup(netsim.KnownFrenchSIREN)
	if len(want.Services) < 3 {
		t.Fatalf("dataset: %s has %d services, want at least 3", netsim.KnownFrenchSIREN, len(want.Services))
	}

	r, fr, err := l.Services(t.Context(), mustID(t, netsim.KnownFrenchSIREN), "")
	if err != nil {
		t.Fatal(err)
	}
	if fr.Cached || fr.TTL != registry.DefaultPositiveTTL {
		t.Errorf("freshness %+v, want fresh with TTL %v", fr, registry.DefaultPositiveTTL)
	}
	if r.ParticipantID != netsim.KnownFrenchSIREN || r.SMP.Hostname != "127.0.0.1" || !strings.HasSuffix(r.SMP.URL, "/iso6523-actorid-upis%3A%3A0002%3A784301772") {
		t.Errorf("id %q smp %+v", r.ParticipantID, r.SMP)
	}
	if r.ServiceCount != len(want.Services) || len(r.Services) != len(want.Services) {
		t.Fatalf("serviceCount %d, %d services, want %d", r.ServiceCount, len(r.Services), len(want.Services))
	}
	for i, ws := range want.Services {
		s := r.Services[i]
		d := s.DocumentType
		if d.ID != ws.DocumentType.URI() || d.Scheme != ws.DocumentType.Scheme || d.Value != ws.DocumentType.Value {
			t.Errorf("service %d: document type %+v, want %s", i, d, ws.DocumentType.URI())
		}
		if d.Name == "" || d.State != "active" || d.NonStandard || d.Category == "" {
			t.Errorf("service %d: code-list info %+v, want a named active entry with a category", i, d)
		}
		if len(s.Processes) != len(ws.Processes) {
			t.Fatalf("service %d: %d processes, want %d", i, len(s.Processes), len(ws.Processes))
		}
		for j, wp := range ws.Processes {
			p := s.Processes[j]
			if p.Process.ID != netsim.ProcessScheme+"::"+wp.Value || p.Process.Name == "" || p.Process.NonStandard {
				t.Errorf("service %d process %d: %+v, want %s named", i, j, p.Process, wp.Value)
			}
			if len(p.Endpoints) != len(wp.Endpoints) {
				t.Fatalf("service %d process %d: %d endpoints, want %d", i, j, len(p.Endpoints), len(wp.Endpoints))
			}
			for k, we := range wp.Endpoints {
				e := p.Endpoints[k]
				ap := ds.AccessPoints[we.AccessPoint]
				if e.URL != we.Address || e.TransportProfile.ID != we.TransportProfile {
					t.Errorf("endpoint %d/%d/%d: %s %s, want %s %s", i, j, k, e.URL, e.TransportProfile.ID, we.Address, we.TransportProfile)
				}
				if e.TransportProfile.Name != "Peppol AS4 profile 2.0" || e.TransportProfile.State != "active" || e.TransportProfile.Protocol != "AS4" {
					t.Errorf("endpoint %d/%d/%d: transport %+v", i, j, k, e.TransportProfile)
				}
				c := e.Certificate
				if c == nil || c.Subject != ap.Subject() || c.SerialNumber != strconv.FormatInt(ap.Serial, 10) || !c.NotAfter.Equal(ap.NotAfter) {
					t.Fatalf("endpoint %d/%d/%d: certificate %+v, want %s serial %d", i, j, k, c, ap.Subject(), ap.Serial)
				}
				if c.DaysRemaining != daysUntil(ap.NotAfter, testNow) || c.Expired != !testNow.Before(ap.NotAfter) || !c.PeppolCA {
					t.Errorf("endpoint %d/%d/%d: days %d expired %v peppolCA %v (notAfter %v)", i, j, k, c.DaysRemaining, c.Expired, c.PeppolCA, ap.NotAfter)
				}
			}
		}
	}
	// Every warning at the top summarises one found below, once per code.
	codes := map[string]bool{}
	for _, w := range r.Warnings {
		if codes[w.Code] {
			t.Errorf("warning %s twice at the top", w.Code)
		}
		codes[w.Code] = true
	}
	for _, s := range r.Services {
		for _, p := range s.Processes {
			for _, e := range p.Endpoints {
				for _, w := range e.Warnings {
					if !codes[w.Code] {
						t.Errorf("endpoint warning %s not summarised at the top %+v", w.Code, r.Warnings)
					}
				}
			}
		}
	}

	// The second call is served from the cache.
	sg, sm := smpHits(n.Hits())
	if _, fr, err := l.Services(t.Context(), mustID(t, netsim.KnownFrenchSIREN), ""); err != nil || !fr.Cached {
		t.Errorf("second call: cached %v, %v", fr.Cached, err)
	}
	if sg2, sm2 := smpHits(n.Hits()); sg2 != sg || sm2 != sm {
		t.Errorf("second call reached the SMP: %d/%d → %d/%d", sg, sm, sg2, sm2)
	}
}

func TestServicesDocTypeFilter(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := servicesLive(t, n, nil)
	want := n.Dataset().MustLookup(netsim.KnownBelgian)
	credit := want.Services[1].DocumentType
	id := mustID(t, netsim.KnownBelgian)

	tests := []struct {
		name     string
		docType  string
		wantCode registry.Code
		wantMsg  []string // in the error message
	}{
		{name: "listed", docType: credit.URI()},
		{name: "listed, scheme in upper case", docType: strings.ToUpper(credit.Scheme) + "::" + credit.Value},
		{name: "not listed", docType: "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1", wantCode: registry.CodeNotFound,
			wantMsg: []string{"does not list", "lists 2 document type(s)", "Peppol BIS Billing UBL Invoice V3", credit.Value}},
		{name: "value case differs", docType: credit.Scheme + "::" + strings.ToUpper(credit.Value), wantCode: registry.CodeNotFound},
		{name: "no scheme", docType: credit.Value[:20], wantCode: registry.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.ResetHits()
			r, _, err := l.Services(t.Context(), id, tt.docType)
			if registry.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if err != nil {
				for _, s := range tt.wantMsg {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("message %q does not say %q", err, s)
					}
				}
				return
			}
			if r.ServiceCount != 2 || len(r.Services) != 1 || r.Services[0].DocumentType.ID != credit.URI() || len(r.Services[0].Processes) == 0 {
				t.Errorf("serviceCount %d services %+v", r.ServiceCount, r.Services)
			}
			if _, sm := smpHits(n.Hits()); sm > 1 {
				t.Errorf("%d ServiceMetadata requests, want at most 1", sm)
			}
		})
	}
}

func TestServicesNotFoundAndFailures(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	be := n.Dataset().MustLookup(netsim.KnownBelgian)
	tests := []struct {
		name     string
		id       string
		target   *netsim.Target
		fault    netsim.Fault
		wantCode registry.Code
	}{
		{name: "not in the SML", id: "0208:0000000097", wantCode: registry.CodeNotFound},
		{name: "directory only", id: netsim.KnownDirectoryOnly, wantCode: registry.CodeNotFound},
		{name: "smp 404", id: netsim.KnownSMPNotFound, wantCode: registry.CodeNotFound},
		{name: "dns servfail", id: netsim.KnownBelgian, target: new(netsim.DNSTarget()), fault: netsim.Fault{DNS: netsim.DNSServFail}, wantCode: registry.CodeLookupFailed},
		{name: "service group 500", id: netsim.KnownBelgian, target: new(netsim.SMPHostTarget(be.SMPHost)), fault: netsim.Fault{HTTPStatus: 500}, wantCode: registry.CodeLookupFailed},
		{name: "directory down does not matter", id: netsim.KnownBelgian, target: new(netsim.DirectoryTarget()), fault: netsim.Fault{HTTPStatus: 500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := servicesLive(t, n, nil)
			if tt.target != nil {
				n.SetFault(*tt.target, tt.fault)
				defer n.ClearFaults()
			}
			_, fr, err := l.Services(t.Context(), mustID(t, tt.id), "")
			if registry.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			switch tt.wantCode {
			case registry.CodeNotFound:
				if fr.TTL != registry.DefaultNegativeTTL {
					t.Errorf("ttl %v, want %v", fr.TTL, registry.DefaultNegativeTTL)
				}
			case registry.CodeLookupFailed:
				// The message is what clients see; Error() adds the cause, for logs.
				if msg := err.(*registry.Error).Message; !strings.Contains(msg, "retry") || strings.Contains(msg, "127.0.0.1") {
					t.Errorf("message %q must say retry and name no host", msg)
				}
				// Failures are not cached.
				n.ClearFaults()
				if _, _, err := l.Services(t.Context(), mustID(t, tt.id), ""); err != nil {
					t.Errorf("after clearing the fault: %v", err)
				}
			}
		})
	}
	l, _ := servicesLive(t, n, nil)
	if _, _, err := l.Services(t.Context(), peppol.ParticipantID{}, ""); registry.ErrorCode(err) != registry.CodeInvalidParticipantID {
		t.Errorf("zero id: %v", err)
	}
}

// servicesLive is newLive whose SMP client drops its idle connections when the test
// ends, before the network closes: a connection the client dialled but never used
// would otherwise hold the network's shutdown for five seconds (net/http counts a
// new connection as idle only after 5s).
func servicesLive(t *testing.T, n *netsim.Network, edit func(*Config)) (*Registry, *clock.Fake) {
	t.Helper()
	var client *http.Client
	l, clock := newLive(t, n, func(c *Config) {
		client = c.SMP.HTTP
		if edit != nil {
			edit(c)
		}
	})
	t.Cleanup(client.CloseIdleConnections)
	return l, clock
}

// failingSMP is an SMP in front of a netsim SMP host that answers status for the
// ServiceMetadata of one document type and passes everything else through.
func failingSMP(t *testing.T, n *netsim.Network, host int, docType string, status int) string {
	t.Helper()
	upstream := strings.TrimRight(n.SMPBaseURL(host), "/")
	client := &http.Client{Transport: &http.Transport{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, doc, ok := strings.Cut(r.URL.EscapedPath(), "/services/"); ok {
			if d, err := url.PathUnescape(doc); err == nil && d == docType {
				w.WriteHeader(status)
				return
			}
		}
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, upstream+r.URL.EscapedPath(), nil)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		resp, err := client.Do(req)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(func() { srv.Close(); client.CloseIdleConnections() })
	return srv.URL
}

func TestServicesOneServiceMetadataFails(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownFrenchSIREN)
	broken := p.Services[1].DocumentType.URI()
	tests := []struct {
		status   int
		wantWarn string
		wantTTL  time.Duration
	}{
		{status: http.StatusInternalServerError, wantWarn: registry.WarnEndpointUnavailable, wantTTL: DefaultWarningTTL},
		{status: http.StatusNotFound, wantWarn: registry.WarnEndpointNotFound, wantTTL: registry.DefaultPositiveTTL},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			l, _ := servicesLive(t, n, nil)
			n.SetNAPTR(p.ID, failingSMP(t, n, p.SMPHost, broken, tt.status))
			defer n.SetNAPTR(p.ID, "")
			r, fr, err := l.Services(t.Context(), p.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			if fr.TTL != tt.wantTTL {
				t.Errorf("ttl %v, want %v", fr.TTL, tt.wantTTL)
			}
			if len(r.Services) != len(p.Services) {
				t.Fatalf("%d services, want %d", len(r.Services), len(p.Services))
			}
			for i, s := range r.Services {
				failed := s.DocumentType.ID == broken
				has := false
				for _, w := range s.Warnings {
					has = has || w.Code == tt.wantWarn
				}
				if failed != has || failed != (len(s.Processes) == 0) {
					t.Errorf("service %d (%s): warnings %+v, %d processes", i, s.DocumentType.ID, s.Warnings, len(s.Processes))
				}
			}
			top := false
			for _, w := range r.Warnings {
				top = top || w.Code == tt.wantWarn && strings.Contains(w.Message, r.Services[1].DocumentType.Name)
			}
			if !top {
				t.Errorf("top warnings %+v do not name the failed document type", r.Warnings)
			}
			// Asking for the broken one alone is an answer with the warning, never not_found.
			one, _, err := l.Services(t.Context(), p.ID, broken)
			if err != nil || len(one.Services) != 1 || len(one.Services[0].Warnings) == 0 {
				t.Errorf("filtered to the broken one: %+v, %v", one, err)
			}
		})
	}
}

// TestServicesConcurrencyBound: a Services call never has more ServiceMetadata
// requests in flight than Config.ServiceConcurrency, even with a roomy per-host cap.
// The latency makes every request wait, so that without the bound they would overlap.
func TestServicesConcurrencyBound(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	p := n.Dataset().MustLookup(netsim.KnownFrenchSIREN)
	for _, bound := range []int{1, 2} {
		t.Run(strconv.Itoa(bound), func(t *testing.T) {
			l, _ := servicesLive(t, n, func(c *Config) { c.ServiceConcurrency = bound; c.SMPHostConcurrency = 64 })
			n.SetFault(netsim.ParticipantTarget(p.ID), netsim.Fault{Latency: 20 * time.Millisecond})
			defer n.ClearFaults()
			n.ResetHits()
			r, _, err := l.Services(t.Context(), p.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range r.Services {
				if len(s.Processes) == 0 {
					t.Errorf("%s: no processes, warnings %+v", s.DocumentType.ID, s.Warnings)
				}
			}
			h := n.Hits().SMP[p.SMPHost]
			if h.ServiceMetadata != int64(len(p.Services)) || h.MaxInFlight > int64(bound) {
				t.Errorf("%d ServiceMetadata requests, at most %d in flight; want %d, at most %d", h.ServiceMetadata, h.MaxInFlight, len(p.Services), bound)
			}
		})
	}
}

// TestServicesCancelled: a caller that leaves while the ServiceMetadata requests hang
// gets lookup_failed at once, the requests are cancelled upstream, and nothing is
// cached for the next caller.
func TestServicesCancelled(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := servicesLive(t, n, nil)
	p := n.Dataset().MustLookup(netsim.KnownRedirect)
	if p.RedirectHost < 0 {
		t.Skip("dataset has no redirect host")
	}
	// The redirect target serves only ServiceMetadata: the ServiceGroup answers, then
	// every ServiceMetadata hangs.
	n.SetFault(netsim.SMPHostTarget(p.RedirectHost), netsim.Fault{Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for n.Hits().SMP[p.RedirectHost].ServiceMetadata == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, _, err := l.Services(ctx, p.ID, "")
	if registry.ErrorCode(err) != registry.CodeLookupFailed || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); n.Hits().Abandoned == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("netsim never saw a ServiceMetadata request cancelled")
		}
	}
	n.ClearFaults()
	r, fr, err := l.Services(t.Context(), p.ID, "")
	if err != nil || fr.Cached || len(r.Services) != len(p.Services) {
		t.Fatalf("next call: cached %v, %+v, %v", fr.Cached, r, err)
	}
	for _, s := range r.Services {
		if len(s.Processes) == 0 || len(s.Warnings) > 0 {
			t.Errorf("next call: %s has %d processes, warnings %+v", s.DocumentType.ID, len(s.Processes), s.Warnings)
		}
	}
}

func TestServicesStaleWhileError(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, clock := servicesLive(t, n, nil)
	id := mustID(t, netsim.KnownNorwegian)
	if _, _, err := l.Services(t.Context(), id, ""); err != nil {
		t.Fatal(err)
	}
	clock.Advance(registry.DefaultPositiveTTL + time.Minute)
	n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	defer n.ClearFaults()
	r, fr, err := l.Services(t.Context(), id, "")
	if err != nil || r == nil || !fr.Stale || !fr.Cached {
		t.Errorf("stale: %+v %v", fr, err)
	}
	// A docType is its own cache entry: nothing stale to serve for it.
	if _, _, err := l.Services(t.Context(), id, n.Dataset().MustLookup(netsim.KnownNorwegian).Services[0].DocumentType.URI()); registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Errorf("filtered, uncached: %v", err)
	}
}

// insightOf returns the insight warning codes of ws as a sorted set.
func insightOf(ws []registry.Warning) []string {
	set := map[string]bool{}
	for _, w := range ws {
		if insightCodes[w.Code] {
			set[w.Code] = true
		}
	}
	out := []string{}
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// TestShowcaseWarnings: each netsim participant built to trigger a warning gets that
// warning and no other insight warning, on the participant record (Lookup) and at the
// top of Services; the control gets none.
func TestShowcaseWarnings(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := servicesLive(t, n, nil)
	tests := []struct {
		id           string
		lookup, svcs []string
	}{
		{id: netsim.KnownCertValid, lookup: []string{}, svcs: []string{}},
		{id: netsim.KnownCertExpired, lookup: []string{registry.WarnCertificateExpired}, svcs: []string{registry.WarnCertificateExpired}},
		{id: netsim.KnownCertExpiring, lookup: []string{registry.WarnCertificateExpiring}, svcs: []string{registry.WarnCertificateExpiring}},
		{id: netsim.KnownCertNonPeppolCA, lookup: []string{registry.WarnCertificateChainInvalid}, svcs: []string{registry.WarnCertificateChainInvalid}},
		{id: netsim.KnownServiceNotYetActive, lookup: []string{registry.WarnServiceNotYetActive}, svcs: []string{registry.WarnServiceNotYetActive}},
		{id: netsim.KnownServiceExpired, lookup: []string{registry.WarnServiceExpired}, svcs: []string{registry.WarnServiceExpired}},
		{id: netsim.KnownHTTPEndpoint, lookup: []string{registry.WarnEndpointNotHTTPS}, svcs: []string{registry.WarnEndpointNotHTTPS}},
		{id: netsim.KnownPort8443, lookup: []string{registry.WarnEndpointPort}, svcs: []string{registry.WarnEndpointPort}},
		{id: netsim.KnownAS2Only, lookup: []string{registry.WarnTransportProfileRemoved}, svcs: []string{registry.WarnTransportProfileRemoved}},
		{id: netsim.KnownDeprecatedDocType, lookup: []string{registry.WarnDocumentTypeDeprecated, registry.WarnDocumentTypeRemoved}, svcs: []string{registry.WarnDocumentTypeDeprecated, registry.WarnDocumentTypeRemoved}},
		{id: netsim.KnownNonStandardDocType, lookup: []string{registry.WarnDocumentTypeNonStandard}, svcs: []string{registry.WarnDocumentTypeNonStandard}},
		{id: netsim.KnownManyDocTypes, lookup: []string{}, svcs: []string{}},
		// The Directory checks are the participant record's only.
		{id: netsim.KnownDirectoryMismatch, lookup: []string{registry.WarnDirectoryDocTypesMismatch}, svcs: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			id := mustID(t, tt.id)
			p, _, err := l.Lookup(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if got := insightOf(p.Warnings); !slices.Equal(got, tt.lookup) {
				t.Errorf("lookup warnings %v, want %v: %+v", got, tt.lookup, p.Warnings)
			}
			if len(withoutInsight(p.Warnings)) != 0 {
				t.Errorf("lookup: other warnings %+v", withoutInsight(p.Warnings))
			}
			r, _, err := l.Services(t.Context(), id, "")
			if err != nil {
				t.Fatal(err)
			}
			if got := insightOf(r.Warnings); !slices.Equal(got, tt.svcs) {
				t.Errorf("services warnings %v, want %v: %+v", got, tt.svcs, r.Warnings)
			}
			for _, w := range r.Warnings {
				if w.Message == "" || strings.Contains(w.Message, "127.0.0.1") {
					t.Errorf("warning message %q", w.Message)
				}
			}
		})
	}

	// The messages say what and when.
	p, _, err := l.Lookup(t.Context(), mustID(t, netsim.KnownCertExpiring))
	if err != nil {
		t.Fatal(err)
	}
	cert := p.SMP.Endpoint.Certificate
	for _, w := range p.Warnings {
		if w.Code == registry.WarnCertificateExpiring && (!strings.Contains(w.Message, cert.NotAfter.Format(time.DateOnly)) || !strings.Contains(w.Message, "in 10 days")) {
			t.Errorf("expiring message %q should name %s and 10 days", w.Message, cert.NotAfter.Format(time.DateOnly))
		}
	}
	p, _, err = l.Lookup(t.Context(), mustID(t, netsim.KnownDirectoryMismatch))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range p.Warnings {
		if w.Code == registry.WarnDirectoryDocTypesMismatch && !strings.Contains(w.Message, "2 document types the SMP lists are missing from the card, and 1 document type on the card is not listed") {
			t.Errorf("mismatch message %q", w.Message)
		}
	}
	r, _, err := l.Services(t.Context(), mustID(t, netsim.KnownCertNonPeppolCA), "")
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Services[0].Processes[0].Endpoints[0].Certificate; c == nil || c.PeppolCA || c.PeppolCAName != "" {
		t.Errorf("non-Peppol CA certificate: %+v", c)
	}
	r, _, err = l.Services(t.Context(), mustID(t, netsim.KnownCertValid), "")
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Services[0].Processes[0].Endpoints[0].Certificate; c == nil || !c.PeppolCA || c.Expired || c.DaysRemaining != 400 {
		t.Errorf("valid certificate: %+v", c)
	}
}

// TestServicesManyDocTypes: all of a participant's many document types come back, and
// with the default bound of 8 no more ServiceMetadata requests are in flight at once,
// although the per-host cap would allow more.
func TestServicesManyDocTypes(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := servicesLive(t, n, func(c *Config) { c.SMPHostConcurrency = 64 })
	p := n.Dataset().MustLookup(netsim.KnownManyDocTypes)
	n.SetFault(netsim.ParticipantTarget(p.ID), netsim.Fault{Latency: 10 * time.Millisecond})
	defer n.ClearFaults()
	n.ResetHits()
	r, _, err := l.Services(t.Context(), p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.ServiceCount != netsim.ManyDocTypes || len(r.Services) != netsim.ManyDocTypes {
		t.Fatalf("serviceCount %d, %d services, want %d", r.ServiceCount, len(r.Services), netsim.ManyDocTypes)
	}
	for i, s := range r.Services {
		if s.DocumentType.ID != p.Services[i].DocumentType.URI() || s.DocumentType.Name == "" || len(s.Processes) == 0 {
			t.Errorf("service %d: %+v", i, s)
		}
	}
	h := n.Hits().SMP[p.SMPHost]
	if h.ServiceMetadata != netsim.ManyDocTypes || h.MaxInFlight > DefaultServiceConcurrency {
		t.Errorf("%d ServiceMetadata requests, %d at most in flight; want %d, at most %d", h.ServiceMetadata, h.MaxInFlight, netsim.ManyDocTypes, DefaultServiceConcurrency)
	}
}
