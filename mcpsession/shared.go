package mcpsession

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
)

// Recheck is how long a replica trusts what it knows of a live session before it asks
// the fleet's Redis again (and refreshes the session's idle TTL there): a session used
// all the time costs one Redis operation per Recheck per replica, and a DELETE on one
// replica is refused by the others within Recheck.
const Recheck = 2 * time.Second

// republishEvery is how often Shared looks whether Redis came back (or missed a
// session) and, if so, puts this replica's live sessions back into it.
const republishEvery = time.Second

// republishBatch is how many sessions one Redis operation puts back.
const republishBatch = 200

// Values of a session's key in Redis: "c:" and its client (the rate limiter's key,
// empty for none) while live; a marker once it ended.
const (
	livePrefix       = "c:"
	markerTerminated = "!terminated"
	markerForgotten  = "!forgotten"
)

// checkScript reads a session's key and refreshes the idle TTL of a live one; when the
// key is absent (never stored, or Redis restarted empty) and ARGV[3] is "1" (this
// replica holds the session), it stores ARGV[2] as the session's value. Markers are
// returned as they are, their TTL untouched.
//
// KEYS[1] the session's key; ARGV: idle TTL in ms, live value, republish (0/1).
// Returns the value, or nil when the key is absent and was not stored.
var checkScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if v then
  if string.sub(v, 1, 1) ~= "!" then redis.call("PEXPIRE", KEYS[1], ARGV[1]) end
  return v
end
if ARGV[3] == "1" then
  redis.call("SET", KEYS[1], ARGV[2], "PX", ARGV[1])
  return ARGV[2]
end
return false
`)

// terminateScript marks a session terminated for the idle TTL when it is live in
// Redis, or absent from it while this replica holds it (ARGV[2] "1"); a made-up id
// leaves nothing behind.
//
// KEYS[1] the session's key; ARGV: idle TTL in ms, held here (0/1).
var terminateScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if (v and string.sub(v, 1, 1) ~= "!") or (not v and ARGV[2] == "1") then
  redis.call("SET", KEYS[1], "!terminated", "PX", ARGV[1])
  return 1
end
return 0
`)

// epochScript returns the fleet's epoch key, set to ARGV[1] when absent: a Redis that
// restarted empty has a new epoch, and every replica that sees it change puts its
// sessions back (docs/ARCHITECTURE.md §7).
//
// KEYS[1] the epoch key; ARGV: a fresh random value.
var epochScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if v then return v end
redis.call("SET", KEYS[1], ARGV[1])
return ARGV[1]
`)

// forgetScript marks a session forgotten for the idle TTL when it is live in Redis:
// a terminated marker stays, and an absent key (Redis restarted) is left absent.
//
// KEYS[1] the session's key; ARGV: idle TTL in ms.
var forgetScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if v and string.sub(v, 1, 2) == "c:" then
  redis.call("SET", KEYS[1], "!forgotten", "PX", ARGV[1])
  return 1
end
return 0
`)

// Shared is the sessions of a replica in a fleet (docs/ARCHITECTURE.md §7): a Memory,
// whose sessions are also kept in the fleet's Redis under
// prefix:mcp:v1:s:<fleet.Hash(id)>, holding the session's client, with the idle TTL. A
// session minted on one replica is valid on every other: an id this replica does not
// hold is looked up in Redis and taken into its Memory; a held one is confirmed in
// Redis (which refreshes its TTL) at most every Recheck. A DELETE on any replica leaves
// a terminated marker for the idle TTL, refused on every replica; a session a replica
// minted and forgets for its caps (per client, in all: counted per replica) is
// forgotten by the fleet, one it learnt from another replica and forgets for its caps,
// or forgets for idling there, is not (it may be in use elsewhere), and Redis forgets
// it after the idle TTL without use anywhere.
//
// Redis trouble is never an outage: on any fleet error the replica's Memory decides,
// as without Redis (a session it holds is valid, any other is unknown); once Redis
// answers again, the DELETEs it did not take are written first, then the sessions
// minted meanwhile with every other session the replica holds (Redis may have
// restarted empty: a restart no operation noticed shows as a new epoch).
type Shared struct {
	mem   *Memory
	fleet *fleet.Fleet
	ttl   time.Duration
	now   func() time.Time

	// dirty is set when a session could not be stored in Redis; downs is the fleet's
	// count of downs when the sessions were last put back.
	dirty atomic.Bool
	downs atomic.Uint64
	// epoch is the fleet's epoch (epochScript) when the sessions were last put back;
	// nil before the first time.
	epoch atomic.Pointer[string]

	// pending holds the DELETEs of held sessions that Redis did not take (id → when),
	// at most maxPending of them; Republish writes their markers before it puts any
	// session back, so that another replica's republish does not revive them.
	pendingMu  sync.Mutex
	pending    map[string]time.Time
	maxPending int

	stopOnce   sync.Once
	stop, done chan struct{}
}

