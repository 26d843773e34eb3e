package netsim

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"
)

// pki holds the certificates of a running network: a test CA for access points, one
// for SMPs, an ECDSA P-256 certificate per access point and a signing key and
// certificate per SMP host. Keys are random (crypto/rand), so certificates differ
// between runs; their subjects, serials and validity come from the Dataset.
type pki struct {
	apCA  []byte   // DER
	smpCA []byte   // DER
	ap    [][]byte // DER per Dataset.AccessPoints entry
	smp   [][]byte // DER per Dataset.SMPHosts entry
	smpKy []*ecdsa.PrivateKey
}

// Certificate subjects, shaped like the real OpenPeppol test PKI.
const (
	apCAName  = "PEPPOL ACCESS POINT TEST CA - G2"
	smpCAName = "PEPPOL SERVICE METADATA PUBLISHER TEST CA - G2"
	caOrg     = "NetSim Peppol Test PKI"
)

func newPKI(ds *Dataset) (*pki, error) {
	p := &pki{}
	notBefore := ds.Now.AddDate(-3, 0, 0)
	notAfter := ds.Now.AddDate(7, 0, 0)
	apCA, apCAKey, err := selfSigned(apCAName, notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	smpCA, smpCAKey, err := selfSigned(smpCAName, notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	p.apCA, p.smpCA = apCA.Raw, smpCA.Raw
	for _, a := range ds.AccessPoints {
		der, _, err := leaf(apCA, apCAKey, a.Serial, pkix.Name{
			CommonName: a.SeatID, OrganizationalUnit: []string{"PEPPOL TEST AP"},
			Organization: []string{a.Organisation}, Country: []string{a.Country},
		}, a.NotBefore, a.NotAfter)
		if err != nil {
			return nil, err
		}
		p.ap = append(p.ap, der)
	}
	for i, h := range ds.SMPHosts {
		der, key, err := leaf(smpCA, smpCAKey, int64(5000+i), smpSubject(h), notBefore, notAfter)
		if err != nil {
			return nil, err
		}
		p.smp = append(p.smp, der)
		p.smpKy = append(p.smpKy, key)
	}
	return p, nil
}

func smpSubject(h SMPHost) pkix.Name {
	return pkix.Name{CommonName: h.SeatID, OrganizationalUnit: []string{"PEPPOL TEST SMP"},
		Organization: []string{"NetSim SMP " + h.Name}, Country: []string{"BE"}}
}

// smpCertificateUID is the subject of an SMP certificate in the "C=…,O=…,OU=…,CN=…"
// order Redirect/CertificateUID values use.
func smpCertificateUID(h SMPHost) string {
	return "C=BE,O=NetSim SMP " + h.Name + ",OU=PEPPOL TEST SMP,CN=" + h.SeatID
}

func selfSigned(cn string, notBefore, notAfter time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn, OrganizationalUnit: []string{"FOR TEST ONLY"}, Organization: []string{caOrg}, Country: []string{"BE"}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: parse CA certificate: %w", err)
	}
	return cert, key, nil
}

func leaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, serial int64, subject pkix.Name, notBefore, notAfter time.Time) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: generate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      subject,
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyAgreement,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: create certificate %s: %w", subject.CommonName, err)
	}
	return der, key, nil
}
