package mcpsession

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/netip"
	"sync"
	"time"
)

// session is one live session: its client (the rate limiter's key) and last use, when
// the fleet's Redis last confirmed it and whether this replica minted it (Shared), and
// its places in the LRU lists.
type session struct {
	id      string
	client  netip.Addr
	last    time.Time
	checked time.Time
	minted  bool
	all     *list.Element // in Memory.lru
	own     *list.Element // in Memory.byClient[client]
}

// ended is a terminated (DELETEd) id, remembered for the idle TTL so that it is
// refused as terminated.
type ended struct {
	id string
	at time.Time
}

// Memory is one replica's sessions, in memory: only ids it minted (or, under Shared,
// learnt from the fleet) are valid, for Options.TTL after their last use; at most
// PerClient per client (ExemptPerClient for a client exempt from the rate limits) and
// Max in all are live, and minting one more forgets the client's session idle longest
// (or, at the global cap, everyone's), in O(1) with LRU lists; a terminated (DELETEd)
// id stays refused for the TTL. Whatever it forgets (evicted, idled out) it hands to
// Options.Forget, so that mcp-go drops its own state for the session too: mcp-go keeps
// ~10 KB per session until it hears of its end. The idle sweep logs one summary line.
type Memory struct {
	ttl                         time.Duration
	max, perClient, exemptShare int
	now                         func() time.Time
	forget                      func(ids []string)
	// evicted is called, without the lock held, with the ids minted here (not learnt
	// from the fleet) forgotten for a cap (Shared forgets them fleet-wide); nil does
	// nothing.
	evicted func(ids []string)

	mu         sync.Mutex
	live       map[string]*session
	lru        *list.List                // *session, most recently used first
	byClient   map[netip.Addr]*list.List // each client's *session, most recently used first
	terminated map[string]*list.Element  // in ends
	ends       *list.List                // ended, most recent first
	// stop ends the sweep started by Start; done is closed when it has ended.
	stopOnce   sync.Once
	stop, done chan struct{}
	// evictedClient and evictedAll count the sessions forgotten by the per-client and
	// global caps since the last sweep, for its summary line.
	evictedClient, evictedAll int
}

// NewMemory returns an empty in-memory store; its idle sweep runs once Start is called.
func NewMemory(opt Options) *Memory {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	return &Memory{ttl: opt.TTL, max: opt.Max, perClient: opt.PerClient, exemptShare: max(opt.PerClient, opt.ExemptPerClient),
		now: now, forget: opt.Forget,
		live: map[string]*session{}, lru: list.New(), byClient: map[netip.Addr]*list.List{},
		terminated: map[string]*list.Element{}, ends: list.New()}
}

// newID returns a fresh random session id.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	h := hex.EncodeToString(b[:])
	return "mcp-session-" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Generate mints a session id for client and remembers it. When the client holds its
// cap already (PerClient, or ExemptPerClient for an exempt client), its session used
// longest ago is forgotten; when everyone holds Max, the session used longest ago of
// all.
func (m *Memory) Generate(client netip.Addr, exempt bool) string {
	id := newID()
	m.add(id, client, exempt, time.Time{}, true)
	return id
}

// add makes id a live session of client, used now, confirmed by the fleet at checked,
// minted here or learnt from the fleet, evicting for the caps as Generate says; an id
// already live is only marked used.
func (m *Memory) add(id string, client netip.Addr, exempt bool, checked time.Time, minted bool) {
	now := m.now()
	var evicted, evictedMinted []string
	evict := func(ses *session) {
		evicted = append(evicted, m.drop(ses))
		if ses.minted {
			evictedMinted = append(evictedMinted, ses.id)
		}
	}
	m.mu.Lock()
	if ses, ok := m.live[id]; ok {
		m.touch(ses, now)
		ses.checked = checked
		m.mu.Unlock()
		return
	}
	limit := m.perClient
	if exempt {
		limit = m.exemptShare
	}
	if own := m.byClient[client]; own != nil && own.Len() >= limit {
		evict(own.Back().Value.(*session))
		m.evictedClient++
	}
	if len(m.live) >= m.max {
		evict(m.lru.Back().Value.(*session))
		m.evictedAll++
	}
	// Fetched after the drops: drop deletes a client's list once it is empty.
	own := m.byClient[client]
	if own == nil {
		own = list.New()
		m.byClient[client] = own
	}
	ses := &session{id: id, client: client, last: now, checked: checked, minted: minted}
	ses.all = m.lru.PushFront(ses)
	ses.own = own.PushFront(ses)
	m.live[id] = ses
	m.mu.Unlock()
	m.forgotten(evicted)
	if len(evictedMinted) > 0 && m.evicted != nil {
		m.evicted(evictedMinted)
	}
}

// touch marks ses used at now; m.mu is held.
func (m *Memory) touch(ses *session, now time.Time) {
	ses.last = now
	m.lru.MoveToFront(ses.all)
	m.byClient[ses.client].MoveToFront(ses.own)
}

