package smpsig

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"math/big"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

// TestUpstreamVerdicts: the real signed SMP answers among the shared upstream fixtures
// (see internal/fixtures) get exactly the verdicts xmlsec1 gives them; each valid one
// with one byte of its signed content changed, or of its SignatureValue, is invalid.
func TestUpstreamVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, signerCN string
		want           Status
	}{
		// Re-indented after signing: the reference (xmlsec1, peppol-commons) rejects it.
		{"smp-peppol/signedservicemetadata-0088-5026744000002-as2.xml", "PNO000070", Invalid},
		{"smp-peppol/signedservicemetadata-0106-55872255-prefixed.xml", "PNL000052", Valid},
		{"smp-peppol/signedservicemetadata-0192-923829644-as4.xml", "POP000010", Valid},
		{"smp-peppol/signedservicemetadata-0192-991825827-redirect.xml", "PNO000179", Valid},
		{"smp-peppol/signedservicemetadata-9901-pint_c4_jp_sb-wildcard.xml", "POP000010", Valid},
		{"smp-bdxr1/signedservicemetadata-9908-810418052-oasis-2014-07.xml", "SMP_1000000005", Valid},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			doc, err := os.ReadFile(fixtures.Upstream(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			r := Verify(doc)
			if r.Status != tt.want || r.Algorithm != "rsa-sha1" || !r.Weak || r.Signer == nil || r.Signer.Subject.CommonName != tt.signerCN {
				t.Fatalf("Verify = %+v (signer %v), want %s by %s, rsa-sha1, weak", r, signerCN(r), tt.want, tt.signerCN)
			}
			if tt.want != Valid {
				if !strings.Contains(r.Reason, "changed after it was signed") {
					t.Errorf("reason %q", r.Reason)
				}
				return
			}
			for _, change := range []struct {
				name string
				at   *regexp.Regexp
			}{
				{"a byte of the participant id or redirect", regexp.MustCompile(`(ParticipantIdentifier[^>]*>\s*|CertificateUID>)[^<]`)},
				{"a byte of the SignatureValue", regexp.MustCompile(`SignatureValue[^>]*>\s*[A-Za-z0-9+/]`)},
			} {
				loc := change.at.FindIndex(doc)
				if loc == nil {
					t.Fatalf("%s: not found", change.name)
				}
				changed := bytes.Clone(doc)
				changed[loc[1]-1] = flip(changed[loc[1]-1])
				if r := Verify(changed); r.Status != Invalid {
					t.Errorf("%s changed: %+v, want invalid", change.name, r)
				}
			}
		})
	}
}

func signerCN(r Result) string {
	if r.Signer == nil {
		return "none"
	}
	return r.Signer.Subject.CommonName
}

// flip changes a base64 or name character into another of the same kind.
func flip(b byte) byte {
	switch {
	case b == 'A':
		return 'B'
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
		return b ^ 0x20
	case b >= '0' && b <= '8':
		return b + 1
	}
	return '0'
}

const smpDoc = `<?xml version="1.0" encoding="UTF-8"?>
<SignedServiceMetadata xmlns="http://busdox.org/serviceMetadata/publishing/1.0/" xmlns:ids="http://busdox.org/transport/identifiers/1.0/"><ServiceMetadata><ServiceInformation><ids:ParticipantIdentifier scheme="iso6523-actorid-upis">0208:0677424046</ids:ParticipantIdentifier><!-- a comment the default canonicalisation drops --><Extension/></ServiceInformation></ServiceMetadata></SignedServiceMetadata>`

// signer is a key and its self-signed certificate.
type signer struct {
	key  crypto.Signer
	cert *x509.Certificate
}

