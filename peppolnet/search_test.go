package peppolnet

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/registry"
)

func TestSearchValidation(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, nil)
	tests := []struct {
		q, country string
		want       registry.Code
	}{
		{"", "", registry.CodeMissingQuery},
		{"   \t", "", registry.CodeMissingQuery},
		{"", "  ", registry.CodeMissingQuery},
		{"", "NO", ""},
		{"  \t", " no ", ""},
		{"", "NOR", registry.CodeInvalidRequest},
		{"", "1A", registry.CodeInvalidRequest},
		{"a", "NO", registry.CodeQueryTooShort},
		{"a", "", registry.CodeQueryTooShort},
		{" ø ", "", registry.CodeQueryTooShort},
		{strings.Repeat("x", registry.MaxQueryLength+1), "", registry.CodeInvalidRequest},
		{strings.Repeat("é", registry.MaxQueryLength), "", ""},
		{"acme", "BEL", registry.CodeInvalidRequest},
		{"acme", "1A", registry.CodeInvalidRequest},
		{"acme", "b", registry.CodeInvalidRequest},
		{"acme", " be ", ""},
		{"øl", "", ""},
	}
	for _, tt := range tests {
		_, _, err := l.Search(context.Background(), registry.SearchQuery{Q: tt.q, Country: tt.country})
		if registry.ErrorCode(err) != tt.want {
			t.Errorf("Search(%q, %q) = %v, want code %q", tt.q, tt.country, err, tt.want)
		}
		// The missing_query message says a country alone is accepted too.
		if e, ok := err.(*registry.Error); ok && e.Code == registry.CodeMissingQuery && !strings.Contains(e.Message, "country alone") {
			t.Errorf("Search(%q, %q): missing_query message %q does not mention a country alone", tt.q, tt.country, e.Message)
		}
	}
}

// queryRecorder is a reverse proxy to the Directory that records the query string of
// every search request it forwards.
type queryRecorder struct {
	mu      sync.Mutex
	queries []string
}

func (r *queryRecorder) record(q string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, q)
}

func (r *queryRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries)
}

