package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
)

// StatsArgs are the arguments of network_statistics.
type StatsArgs struct {
	Network string `json:"network"`
}

// StatsSchema returns the JSON Schema (draft 2020-12) of the network statistics, the
// body of GET /api/v1/stats and the result of network_statistics, derived from
// registry.Stats. Each call returns a new schema.
func StatsSchema() *jsonschema.Schema {
	s := outputSchema[registry.Stats]()
	s.Description = "Counts over the Peppol Directory's business cards, from peppolgate's mirror of the Directory."
	s.Properties["countries"].MaxItems = ptr(registry.StatsTopCountries)
	s.Properties["registrations"].MinItems = ptr(registry.StatsMonths)
	s.Properties["registrations"].MaxItems = ptr(registry.StatsMonths)
	s.Properties["registrations"].Items.Properties["month"].Pattern = `^[0-9]{4}-[0-9]{2}$`
	s.Properties["source"].Enum = []any{registry.SourceMirror}
	return s
}

func networkStatistics() Tool {
	return Tool{
		Name:  "network_statistics",
		Title: "Peppol network statistics",
		Description: `Count the participants of the Peppol network from the Peppol Directory's business cards: how many there are, the countries with the most participants, how many accept each kind of business document (Invoice, Credit Note, Order, ...), and how many registered in each month of the last ten years.

Use it for questions about the network as a whole: how many companies are on Peppol, which countries use it most, how many can receive orders, how fast it grows. Do not use it for one company (use search_directory or lookup_participant), nor to count one country's participants by name search (search_directory with country alone also counts them, live).

The counts come from peppolgate's copy of the Directory (dataAsOf says when the Directory exported it) and only cover participants with a business card; registration dates are the ones the cards give.

Errors: statistics_unavailable (this server or this network has no copy of the Directory, or it holds no data yet; the message says which).`,
		Input: &jsonschema.Schema{
			Type:                 "object",
			Properties:           map[string]*jsonschema.Schema{},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		},
		Output:      StatsSchema(),
		Annotations: readOnly(), // its data is the Peppol Directory's, as of the mirror's export
		Call:        callStats,
	}
}

func callStats(ctx context.Context, nets *registry.Networks, raw json.RawMessage) (*Result, error) {
	var a StatsArgs
	if err := decodeArgs("network_statistics", raw, &a, "optionally network"); err != nil {
		return nil, err
	}
	reg, network, err := nets.Select(a.Network)
	if err != nil {
		return nil, err
	}
	st, err := registry.NetworkStats(ctx, reg, network)
	if err != nil {
		return nil, err
	}
	return &Result{Value: st, Text: statsText(st)}, nil
}

// statsText renders the statistics in a few sentences.
func statsText(st *registry.Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s with a Peppol Directory business card (Directory export of %s).",
		phrase.Plural(st.Participants, "participant"), st.DataAsOf.UTC().Format(time.DateOnly))
	if len(st.Countries) > 0 {
		parts := make([]string, 0, 5)
		for _, c := range st.Countries[:min(5, len(st.Countries))] {
			parts = append(parts, fmt.Sprintf("%s %d", c.Country, c.Count))
		}
		fmt.Fprintf(&b, " Most participants by country: %s.", strings.Join(parts, ", "))
	}
	if len(st.DocumentKinds) > 0 {
		parts := make([]string, 0, len(st.DocumentKinds))
		for _, k := range st.DocumentKinds {
			parts = append(parts, fmt.Sprintf("%s %d", k.Kind, k.Count))
		}
		fmt.Fprintf(&b, " Participants accepting each kind of document: %s.", strings.Join(parts, ", "))
	}
	if n := len(st.Registrations); n >= 12 {
		year := 0
		for _, m := range st.Registrations[n-12:] {
			year += m.Count
		}
		fmt.Fprintf(&b, " Registered in the 12 months to %s: %d.", st.Registrations[n-1].Month, year)
	}
	return b.String()
}
