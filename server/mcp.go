package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/mcpsession"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// maxMCPBody bounds a request body on /mcp: one JSON-RPC message, as a line on stdio.
const maxMCPBody = tools.MaxMessageSize

// mcpMethods are the methods of MCP's streamable HTTP transport, and CORS preflights.
const mcpMethods = "GET, POST, DELETE, OPTIONS"

// mcpExposedHeaders are the response headers a browser MCP client must be able to read.
const mcpExposedHeaders = "X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, Mcp-Session-Id, MCP-Protocol-Version"

// mcpGuard decides which requests may reach /mcp. The MCP transport specification
// requires servers to validate Origin, so that a web page cannot use a visitor's
// browser to reach a server it should not (DNS rebinding); mcp-go does not do it.
type mcpGuard struct {
	// anyOrigin and anyHost switch a check off ("*" in the configured list).
	anyOrigin, anyHost bool
	// origins are allowed origins, "scheme://host[:port]", lower-case.
	origins []string
	// hosts are allowed Host header values (host or host:port), lower-case.
	hosts []string
	// hostsConfigured: the operator named hosts, so Host is checked on every
	// connection, not only on loopback ones.
	hostsConfigured bool
}

// CheckMCPAllowed reports whether origins and hosts are valid Config.MCPAllowedOrigins
// and Config.MCPAllowedHosts, so that a command can refuse them before it starts
// anything. It returns the error New would return for them.
func CheckMCPAllowed(origins, hosts []string) error {
	_, err := newMCPGuard("", origins, hosts)
	return err
}

// newMCPGuard builds the guard. The base URL's origin and host are always allowed, and
// so are loopback origins and hosts (localhost, 127.0.0.1, [::1], any port): a client
// on the same machine is not a rebinding attack. It returns an error for an entry that
// is neither "*" nor a valid origin or host.
func newMCPGuard(baseURL string, origins, hosts []string) (*mcpGuard, error) {
	g := &mcpGuard{hostsConfigured: len(hosts) > 0}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err == nil {
			g.origins = append(g.origins, normalOrigin(u))
			g.hosts = append(g.hosts, strings.ToLower(u.Host), strings.ToLower(u.Hostname()))
		}
	}
	for _, o := range origins {
		o = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(o), "/"))
		if o == "*" {
			g.anyOrigin = true
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("allowed MCP origin %q is not an origin such as https://app.example.com", o)
		}
		g.origins = append(g.origins, normalOrigin(u))
	}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "*" {
			g.anyHost = true
			continue
		}
		if h == "" || strings.ContainsAny(h, "/?#@ ") {
			return nil, fmt.Errorf("allowed MCP host %q is not a host name such as peppolgate.example.com", h)
		}
		g.hosts = append(g.hosts, h)
	}
	return g, nil
}

// check returns "" when r may reach /mcp, else why not.
func (g *mcpGuard) check(r *http.Request) string {
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
		return fmt.Sprintf("origin %s may not use this MCP endpoint (DNS-rebinding protection); "+
			"its operator can allow it with -mcp-allowed-origins", phrase.Quote(origin))
	}
	if (g.hostsConfigured || onLoopback(r)) && !g.hostAllowed(r.Host) {
		return fmt.Sprintf("host %s is not served on this MCP endpoint (DNS-rebinding protection); "+
			"use the server's own address, or its operator can allow the name with -mcp-allowed-hosts", phrase.Quote(r.Host))
	}
	return ""
}

func (g *mcpGuard) originAllowed(origin string) bool {
	if g.anyOrigin {
		return true
	}
	u, err := url.Parse(strings.ToLower(origin))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return slices.Contains(g.origins, normalOrigin(u)) || isLoopbackHost(u.Hostname())
}