// startRecorder puts a recording proxy in front of n's Directory and returns its URL.
func startRecorder(t *testing.T, n *netsim.Network) (*queryRecorder, string) {
	t.Helper()
	target, err := url.Parse(n.DirectoryURL())
	if err != nil {
		t.Fatal(err)
	}
	rec := &queryRecorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/search/") {
			rec.record(r.URL.RawQuery)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// TestSearchCountryAlone: a country without text asks the Directory for country= alone
// (and the page size), answers its first page with its total-result-count as
// TotalCount (business entities in that country), and is cached and coalesced.
func TestSearchCountryAlone(t *testing.T) {
	t.Parallel()
	n := startNet(t, 400)
	rec, base := startRecorder(t, n)
	l, clock := newLive(t, n, func(c *Config) { c.Directory = &directory.Client{Base: base} })
	entities := func(cc string) (count int) {
		for _, p := range n.Dataset().Participants {
			if p.Card == nil {
				continue
			}
			for _, e := range p.Card.Entities {
				if e.CountryCode == cc {
					count++
				}
			}
		}
		return count
	}
	tests := []struct {
		name, q, country, wantCountry string
		many                          bool // more entities than one page holds
	}{
		{"NO", "", "NO", "NO", true},
		{"lower case, q white space", "  ", " be ", "BE", true},
		{"DE, one page", "", "DE", "DE", false},
		{"a country nobody is in", "", "ZZ", "ZZ", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(rec.all())
			res, fr, err := l.Search(context.Background(), registry.SearchQuery{Q: tt.q, Country: tt.country})
			if err != nil {
				t.Fatal(err)
			}
			want := entities(tt.wantCountry)
			if tt.many != (want > freeTextPageSize) || (tt.wantCountry != "ZZ") != (want > 0) {
				t.Fatalf("%d entities in %s: the dataset no longer fits the case", want, tt.wantCountry)
			}
			if res.TotalCount != want || res.Source != registry.SourceDirectory || res.Query != "" || fr.Cached {
				t.Errorf("totalCount %d (want %d), source %q, query %q, freshness %+v", res.TotalCount, want, res.Source, res.Query, fr)
			}
			if want > 0 && len(res.Results) == 0 || len(res.Results) > registry.MaxSearchResults || res.Results == nil {
				t.Errorf("%d results", len(res.Results))
			}
			for _, h := range res.Results {
				if h.CountryCode != tt.wantCountry {
					t.Errorf("result %+v outside %s", h, tt.wantCountry)
				}
			}
			sent := rec.all()[before:]
			if wantQ := "country=" + tt.wantCountry + "&rpc=" + strconv.Itoa(freeTextPageSize); len(sent) != 1 || sent[0] != wantQ {
				t.Errorf("sent %q, want only %q", sent, wantQ)
			}
			// Cached: the same country again sends nothing.
			clock.Advance(time.Second)
			again, fr, err := l.Search(context.Background(), registry.SearchQuery{Country: strings.ToLower(tt.wantCountry)})
			if err != nil || again != res || !fr.Cached {
				t.Errorf("second search: same=%v freshness %+v err %v", again == res, fr, err)
			}
			if got := len(rec.all()) - before; got != 1 {
				t.Errorf("%d Directory requests for two searches, want 1", got)
			}
		})
	}
	// Coalesced: concurrent identical searches share one request.
	before := len(rec.all())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, _, err := l.Search(context.Background(), registry.SearchQuery{Country: "SE"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := len(rec.all()) - before; got != 1 {
		t.Errorf("8 concurrent searches sent %d requests, want 1", got)
	}
}

func TestSearchForms(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	tests := []struct {
		name      string
		q         string
		country   string
		wantFirst []string // the first results, in order
	}{
		{"name", "Vandelanotte", "", []string{netsim.KnownBelgian, netsim.KnownBelgianVAT}},
		{"BE enterprise number with dots", "BE 0677.424.046", "", []string{netsim.KnownBelgian, netsim.KnownBelgianVAT}},
		{"BE VAT", "BE0677424046", "", []string{netsim.KnownBelgian, netsim.KnownBelgianVAT}},
		{"NL KvK", "KvK 54441587", "", []string{netsim.KnownDutch}},
		{"FR SIREN", "784 301 772", "", []string{netsim.KnownFrenchSIREN}},
		{"FR SIRET", "78430177200025", "", []string{netsim.KnownFrenchSIRET}},
		{"NO MVA", "NO 923 609 016 MVA", "", []string{netsim.KnownNorwegian}},
		{"DE VAT", "DE811152493", "", []string{netsim.KnownGerman}},
		{"GLN", "5790000435975", "", []string{netsim.KnownGLN}},
		{"full id", "0208:0677424046", "", []string{netsim.KnownBelgian}},
		{"full id with scheme", "iso6523-actorid-upis::9925:BE0677424046", "", []string{netsim.KnownBelgianVAT}},
		{"id inside text", "invoice to 0192:923609016 please", "", []string{netsim.KnownNorwegian}},
		{"name with country", "Fjellheim", "no", []string{netsim.KnownNorwegian}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, fr, err := l.Search(context.Background(), registry.SearchQuery{Q: tt.q, Country: tt.country})
			if err != nil {
				t.Fatal(err)
			}
			if res.Query != strings.TrimSpace(tt.q) || fr.Cached || fr.TTL != registry.DefaultSearchTTL {
				t.Errorf("query %q freshness %+v", res.Query, fr)
			}
			if len(res.Results) < len(tt.wantFirst) {
				t.Fatalf("results %+v, want first %v", res.Results, tt.wantFirst)
			}
			for i, id := range tt.wantFirst {
				if res.Results[i].ParticipantID != id {
					t.Errorf("result %d = %+v, want %s (all: %+v)", i, res.Results[i], id, res.Results)
				}
			}
			want := n.Dataset().MustLookup(tt.wantFirst[0]).Card.Entities[0]
			if r := res.Results[0]; r.Name != want.Names[0].Name || r.CountryCode != want.CountryCode {
				t.Errorf("first hit %+v, want name %q country %q", r, want.Names[0].Name, want.CountryCode)
			}
			if res.TotalCount < len(res.Results) {
				t.Errorf("totalCount %d < %d results", res.TotalCount, len(res.Results))
			}
			seen := map[string]bool{}
			for _, r := range res.Results {
				if seen[r.ParticipantID] {
					t.Errorf("duplicate %s", r.ParticipantID)
				}
				seen[r.ParticipantID] = true
			}
		})
	}
}

func TestSearchCountryFilter(t *testing.T) {
	t.Parallel()
	n := startNet(t, 500)
	l, _ := newLive(t, n, nil)
	res, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "AS", Country: "NO"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 {
		t.Fatal("no Norwegian results for AS")
	}
	for _, r := range res.Results {
		if r.CountryCode != "NO" {
			t.Errorf("result %+v outside NO", r)
		}
	}
	// An exact number of another country is filtered out too.
	res, _, err = l.Search(context.Background(), registry.SearchQuery{Q: "BE0677424046", Country: "NO"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.CountryCode != "NO" {
			t.Errorf("result %+v outside NO", r)
		}
	}
}

func TestSearchCapAndTotal(t *testing.T) {
	t.Parallel()
	n := startNet(t, 1000)
	l, _ := newLive(t, n, nil)
	res, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "sa"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != registry.MaxSearchResults || res.TotalCount <= registry.MaxSearchResults {
		t.Errorf("%d results, totalCount %d; want %d results of more", len(res.Results), res.TotalCount, registry.MaxSearchResults)
	}
	// The exact hit is counted on top of the free-text total when it is not on the page.
	res, _, err = l.Search(context.Background(), registry.SearchQuery{Q: "invoice to 0192:923609016 please"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalCount != 1 || len(res.Results) != 1 {
		t.Errorf("totalCount %d, %d results; want 1 and 1", res.TotalCount, len(res.Results))
	}
}

func TestSearchCache(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, clock := newLive(t, n, nil)
	q := registry.SearchQuery{Q: "Vandelanotte"}
	first, _, err := l.Search(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	before := n.Hits().Directory.Search
	clock.Advance(time.Minute)
	second, fr, err := l.Search(context.Background(), registry.SearchQuery{Q: "  Vandelanotte "})
	if err != nil || second != first || !fr.Cached || fr.Age != time.Minute {
		t.Fatalf("cached search: same=%v freshness %+v err %v", second == first, fr, err)
	}
	if after := n.Hits().Directory.Search; after != before {
		t.Errorf("cached search sent %d Directory requests", after-before)
	}
	if _, fr, _ := l.Search(context.Background(), registry.SearchQuery{Q: "Vandelanotte", Country: "BE"}); fr.Cached {
		t.Error("a search with a country was answered from the cache of one without")
	}
	// Stale answer when the Directory fails after the TTL.
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 503})
	clock.Advance(registry.DefaultSearchTTL)
	got, fr, err := l.Search(context.Background(), q)
	if err != nil || got != first || !fr.Stale {
		t.Errorf("stale search: same=%v freshness %+v err %v", got == first, fr, err)
	}
}

func TestSearchUpstreamFailures(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	tests := []struct {
		name       string
		fault      netsim.Fault
		wantRetry  time.Duration
		wantInText string
	}{
		{"429 with Retry-After", netsim.Fault{HTTPStatus: 429, RetryAfter: "7"}, 7 * time.Second, "rate limiting"},
		{"429 without Retry-After", netsim.Fault{HTTPStatus: 429}, 2 * time.Second, "rate limiting"},
		{"500", netsim.Fault{HTTPStatus: 500}, 0, "retry"},
		{"malformed", netsim.Fault{Malformed: true}, 0, "retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newLive(t, n, nil)
			n.SetFault(netsim.DirectoryTarget(), tt.fault)
			defer n.ClearFaults()
			_, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "0208:0677424046"})
			e, ok := err.(*registry.Error)
			if !ok || e.Code != registry.CodeSearchFailed || e.RetryAfter != tt.wantRetry || !strings.Contains(e.Message, tt.wantInText) {
				t.Fatalf("err = %#v, want search_failed retry %v", err, tt.wantRetry)
			}
			if strings.Contains(e.Message, "127.0.0.1") {
				t.Errorf("message names a host: %q", e.Message)
			}
		})
	}
}

