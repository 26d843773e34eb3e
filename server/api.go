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

// docKit holds what the endpoint descriptions beside the handlers share.
type docKit struct {
	// notModified answers a discovery document's conditional GET (ETag, If-None-Match).
	notModified discovery.Response
	// freshness are the headers of answers that may come from the cache.
	freshness map[string]string
	// status is the schema of /healthz and /readyz.
	status *jsonschema.Schema
	// participantID is the path parameter of the endpoints about one participant.
	participantID discovery.Param
	// networks are the names of the networks a request may pick; nil when the server
	// names none.
	networks []string
}

func (s *Server) docKit() docKit {
	status := tools.Schema[statusBody]()
	status.Title = "Status"
	k := docKit{
		notModified: discovery.Response{Status: http.StatusNotModified, Description: "Not modified: If-None-Match named the document's ETag."},
		freshness: map[string]string{
			"X-Cache":       "hit, miss or stale: whether the answer came from peppolgate's cache, and whether it is an older answer served because the upstream failed",
			"Age":           "seconds since the answer was fetched from the Peppol network (cached answers)",
			"Cache-Control": "how long the answer may be reused",
		},
		status: status,
		participantID: discovery.Param{Name: "participantId", In: "path", Required: true,
			Description: "`<scheme>:<value>`: 4 digits, a colon, then letters, digits, '.', '_', '-' or '+'; case-insensitive; " +
				"may be percent-encoded and prefixed with `iso6523-actorid-upis::`. E.g. 0208:0677424046 (Belgian enterprise number), 0192:923609016 (Norwegian organisation number).",
			Schema:  &jsonschema.Schema{Type: "string", Pattern: tools.ParticipantIDPattern, MaxLength: ptr(len(peppol.ParticipantScheme) + 2 + peppol.MaxParticipantIDLength)},
			Example: "0208:0677424046"},
	}
	k.networks = s.nets.Names()
	return k
}

// jsonOK is a 200 JSON response.
func (k docKit) jsonOK(desc string, schema *jsonschema.Schema) []discovery.Response {
	return []discovery.Response{{Status: http.StatusOK, Description: desc, MediaType: "application/json", Schema: schema}}
}

// markdown is a 200 Markdown document that answers conditional GETs.
func (k docKit) markdown(desc string) []discovery.Response {
	return []discovery.Response{{Status: http.StatusOK, Description: desc, MediaType: "text/markdown", Schema: &jsonschema.Schema{Type: "string"}}, k.notModified}
}

// network adds to params the optional parameter that picks the network, when the
// server names its networks.
func (k docKit) network(params ...discovery.Param) []discovery.Param {
	return k.networkNamed(registry.NetworkDescription(k.networks), params...)
}

// networkNamed is network with desc as the parameter's description.
func (k docKit) networkNamed(desc string, params ...discovery.Param) []discovery.Param {
	if len(k.networks) == 0 {
		return params
	}
	return append(params, discovery.Param{Name: "network", In: "query", Description: desc,
		Schema: &jsonschema.Schema{Type: "string", Enum: tools.Enum(k.networks)}, Example: k.networks[len(k.networks)-1]})
}

