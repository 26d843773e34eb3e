package netsim

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
)

// Test-side models of the SMP XML, decoded namespace-aware by encoding/xml.
type xServiceGroup struct {
	XMLName     xml.Name `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ServiceGroup"`
	Participant struct {
		Scheme string `xml:"scheme,attr"`
		Value  string `xml:",chardata"`
	} `xml:"http://busdox.org/transport/identifiers/1.0/ ParticipantIdentifier"`
	Refs []struct {
		Href string `xml:"href,attr"`
	} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ServiceMetadataReferenceCollection>ServiceMetadataReference"`
}

type xSigned struct {
	XMLName  xml.Name `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ SignedServiceMetadata"`
	Metadata struct {
		Info *struct {
			Participant string `xml:"http://busdox.org/transport/identifiers/1.0/ ParticipantIdentifier"`
			DocType     struct {
				Scheme string `xml:"scheme,attr"`
				Value  string `xml:",chardata"`
			} `xml:"http://busdox.org/transport/identifiers/1.0/ DocumentIdentifier"`
			Processes []struct {
				ID        string `xml:"http://busdox.org/transport/identifiers/1.0/ ProcessIdentifier"`
				Endpoints []struct {
					Profile     string `xml:"transportProfile,attr"`
					Address     string `xml:"http://www.w3.org/2005/08/addressing EndpointReference>Address"`
					Activation  string `xml:"ServiceActivationDate"`
					Expiration  string `xml:"ServiceExpirationDate"`
					Certificate string `xml:"Certificate"`
					Contact     string `xml:"TechnicalContactUrl"`
				} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ServiceEndpointList>Endpoint"`
			} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ProcessList>Process"`
		} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ServiceInformation"`
		Redirect *struct {
			Href    string `xml:"href,attr"`
			CertUID string `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ CertificateUID"`
		} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ Redirect"`
	} `xml:"http://busdox.org/serviceMetadata/publishing/1.0/ ServiceMetadata"`
	Signature struct {
		Digest string `xml:"SignedInfo>Reference>DigestValue"`
		Value  string `xml:"SignatureValue"`
		Cert   string `xml:"KeyInfo>X509Data>X509Certificate"`
	} `xml:"http://www.w3.org/2000/09/xmldsig# Signature"`
}

func decodeXML(t testing.TB, body []byte, v any) {
	t.Helper()
	if err := xml.Unmarshal(body, v); err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
}

func smpURL(n *Network, p *Participant) string {
	return strings.TrimSuffix(n.SMPBaseURL(p.SMPHost), "/") + "/" + peppol.PathEscape(p.ID.URI())
}

func TestSMPServiceGroup(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	for _, id := range []string{KnownBelgian, KnownNorwegian, KnownGLN, KnownDutch, KnownFrenchSIREN} {
		t.Run(id, func(t *testing.T) {
			p := ds.MustLookup(id)
			status, hdr, body := get(t, smpURL(n, p))
			if status != http.StatusOK || !strings.HasPrefix(hdr.Get("Content-Type"), "text/xml") {
				t.Fatalf("status %d, type %s", status, hdr.Get("Content-Type"))
			}
			var sg xServiceGroup
			decodeXML(t, body, &sg)
			if sg.Participant.Scheme != "iso6523-actorid-upis" || sg.Participant.Value != id {
				t.Errorf("participant %+v", sg.Participant)
			}
			if len(sg.Refs) != len(p.Services) {
				t.Fatalf("%d refs, %d services", len(sg.Refs), len(p.Services))
			}
			base := strings.TrimSuffix(n.SMPBaseURL(p.SMPHost), "/")
			for i, ref := range sg.Refs {
				want := base + "/" + peppol.PathEscape(p.ID.URI()) + "/services/" + peppol.PathEscape(p.Services[i].DocumentType.URI())
				if ref.Href != want {
					t.Errorf("href %d = %s\nwant %s", i, ref.Href, want)
				}
			}
		})
	}
	// Exact href encoding as phoss SMP writes it (upper-case %3A, %23, '.' literal).
	p := ds.MustLookup(KnownBelgian)
	_, _, body := get(t, smpURL(n, p))
	want := "/smp/iso6523-actorid-upis%3A%3A0208%3A0677424046/services/busdox-docid-qns%3A%3Aurn%3Aoasis%3Anames%3Aspecification%3Aubl%3Aschema%3Axsd%3AInvoice-2%3A%3AInvoice%23%23urn%3Acen.eu%3Aen16931%3A2017%23compliant%23urn%3Afdc%3Apeppol.eu%3A2017%3Apoacc%3Abilling%3A3.0%3A%3A2.1\""
	if !bytes.Contains(body, []byte(want)) {
		t.Errorf("ServiceGroup lacks the exact href %s\n%s", want, body)
	}
}

