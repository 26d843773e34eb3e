package discovery

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// LLMsFullTxt returns llms-full.txt: the whole API in one Markdown document in the
// llmstxt.org spirit (an H1, a blockquote summary, then sections), generated from api:
// every endpoint with its parameters, request body, response fields and errors, the
// error table with what a client should do, the limits, MCP set-up for common clients,
// the tools with their argument schemas, worked examples and when not to use the
// service. The same api gives the same bytes. It returns documentBase's error, or an
// error when an endpoint names an error code that api.Errors does not have.
func LLMsFullTxt(api API) ([]byte, error) {
	base, err := documentBase(api)
	if err != nil {
		return nil, err
	}
	codes := make(map[registry.Code]ErrorCode, len(api.Errors))
	for _, e := range api.Errors {
		codes[e.Code] = e
	}
	for _, ep := range api.Endpoints {
		for _, c := range ep.Errors {
			if _, ok := codes[c]; !ok {
				return nil, fmt.Errorf("discovery: %s %s names error code %q, which API.Errors does not have", ep.Method, ep.Path, c)
			}
		}
	}
	w := &mdWriter{}
	fullIntro(w, api, base)
	fullNotFor(w)
	fullEndpoints(w, api, base, codes)
	fullErrors(w, api)
	fullWarnings(w)
	fullLimits(w, api)
	fullMCP(w, api, base)
	fullExamples(w, api, base)
	return []byte(w.String()), nil
}

// mdWriter builds the document; each section ends with a blank line.
type mdWriter struct{ strings.Builder }

// line writes the parts and a newline.
func (w *mdWriter) line(parts ...string) {
	for _, p := range parts {
		w.WriteString(p)
	}
	w.WriteByte('\n')
}

// code writes a fenced code block.
func (w *mdWriter) code(lang, body string) {
	w.line("```", lang)
	w.line(strings.TrimRight(body, "\n"))
	w.line("```")
	w.line()
}

func fullIntro(w *mdWriter, api API, base string) {
	w.line("# peppolgate")
	w.line()
	w.line("> peppolgate answers questions about the Peppol e-invoicing network, read-only and without " +
		"authentication: can this company receive e-invoices, under which participant identifier, through " +
		"which SMP and access point, for which document types. It speaks JSON over REST, MCP and plain language.")
	w.line()
	version := api.Version
	if version == "" {
		version = "dev"
	}
	w.line("Base URL: ", base, " (every URL below starts with it). Version: ", version, ".")
	w.line()
	w.line("One call does the SML DNS (U-NAPTR) lookup, reads the participant's SMP record and searches the " +
		"Peppol Directory, so a client gets one JSON record instead of DNS, XML and a rate-limited search. " +
		"No authentication: send no credentials. Every endpoint answers errors as JSON " +
		"`{\"error\": {\"code\": \"…\", \"message\": \"…\"}}`; the code is stable and listed under Errors, " +
		"the message is a sentence for people.")
	w.line()
	w.line("Field lists name nested fields by path: `a.b` is field b of object a, `a[]` an item of array a. " +
		"\"or null\" means the field is present with the value null; \"may be absent\" that it can be left out.")
	w.line()
	w.line("Machine-readable: OpenAPI 3.1 at ", base, "/openapi.json; the API catalog at ", base,
		"/.well-known/api-catalog; a short index at ", base, "/llms.txt.")
	w.line()
}

func fullNotFor(w *mdWriter) {
	w.line("## When not to use this service")
	w.line()
	for _, s := range []string{
		"To send or receive invoices or other documents: peppolgate is not a Peppol access point and transmits nothing. Use an access point provider.",
		"For personal data or private persons: it holds no personal data and answers only what Peppol publishes about organisations.",
		"As a company register or tax authority: names, addresses and numbers come from Peppol Directory business cards, which participants write themselves.",
		"For legal certainty that a delivery will succeed: the SMP record says where to send, not that the receiver will accept; a 502 means the Peppol network failed, not that the participant is missing.",
		"For bulk export or crawling the Directory: answers are rate-limited upstream and cached for minutes; ask about the participants you need.",
	} {
		w.line("- ", s)
	}
	w.line()
}

