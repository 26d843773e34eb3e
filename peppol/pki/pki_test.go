package pki

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

// TestEmbedded: every embedded certificate is read, sorted into its chain and role, and
// each issuing CA chains to a root of its own chain (not the other's) while valid.
func TestEmbedded(t *testing.T) {
	t.Parallel()
	a, err := Peppol()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Chain]int{}
	for ch, s := range a.chains {
		counts[ch] = len(s.roots)
		for role, cas := range s.cas {
			for _, ca := range cas {
				if !ca.IsCA {
					t.Errorf("%s %s: %s is no CA", ch, role, ca.Subject)
				}
				wantTest := strings.Contains(ca.Subject.CommonName, "TEST")
				if wantTest != (ch == Test) {
					t.Errorf("%s holds %s", ch, ca.Subject.CommonName)
				}
				if role == SMP != strings.Contains(ca.Subject.CommonName, "SERVICE METADATA PUBLISHER") {
					t.Errorf("%s as %s CA", ca.Subject.CommonName, role)
				}
			}
		}
	}
	if counts[Production] != 3 || counts[Test] != 3 {
		t.Errorf("roots per chain %v, want 3 (G3, G2, 2010) each", counts)
	}
}

// TestUpstreamChains: the SMP signers and access point certificates of the real signed
// SMP answers (shared upstream fixtures, see internal/fixtures) chain as openssl says:
// to their network's CA of their role at a time inside their validity, to nothing
// today (expired), and not as the other role.
func TestUpstreamChains(t *testing.T) {
	t.Parallel()
	a, err := Peppol()
	if err != nil {
		t.Fatal(err)
	}
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		file string
		role Role
		at   string
		want Chain
		weak bool
	}{
		{"signedservicemetadata-0088-5026744000002-as2.smp-signer.pem", SMP, "2020-03-05", Production, false},
		{"signedservicemetadata-0088-5026744000002-as2.endpoint-ap.pem", AccessPoint, "2019-08-17", Production, false},
		{"signedservicemetadata-0106-55872255-prefixed.smp-signer.pem", SMP, "2019-08-10", Production, false},
		{"signedservicemetadata-0106-55872255-prefixed.endpoint-ap.pem", AccessPoint, "2019-08-10", Production, false},
		{"signedservicemetadata-0192-923829644-as4.smp-signer.pem", SMP, "2025-02-11", Test, false},
		{"signedservicemetadata-0192-923829644-as4.endpoint-ap.pem", AccessPoint, "2023-07-05", Test, false},
		{"signedservicemetadata-0192-991825827-redirect.smp-signer.pem", SMP, "2021-10-28", Test, false},
		{"signedservicemetadata-9901-pint_c4_jp_sb-wildcard.smp-signer.pem", SMP, "2022-09-24", Test, false},
		{"signedservicemetadata-9901-pint_c4_jp_sb-wildcard.endpoint-ap.pem", AccessPoint, "2022-03-13", Test, false},
		// The 2010 generation: its CAs are signed with SHA-1.
		{"signedservicemetadata-9908-810418052-oasis-2014-07.smp-signer.pem", SMP, "2015-11-30", Test, true},
		{"signedservicemetadata-9908-810418052-oasis-2014-07.endpoint-ap.pem", AccessPoint, "2015-11-30", Test, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(fixtures.Upstream(t, "pki/from-smp-fixtures/"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			certs, err := ParsePEM(b)
			if err != nil {
				t.Fatal(err)
			}
			cert := certs[0]
			if ch, weak, err := a.Verify(cert, tt.role, day(tt.at)); ch != tt.want || weak != tt.weak || err != nil {
				t.Errorf("at %s: %s, weak %v, %v; want %s, weak %v", tt.at, ch, weak, err, tt.want, tt.weak)
			}
			if ch, _, err := a.Verify(cert, tt.role, day("2026-11-24")); ch != Other || err == nil {
				t.Errorf("today: %s, %v; want other (expired)", ch, err)
			}
			other := AccessPoint
			if tt.role == AccessPoint {
				other = SMP
			}
			if ch, _, err := a.Verify(cert, other, day(tt.at)); ch != Other || err == nil {
				t.Errorf("as %s: %s, %v; want other", other, ch, err)
			}
		})
	}
}

