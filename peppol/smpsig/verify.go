// Package smpsig verifies the enveloped XML signature of an SMP answer (Peppol SMP 1.x
// SignedServiceMetadata, OASIS BDXR SMP 1.0, and OASIS SMP 2.0 where signed) over the
// document exactly as received, as the XMLDSig core validation rules say: the one
// Reference (URI "", the whole document) is digested after the enveloped-signature
// transform and the canonicalisation it names (inclusive C14N 1.0 when it names none,
// the XMLDSig default), then SignedInfo, canonicalised as its CanonicalizationMethod
// says, is checked against SignatureValue with the key of the certificate in KeyInfo.
//
// Canonicalisation is github.com/russellhaering/goxmldsig's, never this package's own.
// Its ValidationContext.Validate is not used: it needs the signer pinned in a store
// (chains are checked apart, see package peppol/pki) and digests a Reference without a
// canonicalisation transform with comments kept, where the default drops them.
//
// Trust (which CA issued the signer) is not this package's business: Verify says
// whether the signature is sound and who signed.
package smpsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/subtle"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/russellhaering/goxmldsig/etreeutils"

	"github.com/peppolgate/peppolgate/internal/untrusted"
)

// Status is the verdict on an SMP answer's signature.
type Status string

// The verdicts.
const (
	// Valid: the digest and the signature check with the KeyInfo certificate's key.
	Valid Status = "valid"
	// Invalid: the document or SignedInfo was changed after signing (the digest or
	// the signature does not check).
	Invalid Status = "invalid"
	// Missing: the document carries no Signature element.
	Missing Status = "missing"
	// Unverifiable: a Signature is there but cannot be checked: no certificate, an
	// unknown algorithm, a Reference that does not cover the whole document, a
	// malformed element.
	Unverifiable Status = "unverifiable"
)

// Result is what Verify found.
type Result struct {
	Status Status
	// Algorithm names the signature method, e.g. "rsa-sha256", "rsa-sha1",
	// "ecdsa-sha256"; "" when missing.
	Algorithm string
	// Weak says the signature or the digest uses SHA-1, still seen in the wild but no
	// longer safe.
	Weak bool
	// Signer is the certificate in KeyInfo; nil when missing or unreadable.
	Signer *x509.Certificate
	// Reason says why the status is not Valid, in a sentence for logs and answers.
	Reason string
}

const dsNamespace = "http://www.w3.org/2000/09/xmldsig#"

// Verify checks the enveloped signature of doc, an SMP answer as received. It never
// fails: what is wrong is in the Result (Status and Reason). A document that is not
// XML is Unverifiable.
func Verify(doc []byte) Result {
	d := etree.NewDocument()
	d.ReadSettings.PreserveCData = true
	if err := d.ReadFromBytes(doc); err != nil || d.Root() == nil {
		return Result{Status: Unverifiable, Reason: "the SMP answer is not well-formed XML"}
	}
	root := d.Root()
	var sigs []*etree.Element
	for _, c := range root.ChildElements() {
		if c.Tag == "Signature" && c.NamespaceURI() == dsNamespace {
			sigs = append(sigs, c)
		}
	}
	switch len(sigs) {
	case 0:
		return Result{Status: Missing, Reason: "the SMP answer is not signed"}
	case 1:
	default:
		return Result{Status: Unverifiable, Reason: fmt.Sprintf("the SMP answer carries %d signatures; Peppol SMP answers carry one", len(sigs))}
	}
	return verify(root, sigs[0])
}

