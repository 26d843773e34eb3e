package server

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
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

// errUnknownSession is the error of a session id this server never minted, or whose
// session idled out or was forgotten.
var errUnknownSession = errors.New("unknown MCP session")

// mcpSweepEvery is how often the idle sweep runs: a session is forgotten at most this
// long after its idle TTL.
const mcpSweepEvery = time.Minute

// mcpSession is one live session: its client (the rate limiter's key) and last use, and
// its places in the manager's LRU lists.
type mcpSession struct {
	id     string
	client netip.Addr
	last   time.Time
	all    *list.Element // in mcpSessions.lru
	own    *list.Element // in mcpSessions.byClient[client]
}

// endedSession is a terminated (DELETEd) id, remembered for the idle TTL so that it is
// refused as terminated.
type endedSession struct {
	id string
	at time.Time
}

// mcpSessions is the MCP transport's session id manager (mcp-go's
// SessionIdManagerResolver, docs/INTERFACE.md §4.5): only ids it minted are valid, for
// mcpSessionIdleTTL after their last use; at most perClient per client and max in all
// are live, and minting one more forgets the client's session idle longest (or, at the
// global cap, everyone's), in O(1) with LRU lists; a terminated (DELETEd) id stays
// refused for the TTL. Whatever it forgets (evicted, idled out) it hands to forget, so
// that mcp-go drops its own state for the session too: mcp-go keeps ~10 KB per session
// until it hears of its end. The idle sweep (run) logs one summary line.
type mcpSessions struct {
	ttl            time.Duration
	max, perClient int
	now            func() time.Time
	// clientOf is the rate limiter's key of a request and whether its client is exempt
	// from the rate limits (clientCap); nil r (mcp-go's calls from outside a request)
	// has the zero key, not exempt.
	clientOf func(r *http.Request) (netip.Addr, bool)
	// forget is called, without the lock held, with ids the manager forgot; nil does
	// nothing. Set it before the first request.
	forget func(ids []string)

	mu         sync.Mutex
	live       map[string]*mcpSession
	lru        *list.List                // *mcpSession, most recently used first
	byClient   map[netip.Addr]*list.List // each client's *mcpSession, most recently used first
	terminated map[string]*list.Element  // in ended
	ended      *list.List                // endedSession, most recent first
	// stop ends the sweep started by start; done is closed when it has ended.
	stopOnce   sync.Once
	stop, done chan struct{}
	// evictedClient and evictedAll count the sessions forgotten by the per-client and
	// global caps since the last sweep, for its summary line.
	evictedClient, evictedAll int
}

func newMCPSessions(ttl time.Duration, max, perClient int, now func() time.Time, clientOf func(*http.Request) (netip.Addr, bool)) *mcpSessions {
	return &mcpSessions{ttl: ttl, max: max, perClient: perClient, now: now, clientOf: clientOf,
		live: map[string]*mcpSession{}, lru: list.New(), byClient: map[netip.Addr]*list.List{},
		terminated: map[string]*list.Element{}, ended: list.New()}
}

// ResolveSessionIdManager implements mcp-go's SessionIdManagerResolver: the manager as
// seen by r's client, which is whose sessions a new one counts against.
func (m *mcpSessions) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	var client netip.Addr
	exempt := false
	if r != nil && m.clientOf != nil {
		client, exempt = m.clientOf(r)
	}
	return clientSessions{m: m, client: client, exempt: exempt}
}

// clientSessions is mcp-go's SessionIdManager for one client's requests.
type clientSessions struct {
	m      *mcpSessions
	client netip.Addr
	exempt bool
}

// Generate mints a session id of the client (mcpSessions.generate).
func (c clientSessions) Generate() string { return c.m.generate(c.client, c.exempt) }

// Validate is mcpSessions.Validate.
func (c clientSessions) Validate(id string) (bool, error) { return c.m.Validate(id) }

// Terminate is mcpSessions.Terminate.
func (c clientSessions) Terminate(id string) (bool, error) { return c.m.Terminate(id) }

// generate mints a session id for client and remembers it. When the client holds
// its cap already (perClient, or for an exempt client clientCap's larger share), its
// session used longest ago is forgotten; when everyone holds max, the session used
// longest ago of all.
func (m *mcpSessions) generate(client netip.Addr, exempt bool) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	h := hex.EncodeToString(b[:])
	id := "mcp-session-" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	now := m.now()
	var evicted []string
	m.mu.Lock()
	if own := m.byClient[client]; own != nil && own.Len() >= clientCap(m.perClient, m.max, exempt) {
		evicted = append(evicted, m.drop(own.Back().Value.(*mcpSession)))
		m.evictedClient++
	}
	if len(m.live) >= m.max {
		evicted = append(evicted, m.drop(m.lru.Back().Value.(*mcpSession)))
		m.evictedAll++
	}
	// Fetched after the drops: drop deletes a client's list once it is empty.
	own := m.byClient[client]
	if own == nil {
		own = list.New()
		m.byClient[client] = own
	}
	ses := &mcpSession{id: id, client: client, last: now}
	ses.all = m.lru.PushFront(ses)
	ses.own = own.PushFront(ses)
	m.live[id] = ses
	m.mu.Unlock()
	m.forgotten(evicted)
	return id
}

