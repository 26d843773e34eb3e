package tools

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// ParticipantIDPattern is the ECMA-262 pattern of a participant identifier as the
// adapters accept it (docs/INTERFACE.md §2.1): 4 digits, a colon, then letters, digits,
// '.', '_', '-' or '+', optionally prefixed with the scheme "iso6523-actorid-upis::".
const ParticipantIDPattern = `^(iso6523-actorid-upis::)?[0-9]{4}:[A-Za-z0-9._+-]+$`

// canonicalIDPattern is the pattern of a participant identifier peppolgate answers
// with: the value lower-cased, no scheme prefix.
const canonicalIDPattern = `^[0-9]{4}:[a-z0-9._+-]+$`

// CountryPattern is the pattern of the country filter: an ISO 3166 alpha-2 code, in
// either case.
const CountryPattern = `^[A-Za-z]{2}$`

// maxParticipantIDArg is the longest participant identifier argument: the longest
// identifier with the "iso6523-actorid-upis::" prefix.
const maxParticipantIDArg = len(peppol.ParticipantScheme) + 2 + peppol.MaxParticipantIDLength

// ParticipantSchema returns the JSON Schema (draft 2020-12) of the participant record,
// the body of GET /api/v1/participant/{participantId} and the result of
// lookup_participant. It is derived from registry.Participant, so it cannot drift
// from what the handlers encode. Each call returns a new schema.
func ParticipantSchema() *jsonschema.Schema {
	s := outputSchema[registry.Participant]()
	s.Description = "A Peppol participant: its Directory business card and its SMP record."
	s.Properties["participantId"].Pattern = canonicalIDPattern
	return s
}

// SearchResultSchema returns the JSON Schema (draft 2020-12) of a search result, the
// body of GET /api/v1/search and the result of search_directory, derived from
// registry.SearchResult. Each call returns a new schema.
func SearchResultSchema() *jsonschema.Schema {
	s := outputSchema[registry.SearchResult]()
	s.Description = "Peppol Directory matches for a query."
	s.Properties["results"].MaxItems = ptr(registry.MaxSearchResults + registry.MaxSearchIdentifierHits)
	return s
}

// Schema derives the JSON Schema (draft 2020-12) of T from its Go type and its json
// and jsonschema tags, as the tools' output schemas are: times are RFC 3339 strings,
// arrays are never null. The discovery documents use it for the other bodies (the
// /ask answer and events, the error object), so every published schema comes from Go
// types the handlers encode. Each call returns a new schema.
func Schema[T any]() *jsonschema.Schema { return outputSchema[T]() }

// outputSchema derives the schema of T from its Go type and json/jsonschema tags.
// Times are RFC 3339 strings. Arrays are never null: the registry always fills its
// slices, and a schema that allowed null would make every client handle a case that
// cannot happen. A type the generator cannot describe is a programming error that the
// package's tests catch, hence the panic.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time](): {Type: "string", Format: "date-time"},
	}})
	if err != nil {
		panic(fmt.Sprintf("tools: no JSON Schema for %T: %v", *new(T), err))
	}
	walk(s, func(s *jsonschema.Schema) {
		if slices.Equal(s.Types, []string{"null", "array"}) {
			s.Types, s.Type = nil, "array"
		}
	})
	return s
}

// walk calls f on s and every schema nested in its properties and items.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		walk(p, f)
	}
	walk(s.Items, f)
}

func ptr[T any](v T) *T { return &v }

// lookupInput is the input schema of lookup_participant.
func lookupInput() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"participantId": {
				Type: "string",
				Description: "The Peppol participant identifier, <scheme>:<value>: a 4-digit ISO 6523 scheme code, " +
					"a colon and the number issued under it, e.g. 0208:0677424046 (Belgian company number), " +
					"9925:be0677424046 (Belgian VAT), 0192:923609016 (Norwegian organisation number), " +
					"0088:5790000435975 (GLN). Case does not matter; the prefix iso6523-actorid-upis:: is accepted.",
				Pattern:   ParticipantIDPattern,
				MinLength: ptr(6),
				MaxLength: ptr(maxParticipantIDArg),
				Examples:  []any{"0208:0677424046", "0192:923609016"},
			},
		},
		Required:             []string{"participantId"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// searchInput is the input schema of search_directory.
func searchInput() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"q": {
				Type: "string",
				Description: "What to search for: a company name or part of it (\"vandelanotte\"), or a registration " +
					"or VAT number in any common notation (\"BE0677424046\", \"0677.424.046\", \"NO 923 609 016 MVA\"). " +
					"Matched against the names and identifiers on Peppol Directory business cards. " +
					"Optional when country is given: leave it out to count and list that country's participants.",
				MinLength: ptr(registry.MinQueryLength),
				MaxLength: ptr(registry.MaxQueryLength),
				Examples:  []any{"vandelanotte", "BE0677424046"},
			},
			"country": {
				Type: "string",
				Description: "Optional: only return participants of this country, an ISO 3166 alpha-2 code such as BE, NL or NO. " +
					"Given alone (without q), it asks for every participant of that country: totalCount is how many there are.",
				Pattern:  CountryPattern,
				Examples: []any{"BE", "NO"},
			},
			"page": {
				Type: "integer",
				Description: fmt.Sprintf("Optional: the page of %d matches to return, from 1 (the default) to %d; the result's nextPage names the next one. "+
					"The Peppol Directory serves no match beyond the %dth: narrow the search (more words, a country) rather than paging further.",
					registry.MaxSearchResults, registry.MaxSearchPage, registry.MaxSearchPage*registry.MaxSearchResults),
				Minimum:  ptr(1.0),
				Maximum:  ptr(float64(registry.MaxSearchPage)),
				Examples: []any{2},
			},
		},
		// Nothing is required: q or country (a country alone counts a country's
		// participants), checked by ParseSearch. No anyOf: LLM APIs refuse one at the
		// top level of a tool's input schema.
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}
