package directory

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
)

// Result is one page of a Directory search. Counts and indices are per business entity,
// not per participant: a participant with three entities counts three times, and one
// participant can straddle two pages.
type Result struct {
	// TotalCount is the number of matching entities (total-result-count).
	TotalCount int `json:"totalCount"`
	// UsedCount is the number of entities on this page (used-result-count).
	UsedCount int `json:"usedCount"`
	// PageIndex is the 0-based page index (result-page-index).
	PageIndex int `json:"pageIndex"`
	// PageCount is the page size used (result-page-count).
	PageCount int `json:"pageCount"`
	// FirstIndex is the index of the first entity on the page (first-result-index).
	FirstIndex int `json:"firstIndex"`
	// LastIndex is the index of the last entity on the page, -1 when empty
	// (last-result-index).
	LastIndex int `json:"lastIndex"`
	// QueryTerms echoes the query as the Directory understood it, e.g.
	// "participant=iso6523-actorid-upis::0208:0677424046".
	QueryTerms string `json:"queryTerms"`
	// CreationTime is when the Directory built the answer, in UTC; zero when absent or
	// unparsable.
	CreationTime time.Time `json:"creationTime"`
	// Matches holds one entry per participant, in the Directory's order; never nil.
	Matches []Match `json:"matches"`
	// Skipped lists matches dropped because their participant identifier is not a
	// valid Peppol participant identifier.
	Skipped []SkippedMatch `json:"skipped,omitempty"`
}

// Match is one participant found by a search, with its business entities.
type Match struct {
	// Participant is the participant id, value lower-cased.
	Participant peppol.ParticipantID `json:"participant"`
	// DocTypes are the document types listed in the Directory (absent when the
	// business card carries none); they lag the SMP and are not authoritative.
	DocTypes []DocType `json:"docTypes,omitempty"`
	// Entities are the business entities of the participant's business card.
	Entities []Entity `json:"entities"`
}

// Name returns the first name of the first entity that has one, or "".
func (m Match) Name() string {
	for _, e := range m.Entities {
		if len(e.Names) > 0 {
			return e.Names[0].Name
		}
	}
	return ""
}

// CountryCode returns the country code of the first entity that has one, or "".
func (m Match) CountryCode() string {
	for _, e := range m.Entities {
		if e.CountryCode != "" {
			return e.CountryCode
		}
	}
	return ""
}

// DocType is a document type identifier; Value is case-sensitive.
type DocType struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

// Entity is one business entity of a business card. It deliberately has no contacts:
// those are personal data and are never decoded. Its strings are the card owner's
// words, cleaned and capped as they are decoded (untrusted.Field, untrusted.Text;
// docs/ARCHITECTURE.md §6): no control or format characters (bidi overrides,
// zero-width characters), one line except AdditionalInfo, at most
// untrusted.MaxField characters (untrusted.MaxText for AdditionalInfo).
type Entity struct {
	// Names of the entity, possibly in several languages; the first is the main one.
	Names []Name `json:"names"`
	// CountryCode is the entity's country as the Directory has it, upper-cased; real
	// data contains non-ISO codes such as "UK" or "XX". "" when absent.
	CountryCode string `json:"countryCode"`
	// GeoInfo is free-text address information, on one line.
	GeoInfo string `json:"geoInfo,omitempty"`
	// Identifiers are additional identifiers (e.g. VAT, GLN) declared by the entity.
	Identifiers []Identifier `json:"identifiers,omitempty"`
	// Websites are the entity's web sites as given.
	Websites []string `json:"websites,omitempty"`
	// AdditionalInfo is free text, its line breaks kept as "\n".
	AdditionalInfo string `json:"additionalInfo,omitempty"`
	// RegistrationDate is the entity's registration date as YYYY-MM-DD, or "".
	RegistrationDate string `json:"registrationDate,omitempty"`
}

// Name is one name of an entity; Language is an optional language code.
type Name struct {
	Name     string `json:"name"`
	Language string `json:"language,omitempty"`
}

// Identifier is an additional identifier of an entity, e.g. {Scheme: "VAT", Value: "BE0677424046"}.
type Identifier struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

// SkippedMatch records a match left out of Result.Matches and why.
type SkippedMatch struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// The wire types mirror the Directory's JSON (PDStoredBusinessEntity.getAsSearchResultJsonObject).
// They have no field for "contacts", so personal data is discarded by the decoder itself
// and cannot reach the model by accident.
type wireResult struct {
	Total      int         `json:"total-result-count"`
	Used       int         `json:"used-result-count"`
	PageIndex  int         `json:"result-page-index"`
	PageCount  int         `json:"result-page-count"`
	First      int         `json:"first-result-index"`
	Last       int         `json:"last-result-index"`
	QueryTerms string      `json:"query-terms"`
	Created    string      `json:"creation-dt"`
	Matches    []wireMatch `json:"matches"`
}

type wireMatch struct {
	ParticipantID *wirePair    `json:"participantID"`
	DocTypes      []wirePair   `json:"docTypes"`
	Entities      []wireEntity `json:"entities"`
}

type wirePair struct {
	Scheme string `json:"scheme"`
	Value  string `json:"value"`
}

type wireEntity struct {
	Name           wireNames  `json:"name"`
	CountryCode    string     `json:"countryCode"`
	GeoInfo        string     `json:"geoInfo"`
	Identifiers    []wirePair `json:"identifiers"`
	Websites       []string   `json:"websites"`
	AdditionalInfo string     `json:"additionalInfo"`
	RegDate        string     `json:"regDate"`
}

