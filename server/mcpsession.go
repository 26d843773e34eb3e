package server

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"
)

// MCP session and stream limits.
const (
	// maxMCPSessions bounds the sessions remembered at once; minting one more forgets
	// the one idle longest.
	maxMCPSessions = 10000
	// maxMCPSessionsPerClient bounds the live sessions of one client (the rate
	// limiter's key: IP address or IPv6 /64); minting one more forgets that client's
	// session idle longest, and no other client's.
	maxMCPSessionsPerClient = 256
	// maxMCPStreamsPerClient and maxMCPStreams bound the open GET /mcp event streams
	// of one client (IP address or IPv6 /64) and of everyone.
	maxMCPStreamsPerClient = 4
	maxMCPStreams          = 512
	// mcpStreamLifetime ends a GET /mcp event stream; the client reconnects.
	mcpStreamLifetime = 30 * time.Minute
	// mcpStreamRecheck is how often, with -redis, an open event stream asks whether
	// its session was ended on another replica.
	mcpStreamRecheck = 5 * time.Second
	// mcpHeartbeat is how often an open event stream gets a heartbeat, so that proxies
	// keep it and a dead client is noticed.
	mcpHeartbeat = 25 * time.Second
)

// clientCap is how many of a resource capped at total server-wide one client may hold:
// perClient, or for a client exempt from the rate limits (Config.RateLimitExempt; it
// may be a local reverse proxy that speaks for many clients) max(perClient, total/2),
// so that it is not held to one client's share, yet never takes every place. The one
// rule for bulk checks, MCP sessions and MCP event streams (docs/INTERFACE.md §4.5,
// §4.7).
func clientCap(perClient, total int, exempt bool) int {
	if exempt {
		return max(perClient, total/2)
	}
	return perClient
}

// mcpSweepEvery is how often the idle sweep runs: a session is forgotten at most this
// long after its idle TTL.
const mcpSweepEvery = time.Minute

// mcpStreams tracks the open GET /mcp event streams: caps per client and in all; it
// ends a session's streams when the session ends, and all of them when the server
// drains, so that shutdown does not wait for them.
type mcpStreams struct {
	perClient, max int

	mu        sync.Mutex
	byClient  map[netip.Addr]int
	cancels   map[*context.CancelFunc]struct{}
	bySession map[string]map[*context.CancelFunc]struct{}
	draining  bool
}

func newMCPStreams(perClient, max int) *mcpStreams {
	return &mcpStreams{perClient: perClient, max: max, byClient: map[netip.Addr]int{},
		cancels: map[*context.CancelFunc]struct{}{}, bySession: map[string]map[*context.CancelFunc]struct{}{}}
}

// errStreamsClient and errStreamsFull are open's refusals.
var (
	errStreamsClient = errors.New("too many open MCP event streams from this client")
	errStreamsFull   = errors.New("too many open MCP event streams, or the server is shutting down")
)

// open registers a stream of client (exempt: from the rate limits, clientCap) for
// session with the cancel of its context; done must be called when it ends. It refuses
// when the client or everyone has too many, or the server drains.
func (s *mcpStreams) open(client netip.Addr, exempt bool, session string, cancel context.CancelFunc) (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.draining || len(s.cancels) >= s.max:
		return nil, errStreamsFull
	case s.byClient[client] >= clientCap(s.perClient, s.max, exempt):
		return nil, errStreamsClient
	}
	s.byClient[client]++
	key := &cancel
	s.cancels[key] = struct{}{}
	if s.bySession[session] == nil {
		s.bySession[session] = map[*context.CancelFunc]struct{}{}
	}
	s.bySession[session][key] = struct{}{}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.byClient[client]--; s.byClient[client] <= 0 {
			delete(s.byClient, client)
		}
		delete(s.cancels, key)
		if delete(s.bySession[session], key); len(s.bySession[session]) == 0 {
			delete(s.bySession, session)
		}
	}, nil
}

// end ends the open streams of sessions.
func (s *mcpStreams) end(sessions []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range sessions {
		for c := range s.bySession[id] {
			(*c)()
		}
	}
}

// drain ends every open stream and refuses new ones.
func (s *mcpStreams) drain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draining = true
	for c := range s.cancels {
		(*c)()
	}
}

// count is the number of open streams.
func (s *mcpStreams) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.cancels)
}
