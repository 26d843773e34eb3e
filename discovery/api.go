// Package discovery generates peppolgate's discovery documents (OpenAPI 3.1, RFC 9728
// protected-resource metadata, RFC 8414 authorization-server metadata, the RFC 9727
// API catalog, llms.txt and llms-full.txt, the index page) from one description of the
// API that the server builds from the same definitions its handlers use: the endpoint
// table, the error table and the tools.
package discovery

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// API describes the whole service.
type API struct {
	// BaseURL is the public URL every absolute link starts with, no trailing slash.
	BaseURL string
	// Version is the service version.
	Version string
	// Endpoints are every HTTP endpoint, in the order documents list them.
	Endpoints []Endpoint
	// Errors are every error code the API answers with, from the server's one table.
	Errors []ErrorCode
	// Tools are the MCP tools (served at MCPPath).
	Tools []tools.Tool
	// MCPPath is the path of the MCP endpoint, e.g. "/mcp".
	MCPPath string
	// Limits are the documented limits and rate limits, one sentence each.
	Limits []string
}

// Endpoint is one method on one path.
type Endpoint struct {
	// Method is the HTTP method, e.g. "GET".
	Method string
	// Path is the route pattern with {name} parameters, e.g.
	// "/api/v1/participant/{participantId}".
	Path string
	// OperationID is a unique camelCase name, e.g. "getParticipant".
	OperationID string
	// Summary is a short phrase; Description says more, in Markdown.
	Summary, Description string
	// Tag groups endpoints: "participants", "ask", "discovery", "health".
	Tag string
	// Params are the path, query and header parameters.
	Params []Param
	// Body is the request body, nil for none.
	Body *Body
	// Responses are the success responses (errors come from Errors).
	Responses []Response
	// Errors are the error codes this endpoint may answer with; each must be in
	// API.Errors.
	Errors []registry.Code
	// Headers are documented response headers of the success responses, name →
	// description.
	Headers map[string]string
}

// Param is one parameter.
type Param struct {
	// Name and In ("path", "query" or "header").
	Name, In string
	// Required says whether the parameter must be given.
	Required bool
	// Description says what it is, with examples.
	Description string
	// Schema is its JSON Schema (type, pattern, limits).
	Schema *jsonschema.Schema
	// Example is a real value.
	Example any
}

// Body is a request body.
type Body struct {
	// Required says whether it must be given.
	Required bool
	// Description says what it is.
	Description string
	// MediaTypes are the accepted media types; the first is the one to use.
	MediaTypes []string
	// Schema is its JSON Schema.
	Schema *jsonschema.Schema
	// Examples are real bodies by name.
	Examples map[string]any
	// Text describes the media types of MediaTypes that are not JSON (e.g. text/csv,
	// application/x-ndjson), each with its own schema and examples; Schema and
	// Examples describe the others.
	Text map[string]TextBody
}

// TextBody is a request body in a media type that is not JSON.
type TextBody struct {
	// Schema is its JSON Schema: a string, with contentMediaType and, when its
	// content is a list of JSON values (NDJSON), contentSchema.
	Schema *jsonschema.Schema
	// Examples are real bodies by name.
	Examples map[string]string
}

// Response is one success response.
type Response struct {
	// Status is the HTTP status, e.g. 200.
	Status int
	// Description says what it is.
	Description string
	// MediaType is its Content-Type without parameters, e.g. "application/json",
	// "text/event-stream", "text/markdown", "" for no body.
	MediaType string
	// Schema is its JSON Schema (nil for a text body).
	Schema *jsonschema.Schema
	// Example is a real body (a value for JSON, a string for text).
	Example any
	// Events are the events of a "text/event-stream" response, in the order they are
	// sent, or the kinds of line of an "application/x-ndjson" response (one JSON
	// value per line); nil for other media types.
	Events []Event
}

// Event is one kind of server-sent event in a "text/event-stream" response, or one
// kind of line in an "application/x-ndjson" one.
type Event struct {
	// Name is the event's "event:" field, e.g. "result".
	Name string
	// Description says when it is sent and how often.
	Description string
	// Schema is the JSON Schema of its "data:" field, one JSON value per event.
	Schema *jsonschema.Schema
}

// ErrorCode is one row of the server's error table.
type ErrorCode struct {
	// Code is the machine code, e.g. "not_found".
	Code registry.Code
	// Status is its HTTP status.
	Status int
	// When says when it is answered; Action what a client should do.
	When, Action string
}
