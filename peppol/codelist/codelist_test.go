package codelist

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	bisInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	bisCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	bisCII        = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100::CrossIndustryInvoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::D16B"
	order3        = "urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1"
	mlr3          = "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:fdc:peppol.eu:poacc:trns:mlr:3::2.1"
	xrechnung30   = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1"
	xrechnung20   = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.0::2.1"
	xrechnung11   = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_1.1::2.1"
	aunzBIS       = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:aunz:3.0::2.1"
	siUBL20       = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0::2.1"
	ehfCatalogue  = "urn:oasis:names:specification:ubl:schema:xsd:Catalogue-2::Catalogue##urn:fdc:peppol.eu:poacc:trns:catalogue:3:extended:urn:fdc:anskaffelser.no:2019:ehf:spec:3.0::2.2"
	pintJP        = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@jp-1::2.1"
	pintAUNZCN    = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:peppol:pint:billing-1@aunz-1::2.1"
	pintInvoice   = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1::2.1"
	pintAETax     = "urn:fdc:peppol:tax-data-document:1.0::TaxData##urn:peppol:pint:taxdata-1@ae-1::1.0"
)

func TestTableSizes(t *testing.T) {
	if got := len(DocumentTypes()); got != 321 {
		t.Errorf("DocumentTypes() has %d entries, want 321 (code list %s)", got, Version)
	}
	if got := len(Processes()); got != 109 {
		t.Errorf("Processes() has %d entries, want 109 (code list %s)", got, Version)
	}
	if got := len(TransportProfiles()); got != 5 {
		t.Errorf("TransportProfiles() has %d entries, want 5 (code list %s)", got, Version)
	}
}