// drop forgets a live session and returns its id; m.mu is held.
func (m *Memory) drop(ses *session) string {
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
func (m *Memory) forgotten(ids []string) {
	if len(ids) > 0 && m.forget != nil {
		m.forget(ids)
	}
}

// state is what this replica knows of a session id.
type state int

const (
	unknown state = iota
	live
	terminated
)

// use marks id used when it is live and returns what is known of it: its client and
// when the fleet last confirmed it. A session idle past the TTL is forgotten (and
// handed to Forget) and unknown.
func (m *Memory) use(id string) (st state, client netip.Addr, checked time.Time) {
	now := m.now()
	m.mu.Lock()
	if ses, ok := m.live[id]; ok {
		if now.Sub(ses.last) > m.ttl {
			m.drop(ses)
			m.mu.Unlock()
			m.forgotten([]string{id})
			return unknown, netip.Addr{}, time.Time{}
		}
		m.touch(ses, now)
		client, checked = ses.client, ses.checked
		m.mu.Unlock()
		return live, client, checked
	}
	defer m.mu.Unlock()
	if e, ok := m.terminated[id]; ok && now.Sub(e.Value.(ended).at) <= m.ttl {
		return terminated, netip.Addr{}, time.Time{}
	}
	return unknown, netip.Addr{}, time.Time{}
}

// confirmed records that the fleet confirmed the live session id at t.
func (m *Memory) confirmed(id string, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ses, ok := m.live[id]; ok {
		ses.checked = t
	}
}

// Validate accepts a live id this store minted (and marks it used), reports a
// terminated one, and refuses anything else with ErrUnknown. exempt is not used.
func (m *Memory) Validate(id string, exempt bool) (isTerminated bool, err error) {
	switch st, _, _ := m.use(id); st {
	case live:
		return false, nil
	case terminated:
		return true, nil
	}
	return false, ErrUnknown
}

// Terminate ends a live session: its id is refused as terminated for the idle TTL
// (the Max most recent terminations are remembered). mcp-go drops its own state for
// the session itself.
func (m *Memory) Terminate(id string) { m.end(id) }

// Drop is Terminate: in one process, mcp-go's own endings are endings.
func (m *Memory) Drop(id string) { m.end(id) }

// end terminates id when it is live and reports whether it was.
func (m *Memory) end(id string) bool {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	ses, ok := m.live[id]
	if !ok {
		return false
	}
	m.drop(ses)
	m.remember(id, now)
	return true
}

// remember records id as terminated at t; m.mu is held.
func (m *Memory) remember(id string, t time.Time) {
	if _, ok := m.terminated[id]; ok {
		return
	}
	if m.ends.Len() >= m.max {
		delete(m.terminated, m.ends.Remove(m.ends.Back()).(ended).id)
	}
	m.terminated[id] = m.ends.PushFront(ended{id: id, at: t})
}

// endedElsewhere forgets id, ended on another replica: terminated, it is remembered
// as such; either way it is handed to Forget, since this replica's mcp-go still holds
// its state.
func (m *Memory) endedElsewhere(id string, isTerminated bool) {
	now := m.now()
	m.mu.Lock()
	if ses, ok := m.live[id]; ok {
		m.drop(ses)
	}
	if isTerminated {
		m.remember(id, now)
	}
	m.mu.Unlock()
	m.forgotten([]string{id})
}

// Sweep forgets the sessions idle longer than the TTL, and terminations older than it,
// and logs one line when it forgot or evicted any since the last sweep.
func (m *Memory) Sweep(log *slog.Logger) {
	now := m.now()
	var idle []string
	m.mu.Lock()
	for e := m.lru.Back(); e != nil; e = m.lru.Back() {
		ses := e.Value.(*session)
		if now.Sub(ses.last) <= m.ttl {
			break
		}
		idle = append(idle, m.drop(ses))
	}
	for e := m.ends.Back(); e != nil && now.Sub(e.Value.(ended).at) > m.ttl; e = m.ends.Back() {
		delete(m.terminated, m.ends.Remove(e).(ended).id)
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

// Start runs the idle sweep every interval until Halt.
func (m *Memory) Start(every time.Duration, log *slog.Logger) {
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
				m.Sweep(log)
			}
		}
	}()
}

// Halt ends the idle sweep and waits for it; it may be called more than once, and
// without Start.
func (m *Memory) Halt() {
	m.stopOnce.Do(func() {
		if m.stop != nil {
			close(m.stop)
			<-m.done
		}
	})
}

// ForgetIfGone hands id to Forget when it is no longer live.
func (m *Memory) ForgetIfGone(id string) {
	m.mu.Lock()
	_, live := m.live[id]
	m.mu.Unlock()
	if !live {
		m.forgotten([]string{id})
	}
}

// Held reports whether id is live, without marking it used.
func (m *Memory) Held(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.live[id]
	return ok
}

// Size is the number of live sessions.
func (m *Memory) Size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// ClientSize is the number of live sessions of client.
func (m *Memory) ClientSize(client netip.Addr) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if own := m.byClient[client]; own != nil {
		return own.Len()
	}
	return 0
}

// liveSession is a live session as Shared republishes it.
type liveSession struct {
	id     string
	client netip.Addr
	last   time.Time
}

// snapshot returns the live sessions.
func (m *Memory) snapshot() []liveSession {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]liveSession, 0, len(m.live))
	for _, ses := range m.live {
		out = append(out, liveSession{id: ses.id, client: ses.client, last: ses.last})
	}
	return out
}

var _ Store = (*Memory)(nil)