// normalOrigin renders u's origin lower-case without a default port, the way browsers
// send it: https://x.example:443 and https://x.example are the same origin.
func normalOrigin(u *url.URL) string {
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

func (g *mcpGuard) hostAllowed(host string) bool {
	if g.anyHost {
		return true
	}
	h := strings.ToLower(host)
	if slices.Contains(g.hosts, h) {
		return true
	}
	name := h
	if n, _, err := net.SplitHostPort(h); err == nil {
		name = n
	}
	return isLoopbackHost(strings.Trim(name, "[]")) || slices.Contains(g.hosts, name)
}

// isLoopbackHost reports whether a host name (no port, no brackets) is this machine.
func isLoopbackHost(name string) bool {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// onLoopback reports whether r arrived on a loopback address, where a rebinding page
// could reach a server that is not otherwise exposed.
func onLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// mcpSessionIdleTTL is how long an MCP session (its id and state, e.g. its log level)
// is kept after its last request.
const mcpSessionIdleTTL = 30 * time.Minute

// mcpHandler serves MCP's streamable HTTP transport at /mcp behind the guard. mcp-go's
// own localhost check is off: the guard does it, and also lets a reverse proxy's host
// through when the operator names it. The server's write timeout is lifted for GET,
// the long-lived event stream; POST answers are bounded by the registry's deadlines.
// Close stops the idle session sweep. Only session ids this server minted are valid,
// at most maxMCPSessionsPerClient per client and maxMCPSessions in all (package
// mcpsession; with -redis shared by the fleet, the caps counted per replica),
// and every session it forgets is ended in mcp-go too (endMCPSession); a GET event
// stream needs a session, gets a heartbeat, ends after mcpStreamLifetime or with its
// session and counts against per-client and global caps (mcpStreams); POST bodies are
// checked before mcp-go reads them and its errors are rewritten to fixed JSON-RPC
// errors (mcpwire.go).
func (s *Server) mcpHandler(m *mcpserver.MCPServer, g *mcpGuard) http.Handler {
	log := s.log.With("component", "mcp")
	s.mcpStreams = newMCPStreams(maxMCPStreamsPerClient, maxMCPStreams)
	// Every session the store forgets is ended in mcp-go too, with its event streams;
	// h is set before the first request and before the sweep starts.
	var h *mcpserver.StreamableHTTPServer
	opt := mcpsession.Options{TTL: mcpSessionIdleTTL, Max: maxMCPSessions, PerClient: maxMCPSessionsPerClient,
		ExemptPerClient: clientCap(maxMCPSessionsPerClient, maxMCPSessions, true),
		Forget: func(ids []string) {
			for _, id := range ids {
				endMCPSession(h, id)
			}
			s.mcpStreams.end(ids)
		}}
	// With -redis the sessions are the fleet's (docs/ARCHITECTURE.md §7); without,
	// this process's.
	if s.fleet != nil {
		s.mcpSessions = mcpsession.NewShared(s.fleet, opt)
	} else {
		s.mcpSessions = mcpsession.NewMemory(opt)
	}
	// mcp-go's own idle sweeper is off (no WithSessionIdleTTL): the store sweeps, and
	// ends in mcp-go every session it forgets (docs/INTERFACE.md §4.5).
	h = mcpserver.NewStreamableHTTPServer(m,
		mcpserver.WithDisableLocalhostProtection(true),
		mcpserver.WithSessionIdManagerResolver(mcpsession.Resolver{Store: s.mcpSessions, ClientOf: s.clientOf}),
		mcpserver.WithHeartbeatInterval(mcpHeartbeat),
		mcpserver.WithStreamableHTTPLogger(log))
	s.mcpHTTP = h
	s.mcpSessions.Start(mcpSweepEvery, log)
	return s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		switch r.Method {
		case http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions:
		default:
			w.Header().Set("Allow", mcpMethods)
			return apiError(CodeMethodNotAllowed, fmt.Sprintf("method %s is not allowed on /mcp; allowed: %s", phrase.Quote(r.Method), mcpMethods))
		}
		if why := g.check(r); why != "" {
			return apiError(CodeForbidden, why)
		}
		hdr := w.Header()
		hdr.Set("Access-Control-Expose-Headers", mcpExposedHeaders)
		hdr.Set("Cache-Control", "no-store")
		if r.Method == http.MethodOptions {
			hdr.Set("Allow", mcpMethods)
			hdr.Set("Access-Control-Allow-Methods", mcpMethods)
			hdr.Set("Access-Control-Allow-Headers", "Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, X-Request-Id")
			hdr.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
		if r.Method == http.MethodGet {
			done, err := s.openMCPStream(w, r)
			if err != nil || done == nil {
				return err
			}
			defer done.finish()
			r = done.r
		}
		if r.Method == http.MethodPost {
			body, ok := s.readMCPBody(w, r)
			if !ok {
				return nil
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		ew := &mcpErrorWriter{ResponseWriter: w, s: s}
		h.ServeHTTP(ew, r)
		ew.finish()
		switch {
		case r.Method == http.MethodPost && w.Header().Get("Mcp-Session-Id") != "":
			s.mcpSessions.ForgetIfGone(w.Header().Get("Mcp-Session-Id"))
		case r.Method == http.MethodDelete && ew.status == http.StatusOK:
			s.mcpStreams.end([]string{r.Header.Get("Mcp-Session-Id")}) // mcp-go leaves them open
		}
		return nil
	})
}

// endMCPSession makes mcp-go forget a session peppolgate forgot: it sends h a DELETE
// for it, in-process (mcp-go offers no other way to drop all of a session's state:
// MCPServer.UnregisterSession leaves the transport's own copy behind). The session id
// manager no longer knows the id, so the DELETE only cleans up; it is marked as
// peppolgate's own (mcpsession.Internal), so that it ends nothing in the fleet.
func endMCPSession(h *mcpserver.StreamableHTTPServer, id string) {
	hdr := http.Header{}
	hdr.Set(mcpserver.HeaderKeySessionID, id)
	h.Handle(discardMCPWriter{hdr: http.Header{}}, &mcpserver.HTTPRequest{Method: http.MethodDelete, Header: hdr, Context: mcpsession.Internal(context.Background())})
}

// discardMCPWriter is the answer writer of endMCPSession's DELETE: nobody reads it.
type discardMCPWriter struct{ hdr http.Header }

func (d discardMCPWriter) Header() http.Header       { return d.hdr }
func (discardMCPWriter) WriteHeader(int)             {}
func (discardMCPWriter) Write(p []byte) (int, error) { return len(p), nil }
func (discardMCPWriter) Flush()                      {}
func (discardMCPWriter) CanStream() bool             { return false }

// mcpLimits describes /mcp's sessions and event streams for the Limits of the
// discovery documents (docs/INTERFACE.md §4.5).
func mcpLimits() string {
	return fmt.Sprintf("/mcp sessions: kept %s after their last request; at most %d per client (starting one more forgets that client's session used longest ago) and %s in all (beyond, the session used longest ago of all). "+
		"Event streams (GET /mcp): at most %d per client (too_many_streams beyond) and %d in all (service_unavailable beyond), each ending after %s.",
		spelledDuration(mcpSessionIdleTTL), maxMCPSessionsPerClient, phrase.Grouped(maxMCPSessions, ","), maxMCPStreamsPerClient, maxMCPStreams, spelledDuration(mcpStreamLifetime))
}

// openedStream is a GET /mcp event stream admitted by openMCPStream: r carries its
// bounded context; finish releases its place.
type openedStream struct {
	r      *http.Request
	cancel context.CancelFunc
	done   func()
}

func (o *openedStream) finish() {
	o.cancel()
	o.done()
}

// openMCPStream admits a GET /mcp event stream: it needs the Mcp-Session-Id of a live
// session this server minted (404 otherwise, as the MCP transport says for unknown
// sessions), a place under the client's cap (429 too_many_streams, with Retry-After: a
// client's limit, like the rate limiter's) and the global one (503
// service_unavailable, with Retry-After), and it ends after mcpStreamLifetime, when its
// session is DELETEd or forgotten, or when the server drains. The write deadline is
// lifted for it. With -redis it also ends when its session is ended on another
// replica (asked every mcpStreamRecheck). A nil result with a nil error means the
// answer has been written.
func (s *Server) openMCPStream(w http.ResponseWriter, r *http.Request) (*openedStream, error) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "GET /mcp opens the event stream of a session: send the Mcp-Session-Id that initialize returned")
		return nil, nil
	}
	client, exempt := s.clientOf(r)
	if terminated, err := s.mcpSessions.Validate(id, exempt); err != nil || terminated {
		s.writeJSONRPCError(w, http.StatusNotFound, jsonrpcInvalidRequest, statusMessage(http.StatusNotFound))
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), mcpStreamLifetime)
	done, err := s.mcpStreams.open(client, exempt, id, cancel)
	if err != nil {
		cancel()
		if errors.Is(err, errStreamsClient) {
			return nil, &registry.Error{Code: CodeTooManyStreams, Message: fmt.Sprintf("this client already has %d open MCP event streams, the most one client may hold; close one, or retry later",
				clientCap(maxMCPStreamsPerClient, maxMCPStreams, exempt)), RetryAfter: 30 * time.Second}
		}
		return nil, &registry.Error{Code: CodeUnavailable, Message: "no MCP event stream can be opened now (the server is at its limit or shutting down); retry later", RetryAfter: 5 * time.Second}
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	if s.fleet != nil {
		// The session may end on another replica (a DELETE there): ask every
		// mcpStreamRecheck, so that this stream ends with it (docs/INTERFACE.md §4.5).
		go func() {
			t := time.NewTicker(mcpStreamRecheck)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if !s.mcpSessions.Held(id) {
						cancel()
						return
					}
				}
			}
		}()
	}
	return &openedStream{r: r.WithContext(ctx), cancel: cancel, done: done}, nil
}