func fullEndpoints(w *mdWriter, api API, base string, codes map[registry.Code]ErrorCode) {
	w.line("## Endpoints")
	w.line()
	for _, ep := range api.Endpoints {
		w.line("### ", ep.Method, " ", ep.Path)
		w.line()
		if ep.Summary != "" {
			w.line("**", mdOneLine(ep.Summary), "**")
			w.line()
		}
		if d := strings.TrimSpace(ep.Description); d != "" {
			w.line(d)
			w.line()
		}
		w.line("URL: `", base, ep.Path, "`")
		w.line()
		if len(ep.Params) > 0 {
			w.line("Parameters:")
			w.line()
			for _, p := range ep.Params {
				req := "optional"
				if p.Required {
					req = "required"
				}
				item := fmt.Sprintf("- `%s` (%s, %s, %s)", p.Name, p.In, req, mdType(p.Schema, p.Schema))
				if d := mdOneLine(p.Description); d != "" {
					item += ": " + mdSentence(d)
				}
				if r := mdRules(p.Schema); r != "" {
					item = mdSentence(item) + " Rules: " + mdSentence(r)
				}
				if p.Example != nil {
					item = mdSentence(item) + " Example: `" + mdPlain(p.Example) + "`."
				}
				w.line(item)
			}
			w.line()
		}
		if b := ep.Body; b != nil {
			req := "optional"
			if b.Required {
				req = "required"
			}
			w.line("Request body (", req, ", ", strings.Join(b.MediaTypes, " or "), "): ", mdOneLine(b.Description))
			w.line()
			fullFields(w, b.Schema, true)
			for _, name := range mdSortedKeys(b.Examples) {
				w.line("Example body (", name, "):")
				w.line()
				w.code("json", mdIndentJSON(b.Examples[name]))
			}
			for _, mt := range b.MediaTypes {
				tb, ok := b.Text[mt]
				if !ok {
					continue
				}
				if tb.Schema != nil && tb.Schema.Description != "" {
					w.line("As ", mt, ": ", mdOneLine(tb.Schema.Description))
					w.line()
				}
				for _, name := range mdSortedKeys(tb.Examples) {
					w.line("Example body (", name, ", ", mt, "):")
					w.line()
					w.code("", tb.Examples[name])
				}
			}
		}
		for _, r := range ep.Responses {
			head := fmt.Sprintf("Response %d", r.Status)
			if r.MediaType != "" {
				head += " (" + r.MediaType + ")"
			}
			w.line(head, ": ", mdOneLine(r.Description))
			w.line()
			fullFields(w, r.Schema, false)
			fullEvents(w, r.MediaType, r.Events)
			if r.Example != nil {
				w.line("Example:")
				w.line()
				if s, ok := r.Example.(string); ok {
					w.code("", s)
				} else {
					w.code("json", mdIndentJSON(r.Example))
				}
			}
		}
		if len(ep.Headers) > 0 {
			w.line("Response headers:")
			w.line()
			for _, h := range mdSortedKeys(ep.Headers) {
				w.line("- `", h, "`: ", mdOneLine(ep.Headers[h]))
			}
			w.line()
		}
		if len(ep.Errors) > 0 {
			items := make([]string, len(ep.Errors))
			for i, c := range ep.Errors {
				items[i] = fmt.Sprintf("`%s` (%d)", c, codes[c].Status)
			}
			w.line("Errors: ", strings.Join(items, ", "), "; see Errors for what to do.")
			w.line()
		}
	}
}

