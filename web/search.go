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

// perPage is how many hits a search page shows; the API's 25 make three pages.
const perPage = 10

type searchHit struct {
	Name, ID, Country, Link string
	Approximate             bool
}

type countryOption struct {
	Code, Name string
	Selected   bool
}

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
	More      bool
	Total     int
	Shown     int
	Warnings  []registry.Warning
	JSONLink  string
	// Relaxed is the relaxed query whose matches are shown when the query as typed
	// found none ("" when it found some).
	Relaxed string
	// MirrorAsOf is the day of the Directory's export the matches come from, when
	// peppolgate's copy of it answered ("" when the live Directory did).
	MirrorAsOf string
}

// Search serves GET /search?q=&country=&network=&page=: the Directory's matches by
// name, id and country, ten a page over the at most 25 the API returns, with the
// total. It returns the registry's errors: *registry.Error with CodeMissingQuery,
// CodeQueryTooShort or CodeInvalidRequest for bad input, CodeSearchFailed upstream.
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
	if len(res.Results) == 0 {
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
	page, _ := strconv.Atoi(pageParam)
	pages := (len(res.Results) + perPage - 1) / perPage
	if page < 1 || page > pages {
		page = 1
	}
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
	d.JSONLink = p.link("/api/v1/search", "q", jsonQ, "country", country, "network", netParam)
	d.Countries = countryOptions(country)
	lo, hi := (page-1)*perPage, min(page*perPage, len(res.Results))
	d.First = lo + 1
	for _, h := range res.Results[lo:hi] {
		d.Hits = append(d.Hits, searchHit{Name: h.Name, ID: h.ParticipantID, Country: countryName(h.CountryCode),
			Link:        p.link("/participant/"+url.PathEscape(h.ParticipantID), "network", netParam),
			Approximate: relaxed != "" || approximate(q, h)})
	}
	if pages > 1 {
		for i := 1; i <= pages; i++ {
			d.Pages = append(d.Pages, pageLink{Number: i, Current: i == page,
				Link: p.link("/search", "q", q, "country", country, "network", netParam, "page", strconv.Itoa(i))})
		}
	}
	d.More = res.TotalCount > len(res.Results)
	switch {
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
