package discovery

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// OpenAPIVersion is the version of the OpenAPI Specification the document follows.
const OpenAPIVersion = "3.1.0"

// OpenAPI returns the OpenAPI 3.1 document of api as JSON indented by two spaces,
// ending in a newline. Keys are sorted, so the same api always gives the same bytes.
// Every endpoint is an operation; its success responses come from Endpoint.Responses
// (several media types under one status are one response) and its error responses
// from Endpoint.Errors, one per HTTP status, whose error-object schema enumerates
// exactly the endpoint's codes with that status. It returns an error when an endpoint
// names an error code that api.Errors does not have, when two endpoints share an
// operation id or a method and path, when a schema cannot be encoded, or when
// api.BaseURL is empty.
func OpenAPI(api API) ([]byte, error) {
	b, err := newOpenAPIBuilder(api)
	if err != nil {
		return nil, err
	}
	doc, err := b.document()
	if err != nil {
		return nil, err
	}
	return encodeDocument(doc)
}

// openAPIBuilder holds what one document is built from and the components it has
// collected so far.
type openAPIBuilder struct {
	api    API
	errors map[registry.Code]ErrorCode
	// schemas are components/schemas by name; named maps each schema's canonical
	// JSON to its name, so an identical schema is one component.
	schemas map[string]any
	named   map[string]string
	// known are the Go-derived schemas with their component names.
	known []knownSchema
}

func newOpenAPIBuilder(api API) (*openAPIBuilder, error) {
	if api.BaseURL == "" {
		return nil, fmt.Errorf("discovery: OpenAPI needs a base URL")
	}
	b := &openAPIBuilder{
		api:     api,
		errors:  make(map[registry.Code]ErrorCode, len(api.Errors)),
		schemas: map[string]any{},
		named:   map[string]string{},
	}
	for _, e := range api.Errors {
		if _, dup := b.errors[e.Code]; dup {
			return nil, fmt.Errorf("discovery: error code %s listed twice", e.Code)
		}
		b.errors[e.Code] = e
	}
	known, err := knownSchemas()
	if err != nil {
		return nil, err
	}
	b.known = known
	return b, nil
}

func (b *openAPIBuilder) document() (map[string]any, error) {
	errSchema, err := b.errorSchema()
	if err != nil {
		return nil, err
	}
	b.schemas[errorSchemaName] = errSchema
	paths := map[string]any{}
	ids := map[string]bool{}
	var tags []string
	for _, e := range b.api.Endpoints {
		if e.OperationID == "" || ids[e.OperationID] {
			return nil, fmt.Errorf("discovery: %s %s: operation id %q empty or used twice", e.Method, e.Path, e.OperationID)
		}
		ids[e.OperationID] = true
		item, _ := paths[e.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[e.Path] = item
		}
		method := strings.ToLower(e.Method)
		if _, dup := item[method]; dup {
			return nil, fmt.Errorf("discovery: %s %s described twice", e.Method, e.Path)
		}
		op, err := b.operation(e)
		if err != nil {
			return nil, err
		}
		item[method] = op
		if e.Tag != "" && !slices.Contains(tags, e.Tag) {
			tags = append(tags, e.Tag)
		}
	}
	shared, err := b.sharedResponses()
	if err != nil {
		return nil, err
	}
	tagList := make([]any, 0, len(tags))
	for _, t := range tags {
		tagList = append(tagList, map[string]any{"name": t, "description": tagDescription(t)})
	}
	return map[string]any{
		"openapi": OpenAPIVersion,
		"info": map[string]any{
			"title":       "peppolgate",
			"version":     b.api.Version,
			"summary":     "Who is on the Peppol e-invoicing network, and how to reach them: REST, MCP and plain-language questions.",
			"description": b.infoDescription(),
		},
		"servers":  []any{map[string]any{"url": b.api.BaseURL, "description": "this peppolgate"}},
		"security": []any{},
		"tags":     tagList,
		"paths":    paths,
		"components": map[string]any{
			"schemas":   b.schemas,
			"responses": shared,
		},
	}, nil
}

