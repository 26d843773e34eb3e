package smp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol/smpsig"
)

// ErrMalformed is wrapped by every error ParseServiceGroup and ParseServiceMetadata
// return: the input is not well-formed XML, has an unexpected root element or
// namespace, or lacks a required identifier.
var ErrMalformed = errors.New("malformed SMP document")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// ParseServiceGroup parses a ServiceGroup document (Peppol SMP 1.x, OASIS BDXR SMP 1.0
// or OASIS SMP 2.0). Hrefs that yield no document type are listed in
// SkippedReferences rather than failing the document. Only the first MaxReferences
// references are read; when there are more, one SkippedReference (Href: the first one
// left out) says how many were left out. It returns an error wrapping
// ErrMalformed when the XML is not well-formed, the root is not a ServiceGroup in a
// known namespace, or the participant identifier is missing.
func ParseServiceGroup(data []byte) (*ServiceGroup, error) {
	dec, root, err := openRoot(data)
	if err != nil {
		return nil, err
	}
	if root.Name.Local != rootGroup {
		return nil, malformed("root element is <%s>, expected <ServiceGroup>", short(root.Name.Local))
	}
	dialect, err := rootDialect(root, nsSMP2Group)
	if err != nil {
		return nil, err
	}
	sg := &ServiceGroup{Dialect: dialect}
	seen := make(map[Identifier]struct{})
	if dialect == DialectSMP2 {
		var w wire2ServiceGroup
		if err := decodeRoot(dec, &root, &w); err != nil {
			return nil, err
		}
		sg.Participant = w.Participant.identifier()
		refs := w.References
		if len(refs) > MaxReferences {
			sg.skipExcess(refs[MaxReferences].ID.identifier().String(), len(refs))
			refs = refs[:MaxReferences]
		}
		for _, r := range refs {
			sg.addDocumentType(seen, r.ID.identifier())
		}
	} else {
		var w wireServiceGroup
		if err := decodeRoot(dec, &root, &w); err != nil {
			return nil, err
		}
		sg.Participant = w.Participant.identifier()
		refs := w.References
		if len(refs) > MaxReferences {
			refs = refs[:MaxReferences]
		}
		for _, r := range refs {
			href := strings.TrimSpace(r.Href)
			sg.References = append(sg.References, href)
			id, err := DocumentTypeFromHref(href)
			if err != nil {
				sg.SkippedReferences = append(sg.SkippedReferences, SkippedReference{Href: href, Reason: err.Error()})
				continue
			}
			sg.addDocumentType(seen, id)
		}
		if len(w.References) > MaxReferences {
			sg.skipExcess(strings.TrimSpace(w.References[MaxReferences].Href), len(w.References))
		}
	}
	if sg.Participant.Value == "" {
		return nil, malformed("ServiceGroup has no participant identifier")
	}
	return sg, nil
}

// addDocumentType appends id unless it is empty or already in seen; the map keeps
// de-duplication linear in the number of references.
func (sg *ServiceGroup) addDocumentType(seen map[Identifier]struct{}, id Identifier) {
	if id.Value == "" {
		return
	}
	if _, dup := seen[id]; dup {
		return
	}
	seen[id] = struct{}{}
	sg.DocumentTypes = append(sg.DocumentTypes, id)
}

// skipExcess records, once, that references beyond MaxReferences were not read. It is
// appended after the per-reference entries so SkippedReferences stays in document order.
func (sg *ServiceGroup) skipExcess(first string, total int) {
	sg.SkippedReferences = append(sg.SkippedReferences, SkippedReference{
		Href:   short(first),
		Reason: fmt.Sprintf("this and the following references were not read: the ServiceGroup has %d references and at most %d are read", total, MaxReferences),
	})
}

// ParseServiceMetadata parses a ServiceMetadata document: a SignedServiceMetadata
// wrapper or a bare ServiceMetadata root, in Peppol SMP 1.x, OASIS BDXR SMP 1.0 or OASIS
// SMP 2.0. A document is either a Redirect or carries the participant, document type
// and processes. Endpoint values that cannot be read (certificate, dates, booleans) are
// reported on the Endpoint rather than failing the document. It returns an error
// wrapping ErrMalformed when the XML is not well-formed, the root element or namespace
// is not one of those, or it has neither a Redirect nor a ServiceInformation with
// participant and document type, or has more than MaxProcesses processes or
// MaxEndpoints endpoints. The document's signature is verified over data as it is
// (ServiceMetadata.Signature).
func ParseServiceMetadata(data []byte) (*ServiceMetadata, error) {
	sm, err := parseServiceMetadata(data)
	if err != nil {
		return nil, err
	}
	sm.Signature = smpsig.Verify(data)
	return sm, nil
}