func newSigner(t testing.TB, ec bool) signer {
	t.Helper()
	var key crypto.Signer
	var err error
	if ec {
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "PTEST000001", OrganizationalUnit: []string{"PEPPOL TEST SMP"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return signer{key: key, cert: cert}
}

// sign signs smpDoc (its root, enveloped) as goxmldsig's signer does, with method.
func sign(t testing.TB, s signer, method string, c dsig.Canonicalizer) []byte {
	t.Helper()
	d := etree.NewDocument()
	if err := d.ReadFromString(smpDoc); err != nil {
		t.Fatal(err)
	}
	ctx, err := dsig.NewSigningContext(s.key, [][]byte{s.cert.Raw})
	if err != nil {
		t.Fatal(err)
	}
	ctx.Canonicalizer = c
	if err := ctx.SetSignatureMethod(method); err != nil {
		t.Fatal(err)
	}
	signed, err := ctx.SignEnveloped(d.Root())
	if err != nil {
		t.Fatal(err)
	}
	d.SetRoot(signed)
	b, err := d.WriteToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerify covers what a signer may do and what may go wrong, on documents signed here.
func TestVerify(t *testing.T) {
	t.Parallel()
	rsaKey, ecKey, other := newSigner(t, false), newSigner(t, true), newSigner(t, false)
	valid := sign(t, rsaKey, dsig.RSASHA256SignatureMethod, dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(""))
	otherKey := sign(t, other, dsig.RSASHA256SignatureMethod, dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(""))
	// The signer's certificate swapped for another: the key no longer matches.
	wrongKey := bytes.Replace(otherKey, []byte(b64(other.cert.Raw)), []byte(b64(rsaKey.cert.Raw)), 1)
	two := bytes.Replace(valid, []byte("</SignedServiceMetadata>"), append(signatureOf(valid), []byte("</SignedServiceMetadata>")...), 1)
	tests := []struct {
		name   string
		doc    []byte
		want   Status
		alg    string
		weak   bool
		reason string
	}{
		{name: "rsa-sha256, exclusive c14n", doc: valid, want: Valid, alg: "rsa-sha256"},
		{name: "rsa-sha1, inclusive c14n", doc: sign(t, rsaKey, dsig.RSASHA1SignatureMethod, dsig.MakeC14N10RecCanonicalizer()), want: Valid, alg: "rsa-sha1", weak: true},
		{name: "ecdsa-sha256 in ASN.1", doc: sign(t, ecKey, dsig.ECDSASHA256SignatureMethod, dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")), want: Valid, alg: "ecdsa-sha256"},
		{name: "ecdsa-sha256 as r and s (RFC 6931)", doc: rawECDSA(t, sign(t, ecKey, dsig.ECDSASHA256SignatureMethod, dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(""))), want: Valid, alg: "ecdsa-sha256"},
		{name: "a byte changed", doc: bytes.Replace(valid, []byte("0677424046"), []byte("0677424047"), 1), want: Invalid, alg: "rsa-sha256", reason: "changed after it was signed"},
		{name: "the comment changed (not signed content)", doc: bytes.Replace(valid, []byte("a comment"), []byte("b comment"), 1), want: Valid, alg: "rsa-sha256"},
		{name: "another signer's key", doc: wrongKey, want: Invalid, alg: "rsa-sha256", reason: "does not match"},
		{name: "unsigned", doc: []byte(smpDoc), want: Missing},
		{name: "not XML", doc: []byte("<SignedServiceMetadata"), want: Unverifiable},
		{name: "two signatures", doc: two, want: Unverifiable},
		{name: "a Reference to part of the document", doc: bytes.Replace(valid, []byte(`URI=""`), []byte(`URI="#x"`), 1), want: Unverifiable, alg: "rsa-sha256"},
		{name: "an unknown signature method", doc: bytes.Replace(valid, []byte(dsig.RSASHA256SignatureMethod), []byte("urn:x:dsa"), 1), want: Unverifiable},
		{name: "no certificate", doc: regexp.MustCompile(`(?s)<ds:KeyInfo>.*</ds:KeyInfo>`).ReplaceAll(valid, nil), want: Unverifiable, alg: "rsa-sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Verify(tt.doc)
			if r.Status != tt.want || r.Algorithm != tt.alg || r.Weak != tt.weak || !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("Verify = %+v; want %s, %q, weak %v, reason containing %q", r, tt.want, tt.alg, tt.weak, tt.reason)
			}
			if (r.Status == Valid) != (r.Reason == "") {
				t.Errorf("reason %q for %s", r.Reason, r.Status)
			}
		})
	}
}

// TestReasonQuotesSMPTextCapped: an algorithm identifier the SMP wrote reaches the
// reason cleaned of format characters and capped (docs/INTERFACE.md §2.6), not whole.
func TestReasonQuotesSMPTextCapped(t *testing.T) {
	t.Parallel()
	valid := sign(t, newSigner(t, false), dsig.RSASHA256SignatureMethod, dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(""))
	hostile := "urn:x:\u202e" + strings.Repeat("evil", 2000)
	r := Verify(bytes.Replace(valid, []byte(dsig.RSASHA256SignatureMethod), []byte(hostile), 1))
	if r.Status != Unverifiable || !strings.Contains(r.Reason, "urn:x:evil") {
		t.Fatalf("Verify = %+v; want unverifiable naming the method", r)
	}
	if len(r.Reason) > 400 || strings.ContainsRune(r.Reason, '\u202e') || strings.Contains(r.Reason, `\u202e`) {
		t.Errorf("reason of %d bytes, not cleaned and capped: %.120q", len(r.Reason), r.Reason)
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// signatureOf returns the Signature element of a signed document, as written.
func signatureOf(doc []byte) []byte {
	return regexp.MustCompile(`(?s)<ds:Signature .*</ds:Signature>`).Find(doc)
}

// rawECDSA rewrites the ASN.1 ECDSA SignatureValue of doc as r and s side by side, 32
// bytes each (P-256), as XMLDSig writes it.
func rawECDSA(t testing.TB, doc []byte) []byte {
	t.Helper()
	re := regexp.MustCompile(`(<ds:SignatureValue>)([^<]+)(</ds:SignatureValue>)`)
	m := re.FindSubmatch(doc)
	der, err := base64.StdEncoding.DecodeString(string(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &rs); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 64)
	rs.R.FillBytes(raw[:32])
	rs.S.FillBytes(raw[32:])
	return re.ReplaceAll(doc, []byte("${1}"+b64(raw)+"${3}"))
}