// fullEvents lists the events of a stream, in the order they are sent, or the kinds
// of line of an NDJSON body, each with the fields of its data.
func fullEvents(w *mdWriter, mediaType string, events []Event) {
	if len(events) == 0 {
		return
	}
	kind := "Event"
	if mediaType == ndjsonType {
		kind = "Line"
		w.line("Each line is one JSON value. Kinds of line:")
	} else {
		w.line("Each event is `event: <name>` and one `data:` line of JSON. Events, in order:")
	}
	w.line()
	for _, e := range events {
		w.line(kind, " `", e.Name, "`: ", mdSentence(mdOneLine(e.Description)))
		w.line()
		fullFields(w, e.Schema, false)
	}
}

// fullFields lists every property of s. In a request body "required" means the client
// must send it; in a response, a field not required may be absent. A schema that is
// one of several shapes (the events of a stream) lists each shape on its own.
func fullFields(w *mdWriter, s *jsonschema.Schema, request bool) {
	if s != nil && len(s.Properties) == 0 && len(mdAlternatives(s)) > 0 {
		for i, alt := range mdAlternatives(s) {
			alt = mdResolve(s, alt)
			label := mdDescribe(alt)
			if label == "" {
				label = mdType(s, alt)
			}
			w.line(fmt.Sprintf("Shape %d: %s", i+1, label))
			w.line()
			fullFieldList(w, mdFieldsFrom(s, alt), request)
		}
		return
	}
	fullFieldList(w, mdFields(s), request)
}

func fullFieldList(w *mdWriter, fs []mdField, request bool) {
	if len(fs) == 0 {
		return
	}
	w.line("Fields:")
	w.line()
	for _, f := range fs {
		kind := f.typ
		switch {
		case request && f.required:
			kind += ", required"
		case request:
			kind += ", optional"
		case !f.required:
			kind += ", may be absent"
		}
		item := "- `" + f.path + "` (" + kind + ")"
		if f.description != "" {
			item += ": " + mdSentence(f.description)
		}
		if f.rules != "" {
			item = mdSentence(item) + " Rules: " + f.rules
		}
		w.line(mdSentence(item))
	}
	w.line()
}

// mdSentence ends s with a full stop unless it ends with punctuation already.
func mdSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?:") {
		return s
	}
	return s + "."
}

// fullWarnings lists every warning code an answer may carry (registry.WarningDocs).
func fullWarnings(w *mdWriter) {
	w.line("## Warnings")
	w.line()
	w.line("Answers carry `warnings` (`{code, message}` each) about things a caller should know; the answer is still right. " +
		"Act on the code; the message says what it means for this participant.")
	w.line()
	w.line("| code | meaning |")
	w.line("|---|---|")
	for _, d := range registry.WarningDocs() {
		w.line(fmt.Sprintf("| `%s` | %s |", d.Code, mdCell(d.Meaning)))
	}
	w.line()
}

func fullErrors(w *mdWriter, api API) {
	w.line("## Errors")
	w.line()
	w.line("Every error is JSON `{\"error\": {\"code\": \"…\", \"message\": \"…\"}}` with the HTTP status below. " +
		"Act on the code, not the message. A 429 or 502 may carry `Retry-After` (seconds).")
	w.line()
	w.line("| code | status | when | what to do |")
	w.line("|---|---|---|---|")
	errs := slices.Clone(api.Errors)
	slices.SortStableFunc(errs, func(a, b ErrorCode) int {
		if a.Status != b.Status {
			return a.Status - b.Status
		}
		return strings.Compare(string(a.Code), string(b.Code))
	})
	for _, e := range errs {
		w.line(fmt.Sprintf("| `%s` | %d %s | %s | %s |", e.Code, e.Status, http.StatusText(e.Status),
			mdCell(e.When), mdCell(e.Action)))
	}
	w.line()
}

func fullLimits(w *mdWriter, api API) {
	w.line("## Limits and rate limits")
	w.line()
	if len(api.Limits) == 0 {
		w.line("No documented limits.")
		w.line()
		return
	}
	for _, l := range api.Limits {
		w.line("- ", mdOneLine(l))
	}
	w.line()
}