func TestLookupDocumentType(t *testing.T) {
	tests := []struct {
		desc, scheme, value string
		wantOK              bool
		name                string
		state               State
		wantValue           string // the entry's Value when it differs from value
		since, dep, removed string
		domain, category    string
	}{
		{"BIS Billing 3.0 invoice", DocTypeScheme, bisInvoice, true, "Peppol BIS Billing UBL Invoice V3", StateActive, "", "2", "", "", "POAC", "Invoice"},
		{"BIS Billing 3.0 credit note", DocTypeScheme, bisCreditNote, true, "Peppol BIS Billing UBL Credit Note V3", StateActive, "", "2", "", "", "POAC", "Credit Note"},
		{"BIS Billing 3.0 CII", DocTypeScheme, bisCII, true, "Peppol BIS Billing CII Invoice V3", StateActive, "", "3", "", "", "POAC", "Invoice"},
		{"Order 3", DocTypeScheme, order3, true, "Peppol Order transaction 3.0", StateActive, "", "4", "", "", "POAC", "Order"},
		{"MLR 3", DocTypeScheme, mlr3, true, "Peppol Message Level Response transaction 3.0", StateActive, "", "4", "", "", "POAC", "Message Level Response"},
		{"XRechnung 3.0", DocTypeScheme, xrechnung30, true, "XRechnung UBL Invoice V3.0", StateActive, "", "8.7", "", "", "POAC", "Invoice"},
		{"XRechnung 2.0 deprecated", DocTypeScheme, xrechnung20, true, "XRechnung UBL Invoice V2.0", StateDeprecated, "", "7", "9.5", "2026-08-01", "POAC", "Invoice"},
		{"XRechnung 1.1 removed", DocTypeScheme, xrechnung11, true, "XRechnung UBL Invoice V1.1", StateRemoved, "", "3", "5", "2023-05-24", "POAC", "Invoice"},
		{"AU-NZ BIS 3.0 removed", DocTypeScheme, aunzBIS, true, "AU-NZ Peppol BIS Billing 3.0 Invoice", StateRemoved, "", "6", "9.2", "2026-03-31", "POAC", "Invoice"},
		{"SI-UBL 2.0", DocTypeScheme, siUBL20, true, "SI-UBL 2.0 Invoice", StateActive, "", "4", "", "", "POAC", "Invoice"},
		{"EHF Catalogue 3.0", DocTypeScheme, ehfCatalogue, true, "EHF Catalogue 3.0 (Catalogue)", StateActive, "", "8.0", "", "", "POAC", "Catalogue"},
		{"PINT JP under busdox scheme: removed", DocTypeScheme, pintJP, true, "JP PINT Invoice v1.0", StateRemoved, "", "8.6", "8.9", "2024-09-30", "POAC", "Invoice"},
		{"PINT JP wildcard, list value", WildcardDocTypeScheme, pintJP, true, "JP PINT Invoice v1.0", StateActive, "", "8.6", "", "", "POAC", "Invoice"},
		{"PINT JP wildcard, SMP registration with '*'", WildcardDocTypeScheme, strings.Replace(pintJP, "@jp-1::", "@jp-1*::", 1), true, "JP PINT Invoice v1.0", StateActive, pintJP, "8.6", "", "", "POAC", "Invoice"},
		{"PINT JP wildcard, concrete specialisation", WildcardDocTypeScheme, strings.Replace(pintJP, "@jp-1::", "@jp-1@acme-2::", 1), true, "JP PINT Invoice v1.0", StateActive, pintJP, "8.6", "", "", "POAC", "Invoice"},
		{"PINT AU-NZ credit note wildcard", WildcardDocTypeScheme, strings.Replace(pintAUNZCN, "@aunz-1::", "@aunz-1*::", 1), true, "A-NZ PINT Credit Note v1.0", StateActive, pintAUNZCN, "8.6", "", "", "POAC", "Credit Note"},
		{"PINT unknown country falls back to the abstract PINT entry", WildcardDocTypeScheme, strings.Replace(pintJP, "@jp-1::", "@zz-1*::", 1), true, "Peppol PINT Invoice v1.0", StateActive, pintInvoice, "8.6", "", "", "POAC", "Invoice"},
		{"PINT AE tax data wildcard removed", WildcardDocTypeScheme, pintAETax, true, "AE Tax Data Document v1.0", StateRemoved, "", "9.1", "9.5", "2026-03-31", "POAC", "Tax Reporting"},
		{"scheme ignores case and white space", " BUSDOX-DocID-QNS ", " " + bisInvoice + "\n", true, "Peppol BIS Billing UBL Invoice V3", StateActive, bisInvoice, "2", "", "", "POAC", "Invoice"},
		{"wildcard scheme ignores case", "Peppol-Doctype-Wildcard", strings.Replace(pintJP, "@jp-1::", "@jp-1*::", 1), true, "JP PINT Invoice v1.0", StateActive, pintJP, "8.6", "", "", "POAC", "Invoice"},

		{"value is case-sensitive", DocTypeScheme, strings.ToUpper(bisInvoice), false, "", "", "", "", "", "", "", ""},
		{"unknown value", DocTypeScheme, "urn:example:doc##urn:example:custom::1.0", false, "", "", "", "", "", "", "", ""},
		{"unknown scheme", "bdx-docid-qns", bisInvoice, false, "", "", "", "", "", "", "", ""},
		{"wildcard rule not applied to the busdox scheme", DocTypeScheme, strings.Replace(pintJP, "@jp-1::", "@jp-1*::", 1), false, "", "", "", "", "", "", "", ""},
		{"BIS invoice is not a wildcard entry", WildcardDocTypeScheme, bisInvoice, false, "", "", "", "", "", "", "", ""},
		{"'*' inside the customization id", WildcardDocTypeScheme, strings.Replace(pintJP, "@jp-1::", "@j*p-1::", 1), false, "", "", "", "", "", "", "", ""},
		{"different version after the customization id", WildcardDocTypeScheme, strings.Replace(pintJP, "::2.1", "::2.2", 1), false, "", "", "", "", "", "", "", ""},
		{"wildcard value without ##", WildcardDocTypeScheme, "urn:peppol:pint:billing-1@jp-1*::2.1", false, "", "", "", "", "", "", "", ""},
		{"wildcard value without version", WildcardDocTypeScheme, "a::b##urn:peppol:pint:billing-1@jp-1*::", false, "", "", "", "", "", "", "", ""},
		{"empty", "", "", false, "", "", "", "", "", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, ok := LookupDocumentType(tc.scheme, tc.value)
			if ok != tc.wantOK {
				t.Fatalf("LookupDocumentType(%q, %q) ok = %v, want %v (got %+v)", tc.scheme, tc.value, ok, tc.wantOK, got)
			}
			if !ok {
				if got.Name != "" || got.Value != "" {
					t.Errorf("not found, but got %+v", got)
				}
				return
			}
			wantValue := tc.wantValue
			if wantValue == "" {
				wantValue = tc.value
			}
			if got.Name != tc.name || got.State != tc.state || got.Value != wantValue {
				t.Errorf("got %q %s %q, want %q %s %q", got.Name, got.State, got.Value, tc.name, tc.state, wantValue)
			}
			if got.Since != tc.since || got.Deprecated != tc.dep || got.Removed != tc.removed {
				t.Errorf("since/deprecated/removed = %q/%q/%q, want %q/%q/%q", got.Since, got.Deprecated, got.Removed, tc.since, tc.dep, tc.removed)
			}
			if got.Domain != tc.domain || got.Category != tc.category {
				t.Errorf("domain/category = %q/%q, want %q/%q", got.Domain, got.Category, tc.domain, tc.category)
			}
		})
	}
}

