package server

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

var queryCases = []string{
	"", "q=acme", "q=", "q", "q=a&q=b", "country=BE&q=x+y", "q=%C3%BCller", "q=%zz&q=ok",
	"q=a;b&q=c", "%71=encoded-key", "q=a%26b&country=no", "&&q=1&&", "x=1&country=%2", "country=be;q=1",
	"q=%", "q=a=b=c", "q=%%", "q=acme;corp", "q=acme%3Bcorp", "q=ok&q=%zz",
}

// hotPath.queryValue must agree with url.ParseQuery, which it replaces on the hot
// path, but for two things it does on purpose: ';' is an ordinary character, and a
// value of the key that does not decode is an error rather than skipped.
func TestQueryValue(t *testing.T) {
	t.Parallel()
	for _, raw := range queryCases {
		for _, key := range []string{"q", "country"} {
			checkQueryValue(t, raw, key)
		}
	}
}

func FuzzQueryValue(f *testing.F) {
	for _, raw := range queryCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkQueryValue(t, raw, "q") })
}

func checkQueryValue(t *testing.T, raw, key string) {
	t.Helper()
	v, perr := url.ParseQuery(strings.ReplaceAll(raw, ";", "%3B"))
	want, wantOK := v[key]
	got, ok, err := new(hotPath).queryValue(raw, key)
	if err != nil {
		if perr == nil || !ok {
			t.Errorf("queryValue(%q, %q): %v, but url.ParseQuery decodes it", raw, key, err)
		}
		return
	}
	if ok != wantOK || (ok && got != want[0]) {
		t.Errorf("queryValue(%q, %q) = %q, %v; url.ParseQuery gives %q", raw, key, got, ok, want)
	}
}

// TestSearchQueryErrors: a q that is not valid percent-encoding is a 400 saying so,
// never "q is required"; a ';' is part of q.
func TestSearchQueryErrors(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"q=%%":          "q is not valid percent-encoding",
		"q=acme%zzcorp": "q is not valid percent-encoding",
		"country=%":     "country is not valid percent-encoding",
	} {
		_, err := new(Server).parseSearchQuery(raw)
		if registry.ErrorCode(err) != registry.CodeInvalidRequest || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want invalid_request saying %q", raw, err, want)
		}
	}
	q, err := new(Server).parseSearchQuery("q=acme;corp")
	if err != nil || q.Q != "acme;corp" {
		t.Errorf("q=acme;corp: %+v %v", q, err)
	}
}

// TestOneQueryReader: every handler and page reads its query string with the one
// reader (internal/query), so a parameter that is not valid percent-encoding is the
// same 400 invalid_request everywhere: JSON for programs, an error page for browsers.
// Before, `?network=%zz` was a 400 on the search but silently the default network on
// /ask and the pages (issue 26).
func TestOneQueryReader(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	const want = "is not valid percent-encoding"
	for _, path := range []string{
		"/api/v1/participant/" + netsim.KnownBelgian + "?network=%zz",
		"/api/v1/participant/" + netsim.KnownBelgian + "/services?network=%zz",
		"/api/v1/participant/" + netsim.KnownBelgian + "/services?docType=%zz",
		"/api/v1/search?q=acme&network=%zz",
		"/api/v1/stats?network=%zz",
	} {
		resp, body := e.get(t, path)
		if resp.StatusCode != 400 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
			!strings.Contains(string(body), `"code":"invalid_request"`) || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	// POST /ask, for a program.
	req, _ := http.NewRequestWithContext(t.Context(), "POST", e.url+"/ask?network=%zz", strings.NewReader(`{"query": "who is `+netsim.KnownBelgian+`"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != 400 || !strings.Contains(string(body), `"invalid_request"`) || !strings.Contains(string(body), "network "+want) {
		t.Errorf("POST /ask?network=%%zz: %d %s", resp.StatusCode, body)
	}
	// The pages, for a browser (the start page asks nothing of a network it cannot
	// read, as of one it does not offer: it selects the default).
	for _, path := range []string{
		"/go?q=acme&network=%zz",
		"/go?q=%zz",
		"/search?q=acme&network=%zz",
		"/search?q=%zz",
		"/search?q=acme&page=%zz",
		"/participant/" + netsim.KnownBelgian + "?network=%zz",
		"/ask?q=who+is+" + netsim.KnownBelgian + "&network=%zz",
		"/ask?q=%zz",
		"/stats?network=%zz",
	} {
		resp, body := e.getPage(t, path)
		if resp.StatusCode != 400 || !strings.Contains(string(body), "invalid_request") || !strings.Contains(string(body), want) {
			t.Errorf("page %s: %d %s", path, resp.StatusCode, body)
			continue
		}
		checkPage(t, resp, body)
	}
}
