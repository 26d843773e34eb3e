package smp

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

const (
	smp2Open = `<ServiceMetadata xmlns="http://docs.oasis-open.org/bdxr/ns/SMP/2/ServiceMetadata">` +
		`<ID schemeID="bdx-docid-qns">urn:x</ID><ParticipantID schemeID="iso6523-actorid-upis">0151:1</ParticipantID>`
	smp2Endpoint = `<Endpoint><TransportProfileID>peppol-transport-as4-v2_0</TransportProfileID><AddressURI>https://ap.peppolgate.test/as4</AddressURI></Endpoint>`
	busdoxOpen   = `<ServiceMetadata xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><ServiceInformation>` +
		`<ParticipantIdentifier scheme="iso6523-actorid-upis">0208:1</ParticipantIdentifier><DocumentIdentifier scheme="busdox-docid-qns">urn:x</DocumentIdentifier><ProcessList>`
)

// smp2Doc builds an SMP 2.0 ServiceMetadata of groups ProcessMetadata elements, each
// with procs processes and eps endpoints.
func smp2Doc(groups, procs, eps int) []byte {
	var b strings.Builder
	b.WriteString(smp2Open)
	for g := 0; g < groups; g++ {
		b.WriteString("<ProcessMetadata>")
		for p := 0; p < procs; p++ {
			fmt.Fprintf(&b, `<Process><ID schemeID="cenbii-procid-ubl">urn:p:%d:%d</ID></Process>`, g, p)
		}
		b.WriteString(strings.Repeat(smp2Endpoint, eps))
		b.WriteString("</ProcessMetadata>")
	}
	b.WriteString("</ServiceMetadata>")
	return []byte(b.String())
}

// busdoxDoc builds a Peppol SMP 1 ServiceMetadata of procs processes with eps
// endpoints each.
func busdoxDoc(procs, eps int) []byte {
	var b strings.Builder
	b.WriteString(busdoxOpen)
	for p := 0; p < procs; p++ {
		fmt.Fprintf(&b, `<Process><ProcessIdentifier scheme="cenbii-procid-ubl">urn:p:%d</ProcessIdentifier><ServiceEndpointList>`, p)
		for e := 0; e < eps; e++ {
			b.WriteString(`<Endpoint transportProfile="peppol-transport-as4-v2_0"><EndpointReference><Address>https://ap.peppolgate.test/as4</Address></EndpointReference></Endpoint>`)
		}
		b.WriteString(`</ServiceEndpointList></Process>`)
	}
	b.WriteString(`</ProcessList></ServiceInformation></ServiceMetadata>`)
	return []byte(b.String())
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestParseServiceMetadataTotals(t *testing.T) {
	tests := []struct {
		name      string
		in        []byte
		processes int // want this many; -1 means an ErrMalformed error containing errText
		endpoints int // endpoints of each process
		errText   string
	}{
		{"smp2 at both caps", smp2Doc(1, MaxProcesses, MaxEndpoints), MaxProcesses, MaxEndpoints, ""},
		{"smp2 many groups at caps", smp2Doc(100, 10, 10), 1000, 10, ""},
		{"smp2 processes over cap", smp2Doc(1, MaxProcesses+1, 1), -1, 0, "1001 processes; at most 1000"},
		{"smp2 processes over cap across groups", smp2Doc(101, 10, 1), -1, 0, "1010 processes; at most 1000"},
		{"smp2 group without process counts as one", smp2Doc(1001, 0, 1), -1, 0, "1001 processes"},
		{"smp2 endpoints over cap", smp2Doc(1, 1, MaxEndpoints+1), -1, 0, "1001 endpoints; at most 1000"},
		{"smp2 endpoints over cap across groups", smp2Doc(11, 1, 100), -1, 0, "1100 endpoints; at most 1000"},
		{"busdox at caps", busdoxDoc(100, 10), 100, 10, ""},
		{"busdox processes over cap", busdoxDoc(MaxProcesses+1, 0), -1, 0, "1001 processes"},
		{"busdox endpoints over cap", busdoxDoc(11, 100), -1, 0, "1100 endpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sm, err := ParseServiceMetadata(tt.in)
			if tt.processes < 0 {
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error = %v, want ErrMalformed containing %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sm.Processes) != tt.processes {
				t.Fatalf("%d processes, want %d", len(sm.Processes), tt.processes)
			}
			for _, p := range sm.Processes {
				if len(p.Endpoints) != tt.endpoints || p.Endpoints[0].Address != "https://ap.peppolgate.test/as4" {
					t.Fatalf("process %s: %d endpoints, want %d", p.ID, len(p.Endpoints), tt.endpoints)
				}
			}
		})
	}
}

