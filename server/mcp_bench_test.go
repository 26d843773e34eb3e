package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// BenchmarkMCPCachedLookup measures a tools/call of lookup_participant through /mcp
// (guard, mcp-go's JSON-RPC handling, the tool) over an answer the registry already
// has: next to BenchmarkCachedParticipant, the price of MCP over REST.
func BenchmarkMCPCachedLookup(b *testing.B) {
	p := samplePart("0208:0677424046")
	p.SMP = &registry.SMPRecord{URL: "https://smp.example/iso6523-actorid-upis%3A%3A0208%3A0677424046", Hostname: "smp.example", ServiceCount: 2}
	s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(&fakeRegistry{part: p, fresh: registry.Freshness{Cached: true, TTL: 15 * time.Minute}})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	post := func(body, session string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w
	}
	w := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`, "")
	session := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || session == "" {
		b.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup_participant","arguments":{"participantId":"0208:0677424046"}}}`
	b.ReportAllocs()
	for b.Loop() {
		w := post(call, session)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"structuredContent"`) {
			b.Fatalf("tools/call: %d %s", w.Code, w.Body)
		}
	}
}
