package peppolnet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol/codelist"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// insightCodes are the warning codes of the checks in insight.go: they depend on the
// data's dates and contents rather than on upstream behaviour.
var insightCodes = map[string]bool{
	registry.WarnCertificateExpired: true, registry.WarnCertificateExpiring: true, registry.WarnCertificateChainInvalid: true,
	registry.WarnServiceNotYetActive: true, registry.WarnServiceExpired: true,
	registry.WarnEndpointNotHTTPS: true, registry.WarnEndpointPort: true,
	registry.WarnTransportProfileDeprecated: true, registry.WarnTransportProfileRemoved: true, registry.WarnTransportProfileUnknown: true,
	registry.WarnDocumentTypeDeprecated: true, registry.WarnDocumentTypeRemoved: true, registry.WarnDocumentTypeNonStandard: true,
	registry.WarnDirectoryCardMissing: true, registry.WarnDirectoryDocTypesMismatch: true,
}

// withoutInsight returns ws without the insight warnings, for tests about upstream
// behaviour that must not depend on the dataset's certificate dates.
func withoutInsight(ws []registry.Warning) []registry.Warning {
	var out []registry.Warning
	for _, w := range ws {
		if !insightCodes[w.Code] {
			out = append(out, w)
		}
	}
	return out
}

// testCert issues a certificate valid until notAfter by a CA named issuer, and returns
// it as the SMP client decodes it.
func testCert(t *testing.T, issuer pkix.Name, notAfter time.Time) *smp.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: issuer, NotBefore: testNow.AddDate(-5, 0, 0), NotAfter: testNow.AddDate(10, 0, 0),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(4711), Subject: pkix.Name{CommonName: "PBE000001", OrganizationalUnit: []string{"PEPPOL TEST AP"}, Organization: []string{"Test AP"}, Country: []string{"BE"}},
		NotBefore: notAfter.AddDate(-2, 0, 0), NotAfter: notAfter, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := smp.DecodeCertificate(base64.StdEncoding.EncodeToString(der))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// codes returns the codes of ws in order.
func codes(ws []registry.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

var (
	caG3     = pkix.Name{CommonName: "PEPPOL ACCESS POINT CA - G3", Organization: []string{"OpenPEPPOL AISBL"}, Country: []string{"BE"}}
	caG3Test = pkix.Name{CommonName: "PEPPOL ACCESS POINT TEST CA - G3", OrganizationalUnit: []string{"FOR TEST ONLY"}, Organization: []string{"OpenPEPPOL AISBL"}, Country: []string{"BE"}}
	caG2     = pkix.Name{CommonName: "PEPPOL ACCESS POINT CA - G2", Organization: []string{"OpenPEPPOL AISBL"}, Country: []string{"BE"}}
)

func TestCertificateWarnings(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	tests := []struct {
		name     string
		issuer   pkix.Name
		notAfter time.Time
		want     []string
		wantMsg  []string
		wantDays int
	}{
		{name: "valid G3", issuer: caG3, notAfter: testNow.Add(400 * day), want: []string{}, wantDays: 400},
		{name: "valid G3 test", issuer: caG3Test, notAfter: testNow.Add(400 * day), want: []string{}, wantDays: 400},
		{name: "valid G2", issuer: caG2, notAfter: testNow.Add(100 * day), want: []string{}, wantDays: 100},
		{name: "expired", issuer: caG3, notAfter: testNow.Add(-15 * day), want: []string{registry.WarnCertificateExpired}, wantMsg: []string{"2026-08-17", "15 days ago"}, wantDays: -15},
		// notAfter is inclusive (RFC 5280, the reference): valid at that instant,
		// expired a nanosecond later.
		{name: "expires this instant", issuer: caG3, notAfter: testNow, want: []string{registry.WarnCertificateExpiring}, wantDays: 0},
		{name: "expired a nanosecond ago", issuer: caG3, notAfter: testNow.Add(-time.Nanosecond), want: []string{registry.WarnCertificateExpired}, wantDays: -1},
		{name: "expiring in 10 days", issuer: caG3, notAfter: testNow.Add(10 * day), want: []string{registry.WarnCertificateExpiring}, wantMsg: []string{"2026-09-11", "in 10 days"}, wantDays: 10},
		{name: "expiring in 1 day", issuer: caG3, notAfter: testNow.Add(day + time.Hour), want: []string{registry.WarnCertificateExpiring}, wantMsg: []string{"(in 1 day)"}, wantDays: 1},
		{name: "expiring in exactly 30 days", issuer: caG3, notAfter: testNow.Add(30 * day), want: []string{registry.WarnCertificateExpiring}, wantDays: 30},
		{name: "31 days left", issuer: caG3, notAfter: testNow.Add(31 * day), want: []string{}, wantDays: 31},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := certificateInfo(testCert(t, tt.issuer, tt.notAfter), testNow)
			ws := certificateWarnings(&c.Certificate, testNow)
			if got := codes(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("codes %v, want %v (%+v)", got, tt.want, ws)
			}
			for _, s := range tt.wantMsg {
				if !strings.Contains(ws[0].Message, s) {
					t.Errorf("message %q does not say %q", ws[0].Message, s)
				}
			}
			if c.DaysRemaining != tt.wantDays || c.Expired != testNow.After(tt.notAfter) {
				t.Errorf("days %d expired %v, want %d", c.DaysRemaining, c.Expired, tt.wantDays)
			}
		})
	}
	if ws := certificateWarnings(nil, testNow); ws != nil {
		t.Errorf("no certificate: %+v", ws)
	}
}

