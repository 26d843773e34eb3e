package netsim

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"regexp"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/peppolgate/peppolgate/peppol"
)

// XML namespaces of Peppol SMP 1.x.
const (
	nsSMP = "http://busdox.org/serviceMetadata/publishing/1.0/"
	nsIDs = "http://busdox.org/transport/identifiers/1.0/"
	nsWSA = "http://www.w3.org/2005/08/addressing"
	nsDS  = "http://www.w3.org/2000/09/xmldsig#"
)

// xw writes namespaced XML in one of the XMLStyles. It tracks the default namespace
// of every open element so that unprefixed elements redeclare it only when it changes.
type xw struct {
	b      bytes.Buffer
	style  XMLStyle
	indent bool
	stack  []xwFrame
}

type xwFrame struct {
	name      string
	defaultNS string
	children  bool
}

func (w *xw) prefix(ns string) string {
	switch w.style {
	case StyleJAXB:
		switch ns {
		case nsSMP:
			return "ns2"
		case nsWSA:
			return "ns3"
		}
	case StylePrefixed:
		switch ns {
		case nsSMP:
			return "smp"
		case nsIDs:
			return "ids"
		case nsWSA:
			return "wsa"
		case nsDS:
			return "ds"
		}
	}
	return ""
}

func (w *xw) currentDefault() string {
	if len(w.stack) == 0 {
		return ""
	}
	return w.stack[len(w.stack)-1].defaultNS
}

func (w *xw) newline(depth int) {
	if w.indent {
		w.b.WriteByte('\n')
		for range depth {
			w.b.WriteString("    ")
		}
	}
}

// start opens an element; rootDecls are written verbatim on the root element only.
func (w *xw) start(ns, local string, attrs ...string) {
	if n := len(w.stack); n > 0 {
		w.stack[n-1].children = true
		w.newline(n)
	}
	name := local
	def := w.currentDefault()
	p := w.prefix(ns)
	if p != "" {
		name = p + ":" + local
	}
	w.b.WriteByte('<')
	w.b.WriteString(name)
	if len(w.stack) == 0 {
		w.rootDecls()
		def = w.rootDefault()
	}
	if p == "" && def != ns {
		w.b.WriteString(` xmlns="`)
		w.b.WriteString(ns)
		w.b.WriteByte('"')
		def = ns
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		w.b.WriteByte(' ')
		w.b.WriteString(attrs[i])
		w.b.WriteString(`="`)
		escape(&w.b, attrs[i+1])
		w.b.WriteByte('"')
	}
	w.b.WriteByte('>')
	w.stack = append(w.stack, xwFrame{name: name, defaultNS: def})
}

func (w *xw) rootDefault() string {
	switch w.style {
	case StyleJAXB:
		return nsIDs
	case StyleDefault:
		return nsSMP
	}
	return ""
}

func (w *xw) rootDecls() {
	switch w.style {
	case StyleJAXB:
		w.b.WriteString(` xmlns="` + nsIDs + `" xmlns:ns2="` + nsSMP + `" xmlns:ns3="` + nsWSA + `" xmlns:ns4="` + nsDS + `"`)
	case StylePrefixed:
		w.b.WriteString(` xmlns:ids="` + nsIDs + `" xmlns:wsa="` + nsWSA + `" xmlns:smp="` + nsSMP + `" xmlns:ds="` + nsDS + `"`)
	case StyleDefault:
		w.b.WriteString(` xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="` + nsSMP + `"`)
	}
}

func (w *xw) end() {
	f := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	if f.children {
		w.newline(len(w.stack))
	}
	w.b.WriteString("</")
	w.b.WriteString(f.name)
	w.b.WriteByte('>')
}

// text writes an escaped text node.
func (w *xw) text(s string) { escape(&w.b, s) }

// leaf writes <name attrs>text</name>; with padded, an indenting writer puts the text
// on its own line, as pretty-printing SMPs do.
func (w *xw) leaf(ns, local, text string, padded bool, attrs ...string) {
	w.start(ns, local, attrs...)
	if padded && w.indent {
		w.newline(len(w.stack))
		w.text(text)
		w.newline(len(w.stack) - 1)
	} else {
		w.text(text)
	}
	w.end()
}

