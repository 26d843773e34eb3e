package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

type searchHit struct {
	Name, ID, Country, Link string
	Approximate             bool
}

type countryOption struct {
	Code, Name string
	Selected   bool
}

// pageLink is one item of the pager: a page number (Link "" for the current page,
// Number 0 for a gap in the numbers).
type pageLink struct {
	Number  int
	Link    string
	Current bool
}

type searchData struct {
	base
	Q         string
	Countries []countryOption
	Summary   string
	Hits      []searchHit
	First     int
	Pages     []pageLink
	// Prev and Next link the pages before and after ("" when there is none): plain
	// links, working without JavaScript.
	Prev, Next string
	// Beyond is the number of matches the Directory serves, when it knows more.
	Beyond   int
	More     bool
	Total    int
	Shown    int
	Warnings []registry.Warning
	JSONLink string
	// Relaxed is the relaxed query whose matches are shown when the query as typed
	// found none ("" when it found some).
	Relaxed string
	// MirrorAsOf is the day of the Directory's export the matches come from, when
	// peppolgate's copy of it answered ("" when the live Directory did).
	MirrorAsOf string
}

// Search serves GET /search?q=&country=&network=&page=: the Directory's matches by
// name, id and country, a page of the API's (25 matches, page 1 to MaxSearchPage) at a
// time, with the total and links to the previous and next pages (docs/INTERFACE.md
// §4.8). It returns the registry's errors: *registry.Error with CodeMissingQuery,
// CodeQueryTooShort or CodeInvalidRequest for bad input (a page registry.ParseSearchPage
// refuses included), CodeSearchFailed upstream.
func (p *Pages) Search(w http.ResponseWriter, r *http.Request) error {
	q, err := param(r, "q")
	if err != nil {
		return err
	}
	q = strings.TrimSpace(q)
	country, err := param(r, "country")
	if err != nil {
		return err
	}
	pageParam, err := param(r, "page")
	if err != nil {
		return err
	}
	country = strings.ToUpper(strings.TrimSpace(country))
	sq, err := registry.ParseSearch(q, q != "", country)
	if err != nil {
		return err
	}
	if sq.Page, err = registry.ParseSearchPage(pageParam); err != nil {
		return err
	}
	reg, network, err := p.network(r)
	if err != nil {
		return err
	}
	res, _, err := reg.Search(r.Context(), sq)
	if err != nil {
		return err
	}
	// A name that finds nothing gets a second chance at a typo or a legal form the
	// card does not have, as /ask gives it (nlq.RelaxedQueries): the closest matches
	// of the first relaxed search that finds any, marked approximate.
	relaxed := ""
	var relaxWarnings []registry.Warning
	if len(res.Results) == 0 && sq.Page == 1 {
		for _, rq := range nlq.RelaxedQueries(q) {
			rs, _, err := reg.Search(r.Context(), registry.SearchQuery{Q: rq, Country: sq.Country})
			if err != nil {
				// The search as typed answered: nothing matches it. Whether something
				// close does is not known.
				relaxWarnings = append(relaxWarnings, registry.Warning{Code: "relaxed_search_failed",
					Message: "nothing matches what you typed, and the wider search for close matches (typos, a legal form the card does not have) could not be made right now; try again in a minute"})
				break
			}
			if len(rs.Results) > 0 {
				res, relaxed = nlq.RankByCloseness(rs, q), rq
				break
			}
		}
	}
	page := sq.Page
	d := searchData{base: p.base(r, "Search"), Q: q, Total: res.TotalCount, Shown: len(res.Results), Relaxed: relaxed}
	for _, w := range slices.Concat(res.Warnings, relaxWarnings) { // res is the cache's: never appended to
		w.Message = sentence(p.plain.Replace(w.Message))
		d.Warnings = append(d.Warnings, w)
	}
	d.Box = q
	if res.Source == registry.SourceMirror && res.DataAsOf != nil {
		d.MirrorAsOf = res.DataAsOf.UTC().Format(time.DateOnly)
	}
	netParam, _ := param(r, "network") // p.network read it already
	jsonQ := q
	if relaxed != "" {
		jsonQ = relaxed // the search whose matches the page shows
	}
	jsonPage := ""
	if sq.Page > 1 {
		jsonPage = strconv.Itoa(sq.Page)
	}
	d.JSONLink = p.link("/api/v1/search", "q", jsonQ, "country", country, "network", netParam, "page", jsonPage)
	d.Countries = countryOptions(country)
	d.First = registry.SearchPageStart(page)
	for _, h := range res.Results {
		d.Hits = append(d.Hits, searchHit{Name: h.Name, ID: h.ParticipantID, Country: countryName(h.CountryCode),
			Link:        p.link("/participant/"+url.PathEscape(h.ParticipantID), "network", netParam),
			Approximate: relaxed != "" || approximate(q, h)})
	}
	if relaxed == "" {
		pageURL := func(n int) string {
			number := strconv.Itoa(n)
			if n == 1 {
				number = "" // page 1 is the search's own address
			}
			return p.link("/search", "q", q, "country", country, "network", netParam, "page", number)
		}
		for _, n := range pagerNumbers(page, max(registry.LastSearchPage(res.TotalCount), page)) {
			item := pageLink{Number: n, Current: n == page}
			if n > 0 && n != page {
				item.Link = pageURL(n)
			}
			d.Pages = append(d.Pages, item)
		}
		if len(d.Pages) == 1 {
			d.Pages = nil // one page: no pager
		}
		if page > 1 {
			d.Prev = pageURL(page - 1)
		}
		if next := registry.NextSearchPage(page, res.TotalCount); next > 0 {
			d.Next = pageURL(next)
		}
	}
	if all := registry.MaxSearchPage * registry.MaxSearchResults; res.TotalCount > all {
		d.More, d.Beyond = true, all
	}
	switch {
	case len(res.Results) == 0 && page > 1 && res.TotalCount > 0:
		d.Summary = "No more matches"
	case len(res.Results) == 0:
		d.Summary = "No matches"
	case relaxed != "":
		d.Summary = "No exact matches"
	case res.TotalCount == 1:
		d.Summary = "1 match"
	default:
		d.Summary = fmt.Sprintf("%d matches", res.TotalCount)
	}
	if network != "" && network != p.nets.Default() {
		d.Summary += " on the " + network + " network"
	}
	return p.render(w, r, http.StatusOK, "search", d, pageCacheControl)
}

