package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// ParseParticipantID parses a participant identifier as every adapter accepts it:
// "<scheme>:<value>", optionally prefixed with "iso6523-actorid-upis::", surrounding
// space trimmed. It returns a *registry.Error with CodeInvalidParticipantID whose
// message says what is wrong and shows the expected form.
func ParseParticipantID(raw string) (peppol.ParticipantID, error) {
	id, err := peppol.ParseParticipantID(raw)
	if err != nil {
		msg := "participant id is malformed; expected <scheme>:<value>, e.g. 0208:0677424046"
		var ie *peppol.IDError
		if errors.As(err, &ie) {
			msg = ie.Reason
		}
		if s, ok := peppol.Suggest(raw); ok {
			msg += suggestion(raw, s)
		}
		return peppol.ParticipantID{}, &registry.Error{Code: registry.CodeInvalidParticipantID, Message: msg}
	}
	return id, nil
}

// suggestion tells, after a malformed participant id, which participant id raw most
// likely means and how to find it: a lookup of that id, or a search for raw as typed
// (the search derives every candidate id itself).
func suggestion(raw string, s peppol.Suggestion) string {
	ids := make([]string, len(s.IDs))
	for i, id := range s.IDs {
		ids[i] = id.String()
	}
	msg := fmt.Sprintf(". It looks like %s: it most likely means participant id %s", s.What, ids[0])
	if len(ids) > 1 {
		msg += " (else " + strings.Join(ids[1:], " or ") + ")"
	}
	return msg + "; look that up (GET /api/v1/participant/" + ids[0] + ", or the lookup_participant tool), or search for what you have: GET /api/v1/search?q=" +
		url.QueryEscape(strings.TrimSpace(raw)) + " (or the search_directory tool)"
}

// ParseSearch validates a search as every adapter accepts it. present says whether q
// was given at all. q is optional when country is given: a country alone (q absent,
// empty or white space) asks for every participant of that country, to count them
// (totalCount). Without a country, an absent q is CodeMissingQuery; a q shorter than
// registry.MinQueryLength characters once trimmed is CodeQueryTooShort (also with a
// country, unless q is empty or white space); a q that is not UTF-8 or longer than
// registry.MaxQueryLength, or a country that is not two ASCII letters, is
// CodeInvalidRequest. q is passed on as received (the registry trims it); country is
// trimmed and upper-cased.
func ParseSearch(q string, present bool, country string) (registry.SearchQuery, error) {
	country = strings.TrimSpace(country)
	if country != "" {
		if !isAlpha2(country) {
			return registry.SearchQuery{}, &registry.Error{Code: registry.CodeInvalidRequest,
				Message: fmt.Sprintf("country must be a two-letter ISO 3166 code such as BE; got %s", phrase.Quote(country))}
		}
		country = strings.ToUpper(country)
	}
	if !present {
		if country != "" {
			return registry.SearchQuery{Country: country}, nil
		}
		return registry.SearchQuery{}, &registry.Error{Code: registry.CodeMissingQuery,
			Message: "q is required: a company name or registration number, e.g. q=acme or q=BE0677424046; or give country alone, e.g. country=NO, to count a country's participants"}
	}
	if !utf8.ValidString(q) {
		return registry.SearchQuery{}, &registry.Error{Code: registry.CodeInvalidRequest, Message: "q is not valid UTF-8"}
	}
	if i := strings.IndexFunc(q, unicode.IsControl); i >= 0 {
		return registry.SearchQuery{}, &registry.Error{Code: registry.CodeInvalidRequest,
			Message: fmt.Sprintf("q contains a control character (%U); remove it", []rune(q[i:])[0])}
	}
	n := utf8.RuneCountInString(strings.TrimSpace(q))
	if n == 0 && country != "" {
		return registry.SearchQuery{Q: q, Country: country}, nil
	}
	if n < registry.MinQueryLength {
		return registry.SearchQuery{}, &registry.Error{Code: registry.CodeQueryTooShort,
			Message: fmt.Sprintf("q must have at least %d characters; got %d", registry.MinQueryLength, n)}
	}
	if n > registry.MaxQueryLength {
		return registry.SearchQuery{}, &registry.Error{Code: registry.CodeInvalidRequest,
			Message: fmt.Sprintf("q must have at most %d characters; got %d", registry.MaxQueryLength, n)}
	}
	return registry.SearchQuery{Q: q, Country: country}, nil
}

func isAlpha2(s string) bool {
	if len(s) != 2 {
		return false
	}
	for i := 0; i < 2; i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// decodeArgs decodes a tool's JSON arguments object into dst, a pointer to a struct
// whose fields are all the tool's arguments. Absent or null arguments decode as an
// empty object. It returns a *registry.Error with CodeInvalidRequest naming the
// argument that is unknown or of the wrong type.
func decodeArgs(tool string, raw json.RawMessage, dst any, names string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("trailing data")
		}
	}
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	msg := fmt.Sprintf("the arguments of %s must be a JSON object with %s", tool, names)
	switch {
	case errors.As(err, &te) && te.Field != "":
		msg = fmt.Sprintf("argument %s of %s must be a JSON %s, not a JSON %s", te.Field, tool, jsonKind(te.Type), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		msg = fmt.Sprintf("unknown argument %s; %s takes %s", strings.TrimPrefix(err.Error(), "json: unknown field "), tool, names)
	}
	return &registry.Error{Code: registry.CodeInvalidRequest, Message: msg}
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "object"
	}
}
