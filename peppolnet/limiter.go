package peppolnet

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// errLimiterBusy is returned by limiter.wait when too many callers already wait (in
// all, or for the same client), or when the caller's deadline comes before its turn
// would.
var errLimiterBusy = errors.New("peppolnet: directory request queue is full")

// limiter is a token bucket shared by every Directory call, so that lookups and
// searches together stay under the Directory's per-IP rate limit, and shared fairly:
// callers that find no token wait in their client's own queue, and each token that
// comes goes to the next client in turn (round robin), not to whoever queued first, so
// one client sending many uncached searches delays another client's request by at most
// one token per busy client. At most maxWaiters wait at once and at most perClient per
// client, so a burst is refused quickly instead of piling up goroutines and deadlines.
// A bulk check's rows (registry.WithBulk) wait behind their client's interactive
// callers (a row whose fetch an interactive caller joins moves ahead of them), count
// apart from them against perClient, and leave the queue's last perClient places to
// interactive callers; across clients tokens go round robin whatever the priority
// (docs/ARCHITECTURE.md §3, Bulk check). In a fleet (Config.Fleet) a caller it lets
// go also takes a token of the fleet's budget (fleetPolite.directoryTurn), so that
// the replicas together keep to the Directory's rate (docs/ARCHITECTURE.md §7).
type limiter struct {
	now        func() time.Time
	rate       float64 // tokens per second
	burst      float64
	maxWaiters int
	perClient  int

	mu      sync.Mutex
	tokens  float64 // available now, at most burst
	last    time.Time
	queues  map[netip.Addr][]*ticket
	ring    []netip.Addr // clients with a queue, in turn order
	next    int          // ring index served next
	waiters int
	timer   *time.Timer // the pending dispatch, nil when none
}

// ticket is one waiting caller; granted is closed when its token comes.
type ticket struct {
	granted chan struct{}
	done    bool // granted (under limiter.mu)
	bulk    bool // a bulk check's row: after the client's interactive callers
}

// perClientShare is the share of the queue one client may hold: a quarter, at least 2.
func perClientShare(maxWaiters int) int { return max(2, maxWaiters/4) }

func newLimiter(rate float64, burst, maxWaiters int, now func() time.Time) *limiter {
	return &limiter{now: now, rate: rate, burst: float64(burst), maxWaiters: maxWaiters, perClient: perClientShare(maxWaiters),
		tokens: float64(burst), last: now(), queues: map[netip.Addr][]*ticket{}}
}

// refill adds the tokens earned since last; l.mu is held.
func (l *limiter) refill() {
	now := l.now()
	if el := now.Sub(l.last); el > 0 {
		l.tokens = min(l.tokens+el.Seconds()*l.rate, l.burst)
	}
	l.last = now
}

// wait blocks until the caller may send one request. It returns errLimiterBusy when
// the queue, or the client's share of it, is full, when the caller may not wait until
// its turn (ctx's waiting allowance, waitDeadline, would end first) or when its
// waiting allowance ends while it waits, and ctx.Err() when ctx ends while waiting.
// The wait is not counted against ctx's fetch's deadline (budget.go).
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	client := registry.ClientOf(ctx)
	l.mu.Lock()
	l.refill()
	if l.waiters == 0 && l.tokens >= 1 {
		l.tokens--
		l.mu.Unlock()
		return nil
	}
	bulk := bulkOf(ctx)
	mine := 0
	for _, t := range l.queues[client] {
		if t.bulk == bulk {
			mine++
		}
	}
	// Bulk rows leave a client's share of the queue to interactive callers (the same
	// client's too), and never take its last places.
	if l.waiters >= l.maxWaiters || mine >= l.perClient || (bulk && l.waiters >= max(1, l.maxWaiters-l.perClient)) {
		l.mu.Unlock()
		return errLimiterBusy
	}
	// In turn order, at most every busy client's next caller (one round per place
	// this client already holds) is served first.
	ahead := min(l.waiters, len(l.ring)*(mine+1))
	if deadline, ok := waitDeadline(ctx); ok {
		wait := time.Duration((float64(ahead) + 1 - l.tokens) / l.rate * float64(time.Second))
		if l.now().Add(wait).After(deadline) {
			l.mu.Unlock()
			noteRefused(ctx)
			return errLimiterBusy
		}
	}
	t := l.enqueueAs(client, bulk)
	l.schedule()
	l.mu.Unlock()

	// Waiting for the turn does not eat into the fetch's deadline (budget.go).
	turn := startWait(ctx)
	defer turn.end()
	var err error
	raised := turn.raised
