package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/peppolgate/peppolgate/internal/phrase"

	"github.com/peppolgate/peppolgate/registry"
)

// SearchArgs are the arguments of search_directory.
type SearchArgs struct {
	Q       *string `json:"q"`
	Country string  `json:"country"`
	// Page is the 1-based page of matches; nil for page 1 (docs/INTERFACE.md §4.5).
	Page    *int   `json:"page"`
	Network string `json:"network"`
}

func searchDirectory() Tool {
	return Tool{
		Name:  "search_directory",
		Title: "Search the Peppol Directory",
		Description: fmt.Sprintf(`Search the Peppol Directory, the public list of Peppol participants' business cards, by company name or by registration/VAT number, and get up to %[1]d matches a page with their Peppol participant identifiers, names and countries.

Use it to find out whether a company is on Peppol and under which identifier, when you know its name or a national number. Numbers are recognised in common notations (BE0677424046, 0677.424.046, NL859238567B01, NO 923 609 016 MVA, SIREN/SIRET, GLN) and matched exactly; names match as substrings of the card's names. Narrow with country (ISO 3166 alpha-2); give country alone to count a country's participants (totalCount), e.g. how many companies in Norway are on Peppol: {"country": "NO"}. Then call lookup_participant with a result's participantId for the SMP and endpoint details. totalCount says how many match; for more than %[1]d, call it again with page 2, 3, ... (nextPage in the result), up to page %[2]d, beyond which the Peppol Directory serves no results: narrow the search instead.

Do not use it when you already have a participant identifier (use lookup_participant). Absence from the Directory does not prove a company cannot receive Peppol documents: business cards are optional; if you have its identifier, lookup_participant checks the SML too.

Errors: missing_query (give q, or country alone) or query_too_short (give q with at least %[4]d characters), invalid_request (q over %[3]d characters, country not two letters, or page not from 1 to %[2]d), search_failed (the Peppol Directory did not answer or rate-limited us; retry later, after the delay given when there is one).`, registry.MaxSearchResults, registry.MaxSearchPage, registry.MaxQueryLength, registry.MinQueryLength),

		Input:       searchInput(),
		Output:      SearchResultSchema(),
		Annotations: readOnly(),
		Call:        callSearch,
	}
}

func callSearch(ctx context.Context, nets *registry.Networks, raw json.RawMessage) (*Result, error) {
	var a SearchArgs
	if err := decodeArgs("search_directory", raw, &a, "q and/or country, and optionally page and network"); err != nil {
		return nil, err
	}
	q := ""
	if a.Q != nil {
		q = *a.Q
	}
	sq, err := registry.ParseSearch(q, a.Q != nil, a.Country)
	if err != nil {
		return nil, err
	}
	if a.Page != nil {
		if sq.Page, err = registry.ParseSearchPage(strconv.Itoa(*a.Page)); err != nil {
			return nil, err
		}
	}
	reg, network, err := nets.Select(a.Network)
	if err != nil {
		return nil, err
	}
	res, fresh, err := reg.Search(ctx, sq)
	if err != nil {
		return nil, err
	}
	res = res.On(network)
	return &Result{Value: res, Text: searchPageText(res, sq.Country), Freshness: fresh}, nil
}

// searchPageText is searchText with the paging: a page past the last says so, and a
// page followed by another ends with how to ask for it (docs/INTERFACE.md §4.5).
func searchPageText(r *registry.SearchResult, country string) string {
	if r.Page > 1 && len(r.Results) == 0 {
		return fmt.Sprintf("No more Peppol Directory matches: page %d is past the last of the %s; ask for a lower page.",
			r.Page, phrase.Plural(r.TotalCount, "match"))
	}
	text := searchText(r, country)
	if r.NextPage > 0 {
		text += fmt.Sprintf("\nFor the next matches, call search_directory again with \"page\": %d (the same q and country).", r.NextPage)
	}
	return text
}

// shownMatches says which of the matches a page shows: "the first 25" on page 1,
// "page 2, from match 26" after.
func shownMatches(r *registry.SearchResult) string {
	if r.Page <= 1 {
		return fmt.Sprintf("the first %d", len(r.Results))
	}
	return fmt.Sprintf("page %d, from match %d", r.Page, registry.SearchPageStart(r.Page))
}