// drop forgets a live session and returns its id; m.mu is held.
func (m *mcpSessions) drop(ses *mcpSession) string {
	delete(m.live, ses.id)
	m.lru.Remove(ses.all)
	if own := m.byClient[ses.client]; own != nil {
		own.Remove(ses.own)
		if own.Len() == 0 {
			delete(m.byClient, ses.client)
		}
	}
	return ses.id
}

// forgotten hands ids to forget; m.mu is not held.
func (m *mcpSessions) forgotten(ids []string) {
	if len(ids) > 0 && m.forget != nil {
		m.forget(ids)
	}
}

// Validate accepts a live id this manager minted (and marks it used), reports a
// terminated one, and refuses anything else with errUnknownSession.
func (m *mcpSessions) Validate(id string) (isTerminated bool, err error) {
	now := m.now()
	m.mu.Lock()
	if ses, ok := m.live[id]; ok {
		if now.Sub(ses.last) > m.ttl {
			m.drop(ses)
			m.mu.Unlock()
			m.forgotten([]string{id})
			return false, errUnknownSession
		}
		ses.last = now
		m.lru.MoveToFront(ses.all)
		m.byClient[ses.client].MoveToFront(ses.own)
		m.mu.Unlock()
		return false, nil
	}
	defer m.mu.Unlock()
	if e, ok := m.terminated[id]; ok && now.Sub(e.Value.(endedSession).at) <= m.ttl {
		return true, nil
	}
	return false, errUnknownSession
}

// Terminate ends a live session: its id is refused as terminated for the idle TTL
// (the max most recent terminations are remembered). mcp-go drops its own state for
// the session itself.
func (m *mcpSessions) Terminate(id string) (isNotAllowed bool, err error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	ses, ok := m.live[id]
	if !ok {
		return false, nil
	}
	m.drop(ses)
	if m.ended.Len() >= m.max {
		delete(m.terminated, m.ended.Remove(m.ended.Back()).(endedSession).id)
	}
	m.terminated[id] = m.ended.PushFront(endedSession{id: id, at: now})
	return false, nil
}

// sweep forgets the sessions idle longer than the TTL, and terminations older than it,
// and logs one line when it forgot or evicted any since the last sweep.
func (m *mcpSessions) sweep(log *slog.Logger) {
	now := m.now()
	var idle []string
	m.mu.Lock()
	for e := m.lru.Back(); e != nil; e = m.lru.Back() {
		ses := e.Value.(*mcpSession)
		if now.Sub(ses.last) <= m.ttl {
			break
		}
		idle = append(idle, m.drop(ses))
	}
	for e := m.ended.Back(); e != nil && now.Sub(e.Value.(endedSession).at) > m.ttl; e = m.ended.Back() {
		delete(m.terminated, m.ended.Remove(e).(endedSession).id)
	}
	byClient, byAll, live := m.evictedClient, m.evictedAll, len(m.live)
	m.evictedClient, m.evictedAll = 0, 0
	m.mu.Unlock()
	m.forgotten(idle)
	if len(idle)+byClient+byAll > 0 {
		log.LogAttrs(context.Background(), slog.LevelInfo, "MCP sessions forgotten",
			slog.Int("idle", len(idle)), slog.Int("evicted_client_cap", byClient), slog.Int("evicted_global_cap", byAll),
			slog.Int("live", live), slog.Duration("idle_ttl", m.ttl))
	}
}

// start runs the idle sweep every interval until halt.
func (m *mcpSessions) start(every time.Duration, log *slog.Logger) {
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sweep(log)
			}
		}
	}()
}

// halt ends the idle sweep and waits for it; it may be called more than once, and
// without start.
func (m *mcpSessions) halt() {
	m.stopOnce.Do(func() {
		if m.stop != nil {
			close(m.stop)
			<-m.done
		}
	})
}

// forgetIfGone hands id to forget when it is no longer live: mcp-go registers a new
// session after its initialize is answered, which may be after the manager already
// evicted it (a client minting sessions concurrently beyond its cap).
func (m *mcpSessions) forgetIfGone(id string) {
	m.mu.Lock()
	_, live := m.live[id]
	m.mu.Unlock()
	if !live {
		m.forgotten([]string{id})
	}
}

// size is the number of live sessions, for tests and metrics.
func (m *mcpSessions) size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// clientSize is the number of live sessions of client, for tests.
func (m *mcpSessions) clientSize(client netip.Addr) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if own := m.byClient[client]; own != nil {
		return own.Len()
	}
	return 0
}

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
