package main

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// The Directory mirror in a fleet (issue 27 item 7, docs/ARCHITECTURE.md §7): with
// -redis, the replicas and `mirror sync` jobs take turns under a lease in Redis and
// share when the mirror was last synced, so that the Directory's export (3 downloads a
// day) is downloaded once for all of them.

// exportNet is a simulated Directory serving a fresh export of cards cards, without its
// daily limit, behind a gate that can hold the requests to its export path (the one the
// Directory counts against the limit) so that a test can keep one sync in the middle of
// its download while others start.
type exportNet struct {
	sim   *netsim.Network
	url   string // the gate's URL: the Directory to sync from
	cards int

	arrived chan struct{} // gets a value for each held request
	mu      sync.Mutex
	release chan struct{} // closed to let held requests through; nil when not holding
}

func startExportNet(t *testing.T, cards int) *exportNet {
	t.Helper()
	sim, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 5, Participants: 20}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	var body bytes.Buffer
	if err := netsim.WriteExportXML(&body, netsim.ExportConfig{Seed: 9, Cards: cards, Created: time.Now().UTC().Add(-time.Hour).Truncate(time.Second)}); err != nil {
		t.Fatal(err)
	}
	sim.SetExport(body.Bytes(), time.Now().Add(-time.Hour))
	sim.SetExportLimit(0)
	e := &exportNet{sim: sim, cards: cards, arrived: make(chan struct{}, 16)}
	target, _ := url.Parse(sim.DirectoryURL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gate := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		release := e.release
		e.mu.Unlock()
		if release != nil && r.URL.Path == netsim.ExportPath {
			e.arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			case <-time.After(60 * time.Second):
			}
		}
		proxy.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go gate.Serve(ln)
	t.Cleanup(func() { gate.Close() })
	e.url = "http://" + ln.Addr().String()
	return e
}

// hold makes the gate hold the export requests until the returned function is called.
func (e *exportNet) hold() (release func()) {
	ch := make(chan struct{})
	e.mu.Lock()
	e.release = ch
	e.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			e.release = nil
			e.mu.Unlock()
			close(ch)
		})
	}
}

// waitArrival waits (at most 60 s) for a request to reach the held gate.
func (e *exportNet) waitArrival(t *testing.T) {
	t.Helper()
	select {
	case <-e.arrived:
	case <-time.After(60 * time.Second):
		t.Fatal("no export request reached the Directory within 60 s")
	}
}

// requests returns the requests to the export path (each a download or a conditional
// request the Directory counts) and the downloads of the export file.
func (e *exportNet) requests() (exportPath, files int64) {
	h := e.sim.Hits().Directory
	return h.ExportRedirects, h.ExportDownloads
}

