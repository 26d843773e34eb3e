package server

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// mcpPath is where MCP is served.
const mcpPath = "/mcp"

// route is one endpoint: how the documents describe it and the handler that serves
// it. The router is built from the same table, so a route cannot exist undocumented.
type route struct {
	discovery.Endpoint
	// handler serves the endpoint; nil for /mcp, which is mounted as a whole.
	handler handlerFunc
	// class is the rate-limit class the endpoint's requests are charged to
	// (classREST, classAsk, classMCP); "" for endpoints that are never limited.
	class string
}

// commonErrors are the error codes every endpoint can answer with.
func commonErrors() []registry.Code { return []registry.Code{CodeMethodNotAllowed, CodeInternal} }

// table returns every endpoint. GET endpoints also answer HEAD and CORS preflights;
// POST ones preflights.
func (s *Server) table() []route {
	// notModified answers a discovery document's conditional GET (ETag, If-None-Match).
	notModified := discovery.Response{Status: http.StatusNotModified, Description: "Not modified: If-None-Match named the document's ETag."}
	jsonOK := func(desc string, schema *jsonschema.Schema) []discovery.Response {
		return []discovery.Response{{Status: http.StatusOK, Description: desc, MediaType: "application/json", Schema: schema}}
	}
	markdown := func(desc string) []discovery.Response {
		return []discovery.Response{{Status: http.StatusOK, Description: desc, MediaType: "text/markdown", Schema: &jsonschema.Schema{Type: "string"}}, notModified}
	}
	freshness := map[string]string{
		"X-Cache":       "hit, miss or stale: whether the answer came from peppolgate's cache, and whether it is an older answer served because the upstream failed",
		"Age":           "seconds since the answer was fetched from the Peppol network (cached answers)",
		"Cache-Control": "how long the answer may be reused",
	}
	status := tools.Schema[statusBody]()
	status.Title = "Status"
	// network is the optional parameter of the lookups that picks the network, when
	// the server names its networks.
	network := func(params ...discovery.Param) []discovery.Param {
		if s.nets == nil {
			return params
		}
		names := s.nets.Names()
		enum := make([]any, len(names))
		for i, n := range names {
			enum[i] = n
		}
		return append(params, discovery.Param{Name: "network", In: "query", Description: tools.NetworkDescription(names),
			Schema: &jsonschema.Schema{Type: "string", Enum: enum}, Example: names[len(names)-1]})
	}
	// participantID is the path parameter of the endpoints about one participant.
	participantID := discovery.Param{Name: "participantId", In: "path", Required: true,
		Description: "`<scheme>:<value>`: 4 digits, a colon, then letters, digits, '.', '_', '-' or '+'; case-insensitive; " +
			"may be percent-encoded and prefixed with `iso6523-actorid-upis::`. E.g. 0208:0677424046 (Belgian enterprise number), 0192:923609016 (Norwegian organisation number).",
		Schema:  &jsonschema.Schema{Type: "string", Pattern: tools.ParticipantIDPattern, MaxLength: ptr(len(peppol.ParticipantScheme) + 2 + peppol.MaxParticipantIDLength)},
		Example: "0208:0677424046"}
	routes := []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/participant/{participantId}", OperationID: "getParticipant", Tag: "participants",
			Summary: "Look up a Peppol participant",
			Description: "Resolves one participant by its identifier: its Peppol Directory business card and what its SMP publishes " +
				"(its document types, named from the Peppol code lists, and the access point endpoint for invoices), with `warnings` about anything that would make sending fail " +
				"(certificates, service dates, transport profile, deprecated document types, a missing or disagreeing Directory card). `directory` is null when there is no card, " +
				"`smp` null when the SML does not know the participant. 404 only when neither knows it; an upstream failure is 502, never 404.",
			Params:    network(participantID),
			Responses: jsonOK("The participant record.", tools.ParticipantSchema()),
			Errors:    append([]registry.Code{registry.CodeInvalidParticipantID, registry.CodeInvalidRequest, registry.CodeNotFound, registry.CodeLookupFailed}, commonErrors()...),
			Headers:   freshness,
		}, handler: s.participant, class: classREST},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/participant/{participantId}/services", OperationID: "getParticipantServices", Tag: "participants",
			Summary: "List what a participant can receive",
			Description: "Every document type the participant's SMP lists, each with its processes and access point endpoints: names and code-list states " +
				"(active, deprecated, removed) from the Peppol code lists, transport profile, URL, activation and expiration dates and the certificate " +
				"(issuer, validity, days remaining). The ServiceMetadata documents are fetched concurrently, a few at a time. `warnings` on each endpoint, " +
				"each service and (one per code) on the whole answer say what would make sending fail or is about to: certificate expired or expiring " +
				"within 30 days or not issued by the Peppol access point CA, service not yet active or expired, endpoint not https or not on port 443, " +
				"deprecated or removed transport profile or document type, non-standard ids. With `docType`, only that document type. " +
				"404 when the participant is not registered or its SMP does not list `docType`; an upstream failure is 502, never 404.",
			Params: network(participantID,
				discovery.Param{Name: "docType", In: "query", Description: "Only this document type, `<scheme>::<value>`, e.g. the Peppol BIS Billing 3.0 invoice " +
					"`busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1`.",
					Schema:  &jsonschema.Schema{Type: "string", MinLength: ptr(3), MaxLength: ptr(tools.MaxDocTypeLength)},
					Example: "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"},
			),
			Responses: jsonOK("The participant's services.", tools.ServicesSchema()),
			Errors:    append([]registry.Code{registry.CodeInvalidParticipantID, registry.CodeInvalidRequest, registry.CodeNotFound, registry.CodeLookupFailed}, commonErrors()...),
			Headers:   freshness,
		}, handler: s.services, class: classREST},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/api/v1/search", OperationID: "searchDirectory", Tag: "participants",
			Summary: "Search the Peppol Directory",
			Description: "Full-text search of the Peppol Directory by company name or registration/VAT number (any common notation; " +
				"numbers are matched exactly against participant ids and the cards' identifiers). At most 25 results, exact identifier matches first; " +
				"`totalCount` is the number of matches known. Give `country` alone (no `q`, e.g. `?country=NO`) to count a country's participants (`totalCount`) " +
				"and get the first of them.",
			Params: network(
				discovery.Param{Name: "q", In: "query", Description: "Company name or part of it, or a registration or VAT number, e.g. `vandelanotte` or `BE0677424046`. " +
					"Required unless `country` is given; leave it out (or empty) with `country` to count that country's participants.",
					Schema: &jsonschema.Schema{Type: "string", MinLength: ptr(registry.MinQueryLength), MaxLength: ptr(registry.MaxQueryLength)}, Example: "BE0677424046"},
				discovery.Param{Name: "country", In: "query", Description: "Only participants of this country: an ISO 3166 alpha-2 code, e.g. BE; alone, every participant of that country.",
					Schema: &jsonschema.Schema{Type: "string", Pattern: tools.CountryPattern}, Example: "BE"},
			),
			Responses: jsonOK("The matches.", tools.SearchResultSchema()),
			Errors:    append([]registry.Code{registry.CodeMissingQuery, registry.CodeQueryTooShort, registry.CodeInvalidRequest, registry.CodeSearchFailed}, commonErrors()...),
			Headers:   freshness,
		}, handler: s.search, class: classREST},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodPost, Path: "/ask", OperationID: "ask", Tag: "ask",
			Summary: "Ask in plain language",
			Description: "Answers a question about Peppol participants (English, French, Dutch, German, Norwegian, Swedish) by calling the tools, " +
				"in the question's language (`_meta.language`): JSON by default, or server-sent events with `Accept: text/event-stream` or `prefer.streaming`: " +
				"`start` (how it was planned), one `result` per item (with `failed` when a call about it failed upstream), `complete` (the answer; " +
				"`failed` lists the calls that failed while others answered; `error` only when nothing could be answered). " +
				"A client that disconnects cancels the upstream work.",
			Body: &discovery.Body{Required: true, Description: fmt.Sprintf(`{"query": "…"}, or NLWeb's {"query": {"text": "…"}, "prefer": {"streaming": true}}; at most %s, the query 1–%d characters.`, spelledSize(maxAskBody), nlq.MaxQueryLength),
				MediaTypes: []string{"application/json"}, Schema: askRequestSchema(),
				Examples: map[string]any{
					"plain": map[string]any{"query": "Can Vandelanotte receive credit notes?"},
					"nlweb": map[string]any{"query": map[string]any{"text": "Welk access point bedient BE0677424046?"}, "prefer": map[string]any{"streaming": true}},
				}},
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "The answer.", MediaType: "application/json", Schema: tools.Schema[nlq.Answer]()},
				{Status: http.StatusOK, Description: "The answer as server-sent events: start, result (one per item), complete.", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"},
					Events: []discovery.Event{
						{Name: "start", Description: "First, once the question is planned: how, and the first tool calls.", Schema: tools.Schema[nlq.StartEvent]()},
						{Name: "result", Description: "One per item, in index order, each as soon as it is ready.", Schema: tools.Schema[nlq.ResultEvent]()},
						{Name: "complete", Description: "Last: the answer, every call made, the item count, the calls that failed upstream; error when nothing could be answered.", Schema: tools.Schema[nlq.CompleteEvent]()},
					}},
			},
			Errors: append([]registry.Code{registry.CodeInvalidRequest, CodeUnsupportedMediaType, nlq.CodeAskFailed}, commonErrors()...),
		}, handler: s.ask, class: classAsk},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodPost, Path: mcpPath, OperationID: "mcp", Tag: "mcp",
			Summary: "MCP (streamable HTTP)",
			Description: "The Model Context Protocol endpoint (streamable HTTP transport; GET opens the event stream, DELETE ends a session): " +
				"tools lookup_participant, search_directory and get_participant_services, the resource peppolgate://schemes, the prompt check_invoice_recipient. " +
				"Requests from a browser origin or Host that is not allowed get 403 (DNS-rebinding protection).",
			Body: &discovery.Body{Required: true, Description: "A JSON-RPC 2.0 message of the MCP protocol.", MediaTypes: []string{"application/json"},
				Schema: &jsonschema.Schema{Type: "object"}},
			Responses: append([]discovery.Response{
				{Status: http.StatusOK, Description: "A JSON-RPC response.", MediaType: "application/json", Schema: &jsonschema.Schema{Type: "object"}},
				{Status: http.StatusOK, Description: "JSON-RPC messages as server-sent events.", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"}},
				{Status: http.StatusAccepted, Description: "A notification or response was accepted."},
			}, mcpTransportErrors()...),
			Errors: []registry.Code{CodeForbidden, CodeMethodNotAllowed},
		}, class: classMCP},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: mcpPath, OperationID: "mcpStream", Tag: "mcp",
			Summary: "MCP server-to-client event stream",
			Description: "Opens the streamable HTTP transport's event stream for a session (`Mcp-Session-Id` of a live session this server started), on which the server may send requests and notifications. " +
				fmt.Sprintf("The stream carries a heartbeat every %d s and ends after %s (reconnect); a client may hold %d streams at once and the server %d (503 service_unavailable beyond, and while shutting down).",
					int(mcpHeartbeat/time.Second), spelledDuration(mcpStreamLifetime), maxMCPStreamsPerClient, maxMCPStreams),
			Responses: append([]discovery.Response{
				{Status: http.StatusOK, Description: "JSON-RPC messages as server-sent events.", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"}},
			}, mcpTransportErrors()...),
			Errors: []registry.Code{CodeForbidden, CodeMethodNotAllowed, CodeUnavailable},
		}, class: classMCP},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodDelete, Path: mcpPath, OperationID: "mcpEndSession", Tag: "mcp",
			Summary:     "End an MCP session",
			Description: "Ends the session named by `Mcp-Session-Id`.",
			Responses: append([]discovery.Response{
				{Status: http.StatusOK, Description: "The session is ended."},
			}, mcpTransportErrors()...),
			Errors: []registry.Code{CodeForbidden, CodeMethodNotAllowed},
		}, class: classMCP},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/healthz", OperationID: "healthz", Tag: "health",
			Summary: "Liveness", Description: "200 while the process serves HTTP.",
			Responses: jsonOK("Alive.", status),
			Errors:    commonErrors(),
		}, handler: s.healthz},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/readyz", OperationID: "readyz", Tag: "health",
			Summary: "Readiness", Description: "200 when the service takes traffic, 503 while it does not (e.g. shutting down). With a Directory mirror, the answer also says how old its data is (mirror.dataAsOf, mirror.state); a stale or empty mirror does not make the service unready, because the live Directory answers instead.",
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "Ready.", MediaType: "application/json", Schema: status},
				{Status: http.StatusServiceUnavailable, Description: "Not ready; retry shortly.", MediaType: "application/json", Schema: status},
			},
			Errors: commonErrors(),
		}, handler: s.readyz},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: metricsPath, OperationID: "metrics", Tag: "health",
			Summary: "Prometheus metrics",
			Description: "Counters, gauges and histograms in the Prometheus text format (version 0.0.4), whatever Accept asks for: " +
				"`peppolgate_http_requests_total` (method, route pattern, status), `peppolgate_http_request_duration_seconds` (method, route), " +
				"`peppolgate_http_event_streams_in_flight` (route), `peppolgate_http_rate_limited_total` (class), " +
				"`peppolgate_upstream_requests_total` and `peppolgate_upstream_request_duration_seconds` (kind: sml, smp, directory; outcome), " +
				"`peppolgate_cache_requests_total` (kind: lookup, search; result: hit, miss, stale), `peppolgate_build_info`, and the Go runtime's and the process's. " +
				"Rate limited per client at the REST API's rate, in the buckets of the documents (loopback is exempt by default, so a local scraper is not); logged at debug level only.",
			Responses: []discovery.Response{{Status: http.StatusOK, Description: "The metrics.", MediaType: "text/plain", Schema: &jsonschema.Schema{Type: "string"}}},
			Errors:    commonErrors(),
		}, handler: s.metricsEndpoint, class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/", OperationID: "index", Tag: "discovery",
			Summary: "Index", Description: "Links to every document and endpoint: JSON, or an HTML page for `Accept: text/html`. Carries `Link: <…/.well-known/api-catalog>; rel=\"api-catalog\"`.",
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "The index.", MediaType: "application/json", Schema: tools.Schema[discovery.Index]()},
				{Status: http.StatusOK, Description: "The index for browsers.", MediaType: "text/html", Schema: &jsonschema.Schema{Type: "string"}},
				notModified,
			},
			Errors: commonErrors(),
		}, handler: s.index, class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/openapi.json", OperationID: "openapi", Tag: "discovery",
			Summary: "This OpenAPI 3.1 description", Description: "This document: every endpoint with its parameters, bodies, responses and error codes; generated from the code at start.",
			Responses: append(jsonOK("The OpenAPI document.", &jsonschema.Schema{Type: "object"}), notModified),
			Errors:    commonErrors(),
		}, handler: s.document(docOpenAPI), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/llms.txt", OperationID: "llmsTxt", Tag: "discovery",
			Summary: "Agent manual, short (llms.txt)", Description: "What peppolgate is for and not for, and links to everything else, in the llmstxt.org format.",
			Responses: markdown("llms.txt in the llmstxt.org format."),
			Errors:    commonErrors(),
		}, handler: s.document(docLLMs), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/llms-full.txt", OperationID: "llmsFullTxt", Tag: "discovery",
			Summary: "Agent manual, complete", Description: "Generated from this description: every endpoint, parameter, response field and error code, MCP set-up for common clients, worked examples.",
			Responses: markdown("Every endpoint, parameter, field and error code, MCP set-up and examples."),
			Errors:    commonErrors(),
		}, handler: s.document(docLLMsFull), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/.well-known/api-catalog", OperationID: "apiCatalog", Tag: "discovery",
			Summary: "API catalog (RFC 9727)", Description: "A linkset pointing at this description, the manual and the metadata; HEAD answers with the Link header.",
			Responses: []discovery.Response{{Status: http.StatusOK, Description: "The linkset.", MediaType: "application/linkset+json", Schema: &jsonschema.Schema{Type: "object"}}, notModified},
			Errors:    commonErrors(),
		}, handler: s.document(docAPICatalog), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/.well-known/oauth-protected-resource", OperationID: "protectedResource", Tag: "discovery",
			Summary: "Protected-resource metadata (RFC 9728)", Description: "No authentication is needed; the document says so (agent_auth: anonymous, no credential).",
			Responses: append(jsonOK("The metadata.", &jsonschema.Schema{Type: "object"}), notModified),
			Errors:    commonErrors(),
		}, handler: s.document(docProtectedResource), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/.well-known/oauth-protected-resource/mcp", OperationID: "protectedResourceMCP", Tag: "discovery",
			Summary:     "Protected-resource metadata of /mcp (RFC 9728)",
			Description: "As /.well-known/oauth-protected-resource, for the MCP endpoint: resource is {base_url}/mcp.",
			Responses:   append(jsonOK("The metadata.", &jsonschema.Schema{Type: "object"}), notModified),
			Errors:      commonErrors(),
		}, handler: s.document(docProtectedResourceMCP), class: classDocs},
		{Endpoint: discovery.Endpoint{
			Method: http.MethodGet, Path: "/.well-known/oauth-authorization-server", OperationID: "authorizationServer", Tag: "discovery",
			Summary: "Authorization-server metadata (RFC 8414)", Description: "Advertises only the anonymous flow: no grant, no token endpoint.",
			Responses: append(jsonOK("The metadata.", &jsonschema.Schema{Type: "object"}), notModified),
			Errors:    commonErrors(),
		}, handler: s.document(docAuthorizationServer), class: classDocs},
	}
	for i := range routes {
		if routes[i].class == "" {
			continue
		}
		// Every limited endpoint may refuse with 429 and carries the draft's headers;
		// the table says so once, here, so no endpoint can miss it.
		rt := &routes[i]
		rt.Errors = append(slices.Clone(rt.Errors), CodeRateLimited)
		headers := maps.Clone(rt.Headers)
		if headers == nil {
			headers = map[string]string{}
		}
		headers["RateLimit-Policy"] = "the client's quota when rate limits are on (IETF draft-ietf-httpapi-ratelimit-headers): " +
			"`\"<class>\";q=<requests>;w=<seconds>`, at most q requests per w seconds, e.g. `\"rest\";q=40;w=2`"
		headers["RateLimit"] = "the client's remaining quota when rate limits are on: `\"<class>\";r=<requests left>;t=<seconds until the quota is full again>`, e.g. `\"rest\";r=39;t=1`"
		rt.Headers = headers
	}
	return routes
}

