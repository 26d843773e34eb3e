package smp

import (
	"testing"

	"github.com/peppolgate/peppolgate/peppol"
)

func TestServiceGroupURL(t *testing.T) {
	id := peppol.ParticipantID{ICD: "9915", Value: "test"}
	tests := []struct {
		base string
		want string
	}{
		{"https://test.erechnung.gv.at/smp", "https://test.erechnung.gv.at/smp/iso6523-actorid-upis%3A%3A9915%3Atest"},
		{"https://test.erechnung.gv.at/smp/", "https://test.erechnung.gv.at/smp/iso6523-actorid-upis%3A%3A9915%3Atest"},
		{"https://smp.example.com", "https://smp.example.com/iso6523-actorid-upis%3A%3A9915%3Atest"},
		{"https://smp.example.com/", "https://smp.example.com/iso6523-actorid-upis%3A%3A9915%3Atest"},
		{"https://smp.example.com//", "https://smp.example.com/iso6523-actorid-upis%3A%3A9915%3Atest"},
		{"http://127.0.0.1:8080/a/b", "http://127.0.0.1:8080/a/b/iso6523-actorid-upis%3A%3A9915%3Atest"},
	}
	for _, tt := range tests {
		if got := ServiceGroupURL(tt.base, id); got != tt.want {
			t.Errorf("ServiceGroupURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

func TestServiceMetadataURL(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		id      peppol.ParticipantID
		docType Identifier
		want    string
	}{
		{
			// The example in the peppol.helger documentation.
			name:    "BIS Billing 3.0 invoice, base with path",
			base:    "https://test.erechnung.gv.at/smp",
			id:      peppol.ParticipantID{ICD: "9915", Value: "test"},
			docType: Identifier{DocTypeScheme, bisInvoice},
			want:    "https://test.erechnung.gv.at/smp/iso6523-actorid-upis%3A%3A9915%3Atest/services/busdox-docid-qns%3A%3Aurn%3Aoasis%3Anames%3Aspecification%3Aubl%3Aschema%3Axsd%3AInvoice-2%3A%3AInvoice%23%23urn%3Acen.eu%3Aen16931%3A2017%23compliant%23urn%3Afdc%3Apeppol.eu%3A2017%3Apoacc%3Abilling%3A3.0%3A%3A2.1",
		},
		{
			name:    "same with trailing slash",
			base:    "https://test.erechnung.gv.at/smp/",
			id:      peppol.ParticipantID{ICD: "9915", Value: "test"},
			docType: Identifier{DocTypeScheme, bisInvoice},
			want:    "https://test.erechnung.gv.at/smp/iso6523-actorid-upis%3A%3A9915%3Atest/services/busdox-docid-qns%3A%3Aurn%3Aoasis%3Anames%3Aspecification%3Aubl%3Aschema%3Axsd%3AInvoice-2%3A%3AInvoice%23%23urn%3Acen.eu%3Aen16931%3A2017%23compliant%23urn%3Afdc%3Apeppol.eu%3A2017%3Apoacc%3Abilling%3A3.0%3A%3A2.1",
		},
		{
			name:    "plus in doc type",
			base:    "https://smp.example.com/",
			id:      peppol.ParticipantID{ICD: "0009", Value: "12345678200010"},
			docType: Identifier{DocTypeScheme, "urn:peppol:doctype:pdf+xml::pdf+xml##urn:fr:1.0::1.0"},
			want:    "https://smp.example.com/iso6523-actorid-upis%3A%3A0009%3A12345678200010/services/busdox-docid-qns%3A%3Aurn%3Apeppol%3Adoctype%3Apdf%2Bxml%3A%3Apdf%2Bxml%23%23urn%3Afr%3A1.0%3A%3A1.0",
		},
		{
			name:    "PINT wildcard with @ and *",
			base:    "https://smp.example.com",
			id:      peppol.ParticipantID{ICD: "0088", Value: "7300010000001"},
			docType: Identifier{WildcardDocTypeScheme, "urn:peppol:pint:billing-1@aunz-1*::2.1"},
			want:    "https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A7300010000001/services/peppol-doctype-wildcard%3A%3Aurn%3Apeppol%3Apint%3Abilling-1%40aunz-1%2A%3A%3A2.1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServiceMetadataURL(tt.base, tt.id, tt.docType); got != tt.want {
				t.Errorf("ServiceMetadataURL\n got  %s\n want %s", got, tt.want)
			}
		})
	}
}
