package smp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func addTestdataSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata seeds: %v", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(""))
	f.Add([]byte(`<ServiceGroup xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><ParticipantIdentifier>a</ParticipantIdentifier><ServiceMetadataReferenceCollection><ServiceMetadataReference href="%"/></ServiceMetadataReferenceCollection></ServiceGroup>`))
	f.Add([]byte(`<?xml version="1.0" encoding="latin1"?><ServiceMetadata xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><Redirect href="x"/></ServiceMetadata>`))
}

// trimmed reports whether s has no surrounding white space, the parsers' promise.
func trimmed(s string) bool { return s == strings.TrimSpace(s) }

func FuzzParseServiceGroup(f *testing.F) {
	addTestdataSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sg, err := ParseServiceGroup(data)
		if err != nil {
			return
		}
		if sg.Participant.Value == "" || !trimmed(sg.Participant.Value) || !trimmed(sg.Participant.Scheme) {
			t.Fatalf("participant %q", sg.Participant)
		}
		if sg.Dialect != DialectSMP2 && len(sg.DocumentTypes)+len(sg.SkippedReferences) > len(sg.References) {
			t.Fatalf("%d doc types + %d skipped > %d references", len(sg.DocumentTypes), len(sg.SkippedReferences), len(sg.References))
		}
		for _, d := range sg.DocumentTypes {
			if d.Value == "" || !trimmed(d.Value) || !utf8.ValidString(d.Value) {
				t.Fatalf("document type %q", d)
			}
		}
	})
}

func FuzzParseServiceMetadata(f *testing.F) {
	addTestdataSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		sm, err := ParseServiceMetadata(data)
		if err != nil {
			return
		}
		if sm.Redirect == nil && (sm.Participant.Value == "" || sm.DocumentType.Value == "") {
			t.Fatalf("neither redirect nor identifiers: %+v", sm)
		}
		if sm.Redirect != nil && (sm.Redirect.Href == "" || !trimmed(sm.Redirect.Href)) {
			t.Fatalf("redirect href %q", sm.Redirect.Href)
		}
		for _, p := range sm.Processes {
			for _, e := range p.Endpoints {
				if !trimmed(e.Address) || !trimmed(e.TransportProfile) {
					t.Fatalf("untrimmed endpoint %q %q", e.Address, e.TransportProfile)
				}
				if e.Certificate != nil && e.CertificateError != "" {
					t.Fatalf("both certificate and error %q", e.CertificateError)
				}
			}
		}
	})
}

func FuzzDocumentTypeFromHref(f *testing.F) {
	f.Add("https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A1/services/busdox-docid-qns%3A%3Aurn%3Ax")
	f.Add("http://b-x.example:80/iso6523-actorid-upis%3a%3a9948%3ax%2fservices%2fbusdox-docid-qns%3a%3aurn%3aa")
	f.Add("https://smp.example.com/a%3A%3Ab/servicesbusdox-docid-qns%3A%3Aurn%3Aa")
	f.Add("%")
	f.Fuzz(func(t *testing.T, href string) {
		id, err := DocumentTypeFromHref(href)
		if err != nil {
			return
		}
		if id.Scheme == "" || id.Value == "" || !trimmed(id.Value) || strings.Contains(id.Scheme, "::") {
			t.Fatalf("DocumentTypeFromHref(%q) = %q", href, id)
		}
		back, err := ParseIdentifier(id.String())
		if err != nil || back != id {
			t.Fatalf("round trip %q -> %q, %v", id, back, err)
		}
	})
}
