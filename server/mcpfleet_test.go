package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/registry"
)

// mcpReplica is one replica of a fleet test: its server over httptest and its own
// connection to the shared Redis.
type mcpReplica struct {
	s     *Server
	hs    *httptest.Server
	fleet *fleet.Fleet
}

// mcpFleet starts n replicas of the server, each with its own fleet.Open on the Redis
// of srv, answering lookups from the same fake registry.
func mcpFleet(t *testing.T, srv *redistest.Server, n int) []mcpReplica {
	t.Helper()
	p := samplePart("0208:0677424046")
	var out []mcpReplica
	for range n {
		// A generous deadline: this test is not about it, and a busy machine misses
		// 50 ms and sends a replica local.
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "mcpfleet", OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		s, _ := newTestServer(t, &fakeRegistry{part: p, fresh: registry.Freshness{Cached: true, TTL: time.Minute}}, func(c *Config) { c.Fleet = f })
		hs := httptest.NewServer(s)
		t.Cleanup(hs.Close)
		out = append(out, mcpReplica{s: s, hs: hs, fleet: f})
	}
	return out
}

// mcpOn sends one message of session to replica r and returns the status and body.
func mcpOn(t *testing.T, r mcpReplica, method, body, session string) (int, string) {
	t.Helper()
	resp, b := rawMCP(t, r.hs.Client(), r.hs.URL, method, body, "Mcp-Session-Id", session, "MCP-Protocol-Version", rawProtocolVersion)
	return resp.StatusCode, string(b)
}

