// Package codelist holds the project's own tables of the OpenPeppol code lists for
// document type identifiers, process identifiers and transport profiles (version
// Version), with lookups that give each identifier a readable name and its code-list
// state. An identifier that none of the lookups knows is non-standard on the Peppol
// network.
//
// The tables are generated (go generate ./peppol/codelist, see internal/gen) from the
// published lists (OpenPEPPOL/edec-codelists), kept in testdata/upstream, and the
// project's additions in overlay.json; the next code-list release is a regeneration.
// They are constant data, never written after package initialisation.
package codelist

//go:generate go run ./internal/gen

import (
	"slices"
	"strings"
)

// Identifier schemes used by the code lists.
const (
	// DocTypeScheme is the scheme of exact document type identifiers.
	DocTypeScheme = "busdox-docid-qns"
	// WildcardDocTypeScheme is the scheme of PINT wildcard document type identifiers.
	WildcardDocTypeScheme = "peppol-doctype-wildcard"
	// ProcessScheme is the scheme of (almost) all Peppol process identifiers.
	ProcessScheme = "cenbii-procid-ubl"
)

// State is the life-cycle state of a code-list entry, spelled as the code lists spell it.
type State string

// The states a code-list entry can be in.
const (
	// StateActive entries may be used.
	StateActive State = "active"
	// StateDeprecated entries still work but are on their way out; see the entry's
	// Deprecated and Removed fields.
	StateDeprecated State = "deprecated"
	// StateRemoved entries are no longer allowed on the network.
	StateRemoved State = "removed"
)

// Identifier is a scheme and a value, e.g. the process identifiers a document type is
// listed with.
type Identifier struct {
	Scheme string
	Value  string
}

// DocumentType is one entry of the document type code list.
type DocumentType struct {
	// Scheme is DocTypeScheme or WildcardDocTypeScheme.
	Scheme string
	// Value is the identifier as the code list gives it (case-sensitive). Wildcard
	// entries are listed without the '*' that SMP registrations add to the
	// customization id.
	Value string
	// Name is the code list's display name, e.g. "Peppol BIS Billing UBL Invoice V3".
	Name string
	// State is the entry's state.
	State State
	// Since is the code list release that introduced the entry, e.g. "8.0".
	Since string
	// Deprecated is the release (e.g. "9.5") or, for a few entries, the date
	// (YYYY-MM-DD) the entry was deprecated; empty for active entries.
	Deprecated string
	// Removed is the date (YYYY-MM-DD) the entry was or will be removed from the
	// network; empty when the code list gives none.
	Removed string
	// Domain is the domain community in the code list's spelling: "POAC", "PRAC",
	// "Logistics", "eB2B", "Extended use", ...; empty when the list gives none.
	Domain string
	// Category is the kind of business document: "Invoice", "Credit Note", "Order", ...
	Category string
	// IssuedByOpenPeppol reports whether OpenPeppol issued the specification (as
	// opposed to a national or community extension such as XRechnung or EHF).
	IssuedByOpenPeppol bool
	// Abstract marks the generic PINT entries that concrete PINT specialisations
	// (jp, sg, aunz, ...) are derived from.
	Abstract bool
	// Processes are the process identifiers the code list gives for the entry.
	Processes []Identifier
}

// Process is one entry of the process code list.
type Process struct {
	// Scheme is ProcessScheme, or oioubl-procid-ubl for two removed Danish entries.
	Scheme string
	// Value is the identifier (case-sensitive).
	Value string
	// Name is a readable name; the code list has none, so these are the project's own.
	Name string
	// State is the entry's state.
	State State
}

// TransportProfile is one entry of the transport profile code list.
type TransportProfile struct {
	// ID is the profile identifier used in SMP endpoints, e.g. "peppol-transport-as4-v2_0".
	ID string
	// Name is a readable name; the code list has none, so these are the project's own.
	Name string
	// Protocol is "AS4", "AS2" or "START".
	Protocol string
	// Version is the profile version, e.g. "2.0".
	Version string
	// State is the entry's state.
	State State
	// Since is the code list release that introduced the profile.
	Since string
	// Deprecated is the release that deprecated the profile; empty when active.
	Deprecated string
	// Removed is the date (YYYY-MM-DD) the profile was removed; empty when active.
	Removed string
}

// index maps "<lower-case scheme>::<value>" (or a transport profile id) to a table
// position. The maps are built once at package initialisation and only read afterwards,
// so concurrent lookups are safe.
type index map[string]int

var (
	docTypeIndex   = buildIndex(len(documentTypeTable), func(i int) string { return key(documentTypeTable[i].Scheme, documentTypeTable[i].Value) })
	processIndex   = buildIndex(len(processTable), func(i int) string { return key(processTable[i].Scheme, processTable[i].Value) })
	transportIndex = buildIndex(len(transportProfileTable), func(i int) string { return transportProfileTable[i].ID })
)

