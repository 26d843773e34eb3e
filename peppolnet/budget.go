package peppolnet

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// bulkWaitFactor is how many times its fetch's deadline a bulk fetch may spend
// waiting for turns (an SMP host's slot, the Directory's budget): rows of checks wait
// behind interactive requests and each other, and a row that waits is not failing.
// Interactive fetches may wait once their deadline.
const bulkWaitFactor = 6

// errWaitedTooLong is the cause of a wait given up because its fetch has waited for
// turns as long as it may (see budget).
var errWaitedTooLong = errors.New("waited for a turn as long as a request may")

// budgetKey is the context key under which a budget finds itself.
type budgetKey struct{}

// budget is the context of one fetch (a lookup, a services lookup, a search): its
// deadline counts only the time the fetch works (asks upstream, computes), not the
// time it waits in a queue for its turn (an SMP host's slot, the Directory's rate
// budget), so that waiting behind others is never reported, logged or counted by a
// circuit breaker as an upstream timeout (docs/ARCHITECTURE.md §3). Waiting is
// bounded on its own: the fetch may wait for turns for at most wait in all (the time
// during which at least one of its requests waits), after which every wait of it is
// refused (queueOut closes) and the fetch goes on without that answer. When work
// runs out, Done closes and Err is context.DeadlineExceeded; when the parent ends, Err
// is the parent's. It also carries the fetch's priority: bulk until an interactive
// caller joins the fetch (raise).
//
// A budget reports no Deadline: its deadline moves while it waits. Use waitDeadline
// for the latest a wait may end.
type budget struct {
	parent context.Context
	done   chan struct{}
	// total is the work time the fetch was given.
	total time.Duration
	// interactiveWait is the waiting allowance once raised.
	interactiveWait time.Duration
	stop            func() bool // stops watching parent

	mu        sync.Mutex
	err       error
	left      time.Duration // work time left as of since
	since     time.Time     // when the work clock last started (meaningful when queued == 0)
	timer     *time.Timer   // fires when work time runs out, while working
	queued    int           // waits in progress
	waitLeft  time.Duration // waiting allowance left as of waitSince
	waitSince time.Time     // when the current spell of waiting began (queued > 0)
	waitTimer *time.Timer   // fires when the allowance runs out, while waiting
	queueOut  chan struct{} // closed when the allowance is used up
	bulk      bool
	raised    chan struct{} // closed when raise makes a bulk budget interactive
	// refused is set when a wait of the fetch was refused for its waiting allowance:
	// its answer may be degraded by its own waiting (refusedTurn).
	refused bool
	after   map[*func()]struct{}
}

// newBudget returns the budget of a fetch under parent, with work time work. A bulk
// fetch (registry.IsBulk(parent)) may wait bulkWaitFactor times work, another work.
// Call cancel when the fetch ends.
func newBudget(parent context.Context, work time.Duration) (b *budget, cancel func()) {
	bulk := registry.IsBulk(parent)
	wait := work
	if bulk {
		wait = bulkWaitFactor * work
	}
	b = &budget{parent: parent, done: make(chan struct{}), total: work, interactiveWait: work,
		left: work, since: time.Now(), waitLeft: wait, queueOut: make(chan struct{}), bulk: bulk, raised: make(chan struct{})}
	b.mu.Lock()
	b.timer = time.AfterFunc(work, b.workExpired)
	b.stop = context.AfterFunc(parent, func() { b.end(parent.Err()) })
	b.mu.Unlock()
	return b, func() { b.end(context.Canceled) }
}

// Deadline implements context.Context: a budget has no fixed deadline.
func (b *budget) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done implements context.Context.
func (b *budget) Done() <-chan struct{} { return b.done }

// Err implements context.Context.
func (b *budget) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Value implements context.Context: the budget itself for budgetKey, else the
// parent's values.
func (b *budget) Value(key any) any {
	if key == (budgetKey{}) {
		return b
	}
	return b.parent.Value(key)
}

