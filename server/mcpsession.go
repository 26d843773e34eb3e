package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
	// maxMCPStreamsPerClient and maxMCPStreams bound the open GET /mcp event streams
	// of one client (IP address or IPv6 /64) and of everyone.
	maxMCPStreamsPerClient = 4
	maxMCPStreams          = 512
	// mcpStreamLifetime ends a GET /mcp event stream; the client reconnects.
	mcpStreamLifetime = 30 * time.Minute
	// mcpHeartbeat is how often an open event stream gets a heartbeat, so that proxies
	// keep it and a dead client is noticed.
	mcpHeartbeat = 25 * time.Second
)

// errUnknownSession is the error of a session id this server never minted, or whose
// session idled out or was forgotten.
var errUnknownSession = errors.New("unknown MCP session")

// mcpSessions is the MCP transport's session id manager (mcp-go's SessionIdManager):
// only ids it minted are valid, for mcpSessionIdleTTL after their last use, at most
// maxMCPSessions at once; a terminated (DELETEd) id stays refused. mcp-go's default
// accepts any well-formed id and keeps state for each, so made-up ids grew memory
// without bound.
type mcpSessions struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu         sync.Mutex
	live       map[string]time.Time // id → last use
	terminated map[string]time.Time // id → when it ended
}

func newMCPSessions(ttl time.Duration, max int, now func() time.Time) *mcpSessions {
	return &mcpSessions{ttl: ttl, max: max, now: now, live: map[string]time.Time{}, terminated: map[string]time.Time{}}
}

// Generate mints a session id and remembers it.
func (m *mcpSessions) Generate() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	h := hex.EncodeToString(b[:])
	id := "mcp-session-" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.live) >= m.max {
		m.sweep(now)
	}
	if len(m.live) >= m.max {
		oldest, at := "", now
		for k, t := range m.live {
			if !t.After(at) {
				oldest, at = k, t
			}
		}
		delete(m.live, oldest)
	}
	m.live[id] = now
	return id
}

// Validate accepts a live id this manager minted (and marks it used), reports a
// terminated one, and refuses anything else with errUnknownSession.
func (m *mcpSessions) Validate(id string) (isTerminated bool, err error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.live[id]; ok {
		if now.Sub(t) > m.ttl {
			delete(m.live, id)
			return false, errUnknownSession
		}
		m.live[id] = now
		return false, nil
	}
	if _, ok := m.terminated[id]; ok {
		return true, nil
	}
	return false, errUnknownSession
}

// Terminate ends a live session: its id is refused from then on.
func (m *mcpSessions) Terminate(id string) (isNotAllowed bool, err error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[id]; !ok {
		return false, nil
	}
	delete(m.live, id)
	if len(m.terminated) >= m.max {
		m.sweep(now)
	}
	if len(m.terminated) < m.max {
		m.terminated[id] = now
	}
	return false, nil
}

// sweep forgets sessions idle longer than the TTL, and terminations older than it;
// m.mu is held.
func (m *mcpSessions) sweep(now time.Time) {
	for k, t := range m.live {
		if now.Sub(t) > m.ttl {
			delete(m.live, k)
		}
	}
	for k, t := range m.terminated {
		if now.Sub(t) > m.ttl {
			delete(m.terminated, k)
		}
	}
}

// size is the number of live sessions, for tests and metrics.
func (m *mcpSessions) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// mcpStreams tracks the open GET /mcp event streams: caps per client and in all, and
// ends them all when the server drains, so that shutdown does not wait for them.
type mcpStreams struct {
	perClient, max int

	mu       sync.Mutex
	byClient map[netip.Addr]int
	cancels  map[*context.CancelFunc]struct{}
	draining bool
}

func newMCPStreams(perClient, max int) *mcpStreams {
	return &mcpStreams{perClient: perClient, max: max, byClient: map[netip.Addr]int{}, cancels: map[*context.CancelFunc]struct{}{}}
}

// errStreamsClient and errStreamsFull are open's refusals.
var (
	errStreamsClient = errors.New("too many open MCP event streams from this client")
	errStreamsFull   = errors.New("too many open MCP event streams, or the server is shutting down")
)

// open registers a stream of client with the cancel of its context; done must be
// called when it ends. It refuses when the client or everyone has too many, or the
// server drains.
func (s *mcpStreams) open(client netip.Addr, cancel context.CancelFunc) (done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.draining || len(s.cancels) >= s.max:
		return nil, errStreamsFull
	case s.byClient[client] >= s.perClient:
		return nil, errStreamsClient
	}
	s.byClient[client]++
	key := &cancel
	s.cancels[key] = struct{}{}
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.byClient[client]--; s.byClient[client] <= 0 {
			delete(s.byClient, client)
		}
		delete(s.cancels, key)
	}, nil
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