func TestSMPPathVariants(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	be := ds.MustLookup(KnownBelgian)
	de := ds.MustLookup(KnownGerman)
	smp0 := strings.TrimSuffix(n.SMPBaseURL(0), "/")
	deBase := strings.TrimSuffix(n.SMPBaseURL(de.SMPHost), "/")
	other := strings.TrimSuffix(n.SMPBaseURL((de.SMPHost+1)%len(ds.SMPHosts)), "/")
	tests := []struct {
		name   string
		url    string
		status int
	}{
		{"encoded", smp0 + "/iso6523-actorid-upis%3A%3A0208%3A0677424046", 200},
		{"raw colons", smp0 + "/iso6523-actorid-upis::0208:0677424046", 200},
		{"lower-case escapes", smp0 + "/iso6523-actorid-upis%3a%3a0208%3a0677424046", 200},
		{"upper-case scheme and value", deBase + "/ISO6523-ACTORID-UPIS%3A%3A9930%3ADE811152493", 200},
		{"no scheme prefix", smp0 + "/0208%3A0677424046", 404},
		{"without base path", strings.TrimSuffix(smp0, "/smp") + "/iso6523-actorid-upis%3A%3A0208%3A0677424046", 404},
		{"unknown participant", smp0 + "/iso6523-actorid-upis%3A%3A0208%3A0000000097", 404},
		{"wrong host", other + "/" + peppol.PathEscape(de.ID.URI()), 404},
		{"smp 404 participant", strings.TrimSuffix(n.SMPBaseURL(ds.MustLookup(KnownSMPNotFound).SMPHost), "/") + "/" + peppol.PathEscape("iso6523-actorid-upis::"+KnownSMPNotFound), 404},
		{"directory-only participant", smp0 + "/" + peppol.PathEscape("iso6523-actorid-upis::"+KnownDirectoryOnly), 404},
		{"root", smp0 + "/", 404},
		{"extra segment", smpURL(n, be) + "/services", 404},
		{"unknown doc type", smpURL(n, be) + "/services/" + peppol.PathEscape("busdox-docid-qns::urn:x::y"), 404},
		{"doc type is case-sensitive", smpURL(n, be) + "/services/" + peppol.PathEscape("busdox-docid-qns::"+strings.ToUpper(be.Services[0].DocumentType.Value)), 404},
		{"doc type", smpURL(n, be) + "/services/" + peppol.PathEscape(be.Services[0].DocumentType.URI()), 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, hdr, body := get(t, tt.url)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if status == 404 && !strings.HasPrefix(hdr.Get("Content-Type"), "text/xml") {
				t.Errorf("404 content type %s", hdr.Get("Content-Type"))
			}
		})
	}
	req, _ := http.NewRequest(http.MethodPost, smpURL(n, be), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
		t.Errorf("POST: %d allow=%q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestSMPServiceMetadata(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	caCert, err := x509.ParseCertificate(n.APCACertificate())
	if err != nil {
		t.Fatal(err)
	}
	// Every host style, every document type of a few participants per host.
	perHost := map[int]int{}
	for i := range ds.Participants {
		p := &ds.Participants[i]
		if !p.InSML || p.SMPNotFound || p.RedirectHost >= 0 || perHost[p.SMPHost] >= 3 {
			continue
		}
		perHost[p.SMPHost]++
		for _, svc := range p.Services {
			url := smpURL(n, p) + "/services/" + peppol.PathEscape(svc.DocumentType.URI())
			status, _, body := get(t, url)
			if status != 200 {
				t.Fatalf("%s: status %d", url, status)
			}
			var sm xSigned
			decodeXML(t, body, &sm)
			info := sm.Metadata.Info
			if info == nil {
				t.Fatalf("%s: no ServiceInformation", p.ID)
			}
			if strings.TrimSpace(info.Participant) != p.ID.String() ||
				info.DocType.Scheme != svc.DocumentType.Scheme || strings.TrimSpace(info.DocType.Value) != svc.DocumentType.Value {
				t.Errorf("%s: identifiers %q %q %q", p.ID, info.Participant, info.DocType.Scheme, info.DocType.Value)
			}
			if len(info.Processes) != len(svc.Processes) {
				t.Fatalf("%s: %d processes, want %d", p.ID, len(info.Processes), len(svc.Processes))
			}
			for pi, pr := range info.Processes {
				want := svc.Processes[pi]
				if strings.TrimSpace(pr.ID) != want.Value || len(pr.Endpoints) != len(want.Endpoints) {
					t.Fatalf("%s: process %q with %d endpoints", p.ID, pr.ID, len(pr.Endpoints))
				}
				for ei, e := range pr.Endpoints {
					we := want.Endpoints[ei]
					if e.Profile != we.TransportProfile || e.Address != we.Address || e.Contact != we.TechnicalContactURL {
						t.Errorf("%s: endpoint %+v", p.ID, e)
					}
					if !we.ExpirationDate.IsZero() {
						exp, err := time.Parse(time.RFC3339, e.Expiration)
						if err != nil || !exp.Equal(we.ExpirationDate) {
							t.Errorf("%s: expiration %q (%v), want %v", p.ID, e.Expiration, err, we.ExpirationDate)
						}
					} else if e.Expiration != "" {
						t.Errorf("%s: unexpected expiration %q", p.ID, e.Expiration)
					}
					cert := parseCert(t, e.Certificate)
					ap := ds.AccessPoints[we.AccessPoint]
					if cert.Subject.String() != ap.Subject() || !cert.NotAfter.Equal(ap.NotAfter) || cert.SerialNumber.Int64() != ap.Serial {
						t.Errorf("%s: certificate %s until %v", p.ID, cert.Subject, cert.NotAfter)
					}
					if err := cert.CheckSignatureFrom(caCert); err != nil {
						t.Errorf("%s: certificate not issued by the test CA: %v", p.ID, err)
					}
					if !strings.Contains(cert.Issuer.CommonName, apCAName) {
						t.Errorf("issuer %s", cert.Issuer)
					}
				}
			}
			if sm.Signature.Digest == "" || sm.Signature.Value == "" {
				t.Errorf("%s: signature block incomplete", p.ID)
			}
			if c := parseCert(t, sm.Signature.Cert); c.Subject.OrganizationalUnit[0] != "PEPPOL TEST SMP" {
				t.Errorf("SMP certificate subject %s", c.Subject)
			}
		}
	}
	if len(perHost) != len(ds.SMPHosts) {
		t.Errorf("covered hosts %v", perHost)
	}
}

func parseCert(t testing.TB, b64 string) *x509.Certificate {
	t.Helper()
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, b64)
	der, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		t.Fatalf("certificate base64: %v", err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatalf("certificate: %v", err)
	}
	return c
}