func ptr[T any](v T) *T { return &v }

// mcpTransportErrors are the refusals of the MCP transport itself, as JSON-RPC errors
// of fixed wording: a request the transport cannot take (not one JSON object, a batch,
// an id that is no string or number, wrong Content-Type, no session id), a session it
// did not mint or that ended, and a body over 1 MiB.
func mcpTransportErrors() []discovery.Response {
	rpc := &jsonschema.Schema{Type: "object", Required: []string{"jsonrpc", "error"},
		Description: "a JSON-RPC 2.0 error: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"…\"}}"}
	return []discovery.Response{
		{Status: http.StatusBadRequest, Description: "The transport refused the request: not one JSON-RPC object (-32700), a batch, an id that is not a string or number, wrong Content-Type, missing Mcp-Session-Id (-32600).", MediaType: "application/json", Schema: rpc},
		{Status: http.StatusNotFound, Description: "The session is unknown (this server did not mint it), idled out or was ended with DELETE: start a new one with initialize.", MediaType: "application/json", Schema: rpc},
		{Status: http.StatusRequestEntityTooLarge, Description: "The body is larger than 1 MiB.", MediaType: "application/json", Schema: rpc},
	}
}

// askRequestSchema is the schema of the POST /ask body: the query as a string or as
// NLWeb's object.
func askRequestSchema() *jsonschema.Schema {
	text := &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(nlq.MaxQueryLength),
		Description: "the question, 1 to 500 characters"}
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"query"},
		Properties: map[string]*jsonschema.Schema{
			"query": {Description: "the question: a string, or NLWeb's object with text", OneOf: []*jsonschema.Schema{
				text,
				{Type: "object", Required: []string{"text"}, Properties: map[string]*jsonschema.Schema{"text": text}},
			}},
			"prefer": {Type: "object", Description: "NLWeb preferences", Properties: map[string]*jsonschema.Schema{
				"streaming": {Type: "boolean", Description: "answer as server-sent events"},
			}},
		},
	}
}

