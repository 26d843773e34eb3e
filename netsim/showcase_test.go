package netsim

import (
	"context"
	"crypto/x509"
	"net/url"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

// fetched is what a client learns about a participant over HTTP: the SMP's document
// types with their endpoints, and the Directory's document types (nil without a card).
type fetched struct {
	docTypes  []smp.Identifier
	endpoints []smp.Endpoint
	dirDocs   []smp.Identifier
	hasCard   bool
}

// fetchParticipant reads p's ServiceGroup and every ServiceMetadata with the project's
// SMP client, and its Directory entry, from the running network.
func fetchParticipant(t *testing.T, n *Network, id string) fetched {
	t.Helper()
	p := n.Dataset().MustLookup(id)
	if p == nil {
		t.Fatalf("%s not in the dataset", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var c smp.Client
	base := n.SMPBaseURL(p.SMPHost)
	sg, err := c.ServiceGroup(ctx, base, p.ID)
	if err != nil {
		t.Fatalf("%s: ServiceGroup: %v", id, err)
	}
	f := fetched{docTypes: sg.DocumentTypes}
	for _, d := range sg.DocumentTypes {
		sm, err := c.ServiceMetadata(ctx, base, p.ID, d)
		if err != nil {
			t.Fatalf("%s: ServiceMetadata %s: %v", id, d.Value, err)
		}
		for _, pr := range sm.Processes {
			f.endpoints = append(f.endpoints, pr.Endpoints...)
		}
	}
	a := mustSearch(t, n, "participant="+url.QueryEscape(p.ID.URI()))
	if len(a.Matches) > 0 {
		f.hasCard = true
		for _, d := range a.Matches[0].DocTypes {
			f.dirDocs = append(f.dirDocs, smp.Identifier{Scheme: d.Scheme, Value: d.Value})
		}
	}
	return f
}

// findings lists, in a fixed order, the issue-9 warnings f deserves at instant now,
// computed here from what the client read, independently of the generator.
func findings(t *testing.T, f fetched, now time.Time, peppolCA, otherCA *x509.Certificate) []string {
	t.Helper()
	set := map[string]bool{}
	for _, e := range f.endpoints {
		c := e.Certificate
		if c == nil {
			t.Fatalf("endpoint %s: certificate does not decode: %s", e.Address, e.CertificateError)
		}
		cert, err := x509.ParseCertificate(c.Raw)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.NotAfter.Before(now):
			set["cert_expired"] = true
		case c.NotAfter.Before(now.AddDate(0, 0, 30)):
			set["cert_expiring"] = true
		}
		if cert.CheckSignatureFrom(peppolCA) != nil {
			set["cert_not_peppol_ca"] = true
			if otherCA == nil || cert.CheckSignatureFrom(otherCA) != nil || c.Issuer != "CN=Example Corp Issuing CA,O=Example Corp,C=NL" {
				t.Errorf("%s: issuer %s is neither CA", e.Address, c.Issuer)
			}
		}
		if e.ActivationDate != nil && e.ActivationDate.After(now) {
			set["service_not_active"] = true
		}
		if e.ExpirationDate != nil && e.ExpirationDate.Before(now) {
			set["service_expired"] = true
		}
		u, err := url.Parse(e.Address)
		if err != nil {
			t.Fatalf("endpoint address %q: %v", e.Address, err)
		}
		if u.Scheme != "https" {
			set["not_https"] = true
		}
		if u.Port() != "" && u.Port() != "443" {
			set["not_443"] = true
		}
		if tp, ok := codelist.LookupTransportProfile(e.TransportProfile); !ok || tp.State != codelist.StateActive {
			set["transport_deprecated"] = true
		}
	}
	for _, d := range f.docTypes {
		e, ok := codelist.LookupDocumentType(d.Scheme, d.Value)
		switch {
		case !ok:
			set["doctype_nonstandard"] = true
		case e.State != codelist.StateActive:
			set["doctype_deprecated"] = true
		}
	}
	if !f.hasCard {
		set["no_directory_card"] = true
	} else if !sameDocs(f.docTypes, f.dirDocs) {
		set["directory_mismatch"] = true
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sameDocs(a, b []smp.Identifier) bool {
	key := func(ids []smp.Identifier) []string {
		var s []string
		for _, d := range ids {
			s = append(s, d.Scheme+"::"+d.Value)
		}
		slices.Sort(s)
		return s
	}
	return slices.Equal(key(a), key(b))
}

func parseDER(t *testing.T, der []byte) *x509.Certificate {
	t.Helper()
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestShowcaseOverHTTP reads every showcase participant over HTTP with the project's
// SMP client and checks that it deserves exactly the warnings its constant promises.
func TestShowcaseOverHTTP(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	peppolCA := parseDER(t, n.APCACertificate())
	otherCA := parseDER(t, n.NonPeppolCACertificate())
	if peppolCA.Subject.String() != "CN="+apCAName+",OU="+caOU+",O="+caOrg+",C="+caCountry {
		t.Errorf("Peppol AP CA subject %s", peppolCA.Subject)
	}
	tests := []struct {
		id   string
		want []string
	}{
		{KnownCertExpired, []string{"cert_expired"}},
		{KnownCertExpiring, []string{"cert_expiring"}},
		{KnownCertValid, nil},
		{KnownCertNonPeppolCA, []string{"cert_not_peppol_ca"}},
		{KnownServiceNotYetActive, []string{"service_not_active"}},
		{KnownServiceExpired, []string{"service_expired"}},
		{KnownHTTPEndpoint, []string{"not_https"}},
		{KnownPort8443, []string{"not_443"}},
		{KnownAS2Only, []string{"transport_deprecated"}},
		{KnownDeprecatedDocType, []string{"doctype_deprecated"}},
		{KnownNonStandardDocType, []string{"doctype_nonstandard"}},
		{KnownManyDocTypes, nil},
		{KnownDirectoryMismatch, []string{"directory_mismatch"}},
		{KnownSMLOnly, []string{"no_directory_card"}},
	}
	if len(tests) != len(showcaseIDs)+1 {
		t.Fatalf("%d cases for %d showcase participants", len(tests), len(showcaseIDs))
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			f := fetchParticipant(t, n, tt.id)
			if len(f.endpoints) == 0 {
				t.Fatal("no endpoints")
			}
			if got := findings(t, f, ds.Now, peppolCA, otherCA); !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}

	// The details the constants' comments promise beyond the warning's kind.
	t.Run("details", func(t *testing.T) {
		for _, c := range []struct {
			id   string
			want time.Time
		}{
			{KnownCertExpired, ds.Now.AddDate(0, 0, -15)},
			{KnownCertExpiring, ds.Now.AddDate(0, 0, 10)},
		} {
			for _, e := range fetchParticipant(t, n, c.id).endpoints {
				if !e.Certificate.NotAfter.Equal(c.want) {
					t.Errorf("%s: certificate until %v, want %v", c.id, e.Certificate.NotAfter, c.want)
				}
			}
		}
		for _, e := range fetchParticipant(t, n, KnownAS2Only).endpoints {
			if e.TransportProfile != TransportAS2 {
				t.Errorf("AS2-only endpoint with profile %s", e.TransportProfile)
			}
		}
		states := map[codelist.State]bool{}
		for _, d := range fetchParticipant(t, n, KnownDeprecatedDocType).docTypes {
			e, _ := codelist.LookupDocumentType(d.Scheme, d.Value)
			states[e.State] = true
		}
		if !states[codelist.StateDeprecated] || !states[codelist.StateRemoved] || !states[codelist.StateActive] {
			t.Errorf("deprecated participant's document type states %v", states)
		}
		if got := len(fetchParticipant(t, n, KnownManyDocTypes).docTypes); got != ManyDocTypes || got < 40 {
			t.Errorf("many document types: %d", got)
		}
	})
}

// TestShowcaseConcurrencyObserved fetches KnownManyDocTypes' ServiceMetadata with a
// bound of 4 requests in flight and checks that the SMP host's counter reports no more.
func TestShowcaseConcurrencyObserved(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	p := n.Dataset().MustLookup(KnownManyDocTypes)
	base := n.SMPBaseURL(p.SMPHost)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var c smp.Client
	sg, err := c.ServiceGroup(ctx, base, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	n.ResetHits()
	const bound = 4
	sem := make(chan struct{}, bound)
	var wg sync.WaitGroup
	errs := make(chan error, len(sg.DocumentTypes))
	for _, d := range sg.DocumentTypes {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := c.ServiceMetadata(ctx, base, p.ID, d); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	h := n.Hits().SMP[p.SMPHost]
	if h.ServiceMetadata != int64(len(sg.DocumentTypes)) || h.MaxInFlight < 1 || h.MaxInFlight > bound {
		t.Errorf("hits %+v with %d document types and bound %d", h, len(sg.DocumentTypes), bound)
	}
}

// TestShowcaseDeterministic checks that the showcase participants come last, in
// showcaseIDs order, and do not depend on the number of generated participants.
func TestShowcaseDeterministic(t *testing.T) {
	t.Parallel()
	a := Generate(DatasetConfig{Seed: 5, Participants: 120, Now: testNow})
	b := Generate(DatasetConfig{Seed: 5, Participants: 400, Now: testNow})
	for _, ds := range []*Dataset{a, b} {
		tail := ds.Participants[len(ds.Participants)-len(showcaseIDs):]
		for i, id := range showcaseIDs {
			if tail[i].ID.String() != id {
				t.Fatalf("showcase participant %d is %s, want %s", i, tail[i].ID, id)
			}
		}
	}
	for _, id := range showcaseIDs {
		pa, pb := a.MustLookup(id), b.MustLookup(id)
		if !reflect.DeepEqual(pa.Card, pb.Card) || pa.SMPHost != pb.SMPHost || len(pa.Services) != len(pb.Services) {
			t.Errorf("%s differs between dataset sizes", id)
		}
		for i := range pa.Services {
			sa, sb := pa.Services[i], pb.Services[i]
			if sa.DocumentType != sb.DocumentType || len(sa.Processes) != len(sb.Processes) {
				t.Errorf("%s: service %d differs", id, i)
				continue
			}
			for j := range sa.Processes {
				for k, ea := range sa.Processes[j].Endpoints {
					eb := sb.Processes[j].Endpoints[k]
					// Access point indexes differ with the size; what they point at must not.
					if a.AccessPoints[ea.AccessPoint] != b.AccessPoints[eb.AccessPoint] {
						t.Errorf("%s: access points differ", id)
					}
					ea.AccessPoint, eb.AccessPoint = 0, 0
					if ea != eb {
						t.Errorf("%s: endpoints differ: %+v %+v", id, ea, eb)
					}
				}
			}
		}
	}
}

// TestTestNetwork checks the test network's dataset and that Start serves it under the
// test SML zone.
func TestTestNetwork(t *testing.T) {
	t.Parallel()
	ds := Generate(DatasetConfig{Seed: 1, Network: NetworkTest, Now: testNow})
	if !reflect.DeepEqual(ds, Generate(DatasetConfig{Seed: 1, Network: NetworkTest, Now: testNow})) {
		t.Fatal("same config gave different test datasets")
	}
	if ds.Network != NetworkTest {
		t.Errorf("Network = %q", ds.Network)
	}
	var ids []string
	for _, p := range ds.Participants {
		ids = append(ids, p.ID.String())
	}
	if !slices.Equal(ids, testIDs) {
		t.Fatalf("test participants %v, want %v", ids, testIDs)
	}
	prod := Generate(DatasetConfig{Seed: 1, Participants: 3000, Now: testNow})
	if prod.Network != NetworkProduction {
		t.Errorf("production Network = %q", prod.Network)
	}
	for _, id := range testIDs {
		if prod.MustLookup(id) != nil {
			t.Errorf("%s exists in production", id)
		}
		if ds.MustLookup(id) == nil {
			t.Errorf("%s not found by Lookup", id)
		}
	}
	for _, id := range append([]string{KnownBelgian}, showcaseIDs...) {
		if ds.MustLookup(id) != nil {
			t.Errorf("production participant %s exists in the test network", id)
		}
	}

	n, err := Start(context.Background(), ds, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if n.Zone() != sml.ZoneTest {
		t.Errorf("zone %s", n.Zone())
	}
	peppolCA := parseDER(t, n.APCACertificate())
	for _, c := range []struct {
		id   string
		want []string
	}{
		{TestKnownInvoice, nil},
		{TestKnownSMLOnly, []string{"no_directory_card"}},
		{TestKnownCertExpired, []string{"cert_expired"}},
		{TestKnownGLN, nil},
	} {
		if got := findings(t, fetchParticipant(t, n, c.id), ds.Now, peppolCA, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: findings %v, want %v", c.id, got, c.want)
		}
	}
	// The directory-only participant has no NAPTR record in the test zone.
	pid, _ := peppol.ParseParticipantID(TestKnownDirectoryOnly)
	if _, ok := n.naptr[sml.NAPTRName(pid, n.Zone())]; ok {
		t.Errorf("%s has a NAPTR record", TestKnownDirectoryOnly)
	}
	if a := mustSearch(t, n, "participant="+url.QueryEscape(pid.URI())); len(a.Matches) != 1 {
		t.Errorf("%s: %d Directory matches", TestKnownDirectoryOnly, len(a.Matches))
	}
}
