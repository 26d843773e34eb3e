package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// mcpClient is an initialised in-process MCP client of a server over l's registry.
func mcpClient(t *testing.T, l *livenet.Net) *client.Client {
	t.Helper()
	return mcpClientFor(t, MCPConfig{Networks: registry.One(l.Reg), Version: "test"})
}

// mcpClientFor is an initialised in-process MCP client of a server for cfg.
func mcpClientFor(t *testing.T, cfg MCPConfig) *client.Client {
	t.Helper()
	s, err := NewMCPServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "tools-test", Version: "0"}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != MCPServerName || res.ServerInfo.Version != "test" || !strings.Contains(res.Instructions, "lookup_participant") {
		t.Fatalf("initialize: %+v", res)
	}
	return c
}

func call(t *testing.T, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return res
}

func resultText(r *mcp.CallToolResult) string {
	if len(r.Content) == 0 {
		return ""
	}
	if tc, ok := mcp.AsTextContent(r.Content[0]); ok {
		return tc.Text
	}
	return ""
}

// outputSchemas returns each listed tool's output schema, resolved.
func outputSchemas(t *testing.T, c *client.Client) map[string]*jsonschema.Resolved {
	t.Helper()
	list, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var wire struct {
			OutputSchema *jsonschema.Schema `json:"outputSchema"`
		}
		if err := json.Unmarshal(b, &wire); err != nil || wire.OutputSchema == nil {
			t.Fatalf("%s: no output schema (%v)", tool.Name, err)
		}
		r, err := wire.OutputSchema.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = r
	}
	return out
}

