package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/registry"
)

// search serves GET /api/v1/search?q=&country= (interface spec §4.2).
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q, err := parseSearchQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	res, fresh, err := s.reg.Search(r.Context(), q)
	if err != nil {
		return err
	}
	setFreshness(w.Header(), fresh)
	s.writeShared(w, r, http.StatusOK, res)
	return nil
}

// parseSearchQuery validates the query parameters. An absent q is missing_query; a q
// present but shorter than registry.MinQueryLength once trimmed (q= included) is
// query_too_short; an overlong q or a country that is not two ASCII letters is
// invalid_request. q is passed on as received; the registry trims it.
func parseSearchQuery(rawQuery string) (registry.SearchQuery, error) {
	q, ok := queryValue(rawQuery, "q")
	if !ok {
		return registry.SearchQuery{}, apiError(registry.CodeMissingQuery,
			"query parameter q is required: a company name or registration number, e.g. /api/v1/search?q=acme")
	}
	if !utf8.ValidString(q) {
		return registry.SearchQuery{}, apiError(registry.CodeInvalidRequest, "query parameter q is not valid UTF-8")
	}
	n := utf8.RuneCountInString(strings.TrimSpace(q))
	if n < registry.MinQueryLength {
		return registry.SearchQuery{}, apiError(registry.CodeQueryTooShort,
			fmt.Sprintf("query parameter q must have at least %d characters; got %d", registry.MinQueryLength, n))
	}
	if n > registry.MaxQueryLength {
		return registry.SearchQuery{}, apiError(registry.CodeInvalidRequest,
			fmt.Sprintf("query parameter q must have at most %d characters; got %d", registry.MaxQueryLength, n))
	}
	country, _ := queryValue(rawQuery, "country")
	country = strings.TrimSpace(country)
	if country != "" {
		if !isAlpha2(country) {
			return registry.SearchQuery{}, apiError(registry.CodeInvalidRequest,
				fmt.Sprintf("query parameter country must be a two-letter ISO 3166 code such as BE; got %s", quotePath(country)))
		}
		country = strings.ToUpper(country)
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

// queryValue returns the first value of key in rawQuery, and whether key is there,
// exactly as url.ParseQuery(rawQuery)[key] would (pairs that do not decode or contain
// ';' are skipped), without building the map of every parameter on each request.
func queryValue(rawQuery, key string) (string, bool) {
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil || k != key {
			continue
		}
		if v, err = url.QueryUnescape(v); err != nil {
			continue
		}
		return v, true
	}
	return "", false
}
