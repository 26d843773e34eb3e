package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestNetworkParameter: ?network=test answers from the test network (its
// participants are not on production, and production's are not on test), the default
// from production, every answer names the network that answered, and an unknown or
// not offered network is 400 invalid_request naming the offered ones. Every response
// goes through the OpenAPI validator (startE2E).
func TestNetworkParameter(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	testName := firstName(t, netsim.Generate(netsim.DatasetConfig{Seed: 1, Network: netsim.NetworkTest, Now: datasetNow}), netsim.TestKnownInvoice)
	prodName := firstName(t, e.ds, netsim.KnownBelgian)
	tests := []struct {
		name        string
		path        string
		wantStatus  int
		wantNetwork string
		// wantName is the Directory name a lookup answers, or a search's first result.
		wantName, wantFirst string
		wantServices        int
		wantError           string
	}{
		{name: "test participant on test", path: "/api/v1/participant/" + netsim.TestKnownInvoice + "?network=test",
			wantStatus: 200, wantNetwork: "test", wantName: testName},
		{name: "network in any case", path: "/api/v1/participant/" + netsim.TestKnownInvoice + "?network=Test",
			wantStatus: 200, wantNetwork: "test", wantName: testName},
		{name: "test participant on the default", path: "/api/v1/participant/" + netsim.TestKnownInvoice,
			wantStatus: 404, wantError: "not_found"},
		{name: "test participant on production", path: "/api/v1/participant/" + netsim.TestKnownInvoice + "?network=production",
			wantStatus: 404, wantError: "not_found"},
		{name: "production participant by default", path: "/api/v1/participant/" + netsim.KnownBelgian,
			wantStatus: 200, wantNetwork: "production", wantName: prodName},
		{name: "empty network is the default", path: "/api/v1/participant/" + netsim.KnownBelgian + "?network=",
			wantStatus: 200, wantNetwork: "production", wantName: prodName},
		{name: "production participant on test", path: "/api/v1/participant/" + netsim.KnownBelgian + "?network=test",
			wantStatus: 404, wantError: "not_found"},
		{name: "services on test", path: "/api/v1/participant/" + netsim.TestKnownGLN + "/services?network=test",
			wantStatus: 200, wantNetwork: "test", wantServices: 3},
		{name: "services on the default", path: "/api/v1/participant/" + netsim.TestKnownGLN + "/services",
			wantStatus: 404, wantError: "not_found"},
		{name: "search on test", path: "/api/v1/search?q=" + url.QueryEscape(testName) + "&network=test",
			wantStatus: 200, wantNetwork: "test", wantFirst: netsim.TestKnownInvoice},
		{name: "search on the default", path: "/api/v1/search?q=" + url.QueryEscape(prodName),
			wantStatus: 200, wantNetwork: "production", wantFirst: netsim.KnownBelgian},
		{name: "unknown network", path: "/api/v1/participant/" + netsim.KnownBelgian + "?network=staging",
			wantStatus: 400, wantError: `invalid_request: network "staging" is unknown; this server offers production, test`},
		{name: "network not offered", path: "/api/v1/participant/" + netsim.KnownBelgian + "/services?network=demo",
			wantStatus: 400, wantError: `invalid_request: network "demo" is not offered by this server; it offers production, test`},
		{name: "search on an unknown network", path: "/api/v1/search?q=acme&network=prod",
			wantStatus: 400, wantError: `invalid_request: network "prod" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := e.get(t, tt.path)
			a := decodeAnswerLoosely(t, body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantError != "" {
				if a.Error == nil || !strings.HasPrefix(a.Error.Code+": "+a.Error.Message, tt.wantError) {
					t.Errorf("error %s, want %q", body, tt.wantError)
				}
				return
			}
			if a.Network != tt.wantNetwork {
				t.Errorf("network %q, want %q", a.Network, tt.wantNetwork)
			}
			if tt.wantName != "" && (a.Directory == nil || a.Directory.Name != tt.wantName) {
				t.Errorf("directory %+v, want %q", a.Directory, tt.wantName)
			}
			if tt.wantServices != 0 && len(a.Services) != tt.wantServices {
				t.Errorf("%d services, want %d", len(a.Services), tt.wantServices)
			}
			if tt.wantFirst != "" && (len(a.Results) == 0 || a.Results[0].ParticipantID != tt.wantFirst) {
				t.Errorf("results %+v, want %s first", a.Results, tt.wantFirst)
			}
		})
	}
	// The same cached answer is marked per request: the remembered encoding of one
	// network's answer is not served for another.
	for _, path := range []string{"/api/v1/participant/" + netsim.KnownBelgian, "/api/v1/participant/" + netsim.KnownBelgian + "?network=production"} {
		resp, body := e.get(t, path)
		if a := decodeAnswerLoosely(t, body); resp.StatusCode != 200 || a.Network != "production" || resp.Header.Get("X-Cache") != "hit" {
			t.Errorf("%s again: %d %s network %q", path, resp.StatusCode, resp.Header.Get("X-Cache"), a.Network)
		}
	}
}

// TestNetworkUnnamed: a server that names no network answers without a network field
// and refuses a network parameter.
func TestNetworkUnnamed(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian)}
	s, _ := newTestServer(t, reg, nil)
	w := do(t, s, "GET", "/api/v1/participant/"+netsim.KnownBelgian)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), `"network"`) {
		t.Errorf("unnamed: %d %s", w.Code, w.Body)
	}
	w = do(t, s, "GET", "/api/v1/participant/"+netsim.KnownBelgian+"?network=test")
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "one network only") {
		t.Errorf("network on an unnamed server: %d %s", w.Code, w.Body)
	}
}

// TestMCPNetwork: over /mcp, the tools take network like the REST API.
func TestMCPNetwork(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
	defer cancel()
	c, hello := connectMCP(t, ctx, e.url, mcpClientVariants()[0])
	if !strings.Contains(hello.Instructions, "network") {
		t.Errorf("instructions do not mention network: %q", hello.Instructions)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := outputSchemas(t, list.Tools)
	for _, tool := range list.Tools {
		if _, ok := tool.InputSchema.Properties["network"]; !ok {
			t.Errorf("%s takes no network", tool.Name)
		}
	}
	res := callTool(t, ctx, c, "lookup_participant", map[string]any{"participantId": netsim.TestKnownInvoice, "network": "test"})
	generic, p := structured[registry.Participant](t, res)
	if err := schemas["lookup_participant"].Validate(generic); err != nil {
		t.Errorf("output schema: %v", err)
	}
	if p.Network != "test" || p.Directory == nil {
		t.Errorf("test lookup: %+v", p)
	}
	checkToolError(t, callTool(t, ctx, c, "lookup_participant", map[string]any{"participantId": netsim.TestKnownInvoice}), registry.CodeNotFound)
	_, p = structured[registry.Participant](t, callTool(t, ctx, c, "lookup_participant", map[string]any{"participantId": netsim.KnownBelgian}))
	if p.Network != "production" {
		t.Errorf("default lookup on %q", p.Network)
	}
	text := checkToolError(t, callTool(t, ctx, c, "search_directory", map[string]any{"q": "acme", "network": "staging"}), registry.CodeInvalidRequest)
	if !strings.Contains(text, "production, test") {
		t.Errorf("unknown network: %q", text)
	}
	checkToolError(t, callTool(t, ctx, c, "get_participant_services", map[string]any{"participantId": netsim.KnownBelgian, "network": "demo"}), registry.CodeInvalidRequest)
}

// networkAnswer is the part of a lookup, services, search or error body the network
// tests read.
type networkAnswer struct {
	Network   string                    `json:"network"`
	Directory *registry.DirectoryRecord `json:"directory"`
	Services  []registry.Service        `json:"services"`
	Results   []registry.SearchHit      `json:"results"`
	Error     *struct{ Code, Message string }
}

func decodeAnswerLoosely(t *testing.T, body []byte) networkAnswer {
	t.Helper()
	var a networkAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return a
}

// TestAskNetwork: POST /ask?network=test answers from the test network, its _meta
// and its items' url naming it, and the ask page does the same with ?network=test
// (its links and its form keep the network); an unknown network is 400
// invalid_request on both.
func TestAskNetwork(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	question := `{"query": "Can ` + netsim.TestKnownInvoice + ` receive invoices?"}`
	tests := []struct {
		name, query    string
		wantStatus     int
		wantNetwork    string
		wantRegistered bool
		wantURLSuffix  string
		wantError      string
	}{
		{name: "test", query: "?network=test", wantStatus: 200, wantNetwork: "test", wantRegistered: true, wantURLSuffix: "/api/v1/participant/" + netsim.TestKnownInvoice + "?network=test"},
		{name: "the default", query: "", wantStatus: 200, wantNetwork: "production"},
		{name: "the default named", query: "?network=production", wantStatus: 200, wantNetwork: "production"},
		{name: "unknown", query: "?network=staging", wantStatus: 400, wantError: `invalid_request: network "staging" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), "POST", e.url+"/ask"+tt.query, strings.NewReader(question))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			var a struct {
				Meta struct {
					Network string `json:"network"`
				} `json:"_meta"`
				Answer  string
				Results []struct {
					URL    string `json:"url"`
					Peppol *struct {
						Registered bool `json:"registered"`
					} `json:"peppol"`
				} `json:"results"`
				Error *struct{ Code, Message string } `json:"error"`
			}
			if err := json.Unmarshal(body, &a); err != nil {
				t.Fatal(err)
			}
			if tt.wantError != "" {
				if a.Error == nil || !strings.HasPrefix(a.Error.Code+": "+a.Error.Message, tt.wantError) {
					t.Errorf("error %s, want %q", body, tt.wantError)
				}
				return
			}
			if a.Meta.Network != tt.wantNetwork {
				t.Errorf("_meta.network %q, want %q", a.Meta.Network, tt.wantNetwork)
			}
			if !tt.wantRegistered {
				// The test network's participant is not on production.
				if len(a.Results) != 0 || !strings.Contains(a.Answer, "is not on Peppol") {
					t.Errorf("answer %s, want not on Peppol", body)
				}
				return
			}
			if len(a.Results) != 1 || a.Results[0].Peppol == nil || !a.Results[0].Peppol.Registered || !strings.HasSuffix(a.Results[0].URL, tt.wantURLSuffix) {
				t.Errorf("results %s, want one registered with url …%s", body, tt.wantURLSuffix)
			}
		})
	}
	q := url.QueryEscape("Can " + netsim.TestKnownInvoice + " receive invoices?")
	resp, body := e.getPage(t, "/ask?q="+q+"&network=test")
	checkPage(t, resp, body)
	for _, want := range []string{
		`href="/participant/` + netsim.TestKnownInvoice + `?network=test"`,
		`<input type="hidden" name="network" value="test">`,
		"On Peppol",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the ask page on test lacks %s: %s", want, body)
		}
	}
	resp, body = e.getPage(t, "/ask?q="+q+"&network=staging")
	if resp.StatusCode != 400 || !strings.Contains(string(body), "is unknown") {
		t.Errorf("the ask page on an unknown network: %d %s", resp.StatusCode, body)
	}
}
