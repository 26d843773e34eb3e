package tools

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// stubRegistry is a registry for tests that never call it (schemas, validation).
type stubRegistry struct{ registry.Registry }

// startNetworks starts a simulated production and test network and returns both
// behind Networks, production the default.
func startNetworks(t *testing.T) (*registry.Networks, *livenet.Net, *livenet.Net) {
	t.Helper()
	prod := startNet(t)
	test := livenet.Start(t, netsim.DatasetConfig{Seed: 1, Network: netsim.NetworkTest, Now: datasetNow})
	nets, err := registry.NewNetworks(registry.NetworkProduction, map[string]registry.Registry{registry.NetworkProduction: prod.Reg, registry.NetworkTest: test.Reg})
	if err != nil {
		t.Fatal(err)
	}
	return nets, prod, test
}

// TestMCPNetworks: every tool takes network; test answers from the test network,
// which has participants production does not, and the default from production; the
// answers say which network answered; an unknown or not offered network is
// invalid_request naming the offered ones.
func TestMCPNetworks(t *testing.T) {
	t.Parallel()
	nets, prod, test := startNetworks(t)
	c := mcpClientFor(t, MCPConfig{Networks: nets, Version: "test"})
	schemas := outputSchemas(t, c)
	list, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		p, ok := tool.InputSchema.Properties["network"].(map[string]any)
		if !ok || !strings.Contains(tool.Description, "network") {
			t.Errorf("%s: no network argument: %+v", tool.Name, tool.InputSchema.Properties)
			continue
		}
		if enum, _ := p["enum"].([]any); len(enum) != 2 || enum[0] != "production" || enum[1] != "test" {
			t.Errorf("%s: network enum %v", tool.Name, p["enum"])
		}
	}

	lookup := func(id, network string) *mcp.CallToolResult {
		args := map[string]any{"participantId": id}
		if network != "" {
			args["network"] = network
		}
		return call(t, c, "lookup_participant", args)
	}
	p := checkStructured[registry.Participant](t, lookup(netsim.TestKnownInvoice, "test"), schemas["lookup_participant"])
	if p.Network != "test" || p.SMP == nil || p.Directory == nil || p.Directory.Name != test.Name(netsim.TestKnownInvoice) {
		t.Errorf("test network lookup: %+v", p)
	}
	if r := lookup(netsim.TestKnownInvoice, ""); !r.IsError || !strings.HasPrefix(resultText(r), "not_found: ") {
		t.Errorf("test participant on production: %s", resultText(r))
	}
	p = checkStructured[registry.Participant](t, lookup(netsim.KnownBelgian, ""), schemas["lookup_participant"])
	if p.Network != "production" || p.Directory == nil || p.Directory.Name != prod.Name(netsim.KnownBelgian) {
		t.Errorf("default lookup: %+v", p)
	}
	p = checkStructured[registry.Participant](t, lookup(netsim.KnownBelgian, "production"), schemas["lookup_participant"])
	if p.Network != "production" {
		t.Errorf("production lookup: %+v", p)
	}
	if r := lookup(netsim.KnownBelgian, "test"); !r.IsError || !strings.HasPrefix(resultText(r), "not_found: ") {
		t.Errorf("production participant on test: %s", resultText(r))
	}
	// The cached production answer is not marked by the test network's call.
	if again := checkStructured[registry.Participant](t, lookup(netsim.KnownBelgian, ""), schemas["lookup_participant"]); again.Network != "production" {
		t.Errorf("cached default lookup: %+v", again)
	}

	r := call(t, c, "get_participant_services", map[string]any{"participantId": netsim.TestKnownGLN, "network": "test"})
	sv := checkStructured[registry.ServicesResult](t, r, schemas["get_participant_services"])
	if sv.Network != "test" || sv.ServiceCount != 3 {
		t.Errorf("test services: %+v", sv)
	}

	name := test.Name(netsim.TestKnownInvoice)
	r = call(t, c, "search_directory", map[string]any{"q": name, "network": "test"})
	sr := checkStructured[registry.SearchResult](t, r, schemas["search_directory"])
	if sr.Network != "test" || len(sr.Results) == 0 || sr.Results[0].ParticipantID != netsim.TestKnownInvoice {
		t.Errorf("test search for %q: %+v", name, sr)
	}

	for _, tc := range []struct{ network, want string }{
		{"staging", `invalid_request: network "staging" is unknown; this server offers production, test`},
		{"demo", `invalid_request: network "demo" is not offered by this server; it offers production, test`},
	} {
		for _, tool := range []struct {
			name string
			args map[string]any
		}{
			{"lookup_participant", map[string]any{"participantId": netsim.KnownBelgian}},
			{"get_participant_services", map[string]any{"participantId": netsim.KnownBelgian}},
			{"search_directory", map[string]any{"q": "acme"}},
		} {
			tool.args["network"] = tc.network
			if r := call(t, c, tool.name, tool.args); !r.IsError || resultText(r) != tc.want {
				t.Errorf("%s on %s: %q, want %q", tool.name, tc.network, resultText(r), tc.want)
			}
		}
	}
}

// TestToolsWithoutNetworks: over a plain registry the answers carry no network and a
// network argument is refused.
func TestToolsWithoutNetworks(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	r := call(t, c, "lookup_participant", map[string]any{"participantId": netsim.KnownBelgian})
	if p := checkStructured[registry.Participant](t, r, outputSchemas(t, c)["lookup_participant"]); p.Network != "" {
		t.Errorf("network %q without networks", p.Network)
	}
	r = call(t, c, "lookup_participant", map[string]any{"participantId": netsim.KnownBelgian, "network": "test"})
	if !r.IsError || !strings.HasPrefix(resultText(r), "invalid_request: ") {
		t.Errorf("network argument without networks: %s", resultText(r))
	}
}
