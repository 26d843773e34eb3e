package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/peppolgate/peppolgate/registry"
)

// startDocServer serves a Server whose base URL is its own httptest address, so every
// absolute link in its documents can be followed. Every answer is checked against the
// OpenAPI document.
func startDocServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	reg := &fakeRegistry{part: samplePart("0208:0677424046"),
		result:   &registry.SearchResult{Query: "vandelanotte", Results: []registry.SearchHit{}},
		services: &registry.ServicesResult{ParticipantID: "0208:0677424046", Services: []registry.Service{}}}
	s, _ := newTestServer(t, reg, func(c *Config) { c.BaseURL = base })
	hs.Config.Handler = s
	hs.Start()
	t.Cleanup(hs.Close)
	return hs, base
}

// fetch GETs url with the given Accept header and returns the answer and its body.
func fetch(t *testing.T, c *http.Client, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// markdownLink is a Markdown link's target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocumentLinksResolve follows every link of the served llms.txt, of the index
// page and of the index JSON (except the POST-only /ask and /mcp, which the documents
// name without linking) and requires a 200.
func TestDocumentLinksResolve(t *testing.T) {
	t.Parallel()
	hs, base := startDocServer(t)
	c := hs.Client()

	links := map[string][]string{}
	_, llms := fetch(t, c, base+"/llms.txt", "")
	for _, m := range markdownLink.FindAllStringSubmatch(string(llms), -1) {
		links["llms.txt"] = append(links["llms.txt"], m[1])
	}

	resp, page := fetch(t, c, base+"/", "text/html")
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Fatalf("index page Content-Type %q", ct)
	}
	doc, err := html.Parse(strings.NewReader(string(page)))
	if err != nil {
		t.Fatal(err)
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "a" {
			continue
		}
		for _, a := range n.Attr {
			switch {
			case a.Key != "href" || strings.HasPrefix(a.Val, "#"):
			case strings.HasPrefix(a.Val, "/"):
				// The start page links root-relative, so that it works behind any
				// proxy; resolve against the base URL.
				links["index.html"] = append(links["index.html"], base+a.Val)
			default:
				links["index.html"] = append(links["index.html"], a.Val)
			}
		}
	}

	_, raw := fetch(t, c, base+"/", "application/json")
	var idx struct {
		Links map[string]string `json:"links"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		t.Fatal(err)
	}
	for name, u := range idx.Links {
		if name == "ask" || name == "mcp" {
			if u != base+"/"+name {
				t.Errorf("index links.%s = %q, want %s/%s", name, u, base, name)
			}
			continue
		}
		links["index.json"] = append(links["index.json"], u)
	}

	for doc, urls := range links {
		if len(urls) < 5 {
			t.Errorf("%s has only %d links: %q", doc, len(urls), urls)
		}
		for _, u := range urls {
			if !strings.HasPrefix(u, base+"/") {
				t.Errorf("%s links %q, which is not on %s", doc, u, base)
				continue
			}
			if resp, body := fetch(t, c, u, ""); resp.StatusCode != http.StatusOK {
				t.Errorf("%s links %s: %d %.200s", doc, u, resp.StatusCode, body)
			}
		}
	}
}

// TestLLMsFullTxtCoversOpenAPI: the served llms-full.txt has a section for every
// operation of the served OpenAPI document and mentions every error code it
// enumerates, so neither can drift from the other.
func TestLLMsFullTxtCoversOpenAPI(t *testing.T) {
	t.Parallel()
	hs, base := startDocServer(t)
	c := hs.Client()
	_, raw := fetch(t, c, base+"/openapi.json", "")
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var all any
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	resp, full := fetch(t, c, base+"/llms-full.txt", "")
	if ct := resp.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("llms-full.txt Content-Type %q", ct)
	}
	text := string(full)

	ops := 0
	for path, item := range doc.Paths {
		for method := range item {
			m := strings.ToUpper(method)
			if !slices.Contains([]string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}, m) {
				continue // parameters, summary, …
			}
			ops++
			if !strings.Contains(text, "\n### "+m+" "+path+"\n") {
				t.Errorf("llms-full.txt has no section for %s %s", m, path)
			}
		}
	}
	codes := errorCodeEnums(all, false, nil)
	for _, c := range Codes() {
		if !slices.Contains(codes, string(c)) {
			t.Errorf("the OpenAPI document does not enumerate %s", c)
		}
	}
	for _, c := range codes {
		if !strings.Contains(text, "| `"+c+"` |") {
			t.Errorf("llms-full.txt's error table lacks %s", c)
		}
	}
	if ops < 10 || len(codes) < 10 {
		t.Errorf("only %d operations and %d error codes found in the OpenAPI document", ops, len(codes))
	}
}

// errorCodeEnums collects the values of every enum of a "code" property in the
// OpenAPI document v.
func errorCodeEnums(v any, underCode bool, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if underCode && k == "enum" {
				for _, c := range e.([]any) {
					if s, ok := c.(string); ok && !slices.Contains(out, s) {
						out = append(out, s)
					}
				}
				continue
			}
			out = errorCodeEnums(e, k == "code", out)
		}
	case []any:
		for _, e := range x {
			out = errorCodeEnums(e, false, out)
		}
	}
	return out
}
