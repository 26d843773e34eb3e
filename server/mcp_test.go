package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// mcpTestTimeout bounds every MCP exchange of a test, so a hung server fails the test
// instead of blocking it.
const mcpTestTimeout = 30 * time.Second

// guardBase is the base URL the guard tests configure.
const guardBase = "https://peppolgate.example.org"

// Local addresses of the connections guard tests simulate.
const (
	onLoopback4 = "127.0.0.1"
	onLoopback6 = "::1"
	onPublic    = "192.0.2.10"
	onUnknown   = "" // no TCP address recorded
)

// guardRequest builds a request to /mcp with the given Host and Origin (none when
// empty) that arrived on a TCP connection to local port 8080, recorded as net/http
// does.
func guardRequest(host, origin, local string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if local != onUnknown {
		addr := &net.TCPAddr{IP: net.ParseIP(local), Port: 8080}
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
	}
	return r
}

func TestMCPGuardConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		origins, hosts []string
		wantErr        bool
	}{
		{"nothing configured", nil, nil, false},
		{"origin", []string{"https://app.example.com"}, nil, false},
		{"origin with port and trailing slash", []string{" http://app.example.com:8443/ "}, nil, false},
		{"origin wildcard", []string{"*"}, nil, false},
		{"host", nil, []string{"mcp.example.com"}, false},
		{"host with port", nil, []string{"mcp.example.com:8443", "[2001:db8::1]:443"}, false},
		{"host wildcard", nil, []string{"*"}, false},
		{"origin without scheme", []string{"app.example.com"}, nil, true},
		{"origin with path", []string{"https://a/b"}, nil, true},
		{"origin with query", []string{"https://a?x=1"}, nil, true},
		{"origin ftp", []string{"ftp://a.example.com"}, nil, true},
		{"origin scheme only", []string{"https://"}, nil, true},
		{"bad origin after good one", []string{"https://app.example.com", "app.example.com"}, nil, true},
		{"host with scheme", nil, []string{"https://mcp.example.com"}, true},
		{"host with path", nil, []string{"mcp.example.com/mcp"}, true},
		{"host with user", nil, []string{"u@mcp.example.com"}, true},
		{"empty host", nil, []string{" "}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newMCPGuard(guardBase, tt.origins, tt.hosts)
			if (err != nil) != tt.wantErr {
				t.Errorf("newMCPGuard(%q, %q): error %v, want error %v", tt.origins, tt.hosts, err, tt.wantErr)
			}
			// New reports the same configuration errors.
			s, err := New(Config{Networks: registry.One(&fakeRegistry{}), BaseURL: guardBase, MCPAllowedOrigins: tt.origins, MCPAllowedHosts: tt.hosts})
			if err == nil {
				s.Close()
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("New: error %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestMCPGuardOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		origins []string // configured
		origin  string   // sent
		want    bool
	}{
		{"absent", nil, "", true},
		{"base URL origin", nil, "https://peppolgate.example.org", true},
		{"base URL origin, other case", nil, "HTTPS://PeppolGate.example.org", true},
		{"base URL host over http", nil, "http://peppolgate.example.org", false},
		{"localhost with port", nil, "http://localhost:1234", true},
		{"localhost without port", nil, "http://localhost", true},
		{"127.0.0.1", nil, "http://127.0.0.1:5", true},
		{"other IPv4 loopback", nil, "http://127.8.9.10:5", true},
		{"IPv6 loopback", nil, "http://[::1]:6", true},
		{"subdomain of localhost", nil, "https://x.localhost", true},
		{"evil", nil, "http://evil.example.com", false},
		{"localhost as a prefix", nil, "http://localhost.evil.example.com", false},
		{"loopback as a prefix", nil, "http://127.0.0.1.evil.example.com", false},
		{"opaque origin", nil, "null", false},
		{"non-web scheme on localhost", nil, "file://localhost", false},
		{"0.0.0.0", nil, "http://0.0.0.0:8080", false},
		{"configured", []string{"https://app.example.com"}, "https://app.example.com", true},
		{"configured, other case", []string{"https://app.example.com"}, "HTTPS://App.Example.COM", true},
		{"configured, trailing slash in config", []string{"https://app.example.com/"}, "https://app.example.com", true},
		{"configured, other port", []string{"https://app.example.com"}, "https://app.example.com:8443", false},
		{"configured with the default port", []string{"https://app.example.com:443"}, "https://app.example.com", true},
		{"sent with the default port", []string{"https://app.example.com"}, "https://app.example.com:443", true},
		{"http default port", []string{"http://app.example.com:80"}, "http://app.example.com", true},
		{"configured, other scheme", []string{"https://app.example.com"}, "http://app.example.com", false},
		{"configured, subdomain", []string{"https://app.example.com"}, "https://x.app.example.com", false},
		{"configured, others still refused", []string{"https://app.example.com"}, "http://evil.example.com", false},
		{"wildcard", []string{"*"}, "http://evil.example.com", true},
		{"wildcard among others", []string{"https://app.example.com", "*"}, "null", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := newMCPGuard(guardBase, tt.origins, nil)
			if err != nil {
				t.Fatal(err)
			}
			// A non-loopback connection and no configured hosts: only Origin is checked.
			why := g.check(guardRequest("peppolgate.example.org", tt.origin, onPublic))
			if got := why == ""; got != tt.want {
				t.Errorf("origin %q with %q allowed: allowed %v (%q), want %v", tt.origin, tt.origins, got, why, tt.want)
			}
			if !tt.want && (!strings.Contains(why, "origin") || !strings.Contains(why, "-mcp-allowed-origins")) {
				t.Errorf("refusal %q does not say what to do", why)
			}
		})
	}
}

func TestMCPGuardHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		hosts []string // configured
		local string   // the connection's local address
		host  string   // sent
		want  bool
	}{
		// On a loopback connection, Host must name this machine or the base URL.
		{"loopback: localhost with port", nil, onLoopback4, "localhost:8080", true},
		{"loopback: localhost, other case", nil, onLoopback4, "LocalHost:8080", true},
		{"loopback: localhost without port", nil, onLoopback4, "localhost", true},
		{"loopback: 127.0.0.1", nil, onLoopback4, "127.0.0.1:1", true},
		{"loopback: [::1]", nil, onLoopback4, "[::1]:2", true},
		{"loopback: [::1] without port", nil, onLoopback4, "[::1]", true},
		{"loopback: subdomain of localhost", nil, onLoopback4, "mcp.localhost:8080", true},
		{"loopback: base URL host", nil, onLoopback4, "peppolgate.example.org", true},
		{"loopback: base URL host with port", nil, onLoopback4, "peppolgate.example.org:443", true},
		{"loopback: evil", nil, onLoopback4, "evil.example.com", false},
		{"loopback: evil with port", nil, onLoopback4, "evil.example.com:8080", false},
		{"loopback: localhost as a prefix", nil, onLoopback4, "localhost.evil.example.com", false},
		{"loopback: loopback IP as a prefix", nil, onLoopback4, "127.0.0.1.evil.example.com:80", false},
		{"loopback: empty Host", nil, onLoopback4, "", false},
		{"IPv6 loopback: evil", nil, onLoopback6, "evil.example.com", false},
		{"IPv6 loopback: localhost", nil, onLoopback6, "localhost:8080", true},
		// Elsewhere, with no hosts configured, Host is not checked: a reverse proxy
		// forwards whatever public name it serves.
		{"public: evil", nil, onPublic, "evil.example.com", true},
		{"public: anything", nil, onPublic, "10.1.2.3:9", true},
		{"no connection address", nil, onUnknown, "evil.example.com", true},
		// Configured hosts are checked on every connection.
		{"configured, public: configured host", []string{"mcp.example.com"}, onPublic, "mcp.example.com", true},
		{"configured, public: other case and port", []string{"mcp.example.com"}, onPublic, "MCP.Example.com:443", true},
		{"configured, public: evil", []string{"mcp.example.com"}, onPublic, "evil.example.com", false},
		{"configured, public: base URL host", []string{"mcp.example.com"}, onPublic, "peppolgate.example.org", true},
		{"configured, public: localhost", []string{"mcp.example.com"}, onPublic, "localhost:8080", true},
		{"configured, loopback: configured host", []string{"mcp.example.com"}, onLoopback4, "mcp.example.com", true},
		{"configured, loopback: evil", []string{"mcp.example.com"}, onLoopback4, "evil.example.com", false},
		{"configured, no connection address: evil", []string{"mcp.example.com"}, onUnknown, "evil.example.com", false},
		{"configured with port: that port", []string{"mcp.example.com:8443"}, onPublic, "mcp.example.com:8443", true},
		{"configured with port: other port", []string{"mcp.example.com:8443"}, onPublic, "mcp.example.com:9999", false},
		{"configured IPv6", []string{"[2001:db8::1]:443"}, onPublic, "[2001:DB8::1]:443", true},
		{"wildcard, loopback: evil", []string{"*"}, onLoopback4, "evil.example.com", true},
		{"wildcard, public: evil", []string{"*"}, onPublic, "evil.example.com", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := newMCPGuard(guardBase, nil, tt.hosts)
			if err != nil {
				t.Fatal(err)
			}
			why := g.check(guardRequest(tt.host, "", tt.local))
			if got := why == ""; got != tt.want {
				t.Errorf("Host %q on %q with %q allowed: allowed %v (%q), want %v", tt.host, tt.local, tt.hosts, got, why, tt.want)
			}
			if !tt.want && (!strings.Contains(why, "host") || !strings.Contains(why, "-mcp-allowed-hosts")) {
				t.Errorf("refusal %q does not say what to do", why)
			}
		})
	}
}