// TestParseServiceMetadataSharedEndpoints checks that the processes of one SMP 2.0
// ProcessMetadata share its endpoints and that appending to one does not disturb the
// others.
func TestParseServiceMetadataSharedEndpoints(t *testing.T) {
	sm, err := ParseServiceMetadata(smp2Doc(1, 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	p := sm.Processes
	if len(p) != 3 || &p[0].Endpoints[0] != &p[2].Endpoints[0] {
		t.Fatalf("processes do not share one endpoints array: %d processes", len(p))
	}
	p[0].Endpoints = append(p[0].Endpoints, Endpoint{Address: "added"})
	if len(p[1].Endpoints) != 2 || cap(p[1].Endpoints) != 2 || p[1].Endpoints[1].Address == "added" {
		t.Errorf("append to one process changed another: %+v", p[1].Endpoints)
	}
}

// TestParseServiceMetadataLargeBounded parses ~2 MiB documents of the shapes that used to
// multiply processes by endpoints and checks the heap allocated stays bounded.
func TestParseServiceMetadataLargeBounded(t *testing.T) {
	const limit = 64 << 20
	tests := []struct {
		name  string
		in    []byte
		valid bool
	}{
		// The largest document within the caps: a million process-endpoint pairs, which
		// allocated ~250 MB when every process got its own copy of the endpoints.
		{"at caps", smp2Doc(1, MaxProcesses, MaxEndpoints), true},
		// ~2 MiB: 100 processes × 17000 endpoints.
		{"one group over caps", smp2Doc(1, 100, 17000), false},
		{"many groups", smp2Doc(2000, 5, 5), false},
		{"busdox", busdoxDoc(100, 120), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = ParseServiceMetadata(tt.in) })
			if (err == nil) != tt.valid {
				t.Fatalf("error = %v, want valid=%v", err, tt.valid)
			}
			t.Logf("%d-byte document: %d MB allocated", len(tt.in), n>>20)
			if n > limit {
				t.Errorf("%d-byte document allocated %d MB, want at most %d MB", len(tt.in), n>>20, limit>>20)
			}
		})
	}
}

