package server

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
)

// TestPagesUnknownPath: a browser asking a path that does not exist, or a method a
// page does not serve, gets an HTML page in words for people, with a link to the page
// it most likely meant; a program gets the API's JSON error as before (issue 26).
func TestPagesUnknownPath(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	tests := []struct {
		name, path string
		wantLink   string
	}{
		{"participants for participant", "/participants/" + netsim.KnownBelgian, `href="/participant/0208:0677424046"`},
		{"a participant page's services", "/participant/" + netsim.KnownBelgian + "/services", `href="/participant/0208:0677424046"`},
		{"an id without the page", "/" + netsim.KnownBelgian, `href="/participant/0208:0677424046"`},
		{"a mistyped participant path", "/particpant/acme", `href="/search?q=acme"`},
		{"a participant page of a name", "/participant/acme/x", `href="/search?q=acme"`},
		{"a mistyped search", "/serch?q=acme+bv", `href="/search?q=acme&#43;bv"`},
		{"search with a slash", "/search/acme", `href="/search?q=acme"`},
		{"a mistyped stats", "/statistics", `href="/stats"`},
		{"a mistyped ask", "/asks?q=who+is+acme", `href="/ask?q=who&#43;is&#43;acme"`},
		{"nothing like a page", "/wp-login.php", `href="/"`},
		{"the network goes along", "/serch?q=acme&network=test", `href="/search?network=test&amp;q=acme"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := e.getPage(t, tt.path)
			if resp.StatusCode != 404 {
				t.Fatalf("status %d, want 404: %s", resp.StatusCode, body)
			}
			checkPage(t, resp, body)
			for _, want := range []string{"<h1>Not found</h1>", "route_not_found", tt.wantLink} {
				if !bytes.Contains(body, []byte(want)) {
					t.Errorf("no %s in the page:\n%s", want, body)
				}
			}
			// Words for people, not the API's list of endpoints.
			if bytes.Contains(body, []byte("the endpoints are")) || bytes.Contains(body, []byte("{participantId}")) {
				t.Errorf("the page speaks to programs:\n%s", body)
			}
		})
	}
	// A participant page of a number in another notation: the page it most likely
	// means, in words for people (not the API's GET … advice).
	resp, body := e.getPage(t, "/participant/BE0677424046")
	if resp.StatusCode != 400 || !bytes.Contains(body, []byte(`href="/participant/0208:0677424046"`)) || bytes.Contains(body, []byte("GET /api/v1")) || bytes.Contains(body, []byte("_tool")) {
		t.Errorf("/participant/BE0677424046: %d\n%s", resp.StatusCode, body)
	}
	// A method a page does not serve, from a browser.
	req, _ := http.NewRequestWithContext(t.Context(), "DELETE", e.url+"/search?q=acme", nil)
	req.Header.Set("Accept", "text/html")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body = readAll(t, resp)
	if resp.StatusCode != 405 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || resp.Header.Get("Allow") == "" ||
		!bytes.Contains(body, []byte("method_not_allowed")) || !bytes.Contains(body, []byte(`href="/search?q=acme"`)) {
		t.Errorf("DELETE /search from a browser: %d %s Allow %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body)
	}
	// Programs keep the JSON error.
	for _, path := range []string{"/participants/" + netsim.KnownBelgian, "/wp-login.php", "/api/v1/nothing"} {
		resp, body := e.get(t, path)
		if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !bytes.Contains(body, []byte(`"route_not_found"`)) {
			t.Errorf("GET %s from a program: %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}

// TestAskPageLang: the ask page declares the answer's language, and keeps its own
// English words marked as English (issue 26), in the eleven languages (issue 29).
func TestAskPageLang(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	for _, tt := range []struct{ q, lang string }{
		{"", "en"},
		{"who is " + netsim.KnownBelgian + "?", "en"},
		{"qui est " + netsim.KnownBelgian + " ?", "fr"},
		{"wer ist " + netsim.KnownBelgian + "?", "de"},
		// Spanish has been a language of answers since issue 29; Portuguese is not.
		{"¿Quién es " + netsim.KnownBelgian + "?", "es"},
		{"Kim jest " + netsim.KnownBelgian + "?", "pl"},
		{"Quem é " + netsim.KnownBelgian + "?", "en"},
	} {
		path := "/ask"
		if tt.q != "" {
			path += "?q=" + url.QueryEscape(tt.q)
		}
		resp, body := e.getPage(t, path)
		checkPage(t, resp, body)
		if !bytes.Contains(body, []byte(`<html lang="`+tt.lang+`">`)) {
			t.Errorf("%q: the page is not lang=%q:\n%s", tt.q, tt.lang, body)
		}
		if tt.lang != "en" && (!bytes.Contains(body, []byte(`<header class="site" lang="en">`)) || !bytes.Contains(body, []byte(`<h2 lang="en">Answer</h2>`))) {
			t.Errorf("%q: the page's English words are not marked lang=en:\n%s", tt.q, body)
		}
	}
	// Every other page stays English.
	_, body := e.getPage(t, "/search?q=acme")
	if !bytes.Contains(body, []byte(`<html lang="en">`)) {
		t.Errorf("the search page is not lang=en")
	}
}
