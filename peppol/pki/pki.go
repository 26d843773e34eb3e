// Package pki says whether a certificate was issued under the OpenPeppol PKI, and on
// which network: an SMP's signing certificate must chain to the SMP CA of the network
// asked, an access point's certificate to its AP CA. The OpenPeppol root and issuing CA
// certificates (production and test; G3, G2 and the expired 2010 generation) ship with
// the binary (certs/, with their provenance); further anchors, for the demo, netsim or
// a private test network, are added per network with the same code path (Add).
package pki

import (
	"crypto/x509"
	"embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// Chain names the PKI a certificate chains to.
type Chain string

// The chains.
const (
	// Production: the OpenPeppol production PKI.
	Production Chain = "peppol-production"
	// Test: the OpenPeppol test PKI.
	Test Chain = "peppol-test"
	// Operator: CAs the operator of peppolgate trusts for a private network of
	// theirs (-trust-ca), which OpenPeppol did not issue; they count as the
	// network's own, under a name that never passes them off as OpenPeppol's.
	Operator Chain = "operator"
	// Other: neither, or the chain does not verify.
	Other Chain = "other"
)

// Role is what a certificate is for: signing SMP answers or running an access point.
type Role int

// The roles.
const (
	SMP Role = iota
	AccessPoint
)

func (r Role) String() string {
	if r == SMP {
		return "SMP"
	}
	return "access point"
}

//go:embed certs/*.pem
var certFiles embed.FS

// Anchors are the trust anchors of each chain: its roots, and its issuing CAs by role.
// The zero value trusts nothing. It is safe for concurrent use once built.
type Anchors struct {
	chains map[Chain]*anchorSet
}

type anchorSet struct {
	roots []*x509.Certificate
	cas   map[Role][]*x509.Certificate
	// rootPool and caPools hold the same certificates as the pools crypto/x509
	// verifies with, kept up to date by AddRoot and AddCA rather than rebuilt for
	// every certificate checked.
	rootPool *x509.CertPool
	caPools  map[Role]*x509.CertPool
}

// Peppol returns the anchors of the OpenPeppol PKI that ship with the binary. It
// returns an error only when an embedded file cannot be read, which a test guards.
func Peppol() (*Anchors, error) {
	a := &Anchors{}
	files, err := fs.Glob(certFiles, "certs/*.pem")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := certFiles.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(path.Base(f), ".pem")
		chain := Production
		if strings.HasPrefix(name, "test-") {
			chain = Test
		}
		kind, role := "ca", AccessPoint
		switch {
		case strings.Contains(name, "-root-"):
			kind = "root"
		case strings.Contains(name, "-smp-"):
			role = SMP
		}
		certs, err := ParsePEM(b)
		if err != nil {
			return nil, fmt.Errorf("pki: %s: %w", f, err)
		}
		for _, c := range certs {
			if kind == "root" {
				a.AddRoot(chain, c)
			} else {
				a.AddCA(chain, role, c)
			}
		}
	}
	return a, nil
}

// ParsePEM returns the certificates of PEM data. It returns an error for data that
// holds none or a block that is not a readable certificate.
func ParsePEM(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("a PEM block of type %q is not a certificate", b.Type)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate found")
	}
	return out, nil
}

// AddPEM trusts the CA certificates of PEM data for chain, sorted as a private
// network's PKI is expected to be laid out: a self-signed certificate is a root; an
// issuing CA whose common name says SMP or SERVICE METADATA PUBLISHER issues SMP
// certificates; any other issuing CA, access point certificates. It returns an error
// for data without certificates or with one that is not a CA's. Call it before the
// anchors are shared.
func (a *Anchors) AddPEM(chain Chain, data []byte) error {
	certs, err := ParsePEM(data)
	if err != nil {
		return err
	}
	for _, c := range certs {
		if !c.IsCA {
			return fmt.Errorf("%s is not a CA certificate", c.Subject)
		}
	}
	for _, c := range certs {
		cn := strings.ToUpper(c.Subject.CommonName)
		switch {
		case string(c.RawIssuer) == string(c.RawSubject) && c.CheckSignatureFrom(c) == nil:
			a.AddRoot(chain, c)
		case strings.Contains(cn, "SERVICE METADATA PUBLISHER") || strings.Contains(cn, "SMP"):
			a.AddCA(chain, SMP, c)
		default:
			a.AddCA(chain, AccessPoint, c)
		}
	}
	return nil
}

func (a *Anchors) set(chain Chain) *anchorSet {
	if a.chains == nil {
		a.chains = map[Chain]*anchorSet{}
	}
	s := a.chains[chain]
	if s == nil {
		s = &anchorSet{cas: map[Role][]*x509.Certificate{}, rootPool: x509.NewCertPool(), caPools: map[Role]*x509.CertPool{}}
		a.chains[chain] = s
	}
	return s
}

// AddRoot trusts root as a root of chain. Call it before the anchors are shared.
func (a *Anchors) AddRoot(chain Chain, root *x509.Certificate) {
	s := a.set(chain)
	s.roots = append(s.roots, root)
	s.rootPool.AddCert(root)
}