// TestMirrorSyncFleetLease: two `mirror sync -redis` at once against one Redis: one
// downloads, the other exits 0 saying another sync holds the lease; the lease is
// released at the end (a third sync runs and finds the export unchanged).
func TestMirrorSyncFleetLease(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 200)
	rs := redistest.Start(t)
	db := filepath.Join(t.TempDir(), "mirror.db")
	syncArgs := func(db, prefix string) []string {
		// A generous -redis-timeout: this test is about the lease, not a busy machine.
		return []string{"mirror", "sync", "-mirror", db, "-directory-url", e.url, "-redis", rs.URL(0), "-redis-prefix", prefix, "-redis-timeout", "2s"}
	}
	args := syncArgs(db, "lease-test")

	release := e.hold()
	defer release()
	type result struct {
		code   int
		stderr string
	}
	run := func(args []string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			var out, errb syncBuffer
			p := program{stdout: &out, stderr: &errb, getenv: envMap(nil)}
			ch <- result{p.run(t.Context(), args), errb.String()}
		}()
		return ch
	}
	wait := func(ch <-chan result) result {
		t.Helper()
		select {
		case r := <-ch:
			return r
		case <-time.After(120 * time.Second):
			t.Fatal("a sync did not end within 120 s")
		}
		return result{}
	}
	first := run(args)
	e.waitArrival(t) // the first sync holds the lease and is downloading

	second := run(args)
	select {
	case r := <-second:
		if r.code != 0 || !strings.Contains(r.stderr, "another sync holds the lease") {
			t.Fatalf("second sync while the first downloads: exit %d, want 0 and \"another sync holds the lease\"\n%s", r.code, r.stderr)
		}
		release()
		if r := wait(first); r.code != 0 || !strings.Contains(r.stderr, "imported 200 cards") {
			t.Fatalf("first sync: exit %d\n%s", r.code, r.stderr)
		}
		if p, f := e.requests(); p != 1 || f != 1 {
			t.Fatalf("the Directory saw %d export requests and %d file downloads, want 1 and 1", p, f)
		}
	case <-e.arrived:
		release()
		r1, r2 := wait(first), wait(second)
		t.Fatalf("both syncs reached the Directory at once:\n%s\n%s", r1.stderr, r2.stderr)
	case <-time.After(120 * time.Second):
		t.Fatal("the second sync neither ended nor reached the Directory within 120 s")
	}

	// The lease was released: the next sync runs (and finds the export unchanged).
	if code, _, stderr := runCmd(t, args...); code != 0 || !strings.Contains(stderr, "has not changed") {
		t.Fatalf("sync after the first: exit %d\n%s", code, stderr)
	}
	// A sync of another deployment (another prefix) does not see this one's lease.
	release = e.hold()
	first = run(syncArgs(filepath.Join(t.TempDir(), "mirror.db"), "lease-test"))
	e.waitArrival(t)
	done := run(syncArgs(filepath.Join(t.TempDir(), "mirror.db"), "other-deployment"))
	e.waitArrival(t) // the other deployment's sync reached the Directory too
	release()
	for _, ch := range []<-chan result{first, done} {
		if r := wait(ch); r.code != 0 || strings.Contains(r.stderr, "holds the lease") {
			t.Errorf("sync: exit %d\n%s", r.code, r.stderr)
		}
	}
}

// fleetServe is one replica of TestServeMirrorRefreshFleet.
type fleetServe struct {
	base   string
	stderr *syncBuffer
}