func parseServiceMetadata(data []byte) (*ServiceMetadata, error) {
	dec, root, err := openRoot(data)
	if err != nil {
		return nil, err
	}
	if root.Name.Local != rootMetadata && root.Name.Local != rootSignedMetadata {
		return nil, malformed("root element is <%s>, expected <SignedServiceMetadata> or <ServiceMetadata>", short(root.Name.Local))
	}
	dialect, err := rootDialect(root, nsSMP2Metadata)
	if err != nil {
		return nil, err
	}
	if dialect == DialectSMP2 {
		if root.Name.Local != rootMetadata {
			return nil, malformed("OASIS SMP 2.0 has no <%s> root", root.Name.Local)
		}
		var w wire2ServiceMetadata
		if err := decodeRoot(dec, &root, &w); err != nil {
			return nil, err
		}
		return w.model()
	}
	var (
		body *wireServiceMetadata
		sig  *wireSignature
	)
	if root.Name.Local == rootSignedMetadata {
		var w wireSigned
		if err := decodeRoot(dec, &root, &w); err != nil {
			return nil, err
		}
		if w.Metadata == nil {
			return nil, malformed("SignedServiceMetadata has no ServiceMetadata")
		}
		body, sig = w.Metadata, w.Signature
	} else {
		body = new(wireServiceMetadata)
		if err := decodeRoot(dec, &root, body); err != nil {
			return nil, err
		}
	}
	sm := &ServiceMetadata{Dialect: dialect, Signed: sig != nil, SignerCertificate: sig.certificate()}
	if r := body.Redirect; r != nil {
		sm.Redirect = &Redirect{Href: strings.TrimSpace(r.Href), CertificateUID: strings.TrimSpace(r.CertificateUID)}
		if sm.Redirect.Href == "" {
			return nil, malformed("Redirect has no href")
		}
	}
	if info := body.Information; info != nil {
		sm.Participant = info.Participant.identifier()
		sm.DocumentType = info.DocumentType.identifier()
		endpoints := 0
		for _, p := range info.Processes {
			endpoints += len(p.Endpoints)
		}
		if err := checkTotals(len(info.Processes), endpoints); err != nil {
			return nil, err
		}
		for _, p := range info.Processes {
			proc := Process{ID: p.ID.identifier()}
			for _, e := range p.Endpoints {
				proc.Endpoints = append(proc.Endpoints, e.model())
			}
			sm.Processes = append(sm.Processes, proc)
		}
	}
	if err := sm.check(); err != nil {
		return nil, err
	}
	return sm, nil
}

// check enforces what every answer needs: a redirect, or whom and what it is about.
func (sm *ServiceMetadata) check() error {
	if sm.Redirect != nil {
		return nil
	}
	if sm.Participant.Value == "" {
		return malformed("ServiceMetadata has neither a Redirect nor a participant identifier")
	}
	if sm.DocumentType.Value == "" {
		return malformed("ServiceMetadata has no document type identifier")
	}
	return nil
}

func (w wireID) identifier() Identifier {
	scheme := w.Scheme
	if scheme == "" {
		scheme = w.SchemeID
	}
	return Identifier{Scheme: strings.TrimSpace(scheme), Value: strings.TrimSpace(w.Value)}
}

func (s *wireSignature) certificate() *Certificate {
	if s == nil {
		return nil
	}
	for _, text := range s.Certificates {
		if c, err := DecodeCertificate(text); err == nil {
			return c
		}
	}
	return nil
}

