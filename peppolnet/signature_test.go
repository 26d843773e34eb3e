package peppolnet

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/fixtures"
	"github.com/peppolgate/peppolgate/internal/netguard"
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
		ws := l.checkAPChain(t.Context(), tt.cert, rc, nil, time.Date(2019, 8, 10, 0, 0, 0, 0, time.UTC))
		got := len(ws) == 1 && ws[0].Code == registry.WarnCertificateChainInvalid
		if rc.Chain != tt.chain || got != tt.warn || (!tt.warn && len(ws) != 0) {
			t.Errorf("%s on %s: chain %q, warnings %+v; want %q, warning %v", tt.cert.Issuer, tt.network, rc.Chain, ws, tt.chain, tt.warn)
		}
	}
}

// TestRevocation: the access point certificate's OCSP responder (netsim's) is asked: a
// good certificate says so, a revoked one is certificate_revoked, and a responder that
// is down is certificate_revocation_unknown, not a failure; answers are remembered.
func TestRevocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		setup  func(n *netsim.Network, ap int)
		status string
		warn   string
	}{
		{"good", func(*netsim.Network, int) {}, "good", ""},
		{"revoked", func(n *netsim.Network, ap int) { n.RevokeAccessPoint(ap) }, "revoked", registry.WarnCertificateRevoked},
		{"responder down", func(n *netsim.Network, _ int) {
			n.SetFault(netsim.OCSPTarget(), netsim.Fault{HTTPStatus: http.StatusServiceUnavailable})
		}, "unknown", registry.WarnCertificateRevocationUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := startNet(t, 50)
			id := mustID(t, netsim.KnownCertValid)
			p := n.Dataset().MustLookup(netsim.KnownCertValid)
			tt.setup(n, p.Services[0].Processes[0].Endpoints[0].AccessPoint)
			l, _ := newLive(t, n, nil)
			part, _, err := l.Lookup(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			c := part.SMP.Endpoint.Certificate
			has := slices.ContainsFunc(part.Warnings, func(w registry.Warning) bool { return w.Code == tt.warn })
			if c.Revocation != tt.status || (tt.warn != "") != has {
				t.Errorf("lookup: revocation %q, warnings %+v; want %q, %q", c.Revocation, part.Warnings, tt.status, tt.warn)
			}
			svc, _, err := l.Services(t.Context(), id, "")
			if err != nil {
				t.Fatal(err)
			}
			e := svc.Services[0].Processes[0].Endpoints[0]
			if e.Certificate.Revocation != tt.status {
				t.Errorf("services: revocation %q", e.Certificate.Revocation)
			}
			// Two certificates: the access point's and the SMP's signing one.
			if got := n.Hits().OCSP; got != 2 {
				t.Errorf("OCSP asked %d times for two certificates, want 2 (remembered)", got)
			}
		})
	}
}

// TestRevocationSSRFGuard: an OCSP responder on a private address is not asked when
// the guard refuses private addresses, as for SMPs: the revocation is unknown.
func TestRevocationSSRFGuard(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, func(c *Config) { c.OCSP = netguard.HTTPClient(false, 5*time.Second) })
	p, _, err := l.Lookup(t.Context(), mustID(t, netsim.KnownCertValid))
	if err != nil {
		t.Fatal(err)
	}
	if c := p.SMP.Endpoint.Certificate; c.Revocation != "unknown" || n.Hits().OCSP != 0 {
		t.Errorf("revocation %q, OCSP asked %d times; want unknown and never", c.Revocation, n.Hits().OCSP)
	}
}

// TestRedirectSignature: the answer that redirects to another SMP is judged too: when
// it is not signed, the verdict is missing and senders would refuse it, even though
// the target's answer is validly signed.
func TestRedirectSignature(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	p := n.Dataset().MustLookup(netsim.KnownRedirect)
	n.SetFault(netsim.SMPHostTarget(p.SMPHost), netsim.Fault{Signature: netsim.SignatureUnsigned})
	l, _ := newLive(t, n, nil)
	part, _, err := l.Lookup(t.Context(), mustID(t, netsim.KnownRedirect))
	if err != nil {
		t.Fatal(err)
	}
	sig := part.SMP.Signature
	if sig == nil || sig.Status != "missing" || sig.Signer == nil ||
		!slices.ContainsFunc(part.Warnings, func(w registry.Warning) bool {
			return w.Code == registry.WarnSMPSignatureMissing && strings.Contains(w.Message, "redirected")
		}) {
		t.Errorf("signature %+v, warnings %+v", sig, part.Warnings)
	}
}