// operation builds one endpoint's operation object.
func (b *openAPIBuilder) operation(e Endpoint) (map[string]any, error) {
	op := map[string]any{
		"operationId": e.OperationID,
		"summary":     e.Summary,
	}
	if e.Description != "" {
		op["description"] = e.Description
	}
	if e.Tag != "" {
		op["tags"] = []any{e.Tag}
	}
	if len(e.Params) > 0 {
		params := make([]any, 0, len(e.Params))
		for _, p := range e.Params {
			param, err := b.parameter(p)
			if err != nil {
				return nil, fmt.Errorf("discovery: %s: %w", e.OperationID, err)
			}
			params = append(params, param)
		}
		op["parameters"] = params
	}
	if e.Body != nil {
		body, err := b.requestBody(e)
		if err != nil {
			return nil, err
		}
		op["requestBody"] = body
	}
	responses, err := b.responses(e)
	if err != nil {
		return nil, err
	}
	op["responses"] = responses
	return op, nil
}

func (b *openAPIBuilder) parameter(p Param) (map[string]any, error) {
	param := map[string]any{
		"name":     p.Name,
		"in":       p.In,
		"required": p.Required || p.In == "path", // OpenAPI: path parameters must be required
	}
	if p.Description != "" {
		param["description"] = p.Description
	}
	schema := map[string]any{"type": "string"}
	if p.Schema != nil {
		s, err := b.inline(p.Schema)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		schema = s
	}
	param["schema"] = schema
	if p.Example != nil {
		param["example"] = p.Example
	}
	return param, nil
}

func (b *openAPIBuilder) requestBody(e Endpoint) (map[string]any, error) {
	body := map[string]any{"required": e.Body.Required}
	if e.Body.Description != "" {
		body["description"] = e.Body.Description
	}
	var schema any = map[string]any{}
	if e.Body.Schema != nil {
		s, err := b.component(e.Body.Schema, upperFirst(e.OperationID)+"Request")
		if err != nil {
			return nil, fmt.Errorf("discovery: %s: request body: %w", e.OperationID, err)
		}
		schema = s
	}
	content := map[string]any{}
	for _, mt := range e.Body.MediaTypes {
		if tb, ok := e.Body.Text[mt]; ok {
			media := map[string]any{"schema": map[string]any{"type": "string"}}
			if tb.Schema != nil {
				s, err := b.inline(tb.Schema)
				if err != nil {
					return nil, fmt.Errorf("discovery: %s: request body %s: %w", e.OperationID, mt, err)
				}
				media["schema"] = s
			}
			if len(tb.Examples) > 0 {
				examples := map[string]any{}
				for name, v := range tb.Examples {
					examples[name] = map[string]any{"value": v}
				}
				media["examples"] = examples
			}
			content[mt] = media
			continue
		}
		media := map[string]any{"schema": schema}
		if len(e.Body.Examples) > 0 {
			examples := map[string]any{}
			for name, v := range e.Body.Examples {
				examples[name] = map[string]any{"value": v}
			}
			media["examples"] = examples
		}
		content[mt] = media
	}
	body["content"] = content
	return body, nil
}

// responses builds the responses of Endpoint.Responses (the endpoint's headers on
// its 2xx ones), then one error response per status of its codes.
func (b *openAPIBuilder) responses(e Endpoint) (map[string]any, error) {
	out := map[string]any{}
	for _, r := range e.Responses {
		key := strconv.Itoa(r.Status)
		resp, _ := out[key].(map[string]any)
		if resp == nil {
			resp = map[string]any{"description": r.Description}
			if len(e.Headers) > 0 && r.Status/100 == 2 {
				headers := map[string]any{}
				for name, desc := range e.Headers {
					headers[name] = map[string]any{"description": desc, "schema": map[string]any{"type": "string"}}
				}
				resp["headers"] = headers
			}
			out[key] = resp
		} else if r.Description != "" && !strings.Contains(resp["description"].(string), r.Description) {
			resp["description"] = resp["description"].(string) + "\n\n" + r.Description
		}
		if r.MediaType == "" {
			continue
		}
		media, err := b.media(e, r)
		if err != nil {
			return nil, err
		}
		content, _ := resp["content"].(map[string]any)
		if content == nil {
			content = map[string]any{}
			resp["content"] = content
		}
		if _, dup := content[r.MediaType]; dup {
			return nil, fmt.Errorf("discovery: %s: %d %s described twice", e.OperationID, r.Status, r.MediaType)
		}
		content[r.MediaType] = media
	}
	byStatus := map[int][]registry.Code{}
	for _, c := range e.Errors {
		ec, ok := b.errors[c]
		if !ok {
			return nil, fmt.Errorf("discovery: %s: error code %s is not in the error table", e.OperationID, c)
		}
		if !slices.Contains(byStatus[ec.Status], c) {
			byStatus[ec.Status] = append(byStatus[ec.Status], c)
		}
	}
	for status, codes := range byStatus {
		key := strconv.Itoa(status)
		if _, clash := out[key]; clash {
			return nil, fmt.Errorf("discovery: %s: status %d is both a success and an error", e.OperationID, status)
		}
		slices.Sort(codes)
		if name := sharedResponseName(codes); name != "" {
			out[key] = map[string]any{"$ref": "#/components/responses/" + name}
			continue
		}
		resp, err := b.errorResponse(e.OperationID, status, codes)
		if err != nil {
			return nil, err
		}
		out[key] = resp
	}
	return out, nil
}