func TestDocumentTypeDetails(t *testing.T) {
	d, _ := LookupDocumentType(DocTypeScheme, bisInvoice)
	want := []Identifier{
		{ProcessScheme, "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"},
	}
	if !d.IssuedByOpenPeppol || d.Abstract || len(d.Processes) == 0 || d.Processes[0] != want[0] {
		t.Errorf("BIS invoice: issued=%v abstract=%v processes=%v", d.IssuedByOpenPeppol, d.Abstract, d.Processes)
	}
	x, _ := LookupDocumentType(DocTypeScheme, xrechnung30)
	if x.IssuedByOpenPeppol {
		t.Error("XRechnung is listed as issued by OpenPeppol")
	}
	p, _ := LookupDocumentType(WildcardDocTypeScheme, pintInvoice)
	if !p.Abstract {
		t.Error("the generic PINT invoice is not marked abstract")
	}
}

func TestLookupProcess(t *testing.T) {
	tests := []struct {
		scheme, value string
		wantOK        bool
		name          string
		state         State
	}{
		{ProcessScheme, "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", true, "Peppol BIS Billing 3.0", StateActive},
		{"CENBII-PROCID-UBL", "urn:fdc:peppol.eu:poacc:bis:ordering:3", true, "Peppol BIS Ordering 3.0", StateActive},
		{ProcessScheme, " urn:peppol:bis:billing ", true, "Peppol PINT Billing", StateActive},
		{ProcessScheme, "urn:www.cenbii.eu:profile:bii05:ver2.0", true, "CEN BII Profile 5 Billing v2.0", StateActive},
		{ProcessScheme, "urn:www.cenbii.eu:profile:bii04:ver1.0", true, "CEN BII Profile 4 Basic Invoice only v1.0", StateDeprecated},
		{ProcessScheme, "urn:peppol:bis:taxreporting", true, "Peppol PINT Tax Reporting (AE, old)", StateRemoved},
		{"oioubl-procid-ubl", "Reference-Utility-1.0", true, "OIOUBL Reference Utility 1.0", StateRemoved},

		{ProcessScheme, "URN:FDC:PEPPOL.EU:2017:POACC:BILLING:01:1.0", false, "", ""},
		{ProcessScheme, "busdox:noprocess", false, "", ""},
		{"busdox-procid-ubl", "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0", false, "", ""},
		{ProcessScheme, "Reference-Utility-1.0", false, "", ""},
		{"", "", false, "", ""},
	}
	for _, tc := range tests {
		got, ok := LookupProcess(tc.scheme, tc.value)
		if ok != tc.wantOK || got.Name != tc.name || got.State != tc.state {
			t.Errorf("LookupProcess(%q, %q) = %q %s %v, want %q %s %v", tc.scheme, tc.value, got.Name, got.State, ok, tc.name, tc.state, tc.wantOK)
		}
	}
}

