package server

import (
	"net/http"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// search serves GET /api/v1/search?q=&country=&page=&network= (docs/INTERFACE.md §4.2).
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q, err := s.parseSearchQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	res, fresh, err := reg.Search(r.Context(), q)
	if err != nil {
		return err
	}
	setFreshness(w.Header(), fresh)
	if !sharedSearch(res) {
		// A new value on every call: remembering its encoding would only churn the memo.
		s.writeJSON(w, r, http.StatusOK, res.On(network))
		return nil
	}
	s.writeShared(w, r, http.StatusOK, res, network, "", func() any { return res.On(network) })
	return nil
}

// sharedSearch reports whether res may be the registry's cached value, shared between
// requests: mirror answers and live answers carrying a mirror warning are made anew
// for each call.
func sharedSearch(res *registry.SearchResult) bool {
	if res.Source == registry.SourceMirror {
		return false
	}
	for _, w := range res.Warnings {
		if w.Code == registry.WarnMirrorStale || w.Code == registry.WarnMirrorUnavailable {
			return false
		}
	}
	return true
}

// parseSearchQuery reads q, country and page from the raw query string and validates
// them as every adapter does (registry.ParseSearch, registry.ParseSearchPage).
func (s *Server) parseSearchQuery(rawQuery string) (registry.SearchQuery, error) {
	q, ok, err := s.hot.queryValue(rawQuery, "q")
	if err != nil {
		return registry.SearchQuery{}, err
	}
	country, _, err := s.hot.queryValue(rawQuery, "country")
	if err != nil {
		return registry.SearchQuery{}, err
	}
	page, _, err := s.hot.queryValue(rawQuery, "page")
	if err != nil {
		return registry.SearchQuery{}, err
	}
	sq, err := registry.ParseSearch(q, ok, country)
	if err != nil {
		return registry.SearchQuery{}, err
	}
	if sq.Page, err = registry.ParseSearchPage(page); err != nil {
		return registry.SearchQuery{}, err
	}
	return sq, nil
}

// searchRoutes describes and serves the search (docs/INTERFACE.md §4).
func (s *Server) searchRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/search", OperationID: "searchDirectory", Tag: "participants",
			Summary: "Search the Peppol Directory",
			Description: "Full-text search of the Peppol Directory by company name or registration/VAT number (any common notation; " +
				"numbers are matched exactly against participant ids and the cards' identifiers). " + strconv.Itoa(registry.MaxSearchResults) + " results a page, exact identifier matches first; " +
				"`totalCount` is the number of matches known, the same on every page. `page` picks the page (1 to " + strconv.Itoa(registry.MaxSearchPage) + "); " +
				"`nextPage` names the next one, absent on the last page. Give `country` alone (no `q`, e.g. `?country=NO`) to count a country's participants (`totalCount`) " +
				"and page through them.",
			Params: k.network(
				discovery.Param{Name: "q", In: "query", Description: "Company name or part of it, or a registration or VAT number, e.g. `vandelanotte` or `BE0677424046`. " +
					"Required unless `country` is given; leave it out (or empty) with `country` to count that country's participants.",
					Schema: &jsonschema.Schema{Type: "string", MinLength: ptr(registry.MinQueryLength), MaxLength: ptr(registry.MaxQueryLength)}, Example: "BE0677424046"},
				discovery.Param{Name: "country", In: "query", Description: "Only participants of this country: an ISO 3166 alpha-2 code, e.g. BE; alone, every participant of that country.",
					Schema: &jsonschema.Schema{Type: "string", Pattern: tools.CountryPattern}, Example: "BE"},
				discovery.Param{Name: "page", In: "query", Description: "The page of " + strconv.Itoa(registry.MaxSearchResults) + " matches to answer, from 1 (the default) to " +
					strconv.Itoa(registry.MaxSearchPage) + ": the Peppol Directory serves no result beyond the " + strconv.Itoa(registry.MaxSearchPage*registry.MaxSearchResults) +
					"th of a search, so narrow the search instead. Follow the answer's `nextPage`.",
					Schema: &jsonschema.Schema{Type: "integer", Minimum: ptr(1.0), Maximum: ptr(float64(registry.MaxSearchPage))}, Example: 2},
			),
			Responses: k.jsonOK("The matches.", tools.SearchResultSchema()),
			Errors:    append([]registry.Code{registry.CodeMissingQuery, registry.CodeQueryTooShort, registry.CodeInvalidRequest, registry.CodeSearchFailed}, commonErrors()...),
			Headers:   k.freshness,
		}, handler: s.search, class: classREST},
	}
}
