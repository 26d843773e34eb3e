// Package tools holds peppolgate's operations as tools, each defined once: its name, a
// description written for an LLM, input and output JSON Schemas, behaviour annotations
// and a handler over the registry's networks. The MCP server (mcp.go) serves them, /ask
// calls them, and the discovery documents publish the same schemas; every adapter
// validates its input with the registry's validators (registry/validate.go).
package tools

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/registry"
)

// Tool is one operation. Tools are values: All returns fresh copies, so a caller may
// change what it got without affecting anyone else.
type Tool struct {
	// Name is the tool's name as MCP clients and LLMs call it, e.g. "lookup_participant".
	Name string
	// Title is a short human-readable name.
	Title string
	// Description says what the tool does, when to use it and when not, the formats
	// of its arguments with examples, and what its errors mean.
	Description string
	// Input is the JSON Schema of the arguments object.
	Input *jsonschema.Schema
	// Output is the JSON Schema of the result value: the same schema as the REST
	// response body.
	Output *jsonschema.Schema
	// Annotations describe how the tool behaves, for clients that ask before calling.
	Annotations Annotations
	// Call runs the tool with the JSON arguments object args. It returns a
	// *registry.Error for bad arguments (CodeInvalidParticipantID, CodeMissingQuery,
	// CodeQueryTooShort, CodeInvalidRequest) and whatever the registry returns.
	Call func(ctx context.Context, nets *registry.Networks, args json.RawMessage) (*Result, error)
}

// Annotations are MCP's tool behaviour hints. Every field is meant to be sent
// explicitly: MCP's defaults (not read-only, destructive) are wrong for every tool here.
type Annotations struct {
	// ReadOnly: the tool does not change anything.
	ReadOnly bool
	// Destructive: the tool may destroy data (only meaningful when not ReadOnly).
	Destructive bool
	// Idempotent: calling it again with the same arguments has no further effect.
	Idempotent bool
	// OpenWorld: the tool talks to systems outside peppolgate (the Peppol network).
	OpenWorld bool
}

// readOnly returns the annotations of every tool that only reads the Peppol network.
func readOnly() Annotations {
	return Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
}

// Result is what a tool found.
type Result struct {
	// Value is the structured answer, the same value the REST API renders as its body
	// (*registry.Participant, *registry.SearchResult, *registry.ServicesResult or
	// *CheckResult).
	Value any
	// Text is a short plain-language rendering of Value for readers without a JSON view.
	Text string
	// Freshness says whether Value came from the cache.
	Freshness registry.Freshness
}

// All returns every tool, in the order they are listed to clients.
func All() []Tool {
	return []Tool{lookupParticipant(), searchDirectory(), getParticipantServices(), checkParticipants(), networkStatistics()}
}
