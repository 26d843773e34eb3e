package registry

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
)

// The validators every adapter (REST, MCP, the tools /ask calls) runs on its input, so
// that one input gets one answer and one error message wherever it arrives.

// MaxDocTypeLength bounds a docType argument, in bytes: Peppol document type
// identifiers are at most 500 characters, plus the scheme.
const MaxDocTypeLength = 600

// ParseParticipantID parses a participant identifier as every adapter accepts it:
// "<scheme>:<value>", optionally prefixed with "iso6523-actorid-upis::", surrounding
// space trimmed. It returns a *Error with CodeInvalidParticipantID whose
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
		return peppol.ParticipantID{}, &Error{Code: CodeInvalidParticipantID, Message: msg}
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
// MinQueryLength characters once trimmed is CodeQueryTooShort (also with a
// country, unless q is empty or white space); a q that is not UTF-8 or longer than
// MaxQueryLength, or a country that is not two ASCII letters, is
// CodeInvalidRequest. q is passed on as received (the registry trims it); country is
// trimmed and upper-cased.
func ParseSearch(q string, present bool, country string) (SearchQuery, error) {
	country, err := ParseCountry(country)
	if err != nil {
		return SearchQuery{}, err
	}
	if !present {
		if country != "" {
			return SearchQuery{Country: country}, nil
		}
		return SearchQuery{}, &Error{Code: CodeMissingQuery,
			Message: "q is required: a company name or registration number, e.g. q=acme or q=BE0677424046; or give country alone, e.g. country=NO, to count a country's participants"}
	}
	if !utf8.ValidString(q) {
		return SearchQuery{}, &Error{Code: CodeInvalidRequest, Message: "q is not valid UTF-8"}
	}
	if i := strings.IndexFunc(q, unicode.IsControl); i >= 0 {
		return SearchQuery{}, &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("q contains a control character (%U); remove it", []rune(q[i:])[0])}
	}
	n := utf8.RuneCountInString(strings.TrimSpace(q))
	if n == 0 && country != "" {
		return SearchQuery{Q: q, Country: country}, nil
	}
	if n < MinQueryLength {
		return SearchQuery{}, &Error{Code: CodeQueryTooShort,
			Message: fmt.Sprintf("q must have at least %d characters; got %d", MinQueryLength, n)}
	}
	if n > MaxQueryLength {
		return SearchQuery{}, &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("q must have at most %d characters; got %d", MaxQueryLength, n)}
	}
	return SearchQuery{Q: q, Country: country}, nil
}

// ParseSearchPage reads the page of a search as every adapter accepts it: absent or
// empty is page 1; else a whole number from 1 to MaxSearchPage, surrounding space
// trimmed. Anything else is a *Error with CodeInvalidRequest whose message says the
// range, and for a page beyond MaxSearchPage that the Peppol Directory serves no result
// beyond the 1000th (docs/INTERFACE.md §4.2).
func ParseSearchPage(raw string) (int, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 1, nil
	}
	page, err := strconv.Atoi(raw)
	switch {
	case err == nil && page > MaxSearchPage:
		return 0, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(
			"page %d is beyond the last page, %d: the Peppol Directory serves no result beyond the %dth of a search; narrow it instead (more words, or a country)",
			page, MaxSearchPage, MaxSearchPage*MaxSearchResults)}
	case err != nil || page < 1:
		return 0, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(
			"page must be a whole number from 1 to %d (%d matches a page); got %q", MaxSearchPage, MaxSearchResults, phraseShort(raw))}
	}
	return page, nil
}

// phraseShort cuts s to 20 characters, so a long bad value is not echoed whole.
func phraseShort(s string) string {
	if r := []rune(s); len(r) > 20 {
		return string(r[:20]) + "…"
	}
	return s
}

// ParseCountry checks a country argument or query parameter: empty (none) or two
// ASCII letters, an ISO 3166 code, surrounding space trimmed. It returns the code
// upper-cased, or a *Error with CodeInvalidRequest.
func ParseCountry(raw string) (string, error) {
	country := strings.TrimSpace(raw)
	if country == "" {
		return "", nil
	}
	if !isAlpha2(country) {
		return "", &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("country must be a two-letter ISO 3166 code such as BE; got %s", phrase.Quote(country))}
	}
	return strings.ToUpper(country), nil
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

// ParseDocType checks a docType argument or query parameter: empty (all document
// types) or at most MaxDocTypeLength bytes. Its form is the registry's to check. It
// returns an *Error with CodeInvalidRequest.
func ParseDocType(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) > MaxDocTypeLength {
		return "", &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("docType must be at most %d characters: <scheme>::<value>", MaxDocTypeLength)}
	}
	return s, nil
}
