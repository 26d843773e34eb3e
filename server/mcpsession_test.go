package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestMCPSessionsOnlyMinted: the session manager accepts only ids it minted and that
// have not idled out or ended, keeps at most its maximum (forgetting the one idle
// longest), and refuses a terminated id as terminated.
func TestMCPSessionsOnlyMinted(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := newMCPSessions(time.Hour, 3, clock)
	if _, err := m.Validate("mcp-session-7f1d6a7e-1111-2222-3333-444455556666"); err == nil {
		t.Error("a made-up, well-formed id was accepted")
	}
	var ids []string
	for range 4 {
		ids = append(ids, m.Generate())
		now = now.Add(time.Minute)
	}
	if m.size() != 3 {
		t.Errorf("%d sessions kept, want the maximum 3", m.size())
	}
	if _, err := m.Validate(ids[0]); err == nil {
		t.Error("the session idle longest was not the one forgotten")
	}
	for _, id := range ids[1:] {
		if term, err := m.Validate(id); err != nil || term {
			t.Errorf("%s: %v %v", id, term, err)
		}
	}
	if _, err := m.Terminate(ids[1]); err != nil {
		t.Fatal(err)
	}
	if term, _ := m.Validate(ids[1]); !term {
		t.Error("a terminated session is not reported terminated")
	}
	now = now.Add(2 * time.Hour)
	if _, err := m.Validate(ids[2]); err == nil {
		t.Error("an idled-out session was accepted")
	}
}

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
	if n := s.mcpSessions.size(); n != 1 {
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
// errors of fixed wording (no Go error text, type names or addresses), a batch is an
// invalid request, and an echoed name is cut short.
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, tc.body, tc.hdr...)
			a := decodeAnswer(t, resp, body)
			if resp.StatusCode != tc.status || a.Error == nil || a.Error.Code != tc.code {
				t.Fatalf("%d %s, want %d with JSON-RPC error %d", resp.StatusCode, body, tc.status, tc.code)
			}
			for _, leak := range []string{"json:", "Go ", "mcp.", "127.0.0.1", "tcp"} {
				if strings.Contains(a.Error.Message, leak) {
					t.Errorf("message %q shows %q", a.Error.Message, leak)
				}
			}
		})
	}
	long := strings.Repeat("A", 5000)
	resp, body := rawMCP(t, hs.Client(), hs.URL, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+long+`"}}`, sess...)
	a := decodeAnswer(t, resp, body)
	if a.Error == nil || utf8.RuneCountInString(a.Error.Message) > maxMCPErrorMessage+1 {
		t.Errorf("unknown tool with a 5000-character name: %d %.300s", resp.StatusCode, body)
	}
}

// TestMCPEventStreams: GET /mcp needs a live minted session, a client holds at most
// maxMCPStreamsPerClient streams (503 beyond, with Retry-After), and BeginShutdown ends
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
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "the most one client may hold") {
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