// AddCA trusts ca as an issuing CA of chain for role; certificates it issued verify
// only when it chains to one of the chain's roots. Call it before the anchors are
// shared.
func (a *Anchors) AddCA(chain Chain, role Role, ca *x509.Certificate) {
	s := a.set(chain)
	s.cas[role] = append(s.cas[role], ca)
	if s.caPools[role] == nil {
		s.caPools[role] = x509.NewCertPool()
	}
	s.caPools[role].AddCert(ca)
}

// Verify says which chain cert belongs to for role at the instant at: Production, Test
// or Operator when it was issued by one of that chain's CAs for role (not another
// role's) and chains to one of its roots, every certificate valid at at; OpenPeppol's
// chains are tried first. Weak says the chain
// holds a SHA-1 signature (the 2010 generation). It returns Other and an error saying
// why when no chain verifies.
func (a *Anchors) Verify(cert *x509.Certificate, role Role, at time.Time) (chain Chain, weak bool, err error) {
	var errs []error
	for _, ch := range chains {
		s := a.chains[ch]
		if s == nil || len(s.cas[role]) == 0 {
			continue
		}
		weak, err := s.verify(cert, role, at)
		if err == nil {
			return ch, weak, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return Other, false, fmt.Errorf("no %s CA is trusted", role)
	}
	return Other, false, fmt.Errorf("the certificate does not chain to an OpenPeppol %s CA: %w", role, firstError(errs))
}

// Issuer returns the trusted CA of role that issued cert (its name and its signature
// match), for an OCSP request about cert; nil when no trusted CA did.
func (a *Anchors) Issuer(cert *x509.Certificate, role Role) *x509.Certificate {
	for _, ch := range chains {
		s := a.chains[ch]
		if s == nil {
			continue
		}
		for _, ca := range s.cas[role] {
			if string(ca.RawSubject) == string(cert.RawIssuer) && ca.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil {
				return ca
			}
		}
	}
	return nil
}

// chains are the chains Verify and Issuer try, in order.
var chains = [...]Chain{Production, Test, Operator}

// firstError prefers an error that says more than "unknown authority".
func firstError(errs []error) error {
	for _, err := range errs {
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) {
			return err
		}
	}
	return errs[0]
}

// verify checks cert against the set with crypto/x509, or, when a SHA-1 signature in
// the chain makes crypto/x509 refuse it, link by link (legacy).
func (s *anchorSet) verify(cert *x509.Certificate, role Role, at time.Time) (weak bool, err error) {
	chains, err := cert.Verify(x509.VerifyOptions{Roots: s.rootPool, Intermediates: s.caPools[role], CurrentTime: at,
		// Peppol certificates carry clientAuth only; the usage is the CA's to say.
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err == nil {
		// The role is its issuing CA's: a certificate a root signed directly is no
		// SMP's or access point's.
		for _, ch := range chains {
			if len(ch) >= 3 && slices.ContainsFunc(s.cas[role], ch[1].Equal) {
				return false, nil
			}
		}
		return false, fmt.Errorf("the certificate is not issued by an OpenPeppol %s CA", role)
	}
	if sha1, lerr := s.verifyLegacy(cert, role, at); lerr != nil || !sha1 {
		// A chain without SHA-1 is crypto/x509's to judge, whatever the links say.
		return false, err
	}
	return true, nil
}

// isSHA1 says whether c is signed with SHA-1.
func isSHA1(c *x509.Certificate) bool {
	return c.SignatureAlgorithm == x509.SHA1WithRSA || c.SignatureAlgorithm == x509.ECDSAWithSHA1
}

// verifyLegacy checks the two links leaf → CA → root of a chain of the 2010
// generation, whose CAs crypto/x509 refuses for their SHA-1 signatures: only a CA that
// is itself signed with SHA-1 is considered (a SHA-1 leaf under a SHA-2 CA stays
// refused); each signature is checked with the issuer's key (CheckSignature accepts
// SHA-1), names chained by their raw bytes, the CA a CA and the leaf not, and every
// certificate valid at at. sha1 says whether the chain found holds a SHA-1 signature.
func (s *anchorSet) verifyLegacy(cert *x509.Certificate, role Role, at time.Time) (sha1 bool, err error) {
	valid := func(c *x509.Certificate) bool { return !at.Before(c.NotBefore) && !at.After(c.NotAfter) }
	signedBy := func(child, parent *x509.Certificate) bool {
		return string(child.RawIssuer) == string(parent.RawSubject) &&
			parent.CheckSignature(child.SignatureAlgorithm, child.RawTBSCertificate, child.Signature) == nil
	}
	if !valid(cert) {
		return false, errors.New("the certificate is not valid at that time")
	}
	if cert.IsCA {
		return false, errors.New("the certificate is a CA's")
	}
	for _, ca := range s.cas[role] {
		if !ca.IsCA || !isSHA1(ca) || !valid(ca) || !signedBy(cert, ca) {
			continue
		}
		for _, root := range s.roots {
			if valid(root) && signedBy(ca, root) {
				return isSHA1(cert) || isSHA1(ca), nil
			}
		}
	}
	return false, errors.New("no legacy chain")
}