// wireNames accepts the current form, an array of {name, language?}, and the legacy
// (pre-2018) plain string that the Directory's documentation page still shows.
type wireNames []Name

func (n *wireNames) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case 'n': // null
		*n = nil
		return nil
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*n = nil
		if s = untrusted.Field(s); s != "" {
			*n = wireNames{{Name: s}}
		}
		return nil
	case '[':
		var items []wireName
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		out := make(wireNames, 0, len(items))
		for _, it := range items {
			if name := untrusted.Field(it.Name); name != "" {
				out = append(out, Name{Name: name, Language: untrusted.Field(it.Language)})
			}
		}
		*n = out
		return nil
	}
	return errors.New("entity name must be a string or an array of {name, language}")
}

// wireName is one element of the name array; a bare string element is tolerated too.
type wireName Name

func (n *wireName) UnmarshalJSON(b []byte) error {
	switch firstByte(b) {
	case 'n':
		return nil
	case '"':
		return json.Unmarshal(b, &n.Name)
	case '{':
		var v struct {
			Name     string `json:"name"`
			Language string `json:"language"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*n = wireName(v)
		return nil
	}
	return errors.New("entity name item must be an object {name, language}")
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// ParseResult decodes a Directory search answer (the JSON body of
// GET /search/1.0/json). Unknown keys, missing optional keys and "countryCode": null
// are tolerated; contacts are ignored; a match whose participant id is not a valid
// Peppol participant id is left out and recorded in Result.Skipped. It returns an error
// when data is not a JSON object of the expected shape (wrong types, truncation).
func ParseResult(data []byte) (*Result, error) {
	if firstByte(data) != '{' {
		return nil, errors.New("directory answer is not a JSON object")
	}
	var w wireResult
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("decoding directory answer: %w", err)
	}
	r := &Result{
		TotalCount:   w.Total,
		UsedCount:    w.Used,
		PageIndex:    w.PageIndex,
		PageCount:    w.PageCount,
		FirstIndex:   w.First,
		LastIndex:    w.Last,
		QueryTerms:   w.QueryTerms,
		CreationTime: parseCreationTime(w.Created),
		Matches:      make([]Match, 0, len(w.Matches)),
	}
	for _, wm := range w.Matches {
		id, skip := matchParticipant(wm.ParticipantID)
		if skip != nil {
			r.Skipped = append(r.Skipped, *skip)
			continue
		}
		r.Matches = append(r.Matches, Match{
			Participant: id,
			DocTypes:    docTypes(wm.DocTypes),
			Entities:    entities(wm.Entities),
		})
	}
	return r, nil
}

func matchParticipant(p *wirePair) (peppol.ParticipantID, *SkippedMatch) {
	if p == nil {
		return peppol.ParticipantID{}, &SkippedMatch{Reason: "match has no participantID"}
	}
	if s := strings.TrimSpace(p.Scheme); s != "" && !strings.EqualFold(s, peppol.ParticipantScheme) {
		return peppol.ParticipantID{}, &SkippedMatch{Scheme: p.Scheme, Value: p.Value,
			Reason: fmt.Sprintf("participant scheme %q is not %s", p.Scheme, peppol.ParticipantScheme)}
	}
	id, err := peppol.ParseParticipantID(p.Value)
	if err != nil {
		return peppol.ParticipantID{}, &SkippedMatch{Scheme: p.Scheme, Value: p.Value, Reason: err.Error()}
	}
	return id, nil
}

// parseCreationTime accepts XSD dateTime with any number of fraction digits (3 and 9
// are seen) and, leniently, without a zone (taken as UTC). The time is informational,
// so an unusable value becomes the zero time rather than failing the whole answer.
func parseCreationTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC); err != nil {
			return time.Time{}
		}
	}
	t = t.UTC()
	// time.Time cannot be marshalled outside years 0..9999; converting an offset can
	// push year 0 out of range.
	if t.Year() < 0 || t.Year() > 9999 {
		return time.Time{}
	}
	return t
}

func docTypes(in []wirePair) []DocType {
	var out []DocType
	for _, d := range in {
		if v := untrusted.Field(d.Value); v != "" {
			out = append(out, DocType{Scheme: untrusted.Field(d.Scheme), Value: v})
		}
	}
	return out
}

func entities(in []wireEntity) []Entity {
	out := make([]Entity, 0, len(in))
	for _, we := range in {
		e := Entity{
			Names:            []Name(we.Name),
			CountryCode:      strings.ToUpper(untrusted.Field(we.CountryCode)),
			GeoInfo:          untrusted.Field(we.GeoInfo),
			AdditionalInfo:   untrusted.Text(we.AdditionalInfo),
			RegistrationDate: regDate(we.RegDate),
		}
		for _, id := range we.Identifiers {
			if v := untrusted.Field(id.Value); v != "" {
				e.Identifiers = append(e.Identifiers, Identifier{Scheme: untrusted.Field(id.Scheme), Value: v})
			}
		}
		for _, w := range we.Websites {
			if w = untrusted.Field(w); w != "" {
				e.Websites = append(e.Websites, w)
			}
		}
		out = append(out, e)
	}
	return out
}

// regDate keeps only a valid calendar date in YYYY-MM-DD form.
func regDate(s string) string {
	s = strings.TrimSpace(s)
	if _, err := time.Parse("2006-01-02", s); err != nil {
		return ""
	}
	return s
}