// launchFleetServe runs `peppolgate serve` with args, logging at info and checking its
// mirror file every reload, until the test ends.
func launchFleetServe(t *testing.T, reload time.Duration, args ...string) fleetServe {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderr := &syncBuffer{}
	ready := make(chan string, 1)
	p := program{stdout: &syncBuffer{}, stderr: stderr, getenv: envMap(nil), mirrorReload: reload,
		listening: func(_ net.Addr, base string) { ready <- base }}
	exit := make(chan int, 1)
	go func() {
		exit <- p.run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0", "-rate-limit", "off", "-log-level", "info"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exit:
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop within 30s")
		}
	})
	select {
	case base := <-ready:
		return fleetServe{base: base, stderr: stderr}
	case code := <-exit:
		t.Fatalf("exited %d before listening: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	return fleetServe{}
}

// waitMirror waits (at most 60 s) until s serves a mirror of cards cards.
func waitMirror(t *testing.T, s fleetServe, cards int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var ready readyBody
	for getJSON(t, s.base+"/readyz", &ready); ready.Mirror == nil || ready.Mirror.State != registry.MirrorOK || ready.Mirror.Cards != cards; getJSON(t, s.base+"/readyz", &ready) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the mirror does not hold %d cards after 60 s: %+v\n%s", s.base, cards, ready.Mirror, s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countLogs counts the replicas that logged any of msgs.
func countLogs(replicas []fleetServe, msgs ...string) int {
	got := 0
	for _, s := range replicas {
		for _, m := range msgs {
			if strings.Contains(s.stderr.String(), m) {
				got++
				break
			}
		}
	}
	return got
}

// waitLogs waits (at most 60 s) until at least n of the replicas logged one of msgs.
func waitLogs(t *testing.T, replicas []fleetServe, msgs []string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := countLogs(replicas, msgs...)
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			var logs strings.Builder
			for _, s := range replicas {
				logs.WriteString(s.stderr.String())
			}
			t.Fatalf("%d replicas logged %q after 60 s, want %d\n%s", got, msgs, n, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeMirrorRefreshFleet: three replicas with -mirror-refresh 24h sharing one Redis
// and one mirror file (a shared volume) download the export once between them: the
// first holds the lease while the others skip their turn; when it is done, the others
// serve the new index after their next reload, find the fleet's sync fresh and wait
// for the next period.
func TestServeMirrorRefreshFleet(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 150)
	rs := redistest.Start(t)
	db := filepath.Join(t.TempDir(), "mirror.db")
	release := e.hold()
	defer release()
	var replicas []fleetServe
	for range 3 {
		replicas = append(replicas, launchFleetServe(t, 100*time.Millisecond, "-networks", "production", "-dns-server", e.sim.DNSAddr(),
			"-directory-url", e.url, "-allow-private-smp", "-mirror", db, "-mirror-refresh", "24h", "-redis", rs.URL(0), "-redis-timeout", "2s"))
	}
	e.waitArrival(t)
	// Every replica took its turn: one downloads, the others skip theirs.
	waitLogs(t, replicas, []string{"another replica is syncing the Directory mirror"}, 2)
	release()
	for _, s := range replicas {
		waitMirror(t, s, 150)
	}
	waitLogs(t, replicas, []string{"the Directory mirror was synced by another replica"}, 2)
	if n := countLogs(replicas, "without the fleet's lease"); n > 0 {
		t.Fatalf("%d replicas synced without the lease", n)
	}
	if p, f := e.requests(); p != 1 || f != 1 {
		t.Fatalf("the Directory saw %d export requests and %d file downloads, want 1 and 1", p, f)
	}
}

// TestServeMirrorRefreshFleetFailure: when the replica holding the lease fails to sync
// (here the Directory answers 404 for the export), the others do not each try again at
// once: the failed attempt postpones the fleet's next one.
func TestServeMirrorRefreshFleetFailure(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 50)
	e.sim.SetExportFault(netsim.ExportFault{Status: http.StatusNotFound})
	rs := redistest.Start(t)
	db := filepath.Join(t.TempDir(), "mirror.db")
	release := e.hold()
	defer release()
	var replicas []fleetServe
	for range 2 {
		replicas = append(replicas, launchFleetServe(t, 100*time.Millisecond, "-networks", "production", "-dns-server", e.sim.DNSAddr(),
			"-directory-url", e.url, "-allow-private-smp", "-mirror", db, "-mirror-refresh", "24h", "-redis", rs.URL(0), "-redis-timeout", "2s"))
	}
	e.waitArrival(t)
	waitLogs(t, replicas, []string{"another replica is syncing the Directory mirror"}, 1)
	release()
	waitLogs(t, replicas, []string{"Directory mirror refresh failed"}, 1)
	waitLogs(t, replicas, []string{"the fleet's last sync of the Directory mirror failed"}, 1)
	if n := countLogs(replicas, "without the fleet's lease"); n > 0 {
		t.Fatalf("%d replicas synced without the lease", n)
	}
	if p, _ := e.requests(); p != 1 {
		t.Fatalf("the Directory saw %d export requests, want 1: the failed attempt must postpone the others", p)
	}
}

// TestServeMirrorRefreshOwnCopies: replicas that keep their own mirror file (no shared
// volume) each sync their own copy, one after the other under the lease: while the
// first downloads (held at the gate), the second skips its turn; once the lease is
// free, it syncs its own copy.
func TestServeMirrorRefreshOwnCopies(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 120)
	rs := redistest.Start(t)
	release := e.hold()
	defer release()
	var replicas []fleetServe
	for range 2 {
		replicas = append(replicas, launchFleetServe(t, 100*time.Millisecond, "-networks", "production", "-dns-server", e.sim.DNSAddr(),
			"-directory-url", e.url, "-allow-private-smp", "-mirror", filepath.Join(t.TempDir(), "mirror.db"), "-mirror-refresh", "24h",
			"-redis", rs.URL(0), "-redis-timeout", "2s"))
	}
	e.waitArrival(t)
	waitLogs(t, replicas, []string{"another replica is syncing the Directory mirror"}, 1)
	select {
	case <-e.arrived:
		t.Fatal("the second replica reached the Directory while the first held the lease")
	default:
	}
	release()
	for _, s := range replicas {
		waitMirror(t, s, 120)
	}
	if n := countLogs(replicas, "without the fleet's lease"); n > 0 {
		t.Fatalf("%d replicas synced without the lease", n)
	}
	if p, f := e.requests(); p != 2 || f != 2 {
		t.Fatalf("the Directory saw %d export requests and %d file downloads, want 2 and 2 (one per copy)", p, f)
	}
}

// TestMirrorFleetRedisDown: with Redis down, `mirror sync -redis` and serve
// -mirror-refresh -redis behave as without Redis: each syncs on its own schedule, and
// nothing fails.
func TestMirrorFleetRedisDown(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 80)
	rs := redistest.Start(t)
	redisURL := rs.URL(0)
	rs.Kill()

	for i := range 2 {
		db := filepath.Join(t.TempDir(), "mirror.db")
		code, _, stderr := runCmd(t, "mirror", "sync", "-mirror", db, "-directory-url", e.url, "-redis", redisURL)
		if code != 0 || !strings.Contains(stderr, "imported 80 cards") {
			t.Fatalf("sync %d with Redis down: exit %d\n%s", i, code, stderr)
		}
	}
	var replicas []fleetServe
	for range 2 {
		replicas = append(replicas, launchFleetServe(t, 100*time.Millisecond, "-networks", "production", "-dns-server", e.sim.DNSAddr(),
			"-directory-url", e.url, "-allow-private-smp", "-mirror", filepath.Join(t.TempDir(), "mirror.db"), "-mirror-refresh", "24h", "-redis", redisURL))
	}
	for _, s := range replicas {
		waitMirror(t, s, 80)
	}
	if p, f := e.requests(); p != 4 || f != 4 {
		t.Fatalf("the Directory saw %d export requests and %d file downloads, want 4 and 4 (each sync on its own)", p, f)
	}
}

