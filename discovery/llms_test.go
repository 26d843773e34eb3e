package discovery_test

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// llmsBase is the base URL of the documents under test: not localhost, so a link
// hard-wired to the default address would show.
const llmsBase = "https://peppolgate.example.org"

// llmsTestAPI is a realistic API description, built from the same schemas and tools the
// server uses, with every kind of endpoint the documents must cope with: path and
// query parameters, a POST body with alternatives, JSON and event-stream responses,
// text bodies and response headers.
func llmsTestAPI(base string) discovery.API {
	ptr := func(n int) *int { return &n }
	errs := []discovery.ErrorCode{
		{Code: registry.CodeInvalidParticipantID, Status: 400, When: "the participant id is malformed", Action: "fix the id's form and retry"},
		{Code: registry.CodeMissingQuery, Status: 400, When: "the search has no q", Action: "supply q"},
		{Code: registry.CodeQueryTooShort, Status: 400, When: "q is shorter than 2 characters", Action: "supply at least 2 characters"},
		{Code: registry.CodeInvalidRequest, Status: 400, When: "a parameter | body is invalid", Action: "fix the request as the message says"},
		{Code: registry.CodeNotFound, Status: 404, When: "the participant is not on the Peppol network", Action: "do not retry"},
		{Code: "route_not_found", Status: 404, When: "the path does not exist", Action: "use a documented path"},
		{Code: "method_not_allowed", Status: 405, When: "the method is not supported", Action: "use a method from Allow"},
		{Code: "unsupported_media_type", Status: 415, When: "the POST /ask body is not JSON", Action: "send Content-Type: application/json"},
		{Code: "rate_limited", Status: 429, When: "too many requests", Action: "wait for Retry-After seconds"},
		{Code: registry.CodeLookupFailed, Status: 502, When: "the Peppol network failed during a lookup", Action: "retry with exponential backoff"},
		{Code: registry.CodeSearchFailed, Status: 502, When: "the Directory failed", Action: "retry after Retry-After"},
		{Code: nlq.CodeAskFailed, Status: 502, When: "the Peppol network failed while answering", Action: "retry with exponential backoff"},
		{Code: "internal_error", Status: 500, When: "a bug", Action: "report the request id"},
	}
	common := []registry.Code{"route_not_found", "method_not_allowed", "rate_limited", "internal_error"}
	askBody := &jsonschema.Schema{
		Type:     "object",
		Required: []string{"query"},
		Properties: map[string]*jsonschema.Schema{
			"query": {
				Description: "the question",
				AnyOf: []*jsonschema.Schema{
					{Type: "string", MinLength: ptr(1), MaxLength: ptr(500)},
					{Type: "object", Required: []string{"text"}, Properties: map[string]*jsonschema.Schema{
						"text": {Type: "string", Description: "the question (NLWeb form)"},
					}},
				},
			},
			"prefer": {Type: "object", Properties: map[string]*jsonschema.Schema{
				"streaming": {Type: "boolean", Description: "answer as server-sent events"},
			}},
		},
	}
	return discovery.API{
		BaseURL: base,
		Version: "1.2.3",
		MCPPath: "/mcp",
		Tools:   tools.All(),
		Errors:  errs,
		Limits: []string{
			"q is at most 200 characters; a search answers at most 25 results.",
			"The Peppol Directory is queried at most 2 times a second; beyond that, search_failed with Retry-After.",
		},
		Endpoints: []discovery.Endpoint{
			{
				Method: "GET", Path: "/api/v1/participant/{participantId}", OperationID: "getParticipant",
				Summary: "Look up a participant", Description: "The participant's Directory card and SMP record.",
				Tag: "participants",
				Params: []discovery.Param{{Name: "participantId", In: "path", Required: true,
					Description: "<scheme>:<value>", Schema: &jsonschema.Schema{Type: "string", Pattern: tools.ParticipantIDPattern},
					Example: "0208:0677424046"}},
				Responses: []discovery.Response{{Status: 200, Description: "the participant", MediaType: "application/json",
					Schema: tools.ParticipantSchema(), Example: map[string]any{"participantId": "0208:0677424046", "directory": nil, "smp": nil}}},
				Errors:  append([]registry.Code{registry.CodeInvalidParticipantID, registry.CodeNotFound, registry.CodeLookupFailed}, common...),
				Headers: map[string]string{"X-Cache": "miss, hit or stale", "Cache-Control": "the cache policy", "Age": "seconds since fetched"},
			},
			{
				Method: "GET", Path: "/api/v1/search", OperationID: "search", Summary: "Search the Peppol Directory", Tag: "participants",
				Params: []discovery.Param{
					{Name: "q", In: "query", Required: true, Description: "a name or number",
						Schema: &jsonschema.Schema{Type: "string", MinLength: ptr(2), MaxLength: ptr(200)}, Example: "BE 0677.424.046"},
					{Name: "country", In: "query", Description: "ISO 3166 alpha-2",
						Schema: &jsonschema.Schema{Type: "string", Pattern: tools.CountryPattern}, Example: "BE"},
				},
				Responses: []discovery.Response{{Status: 200, Description: "matches", MediaType: "application/json", Schema: tools.SearchResultSchema()}},
				Errors:    append([]registry.Code{registry.CodeMissingQuery, registry.CodeQueryTooShort, registry.CodeInvalidRequest, registry.CodeSearchFailed}, common...),
			},
			{
				Method: "POST", Path: "/ask", OperationID: "ask", Summary: "Ask in plain language", Tag: "ask",
				Body: &discovery.Body{Required: true, Description: "the question", MediaTypes: []string{"application/json"}, Schema: askBody,
					Examples: map[string]any{"plain": map[string]any{"query": "Can Vandelanotte's invoices arrive?"},
						"nlweb": map[string]any{"query": map[string]any{"text": "who is 0208:0677424046"}, "prefer": map[string]any{"streaming": true}}}},
				Responses: []discovery.Response{
					{Status: 200, Description: "the answer", MediaType: "application/json", Schema: tools.Schema[nlq.Answer]()},
					{Status: 200, Description: "the answer as events", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"},
						Example: "event: start\ndata: {}\n",
						Events: []discovery.Event{
							{Name: "start", Description: "first", Schema: tools.Schema[nlq.StartEvent]()},
							{Name: "result", Description: "one per item", Schema: tools.Schema[nlq.ResultEvent]()},
							{Name: "complete", Description: "last", Schema: tools.Schema[nlq.CompleteEvent]()},
						}},
				},
				Errors: append([]registry.Code{registry.CodeInvalidRequest, "unsupported_media_type", nlq.CodeAskFailed}, common...),
			},
			{Method: "GET", Path: "/llms.txt", OperationID: "llmsTxt", Summary: "The llms.txt index", Tag: "discovery",
				Responses: []discovery.Response{{Status: 200, Description: "Markdown", MediaType: "text/markdown"}}},
			{Method: "GET", Path: "/.well-known/api-catalog", OperationID: "apiCatalog", Summary: "The API catalog", Tag: "discovery",
				Responses: []discovery.Response{{Status: 200, Description: "linkset", MediaType: "application/linkset+json"}}},
			{Method: "HEAD", Path: "/.well-known/api-catalog", OperationID: "apiCatalogHead", Summary: "The API catalog's Link header", Tag: "discovery",
				Responses: []discovery.Response{{Status: 200, Description: "no body"}}},
			{Method: "GET", Path: "/healthz", OperationID: "healthz", Summary: "Liveness", Tag: "health",
				Responses: []discovery.Response{{Status: 200, Description: "ok", MediaType: "text/plain", Example: "ok\n"}}},
		},
	}
}