// TestMCPGuardBoth checks that Origin and Host are both checked, whichever fails.
func TestMCPGuardBoth(t *testing.T) {
	t.Parallel()
	g, err := newMCPGuard(guardBase, []string{"https://app.example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, origin string
		want         bool
	}{
		{"localhost:8080", "https://app.example.com", true},
		{"evil.example.com", "https://app.example.com", false},
		{"localhost:8080", "http://evil.example.com", false},
		{"evil.example.com", "http://evil.example.com", false},
	}
	for _, tt := range tests {
		if got := g.check(guardRequest(tt.host, tt.origin, onLoopback4)) == ""; got != tt.want {
			t.Errorf("Host %q Origin %q: allowed %v, want %v", tt.host, tt.origin, got, tt.want)
		}
	}
}

// mcpClientVariant is one way a client negotiates the protocol.
type mcpClientVariant struct {
	name string
	// options are the client's; pin, when set, is also asked for in initialize.
	options []client.ClientOption
	pin     string
	// wantVersion is the protocol version the connection must settle on.
	wantVersion string
}

func mcpClientVariants() []mcpClientVariant {
	return []mcpClientVariant{
		// mcp-go's client prefers the newest revision (no initialize handshake).
		{name: "default", wantVersion: mcp.LATEST_PROTOCOL_VERSION},
		{name: "pinned 2025-06-18 by option", options: []client.ClientOption{client.WithProtocolVersion(mcp.ProtocolVersion20250618)},
			wantVersion: mcp.ProtocolVersion20250618},
		{name: "pinned 2025-06-18 by request", pin: mcp.ProtocolVersion20250618, wantVersion: mcp.ProtocolVersion20250618},
	}
}

// connectMCP starts an mcp-go streamable HTTP client on base+"/mcp" and initializes it.
func connectMCP(t *testing.T, ctx context.Context, base string, v mcpClientVariant) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	var c *client.Client
	if len(v.options) == 0 {
		// The plain constructor, as most callers use it.
		var err error
		if c, err = client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPTimeout(mcpTestTimeout)); err != nil {
			t.Fatal(err)
		}
	} else {
		tr, err := transport.NewStreamableHTTP(base+"/mcp", transport.WithHTTPTimeout(mcpTestTimeout))
		if err != nil {
			t.Fatal(err)
		}
		c = client.NewClient(tr, v.options...)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "peppolgate-test", Version: "0"}
	req.Params.ProtocolVersion = v.pin
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, res
}