func verify(root, sig *etree.Element) Result {
	si := child(sig, "SignedInfo")
	if si == nil {
		return Result{Status: Unverifiable, Reason: "the signature has no SignedInfo"}
	}
	sigMethod := algorithm(child(si, "SignatureMethod"))
	alg, ok := signatureMethodOf(sigMethod)
	r := Result{Algorithm: alg.name, Weak: alg.hash == crypto.SHA1}
	if !ok {
		r.Status, r.Reason = Unverifiable, fmt.Sprintf("the signature method %s is not one this service checks", quote(sigMethod))
		return r
	}
	cert, err := keyInfoCertificate(sig)
	if err != nil {
		r.Status, r.Reason = Unverifiable, err.Error()
		return r
	}
	r.Signer = cert

	// The Reference: exactly one, over the whole document.
	var refs []*etree.Element
	for _, c := range si.ChildElements() {
		if c.Tag == "Reference" && c.NamespaceURI() == dsNamespace {
			refs = append(refs, c)
		}
	}
	if len(refs) != 1 || refs[0].SelectAttrValue("URI", "-") != "" {
		r.Status, r.Reason = Unverifiable, "the signature does not have the one Reference to the whole document (URI \"\") that Peppol SMP signatures have"
		return r
	}
	ref := refs[0]
	digestMethod := algorithm(child(ref, "DigestMethod"))
	hash, ok := digestMethodOf(digestMethod)
	if !ok {
		r.Status, r.Reason = Unverifiable, fmt.Sprintf("the digest method %s is not one this service checks", quote(digestMethod))
		return r
	}
	r.Weak = r.Weak || hash == crypto.SHA1
	referenced, err := referencedBytes(root, sig, ref)
	if err != nil {
		r.Status, r.Reason = Unverifiable, err.Error()
		return r
	}
	want, err := base64Text(child(ref, "DigestValue"))
	if err != nil {
		r.Status, r.Reason = Unverifiable, "the DigestValue is not base64"
		return r
	}
	h := hash.New()
	h.Write(referenced)
	if subtle.ConstantTimeCompare(h.Sum(nil), want) != 1 {
		r.Status, r.Reason = Invalid, "the SMP answer was changed after it was signed: its digest does not match the signed one"
		return r
	}

	signedInfo, err := canonicalSignedInfo(si)
	if err != nil {
		r.Status, r.Reason = Unverifiable, err.Error()
		return r
	}
	value, err := base64Text(child(sig, "SignatureValue"))
	if err != nil {
		r.Status, r.Reason = Unverifiable, "the SignatureValue is missing or not base64"
		return r
	}
	value = ecdsaDER(cert, value)
	// CheckSignature, unlike CheckSignatureFrom, accepts SHA-1: weak, reported, but
	// still a signature the reference verifies.
	if err := cert.CheckSignature(alg.x509, signedInfo, value); err != nil {
		r.Status, r.Reason = Invalid, "the signature does not match the signed content and the signer's key"
		return r
	}
	r.Status = Valid
	return r
}

// ecdsaDER returns an ECDSA SignatureValue as the ASN.1 the x509 package checks.
// XMLDSig writes r and s side by side, each as long as the curve's order (RFC 6931
// §2.3.6); some signers write the ASN.1 form instead, which is returned as it is, like
// any value of another key type.
func ecdsaDER(cert *x509.Certificate, value []byte) []byte {
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok {
		return value
	}
	n := (pub.Curve.Params().BitSize + 7) / 8
	if len(value) != 2*n {
		return value
	}
	der, err := asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(value[:n]), new(big.Int).SetBytes(value[n:])})
	if err != nil {
		return value
	}
	return der
}