// llmsLink is a llms.txt file-list item: "- [name](url)" with an optional ": notes".
var llmsLink = regexp.MustCompile(`^- \[([^\]]+)\]\(([^)\s]+)\)(: \S.*)?$`)

// llmsURL finds absolute URLs in running text.
var llmsURL = regexp.MustCompile(`https?://[^\s)"'<>` + "`" + `]+`)

func TestLLMsTxt(t *testing.T) {
	for _, base := range []string{llmsBase, "http://127.0.0.1:8080", "https://example.org/peppol/"} {
		t.Run(base, func(t *testing.T) {
			b, err := discovery.LLMsTxt(llmsTestAPI(base))
			if err != nil {
				t.Fatal(err)
			}
			doc := string(b)
			trimmed := strings.TrimSuffix(base, "/")
			if strings.Contains(doc, "{base_url}") || strings.Contains(doc, "{tools}") {
				t.Error("a {base_url} or {tools} is left")
			}
			for _, tl := range tools.All() {
				if !strings.Contains(doc, tl.Name) {
					t.Errorf("llms.txt does not name the tool %s", tl.Name)
				}
			}
			lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "# ") || strings.TrimSpace(lines[0][2:]) == "" {
				t.Fatalf("first line %q is not an H1", lines[0])
			}
			var sections []string
			summary, links := false, 0
			for i, l := range lines[1:] {
				n := i + 2
				switch {
				case strings.HasPrefix(l, "# "):
					t.Errorf("line %d: a second H1", n)
				case strings.HasPrefix(l, "## "):
					sections = append(sections, strings.TrimPrefix(l, "## "))
				case strings.HasPrefix(l, "#"):
					t.Errorf("line %d: only H1 and H2 headings belong in llms.txt: %q", n, l)
				case len(sections) == 0:
					// Before the first H2: the blockquote and paragraphs, no lists.
					if strings.HasPrefix(l, "> ") {
						summary = true
					}
					if strings.HasPrefix(l, "- ") {
						t.Errorf("line %d: a list before the first section", n)
					}
				case l == "":
				default:
					m := llmsLink.FindStringSubmatch(l)
					if m == nil {
						t.Errorf("line %d in section %q is not a link item: %q", n, sections[len(sections)-1], l)
						continue
					}
					links++
					u, err := url.Parse(m[2])
					if err != nil || !u.IsAbs() {
						t.Errorf("line %d: link %q is not absolute", n, m[2])
					}
					if m[2] != trimmed+"/" && !strings.HasPrefix(m[2], trimmed+"/") {
						t.Errorf("line %d: link %q is not on %s", n, m[2], trimmed)
					}
				}
			}
			if !summary {
				t.Error("no '> ' summary before the first section")
			}
			if links == 0 {
				t.Error("no links")
			}
			for _, want := range []string{"Docs", "API", "MCP", "Optional"} {
				if !slices.Contains(sections, want) {
					t.Errorf("no section %q; sections: %q", want, sections)
				}
			}
			for _, u := range llmsURL.FindAllString(doc, -1) {
				if !strings.HasPrefix(u, trimmed+"/") {
					t.Errorf("URL %q is not on %s", u, trimmed)
				}
				if strings.Contains(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "//") {
					t.Errorf("URL %q has an empty path segment", u)
				}
			}
			for _, want := range []string{"/llms-full.txt", "/openapi.json", "/.well-known/api-catalog", "/api/v1/participant/", "/api/v1/search?", "/ask", "/mcp", "/healthz"} {
				if !strings.Contains(doc, trimmed+want) {
					t.Errorf("%s%s is not mentioned", trimmed, want)
				}
			}
		})
	}
}