// NewShared returns an empty store over f (which must not be nil) configured by opt;
// its idle sweep and upkeep run once Start is called.
func NewShared(f *fleet.Fleet, opt Options) *Shared {
	s := &Shared{mem: NewMemory(opt), fleet: f, ttl: opt.TTL, pending: map[string]time.Time{}, maxPending: max(opt.Max, 1)}
	s.now = s.mem.now
	s.mem.evicted = s.forgetShared
	s.downs.Store(f.Status().Downs)
	s.dirty.Store(!f.Up())
	return s
}

// keyVersion is the format of the session keys' values (docs/ARCHITECTURE.md §7):
// a release that changes it uses new keys, so that in a rolling deploy old and new
// replicas never misread each other's sessions.
const keyVersion = "v1"

// key is the Redis key of session id: nothing of the id itself is in it.
func (s *Shared) key(id string) string { return s.fleet.Key("mcp", keyVersion, "s", fleet.Hash(id)) }

// value is a live session's value in Redis.
func value(client netip.Addr) string {
	if !client.IsValid() {
		return livePrefix
	}
	return livePrefix + client.String()
}

// ms is d in whole milliseconds, at least 1, as Redis's PX takes it.
func ms(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// Generate mints a session id of client on this replica (Memory.Generate) and stores
// it in Redis; when Redis does not answer, the session is this replica's until Redis
// is back.
func (s *Shared) Generate(client netip.Addr, exempt bool) string {
	id := newID()
	err := s.fleet.Do(context.Background(), "mcp session store", func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, s.key(id), value(client), s.ttl).Err()
	})
	var checked time.Time
	if err == nil {
		checked = s.now()
	}
	s.mem.add(id, client, exempt, checked, true)
	if err != nil {
		// After the add: a Republish between the two would clear dirty and miss the
		// session.
		s.dirty.Store(true)
	}
	return id
}