func (w wireEndpoint) model() Endpoint {
	addr := untrusted.URL(w.Address)
	if addr == "" {
		addr = untrusted.URL(w.URI)
	}
	e := Endpoint{
		TransportProfile:           strings.TrimSpace(w.TransportProfile),
		Address:                    addr,
		MinimumAuthenticationLevel: untrusted.Field(w.MinimumAuthLevel),
		Description:                untrusted.Field(w.Description),
		TechnicalContactURL:        untrusted.Field(w.Contact),
		TechnicalInformationURL:    untrusted.Field(w.Information),
	}
	e.RequireBusinessLevelSignature = e.boolean("RequireBusinessLevelSignature", w.RequireSignature)
	e.ActivationDate = e.date("ServiceActivationDate", w.Activation)
	e.ExpirationDate = e.date("ServiceExpirationDate", w.Expiration)
	if w.Certificate != nil {
		e.setCertificate(*w.Certificate)
	}
	return e
}

func (w *wire2ServiceMetadata) model() (*ServiceMetadata, error) {
	sm := &ServiceMetadata{
		Dialect:           DialectSMP2,
		Participant:       w.Participant.identifier(),
		DocumentType:      w.ID.identifier(),
		Signed:            w.Signature != nil,
		SignerCertificate: w.Signature.certificate(),
	}
	if sm.DocumentType.Value == "" {
		sm.DocumentType = w.ServiceID.identifier()
	}
	// Count before building anything: endpoints are modelled (certificates decoded)
	// once per ProcessMetadata, whatever the number of processes they apply to.
	processes, endpoints := 0, 0
	for _, pm := range w.Metadata {
		endpoints += len(pm.Endpoints)
		if len(pm.Endpoints) == 0 && pm.Redirect != nil {
			continue
		}
		processes += max(1, len(pm.Processes))
	}
	if err := checkTotals(processes, endpoints); err != nil {
		return nil, err
	}
	for _, pm := range w.Metadata {
		if r := pm.Redirect; r != nil && sm.Redirect == nil {
			sm.Redirect = &Redirect{Href: strings.TrimSpace(r.PublisherURI)}
			if len(r.Certificates) > 0 {
				sm.Redirect.CertificateUID = strings.TrimSpace(r.Certificates[0].Subject)
			}
			if sm.Redirect.Href == "" {
				return nil, malformed("Redirect has no PublisherURI")
			}
		}
		if len(pm.Endpoints) == 0 && pm.Redirect != nil {
			continue
		}
		var endpoints []Endpoint
		if len(pm.Endpoints) > 0 {
			endpoints = make([]Endpoint, len(pm.Endpoints))
			for i, e := range pm.Endpoints {
				endpoints[i] = e.model()
			}
		}
		if len(pm.Processes) == 0 {
			sm.Processes = append(sm.Processes, Process{Endpoints: endpoints})
			continue
		}
		for _, p := range pm.Processes {
			// The processes of one ProcessMetadata share its endpoints (see
			// Process.Endpoints); the full slice expression makes an append by a caller
			// copy instead of overwriting a neighbour's view.
			sm.Processes = append(sm.Processes, Process{ID: p.ID.identifier(), Endpoints: endpoints[:len(endpoints):len(endpoints)]})
		}
	}
	if err := sm.check(); err != nil {
		return nil, err
	}
	return sm, nil
}

func (w wire2Endpoint) model() Endpoint {
	e := Endpoint{
		TransportProfile:    strings.TrimSpace(w.TransportProfile),
		Address:             untrusted.URL(w.Address),
		Description:         untrusted.Field(w.Description),
		TechnicalContactURL: untrusted.Field(w.Contact),
	}
	e.ActivationDate = e.date("ActivationDate", w.Activation)
	e.ExpirationDate = e.date("ExpirationDate", w.Expiration)
	// SMP 2.0 allows several certificates (e.g. signing and encryption); the first one
	// that carries content is the one reported.
	for _, c := range w.Certificates {
		if c.Content != nil {
			e.setCertificate(*c.Content)
			break
		}
	}
	return e
}

func (e *Endpoint) setCertificate(text string) {
	c, err := DecodeCertificate(text)
	if err != nil {
		e.CertificateError = err.Error()
		return
	}
	e.Certificate = c
}

func (e *Endpoint) boolean(field, text string) bool {
	switch strings.TrimSpace(text) {
	case "true", "1":
		return true
	case "false", "0", "":
		return false
	}
	e.Problems = append(e.Problems, fmt.Sprintf("%s %q is not a boolean", field, short(strings.TrimSpace(text))))
	return false
}