// clientOf is r's client as the limits count it: the rate limiter's key (IP address,
// an IPv6 client's /64) and whether the client is exempt from the rate limits
// (Config.RateLimitExempt, clientCap).
func (s *Server) clientOf(r *http.Request) (key netip.Addr, exempt bool) {
	client := clientAddr(r, s.trustedProxies)
	return bucketKey(client), isTrusted(client, s.rateLimitExempt)
}

// BeginShutdown ends the open MCP event streams and refuses new ones, so that an HTTP
// server's Shutdown does not wait for them, and refuses new bulk checks while the
// running ones go on; call it first when the service stops, then EndChecks once the
// running checks have had their time (the binary's -drain-delay), before Shutdown.
func (s *Server) BeginShutdown() {
	s.checks.close()
	if s.mcpStreams != nil {
		s.mcpStreams.drain()
	}
}

// EndChecks ends the running bulk checks (each answers its rows not checked as such,
// its last writes waiting at most a few seconds for its client) and refuses new ones,
// so that an HTTP server's Shutdown does not wait for them (docs/INTERFACE.md §4.7).
func (s *Server) EndChecks() { s.checks.drain() }

// mcpRoutes describes and serves the MCP transport (docs/INTERFACE.md §4).
func (s *Server) mcpRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodPost, Path: mcpPath, OperationID: "mcp", Tag: "mcp",
			Summary: "MCP (streamable HTTP)",
			Description: "The Model Context Protocol endpoint (streamable HTTP transport; GET opens the event stream, DELETE ends a session): " +
				"tools lookup_participant, search_directory, get_participant_services, check_participants and network_statistics, the resource peppolgate://schemes, the prompt check_invoice_recipient. " +
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
				fmt.Sprintf("The stream carries a heartbeat every %d s and ends after %s (reconnect); a client may hold %d streams at once (429 too_many_streams beyond) and the server %d (503 service_unavailable beyond, and while shutting down).",
					int(mcpHeartbeat/time.Second), spelledDuration(mcpStreamLifetime), maxMCPStreamsPerClient, maxMCPStreams),
			Responses: append([]discovery.Response{
				{Status: http.StatusOK, Description: "JSON-RPC messages as server-sent events.", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"}},
			}, mcpTransportErrors()...),
			Errors: []registry.Code{CodeForbidden, CodeMethodNotAllowed, CodeTooManyStreams, CodeUnavailable},
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
	}
}