// callTool calls name with args; it fails the test on a protocol error.
func callTool(t *testing.T, ctx context.Context, c *client.Client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", name, args, err)
	}
	return res
}

// resultText is the concatenated text content of a tool result.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a successful result's structuredContent into a generic JSON value
// (for schema validation) and into T (for assertions).
func structured[T any](t *testing.T, res *mcp.CallToolResult) (any, T) {
	t.Helper()
	var v T
	if res.IsError {
		t.Fatalf("isError result: %s", resultText(res))
	}
	raw := res.RawStructuredContent
	if len(raw) == 0 {
		t.Fatalf("no structuredContent; text %q", resultText(res))
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	return generic, v
}

// outputSchemas resolves the outputSchema of every listed tool, by name.
func outputSchemas(t *testing.T, list []mcp.Tool) map[string]*jsonschema.Resolved {
	t.Helper()
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range list {
		if tool.OutputSchema.Type == "" {
			t.Errorf("%s: no outputSchema", tool.Name)
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: outputSchema is not a JSON Schema: %v", tool.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: outputSchema does not resolve: %v", tool.Name, err)
		}
		out[tool.Name] = rs
	}
	return out
}

func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel()
	for _, v := range mcpClientVariants() {
		t.Run(v.name, func(t *testing.T) {
			testMCPStreamableHTTP(t, v)
		})
	}
}