func TestSearchBusy(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, func(c *Config) {
		c.DirectoryRate = 0.01 // one token per 100s: the second request cannot go out in time
		c.DirectoryBurst = 1
		c.DirectoryQueue = 1
	})
	if _, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "Vandelanotte"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "Fjellheim"})
	e, ok := err.(*registry.Error)
	if !ok || e.Code != registry.CodeSearchFailed || !strings.Contains(e.Message, "busy") || e.RetryAfter <= 0 {
		t.Fatalf("err = %#v, want search_failed busy", err)
	}
	// A lookup still answers from the SMP side when the Directory queue is full.
	p, _, err := l.Lookup(context.Background(), mustID(t, netsim.KnownNorwegian))
	if err != nil || !hasWarning(p, registry.WarnDirectoryUnavailable) || p.SMP == nil {
		t.Fatalf("lookup with busy directory: %+v, %v", p, err)
	}
}

func TestPlanSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q          string
		want       []string
		numberOnly bool
		freeText   string
	}{
		{"BE 0677.424.046", []string{"0208:0677424046", "9925:be0677424046"}, true, "0677424046"},
		{"NL851306469B01", []string{"9944:nl851306469b01"}, true, "851306469b01"},
		{"0208:0677424046", []string{"0208:0677424046"}, true, "0677424046"},
		{"please 0088:5790000435975 and 9915:abc", []string{"0088:5790000435975", "9915:abc"}, false, "please 0088:5790000435975 and 9915:abc"},
		{"Vandelanotte", nil, false, "Vandelanotte"},
		{"9915:b", []string{"9915:b"}, true, "9915:b"},
		{"0208:abc-1", []string{"0208:abc-1"}, true, "0208:abc-1"},
	}
	for _, tt := range tests {
		p := planSearch(tt.q)
		if len(p.candidates) > maxExactCandidates {
			t.Errorf("%q: %d candidates", tt.q, len(p.candidates))
		}
		var s []string
		for _, id := range p.candidates {
			s = append(s, id.String())
		}
		if strings.Join(s, " ") != strings.Join(tt.want, " ") || p.numberOnly != tt.numberOnly || p.freeText != tt.freeText {
			t.Errorf("planSearch(%q) = %v %v %q, want %v %v %q", tt.q, s, p.numberOnly, p.freeText, tt.want, tt.numberOnly, tt.freeText)
		}
	}
}