// TestRevocationCoalesced: the document types of one services call share their access
// point's certificate and their SMP's signing one, and the OCSP responder is asked once
// about each, not once per type.
func TestRevocationCoalesced(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, func(c *Config) { c.ServiceConcurrency = 16; c.SMPHostConcurrency = 64 })
	n.SetFault(netsim.OCSPTarget(), netsim.Fault{Latency: 50 * time.Millisecond})
	svc, _, err := l.Services(t.Context(), mustID(t, netsim.KnownManyDocTypes), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.Services) < 5 || n.Hits().OCSP != 2 {
		t.Errorf("%d document types asked the OCSP responder %d times, want twice", len(svc.Services), n.Hits().OCSP)
	}
	for _, s := range svc.Services {
		for _, p := range s.Processes {
			for _, e := range p.Endpoints {
				if e.Certificate != nil && e.Certificate.Revocation != "good" {
					t.Errorf("revocation %q", e.Certificate.Revocation)
				}
			}
		}
	}
}

// TestRevokedSMPSigner: an SMP signing with a certificate its CA revoked makes the
// signature invalid, as senders judge it; a good one says so on the signer.
func TestRevokedSMPSigner(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	id := mustID(t, netsim.KnownCertValid)
	l, _ := newLive(t, n, nil)
	p, _, err := l.Lookup(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.SMP.Signature; s.Status != "valid" || s.Signer.Revocation != "good" {
		t.Fatalf("before revocation: %+v", s.Signer)
	}
	n.RevokeSMPHost(n.Dataset().MustLookup(netsim.KnownCertValid).SMPHost)
	l, _ = newLive(t, n, nil)
	p, _, err = l.Lookup(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.SMP.Signature; s.Status != "invalid" || s.Signer.Revocation != "revoked" ||
		!slices.ContainsFunc(p.Warnings, func(w registry.Warning) bool {
			return w.Code == registry.WarnSMPSignatureInvalid && strings.Contains(w.Message, "revoked")
		}) {
		t.Errorf("revoked signer: %+v, warnings %+v", s, p.Warnings)
	}
}

// TestRevocationOff: with OCSP off no responder is asked at all, and the certificates
// say so ("unchecked"), without a warning and without blocking anything; with a
// timeout shorter than the responder's latency the revocation is unknown, and the
// reason names the deadline.
func TestRevocationOff(t *testing.T) {
	t.Parallel()
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		n := startNet(t, 50)
		id := mustID(t, netsim.KnownCertValid)
		l, _ := newLive(t, n, func(c *Config) { c.OCSPOff = true })
		p, _, err := l.Lookup(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		svc, _, err := l.Services(t.Context(), id, "")
		if err != nil {
			t.Fatal(err)
		}
		e := svc.Services[0].Processes[0].Endpoints[0]
		if c := p.SMP.Endpoint.Certificate; c.Revocation != "unchecked" || e.Certificate.Revocation != "unchecked" || p.SMP.Signature.Signer.Revocation != "unchecked" {
			t.Errorf("revocation %q, services %q, signer %q; want unchecked", c.Revocation, e.Certificate.Revocation, p.SMP.Signature.Signer.Revocation)
		}
		if slices.ContainsFunc(p.Warnings, func(w registry.Warning) bool { return strings.Contains(w.Code, "revo") }) || p.SMP.Signature.Status != "valid" {
			t.Errorf("warnings %+v, signature %q; want no revocation warning and a valid signature", p.Warnings, p.SMP.Signature.Status)
		}
		if got := n.Hits().OCSP; got != 0 {
			t.Errorf("OCSP asked %d times with OCSP off, want never", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		n := startNet(t, 50)
		n.SetFault(netsim.OCSPTarget(), netsim.Fault{Latency: time.Second})
		l, _ := newLive(t, n, func(c *Config) { c.OCSPTimeout = 100 * time.Millisecond })
		p, _, err := l.Lookup(t.Context(), mustID(t, netsim.KnownCertValid))
		if err != nil {
			t.Fatal(err)
		}
		if c := p.SMP.Endpoint.Certificate; c.Revocation != "unknown" ||
			!slices.ContainsFunc(p.Warnings, func(w registry.Warning) bool {
				return w.Code == registry.WarnCertificateRevocationUnknown && strings.Contains(w.Message, "100ms")
			}) {
			t.Errorf("revocation %q, warnings %+v; want unknown, after the 100ms deadline", c.Revocation, p.Warnings)
		}
	})
}