func testMCPStreamableHTTP(t *testing.T, v mcpClientVariant) {
	e := startE2E(t)
	ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
	defer cancel()
	c, hello := connectMCP(t, ctx, e.url, v)

	if hello.ProtocolVersion != v.wantVersion || c.ProtocolVersion() != v.wantVersion {
		t.Errorf("protocol version %q (client %q), want %q", hello.ProtocolVersion, c.ProtocolVersion(), v.wantVersion)
	}
	if hello.ServerInfo.Name != "peppolgate" || hello.ServerInfo.Version != "dev" {
		t.Errorf("serverInfo %+v, want peppolgate dev", hello.ServerInfo)
	}
	for _, want := range []string{"lookup_participant", "search_directory", "not_found", "retry"} {
		if !strings.Contains(hello.Instructions, want) {
			t.Errorf("instructions do not mention %q: %q", want, hello.Instructions)
		}
	}
	if hello.Capabilities.Tools == nil {
		t.Error("no tools capability")
	}

	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
			t.Errorf("%s: annotations %s, want all four explicit: read-only, not destructive, idempotent, open world", tool.Name, annotationsString(a))
		}
		if tool.Description == "" || tool.InputSchema.Type != "object" {
			t.Errorf("%s: description %q, inputSchema type %q", tool.Name, tool.Description, tool.InputSchema.Type)
		}
	}
	if !slices.Equal(names, []string{"check_participants", "get_participant_services", "lookup_participant", "network_statistics", "search_directory"}) {
		t.Fatalf("tools %q, want check_participants, get_participant_services, lookup_participant, network_statistics and search_directory", names)
	}
	schemas := outputSchemas(t, list.Tools)
	validate := func(t *testing.T, tool string, v any) {
		t.Helper()
		if err := schemas[tool].Validate(v); err != nil {
			t.Errorf("%s: structuredContent does not validate against the listed outputSchema: %v", tool, err)
		}
	}

	t.Run("lookup", func(t *testing.T) {
		tests := []struct {
			id               string
			wantDir, wantSMP bool
		}{
			{netsim.KnownBelgian, true, true},
			{netsim.KnownSMLOnly, false, true},
			{netsim.KnownDirectoryOnly, true, false},
			{"iso6523-actorid-upis::9925:BE0677424046", true, true},
		}
		for _, tt := range tests {
			res := callTool(t, ctx, c, "lookup_participant", map[string]any{"participantId": tt.id})
			generic, p := structured[registry.Participant](t, res)
			validate(t, "lookup_participant", generic)
			wantID := strings.ToLower(strings.TrimPrefix(tt.id, "iso6523-actorid-upis::"))
			if p.ParticipantID != wantID || (p.Directory != nil) != tt.wantDir || (p.SMP != nil) != tt.wantSMP {
				t.Errorf("%s: participantId %q, directory %v, smp %v", tt.id, p.ParticipantID, p.Directory != nil, p.SMP != nil)
			}
			if p.Directory != nil {
				if want := firstName(t, e.ds, wantID); p.Directory.Name != want {
					t.Errorf("%s: directory.name %q, want %q", tt.id, p.Directory.Name, want)
				}
			}
			if text := resultText(res); !strings.Contains(text, wantID) {
				t.Errorf("%s: text %q does not name the participant", tt.id, text)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		name := firstName(t, e.ds, netsim.KnownBelgian)
		tests := []struct {
			args    map[string]any
			wantHit bool
		}{
			{map[string]any{"q": name}, true},
			{map[string]any{"q": name, "country": "be"}, true},
			{map[string]any{"q": name, "country": "NO"}, false},
			{map[string]any{"q": "BE 0677.424.046"}, true},
		}
		for _, tt := range tests {
			res := callTool(t, ctx, c, "search_directory", tt.args)
			generic, r := structured[registry.SearchResult](t, res)
			validate(t, "search_directory", generic)
			found := slices.ContainsFunc(r.Results, func(h registry.SearchHit) bool { return h.ParticipantID == netsim.KnownBelgian })
			if found != tt.wantHit {
				t.Errorf("%v: %s found %v, want %v; results %+v", tt.args, netsim.KnownBelgian, found, tt.wantHit, r.Results)
			}
			if text := resultText(res); text == "" || (tt.wantHit && !strings.Contains(text, netsim.KnownBelgian)) {
				t.Errorf("%v: text %q", tt.args, text)
			}
		}
	})

	t.Run("tool errors", func(t *testing.T) {
		absent := peppol.ParticipantID{ICD: "0208", Value: "0999999999"}
		if _, ok := e.ds.Lookup(absent); ok {
			t.Fatalf("%s is in the dataset; pick another absent id", absent)
		}
		tests := []struct {
			name     string
			tool     string
			args     any
			wantCode registry.Code
			// rest is the same input over REST, whose message must be the tool's.
			rest string
		}{
			{"malformed id", "lookup_participant", map[string]any{"participantId": "BE:123"}, registry.CodeInvalidParticipantID, "/api/v1/participant/BE:123"},
			{"missing participantId", "lookup_participant", map[string]any{}, registry.CodeInvalidParticipantID, ""},
			{"no arguments", "lookup_participant", nil, registry.CodeInvalidParticipantID, ""},
			{"participantId not a string", "lookup_participant", map[string]any{"participantId": 208}, registry.CodeInvalidRequest, ""},
			{"unknown argument", "lookup_participant", map[string]any{"participantId": netsim.KnownBelgian, "verbose": true}, registry.CodeInvalidRequest, ""},
			{"absent participant", "lookup_participant", map[string]any{"participantId": absent.String()}, registry.CodeNotFound, "/api/v1/participant/" + absent.String()},
			{"query too short", "search_directory", map[string]any{"q": "x"}, registry.CodeQueryTooShort, "/api/v1/search?q=x"},
			{"missing query", "search_directory", map[string]any{}, registry.CodeMissingQuery, "/api/v1/search"},
			{"missing query, empty country", "search_directory", map[string]any{"country": ""}, registry.CodeMissingQuery, "/api/v1/search?country="},
			{"query too short with a country", "search_directory", map[string]any{"q": "x", "country": "NO"}, registry.CodeQueryTooShort, "/api/v1/search?q=x&country=NO"},
			{"country alone, not two letters", "search_directory", map[string]any{"country": "NOR"}, registry.CodeInvalidRequest, "/api/v1/search?country=NOR"},
			{"bad country", "search_directory", map[string]any{"q": "acme", "country": "B1"}, registry.CodeInvalidRequest, "/api/v1/search?q=acme&country=B1"},
			{"query too long", "search_directory", map[string]any{"q": strings.Repeat("a", registry.MaxQueryLength+1)}, registry.CodeInvalidRequest, ""},
			{"unknown search argument", "search_directory", map[string]any{"q": "acme", "limit": 5}, registry.CodeInvalidRequest, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res := callTool(t, ctx, c, tt.tool, tt.args)
				text := checkToolError(t, res, tt.wantCode)
				if tt.rest == "" {
					return
				}
				_, body := e.get(t, tt.rest)
				restErr := decodeJSON[errorBody](t, body).Error
				if want := string(restErr.Code) + ": " + restErr.Message; text != want {
					t.Errorf("tool error %q differs from REST's %q", text, want)
				}
			})
		}
	})

	t.Run("upstream failures", func(t *testing.T) {
		tests := []struct {
			name     string
			target   netsim.Target
			fault    netsim.Fault
			tool     string
			args     map[string]any
			wantCode registry.Code
			wantText string // substring
		}{
			{"DNS SERVFAIL", netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail},
				"lookup_participant", map[string]any{"participantId": netsim.KnownDutch}, registry.CodeLookupFailed, ""},
			{"SMP 500", netsim.SMPHostTarget(e.ds.MustLookup(netsim.KnownSwedish).SMPHost), netsim.Fault{HTTPStatus: 500},
				"lookup_participant", map[string]any{"participantId": netsim.KnownSwedish}, registry.CodeLookupFailed, ""},
			{"Directory 429", netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "7"},
				"search_directory", map[string]any{"q": "acme"}, registry.CodeSearchFailed, "(retry after 7 s)"},
			{"Directory 503", netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 503},
				"search_directory", map[string]any{"q": "bygg"}, registry.CodeSearchFailed, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e.net.SetFault(tt.target, tt.fault)
				defer e.net.ClearFaults()
				text := checkToolError(t, callTool(t, ctx, c, tt.tool, tt.args), tt.wantCode)
				if !strings.Contains(text, tt.wantText) || strings.Contains(text, "127.0.0.1") {
					t.Errorf("text %q: want %q in it and no upstream address", text, tt.wantText)
				}
			})
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		var req mcp.CallToolRequest
		req.Params.Name = "delete_participant"
		res, err := c.CallTool(ctx, req)
		if err == nil {
			t.Fatalf("unknown tool answered with a result, not a protocol error: %+v", res)
		}
		if !strings.Contains(err.Error(), "delete_participant") {
			t.Errorf("error %q does not name the tool", err)
		}
	})
}