func fullMCP(w *mdWriter, api API, base string) {
	if api.MCPPath == "" {
		return
	}
	mcpURL := base + api.MCPPath
	w.line("## MCP")
	w.line()
	w.line("peppolgate is an MCP server (streamable HTTP at ", mcpURL, ", POST JSON-RPC; no authentication). ",
		"Its tools are the same operations as the REST API, with the same schemas and error codes. ",
		"A failed call is a tool result with `isError: true` whose text starts with the error code. ",
		"It also offers the resource `peppolgate://schemes` (the participant identifier schemes) and the prompt `check_invoice_recipient`.")
	w.line()
	w.line("A local alternative is stdio: the client starts `peppolgate mcp` itself (same flags as the service, e.g. `-network test`; logs go to stderr). Build it with `go build -o ~/bin/peppolgate ./cmd/peppolgate`.")
	w.line()
	w.line("### Set-up")
	w.line()
	w.line("| client | how |")
	w.line("|---|---|")
	w.line("| Claude Code | `claude mcp add --transport http peppolgate ", mcpURL, "` or, over stdio, `claude mcp add peppolgate -- ~/bin/peppolgate mcp` |")
	w.line("| Claude Desktop | `claude_desktop_config.json`: `{\"mcpServers\": {\"peppolgate\": {\"command\": \"/home/you/bin/peppolgate\", \"args\": [\"mcp\"]}}}` |")
	w.line("| VS Code (Copilot) | `.vscode/mcp.json`: `{\"servers\": {\"peppolgate\": {\"type\": \"http\", \"url\": \"", mcpURL, "\"}}}` |")
	w.line("| Cursor | `~/.cursor/mcp.json`: `{\"mcpServers\": {\"peppolgate\": {\"url\": \"", mcpURL, "\"}}}` |")
	w.line("| MCP Inspector | `npx @modelcontextprotocol/inspector --cli ", mcpURL, " --method tools/list` |")
	w.line()
	w.line("/mcp checks `Origin` and `Host` against DNS rebinding: a browser origin other than the service's own gets 403 `forbidden`.")
	w.line()
	if len(api.Tools) == 0 {
		return
	}
	w.line("### Tools")
	w.line()
	for _, t := range api.Tools {
		w.line("#### ", t.Name)
		w.line()
		if t.Title != "" {
			w.line("**", mdOneLine(t.Title), "**")
			w.line()
		}
		if d := strings.TrimSpace(t.Description); d != "" {
			w.line(d)
			w.line()
		}
		w.line("Behaviour: ", mdAnnotations(t.Annotations), ".")
		w.line()
		w.line("Arguments:")
		w.line()
		fullFields(w, t.Input, true)
		if ep, ok := fullSameSchema(api, t); ok {
			w.line("Result (`structuredContent`): the same schema as the 200 body of ", ep.Method, " ", ep.Path,
				", whose fields are listed there; plus a short text.")
			w.line()
		} else if t.Output != nil {
			w.line("Result (`structuredContent`), plus a short text:")
			w.line()
			fullFields(w, t.Output, false)
		}
	}
}

// mdAnnotations renders a tool's behaviour hints as words.
func mdAnnotations(a tools.Annotations) string {
	var parts []string
	if a.ReadOnly {
		parts = append(parts, "read-only")
	} else if a.Destructive {
		parts = append(parts, "may change or delete data")
	} else {
		parts = append(parts, "may change data")
	}
	if a.Idempotent {
		parts = append(parts, "idempotent")
	}
	if a.OpenWorld {
		parts = append(parts, "talks to the live Peppol network")
	}
	return strings.Join(parts, ", ")
}

// fullSameSchema finds the endpoint whose 200 JSON body has the tool's output
// schema, so the fields are listed once.
func fullSameSchema(api API, t tools.Tool) (Endpoint, bool) {
	if t.Output == nil {
		return Endpoint{}, false
	}
	want, err := json.Marshal(t.Output)
	if err != nil {
		return Endpoint{}, false
	}
	for _, ep := range api.Endpoints {
		for _, r := range ep.Responses {
			if r.Status != http.StatusOK || r.Schema == nil {
				continue
			}
			got, err := json.Marshal(r.Schema)
			if err == nil && reflect.DeepEqual(got, want) {
				return ep, true
			}
		}
	}
	return Endpoint{}, false
}

