package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/tools"
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
	// gz is body gzip-compressed, for clients that accept it (nil for small bodies);
	// etag is a strong validator of body.
	gz   [docCount][]byte
	etag [docCount]string
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
		sum := sha256.Sum256(b)
		d.etag[g.kind] = `"` + hex.EncodeToString(sum[:12]) + `"`
		if len(b) >= minGzipDocument {
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			_, _ = zw.Write(b)
			if err := zw.Close(); err != nil {
				return d, err
			}
			d.gz[g.kind] = buf.Bytes()
		}
	}
	return d, nil
}

// minGzipDocument is the size from which a document is also kept gzip-compressed.
const minGzipDocument = 1 << 10

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
		s.writeDocument(w, r, k)
		return nil
	}
}

func (s *Server) writeDocument(w http.ResponseWriter, r *http.Request, k docKind) {
	h := w.Header()
	h.Set("Content-Type", s.docs.ctype[k])
	h.Set("Cache-Control", docCacheControl)
	h.Set("ETag", s.docs.etag[k])
	if s.docs.gz[k] != nil {
		h.Add("Vary", "Accept-Encoding")
	}
	if etagMatches(r.Header.Get("If-None-Match"), s.docs.etag[k]) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := s.docs.body[k]
	if s.docs.gz[k] != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = s.docs.gz[k]
	}
	s.hot.setLength(h, len(body), r.Method == http.MethodHead)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// etagMatches reports whether an If-None-Match header names etag (or is "*"); weak
// comparison, as RFC 9110 §13.1.2 asks for If-None-Match.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip (q above 0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// index serves GET /: JSON for API clients, the start page for browsers (Accept:
// text/html before any JSON type), with the Link header that points at the API
// catalog.
func (s *Server) index(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Link", discovery.APICatalogLink(s.baseURL))
	h.Add("Vary", "Accept")
	if prefersHTML(r.Header.Get("Accept")) {
		// Browsers get the start page (package web); the generated HTML index stays
		// a discovery document.
		s.servePage(w, r, s.web.Home)
		return nil
	}
	s.writeDocument(w, r, docIndexJSON)
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

// documentRoutes describes and serves the index and the discovery documents (docs/INTERFACE.md §4).
func (s *Server) documentRoutes(k docKit) []route {
	// doc is the route of a discovery document: a GET served from the documents built
	// at start (buildDocuments).
	doc := func(kind docKind, path, operationID, summary, description string, responses []discovery.Response) route {
		return route{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: path, OperationID: operationID, Tag: "discovery",
			Summary: summary, Description: description, Responses: responses, Errors: commonErrors(),
		}, handler: s.document(kind), class: classDocs}
	}
	// object answers with a JSON object and answers conditional GETs.
	object := func(desc string) []discovery.Response {
		return append(k.jsonOK(desc, &jsonschema.Schema{Type: "object"}), k.notModified)
	}
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/", OperationID: "index", Tag: "discovery",
			Summary: "Index", Description: "Links to every document and endpoint: JSON, or an HTML page for `Accept: text/html`. Carries `Link: <…/.well-known/api-catalog>; rel=\"api-catalog\"`.",
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "The index.", MediaType: "application/json", Schema: tools.Schema[discovery.Index]()},
				{Status: http.StatusOK, Description: "The index for browsers.", MediaType: "text/html", Schema: &jsonschema.Schema{Type: "string"}},
				k.notModified,
			},
			Errors: commonErrors(),
		}, handler: s.index, class: classDocs},
		doc(docOpenAPI, "/openapi.json", "openapi", "This OpenAPI 3.1 description", "This document: every endpoint with its parameters, bodies, responses and error codes; generated from the code at start.", object("The OpenAPI document.")),
		doc(docLLMs, "/llms.txt", "llmsTxt", "Agent manual, short (llms.txt)", "What peppolgate is for and not for, and links to everything else, in the llmstxt.org format.", k.markdown("llms.txt in the llmstxt.org format.")),
		doc(docLLMsFull, "/llms-full.txt", "llmsFullTxt", "Agent manual, complete", "Generated from this description: every endpoint, parameter, response field and error code, MCP set-up for common clients, worked examples.", k.markdown("Every endpoint, parameter, field and error code, MCP set-up and examples.")),
		doc(docAPICatalog, "/.well-known/api-catalog", "apiCatalog", "API catalog (RFC 9727)", "A linkset pointing at this description, the manual and the metadata; HEAD answers with the Link header.", []discovery.Response{{Status: http.StatusOK, Description: "The linkset.", MediaType: "application/linkset+json", Schema: &jsonschema.Schema{Type: "object"}}, k.notModified}),
		doc(docProtectedResource, "/.well-known/oauth-protected-resource", "protectedResource", "Protected-resource metadata (RFC 9728)", "No authentication is needed; the document says so (agent_auth: anonymous, no credential).", object("The metadata.")),
		doc(docProtectedResourceMCP, "/.well-known/oauth-protected-resource/mcp", "protectedResourceMCP", "Protected-resource metadata of /mcp (RFC 9728)", "As /.well-known/oauth-protected-resource, for the MCP endpoint: resource is {base_url}/mcp.", object("The metadata.")),
		doc(docAuthorizationServer, "/.well-known/oauth-authorization-server", "authorizationServer", "Authorization-server metadata (RFC 8414)", "Advertises only the anonymous flow: no grant, no token endpoint.", object("The metadata.")),
	}
}