// referencedBytes applies ref's transforms to the document: the enveloped-signature
// transform, then the canonicalisation named, inclusive C14N 1.0 when none is.
func referencedBytes(root, sig *etree.Element, ref *etree.Element) ([]byte, error) {
	doc := root.Copy()
	enveloped := false
	var c dsig.Canonicalizer
	if ts := child(ref, "Transforms"); ts != nil {
		for _, t := range ts.ChildElements() {
			if t.Tag != "Transform" || t.NamespaceURI() != dsNamespace {
				continue
			}
			switch a := algorithm(t); dsig.AlgorithmID(a) {
			case dsig.EnvelopedSignatureAltorithmId:
				enveloped = true
			case dsig.CanonicalXML10RecAlgorithmId:
				c = dsig.MakeC14N10RecCanonicalizer()
			case dsig.CanonicalXML10WithCommentsAlgorithmId:
				c = dsig.MakeC14N10WithCommentsCanonicalizer()
			case dsig.CanonicalXML11AlgorithmId:
				c = dsig.MakeC14N11Canonicalizer()
			case dsig.CanonicalXML11WithCommentsAlgorithmId:
				c = dsig.MakeC14N11WithCommentsCanonicalizer()
			case dsig.CanonicalXML10ExclusiveAlgorithmId:
				c = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(prefixList(t))
			case dsig.CanonicalXML10ExclusiveWithCommentsAlgorithmId:
				c = dsig.MakeC14N10ExclusiveWithCommentsCanonicalizerWithPrefixList(prefixList(t))
			default:
				return nil, fmt.Errorf("the signature's transform %s is not one this service applies", quote(a))
			}
		}
	}
	if !enveloped {
		return nil, errors.New("the signature's Reference lacks the enveloped-signature transform of an enveloped signature")
	}
	for _, ch := range doc.ChildElements() {
		if ch.Tag == "Signature" && ch.NamespaceURI() == dsNamespace && ch.Index() == sig.Index() {
			doc.RemoveChild(ch)
			break
		}
	}
	if c == nil {
		// XMLDSig §4.3.3.2: a node-set is made octets by inclusive C14N 1.0.
		c = dsig.MakeC14N10RecCanonicalizer()
	}
	out := etree.NewDocument()
	out.SetRoot(doc)
	b, err := c.Canonicalize(doc)
	if err != nil {
		return nil, fmt.Errorf("the SMP answer cannot be canonicalised: %v", untrusted.Short(err.Error()))
	}
	return b, nil
}

// canonicalSignedInfo canonicalises SignedInfo as its CanonicalizationMethod says,
// with the namespaces in scope where it stands.
func canonicalSignedInfo(si *etree.Element) ([]byte, error) {
	cm := child(si, "CanonicalizationMethod")
	switch a := algorithm(cm); dsig.AlgorithmID(a) {
	case dsig.CanonicalXML10RecAlgorithmId:
		return dsig.MakeC14N10RecCanonicalizer().Canonicalize(si)
	case dsig.CanonicalXML10WithCommentsAlgorithmId:
		return dsig.MakeC14N10WithCommentsCanonicalizer().Canonicalize(si)
	case dsig.CanonicalXML11AlgorithmId:
		return dsig.MakeC14N11Canonicalizer().Canonicalize(si)
	case dsig.CanonicalXML11WithCommentsAlgorithmId:
		return dsig.MakeC14N11WithCommentsCanonicalizer().Canonicalize(si)
	case dsig.CanonicalXML10ExclusiveAlgorithmId, dsig.CanonicalXML10ExclusiveWithCommentsAlgorithmId:
		// Exclusive C14N of an element detached with the namespaces it uses, as
		// goxmldsig's own validation prepares SignedInfo.
		ctx, err := etreeutils.NSBuildParentContext(si)
		if err != nil {
			return nil, fmt.Errorf("the signature's namespaces cannot be resolved: %v", untrusted.Short(err.Error()))
		}
		det, err := etreeutils.NSDetatch(ctx, si)
		if err != nil {
			return nil, fmt.Errorf("the signature's namespaces cannot be resolved: %v", untrusted.Short(err.Error()))
		}
		comments := dsig.AlgorithmID(a) == dsig.CanonicalXML10ExclusiveWithCommentsAlgorithmId
		if comments {
			return dsig.MakeC14N10ExclusiveWithCommentsCanonicalizerWithPrefixList(prefixList(cm)).Canonicalize(det)
		}
		return dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList(prefixList(cm)).Canonicalize(det)
	default:
		return nil, fmt.Errorf("the canonicalisation method %s of SignedInfo is not one this service applies", quote(a))
	}
}

// keyInfoCertificate returns the first certificate of sig's KeyInfo/X509Data.
func keyInfoCertificate(sig *etree.Element) (*x509.Certificate, error) {
	ki := child(sig, "KeyInfo")
	if ki == nil {
		return nil, errors.New("the signature has no KeyInfo naming its signer's certificate")
	}
	for _, xd := range ki.ChildElements() {
		if xd.Tag != "X509Data" || xd.NamespaceURI() != dsNamespace {
			continue
		}
		if xc := child(xd, "X509Certificate"); xc != nil {
			der, err := base64Text(xc)
			if err != nil {
				return nil, errors.New("the signer's certificate in KeyInfo is not base64")
			}
			cert, err := x509.ParseCertificate(der)
			if err != nil {
				return nil, fmt.Errorf("the signer's certificate in KeyInfo cannot be read: %v", untrusted.Short(err.Error()))
			}
			return cert, nil
		}
	}
	return nil, errors.New("the signature's KeyInfo carries no X509Certificate")
}

