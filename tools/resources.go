package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/peppolgate/peppolgate/peppol"
)

// SchemesURI is the MCP resource with the participant identifier scheme list.
const SchemesURI = "peppolgate://schemes"

// schemeEntry is one scheme as the resource publishes it.
type schemeEntry struct {
	ICD          string   `json:"icd"`
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Country      string   `json:"country,omitempty"`
	State        string   `json:"state"`
	Registrable  bool     `json:"registrable"`
	RemovalDate  string   `json:"removalDate,omitempty"`
	ReplacedBy   string   `json:"replacedBy,omitempty"`
	ValuePattern string   `json:"valuePattern,omitempty"`
	Examples     []string `json:"examples,omitempty"`
}

// SchemesJSON returns the participant identifier scheme code list as a JSON array,
// one object per 4-digit scheme code with its country, state (active, deprecated,
// removed), whether new participants may be registered under it, its replacement and
// the syntax of its values. It returns an error only if encoding fails.
func SchemesJSON() ([]byte, error) {
	list := peppol.Schemes()
	out := make([]schemeEntry, 0, len(list))
	for _, s := range list {
		out = append(out, schemeEntry{
			ICD: s.ICD, ID: s.ID, Name: s.Name, Country: s.Country, State: s.State.String(),
			Registrable: s.Registrable, RemovalDate: s.RemovalDate, ReplacedBy: s.ReplacedBy,
			ValuePattern: s.Pattern, Examples: s.Examples,
		})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tools: encoding the scheme list: %w", err)
	}
	return b, nil
}

// schemesResource is the scheme list as an MCP resource. The list is part of the
// binary, so it is encoded once.
func schemesResource() (server.ServerResource, error) {
	body, err := SchemesJSON()
	if err != nil {
		return server.ServerResource{}, err
	}
	text := string(body)
	return server.ServerResource{
		Resource: mcp.NewResource(SchemesURI, "Peppol participant identifier schemes",
			mcp.WithResourceDescription("The Peppol participant identifier schemes (code list v9.7): the 4-digit code before "+
				"the colon of a participant id, with country, state (active, deprecated, removed), replacement and value syntax."),
			mcp.WithMIMEType("application/json"),
		),
		Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: SchemesURI, MIMEType: "application/json", Text: text}}, nil
		},
	}, nil
}
