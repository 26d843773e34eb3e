package codelist

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// The tests in this file compare the tables, through the package's API, with the
// upstream code lists in testdata/upstream, decoded here independently of the generator
// (internal/gen), so that a generator bug shows as a difference.

// readUpstream decodes testdata/upstream/<name> into v and checks the list's version and
// entry count.
func readUpstream(t *testing.T, name string, v interface {
	header() (version string, count, entries int)
}) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "upstream", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	version, count, entries := v.header()
	if version != Version || count != entries || entries == 0 {
		t.Fatalf("%s is code list %s with %d/%d entries; want %s", name, version, count, entries, Version)
	}
}

// upstreamList is the common head of the JSON code lists.
type upstreamList[E any] struct {
	Version    string `json:"version"`
	EntryCount int    `json:"entry-count"`
	Values     []E    `json:"values"`
}

func (l *upstreamList[E]) header() (string, int, int) { return l.Version, l.EntryCount, len(l.Values) }

// TestDocumentTypesMatchCodeList compares every document type, field by field and in
// order, with the upstream document type list.
func TestDocumentTypesMatchCodeList(t *testing.T) {
	var list upstreamList[struct {
		Name       string       `json:"name"`
		Scheme     string       `json:"scheme"`
		Value      string       `json:"value"`
		Since      string       `json:"initial-release"`
		State      string       `json:"state"`
		Deprecated string       `json:"deprecation-release"`
		Removed    string       `json:"removal-date"`
		Abstract   bool         `json:"abstract"`
		Issued     bool         `json:"issued-by-openpeppol"`
		Domain     string       `json:"domain-community"`
		Category   string       `json:"category"`
		Processes  []Identifier `json:"process-ids"`
	}]
	readUpstream(t, "document-types.json", &list)
	table := DocumentTypes()
	if len(table) != len(list.Values) {
		t.Fatalf("table has %d document types, code list %d", len(table), len(list.Values))
	}
	for i, e := range list.Values {
		want := DocumentType{
			Scheme: e.Scheme, Value: e.Value, Name: e.Name, State: State(e.State), Since: e.Since,
			Deprecated: e.Deprecated, Removed: e.Removed, Domain: e.Domain, Category: e.Category,
			IssuedByOpenPeppol: e.Issued, Abstract: e.Abstract, Processes: e.Processes,
		}
		got := table[i]
		if !equalDocumentType(got, want) {
			t.Errorf("document type %d:\ntable     %+v\ncode list %+v", i, got, want)
		}
		if found, ok := LookupDocumentType(e.Scheme, e.Value); !ok || !equalDocumentType(found, want) {
			t.Errorf("LookupDocumentType(%s, %s) = %+v, %v", e.Scheme, e.Value, found, ok)
		}
	}
}

// equalDocumentType compares two document types, their Processes element by element.
func equalDocumentType(a, b DocumentType) bool {
	pa, pb := a.Processes, b.Processes
	a.Processes, b.Processes = nil, nil
	return reflect.DeepEqual(a, b) && slices.Equal(pa, pb)
}

// TestProcessesMatchCodeList compares every process, in order, with the upstream process
// list; the names are the project's own (overlay.json) and must merely be there.
func TestProcessesMatchCodeList(t *testing.T) {
	var list upstreamList[struct {
		Scheme string `json:"scheme"`
		Value  string `json:"value"`
		State  string `json:"state"`
	}]
	readUpstream(t, "processes.json", &list)
	table := Processes()
	if len(table) != len(list.Values) {
		t.Fatalf("table has %d processes, code list %d", len(table), len(list.Values))
	}
	for i, e := range list.Values {
		got := table[i]
		if got.Scheme != e.Scheme || got.Value != e.Value || string(got.State) != e.State || got.Name == "" {
			t.Errorf("process %d: table %+v, code list %+v", i, got, e)
		}
		if found, ok := LookupProcess(e.Scheme, e.Value); !ok || found != got {
			t.Errorf("LookupProcess(%s, %s) = %+v, %v", e.Scheme, e.Value, found, ok)
		}
	}
}

// TestTransportProfilesMatchCodeList compares every transport profile, in order, with
// the upstream transport profile list; the names are the project's own (overlay.json).
func TestTransportProfilesMatchCodeList(t *testing.T) {
	var list upstreamList[struct {
		Protocol   string `json:"protocol"`
		Version    string `json:"profile-version"`
		ID         string `json:"profile-id"`
		Since      string `json:"initial-release"`
		State      string `json:"state"`
		Deprecated string `json:"deprecation-release"`
		Removed    string `json:"removal-date"`
	}]
	readUpstream(t, "transport-profiles.json", &list)
	table := TransportProfiles()
	if len(table) != len(list.Values) {
		t.Fatalf("table has %d transport profiles, code list %d", len(table), len(list.Values))
	}
	for i, e := range list.Values {
		got := table[i]
		want := TransportProfile{ID: e.ID, Name: got.Name, Protocol: e.Protocol, Version: e.Version,
			State: State(e.State), Since: e.Since, Deprecated: e.Deprecated, Removed: e.Removed}
		if got != want || got.Name == "" {
			t.Errorf("transport profile %d: table %+v, code list %+v", i, got, want)
		}
		if found, ok := LookupTransportProfile(e.ID); !ok || found != got {
			t.Errorf("LookupTransportProfile(%s) = %+v, %v", e.ID, found, ok)
		}
	}
}