// media builds the media type object of one success response.
func (b *openAPIBuilder) media(e Endpoint, r Response) (map[string]any, error) {
	media := map[string]any{}
	switch {
	case r.MediaType == "text/event-stream":
		stream, err := b.eventStream(e, r)
		if err != nil {
			return nil, err
		}
		for k, v := range stream {
			media[k] = v
		}
	case r.MediaType == ndjsonType:
		lines, err := b.lineStream(e, r)
		if err != nil {
			return nil, err
		}
		for k, v := range lines {
			media[k] = v
		}
	case r.Schema != nil:
		s, err := b.component(r.Schema, upperFirst(e.OperationID)+"Response")
		if err != nil {
			return nil, fmt.Errorf("discovery: %s: %d response: %w", e.OperationID, r.Status, err)
		}
		media["schema"] = s
	default:
		media["schema"] = map[string]any{"type": "string"}
	}
	switch ex, err := b.responseExample(e, r); {
	case err != nil:
		return nil, err
	case ex != nil:
		media["example"] = ex
	}
	return media, nil
}

// examples are real response bodies, captured from the whole stack on the simulated
// network by server/openapi_test.go (TestOpenAPIExamples, rewritten with -update,
// checked against the server otherwise): <operationId>.<status>.json and .sse for
// success bodies (.ndjson and .csv for those media types), <operationId>.<code>.json for error bodies, error.<code>.json for
// the shared responses; {base_url} where the service's base URL goes.
//
//go:embed examples
var examples embed.FS

// responseExample is r's example: Response.Example if set, else the captured body of
// the operation's status and media type, else nil.
func (b *openAPIBuilder) responseExample(e Endpoint, r Response) (any, error) {
	if r.Example != nil {
		return r.Example, nil
	}
	ext := ""
	switch {
	case r.MediaType == "text/event-stream":
		ext = "sse"
	case r.MediaType == ndjsonType:
		ext = "ndjson"
	case r.MediaType == "text/csv":
		ext = "csv"
	case r.MediaType == "application/json" || strings.HasSuffix(r.MediaType, "+json"):
		ext = "json"
	default:
		return nil, nil
	}
	return b.example(fmt.Sprintf("%s.%d.%s", e.OperationID, r.Status, ext))
}

// example reads the captured example name with the base URL put in: a JSON file as
// its value, any other as a string; nil if there is none. It returns an error for a
// JSON file that does not parse.
func (b *openAPIBuilder) example(name string) (any, error) {
	raw, err := examples.ReadFile("examples/" + name)
	if err != nil {
		return nil, nil // no example captured for it
	}
	if !strings.HasSuffix(name, ".json") {
		return strings.ReplaceAll(string(raw), baseURLPlaceholder, b.api.BaseURL), nil
	}
	// The base URL goes inside JSON strings: escape it as one.
	base, err := json.Marshal(b.api.BaseURL)
	if err != nil {
		return nil, err
	}
	raw = bytes.ReplaceAll(raw, []byte(baseURLPlaceholder), base[1:len(base)-1])
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("discovery: example %s: %w", name, err)
	}
	return v, nil
}