func TestLookupTransportProfile(t *testing.T) {
	tests := []struct {
		id               string
		wantOK           bool
		protocol         string
		state            State
		removed, version string
	}{
		{"peppol-transport-as4-v2_0", true, "AS4", StateActive, "", "2.0"},
		{" peppol-transport-as4-v2_0\n", true, "AS4", StateActive, "", "2.0"},
		{"peppol-transport-as4-v1_0", true, "AS4", StateRemoved, "2023-09-06", "1.0"},
		{"busdox-transport-as2-ver1p0", true, "AS2", StateRemoved, "2023-09-06", "1.0"},
		{"busdox-transport-as2-ver2p0", true, "AS2", StateRemoved, "2023-09-06", "2.0"},
		{"busdox-transport-start", true, "START", StateRemoved, "2023-09-06", "1.0.1"},

		{"PEPPOL-TRANSPORT-AS4-V2_0", false, "", "", "", ""},
		{"bdxr-transport-ebms3-as4-v1p0", false, "", "", "", ""},
		{"", false, "", "", "", ""},
	}
	for _, tc := range tests {
		got, ok := LookupTransportProfile(tc.id)
		if ok != tc.wantOK || got.Protocol != tc.protocol || got.State != tc.state || got.Removed != tc.removed || got.Version != tc.version {
			t.Errorf("LookupTransportProfile(%q) = %+v %v, want %s %s %q %q %v", tc.id, got, ok, tc.protocol, tc.state, tc.removed, tc.version, tc.wantOK)
		}
		if ok && got.Name == "" {
			t.Errorf("LookupTransportProfile(%q) has no name", tc.id)
		}
	}
}

// TestTablesAreConsistent checks properties every entry must have: known states, unique
// keys, lower-case schemes (LookupDocumentType folds the caller's scheme), the dates and
// releases that go with a state, and processes that the process table knows.
func TestTablesAreConsistent(t *testing.T) {
	valid := map[State]bool{StateActive: true, StateDeprecated: true, StateRemoved: true}
	date := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	seen := map[string]bool{}
	for i, d := range DocumentTypes() {
		k := key(d.Scheme, d.Value)
		switch {
		case seen[k]:
			t.Errorf("document type %d listed twice: %s", i, k)
		case !valid[d.State]:
			t.Errorf("document type %d %q: state %q", i, d.Name, d.State)
		case d.Scheme != DocTypeScheme && d.Scheme != WildcardDocTypeScheme:
			t.Errorf("document type %d %q: scheme %q", i, d.Name, d.Scheme)
		case d.Name == "" || d.Value == "" || d.Since == "" || d.Category == "" || len(d.Processes) == 0:
			t.Errorf("document type %d: missing name, value, since, category or processes: %+v", i, d)
		case d.State == StateActive && (d.Deprecated != "" || d.Removed != ""):
			t.Errorf("document type %d %q: active but deprecated %q / removed %q", i, d.Name, d.Deprecated, d.Removed)
		case d.State != StateActive && d.Deprecated == "":
			t.Errorf("document type %d %q: %s without a deprecation release", i, d.Name, d.State)
		case d.State == StateRemoved && !date.MatchString(d.Removed):
			t.Errorf("document type %d %q: removed without a removal date (%q)", i, d.Name, d.Removed)
		case d.Removed != "" && !date.MatchString(d.Removed):
			t.Errorf("document type %d %q: removal date %q", i, d.Name, d.Removed)
		case d.Scheme == WildcardDocTypeScheme && strings.Contains(d.Value, "*"):
			t.Errorf("document type %d %q: wildcard entries are listed without '*'", i, d.Name)
		}
		seen[k] = true
		if got, ok := LookupDocumentType(d.Scheme, d.Value); !ok || got.Name != d.Name || got.Value != d.Value {
			t.Errorf("document type %d %q is not found by its own scheme and value", i, d.Name)
		}
		for _, p := range d.Processes {
			if _, ok := LookupProcess(p.Scheme, p.Value); !ok {
				t.Errorf("document type %d %q: process %s::%s is not in the process table", i, d.Name, p.Scheme, p.Value)
			}
		}
	}
	seen = map[string]bool{}
	for i, p := range Processes() {
		k := key(p.Scheme, p.Value)
		if seen[k] || !valid[p.State] || p.Name == "" || p.Scheme != strings.ToLower(p.Scheme) {
			t.Errorf("process %d %+v: duplicate, bad state, no name or scheme not lower case", i, p)
		}
		seen[k] = true
	}
	seen = map[string]bool{}
	for i, tp := range TransportProfiles() {
		if seen[tp.ID] || !valid[tp.State] || tp.Name == "" || tp.Protocol == "" {
			t.Errorf("transport profile %d %+v: duplicate, bad state, no name or no protocol", i, tp)
		}
		seen[tp.ID] = true
	}
}