wait:
	for {
		select {
		case <-t.granted:
			return nil
		case <-raised:
			// The fetch was raised to interactive (an interactive caller joined it):
			// wait ahead of the client's bulk callers.
			raised = nil
			l.mu.Lock()
			l.promote(client, t)
			l.mu.Unlock()
		case <-turn.out:
			if turn.reopened() {
				continue // raised after its allowance ran out: it may wait again
			}
			turn.refuse()
			err = errLimiterBusy
			break wait
		case <-ctx.Done():
			err = ctx.Err()
			break wait
		}
	}
	l.mu.Lock()
	if t.done {
		// Granted as the wait ended: hand the token back to those still waiting.
		l.tokens = min(l.tokens+1, l.burst)
		l.schedule()
	} else {
		l.remove(client, t)
	}
	l.mu.Unlock()
	return err
}

// promote moves client's waiting bulk caller t ahead of the client's bulk callers, as
// an interactive one, when its fetch is raised; l.mu is held.
func (l *limiter) promote(client netip.Addr, t *ticket) {
	if t.done || !t.bulk {
		return
	}
	q := l.queues[client]
	i := slices.Index(q, t)
	if i < 0 {
		return
	}
	q = slices.Delete(q, i, i+1)
	t.bulk = false
	j := 0
	for j < len(q) && !q[j].bulk {
		j++
	}
	l.queues[client] = slices.Insert(q, j, t)
}

// enqueueAs queues a caller of client, an interactive one ahead of the client's bulk
// callers (a bulk check's rows); l.mu is held.
func (l *limiter) enqueueAs(client netip.Addr, bulk bool) *ticket {
	t := &ticket{granted: make(chan struct{}), bulk: bulk}
	q := l.queues[client]
	if len(q) == 0 {
		l.ring = append(l.ring, client)
	}
	i := len(q)
	for !bulk && i > 0 && q[i-1].bulk {
		i--
	}
	l.queues[client] = slices.Insert(q, i, t)
	l.waiters++
	return t
}

// schedule arms the dispatch for when the next token is due, unless one is armed or
// nobody waits; l.mu is held.
func (l *limiter) schedule() {
	if l.timer != nil || l.waiters == 0 {
		return
	}
	d := time.Duration(0)
	if l.tokens < 1 {
		d = time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
	}
	l.timer = time.AfterFunc(d, l.dispatch)
}

// dispatch hands the tokens that have come to the waiting clients in turn.
func (l *limiter) dispatch() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	l.refill()
	for l.tokens >= 1 && l.waiters > 0 {
		t := l.pop()
		t.done = true
		close(t.granted)
		l.tokens--
	}
	l.schedule()
}

// pop takes the first caller of the client whose turn it is; l.mu is held and someone
// waits.
func (l *limiter) pop() *ticket {
	if l.next >= len(l.ring) {
		l.next = 0
	}
	c := l.ring[l.next]
	q := l.queues[c]
	t := q[0]
	l.waiters--
	if len(q) == 1 {
		delete(l.queues, c)
		l.ring = append(l.ring[:l.next], l.ring[l.next+1:]...)
		// next now names the client after c.
	} else {
		l.queues[c] = q[1:]
		l.next++
	}
	return t
}

// remove takes a caller that gave up out of its client's queue; l.mu is held.
func (l *limiter) remove(c netip.Addr, t *ticket) {
	q := l.queues[c]
	for i, x := range q {
		if x != t {
			continue
		}
		l.waiters--
		if len(q) == 1 {
			delete(l.queues, c)
			for j, rc := range l.ring {
				if rc == c {
					l.ring = append(l.ring[:j], l.ring[j+1:]...)
					if j < l.next {
						l.next--
					}
					break
				}
			}
			return
		}
		l.queues[c] = append(q[:i:i], q[i+1:]...)
		return
	}
}