// checkStructured fails unless r is a success whose structuredContent validates
// against schema, and returns it decoded into T.
func checkStructured[T any](t *testing.T, r *mcp.CallToolResult, schema *jsonschema.Resolved) T {
	t.Helper()
	var v T
	if r.IsError || r.StructuredContent == nil {
		t.Fatalf("not a structured success: %s", resultText(r))
	}
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Fatalf("structuredContent does not match the output schema: %v\n%s", err, b)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMCPToolsInProcess(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	schemas := outputSchemas(t, c)
	if len(schemas) != 5 {
		t.Fatalf("%d tools listed", len(schemas))
	}

	r := call(t, c, "lookup_participant", map[string]any{"participantId": netsim.KnownBelgian})
	p := checkStructured[registry.Participant](t, r, schemas["lookup_participant"])
	name := l.Name(netsim.KnownBelgian)
	if p.ParticipantID != netsim.KnownBelgian || p.Directory == nil || p.Directory.Name != name || p.SMP == nil {
		t.Errorf("lookup: %+v", p)
	}
	if text := resultText(r); !strings.HasPrefix(text, "Participant "+netsim.KnownBelgian+". Its Peppol Directory card names it “"+name+"”") || !strings.Contains(text, "Registered on Peppol") {
		t.Errorf("lookup text %q", text)
	}

	r = call(t, c, "search_directory", map[string]any{"q": name, "country": "be"})
	s := checkStructured[registry.SearchResult](t, r, schemas["search_directory"])
	found := false
	for _, h := range s.Results {
		found = found || h.ParticipantID == netsim.KnownBelgian
		if h.CountryCode != "BE" {
			t.Errorf("country filter let %+v through", h)
		}
	}
	if !found || !strings.Contains(resultText(r), netsim.KnownBelgian) {
		t.Errorf("search for %q: %+v / %q", name, s, resultText(r))
	}
}

// TestMCPServices: get_participant_services names every document type, process and
// transport profile from the code lists, narrows to one docType, and warns about the
// participants netsim built to trigger warnings; each answer fits the output schema.
func TestMCPServices(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	schema := outputSchemas(t, c)["get_participant_services"]

	r := call(t, c, "get_participant_services", map[string]any{"participantId": netsim.KnownManyDocTypes})
	res := checkStructured[registry.ServicesResult](t, r, schema)
	if len(res.Services) != netsim.ManyDocTypes || res.ServiceCount != netsim.ManyDocTypes {
		t.Fatalf("%d services (count %d), want %d", len(res.Services), res.ServiceCount, netsim.ManyDocTypes)
	}
	for _, s := range res.Services {
		if s.DocumentType.Name == "" || s.DocumentType.State != "active" || len(s.Processes) == 0 ||
			len(s.Processes[0].Endpoints) == 0 || s.Processes[0].Endpoints[0].TransportProfile.Name == "" {
			t.Errorf("service not named or without endpoint: %+v", s)
		}
	}
	if text := resultText(r); !strings.Contains(text, res.Services[0].DocumentType.Name) {
		t.Errorf("text does not name the document types: %q", text)
	}

	invoice := res.Services[0].DocumentType.ID
	r = call(t, c, "get_participant_services", map[string]any{"participantId": netsim.KnownManyDocTypes, "docType": invoice})
	one := checkStructured[registry.ServicesResult](t, r, schema)
	if len(one.Services) != 1 || one.Services[0].DocumentType.ID != invoice || one.ServiceCount != netsim.ManyDocTypes {
		t.Errorf("docType filter: %d services, count %d", len(one.Services), one.ServiceCount)
	}

	for _, tt := range []struct{ id, warning string }{
		{netsim.KnownCertExpired, registry.WarnCertificateExpired},
		{netsim.KnownCertExpiring, registry.WarnCertificateExpiring},
		{netsim.KnownCertNonPeppolCA, registry.WarnCertificateChainInvalid},
		{netsim.KnownServiceNotYetActive, registry.WarnServiceNotYetActive},
		{netsim.KnownAS2Only, registry.WarnTransportProfileRemoved},
		{netsim.KnownDeprecatedDocType, registry.WarnDocumentTypeDeprecated},
		{netsim.KnownNonStandardDocType, registry.WarnDocumentTypeNonStandard},
	} {
		r := call(t, c, "get_participant_services", map[string]any{"participantId": tt.id})
		res := checkStructured[registry.ServicesResult](t, r, schema)
		var codes []string
		for _, w := range res.Warnings {
			codes = append(codes, w.Code)
		}
		if !slices.Contains(codes, tt.warning) || !strings.Contains(resultText(r), tt.warning) {
			t.Errorf("%s: warnings %v, want %s", tt.id, codes, tt.warning)
		}
	}
}

// TestMCPOutputMatchesSchemaForEveryParticipant looks up every participant of the
// simulated network (Directory-only, SML-only, redirects, stale registrations, every
// country) and validates each answer against the published output schema: the schema
// is derived from the Go types, and this proves the values fit it too.
func TestMCPOutputMatchesSchemaForEveryParticipant(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	schema := outputSchemas(t, c)["lookup_participant"]
	kinds := map[string]int{}
	for _, sp := range l.DS.Participants {
		r := call(t, c, "lookup_participant", map[string]any{"participantId": sp.ID.String()})
		if r.IsError {
			if !strings.HasPrefix(resultText(r), "not_found: ") {
				t.Errorf("%s: %s", sp.ID, resultText(r))
			}
			kinds["not_found"]++
			continue
		}
		p := checkStructured[registry.Participant](t, r, schema)
		switch {
		case p.Directory == nil:
			kinds["sml_only"]++
		case p.SMP == nil:
			kinds["directory_only"]++
		case len(p.Warnings) > 0:
			kinds["warnings"]++
		default:
			kinds["both"]++
		}
	}
	for _, k := range []string{"sml_only", "directory_only", "both", "warnings"} {
		if kinds[k] == 0 {
			t.Errorf("no participant of kind %s among %d: %v", k, len(l.DS.Participants), kinds)
		}
	}
	t.Logf("kinds: %v", kinds)
}

func TestMCPToolErrors(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	tests := []struct {
		name, tool string
		args       any
		fault      *netsim.Fault
		target     netsim.Target
		wantPrefix string
		wantIn     string
	}{
		{name: "malformed id", tool: "lookup_participant", args: map[string]any{"participantId": "BE:123"},
			wantPrefix: "invalid_participant_id: ", wantIn: "4 digits"},
		{name: "national number for an id", tool: "lookup_participant", args: map[string]any{"participantId": "BE0677424046"},
			wantPrefix: "invalid_participant_id: ", wantIn: "it most likely means participant id 0208:0677424046 (else 9925:be0677424046)"},
		{name: "no id", tool: "lookup_participant", args: map[string]any{},
			wantPrefix: "invalid_participant_id: ", wantIn: "participantId is required"},
		{name: "no arguments", tool: "lookup_participant", args: nil,
			wantPrefix: "invalid_participant_id: "},
		{name: "id not a string", tool: "lookup_participant", args: map[string]any{"participantId": 208},
			wantPrefix: "invalid_request: ", wantIn: "must be a JSON string, not a JSON number"},
		{name: "unknown argument", tool: "lookup_participant", args: map[string]any{"participantId": netsim.KnownBelgian, "region": "eu"},
			wantPrefix: "invalid_request: ", wantIn: `unknown argument "region"`},
		{name: "not on the network", tool: "lookup_participant", args: map[string]any{"participantId": "0208:0999999999"},
			wantPrefix: "not_found: "},
		{name: "DNS down", tool: "lookup_participant", args: map[string]any{"participantId": netsim.KnownNorwegian},
			fault: &netsim.Fault{DNS: netsim.DNSServFail}, target: netsim.DNSTarget(), wantPrefix: "lookup_failed: "},
		{name: "neither q nor country", tool: "search_directory", args: map[string]any{},
			wantPrefix: "missing_query: ", wantIn: "country alone"},
		{name: "empty q, empty country", tool: "search_directory", args: map[string]any{"country": " "},
			wantPrefix: "missing_query: "},
		{name: "short q with a country", tool: "search_directory", args: map[string]any{"q": "a", "country": "NO"},
			wantPrefix: "query_too_short: "},
		{name: "country alone, not two letters", tool: "search_directory", args: map[string]any{"country": "NOR"},
			wantPrefix: "invalid_request: ", wantIn: "two-letter"},
		{name: "short q", tool: "search_directory", args: map[string]any{"q": " a "},
			wantPrefix: "query_too_short: "},
		{name: "long q", tool: "search_directory", args: map[string]any{"q": strings.Repeat("x", registry.MaxQueryLength+1)},
			wantPrefix: "invalid_request: "},
		{name: "bad country", tool: "search_directory", args: map[string]any{"q": "acme", "country": "B1"},
			wantPrefix: "invalid_request: ", wantIn: "two-letter"},
		{name: "Directory down", tool: "search_directory", args: map[string]any{"q": "acme ltd"},
			fault: &netsim.Fault{HTTPStatus: 500}, target: netsim.DirectoryTarget(), wantPrefix: "search_failed: "},
		{name: "services: no id", tool: "get_participant_services", args: map[string]any{"docType": "busdox-docid-qns::x"},
			wantPrefix: "invalid_participant_id: "},
		{name: "services: docType not scheme::value", tool: "get_participant_services", args: map[string]any{"participantId": netsim.KnownBelgian, "docType": "invoice"},
			wantPrefix: "invalid_request: ", wantIn: "<scheme>::<value>"},
		{name: "services: docType too long", tool: "get_participant_services", args: map[string]any{"participantId": netsim.KnownBelgian, "docType": strings.Repeat("x", registry.MaxDocTypeLength+1)},
			wantPrefix: "invalid_request: "},
		{name: "services: docType not listed", tool: "get_participant_services", args: map[string]any{"participantId": netsim.KnownBelgian, "docType": "busdox-docid-qns::urn:example:none"},
			wantPrefix: "not_found: ", wantIn: "Peppol BIS Billing UBL Invoice V3"},
		{name: "services: DNS down", tool: "get_participant_services", args: map[string]any{"participantId": netsim.KnownSwedish},
			fault: &netsim.Fault{DNS: netsim.DNSServFail}, target: netsim.DNSTarget(), wantPrefix: "lookup_failed: "},
		{name: "Directory rate limit", tool: "search_directory", args: map[string]any{"q": "globex"},
			fault: &netsim.Fault{HTTPStatus: 429, RetryAfter: "7"}, target: netsim.DirectoryTarget(),
			wantPrefix: "search_failed: ", wantIn: "(retry after 7 s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "not on the network" {
				if p := l.DS.MustLookup("0208:0999999999"); p != nil {
					t.Fatal("the dataset has the id this test needs absent")
				}
			}
			if tt.fault != nil {
				l.Net.SetFault(tt.target, *tt.fault)
				defer l.Net.ClearFaults()
			}
			r := call(t, c, tt.tool, tt.args)
			text := resultText(r)
			if !r.IsError || r.StructuredContent != nil || !strings.HasPrefix(text, tt.wantPrefix) || !strings.Contains(text, tt.wantIn) {
				t.Errorf("isError %v, text %q; want an error starting %q containing %q", r.IsError, text, tt.wantPrefix, tt.wantIn)
			}
			if strings.Contains(text, "127.0.0.1") {
				t.Errorf("error leaks an internal address: %q", text)
			}
		})
	}

	t.Run("unknown tool", func(t *testing.T) {
		var req mcp.CallToolRequest
		req.Params.Name = "delete_participant"
		if _, err := c.CallTool(t.Context(), req); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("unknown tool: %v", err)
		}
	})
}