// check runs checkScript for id; republish with client when this replica holds it.
// The result is the key's value, "" when absent.
func (s *Shared) check(id string, client netip.Addr, republish bool) (string, error) {
	var v string
	flag := "0"
	if republish {
		flag = "1"
	}
	err := s.fleet.Do(context.Background(), "mcp session check", func(ctx context.Context, c *redis.Client) error {
		var err error
		v, err = checkScript.Run(ctx, c, []string{s.key(id)}, ms(s.ttl), value(client), flag).Text()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// Validate accepts a session this replica holds and the fleet has not ended, or one
// the fleet holds (taken into this replica's Memory, with its client); it reports a
// session terminated anywhere as terminated, and refuses anything else with
// ErrUnknown. Without Redis, only this replica's Memory decides.
func (s *Shared) Validate(id string, exempt bool) (isTerminated bool, err error) {
	st, client, checked := s.mem.use(id)
	if st == terminated {
		return true, nil
	}
	now := s.now()
	if st == live && now.Sub(checked) < Recheck {
		return false, nil
	}
	v, err := s.check(id, client, st == live)
	if err != nil {
		if st == live {
			return false, nil
		}
		return false, ErrUnknown
	}
	switch {
	case strings.HasPrefix(v, livePrefix):
		if st == live {
			s.mem.confirmed(id, now)
		} else {
			owner, _ := netip.ParseAddr(strings.TrimPrefix(v, livePrefix)) // zero for none
			s.mem.add(id, owner, exempt, now, false)
		}
		return false, nil
	case v == markerTerminated:
		s.mem.endedElsewhere(id, true)
		return true, nil
	case v == markerForgotten:
		if st == live {
			s.mem.endedElsewhere(id, false)
		}
	}
	return false, ErrUnknown
}

// Held reports whether this replica holds id and the fleet has not ended it, without
// marking it used (nor refreshing it in Redis); a session ended elsewhere is forgotten
// here. When Redis does not answer, it reports what this replica holds.
func (s *Shared) Held(id string) bool {
	if !s.mem.Held(id) {
		return false
	}
	var v string
	err := s.fleet.Do(context.Background(), "mcp session held", func(ctx context.Context, c *redis.Client) error {
		var err error
		v, err = c.Get(ctx, s.key(id)).Result()
		return err
	})
	if err != nil || (v != markerTerminated && v != markerForgotten) {
		return true // live, absent (put back by Republish), or Redis trouble: this replica decides
	}
	s.mem.endedElsewhere(id, v == markerTerminated)
	return false
}

// Terminate ends a session on this replica and, through a terminated marker in Redis,
// on every other; when Redis does not answer, on this replica at once and, for a
// session held here, on every other once Redis answers again (Republish writes the
// marker first).
func (s *Shared) Terminate(id string) {
	held := s.mem.end(id)
	flag := "0"
	if held {
		flag = "1"
	}
	err := s.fleet.Do(context.Background(), "mcp session terminate", func(ctx context.Context, c *redis.Client) error {
		return terminateScript.Run(ctx, c, []string{s.key(id)}, ms(s.ttl), flag).Err()
	})
	if err != nil && held {
		s.addPending(id, s.now())
	}
}

// addPending records a DELETE of id at t that Redis did not take and marks the store
// dirty; beyond maxPending, the oldest is given up (its session then lives on where
// other replicas hold it until it idles out there).
func (s *Shared) addPending(id string, t time.Time) {
	s.pendingMu.Lock()
	if len(s.pending) >= s.maxPending {
		var oldest string
		for k, at := range s.pending {
			if oldest == "" || at.Before(s.pending[oldest]) {
				oldest = k
			}
		}
		delete(s.pending, oldest)
	}
	s.pending[id] = t
	s.pendingMu.Unlock()
	s.dirty.Store(true)
}

// writePending writes the terminated markers of the pending DELETEs, for what is left
// of their idle TTL, and forgets those written; it reports whether all were.
func (s *Shared) writePending(now time.Time) bool {
	s.pendingMu.Lock()
	ids := make([]string, 0, len(s.pending))
	ats := make([]time.Time, 0, len(s.pending))
	for id, at := range s.pending {
		ids, ats = append(ids, id), append(ats, at)
	}
	s.pendingMu.Unlock()
	for len(ids) > 0 {
		n := min(len(ids), republishBatch)
		batch, batchAt := ids[:n], ats[:n]
		ids, ats = ids[n:], ats[n:]
		err := s.fleet.Do(context.Background(), "mcp session terminate", func(ctx context.Context, c *redis.Client) error {
			p := c.Pipeline()
			for i, id := range batch {
				if left := s.ttl - now.Sub(batchAt[i]); left > 0 {
					terminateScript.Eval(ctx, p, []string{s.key(id)}, ms(left), "1") // EVAL: a restarted Redis has no scripts cached
				}
			}
			_, err := p.Exec(ctx)
			return err
		})
		if err != nil {
			return false
		}
		s.pendingMu.Lock()
		for i, id := range batch {
			if s.pending[id].Equal(batchAt[i]) {
				delete(s.pending, id)
			}
		}
		s.pendingMu.Unlock()
	}
	return true
}

// Drop ends a session on this replica only: the others go on serving it.
func (s *Shared) Drop(id string) { s.mem.end(id) }

// forgetShared marks ids, minted here and forgotten by this replica's caps, forgotten
// in Redis where they are live (a session learnt from another replica is only dropped
// here: it may be in use there).
func (s *Shared) forgetShared(ids []string) {
	_ = s.fleet.Do(context.Background(), "mcp session forget", func(ctx context.Context, c *redis.Client) error {
		p := c.Pipeline()
		for _, id := range ids {
			forgetScript.Eval(ctx, p, []string{s.key(id)}, ms(s.ttl)) // EVAL: in a pipeline, no fallback from NOSCRIPT
		}
		_, err := p.Exec(ctx)
		return err
	})
}

// Sweep forgets the sessions idle on this replica for longer than the TTL
// (Memory.Sweep); in Redis they stay as long as they are used elsewhere.
func (s *Shared) Sweep(log *slog.Logger) { s.mem.Sweep(log) }

// ForgetIfGone is Memory.ForgetIfGone.
func (s *Shared) ForgetIfGone(id string) { s.mem.ForgetIfGone(id) }

// Size is the number of sessions live on this replica.
func (s *Shared) Size() int { return s.mem.Size() }

// Start runs the idle sweep every interval (forgetting sessions idle on this replica,
// not in the fleet) and, every second, the upkeep that puts this replica's sessions
// back into Redis after it was down, until Halt.
func (s *Shared) Start(every time.Duration, log *slog.Logger) {
	s.mem.Start(every, log)
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(republishEvery)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.Republish()
			}
		}
	}()
}