// TestAdd: anchors added for a private network verify its certificates on the same
// path; without them the same certificate is other.
func TestAdd(t *testing.T) {
	t.Parallel()
	root, rootKey := newCA(t, nil, nil, "Private Root CA")
	ca, caKey := newCA(t, root, rootKey, "Private SMP CA")
	leaf, _ := newCA(t, ca, caKey, "")
	a := &Anchors{}
	if ch, _, err := a.Verify(leaf, SMP, time.Now()); ch != Other || err == nil {
		t.Errorf("no anchors: %s, %v", ch, err)
	}
	a.AddRoot(Test, root)
	a.AddCA(Test, SMP, ca)
	if ch, weak, err := a.Verify(leaf, SMP, time.Now()); ch != Test || weak || err != nil {
		t.Errorf("added anchors: %s, %v, %v", ch, weak, err)
	}
	if ch, _, err := a.Verify(leaf, AccessPoint, time.Now()); ch != Other || err == nil {
		t.Errorf("as an access point: %s, %v", ch, err)
	}
}

// TestAddPEM: a private network's PEM bundle is sorted into roots and CAs by role, and
// certificates that are no CA's are refused.
func TestAddPEM(t *testing.T) {
	t.Parallel()
	root, rootKey := newCA(t, nil, nil, "Private Root CA")
	smpCA, smpKey := newCA(t, root, rootKey, "Private SMP CA")
	apCA, apKey := newCA(t, root, rootKey, "Private Access Point CA")
	smpLeaf, _ := newCA(t, smpCA, smpKey, "")
	apLeaf, _ := newCA(t, apCA, apKey, "")
	var bundle []byte
	for _, c := range []*x509.Certificate{root, smpCA, apCA} {
		bundle = append(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
	}
	a := &Anchors{}
	if err := a.AddPEM(Test, bundle); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cert *x509.Certificate
		role Role
		want Chain
	}{{smpLeaf, SMP, Test}, {apLeaf, AccessPoint, Test}, {smpLeaf, AccessPoint, Other}, {apLeaf, SMP, Other}} {
		if ch, _, _ := a.Verify(tt.cert, tt.role, time.Now()); ch != tt.want {
			t.Errorf("%s as %s: %s, want %s", tt.cert.Issuer.CommonName, tt.role, ch, tt.want)
		}
	}
	leafPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: apLeaf.Raw})
	if err := a.AddPEM(Test, leafPEM); err == nil || !strings.Contains(err.Error(), "not a CA") {
		t.Errorf("a leaf: %v", err)
	}
	if err := a.AddPEM(Test, []byte("no pem")); err == nil {
		t.Error("no certificates accepted")
	}
}

// TestRootSignedLeaf: a certificate a root signed directly has no issuing CA, so no
// role: it verifies as neither an SMP's nor an access point's.
func TestRootSignedLeaf(t *testing.T) {
	t.Parallel()
	root, rootKey := newCA(t, nil, nil, "Private Root CA")
	ca, _ := newCA(t, root, rootKey, "Private SMP CA")
	leaf, _ := newCA(t, root, rootKey, "")
	a := &Anchors{}
	a.AddRoot(Test, root)
	a.AddCA(Test, SMP, ca)
	a.AddCA(Test, AccessPoint, ca)
	for _, role := range []Role{SMP, AccessPoint} {
		if ch, _, err := a.Verify(leaf, role, time.Now()); ch != Other || err == nil {
			t.Errorf("as %s: %s, %v", role, ch, err)
		}
	}
}
