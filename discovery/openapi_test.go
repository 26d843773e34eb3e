package discovery

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// testAPI is a small hand-made API with what the real one has: a path parameter, a
// query, a JSON body in two media types, a response in JSON and as an event stream,
// a text response, a response without body, and errors sharing a status.
func testAPI() API {
	idSchema := &jsonschema.Schema{Type: "string", Pattern: tools.ParticipantIDPattern, MinLength: ptr(6), MaxLength: ptr(150)}
	return API{
		BaseURL: "http://127.0.0.1:8080",
		Version: "v1.2.3",
		Errors: []ErrorCode{
			{Code: registry.CodeInvalidParticipantID, Status: 400, When: "the id is malformed", Action: "fix it"},
			{Code: registry.CodeInvalidRequest, Status: 400, When: "a parameter is invalid", Action: "fix it"},
			{Code: registry.CodeMissingQuery, Status: 400, When: "q is missing", Action: "supply q"},
			{Code: registry.CodeNotFound, Status: 404, When: "not on Peppol", Action: "do not retry"},
			{Code: "route_not_found", Status: 404, When: "no such path", Action: "use a documented path"},
			{Code: "method_not_allowed", Status: 405, When: "wrong method", Action: "use a method from Allow"},
			{Code: "rate_limited", Status: 429, When: "too many requests", Action: "wait"},
			{Code: registry.CodeLookupFailed, Status: 502, When: "the network failed", Action: "retry"},
			{Code: nlq.CodeAskFailed, Status: 502, When: "the network failed while answering", Action: "retry"},
		},
		Endpoints: []Endpoint{
			{
				Method: "GET", Path: "/api/v1/participant/{participantId}", OperationID: "getParticipant",
				Summary: "Look up a participant", Description: "Looks it up.", Tag: "participants",
				Params: []Param{{Name: "participantId", In: "path", Required: true, Description: "the id",
					Schema: idSchema, Example: "0208:0677424046"}},
				Responses: []Response{{Status: 200, Description: "the participant", MediaType: "application/json",
					Schema: tools.ParticipantSchema()}, {Status: 503, Description: "busy", MediaType: "text/plain"}},
				Errors:  []registry.Code{registry.CodeInvalidParticipantID, registry.CodeNotFound, registry.CodeLookupFailed, "rate_limited", "method_not_allowed"},
				Headers: map[string]string{"Cache-Control": "how long it may be cached"},
			},
			{
				Method: "GET", Path: "/api/v1/search", OperationID: "searchParticipants",
				Summary: "Search", Tag: "participants",
				Params: []Param{{Name: "q", In: "query", Required: true, Description: "what to search",
					Schema: &jsonschema.Schema{Type: "string", MinLength: ptr(2), MaxLength: ptr(200)}, Example: "acme"}},
				Responses: []Response{{Status: 200, Description: "matches", MediaType: "application/json",
					Schema: tools.SearchResultSchema()}},
				Errors: []registry.Code{registry.CodeMissingQuery, registry.CodeInvalidRequest},
			},
			{
				Method: "POST", Path: "/ask", OperationID: "ask", Summary: "Ask", Tag: "ask",
				Body: &Body{Required: true, Description: "the question", MediaTypes: []string{"application/json", "text/plain"},
					Schema: tools.Schema[struct {
						Query string `json:"query"`
					}](),
					Examples: map[string]any{"simple": map[string]any{"query": "Is 0208:0677424046 on Peppol?"}}},
				Responses: []Response{
					{Status: 200, Description: "the answer", MediaType: "application/json", Schema: tools.Schema[nlq.Answer]()},
					{Status: 200, Description: "the answer as events", MediaType: "text/event-stream", Events: []Event{
						{Name: "start", Description: "first", Schema: tools.Schema[nlq.StartEvent]()},
						{Name: "result", Description: "one per item", Schema: tools.Schema[nlq.ResultEvent]()},
						{Name: "complete", Description: "last", Schema: tools.Schema[nlq.CompleteEvent]()},
					}},
				},
				Errors: []registry.Code{registry.CodeInvalidRequest, nlq.CodeAskFailed},
			},
			{
				Method: "GET", Path: "/llms.txt", OperationID: "getLlmsTxt", Summary: "llms.txt", Tag: "discovery",
				Responses: []Response{{Status: 200, Description: "the file", MediaType: "text/markdown", Example: "# peppolgate\n"}},
			},
			{
				Method: "HEAD", Path: "/llms.txt", OperationID: "headLlmsTxt", Summary: "llms.txt headers", Tag: "discovery",
				Responses: []Response{{Status: 200, Description: "no body"}},
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// load generates the document of api and loads and validates it with kin-openapi.
func load(t *testing.T, api API) (*openapi3.T, []byte) {
	t.Helper()
	raw, err := OpenAPI(api)
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, raw)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	return doc, raw
}

func TestOpenAPIValidates(t *testing.T) {
	doc, raw := load(t, testAPI())
	if doc.OpenAPI != "3.1.0" || doc.Info.Title != "peppolgate" || doc.Info.Version != "v1.2.3" {
		t.Errorf("openapi %q, info %q %q", doc.OpenAPI, doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://127.0.0.1:8080" {
		t.Errorf("servers = %v", doc.Servers)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	if string(top["security"]) != "[]" {
		t.Errorf("security = %s, want []", top["security"])
	}
	if !strings.HasSuffix(string(raw), "}\n") || strings.Contains(string(raw), `\u003c`) {
		t.Errorf("document must end in a newline and not escape '<'")
	}
	again, err := OpenAPI(testAPI())
	if err != nil || string(again) != string(raw) {
		t.Errorf("a second run gave different bytes (%v)", err)
	}
}

// TestOpenAPIOperations checks each endpoint is its operation with its parameters,
// body and success responses.
func TestOpenAPIOperations(t *testing.T) {
	api := testAPI()
	doc, _ := load(t, api)
	for _, e := range api.Endpoints {
		op := doc.Paths.Find(e.Path).GetOperation(e.Method)
		if op == nil {
			t.Errorf("%s %s: no operation", e.Method, e.Path)
			continue
		}
		if op.OperationID != e.OperationID || op.Summary != e.Summary || !slices.Equal(op.Tags, []string{e.Tag}) {
			t.Errorf("%s: operationId %q, summary %q, tags %v", e.OperationID, op.OperationID, op.Summary, op.Tags)
		}
		if len(op.Parameters) != len(e.Params) {
			t.Errorf("%s: %d parameters, want %d", e.OperationID, len(op.Parameters), len(e.Params))
		}
		for i, p := range e.Params {
			if i >= len(op.Parameters) {
				break
			}
			got := op.Parameters[i].Value
			if got.Name != p.Name || got.In != p.In || got.Required != p.Required || got.Example != p.Example {
				t.Errorf("%s: parameter %+v, want %+v", e.OperationID, got, p)
			}
			if s := got.Schema.Value; s.Pattern != p.Schema.Pattern || s.MinLength != uint64(*p.Schema.MinLength) {
				t.Errorf("%s: parameter %s schema %+v lost its pattern or limits", e.OperationID, p.Name, s)
			}
		}
		if (op.RequestBody != nil) != (e.Body != nil) {
			t.Errorf("%s: request body %v, want %v", e.OperationID, op.RequestBody, e.Body)
		}
		if e.Body != nil {
			for _, mt := range e.Body.MediaTypes {
				if op.RequestBody.Value.Content.Get(mt) == nil {
					t.Errorf("%s: request body has no %s", e.OperationID, mt)
				}
			}
		}
		for _, r := range e.Responses {
			resp := op.Responses.Status(r.Status)
			if resp == nil {
				t.Errorf("%s: no %d response", e.OperationID, r.Status)
				continue
			}
			if r.MediaType == "" {
				if len(resp.Value.Content) != 0 {
					t.Errorf("%s: %d has content %v, want none", e.OperationID, r.Status, resp.Value.Content)
				}
				continue
			}
			if resp.Value.Content.Get(r.MediaType) == nil {
				t.Errorf("%s: %d has no %s", e.OperationID, r.Status, r.MediaType)
			}
			for name := range e.Headers {
				if has := resp.Value.Headers[name] != nil; has != (r.Status/100 == 2) {
					t.Errorf("%s: %d documents header %s: %v; want it on 2xx only", e.OperationID, r.Status, name, has)
				}
			}
		}
	}
}

// TestOpenAPIErrorCodes checks each operation's error responses: one per status its
// codes have, each enumerating exactly the operation's codes with that status.
func TestOpenAPIErrorCodes(t *testing.T) {
	api := testAPI()
	doc, _ := load(t, api)
	status := map[registry.Code]int{}
	for _, e := range api.Errors {
		status[e.Code] = e.Status
	}
	for _, e := range api.Endpoints {
		op := doc.Paths.Find(e.Path).GetOperation(e.Method)
		want := map[int][]string{}
		for _, c := range e.Errors {
			want[status[c]] = append(want[status[c]], string(c))
		}
		for code := range op.Responses.Map() {
			n, _ := json.Number(code).Int64()
			if n < 400 || slices.ContainsFunc(e.Responses, func(r Response) bool { return r.Status == int(n) }) {
				continue
			}
			if _, ok := want[int(n)]; !ok {
				t.Errorf("%s: undocumented error status %s", e.OperationID, code)
			}
		}
		for st, codes := range want {
			resp := op.Responses.Status(st)
			if resp == nil {
				t.Errorf("%s: no %d response", e.OperationID, st)
				continue
			}
			mt := resp.Value.Content.Get("application/json")
			if mt == nil {
				t.Errorf("%s: %d has no JSON body", e.OperationID, st)
				continue
			}
			got := errorEnum(t, mt.Schema.Value)
			slices.Sort(codes)
			if !slices.Equal(got, codes) {
				t.Errorf("%s: %d codes %v, want %v", e.OperationID, st, got, codes)
			}
			for _, c := range codes {
				if !strings.Contains(*resp.Value.Description, "`"+c+"`") {
					t.Errorf("%s: %d description does not name %s", e.OperationID, st, c)
				}
			}
			hasRetry := resp.Value.Headers["Retry-After"] != nil
			if hasRetry != (st == 429 || st == 502) {
				t.Errorf("%s: %d Retry-After documented: %v", e.OperationID, st, hasRetry)
			}
			if hasAllow := resp.Value.Headers["Allow"] != nil; hasAllow != (st == http.StatusMethodNotAllowed) {
				t.Errorf("%s: %d Allow documented: %v", e.OperationID, st, hasAllow)
			}
		}
	}
}

// errorEnum returns the codes the error response schema s narrows error.code to.
func errorEnum(t *testing.T, s *openapi3.Schema) []string {
	t.Helper()
	var got []string
	for _, part := range s.AllOf {
		code := part.Value.Properties["error"]
		if code == nil || part.Ref != "" {
			continue
		}
		if c := code.Value.Properties["code"]; c != nil {
			for _, v := range c.Value.Enum {
				got = append(got, v.(string))
			}
		}
	}
	slices.Sort(got)
	return got
}

// TestOpenAPIComponents checks the shared schemas are components under their Go
// types' names, the event stream names its events, and the error object lists every
// code of the table.
func TestOpenAPIComponents(t *testing.T) {
	api := testAPI()
	doc, _ := load(t, api)
	for _, name := range []string{"Participant", "SearchResult", "AskAnswer", "AskStartEvent", "AskResultEvent", "AskCompleteEvent", "AskRequest", "Error"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("components/schemas has no %s", name)
		}
	}
	op := doc.Paths.Find("/ask").GetOperation("POST")
	ok := op.Responses.Status(200).Value
	if ok.Content.Get("application/json").Schema.Ref != "#/components/schemas/AskAnswer" {
		t.Errorf("/ask JSON schema is %v", ok.Content.Get("application/json").Schema.Ref)
	}
	stream := ok.Content.Get("text/event-stream")
	events, _ := stream.Extensions["x-events"].(map[string]any)
	for _, ev := range []string{"start", "result", "complete"} {
		e, _ := events[ev].(map[string]any)
		schema, _ := e["schema"].(map[string]any)
		if schema["$ref"] != "#/components/schemas/Ask"+upperFirst(ev)+"Event" {
			t.Errorf("x-events.%s = %v", ev, e)
		}
		if !strings.Contains(stream.Schema.Value.Description, "`"+ev+"`") {
			t.Errorf("event stream description does not name %s", ev)
		}
	}
	var all []string
	for _, e := range api.Errors {
		all = append(all, string(e.Code))
	}
	slices.Sort(all)
	var got []string
	for _, v := range doc.Components.Schemas["Error"].Value.Properties["error"].Value.Properties["code"].Value.Enum {
		got = append(got, v.(string))
	}
	if !slices.Equal(got, all) {
		t.Errorf("Error codes %v, want %v", got, all)
	}
	if doc.Components.Responses["RouteNotFound"] == nil {
		t.Errorf("components/responses has no RouteNotFound")
	}
}

// TestOpenAPIDefs checks that a schema with $defs still resolves: its definitions
// become components and its references point there.
func TestOpenAPIDefs(t *testing.T) {
	api := testAPI()
	api.Endpoints[1].Responses[0].Schema = &jsonschema.Schema{
		Type:       "object",
		Defs:       map[string]*jsonschema.Schema{"hit": {Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}}},
		Properties: map[string]*jsonschema.Schema{"results": {Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/hit"}}},
	}
	doc, raw := load(t, api)
	if doc.Components.Schemas["Hit"] == nil || strings.Contains(string(raw), "$defs") {
		t.Errorf("$defs not moved to components:\n%s", raw)
	}
}

func TestOpenAPIErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*API)
		want   string
	}{
		{"no base URL", func(a *API) { a.BaseURL = "" }, "base URL"},
		{"unknown code", func(a *API) { a.Endpoints[0].Errors = append(a.Endpoints[0].Errors, "nope") }, "not in the error table"},
		{"duplicate operation id", func(a *API) { a.Endpoints[1].OperationID = "getParticipant" }, "used twice"},
		{"duplicate route", func(a *API) { a.Endpoints[1].Path, a.Endpoints[1].OperationID = a.Endpoints[0].Path, "x" }, "described twice"},
		{"duplicate code", func(a *API) { a.Errors = append(a.Errors, a.Errors[0]) }, "listed twice"},
		{"status clash", func(a *API) { a.Endpoints[0].Responses[0].Status = 404 }, "both a success and an error"},
	}
	for _, tt := range tests {
		api := testAPI()
		tt.change(&api)
		if _, err := OpenAPI(api); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestOpenAPIComponentsReferenced checks every schema component is referred to, so
// the document carries nothing unused (Redocly's no-unused-components rule is off in
// e2e/openapi/redocly.yaml because of the shared responses, which no operation can
// refer to).
func TestOpenAPIComponentsReferenced(t *testing.T) {
	_, raw := load(t, testAPI())
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Components.Schemas) == 0 {
		t.Fatal("no schema components")
	}
	for name := range doc.Components.Schemas {
		if !strings.Contains(string(raw), `"$ref": "#/components/schemas/`+name+`"`) {
			t.Errorf("components/schemas/%s is never referred to", name)
		}
	}
}

// TestOpenAPIExamples checks the captured examples reach the operations they belong
// to, with the base URL put in, and that each error example is of its file's code.
func TestOpenAPIExamples(t *testing.T) {
	api := testAPI()
	doc, raw := load(t, api) // load validates every example against its schema
	if strings.Contains(string(raw), baseURLPlaceholder) {
		t.Errorf("the document still has %s", baseURLPlaceholder)
	}
	part, _ := doc.Paths.Find("/api/v1/participant/{participantId}").Get.Responses.Status(200).Value.Content.Get("application/json").Example.(map[string]any)
	if part["participantId"] != "0208:0677424046" {
		t.Errorf("getParticipant example: %v", part)
	}
	ok := doc.Paths.Find("/ask").Post.Responses.Status(200).Value.Content
	answer, _ := ok.Get("application/json").Example.(map[string]any)
	results, _ := answer["results"].([]any)
	if len(results) == 0 || !strings.HasPrefix(results[0].(map[string]any)["url"].(string), api.BaseURL+"/api/v1/participant/") {
		t.Errorf("ask example results: %v", answer["results"])
	}
	if stream, _ := ok.Get("text/event-stream").Example.(string); !strings.HasPrefix(stream, "event: start\n") || !strings.Contains(stream, api.BaseURL) {
		t.Errorf("ask event stream example: %q", stream)
	}
	notFound := doc.Paths.Find("/api/v1/participant/{participantId}").Get.Responses.Status(404).Value.Content.Get("application/json")
	if ex := notFound.Examples["not_found"]; ex == nil {
		t.Errorf("no not_found example on 404: %v", notFound.Examples)
	}

	files, err := examples.ReadDir("examples")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples embedded: %v", err)
	}
	b, err := newOpenAPIBuilder(api)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		// <op>.<code>.json or error.<code>.json: an error body of that code.
		_, code, _ := strings.Cut(strings.TrimSuffix(f.Name(), ".json"), ".")
		isError := strings.HasSuffix(f.Name(), ".json") && (code[0] < '0' || code[0] > '9')
		v, err := b.example(f.Name())
		if err != nil || v == nil {
			t.Errorf("%s: %v %v", f.Name(), v, err)
			continue
		}
		if !isError {
			continue
		}
		e, _ := v.(map[string]any)["error"].(map[string]any)
		if e["code"] != code || e["message"] == "" {
			t.Errorf("%s holds %v", f.Name(), v)
		}
	}
}