// A registration number costs one Directory request when its first page shows every
// candidate, instead of one per candidate plus the free text.
func TestSearchNumberCostsOneRequest(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, _ := newLive(t, n, nil)
	for _, q := range []string{"BE 0677.424.046", "KvK 54441587", "5790000435975", "0192:923609016"} {
		before := n.Hits().Directory.Search
		res, _, err := l.Search(context.Background(), registry.SearchQuery{Q: q})
		if err != nil || len(res.Results) == 0 {
			t.Fatalf("%q: %+v, %v", q, res, err)
		}
		if got := n.Hits().Directory.Search - before; got != 1 {
			t.Errorf("%q: %d Directory requests, want 1", q, got)
		}
	}
}

// TestSearchPages: page n of a search is the Directory's page n of 25 entities (rpi
// n-1), with the same totalCount on every page, page and nextPage set (none on the last
// page), an empty page past the end, each page cached on its own; a page beyond
// MaxSearchPage is invalid_request and asks nothing.
func TestSearchPages(t *testing.T) {
	t.Parallel()
	n := startNet(t, 1000)
	rec, base := startRecorder(t, n)
	l, _ := newLive(t, n, func(c *Config) { c.Directory = &directory.Client{Base: base} })
	dir := &directory.Client{Base: n.DirectoryURL()}
	for _, tt := range []struct{ name, q, country, sent string }{
		{"a country alone", "", "NO", "country=NO"},
		{"a name", "sa", "", "q=sa"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first, _, err := l.Search(context.Background(), registry.SearchQuery{Q: tt.q, Country: tt.country})
			if err != nil {
				t.Fatal(err)
			}
			pages := (first.TotalCount + registry.MaxSearchResults - 1) / registry.MaxSearchResults
			if pages < 3 {
				t.Fatalf("%d matches: the dataset no longer fits the case", first.TotalCount)
			}
			if first.Page != 1 || first.NextPage != 2 {
				t.Errorf("page 1: page %d, nextPage %d; want 1 and 2", first.Page, first.NextPage)
			}
			for _, page := range []int{2, pages, pages + 1} {
				before := len(rec.all())
				res, _, err := l.Search(context.Background(), registry.SearchQuery{Q: tt.q, Country: tt.country, Page: page})
				if err != nil {
					t.Fatal(err)
				}
				sent := rec.all()[before:]
				if want := tt.sent + "&rpc=25&rpi=" + strconv.Itoa(page-1); len(sent) != 1 || sent[0] != want {
					t.Errorf("page %d sent %q, want only %q", page, sent, want)
				}
				want, err := dir.Search(context.Background(), directory.Query{Q: tt.q, Country: tt.country, PageSize: 25, PageIndex: page - 1})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, m := range want.Matches {
					ids = append(ids, m.Participant.String())
				}
				var got []string
				for _, h := range res.Results {
					got = append(got, h.ParticipantID)
				}
				if !slices.Equal(got, ids) || res.TotalCount != first.TotalCount || res.Page != page {
					t.Errorf("page %d: %v, total %d, page %d; want the Directory's page %v, total %d", page, got, res.TotalCount, res.Page, ids, first.TotalCount)
				}
				if wantNext := map[bool]int{true: page + 1, false: 0}[page < pages]; res.NextPage != wantNext {
					t.Errorf("page %d of %d: nextPage %d, want %d", page, pages, res.NextPage, wantNext)
				}
				if page > pages && (len(res.Results) != 0 || res.Results == nil) {
					t.Errorf("past the end: %v", res.Results)
				}
			}
		})
	}
	before := len(rec.all())
	for _, page := range []int{registry.MaxSearchPage + 1, -1} {
		_, _, err := l.Search(context.Background(), registry.SearchQuery{Country: "NO", Page: page})
		if registry.ErrorCode(err) != registry.CodeInvalidRequest {
			t.Errorf("page %d: %v, want invalid_request", page, err)
		}
	}
	if sent := rec.all()[before:]; len(sent) != 0 {
		t.Errorf("invalid pages sent %q", sent)
	}
	// The last page the Directory serves is served.
	res, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "sa", Page: registry.MaxSearchPage})
	if err != nil || res.Page != registry.MaxSearchPage || res.NextPage != 0 {
		t.Errorf("page %d: %+v, %v", registry.MaxSearchPage, res, err)
	}
}