// pagerNumbers returns the page numbers the pager shows for page of last: all of them
// up to 9 pages, else the first, the last and two either side of page, with 0 for a gap.
func pagerNumbers(page, last int) []int {
	var out []int
	for n := 1; n <= last; n++ {
		switch {
		case last <= 9 || n == 1 || n == last || (n >= page-2 && n <= page+2):
			out = append(out, n)
		case len(out) > 0 && out[len(out)-1] != 0:
			out = append(out, 0)
		}
	}
	return out
}

// approximate reports whether hit matches q only loosely: its id is not the number
// asked for, and q is a number or its name lacks a word of q (nlq.NameHas: case and
// diacritics aside); the Directory's full-text search also matches on other fields and
// on parts of words.
func approximate(q string, h registry.SearchHit) bool {
	if q == "" {
		return false
	}
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '.' || r == ' ' || r == '-' || r == '/' {
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	if _, value, ok := strings.Cut(fold(h.ParticipantID), ":"); ok && strings.Contains(fold(q), value) {
		return false
	}
	// A number that is not this participant's id matched something else on its card.
	return len(peppol.Candidates(q)) > 0 || !nlq.NameHas(h.Name, q)
}

func countryOptions(selected string) []countryOption {
	out := make([]countryOption, 0, len(countries)+1)
	listed := false
	for _, c := range countries {
		out = append(out, countryOption{Code: c[0], Name: c[1], Selected: c[0] == selected})
		listed = listed || c[0] == selected
	}
	if selected != "" && !listed {
		// A country the list does not name, searched for by its code: the menu shows it.
		out = append(out, countryOption{Code: selected, Name: selected, Selected: true})
	}
	return out
}

// countryName returns "Belgium (BE)" for BE, the code alone for a country not listed.
func countryName(code string) string {
	for _, c := range countries {
		if c[0] == code {
			return c[1] + " (" + code + ")"
		}
	}
	return code
}

// countries are the countries of the Peppol network's participants, by name.
var countries = [...][2]string{
	{"AU", "Australia"}, {"AT", "Austria"}, {"BE", "Belgium"}, {"BG", "Bulgaria"}, {"CA", "Canada"},
	{"HR", "Croatia"}, {"CY", "Cyprus"}, {"CZ", "Czechia"}, {"DK", "Denmark"}, {"EE", "Estonia"},
	{"FI", "Finland"}, {"FR", "France"}, {"DE", "Germany"}, {"GR", "Greece"}, {"HU", "Hungary"},
	{"IS", "Iceland"}, {"IE", "Ireland"}, {"IT", "Italy"}, {"JP", "Japan"}, {"LV", "Latvia"},
	{"LI", "Liechtenstein"}, {"LT", "Lithuania"}, {"LU", "Luxembourg"}, {"MY", "Malaysia"}, {"MT", "Malta"},
	{"NL", "Netherlands"}, {"NZ", "New Zealand"}, {"NO", "Norway"}, {"PL", "Poland"}, {"PT", "Portugal"},
	{"RO", "Romania"}, {"SG", "Singapore"}, {"SK", "Slovakia"}, {"SI", "Slovenia"}, {"ES", "Spain"},
	{"SE", "Sweden"}, {"CH", "Switzerland"}, {"AE", "United Arab Emirates"}, {"GB", "United Kingdom"}, {"US", "United States"},
}