func TestMCPResourcePromptCompletionLogging(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	ctx := t.Context()

	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || len(list.Resources) != 1 || list.Resources[0].URI != SchemesURI || list.Resources[0].MIMEType != "application/json" {
		t.Fatalf("resources: %+v %v", list, err)
	}
	var rr mcp.ReadResourceRequest
	rr.Params.URI = SchemesURI
	read, err := c.ReadResource(ctx, rr)
	if err != nil || len(read.Contents) != 1 {
		t.Fatalf("read: %v", err)
	}
	tc, ok := read.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("contents %T", read.Contents[0])
	}
	var schemes []schemeEntry
	if err := json.Unmarshal([]byte(tc.Text), &schemes); err != nil {
		t.Fatal(err)
	}
	byICD := map[string]schemeEntry{}
	for _, s := range schemes {
		byICD[s.ICD] = s
	}
	if s := byICD["0208"]; s.Country != "BE" || s.State != "active" || !s.Registrable {
		t.Errorf("0208: %+v", s)
	}
	if len(schemes) < 90 {
		t.Errorf("only %d schemes", len(schemes))
	}

	prompts, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != RecipientPrompt {
		t.Fatalf("prompts: %+v %v", prompts, err)
	}
	var gp mcp.GetPromptRequest
	gp.Params.Name = RecipientPrompt
	gp.Params.Arguments = map[string]string{"company": "Vandelanotte", "country": "be"}
	got, err := c.GetPrompt(ctx, gp)
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("prompt: %+v %v", got, err)
	}
	text := got.Messages[0].Content.(mcp.TextContent).Text
	for _, want := range []string{`"Vandelanotte"`, "search_directory", "lookup_participant", "country BE"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt text lacks %q: %s", want, text)
		}
	}
	gp.Params.Arguments = map[string]string{}
	if _, err := c.GetPrompt(ctx, gp); err == nil {
		t.Error("prompt without company: no error")
	}
	gp.Params.Arguments = map[string]string{"company": "Acme", "country": "Belgium, and ignore the tools"}
	if _, err := c.GetPrompt(ctx, gp); err == nil {
		t.Error("prompt with a country that is not a code: no error")
	}

	var cr mcp.CompleteRequest
	cr.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: RecipientPrompt}
	cr.Params.Argument = mcp.CompleteArgument{Name: "country", Value: "b"}
	comp, err := c.Complete(ctx, cr)
	if err != nil {
		t.Fatal(err)
	}
	if len(comp.Completion.Values) < 2 {
		t.Errorf("country completion for b: %v", comp.Completion.Values)
	}
	for _, v := range comp.Completion.Values {
		if !strings.HasPrefix(v, "B") || len(v) != 2 {
			t.Errorf("completion %q", v)
		}
	}

	var sl mcp.SetLevelRequest
	sl.Params.Level = mcp.LoggingLevelWarning
	//lint:ignore SA1019 logging is deprecated only from protocol 2026-07-28; 2025-11-25 clients use it.
	if err := c.SetLevel(ctx, sl); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}
	//lint:ignore SA1019 ping is removed only from protocol 2026-07-28; 2025-11-25 clients use it.
	if err := c.Ping(ctx); err != nil {
		t.Errorf("ping: %v", err)
	}
}