func TestServiceDateWarnings(t *testing.T) {
	t.Parallel()
	past, future, justBefore := testNow.AddDate(0, 0, -10), testNow.AddDate(0, 0, 20), testNow.Add(-time.Nanosecond)
	tests := []struct {
		name                   string
		activation, expiration *time.Time
		want                   []string
		wantMsg                string
	}{
		{name: "no dates", want: []string{}},
		{name: "active, not expiring", activation: &past, expiration: &future, want: []string{}},
		{name: "not yet active", activation: &future, want: []string{registry.WarnServiceNotYetActive}, wantMsg: "2026-09-21T00:00:00Z"},
		{name: "activation this instant", activation: &testNow, want: []string{}},
		{name: "expired", expiration: &past, want: []string{registry.WarnServiceExpired}, wantMsg: "2026-08-22T00:00:00Z"},
		// The expiration date is inclusive, like a certificate's notAfter.
		{name: "expires this instant", expiration: &testNow, want: []string{}},
		{name: "expired a nanosecond ago", expiration: &justBefore, want: []string{registry.WarnServiceExpired}},
		{name: "both", activation: &future, expiration: &past, want: []string{registry.WarnServiceNotYetActive, registry.WarnServiceExpired}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := serviceDateWarnings(tt.activation, tt.expiration, testNow)
			if got := codes(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("codes %v, want %v", got, tt.want)
			}
			if tt.wantMsg != "" && !strings.Contains(ws[0].Message, tt.wantMsg) {
				t.Errorf("message %q does not say %q", ws[0].Message, tt.wantMsg)
			}
		})
	}
}

func TestEndpointURLWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want []string
	}{
		{"https://ap.example.be/as4", []string{}},
		{"HTTPS://ap.example.be/as4", []string{}},
		{"https://ap.example.be:443/as4", []string{}},
		{" https://ap.example.be/as4 ", []string{}},
		{"https://ap.example.be:8443/as4", []string{registry.WarnEndpointPort}},
		{"http://ap.example.be/as4", []string{registry.WarnEndpointNotHTTPS}},
		{"http://ap.example.be:8080/as4", []string{registry.WarnEndpointNotHTTPS, registry.WarnEndpointPort}},
		{"https://[::1]:4443/as4", []string{registry.WarnEndpointPort}},
		{"ap.example.be/as4", []string{registry.WarnEndpointNotHTTPS}},
		{"", []string{registry.WarnEndpointNotHTTPS}},
		{"https://ap.example.be:bad/", []string{registry.WarnEndpointNotHTTPS}},
		{"mailto:ap@example.be", []string{registry.WarnEndpointNotHTTPS}},
	}
	for _, tt := range tests {
		if got := codes(endpointURLWarnings(tt.url)); !slices.Equal(got, tt.want) {
			t.Errorf("endpointURLWarnings(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestTransportProfileWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tp   registry.TransportProfileInfo
		want []string
		info registry.TransportProfileInfo
	}{
		{name: "AS4 v2", tp: transportProfileInfo("peppol-transport-as4-v2_0"), want: []string{},
			info: registry.TransportProfileInfo{ID: "peppol-transport-as4-v2_0", Name: "Peppol AS4 profile 2.0", State: "active", Protocol: "AS4"}},
		{name: "AS2 v2", tp: transportProfileInfo("busdox-transport-as2-ver2p0"), want: []string{registry.WarnTransportProfileRemoved},
			info: registry.TransportProfileInfo{ID: "busdox-transport-as2-ver2p0", Name: "Peppol AS2 profile 2.0", State: "removed", Protocol: "AS2"}},
		{name: "START", tp: transportProfileInfo("busdox-transport-start"), want: []string{registry.WarnTransportProfileRemoved}},
		{name: "unknown", tp: transportProfileInfo("my-own-transport"), want: []string{registry.WarnTransportProfileUnknown},
			info: registry.TransportProfileInfo{ID: "my-own-transport", NonStandard: true}},
		{name: "case differs", tp: transportProfileInfo("PEPPOL-transport-as4-v2_0"), want: []string{registry.WarnTransportProfileUnknown}},
		{name: "deprecated", tp: registry.TransportProfileInfo{ID: "x", Name: "X", State: "deprecated"}, want: []string{registry.WarnTransportProfileDeprecated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codes(transportProfileWarnings(tt.tp)); !slices.Equal(got, tt.want) {
				t.Errorf("codes %v, want %v", got, tt.want)
			}
			if tt.info.ID != "" && tt.tp != tt.info {
				t.Errorf("info %+v, want %+v", tt.tp, tt.info)
			}
		})
	}
}

// firstInState returns a document type of the code list in state s.
func firstInState(t *testing.T, s codelist.State) smp.Identifier {
	t.Helper()
	for _, d := range codelist.DocumentTypes() {
		if d.State == s && d.Scheme == codelist.DocTypeScheme {
			return smp.Identifier{Scheme: d.Scheme, Value: d.Value}
		}
	}
	t.Fatalf("the code list has no document type in state %s", s)
	return smp.Identifier{}
}

func TestDocumentTypeWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		id        smp.Identifier
		want      []string
		wantState string
	}{
		{name: "BIS invoice", id: bisBillingInvoice, want: []string{}, wantState: "active"},
		{name: "scheme upper case", id: smp.Identifier{Scheme: "BUSDOX-DOCID-QNS", Value: bisBillingInvoice.Value}, want: []string{}, wantState: "active"},
		{name: "deprecated", id: firstInState(t, codelist.StateDeprecated), want: []string{registry.WarnDocumentTypeDeprecated}, wantState: "deprecated"},
		{name: "removed", id: firstInState(t, codelist.StateRemoved), want: []string{registry.WarnDocumentTypeRemoved}, wantState: "removed"},
		{name: "non-standard", id: smp.Identifier{Scheme: smp.DocTypeScheme, Value: "urn:example:my-invoice::1.0"}, want: []string{registry.WarnDocumentTypeNonStandard}},
		{name: "value case differs", id: smp.Identifier{Scheme: smp.DocTypeScheme, Value: strings.ToLower(bisBillingInvoice.Value)}, want: []string{registry.WarnDocumentTypeNonStandard}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := documentTypeInfo(tt.id)
			if got := codes(documentTypeWarnings(d)); !slices.Equal(got, tt.want) {
				t.Errorf("codes %v, want %v", got, tt.want)
			}
			if d.State != tt.wantState || d.NonStandard != (tt.wantState == "") || d.ID != tt.id.String() || (d.Name == "") != d.NonStandard {
				t.Errorf("info %+v", d)
			}
		})
	}
	if d := documentTypeInfo(bisBillingInvoice); d.Name != "Peppol BIS Billing UBL Invoice V3" || d.Category != "Invoice" {
		t.Errorf("BIS invoice: %+v", d)
	}
}

func TestProcessInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id          smp.Identifier
		wantName    string
		nonStandard bool
	}{
		{id: smp.Identifier{Scheme: smp.ProcessScheme, Value: "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"}, wantName: "*"},
		{id: smp.Identifier{Scheme: "busdox-procid-ubl", Value: smp.NoProcess}, wantName: "no process"},
		{id: smp.Identifier{}, wantName: "any process (the SMP names none)"},
		{id: smp.Identifier{Scheme: smp.ProcessScheme, Value: "urn:example:process"}, nonStandard: true},
	}
	for _, tt := range tests {
		p := processInfo(tt.id)
		if p.NonStandard != tt.nonStandard || tt.wantName == "*" && p.Name == "" || tt.wantName != "*" && p.Name != tt.wantName {
			t.Errorf("processInfo(%v) = %+v", tt.id, p)
		}
	}
}