// eventStream describes a text/event-stream body. OpenAPI 3.1 has no way to give
// the schema of each event (3.2 adds itemSchema), so the body is a string whose
// contentSchema (JSON Schema 2020-12) is the stream read as a list of events: each
// {event, data} pair with the event's name as a constant and its data's schema.
// The same is in x-events (name → description and data schema), for clients that
// only read extensions, and in the description, for people.
func (b *openAPIBuilder) eventStream(e Endpoint, r Response) (map[string]any, error) {
	desc := "A stream of server-sent events: each has an `event:` line with its name and one `data:` line with one JSON value."
	events := map[string]any{}
	var lines []string
	var variants []any
	for _, ev := range r.Events {
		s, err := b.component(ev.Schema, upperFirst(e.OperationID)+upperFirst(ev.Name)+"Event")
		if err != nil {
			return nil, fmt.Errorf("discovery: %s: event %s: %w", e.OperationID, ev.Name, err)
		}
		events[ev.Name] = map[string]any{"description": ev.Description, "schema": s}
		variants = append(variants, map[string]any{
			"type":        "object",
			"description": ev.Description,
			"required":    []any{"event", "data"},
			"properties": map[string]any{
				"event": map[string]any{"const": ev.Name},
				"data":  s,
			},
		})
		line := "- `" + ev.Name + "`: " + sentence(ev.Description)
		if ref, ok := s["$ref"].(string); ok {
			line += " Data: `" + strings.TrimPrefix(ref, "#/components/schemas/") + "`."
		}
		lines = append(lines, line)
	}
	schema := map[string]any{"type": "string", "contentMediaType": "text/event-stream"}
	if len(lines) > 0 {
		desc += " Events, in the order they are sent:\n\n" + strings.Join(lines, "\n") +
			"\n\n`contentSchema` gives the stream as a list of `{event, data}` pairs, `x-events` each event's data schema by name."
		schema["contentSchema"] = map[string]any{"type": "array", "items": map[string]any{"oneOf": variants}}
	}
	schema["description"] = desc
	media := map[string]any{"schema": schema}
	if len(events) > 0 {
		media["x-events"] = events
	}
	return media, nil
}

// ndjsonType is the media type of newline-delimited JSON: one JSON value per line.
const ndjsonType = "application/x-ndjson"

// lineStream describes an application/x-ndjson body: a string whose contentSchema is
// the body read as a list of JSON values, one per line, each one of the kinds of line
// in Response.Events (their schemas are components). The same is in x-lines (name →
// description and schema) and in the description.
func (b *openAPIBuilder) lineStream(e Endpoint, r Response) (map[string]any, error) {
	desc := "Newline-delimited JSON: one JSON value per line, each line ending in a newline."
	lines := map[string]any{}
	var items []string
	var variants []any
	for _, ev := range r.Events {
		s, err := b.component(ev.Schema, upperFirst(e.OperationID)+upperFirst(ev.Name)+"Line")
		if err != nil {
			return nil, fmt.Errorf("discovery: %s: line %s: %w", e.OperationID, ev.Name, err)
		}
		lines[ev.Name] = map[string]any{"description": ev.Description, "schema": s}
		variants = append(variants, s)
		item := "- " + ev.Name + ": " + sentence(ev.Description)
		if ref, ok := s["$ref"].(string); ok {
			item += " Schema: `" + strings.TrimPrefix(ref, "#/components/schemas/") + "`."
		}
		items = append(items, item)
	}
	schema := map[string]any{"type": "string", "contentMediaType": ndjsonType}
	if len(items) > 0 {
		desc += " Lines:\n\n" + strings.Join(items, "\n") +
			"\n\n`contentSchema` gives the body as a list of its lines' values, `x-lines` each kind of line's schema by name."
		schema["contentSchema"] = map[string]any{"type": "array", "items": map[string]any{"oneOf": variants}}
	}
	schema["description"] = desc
	media := map[string]any{"schema": schema}
	if len(lines) > 0 {
		media["x-lines"] = lines
	}
	return media, nil
}

const errorSchemaName = "Error"

// errorSchema is the error object of docs/INTERFACE.md §2.4, its code any code of the
// table. Error responses narrow the code to the operation's own.
func (b *openAPIBuilder) errorSchema() (map[string]any, error) {
	codes := make([]any, 0, len(b.api.Errors))
	sorted := slices.Clone(b.api.Errors)
	slices.SortFunc(sorted, func(x, y ErrorCode) int { return strings.Compare(string(x.Code), string(y.Code)) })
	for _, e := range sorted {
		codes = append(codes, string(e.Code))
	}
	return map[string]any{
		"type":                 "object",
		"description":          "The error object every error response carries. Branch on `error.code`; `error.message` is for people and may change.",
		"required":             []any{"error"},
		"additionalProperties": false,
		"properties": map[string]any{
			"error": map[string]any{
				"type":                 "object",
				"required":             []any{"code", "message"},
				"additionalProperties": false,
				"properties": map[string]any{
					"code":    map[string]any{"type": "string", "description": "machine-readable error code", "enum": codes},
					"message": map[string]any{"type": "string", "description": "what went wrong and what to do, in English"},
				},
			},
		},
	}, nil
}