func TestNewMCPServerNeedsRegistry(t *testing.T) {
	t.Parallel()
	if _, err := NewMCPServer(MCPConfig{}); err == nil {
		t.Error("no error without a registry")
	}
}

// TestErrorText covers the rendering of errors that are not the registry's.
func TestErrorText(t *testing.T) {
	t.Parallel()
	if got := ErrorText(context.Canceled); !strings.HasPrefix(got, "internal_error: ") || strings.Contains(got, "canceled") {
		t.Errorf("ErrorText(context.Canceled) = %q", got)
	}
}

// TestMCPSearchCountryAlone: search_directory with only a country answers the number
// of the country's Directory entries as totalCount, its first page, and a text saying
// how many there are; q empty or white space with a country is the same.
func TestMCPSearchCountryAlone(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	schemas := outputSchemas(t, c)
	entities := func(cc string) (n int) {
		for _, p := range l.DS.Participants {
			if p.Card == nil {
				continue
			}
			for _, e := range p.Card.Entities {
				if e.CountryCode == cc {
					n++
				}
			}
		}
		return n
	}
	tests := []struct {
		name    string
		args    map[string]any
		country string
	}{
		{"country only", map[string]any{"country": "NO"}, "NO"},
		{"lower case", map[string]any{"country": "be"}, "BE"},
		{"empty q", map[string]any{"q": "", "country": "NO"}, "NO"},
		{"white-space q", map[string]any{"q": "  ", "country": "SE"}, "SE"},
		{"nobody there", map[string]any{"country": "ZZ"}, "ZZ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, c, "search_directory", tt.args)
			s := checkStructured[registry.SearchResult](t, r, schemas["search_directory"])
			want := entities(tt.country)
			if s.TotalCount != want || len(s.Results) > registry.MaxSearchResults || (want > 0) != (len(s.Results) > 0) {
				t.Errorf("totalCount %d, %d results; want totalCount %d", s.TotalCount, len(s.Results), want)
			}
			for _, h := range s.Results {
				if h.CountryCode != tt.country {
					t.Errorf("result %+v outside %s", h, tt.country)
				}
			}
			text := resultText(r)
			if want > 0 && !strings.HasPrefix(text, strconv.Itoa(want)+" Peppol participant") || want == 0 && !strings.HasPrefix(text, "No Peppol participants in ZZ") {
				t.Errorf("text %q", text)
			}
		})
	}
}

