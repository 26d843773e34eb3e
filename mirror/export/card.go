// Package export reads the Peppol Directory's bulk exports of business cards — XML v3
// (urn:peppol:schema:pd:businesscard-generic:2025:03), XML v2
// (http://www.peppol.eu/schema/pd/businesscard-generic/201907/) and JSON v2, plain or
// gzip — as a stream of Cards, one at a time, in constant memory.
package export

import (
	"strconv"
	"time"
)

// Format names an export format.
type Format string

// The export formats a Decoder reads.
const (
	FormatXMLv3  Format = "xml-v3"
	FormatXMLv2  Format = "xml-v2"
	FormatJSONv2 Format = "json-v2"
)

// Header is what an export says about itself before its first card.
type Header struct {
	// Format is the detected format.
	Format Format
	// Gzip is true when the stream was gzip-compressed.
	Gzip bool
	// Created is the export's creationdt: when the Directory wrote it; zero when absent.
	Created time.Time
	// CodeList is the codeListSupported attribute (e.g. "9.4"); empty when absent.
	CodeList string
	// Count is the number of cards the export announces (JSON participantCount); 0 when
	// it does not say.
	Count int
}

// Card is one business card as the export has it, with contacts dropped (personal data).
// Strings are as in the export with surrounding whitespace trimmed; identifiers are not
// normalised (the index does that).
type Card struct {
	// Participant is the participant identifier, e.g. {iso6523-actorid-upis, 0088:5798000000001}.
	Participant ID
	// Entities are the card's business entities, at least one.
	Entities []Entity
	// DocTypes are the document types the card lists; empty in the no-doc-types exports.
	DocTypes []DocType
}

// ID is an identifier with its scheme.
type ID struct {
	Scheme string
	Value  string
}

// Entity is one business entity of a card.
type Entity struct {
	// Names holds at least one name.
	Names []Name
	// CountryCode is as written: usually ISO 3166 alpha-2, but the real export also has
	// "UK", "XX" and "00"; upper-cased.
	CountryCode    string
	GeoInfo        string
	Identifiers    []ID
	Websites       []string
	AdditionalInfo string
	// RegDate is the registration date as written (normally YYYY-MM-DD); empty when absent.
	RegDate string
}

// Name is an entity name with its language, when the card gives one.
type Name struct {
	Name     string
	Language string
}

// DocType is a document type identifier on a card, with the code-list display name and
// state ("act", "dep", …) the export adds, or NonStandard when it is not in the code list.
type DocType struct {
	Scheme      string
	Value       string
	DisplayName string
	State       string
	NonStandard bool
}

// RecordError is a malformed card (no participant, no entity, no name, an element
// that cannot be read): the Decoder skipped it and the stream goes on. Decoder.Next
// returns it instead of a card; callers count it, report it and call Next again.
type RecordError struct {
	// Index is the 0-based position of the card in the export.
	Index int
	// Participant is the card's participant identifier as written, if it could be read.
	Participant string
	// Reason says what is wrong, e.g. "entity without a name".
	Reason string
}

func (e *RecordError) Error() string {
	s := "card " + strconv.Itoa(e.Index)
	if e.Participant != "" {
		s += " (" + e.Participant + ")"
	}
	return s + ": " + e.Reason
}