// checkToolError checks that res is an isError result whose text starts with the code,
// and returns the text.
func checkToolError(t *testing.T, res *mcp.CallToolResult, code registry.Code) string {
	t.Helper()
	text := resultText(res)
	if !res.IsError {
		t.Fatalf("not an isError result: %q", text)
	}
	if !strings.HasPrefix(text, string(code)+": ") || len(text) <= len(code)+2 {
		t.Errorf("text %q does not start with %q and a message", text, string(code)+": ")
	}
	if res.StructuredContent != nil {
		t.Errorf("an error carries structuredContent %v", res.StructuredContent)
	}
	return text
}

func annotationsString(a mcp.ToolAnnotation) string {
	s := func(p *bool) string {
		if p == nil {
			return "unset"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("readOnly %s, destructive %s, idempotent %s, openWorld %s",
		s(a.ReadOnlyHint), s(a.DestructiveHint), s(a.IdempotentHint), s(a.OpenWorldHint))
}

// JSON-RPC messages for raw HTTP tests, at the protocol revision with sessions.
const (
	rawProtocolVersion = mcp.ProtocolVersion20250618
	rawInitialize      = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	rawInitialized     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawLookup          = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup_participant","arguments":{"participantId":"0208:0677424046"}}}`
)

// rawMCP sends one JSON-RPC message to /mcp of base and returns the answer. hdr are
// header name/value pairs; "Host" sets the request's Host.
func rawMCP(t *testing.T, c *http.Client, base, method, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// rawSession initializes a session over raw HTTP and returns its id.
func rawSession(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	resp, body := rawMCP(t, c, base, http.MethodPost, rawInitialize)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.StatusCode, id, body)
	}
	resp, body = rawMCP(t, c, base, http.MethodPost, rawInitialized, "Mcp-Session-Id", id, "MCP-Protocol-Version", rawProtocolVersion)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", resp.StatusCode, body)
	}
	return id
}