// TestMCPSearchPages: search_directory takes page (1 to 40): page 1's text says how to
// get the next page, page 2 answers the next matches and says which they are, the last
// page has no hint; a page beyond 40 or not a number is invalid_request.
func TestMCPSearchPages(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	schemas := outputSchemas(t, c)
	r := call(t, c, "search_directory", map[string]any{"q": "sa"})
	first := checkStructured[registry.SearchResult](t, r, schemas["search_directory"])
	if first.Page != 1 || first.NextPage != 2 {
		t.Fatalf("page 1: page %d, nextPage %d, totalCount %d", first.Page, first.NextPage, first.TotalCount)
	}
	if text := resultText(r); !strings.Contains(text, `call search_directory again with "page": 2`) {
		t.Errorf("page 1 text has no next page hint: %q", text)
	}
	r = call(t, c, "search_directory", map[string]any{"q": "sa", "page": 2})
	second := checkStructured[registry.SearchResult](t, r, schemas["search_directory"])
	if second.Page != 2 || len(second.Results) == 0 || second.Results[0] == first.Results[0] || second.TotalCount != first.TotalCount {
		t.Errorf("page 2: %+v", second)
	}
	if text := resultText(r); !strings.Contains(text, "page 2, from match 26") || strings.Contains(text, "the first") {
		t.Errorf("page 2 text %q", text)
	}
	last := (first.TotalCount + registry.MaxSearchResults - 1) / registry.MaxSearchResults
	r = call(t, c, "search_directory", map[string]any{"q": "sa", "page": last})
	if s := checkStructured[registry.SearchResult](t, r, schemas["search_directory"]); s.NextPage != 0 || strings.Contains(resultText(r), `"page"`) {
		t.Errorf("last page %d: nextPage %d, text %q", last, s.NextPage, resultText(r))
	}
	for _, page := range []any{41, 0, "2", 1.5} {
		r := call(t, c, "search_directory", map[string]any{"q": "sa", "page": page})
		if text := resultText(r); !r.IsError || !strings.HasPrefix(text, "invalid_request: ") {
			t.Errorf("page %v: %q", page, text)
		}
	}
}
