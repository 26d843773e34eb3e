package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/mcpsession"
	"github.com/peppolgate/peppolgate/tools"
)

// mcpTestServer is the server over httptest, with the session of an initialized MCP
// client.
func mcpTestServer(t *testing.T) (*Server, *httptest.Server, string) {
	t.Helper()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs, rawSession(t, hs.Client(), hs.URL)
}

// TestMCPMadeUpSessionsKeepNoState: requests with session ids the server never minted
// are 404 and leave nothing behind; an ended (DELETEd) session stops working.
func TestMCPMadeUpSessionsKeepNoState(t *testing.T) {
	t.Parallel()
	s, hs, session := mcpTestServer(t)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for i := range 500 {
		id := fmt.Sprintf("mcp-session-%08x-1111-2222-3333-444455556666", i)
		resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, ping, "Mcp-Session-Id", id, "MCP-Protocol-Version", rawProtocolVersion)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("made-up session %s: %d %s", id, resp.StatusCode, body)
		}
	}
	if n := s.mcpSessions.Size(); n != 1 {
		t.Errorf("%d sessions remembered after 500 made-up ids, want the 1 minted", n)
	}
	if resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, ping, "Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion); resp.StatusCode != 200 {
		t.Fatalf("the real session: %d %s", resp.StatusCode, body)
	}
	if resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodDelete, "", "Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, ping, "Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the ended session still works: %d %s", resp.StatusCode, body)
	}
}

// TestMCPTransportErrorsAreFixed: what the transport refuses is answered with JSON-RPC
// errors of fixed wording (no Go error text, type names or addresses); a batch, a null
// id, an empty method and a message that is neither request, notification nor response
// are invalid requests (-32600, not 202); params of the wrong type are invalid params
// (-32602) naming the field; and an echoed name is cut short.
func TestMCPTransportErrorsAreFixed(t *testing.T) {
	t.Parallel()
	_, hs, session := mcpTestServer(t)
	sess := []string{"Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion}
	for _, tc := range []struct {
		name, body string
		hdr        []string
		status     int
		code       int
	}{
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, sess, 400, -32600},
		{"not JSON", `{"jsonrpc":`, sess, 400, -32700},
		{"id an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, sess, 400, -32600},
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":5}`, sess, 400, -32600},
		{"wrong content type", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, append([]string{"Content-Type", "text/plain"}, sess...), 400, -32600},
		{"unknown session", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, []string{"Mcp-Session-Id", "nope", "MCP-Protocol-Version", rawProtocolVersion}, 404, -32600},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, sess, 400, -32600},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`, sess, 400, -32600},
		{"notification method empty", `{"jsonrpc":"2.0","method":""}`, sess, 400, -32600},
		{"neither method nor result", `{"jsonrpc":"2.0","id":1}`, sess, 400, -32600},
		{"tools/list cursor a number", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}`, sess, 200, -32602},
		{"tools/list params an array", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}`, sess, 200, -32602},
		{"prompts/get argument a number", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":5}}}`, sess, 200, -32602},
		{"tools/call name a number", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`, sess, 200, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, tc.body, tc.hdr...)
			a := decodeAnswer(t, resp, body)
			if resp.StatusCode != tc.status || a.Error == nil || a.Error.Code != tc.code {
				t.Fatalf("%d %s, want %d with JSON-RPC error %d", resp.StatusCode, body, tc.status, tc.code)
			}
			for _, leak := range []string{"json:", "Go ", "mcp.", "127.0.0.1", "tcp", "unmarshal", "struct", "Params"} {
				if strings.Contains(a.Error.Message, leak) {
					t.Errorf("message %q shows %q", a.Error.Message, leak)
				}
			}
		})
	}
	long := strings.Repeat("A", 5000)
	resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+long+`"}}`, sess...)
	a := decodeAnswer(t, resp, body)
	if a.Error == nil || utf8.RuneCountInString(a.Error.Message) > tools.MaxErrorMessage+1 {
		t.Errorf("unknown tool with a 5000-character name: %d %.300s", resp.StatusCode, body)
	}
}