// child returns el's first child element in the XMLDSig namespace named tag, or nil.
func child(el *etree.Element, tag string) *etree.Element {
	if el == nil {
		return nil
	}
	for _, c := range el.ChildElements() {
		if c.Tag == tag && c.NamespaceURI() == dsNamespace {
			return c
		}
	}
	return nil
}

// algorithm returns el's Algorithm attribute, "" for nil.
func algorithm(el *etree.Element) string {
	if el == nil {
		return ""
	}
	return strings.TrimSpace(el.SelectAttrValue("Algorithm", ""))
}

// prefixList returns the PrefixList of an exclusive canonicalisation's
// InclusiveNamespaces child, "" when there is none.
func prefixList(el *etree.Element) string {
	for _, c := range el.ChildElements() {
		if c.Tag == "InclusiveNamespaces" {
			return c.SelectAttrValue("PrefixList", "")
		}
	}
	return ""
}

// base64Text decodes el's text, skipping white space (signers wrap it, and some
// write line ends as &#13;).
func base64Text(el *etree.Element) ([]byte, error) {
	if el == nil {
		return nil, errors.New("missing")
	}
	text := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, el.Text())
	if text == "" {
		return nil, errors.New("empty")
	}
	return base64.StdEncoding.DecodeString(text)
}

// quote quotes an algorithm identifier read from the SMP answer for a message: cleaned
// and capped (untrusted.Short, docs/INTERFACE.md §2.6), then Go-quoted.
func quote(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", untrusted.Short(s))
}

// signatureMethod is a SignatureMethod this package checks.
type signatureMethod struct {
	name string
	x509 x509.SignatureAlgorithm
	hash crypto.Hash
}

// signatureMethodOf returns the signature method of identifier id: RSA and ECDSA
// with SHA-1 (weak) and the SHA-2 family.
func signatureMethodOf(id string) (signatureMethod, bool) {
	switch id {
	case dsig.RSASHA1SignatureMethod:
		return signatureMethod{"rsa-sha1", x509.SHA1WithRSA, crypto.SHA1}, true
	case dsig.RSASHA256SignatureMethod:
		return signatureMethod{"rsa-sha256", x509.SHA256WithRSA, crypto.SHA256}, true
	case dsig.RSASHA384SignatureMethod:
		return signatureMethod{"rsa-sha384", x509.SHA384WithRSA, crypto.SHA384}, true
	case dsig.RSASHA512SignatureMethod:
		return signatureMethod{"rsa-sha512", x509.SHA512WithRSA, crypto.SHA512}, true
	case dsig.ECDSASHA1SignatureMethod:
		return signatureMethod{"ecdsa-sha1", x509.ECDSAWithSHA1, crypto.SHA1}, true
	case dsig.ECDSASHA256SignatureMethod:
		return signatureMethod{"ecdsa-sha256", x509.ECDSAWithSHA256, crypto.SHA256}, true
	case dsig.ECDSASHA384SignatureMethod:
		return signatureMethod{"ecdsa-sha384", x509.ECDSAWithSHA384, crypto.SHA384}, true
	case dsig.ECDSASHA512SignatureMethod:
		return signatureMethod{"ecdsa-sha512", x509.ECDSAWithSHA512, crypto.SHA512}, true
	}
	return signatureMethod{}, false
}

// digestMethodOf returns the hash of digest method identifier id.
func digestMethodOf(id string) (crypto.Hash, bool) {
	switch id {
	case "http://www.w3.org/2000/09/xmldsig#sha1":
		return crypto.SHA1, true
	case "http://www.w3.org/2001/04/xmlenc#sha256":
		return crypto.SHA256, true
	case "http://www.w3.org/2001/04/xmldsig-more#sha384":
		return crypto.SHA384, true
	case "http://www.w3.org/2001/04/xmlenc#sha512":
		return crypto.SHA512, true
	}
	return 0, false
}