// TestMirrorUsageNamesEveryFlag: `mirror -h` documents every flag of import and sync,
// -redis and -redis-prefix among them.
func TestMirrorUsageNamesEveryFlag(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCmd(t, "mirror", "-h")
	if code != 0 {
		t.Fatalf("mirror -h: exit %d", code)
	}
	for _, sub := range []string{"import", "sync"} {
		var f mirrorFlags
		mirrorFlagSet(sub, &f).VisitAll(func(fl *flag.Flag) {
			if !strings.Contains(stdout, "\n  -"+fl.Name+" ") {
				t.Errorf("mirror -h does not document -%s (of %s)", fl.Name, sub)
			}
		})
	}
	for _, want := range []string{"[-redis URL] [-redis-prefix PREFIX] [-redis-timeout DURATION]", "PEPPOLGATE_REDIS", "PEPPOLGATE_REDIS_TIMEOUT", "lease"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("mirror -h does not say %q", want)
		}
	}
}

// TestMirrorLease shows the lease on a real Redis: one holder at a time, renewed past
// its TTL while held, lapsing after a crashed holder's TTL, released only by its holder
// (compare-and-delete), and Redis trouble reported as an error (the caller then syncs
// on its own).
func TestMirrorLease(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	open := func() *mirrorFleet {
		// A generous deadline: this test is about the lease, not about a busy machine.
		f, err := fleet.Open(fleet.Options{URL: rs.URL(0), Prefix: "lease-unit", ProbeEvery: 50 * time.Millisecond, OpTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		m := newMirrorFleet(f, "https://directory.example/", slog.New(slog.DiscardHandler))
		m.ttl, m.renewEvery = 2*time.Second, 100*time.Millisecond
		return m
	}
	a, b := open(), open() // two replicas
	raw := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { raw.Close() })
	ctx := t.Context()

	if a.leaseKey != "lease-unit:mirror:sync:"+fleet.Hash("https://directory.example") || b.leaseKey != a.leaseKey {
		t.Fatalf("lease keys %q, %q", a.leaseKey, b.leaseKey)
	}
	la, err := a.acquire(ctx)
	if err != nil || la == nil {
		t.Fatalf("first acquire: %v %v", la, err)
	}
	if lb, err := b.acquire(ctx); lb != nil || err != nil {
		t.Fatalf("second acquire while held: %v %v, want nil, nil", lb, err)
	}
	// Renewed while held: still held after more than its TTL.
	time.Sleep(a.ttl + a.ttl/2)
	if lb, err := b.acquire(ctx); lb != nil || err != nil {
		t.Fatalf("acquire after the TTL while the holder renews: %v %v, want nil, nil", lb, err)
	}
	la.release()
	lb, err := b.acquire(ctx)
	if err != nil || lb == nil {
		t.Fatalf("acquire after release: %v %v", lb, err)
	}

	// A holder that crashes (stops renewing, never releases) blocks the others for at
	// most the TTL.
	close(lb.stop)
	<-lb.done
	deadline := time.Now().Add(30 * time.Second)
	for {
		la, err = a.acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if la != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a crashed holder's lease did not lapse within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A release finding the lease no longer its own (it lapsed and another took it)
	// leaves it alone.
	if err := raw.Set(ctx, a.leaseKey, "someone-else", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	la.release()
	if v, err := raw.Get(ctx, a.leaseKey).Result(); err != nil || v != "someone-else" {
		t.Fatalf("after a release of a lease no longer ours: %q %v, want someone-else's", v, err)
	}

	// Redis down: an error at once (sync without the lease), and a release that does not
	// hang.
	raw.Del(ctx, a.leaseKey)
	la, err = a.acquire(ctx)
	if err != nil || la == nil {
		t.Fatalf("acquire: %v %v", la, err)
	}
	rs.Kill()
	if lb, err := b.acquire(ctx); lb != nil || err == nil {
		t.Fatalf("acquire with Redis down: %v %v, want an error", lb, err)
	}
	la.release()
}

// TestMirrorSyncRecord: the record of the fleet's last sync, and when it makes a
// replica's own sync unnecessary.
func TestMirrorSyncRecord(t *testing.T) {
	t.Parallel()
	now := time.Now()
	asOf := now.Add(-5 * time.Hour).UTC().Truncate(time.Second)
	rec := mirrorSyncRecord{V: mirrorRecordVersion, Synced: now.Add(-2 * time.Hour), DataAsOf: asOf}
	for _, tt := range []struct {
		name      string
		rec       mirrorSyncRecord
		dataAsOf  time.Time
		haveIndex bool
		fresh     bool
	}{
		{"synced within the period, same data", rec, asOf, true, true},
		{"synced within the period, newer data here", rec, asOf.Add(time.Hour), true, true},
		{"synced within the period, older data here (own copy)", rec, asOf.Add(-24 * time.Hour), true, false},
		{"no index here", rec, time.Time{}, false, false},
		{"synced a period ago", mirrorSyncRecord{V: 1, Synced: now.Add(-25 * time.Hour), DataAsOf: asOf}, asOf, true, false},
		{"synced in the future (a clock off)", mirrorSyncRecord{V: 1, Synced: now.Add(time.Hour), DataAsOf: asOf}, asOf, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			next, fresh := tt.rec.fresh(24*time.Hour, tt.dataAsOf, tt.haveIndex)
			if fresh != tt.fresh || (fresh && !next.Equal(tt.rec.Synced.Add(24*time.Hour))) {
				t.Errorf("fresh = %v, %v; want %v", next, fresh, tt.fresh)
			}
		})
	}

	rs := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: rs.URL(0), Prefix: "record-unit", OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	m := newMirrorFleet(f, "https://directory.example", slog.New(slog.DiscardHandler))
	if _, ok, err := m.lastSync(t.Context()); ok || err != nil {
		t.Fatalf("lastSync before any: %v %v", ok, err)
	}
	if err := m.recordSync(t.Context(), asOf); err != nil {
		t.Fatal(err)
	}
	got, ok, err := m.lastSync(t.Context())
	if !ok || err != nil || !got.DataAsOf.Equal(asOf) || time.Since(got.Synced) > time.Minute {
		t.Fatalf("lastSync: %+v %v %v", got, ok, err)
	}
	// A record of another format (a newer release during a rolling deploy) is ignored.
	raw := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { raw.Close() })
	raw.Set(t.Context(), m.syncKey, `{"v":2,"synced":"2026-01-01T00:00:00Z"}`, time.Minute)
	if _, ok, err := m.lastSync(t.Context()); ok || err != nil {
		t.Fatalf("lastSync of a v2 record: %v %v, want ignored", ok, err)
	}
}

// TestMirrorSyncRedisTimeout: `mirror sync` takes -redis-timeout (env
// PEPPOLGATE_REDIS_TIMEOUT) with serve's bounds, 1ms to 5s.
func TestMirrorSyncRedisTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string // in stderr, with exit 2
	}{
		{"zero", []string{"-redis-timeout", "0s"}, nil, "-redis-timeout must be between 1ms and 5s"},
		{"too long", []string{"-redis-timeout", "6s"}, nil, "-redis-timeout must be between 1ms and 5s"},
		{"not a duration", []string{"-redis-timeout", "soon"}, nil, "invalid value"},
		{"env too long", nil, map[string]string{"PEPPOLGATE_REDIS_TIMEOUT": "10s"}, "-redis-timeout must be between 1ms and 5s"},
		{"env not a duration", nil, map[string]string{"PEPPOLGATE_REDIS_TIMEOUT": "soon"}, "PEPPOLGATE_REDIS_TIMEOUT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb syncBuffer
			p := program{stdout: &out, stderr: &errb, getenv: envMap(tt.env)}
			args := append([]string{"mirror", "sync", "-mirror", filepath.Join(t.TempDir(), "m.db"), "-directory-url", "http://127.0.0.1:1", "-redis", "redis://127.0.0.1:1/0"}, tt.args...)
			if code := p.run(t.Context(), args); code != 2 || !strings.Contains(errb.String(), tt.want) {
				t.Fatalf("exit %d, want 2 and %q\n%s", code, tt.want, errb.String())
			}
		})
	}
}