// TestMCPEventStreams: GET /mcp needs a live minted session, a client holds at most
// maxMCPStreamsPerClient streams (429 too_many_streams beyond, with Retry-After: a
// client's limit, like the rate limiter's, not 503), and BeginShutdown ends
// every open stream at once and refuses new ones (503).
func TestMCPEventStreams(t *testing.T) {
	t.Parallel()
	s, hs, session := mcpTestServer(t)
	get := func(ctx context.Context, id string) *http.Response {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("MCP-Protocol-Version", rawProtocolVersion)
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for id, want := range map[string]int{"": 400, "mcp-session-7f1d6a7e-1111-2222-3333-444455556666": 404} {
		resp := get(t.Context(), id)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var a jsonRPCAnswer
		if resp.StatusCode != want || json.Unmarshal(b, &a) != nil || a.Error == nil {
			t.Errorf("GET with session %q: %d %s, want %d and a JSON-RPC error", id, resp.StatusCode, b, want)
		}
	}
	ended := make(chan error, maxMCPStreamsPerClient)
	for range maxMCPStreamsPerClient {
		resp := get(t.Context(), session)
		if resp.StatusCode != 200 {
			t.Fatalf("stream: %d", resp.StatusCode)
		}
		go func() {
			_, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			ended <- err
		}()
	}
	resp := get(t.Context(), session)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), `"too_many_streams"`) ||
		!strings.Contains(string(b), "the most one client may hold") {
		t.Errorf("a stream beyond the client's cap: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if n := s.mcpStreams.count(); n != maxMCPStreamsPerClient {
		t.Errorf("%d streams counted open, want %d", n, maxMCPStreamsPerClient)
	}
	s.BeginShutdown()
	for range maxMCPStreamsPerClient {
		select {
		case <-ended:
		case <-time.After(mcpTestTimeout):
			t.Fatal("an event stream stayed open after BeginShutdown")
		}
	}
	resp = get(t.Context(), session)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a stream while shutting down: %d", resp.StatusCode)
	}
}

// mcpFloodHeapBound is how much the live heap may grow while one client sends 50,000
// initializes (docs/INTERFACE.md §4.5): that client keeps at most
// maxMCPSessionsPerClient sessions of ~10 KB each, so a few MB; the bound is generous,
// but a leak of ~9 KB per initialize (450 MB) cannot pass it.
const mcpFloodHeapBound = 64 << 20

// TestMCPSessionFloodBounded: 50,000 initializes from one client, through /mcp and
// mcp-go (in-process, without TCP), keep the live heap under mcpFloodHeapBound, keep at
// most maxMCPSessionsPerClient of that client's sessions, and leave another client's
// session working. Not parallel: it measures the heap.
func TestMCPSessionFloodBounded(t *testing.T) {
	s, _ := newUncheckedServer(t, &fakeRegistry{}, func(c *Config) { c.Logger = slog.New(slog.DiscardHandler) })
	post := func(remote, body string, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://localhost:8080/mcp", strings.NewReader(body))
		req.RemoteAddr = remote
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec
	}
	const victimAddr, floodAddr = "192.0.2.10:40000", "198.51.100.7:50000"
	rec := post(victimAddr, rawInitialize)
	victim := rec.Header().Get("Mcp-Session-Id")
	if rec.Code != http.StatusOK || victim == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	sess := []string{"Mcp-Session-Id", victim, "MCP-Protocol-Version", rawProtocolVersion}
	if rec := post(victimAddr, rawInitialized, sess...); rec.Code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s", rec.Code, rec.Body)
	}
	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	base := heap()
	const flood = 50000
	for i := range flood {
		if rec := post(floodAddr, rawInitialize); rec.Code != http.StatusOK || rec.Header().Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize %d of the flood: %d %s", i, rec.Code, rec.Body)
		}
		if (i+1)%5000 == 0 {
			if grown := heap() - base; grown > mcpFloodHeapBound {
				t.Fatalf("after %d initializes from one client the live heap grew by %d MB, more than the bound of %d MB",
					i+1, grown>>20, mcpFloodHeapBound>>20)
			}
		}
	}
	t.Logf("the live heap grew by %.1f MB over %d initializes from one client", float64(heap()-base)/(1<<20), flood)
	if n := s.mcpSessions.Size(); n > maxMCPSessionsPerClient+1 {
		t.Errorf("%d sessions live after the flood, want at most the flooding client's %d and the other client's 1", n, maxMCPSessionsPerClient)
	}
	if rec := post(victimAddr, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, sess...); rec.Code != http.StatusOK {
		t.Errorf("the other client's session after the flood: %d %s", rec.Code, rec.Body)
	}
}