// end ends the budget with err, once.
func (b *budget) end(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.endLocked(err)
}

// endLocked is end with b.mu held.
func (b *budget) endLocked(err error) {
	if b.err != nil {
		return
	}
	b.err = err
	b.timer.Stop()
	if b.waitTimer != nil {
		b.waitTimer.Stop()
	}
	if b.stop != nil {
		b.stop()
	}
	close(b.done)
	for f := range b.after {
		go (*f)()
	}
	b.after = nil
}

// AfterFunc arranges for f to run in its own goroutine when the budget ends, as
// context.AfterFunc does; the context package uses it to cancel the contexts made
// from a budget without a goroutine each. stop keeps f from running and reports
// whether it did.
func (b *budget) AfterFunc(f func()) (stop func() bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		go f()
		return func() bool { return false }
	}
	if b.after == nil {
		b.after = map[*func()]struct{}{}
	}
	key := &f
	b.after[key] = struct{}{}
	return func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, ok := b.after[key]
		delete(b.after, key)
		return ok
	}
}

// workExpired ends the budget when its work time has run out (a timer may fire late,
// after a wait began: then it did not run out).
func (b *budget) workExpired() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queued == 0 && b.left-time.Since(b.since) <= 0 {
		b.endLocked(context.DeadlineExceeded)
	}
}

// waitExpired closes queueOut when the waiting allowance has run out.
func (b *budget) waitExpired() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queued > 0 && b.waitLeft-time.Since(b.waitSince) <= 0 {
		b.closeQueue()
	}
}

// isClosedLocked reports whether ch (a budget's queueOut, b.mu held) is closed.
func isClosedLocked(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// closeQueue closes queueOut once; b.mu is held.
func (b *budget) closeQueue() {
	select {
	case <-b.queueOut:
	default:
		close(b.queueOut)
	}
}

// pause stops the work clock while one more of the fetch's requests waits for a turn.
func (b *budget) pause() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queued++
	if b.queued > 1 || b.err != nil {
		return
	}
	now := time.Now()
	b.left -= now.Sub(b.since)
	b.timer.Stop()
	b.waitSince = now
	if b.waitLeft <= 0 {
		b.closeQueue()
		return
	}
	if b.waitTimer == nil {
		b.waitTimer = time.AfterFunc(b.waitLeft, b.waitExpired)
	} else {
		b.waitTimer.Reset(b.waitLeft)
	}
}

// resume starts the work clock again when the last wait in progress ends.
func (b *budget) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queued--
	if b.queued > 0 || b.err != nil {
		return
	}
	now := time.Now()
	b.waitLeft -= now.Sub(b.waitSince)
	if b.waitTimer != nil {
		b.waitTimer.Stop()
	}
	b.since = now
	if b.left <= 0 {
		b.endLocked(context.DeadlineExceeded)
		return
	}
	b.timer.Reset(b.left)
}

// isBulk reports whether the fetch still runs at bulk priority.
func (b *budget) isBulk() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bulk
}

// raise makes a bulk fetch interactive, because an interactive caller now waits for
// it: its waits move ahead of bulk ones (raised closes) and it may wait no longer
// than an interactive fetch from now on. A fetch whose bulk allowance was used up
// gets a new queueOut and an interactive fetch's allowance, so that the caller who
// joined is not refused for the rows' waiting.
func (b *budget) raise() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.bulk {
		return
	}
	b.bulk = false
	close(b.raised)
	if isClosedLocked(b.queueOut) {
		// The rows' waiting used the allowance up: the interactive caller who joined
		// gets an interactive fetch's allowance of its own, from now (turn.reopened).
		b.queueOut = make(chan struct{})
		b.waitLeft = b.interactiveWait
		if b.queued > 0 {
			b.waitSince = time.Now()
			if b.waitTimer != nil {
				b.waitTimer.Reset(b.interactiveWait)
			}
		}
		return
	}
	if b.queued == 0 {
		b.waitLeft = min(b.waitLeft, b.interactiveWait)
		return
	}
	waited := time.Since(b.waitSince)
	if b.waitLeft-waited > b.interactiveWait {
		b.waitLeft = waited + b.interactiveWait
		if b.waitTimer != nil {
			b.waitTimer.Reset(b.interactiveWait)
		}
	}
}

