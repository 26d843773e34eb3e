package server

import (
	"mime"
	"net/http"
	"strings"

	"github.com/peppolgate/peppolgate/discovery"
)

// docKind names one discovery document.
type docKind int

const (
	docOpenAPI docKind = iota
	docLLMs
	docLLMsFull
	docAPICatalog
	docProtectedResource
	docProtectedResourceMCP
	docAuthorizationServer
	docIndexJSON
	docIndexHTML
	docCount
)

// documents are the discovery documents, generated once at start: they depend only on
// the configuration.
type documents struct {
	body  [docCount][]byte
	ctype [docCount]string
}

// buildDocuments generates every document from api. It returns the first generator's
// error.
func buildDocuments(api discovery.API) (documents, error) {
	var d documents
	gen := []struct {
		kind  docKind
		ctype string
		make  func() ([]byte, error)
	}{
		{docOpenAPI, "application/json", func() ([]byte, error) { return discovery.OpenAPI(api) }},
		{docLLMs, "text/markdown; charset=utf-8", func() ([]byte, error) { return discovery.LLMsTxt(api) }},
		{docLLMsFull, "text/markdown; charset=utf-8", func() ([]byte, error) { return discovery.LLMsFullTxt(api) }},
		{docAPICatalog, discovery.APICatalogContentType, func() ([]byte, error) { return discovery.APICatalog(api.BaseURL) }},
		{docProtectedResource, "application/json", func() ([]byte, error) { return discovery.ProtectedResource(api.BaseURL, "") }},
		{docProtectedResourceMCP, "application/json", func() ([]byte, error) { return discovery.ProtectedResource(api.BaseURL, mcpPath) }},
		{docAuthorizationServer, "application/json", func() ([]byte, error) { return discovery.AuthorizationServer(api.BaseURL) }},
		{docIndexJSON, "application/json", func() ([]byte, error) { return discovery.IndexJSON(api) }},
		{docIndexHTML, "text/html; charset=utf-8", func() ([]byte, error) { return discovery.IndexHTML(api) }},
	}
	for _, g := range gen {
		b, err := g.make()
		if err != nil {
			return d, err
		}
		d.body[g.kind], d.ctype[g.kind] = b, g.ctype
	}
	return d, nil
}

// docCacheControl lets clients and proxies keep a document for an hour: it changes
// only with the deployment.
const docCacheControl = "public, max-age=3600"

// document serves one discovery document.
func (s *Server) document(k docKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		h := w.Header()
		if k == docAPICatalog {
			h.Set("Link", discovery.APICatalogLink(s.baseURL))
		}
		s.writeDocument(w, k)
		return nil
	}
}

func (s *Server) writeDocument(w http.ResponseWriter, k docKind) {
	h := w.Header()
	h.Set("Content-Type", s.docs.ctype[k])
	h.Set("Cache-Control", docCacheControl)
	_, _ = w.Write(s.docs.body[k])
}

// index serves GET /: JSON for API clients, HTML for browsers (Accept: text/html
// before any JSON type), with the Link header that points at the API catalog.
func (s *Server) index(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Link", discovery.APICatalogLink(s.baseURL))
	h.Add("Vary", "Accept")
	k := docIndexJSON
	if prefersHTML(r.Header.Get("Accept")) {
		k = docIndexHTML
	}
	s.writeDocument(w, k)
	return nil
}

// prefersHTML reports whether an Accept header lists text/html before any JSON type
// (browsers send "text/html,…"; API clients "application/json" or nothing).
func prefersHTML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch {
		case mt == "text/html" || mt == "application/xhtml+xml":
			return true
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			return false
		}
	}
	return false
}