// buildIndex maps the key of each of n table entries to its position. A key that occurs
// twice keeps its first position; TestTablesHaveNoDuplicates guards against that.
func buildIndex(n int, keyOf func(int) string) index {
	m := make(index, n)
	for i := range n {
		k := keyOf(i)
		if _, dup := m[k]; !dup {
			m[k] = i
		}
	}
	return m
}

// key is the index key of a scheme and value. Schemes are folded to lower case (all
// schemes in the code lists are lower case); values are kept as they are.
func key(scheme, value string) string {
	return strings.ToLower(strings.TrimSpace(scheme)) + "::" + strings.TrimSpace(value)
}

// LookupDocumentType returns the code-list entry for a document type identifier, and
// false when the code list has none (the identifier is non-standard).
//
// The scheme is compared ignoring case and surrounding white space (leniently: the
// Policy for use of Identifiers compares schemes exactly, but every scheme in the code
// lists is lower case, so folding cannot confuse two entries); the value is compared
// exactly (document type identifier values are case-sensitive in Peppol) after trimming
// surrounding white space. For the peppol-doctype-wildcard scheme it also
// applies the PINT wildcard rule of the Peppol Policy for use of Identifiers 4.3 (as
// peppol-commons' PeppolWildcardSelector implements it): a trailing '*' on the
// customization id is dropped, and when that value is not listed, '@'-separated parts
// are cut from the end of the customization id until a listed entry is found. So
// "…##urn:peppol:pint:billing-1@jp-1*::2.1" and "…##urn:peppol:pint:billing-1@jp-1@x-1::2.1"
// both find "JP PINT Invoice v1.0", and the returned entry's Value is then the list's,
// not the argument. A customization id with a '*' anywhere but at its end matches
// nothing.
func LookupDocumentType(scheme, value string) (DocumentType, bool) {
	if i, ok := docTypeIndex[key(scheme, value)]; ok {
		return cloneDocumentType(documentTypeTable[i]), true
	}
	if !strings.EqualFold(strings.TrimSpace(scheme), WildcardDocTypeScheme) {
		return DocumentType{}, false
	}
	head, custom, version, ok := splitDocType(strings.TrimSpace(value))
	if !ok {
		return DocumentType{}, false
	}
	custom = strings.TrimSuffix(custom, "*")
	if strings.Contains(custom, "*") {
		return DocumentType{}, false
	}
	for {
		if i, ok := docTypeIndex[key(WildcardDocTypeScheme, head+"##"+custom+"::"+version)]; ok {
			return cloneDocumentType(documentTypeTable[i]), true
		}
		at := strings.LastIndexByte(custom, '@')
		if at < 0 {
			return DocumentType{}, false
		}
		custom = custom[:at]
	}
}

// splitDocType splits "<root ns>::<local name>##<customization id>::<version>" into the
// part before "##", the customization id and the version. It reports false when the
// value does not have that shape.
func splitDocType(v string) (head, custom, version string, ok bool) {
	head, rest, ok := strings.Cut(v, "##")
	if !ok || head == "" {
		return "", "", "", false
	}
	sep := strings.LastIndex(rest, "::")
	if sep <= 0 || sep+2 == len(rest) {
		return "", "", "", false
	}
	return head, rest[:sep], rest[sep+2:], true
}

// LookupProcess returns the code-list entry for a process identifier, and false when the
// code list has none. The scheme is compared ignoring case, the value exactly (process
// identifier values are case-sensitive); surrounding white space is ignored.
func LookupProcess(scheme, value string) (Process, bool) {
	i, ok := processIndex[key(scheme, value)]
	if !ok {
		return Process{}, false
	}
	return processTable[i], true
}

// LookupTransportProfile returns the code-list entry for a transport profile identifier,
// and false when the code list has none. The id is compared exactly (transport profile
// ids are case-sensitive) after trimming surrounding white space.
func LookupTransportProfile(id string) (TransportProfile, bool) {
	i, ok := transportIndex[strings.TrimSpace(id)]
	if !ok {
		return TransportProfile{}, false
	}
	return transportProfileTable[i], true
}

// DocumentTypes returns a copy of the whole document type code list, in list order.
func DocumentTypes() []DocumentType {
	out := make([]DocumentType, len(documentTypeTable))
	for i, d := range documentTypeTable {
		out[i] = cloneDocumentType(d)
	}
	return out
}

// Processes returns a copy of the whole process code list, in list order.
func Processes() []Process { return slices.Clone(processTable[:]) }

// TransportProfiles returns a copy of the whole transport profile code list, in list
// order.
func TransportProfiles() []TransportProfile { return slices.Clone(transportProfileTable[:]) }

// cloneDocumentType copies the Processes slice so callers cannot change the table.
func cloneDocumentType(d DocumentType) DocumentType {
	d.Processes = slices.Clone(d.Processes)
	return d
}