func TestDirectoryWarnings(t *testing.T) {
	t.Parallel()
	inv := smp.Identifier{Scheme: smp.DocTypeScheme, Value: "inv"}
	cn := smp.Identifier{Scheme: smp.DocTypeScheme, Value: "cn"}
	ord := smp.Identifier{Scheme: smp.DocTypeScheme, Value: "order"}
	card := func(ids ...smp.Identifier) *registry.DirectoryRecord {
		r := &registry.DirectoryRecord{DocTypes: []registry.IDParts{}}
		for _, id := range ids {
			r.DocTypes = append(r.DocTypes, registry.IDParts{Scheme: id.Scheme, Value: id.Value})
		}
		return r
	}
	tests := []struct {
		name    string
		card    *registry.DirectoryRecord
		smp     []smp.Identifier
		want    []string
		wantMsg string
	}{
		{name: "no card", card: nil, smp: []smp.Identifier{inv}, want: []string{registry.WarnDirectoryCardMissing}},
		{name: "same", card: card(inv, cn), smp: []smp.Identifier{cn, inv}, want: []string{}},
		{name: "scheme case differs", card: card(smp.Identifier{Scheme: "BUSDOX-DOCID-QNS", Value: "inv"}), smp: []smp.Identifier{inv}, want: []string{}},
		{name: "value case differs", card: card(smp.Identifier{Scheme: smp.DocTypeScheme, Value: "INV"}), smp: []smp.Identifier{inv}, want: []string{registry.WarnDirectoryDocTypesMismatch}},
		{name: "card lacks one", card: card(inv), smp: []smp.Identifier{inv, cn}, want: []string{registry.WarnDirectoryDocTypesMismatch},
			wantMsg: "1 document type the SMP lists is missing from the card, and 0 document types on the card are not listed by the SMP"},
		{name: "both sides", card: card(inv, ord, smp.Identifier{Scheme: smp.DocTypeScheme, Value: "despatch"}), smp: []smp.Identifier{inv, cn}, want: []string{registry.WarnDirectoryDocTypesMismatch},
			wantMsg: "1 document type the SMP lists is missing from the card, and 2 document types on the card are not listed by the SMP"},
		{name: "empty card, empty SMP", card: card(), smp: nil, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := directoryWarnings(tt.card, tt.smp)
			if got := codes(ws); !slices.Equal(got, tt.want) {
				t.Fatalf("codes %v, want %v", got, tt.want)
			}
			if tt.wantMsg != "" && !strings.Contains(ws[0].Message, tt.wantMsg) {
				t.Errorf("message %q does not say %q", ws[0].Message, tt.wantMsg)
			}
		})
	}
}

func TestDaysUntil(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {time.Hour, 0}, {24 * time.Hour, 1}, {47 * time.Hour, 1}, {-time.Hour, -1}, {-24 * time.Hour, -1}, {-25 * time.Hour, -2},
	}
	for _, tt := range tests {
		if got := daysUntil(testNow.Add(tt.d), testNow); got != tt.want {
			t.Errorf("daysUntil(now%+v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	// Away from midnight the days are calendar days (UTC), as a person counts them
	// from the date the answer shows: a certificate that expired on 2026-11-12 at
	// 05:00 expired 15 days before 2026-11-27 at 06:00, not 16 (issue 26).
	now := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	calendar := []struct {
		t    time.Time
		want int
	}{
		{time.Date(2026, 11, 12, 5, 0, 0, 0, time.UTC), -15},
		{time.Date(2026, 11, 12, 23, 59, 0, 0, time.UTC), -15},
		{time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC), 0},
		{time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC), 0},
		{time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC), 1},
		{time.Date(2026, 12, 1, 0, 30, 0, 0, time.UTC), 4},
		{time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC), -1},
		{time.Date(2026, 11, 27, 8, 0, 0, 0, time.FixedZone("CEST", 2*3600)), 0},
	}
	for _, tt := range calendar {
		if got := daysUntil(tt.t, now); got != tt.want {
			t.Errorf("daysUntil(%s) at %s = %d, want %d", tt.t, now, got, tt.want)
		}
	}
}

func TestUntilDateChange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	ttl := 15 * time.Minute
	tests := []struct {
		name     string
		instants []time.Time
		want     time.Duration
	}{
		{"nothing changes", nil, ttl},
		{"all in the past", []time.Time{now.Add(-time.Hour)}, ttl},
		{"beyond the ttl", []time.Time{now.Add(time.Hour)}, ttl},
		{"a certificate expires in 5 minutes", []time.Time{now.Add(time.Hour), now.Add(5 * time.Minute)}, 5 * time.Minute},
		{"in half a second: a second", []time.Time{now.Add(500 * time.Millisecond)}, time.Second},
	}
	for _, tt := range tests {
		if got := untilDateChange(ttl, now, tt.instants); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	exp := now.Add(40 * 24 * time.Hour)
	if got := endpointInstants(nil, nil, &registry.Certificate{NotAfter: exp}); len(got) != 2 || !got[0].Equal(exp.Add(time.Nanosecond)) || !got[1].Equal(exp.Add(-30*24*time.Hour)) {
		t.Errorf("certificate instants %v", got)
	}
}