// waitStatus asks replica r with ping in session until it answers want, for at most
// mcpTestTimeout: a replica that checked the session in Redis moments ago learns of
// a change at its next check, a few seconds later (docs/INTERFACE.md §4.5).
func waitStatus(t *testing.T, r mcpReplica, session string, want int, what string) {
	t.Helper()
	deadline := time.Now().Add(mcpTestTimeout)
	for {
		code, body := mcpOn(t, r, http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, session)
		if code == want {
			return
		}
		if code >= 500 {
			t.Fatalf("%s: %d %s", what, code, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %d %s after %s, want %d", what, code, body, mcpTestTimeout, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openStream opens a GET /mcp event stream of session on replica r and returns its
// status and, for a 200 stream (read until ctx ends), a channel closed when it ends.
func openStream(t *testing.T, ctx context.Context, r mcpReplica, session string) (int, <-chan struct{}) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.hs.URL+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", rawProtocolVersion)
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := r.hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	return resp.StatusCode, ended
}

// TestMCPSessionAcrossReplicas: with -redis, an MCP session initialised on replica 1
// lists and calls tools on replica 2 and opens its event stream on replica 3 (and
// again on replica 1 after replica 3's stream is gone); a DELETE on replica 2 ends it
// on 1 and 3 (404); with Redis killed a session minted then works on its own replica
// and nothing answers 5xx; with Redis restarted the sessions are shared again
// (docs/INTERFACE.md §4.5).
func TestMCPSessionAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	rs := mcpFleet(t, srv, 3)
	session := rawSession(t, rs[0].hs.Client(), rs[0].hs.URL)

	code, body := mcpOn(t, rs[1], http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, session)
	if code != http.StatusOK || !strings.Contains(body, `"lookup_participant"`) || strings.Contains(body, `"error":{"code"`) {
		t.Fatalf("tools/list on replica 2 with replica 1's session: %d %.300s", code, body)
	}
	code, body = mcpOn(t, rs[1], http.MethodPost, rawLookup, session)
	if code != http.StatusOK || !strings.Contains(body, "0208:0677424046") || strings.Contains(body, `"isError":true`) || strings.Contains(body, `"error":{"code"`) {
		t.Fatalf("tools/call lookup_participant on replica 2: %d %.300s", code, body)
	}
	// Nothing kept per session on the replica that ran initialize (client info,
	// negotiated revision) changes an answer: replica 1 answers the same.
	for _, msg := range []string{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, rawLookup} {
		_, on2 := mcpOn(t, rs[1], http.MethodPost, msg, session)
		_, on1 := mcpOn(t, rs[0], http.MethodPost, msg, session)
		if on1 != on2 {
			t.Errorf("%.60s: replica 1 answers\n%.400s\nreplica 2\n%.400s", msg, on1, on2)
		}
	}
	// The log level is set on replica 3 and answered there; the session goes on.
	if code, body = mcpOn(t, rs[2], http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}`, session); code != http.StatusOK || strings.Contains(body, `"error":{"code"`) {
		t.Fatalf("logging/setLevel on replica 3: %d %.300s", code, body)
	}

	// The event stream: opened on replica 3, then (replica 3's connection gone) again
	// on replica 1 with the same session; one more stays open on replica 3.
	ctx, cancel := context.WithCancel(t.Context())
	if code, _ := openStream(t, ctx, rs[2], session); code != http.StatusOK {
		t.Fatalf("GET /mcp on replica 3 for replica 1's session: %d", code)
	}
	cancel()
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	code, onOne := openStream(t, ctx, rs[0], session)
	if code != http.StatusOK {
		t.Fatalf("GET /mcp again on replica 1: %d", code)
	}
	code, onThree := openStream(t, ctx, rs[2], session)
	if code != http.StatusOK {
		t.Fatalf("a second GET /mcp on replica 3: %d", code)
	}

	if code, body := mcpOn(t, rs[1], http.MethodDelete, "", session); code != http.StatusOK {
		t.Fatalf("DELETE on replica 2: %d %s", code, body)
	}
	// The streams of the session end on replicas 1 and 3 without a request there.
	for i, ended := range map[int]<-chan struct{}{1: onOne, 3: onThree} {
		select {
		case <-ended:
		case <-time.After(mcpTestTimeout):
			t.Fatalf("the event stream on replica %d stayed open after the DELETE on replica 2", i)
		}
	}
	waitStatus(t, rs[0], session, http.StatusNotFound, "replica 1 after the DELETE on replica 2")
	waitStatus(t, rs[2], session, http.StatusNotFound, "replica 3 after the DELETE on replica 2")
	if code, body := mcpOn(t, rs[1], http.MethodPost, rawLookup, session); code != http.StatusNotFound {
		t.Errorf("replica 2 after its DELETE: %d %s", code, body)
	}

	// Redis killed: sessions are the replicas' own, nothing fails for Redis.
	before := rawSession(t, rs[0].hs.Client(), rs[0].hs.URL)
	waitStatus(t, rs[1], before, http.StatusOK, "a session of replica 1 on replica 2 before the kill")
	srv.Kill()
	during := rawSession(t, rs[0].hs.Client(), rs[0].hs.URL)
	for i, r := range rs {
		for _, tt := range []struct {
			name, session string
			want          []int
		}{
			{"minted on replica 1 before the kill", before, []int{http.StatusOK, http.StatusOK, http.StatusNotFound}},
			{"minted on replica 1 with Redis down", during, []int{http.StatusOK, http.StatusNotFound, http.StatusNotFound}},
		} {
			code, body := mcpOn(t, r, http.MethodPost, rawLookup, tt.session)
			if code != tt.want[i] {
				t.Errorf("Redis down, session %s, on replica %d: %d %.200s, want %d", tt.name, i+1, code, body, tt.want[i])
			}
		}
	}

	// Restarted (empty): the replicas put their sessions back, and share them again.
	srv.Restart(t)
	for i, r := range rs {
		deadline := time.Now().Add(mcpTestTimeout)
		for !r.fleet.Up() {
			if time.Now().After(deadline) {
				t.Fatalf("replica %d: Redis not back after %s", i+1, mcpTestTimeout)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitStatus(t, rs[2], during, http.StatusOK, "replica 3, with the session minted on replica 1 while Redis was down")
	waitStatus(t, rs[2], before, http.StatusOK, "replica 3, with the session minted on replica 1 before Redis was killed")
}
