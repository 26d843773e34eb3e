package tools

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestMCPStats: with a mirror, network_statistics answers the mirror's counts as
// structured content matching its output schema, and a text; without one (the default
// network of another server, or the test network beside a mirrored production),
// statistics_unavailable saying a mirror must be configured.
func TestMCPStats(t *testing.T) {
	t.Parallel()
	prod := livenet.StartWithMirror(t, netsim.DatasetConfig{Seed: 11, Participants: 300, Now: datasetNow})
	test := livenet.Start(t, netsim.DatasetConfig{Seed: 1, Network: netsim.NetworkTest, Now: datasetNow})
	nets, err := registry.NewNetworks(registry.NetworkProduction, map[string]registry.Registry{registry.NetworkProduction: prod.Reg, registry.NetworkTest: test.Reg})
	if err != nil {
		t.Fatal(err)
	}
	cards := 0
	for _, p := range prod.DS.Participants {
		if p.Card != nil {
			cards++
		}
	}
	c := mcpClientFor(t, MCPConfig{Networks: nets, Version: "test"})
	schemas := outputSchemas(t, c)

	r := call(t, c, "network_statistics", map[string]any{})
	st := checkStructured[registry.Stats](t, r, schemas["network_statistics"])
	if st.Participants != cards || st.Network != registry.NetworkProduction || st.Source != registry.SourceMirror {
		t.Errorf("participants %d (want %d), network %q, source %q", st.Participants, cards, st.Network, st.Source)
	}
	sum := st.OtherCountries + st.WithoutCountry
	for _, cc := range st.Countries {
		sum += cc.Count
	}
	if sum != cards || len(st.DocumentKinds) == 0 || len(st.Registrations) != registry.StatsMonths {
		t.Errorf("countries add up to %d, %d kinds, %d months", sum, len(st.DocumentKinds), len(st.Registrations))
	}
	if text := resultText(r); !strings.Contains(text, "participants with a Peppol Directory business card") || !strings.Contains(text, st.Countries[0].Country) {
		t.Errorf("text %q", text)
	}

	for _, tt := range []struct {
		name string
		own  bool // a server of the test network alone
		args map[string]any
	}{
		{"test network", false, map[string]any{"network": "test"}},
		{"no mirror", true, map[string]any{}},
	} {
		cl := c
		if tt.own {
			cl = mcpClient(t, test)
		}
		r := call(t, cl, "network_statistics", tt.args)
		text := resultText(r)
		if !r.IsError || !strings.HasPrefix(text, "statistics_unavailable: ") || !strings.Contains(text, "-mirror") {
			t.Errorf("%s: isError %v, text %q", tt.name, r.IsError, text)
		}
	}
	r = call(t, c, "network_statistics", map[string]any{"country": "BE"})
	if text := resultText(r); !r.IsError || !strings.HasPrefix(text, "invalid_request: ") {
		t.Errorf("unknown argument: isError %v, text %q", r.IsError, text)
	}
}
