package server

import (
	"bytes"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/web"
)

// maxPageSize is the heaviest a page may be (issue 19).
const maxPageSize = 60 << 10

// hostileName and hostileGeo are Directory card fields an attacker controls.
const (
	hostileName = `<script>alert(1)</script> Evil Corp`
	hostileGeo  = `"><img src=x onerror=alert(2)>`
)

// getPage GETs path as a browser does (Accept: text/html first).
func (e *e2e) getPage(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", e.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp, buf.Bytes()
}

var (
	// inlineScript is a script element with content (every script must be src=).
	inlineScript = regexp.MustCompile(`(?is)<script[^>]*>\s*[^<\s]`)
	// inlineHandler is an event handler attribute, style an inline style.
	inlineHandler = regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`)
	inlineStyle   = regexp.MustCompile(`(?i)<style|<[^>]+\sstyle\s*=`)
	// htmlLang is the page's declared language (English but for an answer in
	// another language on the ask page).
	htmlLang = regexp.MustCompile(`<html lang="(en|fr|nl|de|no|sv|es|it|da|fi|pl)">`)
)

// checkPage checks what every page must be: HTML, the CSP and the security headers,
// no inline script or style, at most 60 KB, the language declared.
func checkPage(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	h := resp.Header
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Errorf("Content-Type %q", h.Get("Content-Type"))
	}
	if h.Get("Content-Security-Policy") != web.CSP {
		t.Errorf("CSP %q", h.Get("Content-Security-Policy"))
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("Cache-Control") == "" {
		t.Errorf("headers %v", h)
	}
	if len(body) > maxPageSize {
		t.Errorf("page weighs %d bytes, over %d", len(body), maxPageSize)
	}
	for name, re := range map[string]*regexp.Regexp{"inline script": inlineScript, "event handler": inlineHandler, "inline style": inlineStyle} {
		if m := re.Find(body); m != nil {
			t.Errorf("%s: %s", name, m)
		}
	}
	if !htmlLang.Match(body) || !bytes.Contains(body, []byte(`<main id="main">`)) {
		t.Errorf("no lang or main landmark")
	}
	if bytes.Contains(body, []byte("goroutine ")) || bytes.Contains(body, []byte("panic")) {
		t.Errorf("page leaks internals")
	}
}

func TestPagesRender(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	belgianName := e.ds.CardName(netsim.KnownBelgian)
	tests := []struct {
		name, path string
		status     int
		wantIn     []string
	}{
		{"home", "/", 200, []string{"<h1>Can I send them an invoice", `action="/go"`, `<label for="q">`}},
		{"participant", "/participant/" + netsim.KnownCertValid, 200, []string{"Can receive invoices", "What it can receive", "/api/v1/participant/" + netsim.KnownCertValid, "lookup_participant", "days left"}},
		{"participant percent-encoded", "/participant/" + url.PathEscape(netsim.KnownCertValid), 200, []string{"Can receive invoices"}},
		// Seed 7 gives the Belgian an access point whose certificate has expired.
		{"participant blocked", "/participant/" + netsim.KnownBelgian, 200, []string{"sending invoices and credit notes would fail right now", "certificate_expired", "/api/v1/participant/0208:0677424046/services"}},
		{"participant on the test network", "/participant/" + netsim.KnownBelgian + "?network=test", 0, nil},
		{"participant expired certificate", "/participant/" + netsim.KnownCertExpired, 200, []string{"certificate_expired", "Sending fails"}},
		{"participant directory only", "/participant/" + netsim.KnownDirectoryOnly, 200, []string{"Not on Peppol", "business card"}},
		{"participant sml only", "/participant/" + netsim.KnownSMLOnly, 200, []string{"has no business card"}},
		{"participant not found", "/participant/0208:0000000097", 404, []string{"Not on Peppol"}},
		{"participant malformed", "/participant/nonsense", 400, []string{"invalid_participant_id", "What to do"}},
		{"search by name", "/search?q=" + url.QueryEscape(belgianName), 200, []string{netsim.KnownBelgian, "match"}},
		{"search by VAT", "/search?q=BE0677424046", 200, []string{netsim.KnownBelgian}},
		{"search country alone", "/search?country=NO", 200, []string{"matches", `<option value="NO" selected>`}},
		{"search page 2", "/search?country=NO&page=2", 200, []string{`aria-current="page">Page 2`}},
		{"search too short", "/search?q=a", 400, []string{"query_too_short"}},
		{"search bad network", "/search?q=acme&network=moon", 400, []string{"invalid_request"}},
		{"ask empty", "/ask", 200, []string{`id="ask-form"`}},
		{"ask", "/ask?q=" + url.QueryEscape("can "+netsim.KnownBelgian+" receive invoices?"), 200, []string{"Answer</h2>", netsim.KnownBelgian}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := e.getPage(t, tt.path)
			if tt.status != 0 && resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			checkPage(t, resp, body)
			for _, w := range tt.wantIn {
				if !bytes.Contains(body, []byte(w)) {
					t.Errorf("no %q in the page:\n%s", w, body)
				}
			}
		})
	}
}

func TestPagesEscapeHostileCards(t *testing.T) {
	t.Parallel()
	e := startE2EOn(t, func(ds *netsim.Dataset) {
		p := ds.MustLookup(netsim.KnownBelgian)
		p.Card.Entities[0].Names[0].Name = hostileName
		p.Card.Entities[0].GeoInfo = hostileGeo
		p.Card.Entities[0].Websites = []string{"javascript:alert(3)"}
	}, nil, nil)
	for _, path := range []string{"/participant/" + netsim.KnownBelgian, "/search?q=BE0677424046", "/search?q=" + url.QueryEscape(`<script>alert(1)</script>`)} {
		resp, body := e.getPage(t, path)
		checkPage(t, resp, body)
		for _, bad := range []string{"<script>alert", "<img src=x", `href="javascript:`} {
			if bytes.Contains(body, []byte(bad)) {
				t.Errorf("%s: %q unescaped", path, bad)
			}
		}
	}
	_, body := e.getPage(t, "/participant/"+netsim.KnownBelgian)
	if !bytes.Contains(body, []byte("&lt;script&gt;alert(1)&lt;/script&gt; Evil Corp")) {
		t.Errorf("the hostile name is not shown escaped")
	}
}

