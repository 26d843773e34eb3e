package mirror

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

func TestCardRoundTrip(t *testing.T) {
	t.Parallel()
	invoice := export.DocType{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", DisplayName: "Peppol BIS Billing UBL Invoice V3", State: "act"}
	credit := export.DocType{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", DisplayName: "Peppol BIS Billing UBL Credit Note V3", State: "act"}
	custom := export.DocType{Scheme: "peppol-doctype-wildcard", Value: "urn:custom", NonStandard: true}
	full := &export.Card{
		Participant: export.ID{Scheme: "iso6523-actorid-upis", Value: "0208:0677424046"},
		Entities: []export.Entity{
			{
				Names:          []export.Name{{Name: "Vandelanotte Installaties NV", Language: "nl"}, {Name: "Vandelanotte Installations SA", Language: "fr"}},
				CountryCode:    "BE",
				GeoInfo:        "Kortrijksesteenweg 1, 8500 Kortrijk",
				Identifiers:    []export.ID{{Scheme: "VAT", Value: "BE0677424046"}, {Scheme: "0208", Value: "0677424046"}},
				Websites:       []string{"https://vandelanotte.example.be"},
				AdditionalInfo: "Installateur",
				RegDate:        "2017-06-01",
			},
			{Names: []export.Name{{Name: "Vandelanotte Noord"}}, CountryCode: "NL"},
		},
		DocTypes: []export.DocType{invoice, credit, custom},
	}
	minimal := card("0192:815344782", "Bygg og Hold AS", "NO")
	minimal.DocTypes = []export.DocType{credit}
	ix := buildIndex(t, full, minimal)

	got, err := ix.Card(context.Background(), peppol.ParticipantID{ICD: "0208", Value: "0677424046"})
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	want := &registry.DirectoryRecord{
		ParticipantID:    registry.IDParts{Scheme: "0208", Value: "0677424046"},
		Name:             "Vandelanotte Installaties NV",
		CountryCode:      "BE",
		RegistrationDate: str("2017-06-01"),
		AdditionalInfo:   str("Installateur"),
		GeoInfo:          str("Kortrijksesteenweg 1, 8500 Kortrijk"),
		Entities: []registry.Entity{
			{
				Names:            []registry.Name{{Name: "Vandelanotte Installaties NV", Language: "nl"}, {Name: "Vandelanotte Installations SA", Language: "fr"}},
				CountryCode:      "BE",
				Identifiers:      []registry.IDParts{{Scheme: "VAT", Value: "BE0677424046"}, {Scheme: "0208", Value: "0677424046"}},
				Websites:         []string{"https://vandelanotte.example.be"},
				RegistrationDate: str("2017-06-01"),
				AdditionalInfo:   str("Installateur"),
				GeoInfo:          str("Kortrijksesteenweg 1, 8500 Kortrijk"),
			},
			{Names: []registry.Name{{Name: "Vandelanotte Noord"}}, CountryCode: "NL", Identifiers: []registry.IDParts{}, Websites: []string{}},
		},
		DocTypes: []registry.IDParts{{Scheme: invoice.Scheme, Value: invoice.Value}, {Scheme: credit.Scheme, Value: credit.Value}, {Scheme: custom.Scheme, Value: custom.Value}},
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("Card =\n%s\nwant\n%s", gj, wj)
	}

	got, err = ix.Card(context.Background(), peppol.ParticipantID{ICD: "0192", Value: "815344782"})
	if err != nil {
		t.Fatal(err)
	}
	gj, _ = json.Marshal(got)
	const wantMinimal = `{"participantId":{"scheme":"0192","value":"815344782"},"name":"Bygg og Hold AS","countryCode":"NO","registrationDate":null,"additionalInfo":null,"geoInfo":null,"entities":[{"names":[{"name":"Bygg og Hold AS"}],"countryCode":"NO","identifiers":[],"websites":[],"registrationDate":null,"additionalInfo":null,"geoInfo":null}],"docTypes":[{"scheme":"busdox-docid-qns","value":"urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"}]}`
	if string(gj) != wantMinimal {
		t.Errorf("minimal Card =\n%s\nwant\n%s", gj, wantMinimal)
	}

	// Doc types are interned once, with their display name and state.
	var n int
	var display, state string
	ix.db.QueryRow("SELECT count(*) FROM doctype").Scan(&n)
	ix.db.QueryRow("SELECT display_name, state FROM doctype WHERE value = ?", invoice.Value).Scan(&display, &state)
	if n != 3 || display != invoice.DisplayName || state != "act" {
		t.Errorf("doctype table: %d rows, %q %q", n, display, state)
	}

	if rec, err := ix.Card(context.Background(), peppol.ParticipantID{ICD: "0208", Value: "0403019261"}); rec != nil || err != nil {
		t.Errorf("absent card: %+v, %v", rec, err)
	}
}

func TestDecodeRecordCorrupt(t *testing.T) {
	t.Parallel()
	good := encodeRecord(nil, card("0192:1", "A", "NO"), []int{1})
	dts := []registry.IDParts{{Scheme: "s", Value: "v"}}
	if _, err := decodeRecord("0192:1", "A", good, dts); err != nil {
		t.Fatal(err)
	}
	for i := range good {
		if _, err := decodeRecord("0192:1", "A", good[:i], dts); !errors.Is(err, errCorrupt) {
			t.Errorf("truncated at %d: err = %v", i, err)
		}
	}
	if _, err := decodeRecord("0192:1", "A", good, nil); !errors.Is(err, errCorrupt) {
		t.Errorf("unknown doctype: err = %v", err)
	}
	if _, err := decodeRecord("0192:1", "A", []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, dts); !errors.Is(err, errCorrupt) {
		t.Errorf("huge count: err = %v", err)
	}
}

func TestOpenIndexWrongSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenIndex(path); !errors.Is(err, ErrNotIndex) {
		t.Errorf("another SQLite file: err = %v", err)
	}

	path = filepath.Join(t.TempDir(), "old.db")
	if _, err := Build(context.Background(), path, &sliceSource{cards: []*export.Card{card("0192:1", "A", "NO")}}, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	db, _ = sql.Open("sqlite", path)
	if err := CheckIndex(path); err != nil {
		t.Errorf("CheckIndex of a current index: %v", err)
	}
	db.Exec("PRAGMA user_version = 99")
	db.Close()
	if err := CheckIndex(path); !errors.Is(err, ErrOtherSchema) || !errors.Is(err, ErrNotIndex) {
		t.Errorf("CheckIndex of another schema version: err = %v", err)
	}
	if _, err := OpenIndex(path); !errors.Is(err, ErrOtherSchema) {
		t.Errorf("other schema version: err = %v", err)
	}
}
