package discovery

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
)

// indexDescription says what the service is, in the index's JSON and HTML.
const indexDescription = "peppolgate answers questions about the Peppol e-invoicing network: " +
	"can this company receive e-invoices, under which participant identifier, through which SMP " +
	"and access point. JSON over REST, MCP and plain language (POST /ask)."

// Index is the body of GET / for API clients.
type Index struct {
	// Name is the service's name, "peppolgate".
	Name string `json:"name"`
	// Version is the service version.
	Version string `json:"version"`
	// Description says what the service does.
	Description string `json:"description"`
	// Links are absolute URLs of every document and endpoint.
	Links IndexLinks `json:"links"`
}

// IndexLinks are the absolute URLs GET / points at. Participant and Search are
// example requests that work; Ask and MCP take POST only.
type IndexLinks struct {
	OpenAPI             string `json:"openapi"`
	LLMs                string `json:"llms"`
	LLMsFull            string `json:"llms_full"`
	APICatalog          string `json:"api_catalog"`
	ProtectedResource   string `json:"protected_resource"`
	AuthorizationServer string `json:"authorization_server"`
	MCP                 string `json:"mcp"`
	Ask                 string `json:"ask"`
	Participant         string `json:"participant"`
	Search              string `json:"search"`
	Health              string `json:"health"`
}

//go:embed index.html.tmpl
var indexTemplate string

// NewIndex returns the index for api. It returns documentBase's error, since every
// link is built on the base URL.
func NewIndex(api API) (Index, error) {
	base, err := documentBase(api)
	if err != nil {
		return Index{}, err
	}
	mcp := api.MCPPath
	if mcp == "" {
		mcp = "/mcp"
	}
	version := api.Version
	if version == "" {
		version = "dev"
	}
	return Index{
		Name:        "peppolgate",
		Version:     version,
		Description: indexDescription,
		Links: IndexLinks{
			OpenAPI:             base + "/openapi.json",
			LLMs:                base + "/llms.txt",
			LLMsFull:            base + "/llms-full.txt",
			APICatalog:          base + "/.well-known/api-catalog",
			ProtectedResource:   base + "/.well-known/oauth-protected-resource",
			AuthorizationServer: base + "/.well-known/oauth-authorization-server",
			MCP:                 base + mcp,
			Ask:                 base + "/ask",
			Participant:         base + "/api/v1/participant/0208:0677424046",
			Search:              base + "/api/v1/search?q=vandelanotte",
			Health:              base + "/healthz",
		},
	}, nil
}

// IndexJSON returns the body of GET / for API clients (application/json): name,
// version, description and links. It returns NewIndex's error.
func IndexJSON(api API) ([]byte, error) {
	idx, err := NewIndex(api)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("discovery: index: %w", err)
	}
	return append(b, '\n'), nil
}

// IndexHTML returns the body of GET / for browsers (text/html; charset=utf-8): plain
// semantic HTML linking every document and endpoint, with no script, style or
// external resource, so the server's Content-Security-Policy "default-src 'none'"
// holds. It returns NewIndex's error, or an error when the template fails.
func IndexHTML(api API) ([]byte, error) {
	idx, err := NewIndex(api)
	if err != nil {
		return nil, err
	}
	t, err := template.New("index").Parse(indexTemplate)
	if err != nil {
		return nil, fmt.Errorf("discovery: index template: %w", err)
	}
	var buf bytes.Buffer
	data := struct {
		Index
		Base string
	}{idx, strings.TrimSuffix(api.BaseURL, "/")}
	if err := t.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("discovery: index page: %w", err)
	}
	return buf.Bytes(), nil
}