func TestPageUpstreamFailure(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	resp, body := e.getPage(t, "/participant/"+netsim.KnownNorwegian)
	checkPage(t, resp, body)
	if resp.StatusCode != Status("lookup_failed") {
		t.Errorf("status %d, want %d", resp.StatusCode, Status("lookup_failed"))
	}
	if !bytes.Contains(body, []byte("Could not be checked right now")) || !bytes.Contains(body, []byte("reload the page in a minute")) {
		t.Errorf("no retry advice: %s", body)
	}
	// The API's advice for programs is put in words for people.
	if bytes.Contains(body, []byte("backoff")) || !bytes.Contains(body, []byte("<p>The Peppol network could not be queried for "+netsim.KnownNorwegian+": the SML (DNS) did not give a definite answer; try again in a minute.</p>")) {
		t.Errorf("the message keeps the API's advice: %s", body)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
}

func TestPagesKeepJSONClients(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	for _, accept := range []string{"", "application/json", "*/*", "application/json, text/html"} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", e.url+"/", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("Accept %q: Content-Type %q", accept, resp.Header.Get("Content-Type"))
		}
	}
	// GET /ask stays a 405 for anything but a browser.
	resp, _ := e.get(t, "/ask")
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("GET /ask: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestPageGoRoutes(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	tests := []struct{ q, network, want string }{
		{netsim.KnownBelgian, "", "/participant/0208:0677424046"},
		{"BE0677424046", "", "/search?q=BE0677424046"},
		{"can 0192:923609016 receive invoices?", "", "/ask?q=can+0192%3A923609016+receive+invoices%3F"},
		{"acme", "", "/search?q=acme"},
		{"", "", "/"},
		// The network goes along to every page, the default's left out.
		{netsim.TestKnownInvoice, "test", "/participant/9915:test-peppolgate-invoice?network=test"},
		{"can 9915:test-peppolgate-invoice receive invoices?", "test", "/ask?network=test&q=can+9915%3Atest-peppolgate-invoice+receive+invoices%3F"},
		{"acme", "Test", "/search?network=test&q=acme"},
		{"", "test", "/?network=test"},
		{"acme", "production", "/search?q=acme"},
		{"acme", "staging", "/search?network=staging&q=acme"}, // where it is refused, with the reason
	}
	for _, tt := range tests {
		resp, _ := e.getPage(t, "/go?q="+url.QueryEscape(tt.q)+"&network="+tt.network)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != tt.want {
			t.Errorf("%q on %q: %d Location %q, want %q", tt.q, tt.network, resp.StatusCode, resp.Header.Get("Location"), tt.want)
		}
	}
	// The start page of ?network=test has test selected; the error page of a network
	// not offered does not carry that network on in its box.
	if _, body := e.getPage(t, "/?network=test"); !bytes.Contains(body, []byte(`<option value="test" selected>`)) {
		t.Errorf("the start page of ?network=test does not select it: %s", body)
	}
	if resp, body := e.getPage(t, "/search?q=acme&network=prod"); resp.StatusCode != 400 || bytes.Contains(body, []byte(`value="prod"`)) {
		t.Errorf("the page of ?network=prod: %d %s", resp.StatusCode, body)
	}
}