// jsonRPCAnswer is a JSON-RPC response as the raw tests read it.
type jsonRPCAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, resp *http.Response, body []byte) jsonRPCAnswer {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q: %s", ct, body)
	}
	var a jsonRPCAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a
}

func TestMCPRawHTTPGuard(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian)}
	s, _ := newTestServer(t, reg, func(c *Config) {
		c.MCPAllowedOrigins = []string{"https://app.example.com"}
		c.MCPAllowedHosts = []string{"mcp.example.com"}
	})
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	hc := hs.Client()
	hc.Timeout = mcpTestTimeout
	session := rawSession(t, hc, hs.URL)
	port := hs.Listener.Addr().(*net.TCPAddr).Port
	inSession := []string{"Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion}

	tests := []struct {
		name       string
		body       string
		hdr        []string
		wantStatus int
	}{
		{"initialize from an evil origin", rawInitialize, []string{"Origin", "http://evil.example.com"}, http.StatusForbidden},
		{"call from an evil origin", rawLookup, append([]string{"Origin", "http://evil.example.com"}, inSession...), http.StatusForbidden},
		{"call from an opaque origin", rawLookup, append([]string{"Origin", "null"}, inSession...), http.StatusForbidden},
		{"initialize for an evil host", rawInitialize, []string{"Host", "evil.example.com"}, http.StatusForbidden},
		{"call for an evil host", rawLookup, append([]string{"Host", fmt.Sprintf("evil.example.com:%d", port)}, inSession...), http.StatusForbidden},
		{"call without Origin", rawLookup, inSession, http.StatusOK},
		{"call from a configured origin", rawLookup, append([]string{"Origin", "https://app.example.com"}, inSession...), http.StatusOK},
		{"call from a loopback origin", rawLookup, append([]string{"Origin", "http://localhost:3000"}, inSession...), http.StatusOK},
		{"call for localhost", rawLookup, append([]string{"Host", fmt.Sprintf("localhost:%d", port)}, inSession...), http.StatusOK},
		{"call for a configured host", rawLookup, append([]string{"Host", "mcp.example.com"}, inSession...), http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg.mu.Lock()
			before := reg.calls
			reg.mu.Unlock()
			resp, body := rawMCP(t, hc, hs.URL, http.MethodPost, tt.body, tt.hdr...)
			reg.mu.Lock()
			calls := reg.calls - before
			reg.mu.Unlock()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			if tt.wantStatus == http.StatusForbidden {
				var eb errorBody
				if err := json.Unmarshal(body, &eb); err != nil || eb.Error.Code != CodeForbidden || !strings.Contains(eb.Error.Message, "DNS-rebinding") {
					t.Errorf("403 body %s (%v)", body, err)
				}
				if resp.Header.Get("Cache-Control") != "no-store" || resp.Header.Get("Mcp-Session-Id") != "" {
					t.Errorf("403 headers %v", resp.Header)
				}
				if calls != 0 {
					t.Errorf("a refused request reached the registry %d times", calls)
				}
				return
			}
			a := decodeAnswer(t, resp, body)
			if a.Error != nil || len(a.Result) == 0 {
				t.Fatalf("answer %s", body)
			}
			if tt.body == rawLookup && calls != 1 {
				t.Errorf("the call reached the registry %d times, want 1", calls)
			}
		})
	}
}

