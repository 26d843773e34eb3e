// Package server is peppolgate's HTTP adapter: the REST API of docs/INTERFACE.md §4.1 and
// §4.2 over a registry.Registry, with health endpoints, request ids, access logs, panic
// recovery, CORS, security and cache headers. Handlers return errors; one adapter
// renders them as the error object of docs/INTERFACE.md §2.4 with the status from one table (errors.go).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/mcpsession"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
	"github.com/peppolgate/peppolgate/web"
)

// readyTimeout bounds one readiness check, so /readyz answers even when Ready hangs.
const readyTimeout = 5 * time.Second

// Config configures a Server.
type Config struct {
	// Fleet is the Redis this replica shares with the others of its deployment: client
	// rate limits and MCP sessions hold fleet-wide through it, and /readyz and /metrics
	// report its health. Nil: one process, everything in memory (docs/ARCHITECTURE.md
	// §7).
	Fleet *fleet.Fleet
	// Networks answer lookups and searches, over REST, MCP and POST /ask (which
	// always answers from the default network). When they offer networks by name
	// (registry.NewNetworks), answers say which network answered and the REST API's
	// network parameter and the tools' network argument pick one; a server of one
	// unnamed network (registry.One) names none and refuses network selection.
	// Required.
	Networks *registry.Networks
	// BaseURL is the public URL of the service (scheme, host, optional path), used for
	// every absolute link in answers and discovery documents. Required.
	BaseURL string
	// Logger receives access logs and errors; nil discards them.
	Logger *slog.Logger
	// LLM, when set, answers POST /ask questions with tool calling; the rule planner is
	// the default and the fallback.
	LLM *nlq.LLM
	// Version is the service version reported to MCP clients and in /ask answers;
	// empty means "dev".
	Version string
	// MCPAllowedOrigins are browser origins ("https://app.example.com") allowed to use
	// /mcp besides the base URL's own and loopback ones; "*" allows every origin.
	MCPAllowedOrigins []string
	// MCPAllowedHosts are Host header values /mcp accepts besides loopback names and
	// the base URL's host, e.g. the public name a reverse proxy forwards. When set,
	// Host is checked on every connection; otherwise only on loopback connections.
	// "*" accepts every host.
	MCPAllowedHosts []string
	// Ready reports whether the service can take traffic; /readyz answers 503 while it
	// returns an error. Nil means always ready.
	Ready func(ctx context.Context) error
	// RateLimit limits each client's requests to the REST API (/api/v1/...),
	// AskRateLimit to POST /ask and MCPRateLimit to /mcp, each with buckets of its
	// own. The zero value means no limit. Health, readiness, metrics and the
	// discovery documents are never limited. With Fleet the limits hold per client
	// across every replica (package ratelimit).
	RateLimit, AskRateLimit, MCPRateLimit RateLimit
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client
	// (see clientKey: the right-most address that is not a trusted proxy). Empty
	// means the header is ignored and the client is the connecting address.
	TrustedProxies []netip.Prefix
	// RateLimitExempt are clients (after TrustedProxies are applied) that no rate
	// limit applies to, e.g. loopback: health checkers and tools on the same host.
	// Empty means every client is limited.
	RateLimitExempt []netip.Prefix
	// Metrics collects what /metrics serves; nil means the server makes its own.
	// Give the same Metrics to peppolnet.Config.Observer to count upstream calls and
	// cache decisions too.
	Metrics *Metrics
	// Mirror, when set, reports the Directory mirror's state for /readyz.
	Mirror func() mirror.Status
	// SML, when set, reports for /readyz whether each network's SML zone resolves
	// through its DNS servers (stack.Stack.SMLStatus). /readyz shows every network's,
	// and answers 503 while the default network's does not resolve
	// (docs/INTERFACE.md §4.6).
	SML func(ctx context.Context) []registry.SMLStatus
	// Bulk bounds POST /api/v1/check: rows and bytes per check, checks at once per
	// client and in all; zero fields are the defaults.
	Bulk BulkLimits
	// Cache is how long the registry keeps answers and how often it asks the Directory
	// (peppolnet.Registry.CachePolicy), for the documents' limits; zero fields are the
	// registry's defaults.
	Cache registry.CachePolicy
	// RequestLog says which successful requests the access log writes at info level
	// (-log-requests); the zero value writes every request.
	RequestLog RequestLog
	// TracerProvider, when it records (telemetry.On), gives every request but the
	// probes and scrapes a server span named by its route, continuing the trace of
	// an incoming W3C traceparent, and /ask's planning and tool calls spans of
	// their own (docs/ARCHITECTURE.md §3); nil means no tracing.
	TracerProvider trace.TracerProvider
}