func TestPageAssets(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	_, home := e.getPage(t, "/")
	links := regexp.MustCompile(`(?:href|src)="(/assets/[^"]+)"`).FindAllSubmatch(home, -1)
	if len(links) != 2 {
		t.Fatalf("assets linked: %q", links)
	}
	for _, l := range links {
		resp, body := e.get(t, string(l[1]))
		if resp.StatusCode != 200 || len(body) == 0 || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: %d %q", l[1], resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	resp, _ := e.getPage(t, "/assets/nothing.css")
	if resp.StatusCode != 404 {
		t.Errorf("unknown asset: %d", resp.StatusCode)
	}
}

// isPageRequest reports whether r asks for a page for people rather than the API: a
// GET or HEAD of a page path, or of /ask by a browser.
func isPageRequest(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	switch {
	case p == "/go" || p == "/search" || p == "/stats" || strings.HasPrefix(p, "/participant/") || strings.HasPrefix(p, "/assets/"):
		return true
	case p == "/ask":
		return prefersHTML(r.Header.Get("Accept"))
	}
	return false
}

// TestParticipantPageMemo: a participant page served again from its cached answers
// (web's memo) is the page rendered the first time, and what the request adds to the
// page, the id as written and the network its links carry, is not taken from another
// request's page.
func TestParticipantPageMemo(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	id := netsim.KnownCertValid
	_, first := e.getPage(t, "/participant/"+id)
	resp, again := e.getPage(t, "/participant/"+id)
	checkPage(t, resp, again)
	if !bytes.Equal(first, again) {
		t.Errorf("the page served again differs from the first")
	}
	for _, tc := range []struct{ path, want, notWant string }{
		{"/participant/" + id + "?network=production", `href="/api/v1/participant/` + id + `?network=production"`, ""},
		{"/participant/" + id, `href="/api/v1/participant/` + id + `"`, "network=production"},
		{"/participant/iso6523-actorid-upis::" + id, `value="` + id + `"`, ""},
	} {
		resp, body := e.getPage(t, tc.path)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(tc.want)) || (tc.notWant != "" && bytes.Contains(body, []byte(tc.notWant))) {
			t.Errorf("%s: %d, want %s and not %q: %s", tc.path, resp.StatusCode, tc.want, tc.notWant, body)
		}
	}
}