// Halt ends the sweep and the upkeep and waits for them; it may be called more than
// once, and without Start.
func (s *Shared) Halt() {
	s.stopOnce.Do(func() {
		if s.stop != nil {
			close(s.stop)
			<-s.done
		}
	})
	s.mem.Halt()
}

// readEpoch returns the fleet's epoch, setting it to a fresh random value when absent.
func (s *Shared) readEpoch() (string, error) {
	var v string
	err := s.fleet.Do(context.Background(), "mcp epoch", func(ctx context.Context, c *redis.Client) error {
		var err error
		v, err = epochScript.Run(ctx, c, []string{s.fleet.Key("mcp", "epoch")}, newID()).Text()
		return err
	})
	return v, err
}

// Republish puts this replica's live sessions into Redis (where absent, with the idle
// TTL left from their last use here), after the terminated markers of the DELETEs
// Redis did not take, when Redis is up and was down since the last time, a session or
// DELETE could not be stored, or the fleet's epoch changed (Redis restarted empty
// without any operation failing); the upkeep calls it every second. A session ended
// elsewhere meanwhile keeps its marker.
func (s *Shared) Republish() {
	if !s.fleet.Up() {
		return
	}
	downs := s.fleet.Status().Downs
	epoch, err := s.readEpoch()
	if err != nil {
		return // Redis marked down: the next upkeep after it is back republishes
	}
	seen := s.epoch.Load()
	if downs == s.downs.Load() && !s.dirty.Load() && seen != nil && *seen == epoch {
		return
	}
	s.dirty.Store(false)
	now := s.now()
	if !s.writePending(now) {
		s.dirty.Store(true)
		return
	}
	all := s.mem.snapshot()
	for len(all) > 0 {
		batch := all[:min(len(all), republishBatch)]
		all = all[len(batch):]
		err := s.fleet.Do(context.Background(), "mcp session republish", func(ctx context.Context, c *redis.Client) error {
			p := c.Pipeline()
			for _, ses := range batch {
				if left := s.ttl - now.Sub(ses.last); left > 0 {
					p.SetNX(ctx, s.key(ses.id), value(ses.client), left)
				}
			}
			_, err := p.Exec(ctx)
			return err
		})
		if err != nil {
			s.dirty.Store(true)
			return
		}
	}
	s.downs.Store(downs)
	s.epoch.Store(&epoch)
}

var _ Store = (*Shared)(nil)
