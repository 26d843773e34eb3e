package server

import (
	"bytes"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// pagerLink finds a pager link of a search page: its href and its words.
var pagerLink = regexp.MustCompile(`<a href="([^"]+)" rel="(next|prev)">([^<]+)</a>`)

// TestPageSearchPages: the search page pages through every match without JavaScript,
// over netsim's Directory and over the mirror: 25 a page, numbered on from the page
// before, "Next page" and "Previous page" plain links carrying q and country, none past
// the ends; page beyond 40 is the 400 error page saying how to fix it.
func TestPageSearchPages(t *testing.T) {
	t.Parallel()
	for name, e := range map[string]*e2e{"directory": startE2E(t), "mirror": startMirrored(t)} {
		t.Run(name, func(t *testing.T) {
			for _, query := range []string{"q=sa", "country=NO"} {
				_, body := e.get(t, "/api/v1/search?"+query)
				total := decodeJSON[registry.SearchResult](t, body).TotalCount
				want := (total + registry.MaxSearchResults - 1) / registry.MaxSearchResults
				path := "/search?" + query
				var prev string
				for page := 1; ; page++ {
					resp, body := e.getPage(t, path)
					if resp.StatusCode != 200 {
						t.Fatalf("%s: %d", path, resp.StatusCode)
					}
					checkPage(t, resp, body)
					if start := `<ol class="results" start="` + strconv.Itoa((page-1)*registry.MaxSearchResults+1) + `">`; !bytes.Contains(body, []byte(start)) {
						t.Errorf("%s: no %s", path, start)
					}
					if rows := bytes.Count(body, []byte("<li><a href=\"/participant/")); rows == 0 || rows > registry.MaxSearchResults {
						t.Errorf("%s: %d rows", path, rows)
					}
					jsonQuery := mustQuery(t, query)
					if page > 1 {
						jsonQuery.Set("page", strconv.Itoa(page))
					}
					if link := `href="/api/v1/search?` + html.EscapeString(jsonQuery.Encode()) + `"`; !bytes.Contains(body, []byte(link)) {
						t.Errorf("%s: no JSON link %s", path, link)
					}
					if !bytes.Contains(body, []byte(`aria-current="page">Page `+strconv.Itoa(page)+"<")) {
						t.Errorf("%s: page %d is not marked current", path, page)
					}
					links := map[string]string{}
					for _, m := range pagerLink.FindAllSubmatch(body, -1) {
						links[string(m[2])] = html.UnescapeString(string(m[1]))
						if want := map[string]string{"next": "Next page", "prev": "Previous page"}[string(m[2])]; string(m[3]) != want {
							t.Errorf("%s: %s link says %q", path, m[2], m[3])
						}
					}
					if page > 1 && links["prev"] != prev {
						t.Errorf("%s: previous page link %q, want %q", path, links["prev"], prev)
					}
					if page == 1 && links["prev"] != "" {
						t.Errorf("%s: a previous page link on page 1", path)
					}
					next, ok := links["next"]
					if !ok {
						if page != want {
							t.Errorf("%s: no next page link on page %d of %d", query, page, want)
						}
						break
					}
					u, err := url.Parse(next)
					if err != nil || u.Path != "/search" || u.Query().Get("page") != strconv.Itoa(page+1) {
						t.Fatalf("%s: next page link %q", path, next)
					}
					for _, p := range []string{"q", "country"} {
						if got, want := u.Query().Get(p), strings.TrimSpace(mustQuery(t, query).Get(p)); got != want {
							t.Errorf("%s: next page link %q has %s=%q, want %q", path, next, p, got, want)
						}
					}
					if page > want {
						t.Fatalf("%s: a next page link past page %d", query, want)
					}
					prev, path = path, next
				}
			}
			resp, body := e.getPage(t, "/search?q=sa&page=41")
			if resp.StatusCode != 400 || !bytes.Contains(body, []byte("invalid_request")) || !bytes.Contains(body, []byte("40")) {
				t.Errorf("page=41: %d %s", resp.StatusCode, body)
			}
		})
	}
}

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