// Server is the HTTP handler of the whole service. It is safe for concurrent use.
type Server struct {
	// nets are the networks answering, one or several.
	nets *registry.Networks
	nlq  *nlq.Engine
	// baseURL has no trailing slash, so paths can be appended.
	baseURL string
	version string
	docs    documents
	log     *slog.Logger
	ready   func(ctx context.Context) error
	router  *chi.Mux
	handler http.Handler
	hot     hotPath
	ids     *idSource
	fixed   []headerValue
	mcpHTTP *mcpserver.StreamableHTTPServer
	// mcpSessions and mcpStreams are /mcp's sessions and open event streams.
	mcpSessions mcpsession.Store
	mcpStreams  *mcpStreams
	metrics     *Metrics
	mirror      func() mirror.Status
	// fleet is the shared Redis, nil without one.
	fleet *fleet.Fleet
	sml   func(ctx context.Context) []registry.SMLStatus
	// cache is how long the registry keeps answers and its Directory rate, for the
	// documents.
	cache registry.CachePolicy
	// metricsPage serves /metrics.
	metricsPage http.Handler
	// limitREST, limitAsk and limitMCP are the rate limits by class; nil means none.
	limitREST, limitAsk, limitMCP *limiter
	// limitDocs limits the discovery documents and /metrics (classDocs).
	limitDocs *limiter
	// web renders the pages for people (pages.go).
	web             *web.Pages
	trustedProxies  []netip.Prefix
	rateLimitExempt []netip.Prefix
	// bulkLimits bound POST /api/v1/check; checks counts the checks running.
	bulkLimits BulkLimits
	checks     *checkGate
	// successes samples the successful requests the access log writes (RequestLog).
	successes *successSampler
	// tracer makes the server spans (tracing.go); nil with tracing off. serverSpan
	// are their options, made once (a slice made per request is an allocation).
	tracer     trace.Tracer
	serverSpan []trace.SpanStartOption
}