// TestSearchPagesNumber: a registration number's exact hits come first on page 1 only;
// later pages are the free-text query's and do not repeat them.
func TestSearchPagesNumber(t *testing.T) {
	t.Parallel()
	n := startNet(t, 400)
	l, _ := newLive(t, n, nil)
	var id string
	for _, p := range n.Dataset().Participants {
		if p.Card != nil && strings.HasPrefix(p.ID.String(), "0208:") {
			id = p.ID.String()
			break
		}
	}
	if id == "" {
		t.Fatal("no 0208 participant with a card")
	}
	first, _, err := l.Search(context.Background(), registry.SearchQuery{Q: id})
	if err != nil || len(first.Results) == 0 || first.Results[0].ParticipantID != id {
		t.Fatalf("page 1: %+v, %v", first, err)
	}
	second, _, err := l.Search(context.Background(), registry.SearchQuery{Q: id, Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range second.Results {
		if h.ParticipantID == id {
			t.Errorf("page 2 repeats the exact hit %s", id)
		}
	}
}

// TestMaxSearchPageIsTheDirectorysLimit: registry.MaxSearchPage is the last page of
// freeTextPageSize the Directory serves (directory.MaxResultIndex): the query for it is
// valid, the one after is not.
func TestMaxSearchPageIsTheDirectorysLimit(t *testing.T) {
	t.Parallel()
	if freeTextPageSize != registry.MaxSearchResults {
		t.Fatalf("Directory pages of %d, search pages of %d", freeTextPageSize, registry.MaxSearchResults)
	}
	last := directory.Query{Q: "x", PageSize: freeTextPageSize, PageIndex: registry.MaxSearchPage - 1}
	if err := last.Validate(); err != nil {
		t.Errorf("page %d: %v", registry.MaxSearchPage, err)
	}
	beyond := directory.Query{Q: "x", PageSize: freeTextPageSize, PageIndex: registry.MaxSearchPage}
	if err := beyond.Validate(); err == nil {
		t.Errorf("page %d is valid for the Directory: MaxSearchPage could be higher", registry.MaxSearchPage+1)
	}
}

// TestSearchPagesNameAndID: a query of words and a participant id over more than a
// page of matches, the id's own hit not on the Directory's first page: page 1 carries
// the id's hit on top of the Directory's first 25, page 2 the next, so pages 1 and 2
// together show every match once; totalCount is the same on both pages.
func TestSearchPagesNameAndID(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: testNow})
	var cards []*netsim.Participant
	for i := range ds.Participants {
		if p := &ds.Participants[i]; p.Card != nil && len(p.Card.Entities) == 1 {
			cards = append(cards, p)
		}
	}
	if len(cards) < 41 {
		t.Fatalf("%d participants with one card entity", len(cards))
	}
	// The id's participant comes last in the Directory's order; 40 others mention it.
	target := cards[len(cards)-1]
	want := map[string]bool{target.ID.String(): true}
	for _, p := range cards[:40] {
		p.Card.Entities[0].AdditionalInfo = "partner of " + target.ID.String()
		want[p.ID.String()] = true
	}
	target.Card.Entities[0].AdditionalInfo = "partner"
	n, err := netsim.Start(context.Background(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	l, _ := newLive(t, n, nil)
	q := "partner " + target.ID.String()
	first, _, err := l.Search(context.Background(), registry.SearchQuery{Q: q})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Results) == 0 || first.Results[0].ParticipantID != target.ID.String() {
		t.Fatalf("page 1 does not start with the id's hit: %+v", first.Results)
	}
	second, _, err := l.Search(context.Background(), registry.SearchQuery{Q: q, Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, h := range append(first.Results, second.Results...) {
		if got[h.ParticipantID] {
			t.Errorf("%s is shown twice", h.ParticipantID)
		}
		got[h.ParticipantID] = true
	}
	for id := range want {
		if !got[id] {
			t.Errorf("%s is on neither page 1 (%d results) nor page 2 (%d)", id, len(first.Results), len(second.Results))
		}
	}
	if first.TotalCount != second.TotalCount || first.TotalCount != len(want) {
		t.Errorf("totalCount %d on page 1, %d on page 2; want %d on both", first.TotalCount, second.TotalCount, len(want))
	}
	if first.NextPage != 2 || second.NextPage != 0 {
		t.Errorf("nextPage %d on page 1, %d on page 2; want 2 and none", first.NextPage, second.NextPage)
	}
}