func fullExamples(w *mdWriter, api API, base string) {
	type example struct{ label, cmd string }
	var examples []example
	for _, ep := range api.Endpoints {
		// Documents and probes need no example; MCP is spoken by clients, not curl.
		if ep.Tag == "discovery" || ep.Tag == "health" || (api.MCPPath != "" && ep.Path == api.MCPPath) {
			continue
		}
		label := mdOneLine(ep.Summary)
		if label == "" {
			label = ep.OperationID
		}
		for _, c := range mdCurl(ep, base) {
			examples = append(examples, example{label + " (" + ep.Method + " " + ep.Path + c.note + "):", c.cmd})
		}
	}
	if api.MCPPath != "" && len(api.Tools) > 0 {
		examples = append(examples, example{"List the MCP tools from a shell (an MCP client does this for you):",
			"npx @modelcontextprotocol/inspector --cli " + base + api.MCPPath + " --method tools/list"})
	}
	if len(examples) == 0 {
		return
	}
	w.line("## Worked examples")
	w.line()
	for _, e := range examples {
		w.line(e.label)
		w.line()
		w.code("sh", e.cmd)
	}
}

// mdCommand is a worked example: a shell command and what distinguishes it.
type mdCommand struct{ cmd, note string }

// mdCurl returns the curl commands that call ep with its examples: one for a GET, one
// per body example for a POST, and a streamed one when the endpoint can answer with
// server-sent events. Other methods get none.
func mdCurl(ep Endpoint, base string) []mdCommand {
	u := base + ep.Path
	var query []string
	for _, p := range ep.Params {
		if p.Example == nil {
			continue
		}
		v := mdPlain(p.Example)
		switch p.In {
		case "path":
			u = strings.ReplaceAll(u, "{"+p.Name+"}", url.PathEscape(v))
		case "query":
			query = append(query, url.QueryEscape(p.Name)+"="+url.QueryEscape(v))
		}
	}
	if len(query) > 0 {
		u += "?" + strings.Join(query, "&")
	}
	switch ep.Method {
	case http.MethodGet:
		return []mdCommand{{cmd: "curl -s " + mdShellQuote(u)}}
	case http.MethodPost:
		if ep.Body == nil || len(ep.Body.Examples) == 0 {
			return []mdCommand{{cmd: "curl -s -X POST " + mdShellQuote(u)}}
		}
		mt := "application/json"
		if len(ep.Body.MediaTypes) > 0 {
			mt = ep.Body.MediaTypes[0]
		}
		names := mdSortedKeys(ep.Body.Examples)
		var out []mdCommand
		for _, name := range names {
			out = append(out, mdCommand{
				cmd:  "curl -s " + mdShellQuote(u) + " -H 'Content-Type: " + mt + "' -d " + mdShellQuote(mdJSON(ep.Body.Examples[name])),
				note: ", example " + name,
			})
		}
		for _, tmt := range ep.Body.MediaTypes {
			tb, ok := ep.Body.Text[tmt]
			if !ok {
				continue
			}
			for _, name := range mdSortedKeys(tb.Examples) {
				out = append(out, mdCommand{
					cmd:  "curl -s " + mdShellQuote(u) + " -H 'Content-Type: " + tmt + "' --data-binary " + mdShellQuote(tb.Examples[name]),
					note: ", example " + name,
				})
			}
		}
		if slices.ContainsFunc(ep.Responses, func(r Response) bool { return r.MediaType == "text/event-stream" }) {
			out = append(out, mdCommand{
				cmd: "curl -s -N " + mdShellQuote(u) + " -H 'Content-Type: " + mt + "' -H 'Accept: text/event-stream' -d " +
					mdShellQuote(mdJSON(ep.Body.Examples[names[0]])),
				note: ", example " + names[0] + " as server-sent events",
			})
		}
		return out
	}
	return nil
}