// errorResponse is the response of one error status of an operation: the error
// object with its code narrowed to codes, and the headers that status carries.
//
// The examples are the operation's captured error bodies (<operationId>.<code>.json),
// or for a shared response (operationID "") the generic ones (error.<code>.json).
func (b *openAPIBuilder) errorResponse(operationID string, status int, codes []registry.Code) (map[string]any, error) {
	enum := make([]any, 0, len(codes))
	var lines []string
	examples := map[string]any{}
	for _, c := range codes {
		enum = append(enum, string(c))
		ec := b.errors[c]
		lines = append(lines, fmt.Sprintf("- `%s`: %s %s", c, sentence(ec.When), sentence(upperFirst(ec.Action))))
		prefix := operationID
		if prefix == "" {
			prefix = "error"
		}
		v, err := b.example(prefix + "." + string(c) + ".json")
		if err != nil {
			return nil, err
		}
		if v != nil {
			examples[string(c)] = map[string]any{"summary": string(c), "value": v}
		}
	}
	media := map[string]any{
		"schema": map[string]any{
			"allOf": []any{
				map[string]any{"$ref": schemaRef(errorSchemaName)},
				map[string]any{
					"type": "object",
					"properties": map[string]any{
						// message is named again so that validators that treat
						// undeclared members as unevaluated per branch (Redocly's
						// example check) accept real bodies.
						"error": map[string]any{
							"type": "object",
							"properties": map[string]any{
								"code":    map[string]any{"enum": enum},
								"message": map[string]any{"type": "string"},
							},
						},
					},
				},
			},
		},
	}
	if len(examples) > 0 {
		media["examples"] = examples
	}
	resp := map[string]any{
		"description": http.StatusText(status) + ":\n\n" + strings.Join(lines, "\n"),
		"content":     map[string]any{"application/json": media},
	}
	if h := errorHeaders(status, codes); len(h) > 0 {
		resp["headers"] = h
	}
	return resp, nil
}

// errorHeaders are the headers an error status carries: Retry-After on 429 always
// and on 502 when the Peppol network asked peppolgate to wait; Allow on 405. The
// rate-limit headers are required on a 429 whose only code is rate_limited; a 429
// that may also be another limit (too many bulk requests at once) carries them when
// rate limits are on.
func errorHeaders(status int, codes []registry.Code) map[string]any {
	retryAfter := func(required bool, desc string) map[string]any {
		return map[string]any{
			"description": desc,
			"required":    required,
			"schema":      map[string]any{"type": "integer", "minimum": 1},
		}
	}
	switch status {
	case http.StatusTooManyRequests:
		required := len(codes) == 1 && codes[0] == codeRateLimited
		return map[string]any{
			"Retry-After": retryAfter(true, "Seconds to wait before retrying."),
			"RateLimit": map[string]any{"description": "The client's remaining quota (draft-ietf-httpapi-ratelimit-headers): `\"<class>\";r=0;t=<seconds until the bucket is full>`.",
				"required": required, "schema": map[string]any{"type": "string"}},
			"RateLimit-Policy": map[string]any{"description": "The limit that applies (draft-ietf-httpapi-ratelimit-headers): `\"<class>\";q=<burst>;w=<seconds to refill>`.",
				"required": required, "schema": map[string]any{"type": "string"}},
		}
	case http.StatusBadGateway:
		return map[string]any{"Retry-After": retryAfter(false, "Seconds to wait before retrying; sent when the Peppol network rate-limited peppolgate, is busy, or a failing upstream host is being left alone for a while (circuit breaker).")}
	case http.StatusMethodNotAllowed:
		return map[string]any{"Allow": map[string]any{
			"description": "The methods the path supports, comma-separated.",
			"required":    true,
			"schema":      map[string]any{"type": "string"},
		}}
	}
	return nil
}