// table returns every endpoint, each described beside its handler. GET endpoints also
// answer HEAD and CORS preflights; POST ones preflights.
func (s *Server) table() []route {
	k := s.docKit()
	var routes []route
	for _, group := range [][]route{s.participantRoutes(k), s.searchRoutes(k), s.statsRoutes(k), s.checkRoutes(k), s.askRoutes(k), s.mcpRoutes(k), s.healthRoutes(k), s.documentRoutes(k)} {
		routes = append(routes, group...)
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

// askRequestSchema is the schema of the POST /ask body: the query as a string or as
// NLWeb's object.
func askRequestSchema() *jsonschema.Schema {
	text := &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(nlq.MaxQueryLength),
		Description: fmt.Sprintf("the question, 1 to %d characters", nlq.MaxQueryLength)}
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

// spelledDirectoryRate writes the registry's Directory rate for people: "2 times per
// second (its own limit)" at the default, which is the real Directory's limit per
// client, else e.g. "100 times per second".
func spelledDirectoryRate(rate float64) string {
	s := strconv.FormatFloat(rate, 'f', -1, 64) + " times per second"
	if rate == registry.DefaultDirectoryRate {
		s += " (its own limit)"
	}
	return s
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
	api := discovery.API{BaseURL: s.baseURL, Version: s.version, Tools: tools.ForNetworks(s.nets), MCPPath: mcpPath,
		Limits: []string{
			fmt.Sprintf("Search: q %d to %d characters, or absent with country alone; %d results a page, pages 1 to %d (the Peppol Directory serves no result beyond the %dth of a search).",
				registry.MinQueryLength, registry.MaxQueryLength, registry.MaxSearchResults, registry.MaxSearchPage, registry.MaxSearchPage*registry.MaxSearchResults),
			fmt.Sprintf("POST /ask: body at most %s, query 1 to %d characters.", spelledSize(maxAskBody), nlq.MaxQueryLength),
			fmt.Sprintf("/mcp: request body at most %s.", spelledSize(maxMCPBody)),
			fmt.Sprintf("POST /api/v1/check: 1 to %d rows, body at most %s; at most %d checks at once per client (%d for a client exempt from the rate limits; too_many_bulk_requests beyond), %d in all (service_unavailable beyond); "+
				"a check costs ⌈rows/%d⌉ requests of the REST API's rate limit, the first on arrival and the rest once its rows are read, which may leave the client's quota below zero until it refills; "+
				"a check takes its place among those running once its whole body is read; its answer streams while rows finish and the client takes it (a client that takes nothing for %s ends its check); "+
				"a check runs at most %s, and one cut short by that or by the server shutting down ends with a line naming the rows not checked.",
				s.bulkLimits.Rows, spelledSize(s.bulkLimits.Body), s.bulkLimits.PerClient, max(s.bulkLimits.PerClient, s.bulkLimits.Total/2), s.bulkLimits.Total, checkRowsPerRequest,
				spelledDuration(s.bulkLimits.WriteStall), spelledDuration(s.bulkLimits.MaxDuration)),
			fmt.Sprintf("Upstream: peppolgate asks the Peppol Directory at most %s; searches beyond that queue briefly, then fail with search_failed and Retry-After.", spelledDirectoryRate(s.cache.DirectoryRate)),
			fmt.Sprintf("Answers are cached: found participants %s, not-found %s, searches %s; a cached answer up to %s old is served (X-Cache: stale) when the upstream fails.",
				spelledDuration(s.cache.Found), spelledDuration(s.cache.NotFound), spelledDuration(s.cache.Search), spelledDuration(s.cache.Stale)),
		}}
	api.Limits = append(api.Limits, mcpLimits())
	if limits := s.rateLimits(); limits != "" {
		api.Limits = append(api.Limits, limits)
	}
	for _, rt := range s.table() {
		api.Endpoints = append(api.Endpoints, rt.Endpoint)
	}
	api.Errors = errorDocsByCode()
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
			if rt.Method == http.MethodPost { // mounted once, for the methods MCP serves
				h := s.route(mcpPath, l, mcp)
				for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions} {
					r.Method(m, mcpPath, h)
				}
			}
		case rt.Method == http.MethodGet:
			h := s.route(rt.Path, l, s.adapt(rt.handler))
			r.Get(rt.Path, h.ServeHTTP)
			r.Head(rt.Path, h.ServeHTTP)
			r.Options(rt.Path, s.route(rt.Path, nil, preflight(readMethods)).ServeHTTP)
		case rt.Method == http.MethodPost:
			r.Post(rt.Path, s.route(rt.Path, l, s.adapt(rt.handler)).ServeHTTP)
			r.Options(rt.Path, s.route(rt.Path, nil, preflight(postMethods)).ServeHTTP)
		}
	}
	s.pageRoutes(r)
	// A browser that asks a path or method there is none of gets a page saying so,
	// with a link to the page it most likely meant; programs the API's JSON error.
	r.NotFound(func(w http.ResponseWriter, r *http.Request) { s.servePage(w, r, s.routeNotFound) })
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) { s.servePage(w, r, s.methodNotAllowed) })
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
