package peppolnet

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/fixtures"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// TestSignatureFaults: each way an SMP can sign badly shows in the lookup's and the
// services' signature verdict and warnings; a good signature chains to the network's
// anchors and warns of nothing.
func TestSignatureFaults(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	id := mustID(t, netsim.KnownCertValid)
	tests := []struct {
		fault  netsim.SignatureFault
		status string
		chain  string
		warn   []string
	}{
		{netsim.SignatureNone, "valid", "peppol-test", nil},
		{netsim.SignatureTampered, "invalid", "peppol-test", []string{registry.WarnSMPSignatureInvalid}},
		{netsim.SignatureWrongKey, "invalid", "peppol-test", []string{registry.WarnSMPSignatureInvalid}},
		{netsim.SignatureUnsigned, "missing", "", []string{registry.WarnSMPSignatureMissing}},
		{netsim.SignatureExpiredSigner, "invalid", "peppol-test", []string{registry.WarnSMPSignatureInvalid}},
		{netsim.SignatureOtherCA, "valid", "other", []string{registry.WarnSMPCertificateNotPeppol}},
	}
	signatureCodes := []string{registry.WarnSMPSignatureInvalid, registry.WarnSMPSignatureMissing, registry.WarnSMPCertificateNotPeppol, registry.WarnSignatureAlgorithmWeak}
	only := func(ws []registry.Warning) []string {
		var out []string
		for _, w := range ws {
			if slices.Contains(signatureCodes, w.Code) {
				out = append(out, w.Code)
			}
		}
		return out
	}
	for _, tt := range tests {
		// One case at a time: the fault is the network's.
		n.SetFault(netsim.ParticipantTarget(id), netsim.Fault{Signature: tt.fault})
		l, _ := newLive(t, n, nil)
		p, _, err := l.Lookup(t.Context(), id)
		if err != nil {
			t.Fatalf("fault %d: %v", tt.fault, err)
		}
		sig := p.SMP.Signature
		if sig == nil || sig.Status != tt.status || sig.Chain != tt.chain || !slices.Equal(only(p.Warnings), tt.warn) {
			t.Errorf("fault %d: lookup signature %+v, warnings %v; want %s, chain %q, %v", tt.fault, sig, only(p.Warnings), tt.status, tt.chain, tt.warn)
		}
		if tt.status != "missing" && (sig == nil || sig.Signer == nil || sig.Signer.Subject == "" || sig.Algorithm != "ecdsa-sha256") {
			t.Errorf("fault %d: signer %+v", tt.fault, sig)
		}
		svc, _, err := l.Services(t.Context(), id, "")
		if err != nil {
			t.Fatalf("fault %d: services: %v", tt.fault, err)
		}
		if s := svc.SMP.Signature; s == nil || s.Status != tt.status || !slices.Equal(only(svc.Warnings), tt.warn) {
			t.Errorf("fault %d: services signature %+v, warnings %v", tt.fault, s, only(svc.Warnings))
		}
		if p.SMP.Endpoint == nil || p.SMP.Endpoint.Certificate == nil || p.SMP.Endpoint.Certificate.Chain != "peppol-test" {
			t.Errorf("fault %d: endpoint certificate %+v", tt.fault, p.SMP.Endpoint)
		}
	}
	n.ClearFaults()
}

// TestCheckAPChain: real access point certificates (the shared upstream fixtures, see
// internal/fixtures) chain to their own network's OpenPeppol CA: a production one is
// accepted on production and refused on test, and the reverse; on a network without
// expectations either is accepted.
func TestCheckAPChain(t *testing.T) {
	t.Parallel()
	anchors, err := pki.Peppol()
	if err != nil {
		t.Fatal(err)
	}
	read := func(file string) *smp.Certificate {
		b, err := os.ReadFile(fixtures.Upstream(t, "pki/from-smp-fixtures/"+file))
		if err != nil {
			t.Fatal(err)
		}
		certs, err := pki.ParsePEM(b)
		if err != nil {
			t.Fatal(err)
		}
		c := certs[0]
		return &smp.Certificate{Raw: c.Raw, Issuer: c.Issuer.String(), NotAfter: c.NotAfter}
	}
	prod := read("signedservicemetadata-0106-55872255-prefixed.endpoint-ap.pem")
	test := read("signedservicemetadata-0192-923829644-as4.endpoint-ap.pem")
	tests := []struct {
		network string
		cert    *smp.Certificate
		chain   string
		warn    bool
	}{
		{"production", prod, "peppol-production", false},
		{"production", test, "peppol-test", true},
		{"test", test, "peppol-test", false},
		{"test", prod, "peppol-production", true},
		{"demo", test, "peppol-test", false},
	}
	for _, tt := range tests {
		l := &Registry{cfg: Config{Network: tt.network, Anchors: anchors}}
		rc := &registry.Certificate{}
		ws := l.checkAPChain(tt.cert, rc, nil, time.Date(2019, 8, 10, 0, 0, 0, 0, time.UTC))
		got := len(ws) == 1 && ws[0].Code == registry.WarnCertificateChainInvalid
		if rc.Chain != tt.chain || got != tt.warn || (!tt.warn && len(ws) != 0) {
			t.Errorf("%s on %s: chain %q, warnings %+v; want %q, warning %v", tt.cert.Issuer, tt.network, rc.Chain, ws, tt.chain, tt.warn)
		}
	}
}
