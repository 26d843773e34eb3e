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

// pki holds the certificates of a running network: a simulated root, and under it a
// test CA for access points and one for SMPs; a non-Peppol CA; an ECDSA P-256 certificate per access point and a signing
// key and certificate per SMP host. Keys are random (crypto/rand), so certificates
// differ between runs; their subjects, serials and validity come from the Dataset.
type pki struct {
	// apCACert and apCAKey sign the OCSP responder's answers about access points,
	// smpCACert and smpCAKey those about SMP signing certificates.
	apCACert, smpCACert *x509.Certificate
	apCAKey, smpCAKey   *ecdsa.PrivateKey
	root                []byte   // DER of the simulated root, issuer of apCA and smpCA
	apCA                []byte   // DER
	smpCA               []byte   // DER
	otherCA             []byte   // DER of the non-Peppol CA of AccessPoint.NonPeppolCA
	ap                  [][]byte // DER per Dataset.AccessPoints entry
	smp                 [][]byte // DER per Dataset.SMPHosts entry
	smpKy               []*ecdsa.PrivateKey
	// For the signature faults: a key no certificate holds; an SMP certificate of the
	// SMP CA that has expired, and one from a CA outside the network's PKI, each with
	// its key.
	wrongKey                *ecdsa.PrivateKey
	expiredSMP, otherSMP    []byte
	expiredKey, otherSMPKey *ecdsa.PrivateKey
}

// CA subjects. The simulated Peppol CAs carry the subjects of the real OpenPeppol PKI
// G3 (2025) test CAs, so that code checking "issued by a Peppol AP CA" accepts netsim's
// access points; the access point certificates themselves say OU=PEPPOL TEST AP, as
// test-PKI certificates do. The real subjects, as phax/peppol-commons asserts them for
// the 2025 trust stores (peppol-commons/src/test/java/com/helger/peppol/security/
// PeppolTrustStoresTest.java, Config2025; the trust store aliases, e.g. "peppol access
// point test ca - g3 (peppol root test ca - g3)", are listed in
// peppol-commons/src/main/resources/truststore/readme.md), are:
//
//	production AP CA:  CN=PEPPOL ACCESS POINT CA - G3,O=OpenPEPPOL AISBL,C=BE
//	production SMP CA: CN=PEPPOL SERVICE METADATA PUBLISHER CA - G3,O=OpenPEPPOL AISBL,C=BE
//	production root:   CN=PEPPOL Root CA - G3,O=OpenPEPPOL AISBL,C=BE
//	test AP CA:        CN=PEPPOL ACCESS POINT TEST CA - G3,OU=FOR TEST ONLY,O=OpenPEPPOL AISBL,C=BE
//	test SMP CA:       CN=PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3,OU=FOR TEST ONLY,O=OpenPEPPOL AISBL,C=BE
//	test root:         CN=PEPPOL Root TEST CA - G3,OU=FOR TEST ONLY,O=OpenPEPPOL AISBL,C=BE
//
// netsim's root is its own (rootName, under the same organisation), so only the CAs'
// subjects match the real ones: a chain check against the real trust store fails, as it
// must, and one against netsim's anchors (Network.TrustAnchors) passes.
const (
	rootName  = "NETSIM Root TEST CA"
	apCAName  = "PEPPOL ACCESS POINT TEST CA - G3"
	smpCAName = "PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3"
	caOU      = "FOR TEST ONLY"
	caOrg     = "OpenPEPPOL AISBL"
	caCountry = "BE"

	// otherCAName is the self-made CA of AccessPoint.NonPeppolCA certificates.
	otherCAName    = "Example Corp Issuing CA"
	otherCAOrg     = "Example Corp"
	otherCACountry = "NL"
)

