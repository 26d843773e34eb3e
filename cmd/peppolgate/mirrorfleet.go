package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
)

// The Directory mirror in a fleet (docs/ARCHITECTURE.md §7, docs/INTERFACE.md §4.10):
// with -redis, a sync of the Directory's export (by serve -mirror-refresh or by
// `peppolgate mirror sync`) runs under a lease in Redis, so that two replicas never
// download at once (the Directory allows 3 downloads per IP a day), and the fleet
// remembers its last successful sync, so that N replicas with -mirror-refresh 24h sync
// once a day between them. Redis trouble is never an outage: without an answer from
// Redis every replica syncs on its own schedule, as without -redis.

// Lease timing: the lease lapses mirrorLeaseTTL after its holder last renewed it, so
// that a holder that crashed mid-download blocks the others for at most that long.
const (
	mirrorLeaseTTL        = time.Minute
	mirrorLeaseRenewEvery = mirrorLeaseTTL / 4
	// mirrorSyncedTTL is how long Redis keeps the record of the last sync; far longer
	// than any sensible -mirror-refresh, short enough that a retired deployment's key
	// goes away.
	mirrorSyncedTTL = 30 * 24 * time.Hour
	// mirrorRecordVersion is the format of the record of the last sync; a replica
	// ignores a record of another version (a rolling deploy of a new format).
	mirrorRecordVersion = 1
)

// Scripts that touch the lease only while it is still ours (its value is our token).
var (
	mirrorLeaseRenew = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	mirrorLeaseFree  = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
)

// mirrorFleet is the fleet's shared state of the syncs of one Directory's export: the
// lease and the record of the last successful sync. A nil *mirrorFleet is no fleet.
type mirrorFleet struct {
	f                             *fleet.Fleet
	leaseKey, syncKey, backoffKey string
	ttl, renewEvery               time.Duration
	log                           *slog.Logger
}

// newMirrorFleet returns the shared sync state for the Directory at dirURL, or nil
// without a fleet. The keys are per Directory, not per mirror file: the lease guards
// the Directory's download limit, whichever file a replica keeps, and a path names
// different volumes on different replicas (or one volume under different paths).
func newMirrorFleet(f *fleet.Fleet, dirURL string, log *slog.Logger) *mirrorFleet {
	if f == nil {
		return nil
	}
	id := fleet.Hash(strings.TrimRight(strings.TrimSpace(dirURL), "/"))
	return &mirrorFleet{f: f, leaseKey: f.Key("mirror", "sync", id), syncKey: f.Key("mirror", "synced", id),
		backoffKey: f.Key("mirror", "backoff", id), ttl: mirrorLeaseTTL, renewEvery: mirrorLeaseRenewEvery, log: log}
}

// mirrorSyncRecord is what the fleet remembers of its last successful sync.
type mirrorSyncRecord struct {
	V int `json:"v"`
	// Synced is when the sync ended.
	Synced time.Time `json:"synced"`
	// DataAsOf is the data date of the index it left (mirror.Meta.DataAsOf): a replica
	// whose own index is as new needs no sync of its own.
	DataAsOf time.Time `json:"dataAsOf"`
}

// lastSync returns the record of the fleet's last successful sync; ok is false when
// there is none (or one of another format). An error is Redis trouble: the caller
// goes on as without a fleet.
func (m *mirrorFleet) lastSync(ctx context.Context) (rec mirrorSyncRecord, ok bool, err error) {
	var raw string
	err = m.f.Do(ctx, "mirror last sync", func(ctx context.Context, c *redis.Client) error {
		var err error
		raw, err = c.Get(ctx, m.syncKey).Result()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if json.Unmarshal([]byte(raw), &rec) != nil || rec.V != mirrorRecordVersion || rec.Synced.IsZero() {
		return mirrorSyncRecord{}, false, nil
	}
	return rec, true, nil
}

// recordSync stores the record of a successful sync that left an index of data date
// dataAsOf, and clears a postponement.
func (m *mirrorFleet) recordSync(ctx context.Context, dataAsOf time.Time) error {
	b, _ := json.Marshal(mirrorSyncRecord{V: mirrorRecordVersion, Synced: time.Now().UTC(), DataAsOf: dataAsOf.UTC()})
	return m.f.Do(ctx, "mirror record sync", func(ctx context.Context, c *redis.Client) error {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, m.syncKey, b, mirrorSyncedTTL)
			p.Del(ctx, m.backoffKey)
			return nil
		})
		return err
	})
}