// TestMirrorSyncFleetPostponed: `mirror sync -redis` honours the fleet's postponement
// (a failed sync of a replica or job asked everyone to wait): it exits 0 saying so,
// without asking the Directory; and a sync of its own that fails for any cause (here a
// 404) postpones the fleet, as a replica's -mirror-refresh does.
func TestMirrorSyncFleetPostponed(t *testing.T) {
	t.Parallel()
	e := startExportNet(t, 30)
	rs := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: rs.URL(0), Prefix: "postpone-test", OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	m := newMirrorFleet(f, e.url, slog.New(slog.DiscardHandler))
	args := []string{"mirror", "sync", "-mirror", filepath.Join(t.TempDir(), "mirror.db"), "-directory-url", e.url,
		"-redis", rs.URL(0), "-redis-prefix", "postpone-test", "-redis-timeout", "2s"}

	if err := m.postpone(t.Context(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, args...); code != 0 || !strings.Contains(stderr, "postponed") {
		t.Fatalf("sync while the fleet postponed: exit %d, want 0 and a word that it is postponed\n%s", code, stderr)
	}
	if p, _ := e.requests(); p != 0 {
		t.Fatalf("the Directory saw %d export requests while the fleet postponed, want 0", p)
	}

	raw := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	t.Cleanup(func() { raw.Close() })
	raw.Del(t.Context(), m.backoffKey)
	e.sim.SetExportFault(netsim.ExportFault{Status: http.StatusNotFound})
	if code, _, stderr := runCmd(t, args...); code != 1 {
		t.Fatalf("sync against a Directory answering 404: exit %d, want 1\n%s", code, stderr)
	}
	if until, ok, err := m.postponed(t.Context()); err != nil || !ok || time.Until(until) < 30*time.Minute {
		t.Fatalf("after a failed sync the fleet is postponed until %v (%v, %v), want about an hour ahead", until, ok, err)
	}
}