// TestMCPPromptArgumentCapped: prompts/get with a 900 KB company argument is refused
// with a short invalid-params error that does not echo it; a normal one still works.
func TestMCPPromptArgumentCapped(t *testing.T) {
	t.Parallel()
	_, hs, session := mcpTestServer(t)
	sess := []string{"Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion}
	get := func(company string) (*http.Response, []byte) {
		return rawMCP(t, hs.Client(), hs.URL, http.MethodPost,
			`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"check_invoice_recipient","arguments":{"company":"`+company+`"}}}`, sess...)
	}
	resp, body := get(strings.Repeat("x", 900_000))
	a := decodeAnswer(t, resp, body)
	if a.Error == nil || a.Error.Code != -32602 || len(body) > 1000 || !strings.Contains(a.Error.Message, "company") {
		t.Errorf("a 900 KB company: %d, %d bytes: %.300s", resp.StatusCode, len(body), body)
	}
	resp, body = get("Acme BV")
	if a := decodeAnswer(t, resp, body); a.Error != nil || !strings.Contains(string(a.Result), "Acme BV") {
		t.Errorf("a normal company: %d %s", resp.StatusCode, body)
	}
}

// TestMCPLargeBodyRefusedBeforeReading: a POST /mcp announcing a 100 MB body with
// Expect: 100-continue is answered 413 at once, without 100 Continue (the body is never
// asked for), over a real connection.
func TestMCPLargeBodyRefusedBeforeReading(t *testing.T) {
	t.Parallel()
	_, hs, session := mcpTestServer(t)
	conn, err := net.DialTimeout("tcp", hs.Listener.Addr().String(), mcpTestTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(mcpTestTimeout))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n",
		hs.Listener.Addr(), session, rawProtocolVersion, 100<<20)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var a jsonRPCAnswer
	if resp.StatusCode != http.StatusRequestEntityTooLarge || json.Unmarshal(body, &a) != nil || a.Error == nil {
		t.Errorf("the first answer to a 100 MB body: %d %s, want 413 with a JSON-RPC error and no 100 Continue", resp.StatusCode, body)
	}
}

// TestMCPForgottenSessionEndsItsStream: the open GET event stream of a session ends
// when the session does: when its client DELETEs it, and when the client's cap
// forgets it (maxMCPSessionsPerClient newer sessions of the same client).
func TestMCPForgottenSessionEndsItsStream(t *testing.T) {
	t.Parallel()
	_, hs, _ := mcpTestServer(t)
	open := func(session string) <-chan error {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, hs.URL+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("MCP-Protocol-Version", rawProtocolVersion)
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream: %d", resp.StatusCode)
		}
		ended := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			ended <- err
		}()
		return ended
	}
	waitEnd := func(what string, ended <-chan error) {
		t.Helper()
		select {
		case <-ended:
		case <-time.After(mcpTestTimeout):
			t.Fatalf("the event stream stayed open after its session %s", what)
		}
	}
	deleted := rawSession(t, hs.Client(), hs.URL)
	ended := open(deleted)
	if resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodDelete, "", "Mcp-Session-Id", deleted, "MCP-Protocol-Version", rawProtocolVersion); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	waitEnd("was DELETEd", ended)

	evicted := rawSession(t, hs.Client(), hs.URL)
	ended = open(evicted)
	for range maxMCPSessionsPerClient {
		if resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, rawInitialize); resp.StatusCode != 200 {
			t.Fatalf("initialize: %d %s", resp.StatusCode, body)
		}
	}
	waitEnd("was forgotten by the client's cap", ended)
}

// TestClientCapExempt: a client exempt from the rate limits (it may be a local proxy
// speaking for many) may hold half of a server-wide cap, never all of it; one rule for
// checks, MCP sessions and MCP event streams.
func TestClientCapExempt(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ per, total, want int }{{2, 32, 16}, {256, 10000, 5000}, {4, 512, 256}, {8, 6, 8}} {
		if got := clientCap(tt.per, tt.total, true); got != tt.want {
			t.Errorf("clientCap(%d, %d, exempt) = %d, want %d", tt.per, tt.total, got, tt.want)
		}
		if got := clientCap(tt.per, tt.total, false); got != tt.per {
			t.Errorf("clientCap(%d, %d) = %d, want %d", tt.per, tt.total, got, tt.per)
		}
	}
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	m := mcpsession.NewMemory(mcpsession.Options{TTL: time.Hour, Max: 100, PerClient: 2,
		ExemptPerClient: clientCap(2, 100, true), Now: func() time.Time { return now }})
	proxy, other := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("192.0.2.1")
	o := m.Generate(other, false)
	for range 60 {
		m.Generate(proxy, true)
	}
	if m.ClientSize(proxy) != 50 {
		t.Errorf("an exempt client holds %d sessions, want 50 (half of 100)", m.ClientSize(proxy))
	}
	if _, err := m.Validate(o, false); err != nil {
		t.Errorf("another client's session was forgotten: %v", err)
	}
	st := newMCPStreams(4, 512)
	for i := range 256 {
		if _, err := st.open(proxy, true, fmt.Sprint(i), func() {}); err != nil {
			t.Fatalf("an exempt client's stream %d: %v", i+1, err)
		}
	}
	if _, err := st.open(proxy, true, "x", func() {}); !errors.Is(err, errStreamsClient) {
		t.Errorf("an exempt client's 257th stream: %v, want errStreamsClient", err)
	}
}