// empty writes <name attrs/>.
func (w *xw) empty(ns, local string, attrs ...string) {
	w.start(ns, local, attrs...)
	w.b.Truncate(w.b.Len() - 1)
	w.b.WriteString("/>")
	w.stack = w.stack[:len(w.stack)-1]
}

func escape(b *bytes.Buffer, s string) {
	// xml.EscapeText cannot fail on a bytes.Buffer.
	_ = xml.EscapeText(b, []byte(s))
}

func (w *xw) declaration() {
	if w.style == StyleJAXB {
		w.b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`)
		if w.indent {
			w.b.WriteByte('\n')
		}
	} else if w.style == StyleDefault {
		w.b.WriteString(`<?xml version="1.0" encoding="utf-8"?>`)
	}
}

// serviceGroupXML renders the ServiceGroup of p as served by host h at hostURL (scheme,
// host, port and base path, no trailing slash).
func serviceGroupXML(h SMPHost, hostURL string, p *Participant) []byte {
	w := &xw{style: h.Style, indent: h.Indent}
	w.declaration()
	w.start(nsSMP, "ServiceGroup")
	w.leaf(nsIDs, "ParticipantIdentifier", p.ID.String(), false, "scheme", peppol.ParticipantScheme)
	w.start(nsSMP, "ServiceMetadataReferenceCollection")
	pidEnc := peppol.PathEscape(p.ID.URI())
	for _, s := range p.Services {
		w.empty(nsSMP, "ServiceMetadataReference", "href", hostURL+"/"+pidEnc+"/services/"+peppol.PathEscape(s.DocumentType.URI()))
	}
	w.end()
	w.end()
	return w.b.Bytes()
}

// serviceMetadataXML renders the SignedServiceMetadata of p for service s, signed with
// key (certificate certDER) of host h. aps are the DER certificates of the access points.
func serviceMetadataXML(h SMPHost, p *Participant, s *ServiceInfo, aps [][]byte, key *ecdsa.PrivateKey, certDER []byte) []byte {
	w := &xw{style: h.Style, indent: h.Indent}
	w.declaration()
	w.start(nsSMP, "SignedServiceMetadata")
	w.start(nsSMP, "ServiceMetadata")
	w.start(nsSMP, "ServiceInformation")
	w.leaf(nsIDs, "ParticipantIdentifier", p.ID.String(), false, "scheme", peppol.ParticipantScheme)
	w.leaf(nsIDs, "DocumentIdentifier", s.DocumentType.Value, true, "scheme", s.DocumentType.Scheme)
	w.start(nsSMP, "ProcessList")
	for _, pr := range s.Processes {
		w.start(nsSMP, "Process")
		w.leaf(nsIDs, "ProcessIdentifier", pr.Value, false, "scheme", ProcessScheme)
		w.start(nsSMP, "ServiceEndpointList")
		for _, e := range pr.Endpoints {
			w.endpoint(h, e, aps)
		}
		w.end()
		w.end()
	}
	w.end()
	w.end()
	w.end()
	w.signature(h, certDER)
	w.end()
	return seal(w.b.Bytes(), key)
}

// redirectXML renders a SignedServiceMetadata whose ServiceMetadata is a Redirect to
// target, the ServiceMetadata URL on host to.
func redirectXML(h, to SMPHost, target string, key *ecdsa.PrivateKey, certDER []byte) []byte {
	w := &xw{style: h.Style, indent: h.Indent}
	w.declaration()
	w.start(nsSMP, "SignedServiceMetadata")
	w.start(nsSMP, "ServiceMetadata")
	w.start(nsSMP, "Redirect", "href", target)
	w.leaf(nsSMP, "CertificateUID", smpCertificateUID(to), false)
	w.end()
	w.end()
	w.signature(h, certDER)
	w.end()
	return seal(w.b.Bytes(), key)
}

func (w *xw) endpoint(h SMPHost, e Endpoint, aps [][]byte) {
	w.start(nsSMP, "Endpoint", "transportProfile", e.TransportProfile)
	w.start(nsWSA, "EndpointReference")
	w.leaf(nsWSA, "Address", e.Address, false)
	w.end()
	w.leaf(nsSMP, "RequireBusinessLevelSignature", boolText(e.RequireBusinessLevelSignature), false)
	if e.MinimumAuthenticationLevel != "" {
		w.leaf(nsSMP, "MinimumAuthenticationLevel", e.MinimumAuthenticationLevel, false)
	}
	if !e.ActivationDate.IsZero() {
		w.leaf(nsSMP, "ServiceActivationDate", smpDate(h.Style, e.ActivationDate), false)
	}
	if !e.ExpirationDate.IsZero() {
		w.leaf(nsSMP, "ServiceExpirationDate", smpDate(h.Style, e.ExpirationDate), false)
	}
	var der []byte
	if e.AccessPoint >= 0 && e.AccessPoint < len(aps) {
		der = aps[e.AccessPoint]
	}
	w.start(nsSMP, "Certificate")
	w.certificate(h, der)
	w.end()
	w.leaf(nsSMP, "ServiceDescription", e.ServiceDescription, false)
	w.leaf(nsSMP, "TechnicalContactUrl", e.TechnicalContactURL, false)
	if e.TechnicalInformationURL != "" {
		w.leaf(nsSMP, "TechnicalInformationUrl", e.TechnicalInformationURL, false)
	}
	w.end()
}

// certificate writes base64 DER wrapped the way host h does.
func (w *xw) certificate(h SMPHost, der []byte) {
	s := base64.StdEncoding.EncodeToString(der)
	if h.CertLineWidth <= 0 {
		w.b.WriteString(s)
		return
	}
	for len(s) > 0 {
		n := min(h.CertLineWidth, len(s))
		w.b.WriteString(s[:n])
		s = s[n:]
		if len(s) == 0 {
			break
		}
		if h.CertCRLF {
			w.b.WriteString("&#13;")
		}
		w.b.WriteByte('\n')
		if w.indent {
			w.b.WriteString(strings.Repeat("    ", len(w.stack)))
		}
	}
}

// The DigestValue and SignatureValue that signature writes, for seal to fill in.
const (
	digestPlaceholder    = "NETSIM-DIGEST"
	signaturePlaceholder = "NETSIM-SIGNATURE"
)

// signature writes an enveloped XMLDSig element as Peppol SMPs write it (one Reference
// to the whole document with the enveloped-signature transform, inclusive C14N 1.0,
// ECDSA P-256 with SHA-256, the signer's certificate in KeyInfo), with placeholders for
// the digest and the signature value: seal fills them in once the document is whole.
func (w *xw) signature(h SMPHost, certDER []byte) {
	w.start(nsDS, "Signature")
	w.start(nsDS, "SignedInfo")
	w.empty(nsDS, "CanonicalizationMethod", "Algorithm", "http://www.w3.org/TR/2001/REC-xml-c14n-20010315")
	w.empty(nsDS, "SignatureMethod", "Algorithm", "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256")
	w.start(nsDS, "Reference", "URI", "")
	w.start(nsDS, "Transforms")
	w.empty(nsDS, "Transform", "Algorithm", "http://www.w3.org/2000/09/xmldsig#enveloped-signature")
	w.end()
	w.empty(nsDS, "DigestMethod", "Algorithm", "http://www.w3.org/2001/04/xmlenc#sha256")
	w.leaf(nsDS, "DigestValue", digestPlaceholder, false)
	w.end()
	w.end()
	w.leaf(nsDS, "SignatureValue", signaturePlaceholder, false)
	w.start(nsDS, "KeyInfo")
	w.start(nsDS, "X509Data")
	w.leaf(nsDS, "X509SubjectName", smpCertificateUID(h), false)
	w.start(nsDS, "X509Certificate")
	w.certificate(h, certDER)
	w.end()
	w.end()
	w.end()
	w.end()
}

// seal signs doc, written with signature's placeholders, with key: the digest of the
// document without its Signature, canonicalised by inclusive C14N 1.0, and an ECDSA
// signature (r and s side by side, RFC 6931) over SignedInfo canonicalised where it
// stands, both computed with goxmldsig's canonicaliser as a verifier computes them.
// With a nil key, or a document it cannot read, the signature value stays empty.
func seal(doc []byte, key *ecdsa.PrivateKey) []byte {
	digest, sigValue := "", ""
	if key != nil {
		digest, sigValue = sealValues(doc, key)
	}
	doc = bytes.Replace(doc, []byte(digestPlaceholder), []byte(digest), 1)
	return bytes.Replace(doc, []byte(signaturePlaceholder), []byte(sigValue), 1)
}

func sealValues(doc []byte, key *ecdsa.PrivateKey) (digest, sigValue string) {
	d := etree.NewDocument()
	if err := d.ReadFromBytes(doc); err != nil || d.Root() == nil {
		return "", ""
	}
	root := d.Root()
	sig := root.SelectElement("Signature")
	if sig == nil {
		return "", ""
	}
	unsigned := etree.NewDocument()
	unsigned.SetRoot(root.Copy())
	unsigned.Root().RemoveChildAt(sig.Index())
	c14n := dsig.MakeC14N10RecCanonicalizer()
	ref, err := c14n.Canonicalize(unsigned.Root())
	if err != nil {
		return "", ""
	}
	sum := sha256.Sum256(ref)
	digest = base64.StdEncoding.EncodeToString(sum[:])
	si := sig.SelectElement("SignedInfo")
	dv := si.FindElement("./Reference/DigestValue")
	if dv == nil {
		return "", ""
	}
	dv.SetText(digest)
	signedInfo, err := c14n.Canonicalize(si)
	if err != nil {
		return "", ""
	}
	h := sha256.Sum256(signedInfo)
	r, s, err := ecdsa.Sign(rand.Reader, key, h[:])
	if err != nil {
		return digest, ""
	}
	raw := make([]byte, 64)
	r.FillBytes(raw[:32])
	s.FillBytes(raw[32:])
	return digest, base64.StdEncoding.EncodeToString(raw)
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// cet is a fixed +01:00 zone: some SMPs print local offsets instead of Z.
var cet = time.FixedZone("CET", 3600)

func smpDate(style XMLStyle, t time.Time) string {
	switch style {
	case StyleJAXB:
		return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	case StyleDefault:
		return t.In(cet).Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.UTC().Format(time.RFC3339)
}

// signer returns the key and certificate SMP host signs with under fault f.
func (p *pki) signer(host int, f SignatureFault) (*ecdsa.PrivateKey, []byte) {
	switch f {
	case SignatureWrongKey:
		return p.wrongKey, p.smp[host]
	case SignatureExpiredSigner:
		return p.expiredKey, p.expiredSMP
	case SignatureOtherCA:
		return p.otherSMPKey, p.otherSMP
	}
	return p.smpKy[host], p.smp[host]
}

// signedValue finds a byte of signed content to change that a client reads without
// rejecting the document: the first character of an endpoint's ServiceDescription, or
// of a Redirect's CertificateUID.
var signedValue = regexp.MustCompile(`(ServiceDescription>|CertificateUID>)[^<]`)

// signatureElement is the whole XMLDSig Signature element of a document.
var signatureElement = regexp.MustCompile(`(?s)<([A-Za-z0-9]+:)?Signature[\s>].*</([A-Za-z0-9]+:)?Signature>`)

// afterSigning applies the faults that act on the signed document: a byte of its
// content changed, or its Signature removed.
func afterSigning(doc []byte, f SignatureFault) []byte {
	switch f {
	case SignatureTampered:
		if loc := signedValue.FindIndex(doc); loc != nil {
			doc = bytes.Clone(doc)
			if doc[loc[1]-1] == '0' {
				doc[loc[1]-1] = '1'
			} else {
				doc[loc[1]-1] = '0'
			}
		}
	case SignatureUnsigned:
		doc = signatureElement.ReplaceAll(doc, nil)
	}
	return doc
}
