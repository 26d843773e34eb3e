package discovery_test

import (
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/peppolgate/peppolgate/discovery"
)

// indexLinkKeys are the members of the index's links object, as clients read them.
var indexLinkKeys = []string{"api_catalog", "ask", "authorization_server", "health", "llms", "llms_full",
	"mcp", "openapi", "participant", "protected_resource", "search"}

func TestIndexJSON(t *testing.T) {
	for _, base := range []string{llmsBase, "http://127.0.0.1:8080/", "https://example.org/peppol"} {
		t.Run(base, func(t *testing.T) {
			b, err := discovery.IndexJSON(llmsTestAPI(base))
			if err != nil {
				t.Fatal(err)
			}
			var idx struct {
				Name, Version, Description string
				Links                      map[string]string
			}
			if err := json.Unmarshal(b, &idx); err != nil {
				t.Fatal(err)
			}
			if idx.Name != "peppolgate" || idx.Version != "1.2.3" || idx.Description == "" {
				t.Errorf("name %q, version %q, description %q", idx.Name, idx.Version, idx.Description)
			}
			keys := make([]string, 0, len(idx.Links))
			for k := range idx.Links {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !reflect.DeepEqual(keys, indexLinkKeys) {
				t.Errorf("links %q, want %q", keys, indexLinkKeys)
			}
			trimmed := strings.TrimSuffix(base, "/")
			for k, v := range idx.Links {
				u, err := url.Parse(v)
				if err != nil || !u.IsAbs() || !strings.HasPrefix(v, trimmed+"/") || strings.Contains(strings.TrimPrefix(v, trimmed), "//") {
					t.Errorf("links.%s = %q is not an absolute URL on %s", k, v, trimmed)
				}
			}
			if idx.Links["mcp"] != trimmed+"/mcp" || idx.Links["openapi"] != trimmed+"/openapi.json" {
				t.Errorf("mcp %q, openapi %q", idx.Links["mcp"], idx.Links["openapi"])
			}
		})
	}
}

// htmlPage is what the test reads from the index page.
type htmlPage struct {
	hrefs    []string
	text     strings.Builder
	elements map[string]int
	attrs    map[string]int
	lang     string
}

func parsePage(t *testing.T, b []byte) *htmlPage {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	p := &htmlPage{elements: map[string]int{}, attrs: map[string]int{}}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			p.elements[n.Data]++
			for _, a := range n.Attr {
				p.attrs[a.Key]++
				switch {
				case n.Data == "a" && a.Key == "href":
					p.hrefs = append(p.hrefs, a.Val)
				case n.Data == "html" && a.Key == "lang":
					p.lang = a.Val
				}
			}
		case html.TextNode:
			p.text.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return p
}

func TestIndexHTML(t *testing.T) {
	api := llmsTestAPI(llmsBase)
	b, err := discovery.IndexHTML(api)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "<!DOCTYPE html>\n") {
		t.Error("no doctype")
	}
	p := parsePage(t, b)
	if p.lang == "" || p.elements["title"] != 1 || p.elements["h1"] != 1 || p.elements["main"] != 1 {
		t.Errorf("lang %q, elements %v", p.lang, p.elements)
	}
	// The server's CSP is default-src 'none': nothing may need a script, a style or
	// another resource.
	for _, el := range []string{"script", "style", "link", "img", "iframe", "object", "form"} {
		if p.elements[el] > 0 {
			t.Errorf("the page has <%s>", el)
		}
	}
	for _, a := range []string{"style", "src", "srcset", "onclick", "onload"} {
		if p.attrs[a] > 0 {
			t.Errorf("the page has %s attributes", a)
		}
	}
	idx, err := discovery.NewIndex(api)
	if err != nil {
		t.Fatal(err)
	}
	l := idx.Links
	// Every document and GET endpoint is a link; the POST-only ones are named as text,
	// because a browser following a link would only get a 405.
	for _, want := range []string{l.OpenAPI, l.LLMs, l.LLMsFull, l.APICatalog, l.ProtectedResource, l.AuthorizationServer, l.Participant, l.Search, l.Health} {
		if !slices.Contains(p.hrefs, want) {
			t.Errorf("no link to %s; links: %q", want, p.hrefs)
		}
	}
	for _, post := range []string{l.Ask, l.MCP} {
		if slices.Contains(p.hrefs, post) {
			t.Errorf("%s takes POST only but is a link", post)
		}
		if !strings.Contains(p.text.String(), post) {
			t.Errorf("%s is not on the page", post)
		}
	}
	for _, h := range p.hrefs {
		if !strings.HasPrefix(h, llmsBase+"/") {
			t.Errorf("link %q is not on %s", h, llmsBase)
		}
	}
}

func TestIndexHTMLEscapes(t *testing.T) {
	api := llmsTestAPI("https://example.org/a'b%22c")
	api.Version = `<script>alert("v")</script>`
	b, err := discovery.IndexHTML(api)
	if err != nil {
		t.Fatal(err)
	}
	p := parsePage(t, b)
	if p.elements["script"] > 0 {
		t.Error("the version became markup")
	}
	if !strings.Contains(p.text.String(), api.Version) {
		t.Error("the version is not shown as text")
	}
	for _, h := range p.hrefs {
		if !strings.HasPrefix(h, "https://example.org/a") {
			t.Errorf("link %q broke out of its attribute", h)
		}
	}
}