// TestPageSearchRelaxed: a name that finds nothing as typed (a legal form the card does
// not have, a typo) shows the closest matches of a relaxed search, marked approximate;
// a query nothing is close to says there are no matches.
func TestPageSearchRelaxed(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	name := firstName(t, e.ds, netsim.KnownBelgian)
	word := strings.Fields(name)[0]
	for _, tc := range []struct {
		q         string
		wants     []string
		wantFirst string
	}{
		{word + " bvba", []string{"<h2>No exact matches</h2>", "Nothing matched", `<span class="tag">approximate match</span>`}, netsim.KnownBelgian},
		{word[:len(word)-1] + "x", []string{"<h2>No exact matches</h2>"}, ""},
		{word, []string{" matches</h2>"}, ""},
		{"zzqxv", []string{"<h2>No matches</h2>"}, ""},
	} {
		resp, body := e.getPage(t, "/search?q="+url.QueryEscape(tc.q))
		checkPage(t, resp, body)
		for _, want := range tc.wants {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("%q: no %s in %s", tc.q, want, body)
			}
		}
		if tc.q == word && (bytes.Contains(body, []byte("Nothing matched")) || bytes.Contains(body, []byte("No matches"))) {
			t.Errorf("%q found as typed is said to be relaxed or not found", tc.q)
		}
		if tc.wantFirst != "" {
			// The JSON link is the search whose matches are shown.
			rq := nlq.RelaxedQueries(tc.q) // the word cut alone, the last one tried, finds it
			if !bytes.Contains(body, []byte(`href="/api/v1/search?q=`+url.QueryEscape(rq[len(rq)-1])+`"`)) {
				t.Errorf("%q: the JSON link is not the relaxed search's: %s", tc.q, body)
			}
			i := bytes.Index(body, []byte(`<ol class="results"`))
			if i < 0 || !bytes.Contains(body[i:min(i+300, len(body))], []byte(tc.wantFirst)) {
				t.Errorf("%q: %s is not the first match", tc.q, tc.wantFirst)
			}
		}
	}
}

// TestParticipantPageStale: past the cache's TTL with the network down, the page shows
// the older answer, saying so and how old it is, and the browser is told to ask again
// (as the API's stale answers say); it is not kept rendered, so the fresh answer shows
// once the network is back.
func TestParticipantPageStale(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	path := "/participant/" + netsim.KnownNorwegian
	resp, body := e.getPage(t, path)
	if resp.StatusCode != 200 || bytes.Contains(body, []byte(`class="stale"`)) || resp.Header.Get("Cache-Control") != "private, max-age=60" {
		t.Fatalf("fresh: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	e.clock.Advance(2*time.Hour + 5*time.Minute)
	e.net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 503})
	resp, body = e.getPage(t, path)
	checkPage(t, resp, body)
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "private, no-cache" ||
		!bytes.Contains(body, []byte("The Peppol network did not answer just now, so this is what it answered 2 hours ago.")) {
		t.Errorf("stale: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
	e.net.SetFault(netsim.DNSTarget(), netsim.Fault{})
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{})
	resp, body = e.getPage(t, path)
	if resp.StatusCode != 200 || bytes.Contains(body, []byte(`class="stale"`)) || resp.Header.Get("Cache-Control") != "private, max-age=60" {
		t.Errorf("fresh again: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
	}
}

// TestPageSearchRelaxedFails: when the search as typed finds nothing and the relaxed
// one fails upstream, the page says there are no matches and that close ones could not
// be looked for, rather than a plain "No matches".
func TestPageSearchRelaxedFails(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	typed := strings.Fields(firstName(t, e.ds, netsim.KnownBelgian))[0] + " bvba"
	// The search as typed is answered (nothing) and cached; then the Directory fails.
	if resp, body := e.get(t, "/api/v1/search?q="+url.QueryEscape(typed)); resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"totalCount":0`)) {
		t.Fatalf("the search as typed: %d %s", resp.StatusCode, body)
	}
	e.net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 503})
	resp, body := e.getPage(t, "/search?q="+url.QueryEscape(typed))
	checkPage(t, resp, body)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("<h2>No matches</h2>")) ||
		!bytes.Contains(body, []byte("the wider search for close matches (typos, a legal form the card does not have) could not be made right now; try again in a minute.")) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}