// New returns a Server for cfg. It returns an error when cfg.Networks is nil or its
// default network has no registry, or when cfg.BaseURL is not an absolute http or
// https URL. Request handlers pass the request's context to the registry, which
// bounds its own upstream work (see peppolnet.Config.LookupTimeout); a client that
// goes away cancels its wait.
func New(cfg Config) (*Server, error) {
	if cfg.Networks == nil {
		return nil, errors.New("server: Config.Networks is nil")
	}
	if reg, _, _ := cfg.Networks.Select(""); reg == nil {
		return nil, errors.New("server: the default network has no registry")
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server: base URL %q is not an absolute http or https URL", cfg.BaseURL)
	}
	s := &Server{
		nets:    cfg.Networks,
		baseURL: strings.TrimSuffix(cfg.BaseURL, "/"),
		log:     cfg.Logger,
		ready:   cfg.Ready,
		version: cfg.Version,
		ids:     newIDSource(),
		fixed:   fixedHeaders(),
		metrics: cfg.Metrics,
		mirror:  cfg.Mirror,
		fleet:   cfg.Fleet,
		sml:     cfg.SML,
		cache:   cfg.Cache.WithDefaults(),

		trustedProxies:  cfg.TrustedProxies,
		rateLimitExempt: cfg.RateLimitExempt,
		bulkLimits:      cfg.Bulk.withDefaults(),
		successes:       &successSampler{every: cfg.RequestLog.SuccessEvery},
		tracer:          tracerOf(cfg.TracerProvider),
		serverSpan:      []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer)},
	}
	s.checks = newCheckGate(s.bulkLimits)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.version == "" {
		s.version = "dev"
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	s.metrics.build.WithLabelValues(s.version).Set(1)
	s.metrics.watchFleet(cfg.Fleet)
	s.metricsPage = s.metrics.handler(slog.NewLogLogger(s.log.Handler(), slog.LevelWarn))
	s.limitREST = newLimiter(classREST, "the REST API", cfg.RateLimit, cfg.Fleet, time.Now)
	s.limitDocs = newLimiter(classDocs, "the documents and /metrics", cfg.RateLimit, cfg.Fleet, time.Now)
	s.limitAsk = newLimiter(classAsk, "POST /ask", cfg.AskRateLimit, cfg.Fleet, time.Now)
	s.limitMCP = newLimiter(classMCP, "/mcp", cfg.MCPRateLimit, cfg.Fleet, time.Now)
	guard, err := newMCPGuard(s.baseURL, cfg.MCPAllowedOrigins, cfg.MCPAllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.nlq, err = nlq.New(nlq.Config{Registry: cfg.Networks, Planner: nlq.RulePlanner{}, LLM: cfg.LLM,
		BaseURL: s.baseURL, Version: cfg.Version, Logger: s.log, TracerProvider: cfg.TracerProvider})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.web, err = web.New(web.Config{Networks: cfg.Networks, Asker: s.nlq, BaseURL: s.baseURL, Stats: cfg.Mirror != nil})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	mcp, err := tools.NewMCPServer(tools.MCPConfig{Networks: cfg.Networks, Version: cfg.Version, Logger: s.log})
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	s.router = s.routes(s.mcpHandler(mcp, guard))
	if s.docs, err = buildDocuments(s.API()); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	// Outermost first: every response, even a panic's, carries a request id, security
	// and CORS headers and is logged.
	s.handler = s.edge(s.router)
	return s, nil
}

// Close releases what the server runs in the background (MCP's idle session sweep) and
// ends open MCP sessions; the rate limiters run nothing in the background. Call it
// after the HTTP server has shut down. It returns nil.
func (s *Server) Close() error {
	s.mcpSessions.Halt()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.mcpHTTP.Shutdown(ctx)
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// handlerFunc is an HTTP handler that returns its error instead of writing it, so that
// one adapter (writeError) renders every error the same way.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (s *Server) adapt(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

func (s *Server) routeNotFound(w http.ResponseWriter, r *http.Request) error {
	return apiError(CodeRouteNotFound, fmt.Sprintf(
		"there is no %s; the endpoints are GET %s/api/v1/participant/{participantId}, GET %s/api/v1/participant/{participantId}/services, GET %s/api/v1/search?q=, POST %s/api/v1/check, POST %s/ask and MCP at %s/mcp (all of them: %s/openapi.json)",
		phrase.Quote(r.URL.Path), s.baseURL, s.baseURL, s.baseURL, s.baseURL, s.baseURL, s.baseURL, s.baseURL))
}

// allMethods are the methods probed to build the Allow header of a 405.
var allMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions}

func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	if s.askPage(w, r) {
		return nil
	}
	// chi does not hand the allowed methods to a custom 405 handler, so ask the router.
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	var allow []string
	for _, m := range allMethods {
		if s.router.Match(chi.NewRouteContext(), m, path) {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		// No method is served there: the path does not exist (chi answers 405 for an
		// unknown method on any path).
		return s.routeNotFound(w, r)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	return apiError(CodeMethodNotAllowed, fmt.Sprintf("method %s is not allowed on %s; allowed: %s",
		phrase.Quote(r.Method), phrase.Quote(r.URL.Path), strings.Join(allow, ", ")))
}
