package server

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// maxMCPBody bounds a request body on /mcp. A JSON-RPC message of these tools is a
// few hundred bytes; a batch of a hundred of them still fits.
const maxMCPBody = 1 << 20

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
			"its operator can allow it with -mcp-allowed-origins", quotePath(origin))
	}
	if (g.hostsConfigured || onLoopback(r)) && !g.hostAllowed(r.Host) {
		return fmt.Sprintf("host %s is not served on this MCP endpoint (DNS-rebinding protection); "+
			"use the server's own address, or its operator can allow the name with -mcp-allowed-hosts", quotePath(r.Host))
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

// mcpSessionIdleTTL is how long an MCP session's state (its log level) is kept after
// its last request. Session ids are minted without server-side storage, so without a
// limit every id a client makes up would be kept forever.
const mcpSessionIdleTTL = 30 * time.Minute

// mcpHandler serves MCP's streamable HTTP transport at /mcp behind the guard. mcp-go's
// own localhost check is off: the guard does it, and also lets a reverse proxy's host
// through when the operator names it. The server's write timeout is lifted for GET,
// the long-lived event stream; POST answers are bounded by the registry's deadlines.
// Close stops the transport's session sweeper.
func (s *Server) mcpHandler(m *mcpserver.MCPServer, g *mcpGuard) http.Handler {
	h := mcpserver.NewStreamableHTTPServer(m,
		mcpserver.WithDisableLocalhostProtection(true),
		mcpserver.WithSessionIdleTTL(mcpSessionIdleTTL),
		mcpserver.WithStreamableHTTPLogger(s.log.With("component", "mcp")))
	s.mcpHTTP = h
	return s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		switch r.Method {
		case http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions:
		default:
			w.Header().Set("Allow", mcpMethods)
			return apiError(CodeMethodNotAllowed, fmt.Sprintf("method %s is not allowed on /mcp; allowed: %s", quotePath(r.Method), mcpMethods))
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
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxMCPBody)
		h.ServeHTTP(w, r)
		return nil
	})
}