// TestDocumentsNeedAbsoluteBaseURL: every document links with absolute URLs, so none
// is made without an absolute http(s) base URL.
func TestDocumentsNeedAbsoluteBaseURL(t *testing.T) {
	for _, base := range []string{"", "/relative", "localhost:8080", "ftp://example.org", "https://"} {
		for name, f := range map[string]func(discovery.API) ([]byte, error){
			"llms.txt": discovery.LLMsTxt, "llms-full.txt": discovery.LLMsFullTxt,
			"index.json": discovery.IndexJSON, "index.html": discovery.IndexHTML,
		} {
			if b, err := f(llmsTestAPI(base)); err == nil {
				t.Errorf("%s with base URL %q: no error, %d bytes", name, base, len(b))
			}
		}
	}
}

func TestLLMsFullTxt(t *testing.T) {
	api := llmsTestAPI(llmsBase)
	b, err := discovery.LLMsFullTxt(api)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if !strings.HasPrefix(doc, "# peppolgate\n\n> ") {
		t.Errorf("does not start with an H1 and a blockquote: %.60q", doc)
	}
	if n := strings.Count(doc, "```"); n%2 != 0 {
		t.Errorf("%d code fences: one is not closed", n)
	}
	var want []string
	for _, ep := range api.Endpoints {
		want = append(want, "### "+ep.Method+" "+ep.Path+"\n")
		for _, p := range ep.Params {
			want = append(want, "`"+p.Name+"` ("+p.In)
		}
		for _, c := range ep.Errors {
			want = append(want, fmt.Sprintf("`%s` (", c))
		}
		for h := range ep.Headers {
			want = append(want, "`"+h+"`")
		}
	}
	for _, e := range api.Errors {
		want = append(want, fmt.Sprintf("| `%s` | %d ", e.Code, e.Status))
	}
	want = append(want, api.Limits...)
	for _, tl := range api.Tools {
		want = append(want, "#### "+tl.Name+"\n", "Result (`structuredContent`): the same schema as the 200 body of GET /api/v1/")
	}
	want = append(want,
		// Response fields, nested, with their nullability from the schema.
		"- `directory` (object or null): ", "- `smp.endpoint.certificate.sha256` (string): ",
		"- `smp.endpoint.activationDate` (string (date-time) or null): ", "- `directory.entities[].names[].name` (string): ",
		"- `warnings` (array of object, may be absent): ", "- `results[].participantId` (string): ",
		// Request body fields of both shapes, and each event's fields.
		"- `query` (string | object, required): ", "- `query.text` (string, required): ", "- `prefer.streaming` (boolean, optional): ",
		"Event `start`: first.\n", "Event `complete`: last.\n", "- `item.peppol.canReceive` (boolean or null, may be absent): ",
		"- `total_items` (integer): ", "- `error.code` (string): ", "as string: 1 to 500 characters",
		// Tool arguments with their rules.
		"- `participantId` (string, required): ", "- `country` (string, optional): ",
		// Parameter rules and examples.
		"Rules: pattern `"+tools.ParticipantIDPattern+"`.", "Rules: 2 to 200 characters. Example: `BE 0677.424.046`.",
		// MCP set-up for the common clients, on the base URL.
		"claude mcp add --transport http peppolgate "+llmsBase+"/mcp", "Claude Desktop", "\"url\": \""+llmsBase+"/mcp\"", "Cursor",
		// Worked examples, query values escaped, bodies quoted for the shell.
		"curl -s '"+llmsBase+"/api/v1/participant/0208:0677424046'",
		"curl -s '"+llmsBase+"/api/v1/search?q=BE+0677.424.046&country=BE'",
		`-d '{"query":"Can Vandelanotte'\''s invoices arrive?"}'`, "curl -s -N '"+llmsBase+"/ask' -H 'Content-Type: application/json' -H 'Accept: text/event-stream'",
		"## When not to use this service", "not a Peppol access point",
	)
	for _, w := range want {
		if !strings.Contains(doc, w) {
			t.Errorf("llms-full.txt does not contain %q", w)
		}
	}
	if strings.Contains(doc, "curl -s '"+llmsBase+"/healthz'") {
		t.Error("worked examples include the health endpoint")
	}
	again, err := discovery.LLMsFullTxt(api)
	if err != nil || string(again) != doc {
		t.Error("a second call gives other bytes")
	}
}