// The server's codes for requests that no operation matches: a path that is not in
// the document, or a method the path does not have.
const (
	codeRouteNotFound    registry.Code = "route_not_found"
	codeMethodNotAllowed registry.Code = "method_not_allowed"
	// codeRateLimited is the server's code for a client over its rate limit.
	codeRateLimited registry.Code = "rate_limited"
)

// sharedResponseName is the name of the shared response whose only code is codes'
// only code, "" if there is none.
func sharedResponseName(codes []registry.Code) string {
	if len(codes) != 1 {
		return ""
	}
	switch codes[0] {
	case codeRouteNotFound:
		return "RouteNotFound"
	case codeMethodNotAllowed:
		return "MethodNotAllowed"
	}
	return ""
}

// sharedResponses are the responses to requests that no operation matches
// (RouteNotFound, MethodNotAllowed), for the codes the table has. They belong to no
// operation (OpenAPI has no wildcard path), so validators use them for such
// requests; an operation that lists the code refers to its shared response.
func (b *openAPIBuilder) sharedResponses() (map[string]any, error) {
	out := map[string]any{}
	for _, ec := range b.api.Errors {
		if name := sharedResponseName([]registry.Code{ec.Code}); name != "" {
			resp, err := b.errorResponse("", ec.Status, []registry.Code{ec.Code})
			if err != nil {
				return nil, err
			}
			out[name] = resp
		}
	}
	return out, nil
}

// component returns a $ref to s in components/schemas, adding it under its name:
// its title, the name of the Go type it was derived from, or fallback. A schema that
// is not an object is inlined.
func (b *openAPIBuilder) component(s *jsonschema.Schema, fallback string) (map[string]any, error) {
	m, err := b.inline(s)
	if err != nil {
		return nil, err
	}
	// Only a described object is worth a name: "any object" inlined says as much, and
	// unrelated bodies that are each "any object" must not share a component.
	_, hasProps := m["properties"]
	isObject := m["type"] == "object" || slices.Contains(asSlice(m["type"]), any("object"))
	if !isObject || (!hasProps && s.Title == "") {
		return m, nil
	}
	canon, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if name, ok := b.named[string(canon)]; ok {
		return map[string]any{"$ref": schemaRef(name)}, nil
	}
	name := fallback
	if s.Title != "" {
		name = componentName(s.Title)
	} else if k := b.knownName(s); k != "" {
		name = k
	}
	for i := 2; b.schemas[name] != nil; i++ {
		name = fmt.Sprintf("%s%d", strings.TrimRight(name, "0123456789"), i)
	}
	b.schemas[name] = m
	b.named[string(canon)] = name
	return map[string]any{"$ref": schemaRef(name)}, nil
}

// inline converts s to a JSON value, moving any $defs into components/schemas and
// pointing its $refs there: inside an OpenAPI document "#/$defs/…" would resolve
// against the document, not the schema.
func (b *openAPIBuilder) inline(s *jsonschema.Schema) (map[string]any, error) {
	m, err := schemaValue(s)
	if err != nil {
		return nil, err
	}
	delete(m, "$schema")
	defs, _ := m["$defs"].(map[string]any)
	delete(m, "$defs")
	if len(defs) == 0 {
		return m, nil
	}
	renamed := map[string]string{}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		target := componentName(name)
		for i := 2; b.schemas[target] != nil; i++ {
			target = fmt.Sprintf("%s%d", componentName(name), i)
		}
		b.schemas[target] = defs[name]
		renamed["#/$defs/"+name] = schemaRef(target)
	}
	for _, name := range names {
		rewriteRefs(defs[name], renamed)
	}
	rewriteRefs(m, renamed)
	return m, nil
}

// rewriteRefs replaces every "$ref" in v found in renamed.
func rewriteRefs(v any, renamed map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if ref, ok := x.(string); ok && k == "$ref" {
				if to, ok := renamed[ref]; ok {
					v[k] = to
				}
				continue
			}
			rewriteRefs(x, renamed)
		}
	case []any:
		for _, x := range v {
			rewriteRefs(x, renamed)
		}
	}
}