// spelledDuration writes d for people: "15 minutes", "1 minute", "24 hours", "90 seconds".
func spelledDuration(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		n, unit = int64(d/time.Hour), "hour"
	case d >= time.Minute && d%time.Minute == 0:
		n, unit = int64(d/time.Minute), "minute"
	}
	if n == 1 {
		return "1 " + unit
	}
	return strconv.FormatInt(n, 10) + " " + unit + "s"
}

// spelledSize writes a size in bytes for people: "8 KiB", "1 MiB", "300 bytes".
func spelledSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// API describes the service for the discovery documents, from the route table, the
// error table and the tools.
func (s *Server) API() discovery.API {
	all := tools.All()
	if s.nets != nil {
		all = tools.ForNetworks(s.nets)
	}
	api := discovery.API{BaseURL: s.baseURL, Version: s.version, Tools: all, MCPPath: mcpPath,
		Limits: []string{
			fmt.Sprintf("Search: q %d to %d characters, or absent with country alone; at most %d results per search.", registry.MinQueryLength, registry.MaxQueryLength, registry.MaxSearchResults),
			fmt.Sprintf("POST /ask: body at most %s, query 1 to %d characters.", spelledSize(maxAskBody), nlq.MaxQueryLength),
			fmt.Sprintf("/mcp: request body at most %s.", spelledSize(maxMCPBody)),
			"Upstream: peppolgate asks the Peppol Directory at most 2 times per second (its own limit); searches beyond that queue briefly, then fail with search_failed and Retry-After.",
			fmt.Sprintf("Answers are cached: found participants %s, not-found %s, searches %s; a cached answer up to %s old is served (X-Cache: stale) when the upstream fails.",
				spelledDuration(s.cache.Found), spelledDuration(s.cache.NotFound), spelledDuration(s.cache.Search), spelledDuration(s.cache.Stale)),
		}}
	if limits := s.rateLimits(); limits != "" {
		api.Limits = append(api.Limits, limits)
	}
	for _, rt := range s.table() {
		api.Endpoints = append(api.Endpoints, rt.Endpoint)
	}
	for _, c := range Codes() {
		spec := errorTable[c]
		api.Errors = append(api.Errors, discovery.ErrorCode{Code: c, Status: spec.status, When: spec.when, Action: spec.action})
	}
	return api
}