func (e *Endpoint) date(field, text string) *time.Time {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	t, err := ParseTime(text)
	if err != nil {
		e.Problems = append(e.Problems, fmt.Sprintf("%s: %v", field, err))
		return nil
	}
	return &t
}

// timeLayouts are tried in order; time.Parse accepts fractional seconds after the
// seconds field even when the layout has none, so millis need no separate layouts.
var timeLayouts = [...]string{
	"2006-01-02T15:04:05Z07:00", // xs:dateTime with Z or offset
	"2006-01-02T15:04:05",       // xs:dateTime without zone: taken as UTC
	"2006-01-02Z07:00",          // xs:date with zone
	"2006-01-02",                // xs:date (SMP 2.0)
}

// ParseTime parses an xs:dateTime or xs:date as SMPs write them: with or without
// fractional seconds, with 'Z', a numeric offset or no zone (taken as UTC). The result
// is in UTC. It returns an error when the text matches none of those forms, or when the
// UTC result falls outside the years 0 to 9999 (e.g. 9999-12-31T23:59:59-05:00, which is
// in year 10000 UTC): such times cannot be written as RFC 3339 or JSON.
// 9999-12-31T23:59:59Z, the usual "never expires", is accepted.
func ParseTime(text string) (time.Time, error) {
	text = strings.TrimSpace(text)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, text); err == nil {
			t = t.UTC()
			if y := t.Year(); y < 0 || y > 9999 {
				return time.Time{}, fmt.Errorf("%q is in year %d in UTC, outside 0 to 9999", short(text), y)
			}
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an xs:dateTime or xs:date", short(text))
}

// openRoot positions a decoder on the root element, skipping the XML declaration,
// comments, a DOCTYPE and white space.
func openRoot(data []byte) (*xml.Decoder, xml.StartElement, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.CharsetReader = charsetReader
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil, xml.StartElement{}, malformed("document is empty")
		}
		if err != nil {
			return nil, xml.StartElement{}, malformed("%v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return dec, t, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return nil, xml.StartElement{}, malformed("text before the root element")
			}
		}
	}
}

// decodeRoot decodes the root element into v and checks that nothing but comments,
// processing instructions and white space follows it.
func decodeRoot(dec *xml.Decoder, root *xml.StartElement, v any) error {
	if err := dec.DecodeElement(v, root); err != nil {
		return malformed("%v", err)
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return malformed("after the root element: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return malformed("second root element <%s>", short(t.Name.Local))
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return malformed("text after the root element")
			}
		}
	}
}

// rootDialect maps the root's namespace to a dialect. smp2 is the SMP 2.0 namespace
// expected for this root.
func rootDialect(root xml.StartElement, smp2 string) (Dialect, error) {
	ns := strings.TrimSuffix(strings.TrimSpace(root.Name.Space), "/")
	switch ns {
	case nsPeppol:
		return DialectPeppol, nil
	case nsBDXR1, nsBDXR1Draft:
		return DialectBDXR1, nil
	case smp2:
		return DialectSMP2, nil
	case "":
		return "", malformed("root element <%s> has no namespace", root.Name.Local)
	}
	return "", malformed("root element <%s> is in unknown namespace %q", root.Name.Local, short(root.Name.Space))
}

// charsetReader lets documents declared as ISO-8859-1 or US-ASCII through (encoding/xml
// only reads UTF-8 by itself). Other encodings are refused.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1":
		return &latin1Reader{r: input}, nil
	case "us-ascii", "ascii":
		return input, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", short(label))
}

// latin1Reader converts ISO-8859-1 bytes to UTF-8.
type latin1Reader struct {
	r   io.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(p) < 2 {
		return 0, io.ErrShortBuffer
	}
	if cap(l.buf) < len(p)/2 {
		l.buf = make([]byte, len(p)/2)
	}
	in := l.buf[:len(p)/2]
	n, err := l.r.Read(in)
	out := 0
	for _, c := range in[:n] {
		if c < 0x80 {
			p[out] = c
			out++
			continue
		}
		p[out] = 0xC0 | c>>6
		p[out+1] = 0x80 | c&0x3F
		out += 2
	}
	return out, err
}
