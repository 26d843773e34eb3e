package smp

import (
	"strings"
	"testing"
)

func TestIdentifierString(t *testing.T) {
	tests := []struct {
		id   Identifier
		want string
	}{
		{Identifier{"busdox-docid-qns", bisInvoice}, "busdox-docid-qns::" + bisInvoice},
		{Identifier{"iso6523-actorid-upis", "0208:0677424046"}, "iso6523-actorid-upis::0208:0677424046"},
		{Identifier{"", "urn:only:value"}, "urn:only:value"},
		{Identifier{}, ""},
	}
	for _, tt := range tests {
		if got := tt.id.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestIdentifierIsWildcard(t *testing.T) {
	tests := []struct {
		id   Identifier
		want bool
	}{
		{Identifier{WildcardDocTypeScheme, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-3.0@jp:peppol-1*::2.1"}, true},
		{Identifier{WildcardDocTypeScheme, "urn:peppol:pint:billing-1*"}, true},
		{Identifier{DocTypeScheme, "urn:peppol:pint:billing-1*::2.1"}, false},
		{Identifier{"", "urn:peppol:pint:billing-1*"}, false},
	}
	for _, tt := range tests {
		if got := tt.id.IsWildcard(); got != tt.want {
			t.Errorf("%#v.IsWildcard() = %v, want %v", tt.id, got, tt.want)
		}
	}
	if !(Identifier{}).IsZero() || (Identifier{Value: "x"}).IsZero() {
		t.Error("IsZero wrong")
	}
}

func TestParseIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want Identifier
		err  string
	}{
		{in: "busdox-docid-qns::" + bisInvoice, want: Identifier{DocTypeScheme, bisInvoice}},
		{in: "  cenbii-procid-ubl::" + bisProcess + "\n", want: Identifier{ProcessScheme, bisProcess}},
		{in: "peppol-doctype-wildcard::urn:peppol:pint:billing-1@jp-1*::2.1", want: Identifier{WildcardDocTypeScheme, "urn:peppol:pint:billing-1@jp-1*::2.1"}},
		{in: "urn:oasis:names:tc:ebcore:partyid-type:iso6523:0088::123", want: Identifier{"urn:oasis:names:tc:ebcore:partyid-type:iso6523:0088", "123"}},
		{in: "Case-Kept::URN:Mixed:Case", want: Identifier{"Case-Kept", "URN:Mixed:Case"}},
		{in: "no-separator", err: "expected scheme::value"},
		{in: "::value", err: "scheme must be"},
		{in: "sch eme::value", err: "scheme must be"},
		{in: "scheme::  ", err: "value is empty"},
		{in: "scheme::a\tb", err: "control character"},
		{in: strings.Repeat("s", 101) + "::v", err: "scheme must be"},
	}
	for _, tt := range tests {
		got, err := ParseIdentifier(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseIdentifier(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseIdentifier(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestShortKeepsUTF8(t *testing.T) {
	s := strings.Repeat("a", 119) + "éééé"
	got := short(s)
	if !strings.HasSuffix(got, "…") || strings.ContainsRune(got, '\uFFFD') || len(got) > 124 {
		t.Errorf("short() = %q", got)
	}
	if short("abc") != "abc" {
		t.Error("short changed a short string")
	}
}
