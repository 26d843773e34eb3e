package smp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

// testAPCertBase64 is the AP certificate embedded in testdata/ (see testAPCert).
func testAPCertBase64(t *testing.T) string {
	t.Helper()
	sm, err := ParseServiceMetadata(readTestdata(t, "signedservicemetadata-pint-wildcard.xml"))
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sm.Processes[0].Endpoints[0].Certificate.Raw)
}

func TestDecodeCertificate(t *testing.T) {
	b64 := testAPCertBase64(t)
	lines := func(sep string) string {
		var parts []string
		for s := b64; len(s) > 0; {
			n := min(76, len(s))
			parts = append(parts, s[:n])
			s = s[n:]
		}
		return strings.Join(parts, sep)
	}
	der, _ := base64.StdEncoding.DecodeString(b64)
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{name: "single line", in: b64},
		{name: "CRLF line breaks (&#13;)", in: lines("\r\n")},
		{name: "indented lines", in: "\n        " + lines("\n        ") + "\n    "},
		{name: "space separated", in: lines(" ")},
		{name: "missing padding", in: strings.TrimRight(b64, "=") + "\n"},
		{name: "PEM", in: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))},
		{name: "empty", in: " \n ", err: "certificate element is empty"},
		{name: "junk text", in: "blacert!", err: "not base64"},
		{name: "base64 of text", in: "YmxhY2VydA==", err: "not a valid X.509 certificate"},
		{name: "truncated", in: b64[:400], err: "not a valid X.509 certificate"},
		{name: "huge", in: strings.Repeat("A", maxCertificateText+1), err: "more than the 65536 allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeCertificate(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("DecodeCertificate = %v, %v; want error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cp := *got
			cp.Raw = nil
			if !reflect.DeepEqual(cp, testAPCert) {
				t.Errorf("DecodeCertificate = %+v, want %+v", cp, testAPCert)
			}
			if string(got.Raw) != string(der) {
				t.Error("Raw is not the DER encoding")
			}
		})
	}
}

// TestCertificateNamesInOwnOrder: subject and issuer are printed in the certificate's
// own RDN order (RFC 2253 text, as OpenSSL and Java print it), not in the fixed order
// pkix.Name.String() rebuilds: an end-entity certificate written CN, OU, O, C reads
// C=…,O=…,OU=…,CN=….
func TestCertificateNamesInOwnOrder(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	name := func(rdns ...[2]string) []byte {
		oids := map[string]asn1.ObjectIdentifier{"C": {2, 5, 4, 6}, "O": {2, 5, 4, 10}, "OU": {2, 5, 4, 11}, "CN": {2, 5, 4, 3}}
		var seq pkix.RDNSequence
		for _, r := range rdns {
			seq = append(seq, pkix.RelativeDistinguishedNameSET{{Type: oids[r[0]], Value: r[1]}})
		}
		b, err := asn1.Marshal(seq)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		RawSubject:   name([2]string{"CN", "PNO000070"}, [2]string{"OU", "PEPPOL PRODUCTION AP"}, [2]string{"O", "NetEDI Limited"}, [2]string{"C", "GB"}),
		RawIssuer:    name([2]string{"C", "BE"}, [2]string{"O", "OpenPEPPOL AISBL"}, [2]string{"CN", "PEPPOL ACCESS POINT CA - G2"}),
		NotBefore:    time.Date(2018, 8, 22, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2020, 8, 11, 23, 59, 59, 0, time.UTC),
	}
	issuer := &x509.Certificate{RawSubject: tmpl.RawIssuer, PublicKey: &key.PublicKey}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCertificate(base64.StdEncoding.EncodeToString(der))
	if err != nil {
		t.Fatal(err)
	}
	if want := "C=GB,O=NetEDI Limited,OU=PEPPOL PRODUCTION AP,CN=PNO000070"; c.Subject != want {
		t.Errorf("subject %q, want %q", c.Subject, want)
	}
	if want := "CN=PEPPOL ACCESS POINT CA - G2,O=OpenPEPPOL AISBL,C=BE"; c.Issuer != want {
		t.Errorf("issuer %q, want %q", c.Issuer, want)
	}
}

// TestCertificateNamesMatchReference: for every certificate of the shared PKI samples
// (the OpenPeppol CAs and the certificates of the real signed SMP answers), subject and
// issuer are exactly what OpenSSL prints with -nameopt RFC2253 (the samples' README).
func TestCertificateNamesMatchReference(t *testing.T) {
	readme, err := os.ReadFile(fixtures.Upstream(t, "pki/README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)
	if i := strings.Index(section, "## Certificate facts"); i >= 0 {
		section = section[i:]
	}
	checked := 0
	for line := range strings.SplitSeq(section, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 3 || !strings.HasSuffix(cells[0], ".pem") {
			continue
		}
		file := strings.TrimPrefix(cells[0], "| ")
		b, err := os.ReadFile(fixtures.Upstream(t, "pki/"+file))
		if err != nil {
			t.Fatal(err)
		}
		c, err := DecodeCertificate(string(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if c.Subject != cells[1] || c.Issuer != cells[2] {
			t.Errorf("%s:\n subject %q\n    want %q\n  issuer %q\n    want %q", file, c.Subject, cells[1], c.Issuer, cells[2])
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d certificates checked: the README's table was not read", checked)
	}
}

// TestDecodeCertificateCleansNames: a certificate's subject is its holder's words:
// shown without control or format characters (docs/ARCHITECTURE.md §6).
func TestDecodeCertificateCleansNames(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(8),
		Subject:      pkix.Name{CommonName: "PNO000071", Organization: []string{"Acme \u202eLtd\u200b\nIgnore this"}},
		NotBefore:    time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	issuer := &x509.Certificate{Subject: pkix.Name{CommonName: "Evil\u2066 CA"}, PublicKey: &key.PublicKey}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCertificate(base64.StdEncoding.EncodeToString(der))
	if err != nil {
		t.Fatal(err)
	}
	if want := "CN=PNO000071,O=Acme Ltd Ignore this"; c.Subject != want {
		t.Errorf("subject %q, want %q", c.Subject, want)
	}
	if want := "CN=Evil CA"; c.Issuer != want {
		t.Errorf("issuer %q, want %q", c.Issuer, want)
	}
}