// mcpTransportErrors are the refusals of the MCP transport itself, as JSON-RPC errors
// of fixed wording: a request the transport cannot take (tools.CheckMessage, wrong
// Content-Type, no session id), a session it did not mint or that ended, and a body
// over maxMCPBody.
func mcpTransportErrors() []discovery.Response {
	rpc := &jsonschema.Schema{Type: "object", Required: []string{"jsonrpc", "error"},
		Description: "a JSON-RPC 2.0 error: {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"…\"}}"}
	return []discovery.Response{
		{Status: http.StatusBadRequest, Description: "The transport refused the request: not one JSON-RPC object (-32700); a batch, an id that is not a string or number (null included), a method that is not a non-empty string, a message that is neither a request, a notification nor a response, wrong Content-Type, missing Mcp-Session-Id (-32600).", MediaType: "application/json", Schema: rpc},
		{Status: http.StatusNotFound, Description: "The session is unknown (this server did not mint it), idled out or was ended with DELETE: start a new one with initialize.", MediaType: "application/json", Schema: rpc},
		{Status: http.StatusRequestEntityTooLarge, Description: "The body is larger than " + spelledSize(maxMCPBody) + " (refused by its Content-Length before it is read, without 100 Continue).", MediaType: "application/json", Schema: rpc},
	}
}
