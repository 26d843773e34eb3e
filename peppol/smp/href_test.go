package smp

import (
	"strings"
	"testing"
)

func TestDocumentTypeFromHref(t *testing.T) {
	tests := []struct {
		name string
		href string
		want Identifier // zero means an error is expected
		err  string
	}{
		{
			name: "upper-case escapes",
			href: "https://smp.example.com/iso6523-actorid-upis%3A%3A0192%3A991825827/services/busdox-docid-qns%3A%3Aurn%3Ano%3Adifi%3Aeinnsyn%3Axsd%3A%3Ainnsynskrav",
			want: Identifier{DocTypeScheme, "urn:no:difi:einnsyn:xsd::innsynskrav"},
		},
		{
			name: "lower-case escapes, encoded /services/, port, CNAME host",
			href: "http://b-0123456789abcdef0123456789abcdef.iso6523-actorid-upis.acc.edelivery.tech.ec.europa.eu:80/iso6523-actorid-upis%3a%3a9948%3ax%2fservices%2fbusdox-docid-qns%3a%3aurn%3aa%23%23b%3a%3a2.1",
			want: Identifier{DocTypeScheme, "urn:a##b::2.1"},
		},
		{
			name: "encoded slashes upper-case",
			href: "https://smp.example.com/iso6523-actorid-upis%3A%3A9948%3Ax%2FSERVICES%2Fbusdox-docid-qns%3A%3Aurn%3Aa",
			want: Identifier{DocTypeScheme, "urn:a"},
		},
		{
			name: "phoss-smp 8.1.0 missing slash",
			href: "https://smp.example.com/iso6523-actorid-upis%3A%3A9915%3Atest/servicesbusdox-docid-qns%3A%3Aurn%3Aa%3A%3A2.1",
			want: Identifier{DocTypeScheme, "urn:a::2.1"},
		},
		{
			name: "plus is not a space",
			href: "https://smp.example.com/iso6523-actorid-upis%3A%3A0009%3A1/services/busdox-docid-qns%3A%3Aurn%3Apeppol%3Adoctype%3Apdf%2Bxml%3A%3Apdf+xml",
			want: Identifier{DocTypeScheme, "urn:peppol:doctype:pdf+xml::pdf+xml"},
		},
		{
			name: "wildcard with @ and *",
			href: "https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A1/services/peppol-doctype-wildcard%3A%3Aurn%3Apeppol%3Apint%3Abilling-1%40jp-1%2A%3A%3A2.1",
			want: Identifier{WildcardDocTypeScheme, "urn:peppol:pint:billing-1@jp-1*::2.1"},
		},
		{
			name: "base path containing services",
			href: "https://host.example.com/services/smp/iso6523-actorid-upis%3A%3A0088%3A1/services/busdox-docid-qns%3A%3Aurn%3Ax",
			want: Identifier{DocTypeScheme, "urn:x"},
		},
		{
			name: "unencoded",
			href: "http://smp.example.com/iso6523-actorid-upis::0088:1/services/busdox-docid-qns::urn:x##y::2.1",
			want: Identifier{DocTypeScheme, "urn:x##y::2.1"},
		},
		{
			name: "relative",
			href: "/iso6523-actorid-upis%3A%3A0088%3A1/services/busdox-docid-qns%3A%3Aurn%3Ax",
			want: Identifier{DocTypeScheme, "urn:x"},
		},
		{
			name: "surrounding white space",
			href: "\n  https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A1/services/busdox-docid-qns%3A%3Aurn%3Ax \n",
			want: Identifier{DocTypeScheme, "urn:x"},
		},
		{
			name: "non-ASCII before services keeps offsets",
			href: "https://smp.example.com/%C3%A9%C3%A9::x/SERVICES/busdox-docid-qns%3A%3Aurn%3A%C3%A5",
			want: Identifier{DocTypeScheme, "urn:å"},
		},
		{name: "empty", href: "  ", err: "href is empty"},
		{name: "broken escape", href: "https://smp.example.com/a%3A%3Ab/services/x%3A%3Ay%2", err: `broken percent-escape "%2"`},
		{name: "lone percent", href: "%", err: `broken percent-escape "%"`},
		{name: "percent at end", href: "https://smp.example.com/a::b/services/x::y%", err: `broken percent-escape "%"`},
		{name: "non-hex escape", href: "https://smp.example.com/a/services/x%G1", err: `broken percent-escape "%G1"`},
		{name: "invalid UTF-8", href: "https://smp.example.com/a::b/services/x::%FF", err: "does not decode to UTF-8"},
		{name: "host only", href: "https://smp.example.com", err: "href has no path"},
		{name: "no services", href: "https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A1", err: "no /services/ segment"},
		{name: "no scheme separator", href: "https://smp.example.com/iso6523-actorid-upis%3A%3A0088%3A1/services/urn%3Ax", err: "expected scheme::value"},
		{name: "empty value", href: "https://smp.example.com/a%3A%3Ab/services/busdox-docid-qns%3A%3A", err: "value is empty"},
		{name: "bad scheme", href: "https://smp.example.com/a%3A%3Ab/services/bad%20scheme%3A%3Ax", err: "scheme must be"},
		{name: "control character", href: "https://smp.example.com/a%3A%3Ab/services/s%3A%3Ax%0Ay", err: "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DocumentTypeFromHref(tt.href)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("DocumentTypeFromHref(%q) = %v, %v; want error containing %q", tt.href, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("DocumentTypeFromHref(%q): %v", tt.href, err)
			}
			if got != tt.want {
				t.Errorf("DocumentTypeFromHref(%q) = %+v, want %+v", tt.href, got, tt.want)
			}
		})
	}
}
