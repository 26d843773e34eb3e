package server

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestE2ESearchPages: GET /api/v1/search walks a search page by page over netsim's
// Directory and over the mirror: following nextPage from page 1 reaches every page
// (ceil(totalCount/25)), each with the same totalCount and its page number, none after
// the last; answers are checked against the OpenAPI document. A page that is not a
// whole number from 1 to 40 is 400 invalid_request saying how to fix it.
func TestE2ESearchPages(t *testing.T) {
	t.Parallel()
	for name, e := range map[string]*e2e{"directory": startE2E(t), "mirror": startMirrored(t)} {
		t.Run(name, func(t *testing.T) {
			for _, query := range []string{"q=sa", "country=NO"} {
				var pages []int
				total := -1
				var seen []string
				for page := 1; page != 0 && len(pages) < 50; {
					path := "/api/v1/search?" + query
					if page > 1 {
						path += "&page=" + strconv.Itoa(page)
					}
					resp, body := e.get(t, path)
					if resp.StatusCode != 200 {
						t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
					}
					res := decodeJSON[registry.SearchResult](t, body)
					if total < 0 {
						total = res.TotalCount
					}
					if res.Page != page || res.TotalCount != total || len(res.Results) == 0 {
						t.Errorf("%s: page %d, totalCount %d (page 1 said %d), %d results", path, res.Page, res.TotalCount, total, len(res.Results))
					}
					if want := source(name); res.Source != want {
						t.Errorf("%s: source %s, want %s", path, res.Source, want)
					}
					for _, h := range res.Results {
						seen = append(seen, h.ParticipantID)
					}
					pages = append(pages, page)
					page = res.NextPage
				}
				if want := (total + registry.MaxSearchResults - 1) / registry.MaxSearchResults; len(pages) != want || want < 2 {
					t.Errorf("%s: pages %v of %d matches, want %d pages (at least 2)", query, pages, total, want)
				}
				if name == "mirror" {
					// The mirror counts cards, one per participant: every one of them, once.
					if len(seen) != total || len(slices.Compact(slices.Sorted(slices.Values(seen)))) != total {
						t.Errorf("%s: %d results over the pages, %d distinct; totalCount %d", query, len(seen), len(slices.Compact(slices.Sorted(slices.Values(seen)))), total)
					}
				}
			}
			for _, page := range []string{"0", "-1", "41", "1000", "two", "1.5", "99999999999999999999"} {
				resp, body := e.get(t, "/api/v1/search?q=sa&page="+url.QueryEscape(page))
				got := decodeJSON[errorBody](t, body).Error
				if resp.StatusCode != 400 || got.Code != registry.CodeInvalidRequest || !strings.Contains(got.Message, "40") {
					t.Errorf("page=%s: %d %+v, want 400 invalid_request naming the last page, 40", page, resp.StatusCode, got)
				}
			}
			// Past the last page but within the Directory's limit: 200, no results, no next page.
			resp, body := e.get(t, "/api/v1/search?q=sa&page=40")
			res := decodeJSON[registry.SearchResult](t, body)
			if resp.StatusCode != 200 || len(res.Results) != 0 || res.NextPage != 0 || res.Page != 40 {
				t.Errorf("page=40: %d %s", resp.StatusCode, body)
			}
		})
	}
}

// source is the Source an e2e setup's searches answer from.
func source(setup string) string {
	if setup == "mirror" {
		return registry.SourceMirror
	}
	return registry.SourceDirectory
}