func TestMCPRawHTTPHeaders(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, func(c *Config) { c.Version = "1.2.3" })
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	hc := hs.Client()
	hc.Timeout = mcpTestTimeout

	t.Run("other methods", func(t *testing.T) {
		for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodHead, "FOO", "PROPFIND"} {
			resp, body := rawMCP(t, hc, hs.URL, m, rawInitialize)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, POST, DELETE, OPTIONS" {
				t.Errorf("%s: %d Allow %q %s", m, resp.StatusCode, resp.Header.Get("Allow"), body)
			}
			if m != http.MethodHead && !strings.Contains(string(body), `"method_not_allowed"`) {
				t.Errorf("%s: body %s", m, body)
			}
		}
	})

	t.Run("initialize", func(t *testing.T) {
		resp, body := rawMCP(t, hc, hs.URL, http.MethodPost, rawInitialize, "Origin", "http://localhost:5173")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var hello mcp.InitializeResult
		if err := json.Unmarshal(decodeAnswer(t, resp, body).Result, &hello); err != nil {
			t.Fatal(err)
		}
		if hello.ServerInfo.Name != "peppolgate" || hello.ServerInfo.Version != "1.2.3" || hello.ProtocolVersion != rawProtocolVersion {
			t.Errorf("initialize result %+v", hello)
		}
		h := resp.Header
		if h.Get("Mcp-Session-Id") == "" || h.Get("X-Request-Id") == "" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("headers %v", h)
		}
		exposed := commaList(h.Get("Access-Control-Expose-Headers"))
		for _, want := range []string{"mcp-session-id", "mcp-protocol-version", "x-request-id"} {
			if !slices.Contains(exposed, want) {
				t.Errorf("Access-Control-Expose-Headers %q lacks %s", h.Get("Access-Control-Expose-Headers"), want)
			}
		}
		if h.Get("Access-Control-Allow-Origin") == "" {
			t.Error("no Access-Control-Allow-Origin")
		}
	})

	t.Run("preflight", func(t *testing.T) {
		tests := []struct {
			origin     string
			wantStatus int
		}{
			{"http://localhost:5173", http.StatusNoContent},
			{"http://evil.example.com", http.StatusForbidden},
		}
		for _, tt := range tests {
			resp, body := rawMCP(t, hc, hs.URL, http.MethodOptions, "", "Origin", tt.origin,
				"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "content-type, mcp-session-id, mcp-protocol-version")
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("%s: status %d, want %d: %s", tt.origin, resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus != http.StatusNoContent {
				continue
			}
			h := resp.Header
			methods := commaList(h.Get("Access-Control-Allow-Methods"))
			headers := commaList(h.Get("Access-Control-Allow-Headers"))
			for _, want := range []string{"get", "post", "delete"} {
				if !slices.Contains(methods, want) {
					t.Errorf("Access-Control-Allow-Methods %q lacks %s", h.Get("Access-Control-Allow-Methods"), want)
				}
			}
			for _, want := range []string{"content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id"} {
				if !slices.Contains(headers, want) {
					t.Errorf("Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), want)
				}
			}
			if len(body) != 0 || h.Get("Access-Control-Allow-Origin") == "" || h.Get("Access-Control-Max-Age") == "" || h.Get("X-Request-Id") == "" {
				t.Errorf("preflight %q, headers %v", body, h)
			}
		}
	})

	t.Run("body cap", func(t *testing.T) {
		session := rawSession(t, hc, hs.URL)
		ping := func(size int) string {
			const head, tail = `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"pad":"`, `"}}}`
			return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
		}
		tests := []struct {
			size   int
			wantOK bool
		}{
			{maxMCPBody - 1, true},
			{maxMCPBody, true},
			{maxMCPBody + 1, false},
			{4 * maxMCPBody, false},
		}
		for _, tt := range tests {
			resp, body := rawMCP(t, hc, hs.URL, http.MethodPost, ping(tt.size), "Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion)
			ok := resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"result"`))
			if ok != tt.wantOK {
				t.Errorf("%d bytes: status %d, answered %v, want %v: %.200s", tt.size, resp.StatusCode, ok, tt.wantOK, body)
			}
			if !tt.wantOK && resp.StatusCode < 400 {
				t.Errorf("%d bytes: status %d, want a 4xx", tt.size, resp.StatusCode)
			}
		}
	})
}

func commaList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.ToLower(strings.TrimSpace(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// TestMCPAccessLog checks that /mcp answers, refusals and preflights included, carry
// a request id and are logged with it, like every other answer.
func TestMCPAccessLog(t *testing.T) {
	t.Parallel()
	s, logs := newTestServer(t, &fakeRegistry{part: samplePart(netsim.KnownBelgian)}, nil)
	tests := []struct {
		name       string
		method     string
		body       string
		hdr        []string
		wantStatus int
	}{
		{"initialize", http.MethodPost, rawInitialize, nil, http.StatusOK},
		{"refused", http.MethodPost, rawInitialize, []string{"Origin", "http://evil.example.com"}, http.StatusForbidden},
		{"preflight", http.MethodOptions, "", []string{"Origin", "http://localhost:5173", "Access-Control-Request-Method", "POST"}, http.StatusNoContent},
		{"not JSON", http.MethodPost, "{", nil, http.StatusBadRequest},
		{"incoming id kept", http.MethodPost, rawInitialize, []string{"X-Request-Id", "agent-42"}, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			r := httptest.NewRequest(tt.method, "/mcp", strings.NewReader(tt.body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				r.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			id := w.Header().Get("X-Request-Id")
			if id == "" || (r.Header.Get("X-Request-Id") != "" && id != r.Header.Get("X-Request-Id")) {
				t.Errorf("X-Request-Id %q", id)
			}
			var line map[string]any
			for l := range strings.Lines(logs.String()) {
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
					line = m
				}
			}
			want := map[string]any{"method": tt.method, "path": "/mcp", "status": float64(tt.wantStatus),
				"bytes": float64(w.Body.Len()), "request_id": id}
			for k, v := range want {
				if line[k] != v {
					t.Errorf("access log %s = %v, want %v (log %q)", k, line[k], v, logs)
				}
			}
		})
	}
}

// TestMCPEventStreamOutlivesWriteTimeout opens the GET event stream on a server whose
// timeouts (write, read, idle) are far shorter than the stream's life, and checks the
// stream is still open after them. It runs over HTTP/2: over HTTP/1.1 net/http's write
// deadline only fails writes, and this server writes nothing on an idle stream (no
// notifications, no heartbeat), so a cut could not be observed; over HTTP/2 the
// server resets the stream when the write deadline passes, writes or not, unless the
// handler lifted it.
func TestMCPEventStreamOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	// Short against the wait below, long enough for the handler to lift the
	// deadline on a busy machine.
	const writeTimeout = time.Second
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	hs := httptest.NewUnstartedServer(s)
	hs.EnableHTTP2 = true
	hs.Config.WriteTimeout = writeTimeout
	hs.Config.ReadTimeout = writeTimeout
	hs.Config.IdleTimeout = writeTimeout
	hs.StartTLS()
	t.Cleanup(hs.Close)
	hc := hs.Client()
	session := rawSession(t, hc, hs.URL)

	ctx, cancel := context.WithTimeout(t.Context(), mcpTestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", rawProtocolVersion)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("GET /mcp over %s; the test needs HTTP/2", resp.Proto)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET /mcp: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	// The stream carries nothing until the server has something to say; reading
	// ends only when it is cut (or the body is closed below).
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, bufio.NewReader(resp.Body))
		ended <- err
	}()
	select {
	case err := <-ended:
		t.Fatalf("the event stream ended within %v on a server with %v timeouts: %v", 3*writeTimeout+100*time.Millisecond, writeTimeout, err)
	case <-time.After(3*writeTimeout + 100*time.Millisecond):
	}
	resp.Body.Close()
	<-ended
}
