package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/query"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// pageNames are the pages a mistyped path may have meant, by the names people write
// for them, in the order closestPage prefers them on a tie.
var pageNames = [...]struct{ name, page string }{
	{"participant", "participant"}, {"participants", "participant"},
	{"search", "search"}, {"find", "search"}, {"go", "search"},
	{"ask", "ask"}, {"question", "ask"},
	{"stats", "stats"}, {"statistics", "stats"}, {"stat", "stats"},
}

// Meant returns the page a request for a path that does not exist (or a method a page
// does not serve) most likely meant, and words for its link: the participant page of
// an id anywhere in the path ("/participants/0208:0677424046"), the search, ask or
// statistics page of a path written like theirs ("/serch?q=acme", "/search/acme",
// "/particpant/acme" searches for acme; "/participant/BE0677424046" is the page of the
// id that number most likely means), the API's description for a path under /api,
// else the search for the request's q, else the start page. The request's network
// goes along when this server offers it.
func (p *Pages) Meant(r *http.Request) (href, label string) {
	network, _, _ := query.Value(r.URL.RawQuery, "network")
	if n, err := registry.ParseNetwork(network, p.nets.Names()); err != nil || n == p.nets.Default() {
		network = ""
	} else {
		network = n
	}
	q, _, _ := query.Value(r.URL.RawQuery, "q")
	q = strings.TrimSpace(q)
	var segs []string
	for _, s := range strings.Split(strings.TrimPrefix(r.URL.Path, p.root), "/") {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	for _, s := range segs {
		if id, err := registry.ParseParticipantID(s); err == nil {
			return p.link("/participant/"+url.PathEscape(id.String()), "network", network), "the page of " + id.String()
		}
	}
	search := func(q string) (string, string) {
		if q == "" {
			return p.link("/search", "network", network), "the search"
		}
		return p.link("/search", "q", q, "network", network), "a search for “" + phrase.Shorten(q, 80) + "”"
	}
	if len(segs) == 0 {
		return p.link("/", "network", network), "the start page"
	}
	first := strings.ToLower(segs[0])
	if first == "api" {
		return p.root + "/openapi.json", "the API's description (OpenAPI)"
	}
	rest := ""
	if len(segs) > 1 {
		rest = segs[1]
	}
	switch closestPage(first) {
	case "participant":
		if s, ok := peppol.Suggest(rest); ok && rest != "" {
			// A number in another notation ("BE0677424046"): the id it most likely means.
			id := s.IDs[0].String()
			return p.link("/participant/"+url.PathEscape(id), "network", network), "the page of " + id
		}
		if rest != "" {
			return search(rest)
		}
		return search(q)
	case "search":
		if q == "" {
			q = rest
		}
		return search(q)
	case "ask":
		if q == "" {
			return p.link("/ask", "network", network), "the ask page"
		}
		return p.link("/ask", "q", q, "network", network), "the answer to “" + phrase.Shorten(q, 80) + "”"
	case "stats":
		return p.link("/stats", "network", network), "the network statistics"
	}
	if q != "" {
		return search(q)
	}
	return p.link("/", "network", network), "the start page"
}

// closestPage returns the page whose name word is within one edit (two for words of
// more than five letters) of word, "" when none is.
func closestPage(word string) string {
	if len(word) > 30 {
		return ""
	}
	best, bestD := "", 3
	for _, n := range pageNames {
		limit := 1
		if len(n.name) > 5 {
			limit = 2
		}
		if d := phrase.EditDistance(word, n.name); d <= limit && d < bestD {
			best, bestD = n.page, d
		}
	}
	return best
}