// mdShellQuote quotes s for a POSIX shell.
func mdShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// mdCell makes s safe for a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdOneLine(s), "|", `\|`)
}

// mdIndentJSON renders v as indented JSON; a json.RawMessage is re-indented.
func mdIndentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func mdSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// mdMaxDepth bounds the walk through nested schemas, so a recursive $ref cannot
// make the documents infinite.
const mdMaxDepth = 12

// mdField is one property of a JSON Schema, flattened for listing: its dotted path
// (arrays as "[]"), type text, rules, description and whether it must be present.
type mdField struct {
	path        string
	typ         string
	rules       string
	description string
	required    bool
}

// mdFields walks s recursively and returns every property, parents before their
// children, in the schema's property order (Go field order for derived schemas, then
// the rest sorted), so the listing is deterministic.
func mdFields(s *jsonschema.Schema) []mdField { return mdFieldsFrom(s, s) }

// mdFieldsFrom is mdFields of s, a part of root against which references resolve. A
// path that several alternatives share is listed once, with the first one's type.
func mdFieldsFrom(root, s *jsonschema.Schema) []mdField {
	var all []mdField
	mdWalk(root, s, "", 0, &all)
	out := all[:0]
	seen := make(map[string]bool, len(all))
	for _, f := range all {
		if !seen[f.path] {
			seen[f.path] = true
			out = append(out, f)
		}
	}
	return out
}

func mdWalk(root, s *jsonschema.Schema, prefix string, depth int, out *[]mdField) {
	s = mdResolve(root, s)
	if s == nil || depth > mdMaxDepth {
		return
	}
	for _, name := range mdPropertyNames(s) {
		p := mdResolve(root, s.Properties[name])
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		*out = append(*out, mdField{
			path:        path,
			typ:         mdType(root, p),
			rules:       mdRulesWithAlternatives(root, p),
			description: mdDescribe(p),
			required:    slices.Contains(s.Required, name),
		})
		mdWalkChildren(root, p, path, depth+1, out)
	}
	// A schema that is one of several shapes lists the fields of each object shape.
	for _, alt := range mdAlternatives(s) {
		mdWalk(root, alt, prefix, depth+1, out)
	}
}

// mdWalkChildren descends into an object's properties or an array's items.
func mdWalkChildren(root, p *jsonschema.Schema, path string, depth int, out *[]mdField) {
	if p == nil {
		return
	}
	if len(p.Properties) > 0 || len(mdAlternatives(p)) > 0 {
		mdWalk(root, p, path, depth, out)
	}
	if items := mdResolve(root, p.Items); items != nil {
		mdWalkChildren(root, items, path+"[]", depth+1, out)
	}
}

// mdAlternatives returns the anyOf/oneOf branches of s.
func mdAlternatives(s *jsonschema.Schema) []*jsonschema.Schema {
	return append(slices.Clone(s.AnyOf), s.OneOf...)
}

// mdResolve follows a local "#/$defs/…" or "#/definitions/…" reference against root.
func mdResolve(root, s *jsonschema.Schema) *jsonschema.Schema {
	for range mdMaxDepth {
		if s == nil || s.Ref == "" || root == nil {
			return s
		}
		name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
		defs := root.Defs
		if !ok {
			name, ok = strings.CutPrefix(s.Ref, "#/definitions/")
			defs = root.Definitions
		}
		next, found := defs[name]
		if !ok || !found {
			return s
		}
		s = next
	}
	return s
}

// mdPropertyNames returns the names of s's properties: those in PropertyOrder first, in
// that order, then the others sorted.
func mdPropertyNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// mdTypes returns the JSON types s allows, "null" last.
func mdTypes(s *jsonschema.Schema) []string {
	var ts []string
	if s.Type != "" {
		ts = []string{s.Type}
	} else {
		ts = slices.Clone(s.Types)
	}
	if i := slices.Index(ts, "null"); i >= 0 {
		ts = append(slices.Delete(ts, i, i+1), "null")
	}
	return ts
}