// waitDeadline is the latest a wait that begins now may end: the end of the waiting
// allowance; false when there is no budget and ctx has no deadline.
func waitDeadline(ctx context.Context) (time.Time, bool) {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok {
		return ctx.Deadline()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	left := b.waitLeft
	if b.queued > 0 {
		left -= time.Since(b.waitSince)
	}
	return time.Now().Add(left), true
}

// turn is one wait of a request for its turn, made by startWait.
type turn struct {
	b *budget
	// out closes when the fetch may wait no longer (nil without a budget: ctx alone
	// bounds the wait).
	out <-chan struct{}
	// raised closes when a bulk fetch becomes interactive (nil when it cannot).
	raised <-chan struct{}
	bulk   bool
}

// startWait begins a wait of ctx's request for its turn: the fetch's work clock stops
// until end. Without a budget in ctx the request's priority is registry.IsBulk(ctx)
// and only ctx bounds the wait.
func startWait(ctx context.Context) *turn {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok {
		return &turn{bulk: registry.IsBulk(ctx)}
	}
	b.pause()
	t := &turn{b: b, out: b.queueOut}
	if t.bulk = b.isBulk(); t.bulk {
		t.raised = b.raised
	}
	return t
}

// reopened reports whether the fetch may wait again although t.out closed: it was
// raised after its waiting allowance ran out (raise), and t.out is now the new one.
func (t *turn) reopened() bool {
	if t.b == nil {
		return false
	}
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	if t.out == t.b.queueOut {
		return false
	}
	t.out = t.b.queueOut
	return true
}

// refuse records that t was given up because the fetch may wait no longer.
func (t *turn) refuse() {
	if t.b != nil {
		t.b.mu.Lock()
		t.b.refused = true
		t.b.mu.Unlock()
	}
}

// noteRefused records that a wait of ctx's fetch was refused before it began, because
// the turn would come after the waiting allowance (waitDeadline).
func noteRefused(ctx context.Context) {
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		(&turn{b: b}).refuse()
	}
}

// refusedTurn reports whether a wait of ctx's fetch was refused for its waiting
// allowance (errWaitedTooLong, errLimiterBusy from the allowance): its answer may be
// degraded (say directory_unavailable) by its own waiting, not by upstream, and is
// not shared with other replicas (sharedflight.go).
func refusedTurn(ctx context.Context) bool {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.refused
}

// end ends the wait: the fetch's work clock runs again.
func (t *turn) end() {
	if t.b != nil {
		t.b.resume()
	}
}

// bulkOf reports whether ctx's request runs at bulk priority.
func bulkOf(ctx context.Context) bool {
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		return b.isBulk()
	}
	return registry.IsBulk(ctx)
}

// fairWireTime is the longest a request must have been on the wire before its fetch's
// deadline ended it for it to count as the upstream's timeout (cutShort): a healthy SMP
// or Directory answers well within it.
const fairWireTime = 3 * time.Second

// cutShort reports whether a request of ctx sent at sent, which failed, was cut short
// by its fetch's deadline before the upstream had had a fair share of time on the
// wire (half the fetch's work time, at most fairWireTime): the caller's deadline, not
// the upstream's failure, so it is not counted against the upstream's circuit breaker.
// The share is counted from when the request was sent, not from when the fetch began,
// so that a request sent late (after a slow DNS step) to a dead SMP still counts: a
// request that had that long is the upstream's timeout. Without a budget in ctx, or
// when ctx's deadline did not end it, nothing is cut short.
func cutShort(ctx context.Context, sent time.Time) bool {
	b, ok := ctx.Value(budgetKey{}).(*budget)
	if !ok || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return false
	}
	return time.Since(sent) < min(b.total/2, fairWireTime)
}