func TestSMPStyles(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	tests := []struct {
		id       string
		contains []string
	}{
		{KnownBelgian, []string{`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, `<ns2:SignedServiceMetadata xmlns="http://busdox.org/transport/identifiers/1.0/" xmlns:ns2=`, "<ns3:Address>", `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">`}},
		{KnownNorwegian, []string{`<smp:SignedServiceMetadata xmlns:ids=`, "<ids:DocumentIdentifier", "<wsa:Address>", "<ds:Signature>", "&#13;\n"}},
		{KnownGLN, []string{`<SignedServiceMetadata xmlns:xsd=`, `<ParticipantIdentifier xmlns="http://busdox.org/transport/identifiers/1.0/" scheme=`, "+01:00</ServiceActivationDate>", TransportAS2}},
		{KnownDutch, []string{"\n                urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##", "\n    <ns2:ServiceMetadata>"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			p := ds.MustLookup(tt.id)
			_, _, body := get(t, smpURL(n, p)+"/services/"+peppol.PathEscape(p.Services[0].DocumentType.URI()))
			for _, c := range tt.contains {
				if !bytes.Contains(body, []byte(c)) {
					t.Errorf("body lacks %q\n%s", c, body)
				}
			}
		})
	}
}

func TestSMPSpecialDocTypes(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	fr := ds.MustLookup(KnownFrenchSIREN)
	var fx DocumentType
	for _, s := range fr.Services {
		if strings.Contains(s.DocumentType.Value, "pdf+xml") {
			fx = s.DocumentType
		}
	}
	if fx.Value == "" {
		t.Fatal("KnownFrenchSIREN has no Factur-X document type")
	}
	enc := peppol.PathEscape(fx.URI())
	if !strings.Contains(enc, "pdf%2Bxml%23%23") {
		t.Fatalf("encoding %s", enc)
	}
	status, _, body := get(t, smpURL(n, fr)+"/services/"+enc)
	var sm xSigned
	decodeXML(t, body, &sm)
	if status != 200 || sm.Metadata.Info == nil || strings.TrimSpace(sm.Metadata.Info.DocType.Value) != fx.Value {
		t.Errorf("Factur-X: %d %s", status, body)
	}
	au := ds.MustLookup(KnownAustralian)
	wc := au.Services[0].DocumentType
	status, _, body = get(t, smpURL(n, au)+"/services/"+peppol.PathEscape(wc.URI()))
	decodeXML(t, body, &sm)
	if status != 200 || wc.Scheme != DocTypeSchemeWildcard || sm.Metadata.Info.DocType.Scheme != DocTypeSchemeWildcard || !strings.HasSuffix(strings.TrimSpace(sm.Metadata.Info.DocType.Value), "*::2.1") {
		t.Errorf("wildcard: %d %s", status, body)
	}
}

func TestSMPRedirect(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	p := ds.MustLookup(KnownRedirect)
	doc := peppol.PathEscape(p.Services[0].DocumentType.URI())
	status, _, body := get(t, smpURL(n, p)+"/services/"+doc)
	var sm xSigned
	decodeXML(t, body, &sm)
	rd := sm.Metadata.Redirect
	if status != 200 || rd == nil || sm.Metadata.Info != nil {
		t.Fatalf("redirect answer %d: %s", status, body)
	}
	want := strings.TrimSuffix(n.SMPBaseURL(2), "/") + "/" + peppol.PathEscape(p.ID.URI()) + "/services/" + doc
	if rd.Href != want || rd.CertUID != smpCertificateUID(ds.SMPHosts[2]) {
		t.Errorf("redirect %+v, want %s", rd, want)
	}
	status, _, body = get(t, rd.Href)
	sm = xSigned{}
	decodeXML(t, body, &sm)
	if status != 200 || sm.Metadata.Info == nil {
		t.Fatalf("redirect target %d: %s", status, body)
	}
	// The target host does not serve the ServiceGroup: only the metadata was moved.
	if status, _, _ := get(t, strings.TrimSuffix(n.SMPBaseURL(2), "/")+"/"+peppol.PathEscape(p.ID.URI())); status != 404 {
		t.Errorf("target ServiceGroup status %d", status)
	}
}