func TestCopiesDoNotChangeTables(t *testing.T) {
	all := DocumentTypes()
	all[0].Name = "changed"
	all[0].Processes[0].Value = "changed"
	d, _ := LookupDocumentType(DocTypeScheme, bisInvoice)
	d.Processes[0].Value = "changed"
	if again := DocumentTypes()[0]; again.Name == "changed" || again.Processes[0].Value == "changed" {
		t.Fatal("changing the result of DocumentTypes changed the table")
	}
	if again, _ := LookupDocumentType(DocTypeScheme, bisInvoice); again.Processes[0].Value == "changed" {
		t.Fatal("changing the result of LookupDocumentType changed the table")
	}
	ps := Processes()
	ps[0].Name = "changed"
	tps := TransportProfiles()
	tps[0].State = StateActive
	if Processes()[0].Name == "changed" || TransportProfiles()[0].State == StateActive {
		t.Fatal("changing the result of Processes or TransportProfiles changed the table")
	}
}

// deliberatelyNonStandard lists netsim document types that are meant to be unknown to
// the code list (none at present).
var deliberatelyNonStandard = map[string]bool{}

// TestNetsimDocumentTypesAreKnown reads the document types the network simulator
// registers (netsim/doctypes.go, parsed as text so that this package does not depend on
// netsim) and checks that each is in the code list, or deliberately non-standard.
func TestNetsimDocumentTypesAreKnown(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "netsim", "doctypes.go"))
	if err != nil {
		t.Skipf("netsim document types not readable: %v", err)
	}
	re := regexp.MustCompile(`DocumentType\{(DocTypeSchemeQNS|DocTypeSchemeWildcard), "([^"]+)"\}`)
	matches := re.FindAllStringSubmatch(string(src), -1)
	if len(matches) == 0 {
		t.Fatal("found no document types in netsim/doctypes.go; has its layout changed?")
	}
	for _, m := range matches {
		scheme := DocTypeScheme
		if m[1] == "DocTypeSchemeWildcard" {
			scheme = WildcardDocTypeScheme
		}
		d, ok := LookupDocumentType(scheme, m[2])
		switch {
		case deliberatelyNonStandard[m[2]]:
			if ok {
				t.Errorf("%s::%s is listed as deliberately non-standard but the code list has it as %q", scheme, m[2], d.Name)
			}
		case !ok:
			t.Errorf("netsim document type %s::%s is not in the code list", scheme, m[2])
		case d.State == StateRemoved:
			t.Errorf("netsim document type %s::%s (%s) is removed from the code list", scheme, m[2], d.Name)
		}
	}
}