// TestParseServiceGroupManyReferences parses ServiceGroups around and far beyond
// MaxReferences, with duplicates, in both dialects.
func TestParseServiceGroupManyReferences(t *testing.T) {
	const busdox = `<ServiceGroup xmlns="http://busdox.org/serviceMetadata/publishing/1.0/"><ParticipantIdentifier scheme="iso6523-actorid-upis">0208:1</ParticipantIdentifier><ServiceMetadataReferenceCollection>`
	const smp2 = `<ServiceGroup xmlns="http://docs.oasis-open.org/bdxr/ns/SMP/2/ServiceGroup"><ParticipantID schemeID="iso6523-actorid-upis">0208:1</ParticipantID>`
	build := func(smp2Dialect bool, n, distinct int) []byte {
		var b strings.Builder
		if smp2Dialect {
			b.WriteString(smp2)
		} else {
			b.WriteString(busdox)
		}
		for i := 0; i < n; i++ {
			if smp2Dialect {
				fmt.Fprintf(&b, `<ServiceReference><ID schemeID="busdox-docid-qns">urn:d:%d</ID></ServiceReference>`, i%distinct)
			} else {
				fmt.Fprintf(&b, `<ServiceMetadataReference href="https://smp.test/iso6523-actorid-upis%%3A%%3A0208%%3A1/services/busdox-docid-qns%%3A%%3Aurn%%3Ad%%3A%d"/>`, i%distinct)
			}
		}
		if smp2Dialect {
			b.WriteString(`</ServiceGroup>`)
		} else {
			b.WriteString(`</ServiceMetadataReferenceCollection></ServiceGroup>`)
		}
		return []byte(b.String())
	}
	tests := []struct {
		name      string
		smp2      bool
		n         int
		distinct  int
		wantTypes int
		wantFirst string // Href of the excess SkippedReference; "" means none
	}{
		{"busdox at cap", false, MaxReferences, MaxReferences, MaxReferences, ""},
		{"busdox 38k distinct", false, 38000, 38000, MaxReferences, "https://smp.test/iso6523-actorid-upis%3A%3A0208%3A1/services/busdox-docid-qns%3A%3Aurn%3Ad%3A10000"},
		{"busdox 38k, 500 distinct", false, 38000, 500, 500, "https://smp.test/iso6523-actorid-upis%3A%3A0208%3A1/services/busdox-docid-qns%3A%3Aurn%3Ad%3A0"},
		{"smp2 38k distinct", true, 38000, 38000, MaxReferences, "busdox-docid-qns::urn:d:10000"},
		{"smp2 at cap with duplicates", true, MaxReferences, 7, 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sg, err := ParseServiceGroup(build(tt.smp2, tt.n, tt.distinct))
			if err != nil {
				t.Fatal(err)
			}
			if len(sg.DocumentTypes) != tt.wantTypes {
				t.Errorf("%d document types, want %d", len(sg.DocumentTypes), tt.wantTypes)
			}
			if last := sg.DocumentTypes[len(sg.DocumentTypes)-1].Value; last != fmt.Sprintf("urn:d:%d", tt.wantTypes-1) {
				t.Errorf("last document type %s, want urn:d:%d (document order)", last, tt.wantTypes-1)
			}
			if !tt.smp2 && len(sg.References) != min(tt.n, MaxReferences) {
				t.Errorf("%d references kept, want %d", len(sg.References), min(tt.n, MaxReferences))
			}
			if tt.wantFirst == "" {
				if len(sg.SkippedReferences) != 0 {
					t.Errorf("SkippedReferences = %+v, want none", sg.SkippedReferences)
				}
				return
			}
			if len(sg.SkippedReferences) != 1 {
				t.Fatalf("%d SkippedReferences, want exactly 1", len(sg.SkippedReferences))
			}
			s := sg.SkippedReferences[0]
			wantReason := fmt.Sprintf("has %d references and at most %d are read", tt.n, MaxReferences)
			if s.Href != tt.wantFirst || !strings.Contains(s.Reason, wantReason) {
				t.Errorf("SkippedReference = %+v, want Href %s and a reason containing %q", s, tt.wantFirst, wantReason)
			}
		})
	}
}

// TestEndpointDatesMarshal checks that dates json.Marshal cannot write become a Problem
// and a nil date instead of reaching callers.
func TestEndpointDatesMarshal(t *testing.T) {
	tests := []struct {
		activation, expiration string
		wantProblems           int
		wantExpiration         string // RFC 3339, "" for nil
	}{
		{"2025-01-01T00:00:00Z", "9999-12-31T23:59:59Z", 0, "9999-12-31T23:59:59Z"},
		{"2025-01-01T00:00:00Z", "9999-12-31T23:59:59-05:00", 1, ""},
		{"0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59-05:00", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.expiration, func(t *testing.T) {
			in := busdoxOpen + `<Process><ProcessIdentifier scheme="cenbii-procid-ubl">urn:p</ProcessIdentifier><ServiceEndpointList>` +
				`<Endpoint transportProfile="peppol-transport-as4-v2_0"><EndpointReference><Address>https://ap.peppolgate.test/as4</Address></EndpointReference>` +
				`<ServiceActivationDate>` + tt.activation + `</ServiceActivationDate><ServiceExpirationDate>` + tt.expiration + `</ServiceExpirationDate></Endpoint>` +
				`</ServiceEndpointList></Process></ProcessList></ServiceInformation></ServiceMetadata>`
			sm, err := ParseServiceMetadata([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			e := sm.Processes[0].Endpoints[0]
			if len(e.Problems) != tt.wantProblems {
				t.Errorf("Problems = %q, want %d", e.Problems, tt.wantProblems)
			}
			if got := fmtTime(e.ExpirationDate); (tt.wantExpiration == "" && got != "-") || (tt.wantExpiration != "" && got != tt.wantExpiration) {
				t.Errorf("ExpirationDate = %s, want %q", got, tt.wantExpiration)
			}
			if _, err := json.Marshal(sm); err != nil {
				t.Errorf("json.Marshal: %v", err)
			}
		})
	}
}
