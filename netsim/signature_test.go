package netsim

import (
	"crypto/x509"
	"testing"
	"time"

	ppki "github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/smpsig"
)

// TestSignedAnswers: every ServiceMetadata and Redirect netsim writes, in every SMP
// host's style, carries a signature an XMLDSig verifier accepts, by a signer that
// chains to netsim's SMP CA under its root (and to no OpenPeppol CA); its access
// point certificates chain to netsim's AP CA.
func TestSignedAnswers(t *testing.T) {
	t.Parallel()
	ds := Generate(DatasetConfig{Seed: 5, Participants: 120})
	p, err := newPKI(ds, "")
	if err != nil {
		t.Fatal(err)
	}
	anchors := &ppki.Anchors{}
	for _, c := range []struct {
		der  []byte
		root bool
		role ppki.Role
	}{{p.root, true, 0}, {p.smpCA, false, ppki.SMP}, {p.apCA, false, ppki.AccessPoint}} {
		cert, err := x509.ParseCertificate(c.der)
		if err != nil {
			t.Fatal(err)
		}
		if c.root {
			anchors.AddRoot(ppki.Test, cert)
		} else {
			anchors.AddCA(ppki.Test, c.role, cert)
		}
	}
	peppol, err := ppki.Peppol()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	check := func(name string, doc []byte) {
		t.Helper()
		r := smpsig.Verify(doc)
		if r.Status != smpsig.Valid || r.Algorithm != "ecdsa-sha256" || r.Weak {
			t.Fatalf("%s: %+v\n%s", name, r, doc)
		}
		if ch, _, err := anchors.Verify(r.Signer, ppki.SMP, ds.Now); ch != ppki.Test || err != nil {
			t.Errorf("%s: signer chains to %s, %v", name, ch, err)
		}
		if ch, _, _ := peppol.Verify(r.Signer, ppki.SMP, ds.Now); ch != ppki.Other {
			t.Errorf("%s: a netsim signer chains to the OpenPeppol %s PKI", name, ch)
		}
		checked++
	}
	for hi, h := range ds.SMPHosts {
		check(h.Name+" redirect", redirectXML(h, h, "https://smp.example/x", p.smpKy[hi], p.smp[hi]))
	}
	for i := range ds.Participants {
		part := &ds.Participants[i]
		if part.SMPHost < 0 || part.SMPHost >= len(ds.SMPHosts) {
			continue
		}
		for j := range part.Services {
			check(part.ID.String(), serviceMetadataXML(ds.SMPHosts[part.SMPHost], part, &part.Services[j], p.ap, p.smpKy[part.SMPHost], p.smp[part.SMPHost]))
		}
	}
	if checked < 100 {
		t.Errorf("only %d answers checked", checked)
	}
	for i, der := range p.ap {
		cert, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		want := ppki.Test
		if ds.AccessPoints[i].NonPeppolCA {
			want = ppki.Other
		}
		at := cert.NotBefore.Add(time.Hour)
		if ch, _, _ := anchors.Verify(cert, ppki.AccessPoint, at); ch != want {
			t.Errorf("access point %d: %s, want %s", i, ch, want)
		}
	}
}