// rateLimits describes the rate limits that are on in one sentence, or "" when none is.
func (s *Server) rateLimits() string {
	var parts []string
	for _, c := range []struct {
		what string
		l    *limiter
	}{{"the REST API", s.limitREST}, {"POST /ask", s.limitAsk}, {"/mcp", s.limitMCP}, {"the documents and /metrics", s.limitDocs}} {
		if c.l != nil {
			parts = append(parts, fmt.Sprintf("%s %s (policy %s)", c.what, c.l.limit, c.l.policy[0]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Rate limits per client (its IP address, an IPv6 client's /64), each counted apart: " + strings.Join(parts, "; ") +
		". Every answer of a limited endpoint carries RateLimit-Policy and RateLimit; over the limit the answer is 429 rate_limited with Retry-After."
}

// routes builds the router from the table. Every GET endpoint also answers HEAD
// (net/http drops the body) and OPTIONS for CORS preflights. Each handler names its
// route pattern for the metrics and is charged to its rate-limit class.
func (s *Server) routes(mcp http.Handler) *chi.Mux {
	r := chi.NewRouter()
	for _, rt := range s.table() {
		l := s.limiter(rt.class)
		switch {
		case rt.Path == mcpPath:
			if rt.Method == http.MethodPost { // mounted once, for every method
				r.Handle(mcpPath, s.route(mcpPath, l, mcp))
			}
		case rt.Method == http.MethodGet:
			h := s.route(rt.Path, l, s.adapt(rt.handler))
			r.Get(rt.Path, h.ServeHTTP)
			r.Head(rt.Path, h.ServeHTTP)
			r.Options(rt.Path, s.route(rt.Path, nil, http.HandlerFunc(preflight)).ServeHTTP)
		case rt.Method == http.MethodPost:
			r.Post(rt.Path, s.route(rt.Path, l, s.adapt(rt.handler)).ServeHTTP)
			r.Options(rt.Path, s.route(rt.Path, nil, http.HandlerFunc(preflightPost)).ServeHTTP)
		}
	}
	r.NotFound(s.adapt(s.routeNotFound))
	r.MethodNotAllowed(s.adapt(s.methodNotAllowed))
	return r
}

// limiter returns the rate limiter of a class; nil for no class or no limit.
func (s *Server) limiter(class string) *limiter {
	switch class {
	case classREST:
		return s.limitREST
	case classAsk:
		return s.limitAsk
	case classMCP:
		return s.limitMCP
	case classDocs:
		return s.limitDocs
	}
	return nil
}

// metricsEndpoint serves GET /metrics.
func (s *Server) metricsEndpoint(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	s.metricsPage.ServeHTTP(w, r)
	return nil
}