// mdType renders s's type for a reader: "string (date-time)", "array of object",
// "object or null", "string | object" for alternatives.
func mdType(root, s *jsonschema.Schema) string {
	s = mdResolve(root, s)
	if s == nil {
		return "any"
	}
	ts := mdTypes(s)
	if len(ts) == 0 {
		if alts := mdAlternatives(s); len(alts) > 0 {
			parts := make([]string, 0, len(alts))
			for _, a := range alts {
				if t := mdType(root, a); !slices.Contains(parts, t) {
					parts = append(parts, t)
				}
			}
			return strings.Join(parts, " | ")
		}
		if s.Const != nil {
			return "constant " + mdJSON(*s.Const)
		}
		return "any"
	}
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		switch {
		case t == "array" && s.Items != nil:
			t = "array of " + mdType(root, s.Items)
		case s.Format != "" && t != "null":
			t += " (" + s.Format + ")"
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " or ")
}

// mdRules renders the validation keywords of s that a client must respect.
func mdRules(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	var r []string
	if s.Pattern != "" {
		r = append(r, "pattern `"+s.Pattern+"`")
	}
	switch {
	case s.MinLength != nil && s.MaxLength != nil:
		r = append(r, fmt.Sprintf("%d to %d characters", *s.MinLength, *s.MaxLength))
	case s.MinLength != nil:
		r = append(r, fmt.Sprintf("at least %d characters", *s.MinLength))
	case s.MaxLength != nil:
		r = append(r, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.Minimum != nil {
		r = append(r, "minimum "+mdNumber(*s.Minimum))
	}
	if s.Maximum != nil {
		r = append(r, "maximum "+mdNumber(*s.Maximum))
	}
	if s.MinItems != nil {
		r = append(r, fmt.Sprintf("at least %d items", *s.MinItems))
	}
	if s.MaxItems != nil {
		r = append(r, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = "`" + mdJSON(v) + "`"
		}
		r = append(r, "one of "+strings.Join(vals, ", "))
	}
	if s.Const != nil {
		r = append(r, "always `"+mdJSON(*s.Const)+"`")
	}
	if len(s.Default) > 0 {
		r = append(r, "default `"+string(s.Default)+"`")
	}
	if len(s.Examples) > 0 {
		vals := make([]string, len(s.Examples))
		for i, v := range s.Examples {
			vals[i] = "`" + mdPlain(v) + "`"
		}
		r = append(r, "e.g. "+strings.Join(vals, ", "))
	}
	return strings.Join(r, "; ")
}

// mdRulesWithAlternatives is mdRules of s, followed by the rules of each of its
// alternatives that is not an object (e.g. "as string: 1 to 500 characters").
func mdRulesWithAlternatives(root, s *jsonschema.Schema) string {
	rules := []string{}
	if r := mdRules(s); r != "" {
		rules = append(rules, r)
	}
	for _, a := range mdAlternatives(s) {
		a = mdResolve(root, a)
		if r := mdRules(a); r != "" && len(a.Properties) == 0 {
			rules = append(rules, "as "+mdType(root, a)+": "+r)
		}
	}
	return strings.Join(rules, "; ")
}

// mdDescribe returns s's description (or title) on one line.
func mdDescribe(s *jsonschema.Schema) string {
	if s == nil {
		return ""
	}
	d := s.Description
	if d == "" {
		d = s.Title
	}
	return mdOneLine(d)
}

// mdOneLine joins the lines of s with spaces, for list items and table cells.
func mdOneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// mdJSON renders v as compact JSON; a value that cannot be encoded is shown with %v.
func mdJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// mdPlain renders v as it would be typed: a string without quotes, anything else as JSON.
func mdPlain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return mdJSON(v)
}

func mdNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