// schemaValue converts s to a generic JSON value, numbers kept exact.
func schemaValue(s *jsonschema.Schema) (map[string]any, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func schemaRef(name string) string { return "#/components/schemas/" + name }

// componentName makes s a valid component name (letters, digits, '.', '_', '-').
func componentName(s string) string {
	var sb strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-':
			if up {
				sb.WriteString(strings.ToUpper(string(r)))
			} else {
				sb.WriteRune(r)
			}
			up = false
		default:
			up = true
		}
	}
	if sb.Len() == 0 {
		return "Schema"
	}
	return sb.String()
}

// sentence returns s ending in a full stop.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// infoDescription is the document's description: what the service is, its error
// codes, its limits and its MCP endpoint.
func (b *openAPIBuilder) infoDescription() string {
	var sb strings.Builder
	sb.WriteString("peppolgate answers who is on the Peppol e-invoicing network and how to reach them: " +
		"it queries the SML (DNS), the participant's SMP and the Peppol Directory and answers in JSON. " +
		"No authentication: every endpoint is open.\n")
	if len(b.api.Errors) > 0 {
		sb.WriteString("\n## Errors\n\nEvery error is `{\"error\": {\"code\": \"…\", \"message\": \"…\"}}`. Codes:\n\n| code | status | when | what to do |\n|---|---|---|---|\n")
		for _, e := range b.api.Errors {
			fmt.Fprintf(&sb, "| `%s` | %d | %s | %s |\n", e.Code, e.Status, cell(e.When), cell(e.Action))
		}
		sb.WriteString("\nA path that is not in this document answers 404 `route_not_found` (`components/responses/RouteNotFound`); a method a path does not have answers 405 `method_not_allowed` with `Allow` (`components/responses/MethodNotAllowed`).\n")
	}
	if len(b.api.Limits) > 0 {
		sb.WriteString("\n## Limits\n\n")
		for _, l := range b.api.Limits {
			sb.WriteString("- " + l + "\n")
		}
	}
	if b.api.MCPPath != "" && len(b.api.Tools) > 0 {
		fmt.Fprintf(&sb, "\n## MCP\n\nThe same operations are MCP tools at `%s%s` (streamable HTTP):\n\n", b.api.BaseURL, b.api.MCPPath)
		for _, t := range b.api.Tools {
			fmt.Fprintf(&sb, "- `%s`: %s\n", t.Name, t.Title)
		}
	}
	return sb.String()
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// tagDescription says what the endpoints of a tag are for.
func tagDescription(tag string) string {
	switch tag {
	case "participants":
		return "Look up a Peppol participant and search the Peppol Directory."
	case "ask":
		return "Questions in plain language, answered from the same lookups."
	case "discovery":
		return "Documents that describe this API to clients and agents."
	case "health":
		return "Whether the service is up."
	case "mcp":
		return "The Model Context Protocol endpoint (JSON-RPC over streamable HTTP)."
	}
	return "Endpoints tagged " + tag + "."
}

// encodeDocument writes doc as two-space-indented JSON without HTML escaping (the
// descriptions hold '<' and '&'), ending in a newline.
func encodeDocument(doc any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("discovery: OpenAPI: %w", err)
	}
	return buf.Bytes(), nil
}

// knownSchema is a Go-derived schema and the component name it is published under.
type knownSchema struct {
	name  string
	canon string
}

// knownSchemas are the schemas derived from the Go types the handlers encode, so
// that the components carry the types' names rather than the operations'.
func knownSchemas() ([]knownSchema, error) {
	list := []struct {
		name   string
		schema *jsonschema.Schema
	}{
		{"Participant", tools.ParticipantSchema()},
		{"SearchResult", tools.SearchResultSchema()},
		{"AskAnswer", tools.Schema[nlq.Answer]()},
		{"AskStartEvent", tools.Schema[nlq.StartEvent]()},
		{"AskResultEvent", tools.Schema[nlq.ResultEvent]()},
		{"AskCompleteEvent", tools.Schema[nlq.CompleteEvent]()},
	}
	out := make([]knownSchema, 0, len(list))
	for _, k := range list {
		b, err := json.Marshal(k.schema)
		if err != nil {
			return nil, fmt.Errorf("discovery: schema %s: %w", k.name, err)
		}
		out = append(out, knownSchema{k.name, string(b)})
	}
	return out, nil
}

// knownName returns the name of s if it is one of the known schemas, else "".
func (b *openAPIBuilder) knownName(s *jsonschema.Schema) string {
	raw, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	for _, k := range b.known {
		if k.canon == string(raw) {
			return k.name
		}
	}
	return ""
}
