package smp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Identifiers used throughout the tests.
const (
	bisInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	bisCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	bisProcess    = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
)

// The two self-signed certificates embedded in testdata/, generated once for this
// project with crypto/x509 (RSA 2048, SHA-256).
var (
	testAPCert = Certificate{
		Subject:      "CN=PGT000001,OU=PEPPOLGATE TEST AP,O=Peppolgate Test,C=NO",
		Issuer:       "CN=PGT000001,OU=PEPPOLGATE TEST AP,O=Peppolgate Test,C=NO",
		SerialNumber: "26719232096010222",
		NotBefore:    time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2027, 2, 28, 23, 59, 59, 0, time.UTC),
		SHA256:       "6d879ede0c48f0c9c8de588bce4d98ef0dc50c46f9f3c113c13c73ce982a1298",
	}
	testSMPCert = Certificate{
		Subject:      "CN=PGT000002,OU=PEPPOLGATE TEST SMP,O=Peppolgate Test,C=NO",
		Issuer:       "CN=PGT000002,OU=PEPPOLGATE TEST SMP,O=Peppolgate Test,C=NO",
		SerialNumber: "26719232112787438",
		NotBefore:    time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2027, 2, 28, 23, 59, 59, 0, time.UTC),
		SHA256:       "046ce37cba74cf17181c4731e1bad55198a0b1863ccb82ae4b0f9bd24a4dc6cf",
	}
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func tm(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func cert(c Certificate) *Certificate { return &c }

// withoutRaw returns a copy of sm with every Certificate.Raw cleared, after checking
// that each Raw is present, so expected values can be written without DER bytes.
func withoutRaw(t *testing.T, sm *ServiceMetadata) *ServiceMetadata {
	t.Helper()
	strip := func(c *Certificate) *Certificate {
		if c == nil {
			return nil
		}
		if len(c.Raw) == 0 {
			t.Errorf("certificate %s has no Raw DER", c.Subject)
		}
		cp := *c
		cp.Raw = nil
		return &cp
	}
	cp := *sm
	cp.SignerCertificate = strip(sm.SignerCertificate)
	cp.Processes = nil
	for _, p := range sm.Processes {
		np := Process{ID: p.ID}
		for _, e := range p.Endpoints {
			e.Certificate = strip(e.Certificate)
			np.Endpoints = append(np.Endpoints, e)
		}
		cp.Processes = append(cp.Processes, np)
	}
	return &cp
}