func TestLLMsFullTxtUnknownErrorCode(t *testing.T) {
	api := llmsTestAPI(llmsBase)
	api.Endpoints[0].Errors = append(slices.Clone(api.Endpoints[0].Errors), "no_such_code")
	if _, err := discovery.LLMsFullTxt(api); err == nil || !strings.Contains(err.Error(), "no_such_code") {
		t.Errorf("err = %v, want one naming no_such_code", err)
	}
}

// TestLLMsFullTxtAlternatives: a body that is one of several shapes lists each shape's
// fields on its own, and the curl examples are left out for methods curl examples do
// not cover.
func TestLLMsFullTxtAlternatives(t *testing.T) {
	api := discovery.API{BaseURL: llmsBase, Endpoints: []discovery.Endpoint{{
		Method: "DELETE", Path: "/thing", Summary: "Delete a thing",
		Responses: []discovery.Response{{Status: 200, MediaType: "application/json", Schema: &jsonschema.Schema{OneOf: []*jsonschema.Schema{
			{Description: "a deleted thing", Type: "object", Properties: map[string]*jsonschema.Schema{"id": {Type: "integer"}}},
			{Description: "a refusal", Type: "object", Properties: map[string]*jsonschema.Schema{"reason": {Type: "string", Enum: []any{"busy", "gone"}}}},
		}}}},
	}}}
	b, err := discovery.LLMsFullTxt(api)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, w := range []string{"Shape 1: a deleted thing\n\nFields:\n\n- `id` (integer, may be absent).\n", "Shape 2: a refusal\n", "- `reason` (string, may be absent). Rules: one of `\"busy\"`, `\"gone\"`."} {
		if !strings.Contains(doc, w) {
			t.Errorf("no %q in\n%s", w, doc)
		}
	}
	if strings.Contains(doc, "curl") || strings.Contains(doc, "## Worked examples") {
		t.Error("worked examples for a DELETE")
	}
}