// newPKI makes the certificates of ds; the access points' name ocspURL as their OCSP
// responder ("" for none).
func newPKI(ds *Dataset, ocspURL string) (*pki, error) {
	p := &pki{}
	notBefore := ds.Now.AddDate(-3, 0, 0)
	notAfter := ds.Now.AddDate(7, 0, 0)
	root, rootKey, err := newCA(nil, nil, 1, peppolCASubject(rootName), notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	apCA, apCAKey, err := newCA(root, rootKey, 2, peppolCASubject(apCAName), notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	smpCA, smpCAKey, err := newCA(root, rootKey, 3, peppolCASubject(smpCAName), notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	p.root, p.apCA, p.smpCA = root.Raw, apCA.Raw, smpCA.Raw
	p.apCACert, p.apCAKey, p.smpCACert, p.smpCAKey = apCA, apCAKey, smpCA, smpCAKey
	var otherCA *x509.Certificate
	var otherCAKey *ecdsa.PrivateKey
	for _, a := range ds.AccessPoints {
		ca, caKey := apCA, apCAKey
		if a.NonPeppolCA {
			if otherCA == nil {
				otherCA, otherCAKey, err = newCA(nil, nil, 1, pkix.Name{CommonName: otherCAName,
					Organization: []string{otherCAOrg}, Country: []string{otherCACountry}}, notBefore, notAfter)
				if err != nil {
					return nil, err
				}
				p.otherCA = otherCA.Raw
			}
			ca, caKey = otherCA, otherCAKey
		}
		der, _, err := leaf(ca, caKey, a.Serial, pkix.Name{
			CommonName: a.SeatID, OrganizationalUnit: []string{"PEPPOL TEST AP"},
			Organization: []string{a.Organisation}, Country: []string{a.Country},
		}, a.NotBefore, a.NotAfter, ocspURL)
		if err != nil {
			return nil, err
		}
		p.ap = append(p.ap, der)
	}
	for i, h := range ds.SMPHosts {
		der, key, err := leaf(smpCA, smpCAKey, int64(smpSerialBase+i), smpSubject(h), notBefore, notAfter, ocspURL)
		if err != nil {
			return nil, err
		}
		p.smp = append(p.smp, der)
		p.smpKy = append(p.smpKy, key)
	}
	if p.wrongKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, fmt.Errorf("netsim: generate key: %w", err)
	}
	faulty := pkix.Name{CommonName: "PTEST999999", OrganizationalUnit: []string{"PEPPOL TEST SMP"}, Organization: []string{"NetSim SMP faults"}, Country: []string{"BE"}}
	if p.expiredSMP, p.expiredKey, err = leaf(smpCA, smpCAKey, 5999, faulty, notBefore, ds.Now.AddDate(0, -1, 0)); err != nil {
		return nil, err
	}
	otherSMPCA, otherSMPCAKey, err := newCA(nil, nil, 1, pkix.Name{CommonName: "Example SMP CA", Organization: []string{otherCAOrg}, Country: []string{otherCACountry}}, notBefore, notAfter)
	if err != nil {
		return nil, err
	}
	if p.otherSMP, p.otherSMPKey, err = leaf(otherSMPCA, otherSMPCAKey, 5998, faulty, notBefore, notAfter); err != nil {
		return nil, err
	}
	return p, nil
}

// smpSerialBase is the serial number of SMP host 0's signing certificate; host i's is
// smpSerialBase+i.
const smpSerialBase = 5000

func smpSubject(h SMPHost) pkix.Name {
	return pkix.Name{CommonName: h.SeatID, OrganizationalUnit: []string{"PEPPOL TEST SMP"},
		Organization: []string{"NetSim SMP " + h.Name}, Country: []string{"BE"}}
}

// smpCertificateUID is the subject of an SMP certificate in the "C=…,O=…,OU=…,CN=…"
// order Redirect/CertificateUID values use.
func smpCertificateUID(h SMPHost) string {
	return "C=BE,O=NetSim SMP " + h.Name + ",OU=PEPPOL TEST SMP,CN=" + h.SeatID
}

// peppolCASubject is the subject of a simulated OpenPeppol test CA called cn.
func peppolCASubject(cn string) pkix.Name {
	return pkix.Name{CommonName: cn, OrganizationalUnit: []string{caOU}, Organization: []string{caOrg}, Country: []string{caCountry}}
}

// newCA makes a CA certificate for subject, issued by parent with parentKey, or
// self-signed (a root) when parent is nil.
func newCA(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, serial int64, subject pkix.Name, notBefore, notAfter time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: generate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               subject,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: parse CA certificate: %w", err)
	}
	return cert, key, nil
}

// leaf makes a certificate for subject issued by ca, naming ocsp (when any) as its
// OCSP responder.
func leaf(ca *x509.Certificate, caKey *ecdsa.PrivateKey, serial int64, subject pkix.Name, notBefore, notAfter time.Time, ocsp ...string) ([]byte, *ecdsa.PrivateKey, error) {
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
	for _, u := range ocsp {
		if u != "" {
			tmpl.OCSPServer = append(tmpl.OCSPServer, u)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("netsim: create certificate %s: %w", subject.CommonName, err)
	}
	return der, key, nil
}