// postpone tells the fleet that no replica should try to sync before until: the sync
// failed (the Directory down, its download limit reached), and the others must not
// each try again at once.
func (m *mirrorFleet) postpone(ctx context.Context, until time.Time) error {
	d := time.Until(until)
	if d <= 0 {
		return nil
	}
	return m.f.Do(ctx, "mirror postpone", func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, m.backoffKey, until.UTC().Format(time.RFC3339Nano), d).Err()
	})
}

// postponed returns the time before which the fleet agreed not to sync, if it is
// still ahead. An error is Redis trouble.
func (m *mirrorFleet) postponed(ctx context.Context) (time.Time, bool, error) {
	var raw string
	err := m.f.Do(ctx, "mirror postponed", func(ctx context.Context, c *redis.Client) error {
		var err error
		raw, err = c.Get(ctx, m.backoffKey).Result()
		return err
	})
	if errors.Is(err, redis.Nil) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	until, perr := time.Parse(time.RFC3339Nano, raw)
	if perr != nil || !time.Now().Before(until) {
		return time.Time{}, false, nil
	}
	return until, true, nil
}

// mirrorLease is a held sync lease, renewed in the background until released.
type mirrorLease struct {
	m        *mirrorFleet
	token    string
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// acquire takes the sync lease: SET NX PX with a random token, renewed every
// renewEvery while held. It returns a nil lease and nil error when another replica or
// job holds it, and an error for Redis trouble (the caller then syncs without it).
func (m *mirrorFleet) acquire(ctx context.Context) (*mirrorLease, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	var got bool
	err := m.f.Do(ctx, "mirror lease", func(ctx context.Context, c *redis.Client) error {
		var err error
		got, err = c.SetNX(ctx, m.leaseKey, token, m.ttl).Result()
		return err
	})
	if err != nil {
		return nil, err
	}
	if !got {
		return nil, nil
	}
	l := &mirrorLease{m: m, token: token, stop: make(chan struct{}), done: make(chan struct{})}
	go l.renew()
	return l, nil
}

// renew extends the lease every renewEvery until released. A renewal that fails for
// Redis is tried again at the next tick (the sync goes on: a download is not given up
// for Redis); one that finds the lease no longer ours (it lapsed while Redis was
// unreachable and another took it) stops renewing and says so.
func (l *mirrorLease) renew() {
	defer close(l.done)
	t := time.NewTicker(l.m.renewEvery)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		var n int64
		err := l.m.f.Do(context.Background(), "mirror lease renew", func(ctx context.Context, c *redis.Client) error {
			var err error
			n, err = mirrorLeaseRenew.Run(ctx, c, []string{l.m.leaseKey}, l.token, l.m.ttl.Milliseconds()).Int64()
			return err
		})
		if err == nil && n == 0 {
			l.m.log.Warn("the mirror sync lease lapsed while this sync ran (Redis was unreachable for longer than its TTL); another replica may download too", "ttl", l.m.ttl.String())
			return
		}
	}
}

// release stops the renewal and deletes the lease if it is still ours. Redis
// trouble leaves it to lapse within the TTL.
func (l *mirrorLease) release() {
	l.stopOnce.Do(func() {
		close(l.stop)
		<-l.done
		_ = l.m.f.Do(context.Background(), "mirror lease release", func(ctx context.Context, c *redis.Client) error {
			return mirrorLeaseFree.Run(ctx, c, []string{l.m.leaseKey}, l.token).Err()
		})
	})
}

// fresh reports whether the fleet's last sync rec is within period of now and left
// data no newer than ours (dataAsOf, ok false when this replica serves no index):
// then this replica needs no sync until next.
func (rec mirrorSyncRecord) fresh(period time.Duration, dataAsOf time.Time, ok bool) (next time.Time, fresh bool) {
	age := time.Since(rec.Synced)
	if !ok || age >= period || age < -time.Minute || dataAsOf.Before(rec.DataAsOf) {
		return time.Time{}, false
	}
	return rec.Synced.Add(period), true
}

// String describes the record for logs.
func (rec mirrorSyncRecord) String() string {
	return fmt.Sprintf("synced %s, data as of %s", rec.Synced.Format(time.RFC3339), rec.DataAsOf.Format(time.RFC3339))
}
