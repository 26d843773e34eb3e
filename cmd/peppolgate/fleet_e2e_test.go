package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
)

// TestFleet is issue 27's end-to-end test of peppolgate run as a fleet
// (docs/ARCHITECTURE.md §7): a real redis-server and three replicas of the real `serve`
// command (program.run in-process, each on its own loopback port with its own Redis
// connection, as three pods would be) over ONE simulated Peppol network, whose
// counters show what reached the upstream; a fourth replica is another deployment on
// the same Redis under another -redis-prefix. Without redis-server it is skipped
// (redistest; `make test` makes that a failure).
//
// The subtests share that world, because a replica takes about 2 s to start under
// -race on a busy machine (six worlds would cost ~40 s of start-up alone); they stay
// independent of one another all the same: each asks about participants no other one
// asks about (fleetWorld.fresh), as clients of its own (X-Forwarded-For), and the
// SMP hosts whose breakers (c) opens are used by no other. They run one after the
// other, since they read the network's counters; (e), which kills and restarts Redis,
// runs last.
//
// The replicas run with -redis-timeout 500ms (not the default 50 ms), so that a busy
// machine under -race rarely sends one local; when one does find a Redis operation over
// that deadline and rightly serves from its own state for a second, the attempt during
// which that happened does not count and is made again, once (fleetWorld.retried). Any
// other Redis trouble (refused, an error reply) fails the test.
func TestFleet(t *testing.T) {
	t.Parallel()
	w := newFleetWorld(t)
	for _, tt := range []struct {
		name string
		run  func(*testing.T, *fleetWorld)
	}{
		{"a_one_smp_round_for_a_cold_participant", testFleetCoalescing},
		{"b_one_client_limit_for_the_fleet", testFleetClientLimit},
		{"c_a_breaker_opened_on_one_replica_is_open_on_all", testFleetBreaker},
		{"d_an_mcp_session_works_on_every_replica", testFleetMCPSession},
		{"f_two_prefixes_do_not_see_each_other", testFleetPrefixes},
		{"e_redis_killed_and_restarted", testFleetRedisDown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Cleanup(func() {
				if t.Failed() {
					w.logRedis(t)
				}
			})
			tt.run(t, w)
		})
	}
}

// The client limit every replica of these tests runs with (-rate-limit): small, so
// that a client at three times it is quick to make. Loopback stays exempt (the
// default), so the tests' own plumbing (readiness, the cold lookups of (a), the steady
// mix of (e)) is never limited; the limited clients name themselves in
// X-Forwarded-For (-trust-proxy 127.0.0.1), each test a different one from TEST-NET-3
// (RFC 5737).
const (
	fleetRate  = 5.0
	fleetBurst = 5
)

// Key prefixes of the two deployments on the one Redis.
const (
	fleetPrefix = "fleet"
	otherPrefix = "other"
)

// fleetWorld is one Redis and one simulated network, the three replicas of the fleet
// and the one replica of another deployment serving over them.
type fleetWorld struct {
	redis  *redistest.Server
	ds     *netsim.Dataset
	sim    *netsim.Network
	caFile string
	hc     *http.Client

	// rs are the fleet's replicas; other is the other deployment's.
	rs    []*replica
	other *replica

	// breakerHosts are the SMP hosts (c) fails, one an attempt, and breakerIDs the
	// participants on each.
	breakerHosts []int
	breakerIDs   [][]string

	mu   sync.Mutex
	free []string // participants on other hosts no subtest has taken yet
}

// newFleetWorld starts redis-server (skipping the test when it is not installed and
// PEPPOLGATE_REQUIRE_REDIS is unset), a simulated network and the replicas, until the
// test ends.
func newFleetWorld(t *testing.T) *fleetWorld {
	t.Helper()
	w := &fleetWorld{redis: redistest.Start(t)}
	w.ds = netsim.Generate(netsim.DatasetConfig{Seed: 27, Participants: 400})
	sim, err := netsim.Start(t.Context(), w.ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	w.sim = sim
	// The network's CAs, as a private network's operator gives them with -trust-ca.
	root, smpCA, apCA := sim.TrustAnchors()
	var buf bytes.Buffer
	for _, der := range [][]byte{root, smpCA, apCA} {
		_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	w.caFile = filepath.Join(t.TempDir(), "netsim-ca.pem")
	if err := os.WriteFile(w.caFile, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	w.hc = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	t.Cleanup(w.hc.CloseIdleConnections)

	// The two busiest SMP hosts are (c)'s; everyone else takes participants of the
	// others.
	byHost := plainParticipants(w.ds)
	hosts := slices.Collect(maps.Keys(byHost))
	slices.SortFunc(hosts, func(a, b int) int { return cmp.Or(len(byHost[b])-len(byHost[a]), a-b) })
	if len(hosts) < 3 {
		t.Fatalf("the dataset has plain participants on %d SMP hosts; want 3", len(hosts))
	}
	for _, h := range hosts[:2] {
		if len(byHost[h]) < 24 {
			t.Fatalf("the dataset has %d plain participants on SMP host %d; want 24", len(byHost[h]), h)
		}
		w.breakerHosts, w.breakerIDs = append(w.breakerHosts, h), append(w.breakerIDs, byHost[h])
	}
	for _, h := range hosts[2:] {
		w.free = append(w.free, byHost[h]...)
	}
	if len(w.free) < 40 {
		t.Fatalf("the dataset has %d plain participants on the other SMP hosts; want 40", len(w.free))
	}

	// The four replicas start at once: each takes seconds under -race.
	names := []string{"r1", "r2", "r3", "other1"}
	started := make([]*replica, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		prefix := fleetPrefix
		if i == 3 {
			prefix = otherPrefix
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			started[i], errs[i] = w.start(t, name, w.redis.URL(0), prefix)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	w.rs, w.other = started[:3], started[3]
	for _, r := range started {
		code, rd := w.readyz(t, r)
		if code != http.StatusOK || rd.Redis == nil || !rd.Redis.Up {
			t.Fatalf("replica %s: /readyz %d, redis %+v; want 200 with redis up", r.name, code, rd.Redis)
		}
	}
	return w
}

// fresh returns n participants no subtest has asked about, none on the breaker host.
func (w *fleetWorld) fresh(t *testing.T, n int) []string {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.free) < n {
		t.Fatalf("only %d fresh participants left, want %d", len(w.free), n)
	}
	ids := w.free[:n:n]
	w.free = w.free[n:]
	return ids
}

// replica is one running `peppolgate serve`.
type replica struct {
	name   string
	base   string
	stderr *syncBuffer
}

// start starts one replica on the world's network sharing the Redis at redisURL under
// prefix, and stops it when the test ends, showing the end of its log if the test
// failed. It may run on any goroutine.
func (w *fleetWorld) start(t *testing.T, name, redisURL, prefix string) (*replica, error) {
	args := []string{"serve", "-addr", "127.0.0.1:0", "-network", "production", "-networks", "production",
		"-sml-zone", w.sim.Zone(), "-dns-server", w.sim.DNSAddr(), "-directory-url", w.sim.DirectoryURL(),
		"-allow-private-smp", "-trust-ca", w.caFile, "-trust-proxy", "127.0.0.1",
		"-rate-limit", fmt.Sprintf("%g/s,burst=%d", fleetRate, fleetBurst),
		// A deadline of half a second, not 50 ms: the test shows what is shared, and a
		// busy machine running the race detector would otherwise send replicas local
		// (fleetWorld.retried still repeats an attempt a timeout disturbed).
		"-redis", redisURL, "-redis-prefix", prefix, "-redis-timeout", "500ms"}
	ctx, stop := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	ready := make(chan string, 1)
	p := program{stdout: &syncBuffer{}, stderr: stderr, getenv: envMap(map[string]string{"PEPPOLGATE_LOG_LEVEL": "warn"}),
		listening: func(_ net.Addr, base string) { ready <- base }}
	done := make(chan int, 1)
	go func() { done <- p.run(ctx, args) }()
	var base string
	select {
	case base = <-ready:
	case code := <-done:
		stop()
		return nil, fmt.Errorf("replica %s exited %d before listening: %s", name, code, stderr.String())
	case <-time.After(60 * time.Second):
		stop()
		return nil, fmt.Errorf("replica %s not listening after 60s", name)
	}
	t.Cleanup(func() {
		stop()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("replica %s did not stop within 30s", name)
		}
		if log := stderr.String(); t.Failed() && log != "" {
			t.Logf("replica %s (%s), the end of its log:\n%s", name, base, tail(log, 15))
		}
	})
	return &replica{name: name, base: base, stderr: stderr}, nil
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// answer is one HTTP exchange's outcome.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    error
}

func (a answer) String() string {
	if a.err != nil {
		return a.err.Error()
	}
	b := a.body
	if len(b) > 300 {
		b = b[:300]
	}
	return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(b))
}

// do sends one request to base+path; hdr are header name/value pairs.
func (w *fleetWorld) do(ctx context.Context, method, url, body string, hdr ...string) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return answer{err: err}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := w.hc.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// lookup GETs the participant id from r, as client (an X-Forwarded-For address; ""
// for loopback, which is exempt from the limits).
func (w *fleetWorld) lookup(ctx context.Context, r *replica, id, client string) answer {
	var hdr []string
	if client != "" {
		hdr = []string{"X-Forwarded-For", client}
	}
	return w.do(ctx, http.MethodGet, r.base+"/api/v1/participant/"+id, "", hdr...)
}

// all is every replica: the fleet's and the other deployment's.
func (w *fleetWorld) all() []*replica { return append(slices.Clip(w.rs), w.other) }

// fleetAttempts is how many times a subtest may measure. An attempt during which a
// replica found Redis slow (an operation over its -redis-timeout of 500 ms: a busy
// machine under -race) does not count, since that replica then rightly served from its
// own state (docs/ARCHITECTURE.md §7); every attempt that counts must pass, and one
// must count. Any other trouble with Redis fails the test (judgeDisturbance).
const fleetAttempts = 2

// redisSnapshot is, per replica of w.all(), how many times it found Redis down so far
// and how long its log was.
type redisSnapshot struct {
	downs []uint64
	logs  []int
}

// snapshot reads every replica's downs (/readyz) and the length of its log.
func (w *fleetWorld) snapshot(t *testing.T) redisSnapshot {
	t.Helper()
	var s redisSnapshot
	for _, r := range w.all() {
		s.logs = append(s.logs, len(r.stderr.String()))
		var downs uint64
		if _, rd := w.readyz(t, r); rd.Redis != nil {
			downs = rd.Redis.Downs
		}
		s.downs = append(s.downs, downs)
	}
	return s
}

// watchCauses polls every replica's /readyz every 100 ms until stop is called, and
// then returns, per replica of w.all(), the causes it showed while Redis was down
// (redis.cause is shown only while down, so a short spell may be missed; the log
// fills in).
func (w *fleetWorld) watchCauses() (stop func() [][]string) {
	all := w.all()
	seen := make([][]string, len(all))
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			for i, r := range all {
				a := w.do(context.Background(), http.MethodGet, r.base+"/readyz", "")
				var rd fleetReady
				if a.err == nil && json.Unmarshal(a.body, &rd) == nil && rd.Redis != nil && !rd.Redis.Up && rd.Redis.Cause != "" {
					seen[i] = append(seen[i], rd.Redis.Cause)
				}
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() [][]string {
		close(done)
		<-finished
		return seen
	}
}

// redisLogLine is one of the fleet's log lines about Redis trouble.
type redisLogLine struct {
	at      time.Time
	cause   string // "" for a refused operation
	refused bool   // "redis refused an operation"
	text    string
}

// redisLogLines reads a replica's log (slog's text format) for the fleet's lines about
// Redis trouble: Redis unavailable (still unavailable) with its cause, and operations
// Redis refused.
func redisLogLines(log string) []redisLogLine {
	var out []redisLogLine
	for l := range strings.Lines(log) {
		var rl redisLogLine
		switch {
		case strings.Contains(l, `msg="redis refused an operation"`):
			rl.refused = true
		case strings.Contains(l, `msg="redis unavailable`), strings.Contains(l, `msg="redis still unavailable`):
			_, after, _ := strings.Cut(l, " cause=")
			rl.cause, _, _ = strings.Cut(after, " ")
		default:
			continue
		}
		if ts, ok := strings.CutPrefix(l, "time="); ok {
			ts, _, _ = strings.Cut(ts, " ")
			rl.at, _ = time.Parse(time.RFC3339Nano, ts)
		}
		rl.text = strings.TrimSpace(l)
		out = append(out, rl)
	}
	return out
}

// judgeDisturbance judges one replica's Redis trouble during an attempt: its log
// before the attempt and during it, the causes /readyz showed while down (seen), and
// whether its downs rose. An attempt is excused (made again) only when the replica
// went down for a timeout; why, when not empty, is a failure of the test: another
// cause, an operation Redis refused, or a down with no cause shown. A timeout repeated
// within a minute is not logged again (docs/ARCHITECTURE.md §7), so a down with no
// cause shown is a timeout when one was logged within the last minute, and nothing
// else was.
func judgeDisturbance(before, during string, seen []string, wentDown bool, now time.Time) (excused bool, why string) {
	causes := slices.Clone(seen)
	for _, l := range redisLogLines(during) {
		if l.refused {
			return false, "Redis refused an operation: " + l.text
		}
		causes = append(causes, l.cause)
	}
	for _, c := range causes {
		if c != "timeout" {
			return false, fmt.Sprintf("a replica found Redis down for %q, not a timeout (causes %v)", c, causes)
		}
	}
	if !wentDown {
		return false, ""
	}
	if len(causes) > 0 {
		return true, ""
	}
	// Not logged again: a cause logged within the last minute (with a margin).
	var recent []string
	for _, l := range redisLogLines(before) {
		if !l.refused && now.Sub(l.at) < time.Minute+5*time.Second && !slices.Contains(recent, l.cause) {
			recent = append(recent, l.cause)
		}
	}
	if slices.Equal(recent, []string{"timeout"}) {
		return true, ""
	}
	return false, fmt.Sprintf("a replica found Redis down, and neither /readyz nor its log showed why (no cause; causes logged within the minute before, so not repeated: %v)", recent)
}

// outcome is what one attempt found wrong, reported only if the attempt counts.
type outcome struct{ errs []string }

func (o *outcome) errorf(format string, args ...any) {
	o.errs = append(o.errs, fmt.Sprintf(format, args...))
}

// retried runs attempt (numbered from 1) until one is not disturbed by a replica
// going local for a Redis timeout, at most most times, and reports that one's
// findings. Any other Redis trouble during an attempt fails the test.
func (w *fleetWorld) retried(t *testing.T, most int, attempt func(o *outcome, n int)) {
	t.Helper()
	for n := 1; n <= most; n++ {
		before := w.snapshot(t)
		stopWatch := w.watchCauses()
		var o outcome
		attempt(&o, n)
		seen := stopWatch()
		after := w.snapshot(t)
		excused, failed := false, false
		for i, r := range w.all() {
			log := r.stderr.String()
			ok, why := judgeDisturbance(log[:before.logs[i]], log[before.logs[i]:], seen[i], after.downs[i] > before.downs[i], time.Now())
			if why != "" {
				t.Errorf("attempt %d, replica %s: %s", n, r.name, why)
				failed = true
			}
			excused = excused || ok
		}
		if failed {
			w.logRedis(t)
			for _, e := range o.errs {
				t.Error(e)
			}
			return
		}
		if excused {
			w.logRedis(t)
			w.waitRedisUp(t)
			t.Logf("attempt %d does not count: a replica found Redis slow (a timeout) and went local during it; it found: %s", n, strings.Join(o.errs, "; "))
			continue
		}
		for _, e := range o.errs {
			t.Error(e)
		}
		return
	}
	t.Errorf("in each of %d attempts a replica found Redis slow and served from its own state; the fleet could not be shown", most)
}

// waitRedisUp waits until every replica uses Redis again (at most 10 s).
func (w *fleetWorld) waitRedisUp(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, r := range w.all() {
		for {
			if _, rd := w.readyz(t, r); rd.Redis != nil && rd.Redis.Up {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %s did not find Redis up again within 10 s", r.name)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// services GETs the participant id's services from r, from loopback. Unlike a
// lookup it does not ask the Directory, so that its time is the SML's and the SMP's
// alone, not a turn of the Directory's budget of 2 requests a second.
func (w *fleetWorld) services(ctx context.Context, r *replica, id string) answer {
	return w.do(ctx, http.MethodGet, r.base+"/api/v1/participant/"+id+"/services", "")
}

// fleetReady is what these tests read of /readyz.
type fleetReady struct {
	Status string `json:"status"`
	Redis  *struct {
		Up     bool   `json:"up"`
		Cause  string `json:"cause"`
		Errors uint64 `json:"errors"`
		Downs  uint64 `json:"downs"`
	} `json:"redis"`
}

// logRedis logs each replica's Redis trouble so far, when it had any: a failing
// subtest may be a replica that found Redis slow (over its -redis-timeout of 500 ms on
// a busy machine) and went local for a second, rather than a fleet feature not working.
func (w *fleetWorld) logRedis(t *testing.T) {
	t.Helper()
	for _, r := range w.all() {
		a := w.do(context.Background(), http.MethodGet, r.base+"/readyz", "")
		var rd fleetReady
		if a.err != nil || json.Unmarshal(a.body, &rd) != nil || rd.Redis == nil {
			t.Logf("replica %s: /readyz %s", r.name, a)
			continue
		}
		if rd.Redis.Errors > 0 || rd.Redis.Downs > 0 || !rd.Redis.Up {
			t.Logf("replica %s had Redis trouble so far: up %v, %d errors, %d times down, last cause %q",
				r.name, rd.Redis.Up, rd.Redis.Errors, rd.Redis.Downs, rd.Redis.Cause)
		}
	}
}

// readyz GETs r's /readyz: its status and what these tests read of it.
func (w *fleetWorld) readyz(t *testing.T, r *replica) (int, fleetReady) {
	t.Helper()
	a := w.do(t.Context(), http.MethodGet, r.base+"/readyz", "")
	var rd fleetReady
	if a.err != nil {
		t.Fatalf("replica %s: /readyz: %v", r.name, a.err)
	}
	if err := json.Unmarshal(a.body, &rd); err != nil {
		t.Fatalf("replica %s: /readyz %s: %v", r.name, a, err)
	}
	return a.status, rd
}

// plainParticipants returns, by SMP host, the participants whose lookup is one clean
// SMP round on that host: in the SML, served by their SMP without redirect or failing
// metadata, with a business card.
func plainParticipants(ds *netsim.Dataset) map[int][]string {
	out := map[int][]string{}
	for _, p := range ds.Participants {
		if !p.InSML || p.SMPNotFound || p.RedirectHost != -1 || p.Card == nil || len(p.Services) == 0 {
			continue
		}
		clean := true
		for _, s := range p.Services {
			clean = clean && s.MetadataStatus == 0
		}
		if clean {
			out[p.SMPHost] = append(out[p.SMPHost], p.ID.String())
		}
	}
	return out
}

// smpDelta is how many ServiceGroup and ServiceMetadata requests all SMP hosts got
// between two snapshots.
func smpDelta(before, after netsim.HitCounts) (sg, sm int64) {
	for i := range after.SMP {
		sg += after.SMP[i].ServiceGroup - before.SMP[i].ServiceGroup
		sm += after.SMP[i].ServiceMetadata - before.SMP[i].ServiceMetadata
	}
	return sg, sm
}

// hostHits is every request SMP host h got.
func hostHits(h netsim.HitCounts, host int) int64 {
	s := h.SMP[host]
	return s.ServiceGroup + s.ServiceMetadata + s.Other
}

// (a) 30 concurrent lookups of one cold participant, spread over three replicas, cost
// its SMP one round: the requests one lookup costs a lone deployment, not three times
// that. The round is measured afterwards on the same participant by the other
// deployment (another -redis-prefix, so to it the participant is still cold), so that
// it is exactly comparable. An attempt during which a replica went local for Redis is
// made again with another participant (fleetAttempts).
func testFleetCoalescing(t *testing.T, w *fleetWorld) {
	w.retried(t, fleetAttempts, func(o *outcome, n int) { coalescingAttempt(t, w, o, n) })
}

// coalescingAttempt is attempt n of (a).
func coalescingAttempt(t *testing.T, w *fleetWorld, o *outcome, attempt int) {
	rs := w.rs
	id := w.fresh(t, 1)[0]

	const n = 30
	start := make(chan struct{})
	answers := make([]answer, n)
	var wg sync.WaitGroup
	before := w.sim.Hits()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			answers[i] = w.lookup(t.Context(), rs[i%len(rs)], id, "")
		}()
	}
	close(start)
	wg.Wait()
	mid := w.sim.Hits()
	sg, sm := smpDelta(before, mid)

	served := map[string]int{}
	for i, a := range answers {
		if a.status != http.StatusOK {
			o.errorf("lookup %d on replica %s: %s", i, rs[i%len(rs)].name, a)
			continue
		}
		served[rs[i%len(rs)].name]++
	}
	if len(served) != len(rs) {
		o.errorf("answers by replica %v; want all three to have answered", served)
	}
	if a := w.lookup(t.Context(), w.other, id, ""); a.status != http.StatusOK {
		o.errorf("the other deployment: lookup of %s: %s", id, a)
		return
	}
	roundSG, roundSM := smpDelta(mid, w.sim.Hits())
	if roundSG < 1 || roundSM < 1 {
		o.errorf("one lookup of %s on the other deployment cost %d ServiceGroup and %d ServiceMetadata requests; want at least one of each: it must not see the fleet's cache (see f), and the harness must read the right counters",
			id, roundSG, roundSM)
		return
	}
	t.Logf("attempt %d: 30 concurrent lookups over 3 replicas: %d ServiceGroup + %d ServiceMetadata requests (NAPTR queries %d); one round of %s on a lone deployment: %d + %d",
		attempt, sg, sm, mid.DNS.ByType["NAPTR"]-before.DNS.ByType["NAPTR"], id, roundSG, roundSM)
	if sg != roundSG || sm != roundSM {
		o.errorf("30 concurrent lookups of cold %s over 3 replicas cost its SMP %d ServiceGroup + %d ServiceMetadata requests (%.1f rounds); want one round (%d + %d)",
			id, sg, sm, float64(sg+sm)/float64(roundSG+roundSM), roundSG, roundSM)
	}
}

// (b) One client at three times its limit, its requests spread round-robin over three
// replicas, is served about its limit once, not once per replica; the rest are 429
// with Retry-After. "About": GCRA serves at most burst + rate × the time the requests
// took to arrive (a token per 1/rate seconds after the burst), plus 2 for rounding at
// both ends; a client served once per replica would get up to three times that. And
// at least burst + rate × the time they were sent over, less 3: a client asking every
// 1/(3 × rate) seconds takes each token soon after it comes back (the last one may
// come back after the last request, and clocks and arrivals jitter), so a limit that
// also charged the refused requests, serving little more than the burst, fails too.
func testFleetClientLimit(t *testing.T, w *fleetWorld) {
	id := w.fresh(t, 1)[0]
	// The participant is cached by every replica first, so that what is measured is
	// the limit, not the upstream; loopback is exempt, so this costs the client nothing.
	for _, r := range w.rs {
		if a := w.lookup(t.Context(), r, id, ""); a.status != http.StatusOK {
			t.Fatalf("replica %s: lookup of %s: %s", r.name, id, a)
		}
	}
	// Each attempt is another client, with a full bucket.
	w.retried(t, fleetAttempts, func(o *outcome, n int) {
		clientLimitAttempt(t, w, o, id, fmt.Sprintf("203.0.113.%d", 1+n), n)
	})
}

// clientLimitAttempt is attempt n of (b), as client.
func clientLimitAttempt(t *testing.T, w *fleetWorld, o *outcome, id, client string, attempt int) {
	rs := w.rs
	const seconds = 2
	n := int(3 * fleetRate * seconds) // three times the limit for 2 s: 30 requests
	interval := time.Second / time.Duration(3*fleetRate)
	answers := make([]answer, n)
	var wg sync.WaitGroup
	begin := time.Now()
	var mu sync.Mutex
	var last time.Time
	var sentLast time.Time
	for i := range n {
		time.Sleep(time.Until(begin.Add(time.Duration(i) * interval)))
		sentLast = time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := w.lookup(t.Context(), rs[i%len(rs)], id, client)
			mu.Lock()
			answers[i] = a
			last = time.Now()
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := last.Sub(begin)
	served, limited := 0, 0
	perReplica := map[string]int{}
	for i, a := range answers {
		if a.header != nil && (a.header.Get("RateLimit") == "" || a.header.Get("RateLimit-Policy") == "") {
			o.errorf("request %d (%d) without the RateLimit and RateLimit-Policy headers: %v", i, a.status, a.header)
		}
		switch a.status {
		case http.StatusOK:
			served++
			perReplica[rs[i%len(rs)].name]++
		case http.StatusTooManyRequests:
			limited++
			// A refused client waits for one token: 1/rate (0.2 s), rounded up to whole
			// seconds; 2 allows for a token that was nearly back.
			if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 || !bytes.Contains(a.body, []byte(`"rate_limited"`)) {
				o.errorf("request %d: 429 with Retry-After %q (want 1 or 2 s) and body %s (want rate_limited)", i, a.header.Get("Retry-After"), a.body)
			}
		default:
			o.errorf("request %d on replica %s: %s", i, rs[i%len(rs)].name, a)
		}
	}
	most := fleetBurst + int(math.Ceil(fleetRate*elapsed.Seconds())) + 2
	least := fleetBurst + int(fleetRate*sentLast.Sub(begin).Seconds()) - 3
	t.Logf("attempt %d: %d requests in %v at 3× the limit over 3 replicas: %d served (%v), %d limited; %d to %d may be served",
		attempt, n, elapsed.Round(time.Millisecond), served, perReplica, limited, least, most)
	if served > most {
		o.errorf("a client at 3× its limit (%g/s, burst %d) over 3 replicas was served %d of %d requests in %v; want at most %d (burst + rate × time + 2): its limit once, not once per replica",
			fleetRate, fleetBurst, served, n, elapsed.Round(time.Millisecond), most)
	}
	if served < least {
		o.errorf("a client at 3× its limit (%g/s, burst %d) over 3 replicas was served %d of %d requests sent over %v; want at least %d (burst + rate × time − 3): its limit, not less",
			fleetRate, fleetBurst, served, n, sentLast.Sub(begin).Round(time.Millisecond), least)
	}
	if limited != n-served {
		o.errorf("%d limited of the %d not served", limited, n-served)
	}
}

// (c) A breaker opened on replica 1 (its SMP host failing) is open on replicas 2 and
// 3 within a second: their services lookups (SML and SMP only, no Directory) on that
// host no longer reach it. Replicas 2 and 3 are asked too few times to open breakers
// of their own (fewer failures than peppolnet.DefaultBreakerFailures), so only a
// shared breaker passes. A breaker stays open for its cool-down, so an attempt a
// replica going local disturbed is made again on the other host kept for it.
func testFleetBreaker(t *testing.T, w *fleetWorld) {
	w.retried(t, len(w.breakerHosts), func(o *outcome, n int) { breakerAttempt(t, w, o, n) })
}

// breakerAttempt is attempt n of (c).
func breakerAttempt(t *testing.T, w *fleetWorld, o *outcome, n int) {
	rs, host, ids := w.rs, w.breakerHosts[n-1], w.breakerIDs[n-1]
	next := 0
	fresh := func() string { next++; return ids[next-1] }
	// The host fails only during this attempt; its breakers stay open for their
	// cool-down, which is why no other test uses it.
	w.sim.SetFault(netsim.SMPHostTarget(host), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	defer w.sim.SetFault(netsim.SMPHostTarget(host), netsim.Fault{})

	// Open it on replica 1: lookups of participants it never saw, until one no longer
	// reaches the host.
	var perLookup int64
	opened := false
	for i := 0; i < 3*peppolnet.DefaultBreakerFailures && !opened; i++ {
		before := w.sim.Hits()
		a := w.services(t.Context(), rs[0], fresh())
		d := hostHits(w.sim.Hits(), host) - hostHits(before, host)
		if a.err != nil || a.status < 400 {
			o.errorf("services lookup %d on replica 1 with its SMP failing: %s; want an error", i, a)
			return
		}
		if d == 0 {
			opened = true
			t.Logf("replica 1's breaker for SMP host %d opened after %d services lookups (%d SMP requests each): %s", host, i, perLookup, a)
		}
		perLookup = max(perLookup, d)
	}
	if !opened {
		o.errorf("replica 1's lookups on SMP host %d still reached it after %d lookups; the breaker never opened", host, 3*peppolnet.DefaultBreakerFailures)
		return
	}
	openedAt := time.Now()

	// Replicas 2 and 3: each probe is one lookup of a participant nobody saw; a probe
	// that reaches the host is a failure their own breaker counts, so there are at most
	// as many probes as keep that count below the threshold.
	probes := max(1, min(4, int((peppolnet.DefaultBreakerFailures-1)/max(perLookup, 1))))
	spacing := time.Second / time.Duration(probes)
	var seen []string
	for p := range probes {
		time.Sleep(time.Until(openedAt.Add(time.Duration(p+1) * spacing)))
		open := true
		for _, r := range rs[1:] {
			before := w.sim.Hits()
			id := fresh()
			a := w.services(t.Context(), r, id)
			d := hostHits(w.sim.Hits(), host) - hostHits(before, host)
			seen = append(seen, fmt.Sprintf("probe %d at %v on %s: %d requests reached the host; answered %s",
				p+1, time.Since(openedAt).Round(time.Millisecond), r.name, d, a))
			if a.err != nil || a.status < 400 {
				o.errorf("services lookup of %s on replica %s with its SMP failing: %s; want an error", id, r.name, a)
			}
			open = open && d == 0
		}
		if open {
			t.Logf("open on replicas 2 and 3: %s", strings.Join(seen, "; "))
			return
		}
	}
	o.errorf("a breaker opened on replica 1 was not open on replicas 2 and 3 within a second (%d probes each): %s",
		probes, strings.Join(seen, "; "))
}

// MCP messages at the protocol revision with sessions (as server/mcp_test.go's).
const (
	fleetMCPVersion     = "2025-06-18"
	fleetMCPInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fleet-e2e","version":"0"}}}`
	fleetMCPInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	fleetMCPList        = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func fleetMCPLookup(id string) string {
	return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup_participant","arguments":{"participantId":"` + id + `"}}}`
}

// mcpPost POSTs one JSON-RPC message to r's /mcp, in session when session is set;
// hdr are more header pairs.
func (w *fleetWorld) mcpPost(ctx context.Context, r *replica, session, body string, hdr ...string) answer {
	h := append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, hdr...)
	if session != "" {
		h = append(h, "Mcp-Session-Id", session, "MCP-Protocol-Version", fleetMCPVersion)
	}
	return w.do(ctx, http.MethodPost, r.base+"/mcp", body, h...)
}

// mcpSession initialises an MCP session on r and returns its id.
func (w *fleetWorld) mcpSession(ctx context.Context, r *replica, hdr ...string) (string, error) {
	a := w.mcpPost(ctx, r, "", fleetMCPInitialize, hdr...)
	id := ""
	if a.header != nil {
		id = a.header.Get("Mcp-Session-Id")
	}
	if a.status != http.StatusOK || id == "" {
		return "", fmt.Errorf("initialize on %s: %s (session %q)", r.name, a, id)
	}
	if a := w.mcpPost(ctx, r, id, fleetMCPInitialized, hdr...); a.status != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized on %s: %s", r.name, a)
	}
	return id, nil
}

// rpcResult is a JSON-RPC answer as these tests read it: the result, or the error.
type rpcResult struct {
	Result *struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// decodeRPC reads a JSON-RPC answer sent as JSON or as one event of an event stream.
func decodeRPC(a answer) (rpcResult, error) {
	var res rpcResult
	if a.err != nil {
		return res, a.err
	}
	body := a.body
	if strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(a.body))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				body = []byte(strings.TrimSpace(data))
			}
		}
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return res, fmt.Errorf("%s: %v", a, err)
	}
	if res.Error != nil || res.Result == nil {
		return res, fmt.Errorf("%s", a)
	}
	return res, nil
}

// (d) An MCP session initialised on replica 1 lists and calls tools on replicas 2 and
// 3 (streamable HTTP POST /mcp with its Mcp-Session-Id). On replica 1 itself it works
// too, which shows the session is sound. An attempt a replica going local disturbed
// is made again with a new session.
func testFleetMCPSession(t *testing.T, w *fleetWorld) {
	w.retried(t, fleetAttempts, func(o *outcome, _ int) { mcpSessionAttempt(t, w, o) })
}

// mcpSessionAttempt is one attempt of (d).
func mcpSessionAttempt(t *testing.T, w *fleetWorld, o *outcome) {
	rs := w.rs
	id := w.fresh(t, 1)[0]
	session, err := w.mcpSession(t.Context(), rs[0])
	if err != nil {
		o.errorf("%v", err)
		return
	}
	for _, r := range rs {
		list, err := decodeRPC(w.mcpPost(t.Context(), r, session, fleetMCPList))
		if err != nil {
			o.errorf("tools/list on replica %s in the session made on replica 1: %v", r.name, err)
			continue
		}
		names := make([]string, 0, len(list.Result.Tools))
		for _, tool := range list.Result.Tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "lookup_participant") {
			o.errorf("tools/list on replica %s: tools %v, want lookup_participant among them", r.name, names)
		}
		call, err := decodeRPC(w.mcpPost(t.Context(), r, session, fleetMCPLookup(id)))
		if err != nil {
			o.errorf("tools/call lookup_participant on replica %s in the session made on replica 1: %v", r.name, err)
			continue
		}
		var part struct {
			ParticipantID string `json:"participantId"`
		}
		if call.Result.IsError || json.Unmarshal(call.Result.StructuredContent, &part) != nil || part.ParticipantID != id {
			o.errorf("tools/call lookup_participant on replica %s: error %v, %s; want %s", r.name, call.Result.IsError, call.Result.StructuredContent, id)
		}
	}
}

// (e) redis-server killed mid-run: a steady mix of lookups, searches and MCP calls over
// every replica is answered throughout, never 5xx; /readyz stays 200 and shows Redis
// down. Each lookup, search and MCP call asks about a participant (or a name) no
// request asked before, so that every step goes through the shared cache (a miss in
// Redis, or a fallback while it is down), not a replica's own copy. Loopback (exempt
// from the limits) gets 200 for every lookup, search and /readyz, and for each MCP
// step (initialize, then tools/call in that session on the same replica: a replica
// serves the sessions it holds while Redis is down; one made on another replica may
// get 404 meanwhile, docs/INTERFACE.md §4.5) a JSON-RPC result that is no error; a
// client named in X-Forwarded-For, which the limits apply to, gets 200 or 429.
// Restarted (empty, same port): every replica finds it again (/readyz up), and a
// fresh client's limit is shared again.
func testFleetRedisDown(t *testing.T, w *fleetWorld) {
	rs := w.rs
	after := w.fresh(t, 1)[0] // for the shared limit after the restart
	// The mix's participants, each asked about once (it stops when they run out).
	pool := w.fresh(t, min(len(w.free), 120))
	var poolMu sync.Mutex
	next := func() (string, bool) {
		poolMu.Lock()
		defer poolMu.Unlock()
		if len(pool) == 0 {
			return "", false
		}
		id := pool[0]
		pool = pool[1:]
		return id, true
	}
	const client = "203.0.113.99"

	// The steady mix: each step one request (or one MCP exchange) to the next replica in
	// turn. problem is what a step found wrong beyond its status.
	type sent struct {
		what, replica string
		a             answer
		problem       string
		start, end    time.Time
	}
	ctx, stopMix := context.WithCancel(t.Context())
	var mu sync.Mutex
	var log []sent
	var wg sync.WaitGroup
	type step func(r *replica, id string) (what string, a answer, problem string)
	steps := []step{
		func(r *replica, id string) (string, answer, string) { return "lookup", w.lookup(ctx, r, id, ""), "" },
		func(r *replica, id string) (string, answer, string) {
			return "client lookup", w.lookup(ctx, r, id, client), ""
		},
		func(r *replica, id string) (string, answer, string) {
			name := w.ds.CardName(id)
			if name == "" {
				name = id
			}
			return "search", w.do(ctx, http.MethodGet, r.base+"/api/v1/search?q="+url.QueryEscape(name), ""), ""
		},
		func(r *replica, id string) (string, answer, string) {
			a := w.mcpPost(ctx, r, "", fleetMCPInitialize)
			session := ""
			if a.header != nil {
				session = a.header.Get("Mcp-Session-Id")
			}
			if a.status != http.StatusOK || session == "" {
				return "mcp initialize", a, "want 200 with an Mcp-Session-Id"
			}
			if a := w.mcpPost(ctx, r, session, fleetMCPInitialized); a.status != http.StatusAccepted {
				return "mcp notifications/initialized", a, "want 202"
			}
			a = w.mcpPost(ctx, r, session, fleetMCPLookup(id))
			call, err := decodeRPC(a)
			if err != nil {
				return "mcp tools/call", a, fmt.Sprintf("in a session made on this replica: %v", err)
			}
			var part struct {
				ParticipantID string `json:"participantId"`
			}
			if call.Result.IsError || json.Unmarshal(call.Result.StructuredContent, &part) != nil || part.ParticipantID != id {
				return "mcp tools/call", a, fmt.Sprintf("isError %v, structuredContent %s; want the participant %s", call.Result.IsError, call.Result.StructuredContent, id)
			}
			return "mcp tools/call", a, ""
		},
		func(r *replica, _ string) (string, answer, string) {
			return "readyz", w.do(ctx, http.MethodGet, r.base+"/readyz", ""), ""
		},
	}
	for worker := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := worker; ctx.Err() == nil; i += 2 {
				r := rs[i%len(rs)]
				id := ""
				if k := i % len(steps); k != len(steps)-1 { // all but /readyz ask about a participant
					var ok bool
					if id, ok = next(); !ok {
						return
					}
				}
				began := time.Now()
				what, a, problem := steps[i%len(steps)](r, id)
				if ctx.Err() != nil && a.err != nil {
					return // stopped mid-request
				}
				mu.Lock()
				log = append(log, sent{what, r.name, a, problem, began, time.Now()})
				mu.Unlock()
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	defer func() { stopMix(); wg.Wait() }()

	// waitRedis polls every replica's /readyz until each shows Redis up (or down), at
	// most 10 s in all, and reports whether all did; every answer must be 200. A replica
	// that does not is an error, and the test goes on, so that the mix is judged all
	// the same.
	waitRedis := func(up bool) bool {
		t.Helper()
		all := true
		deadline := time.Now().Add(10 * time.Second)
		for _, r := range rs {
			for {
				code, rd := w.readyz(t, r)
				if code != http.StatusOK {
					t.Errorf("replica %s: /readyz %d %+v while Redis up=%v is awaited; want 200", r.name, code, rd, up)
				}
				if rd.Redis != nil && rd.Redis.Up == up {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("replica %s: /readyz still shows redis %+v 10 s on; want up=%v", r.name, rd.Redis, up)
					all = false
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		return all
	}
	// kinds are the kinds of step the mix must have sent each replica while Redis was
	// killed (an MCP step counts by its last exchange).
	kinds := []string{"lookup", "client lookup", "search", "mcp tools/call", "readyz"}
	// coveredSince reports, per replica, which kinds of step it answered that were sent
	// after since.
	coveredSince := func(since time.Time) map[string]map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]map[string]int{}
		for _, s := range log {
			if s.start.After(since) {
				if out[s.replica] == nil {
					out[s.replica] = map[string]int{}
				}
				out[s.replica][s.what]++
			}
		}
		return out
	}

	time.Sleep(time.Second) // the mix runs with Redis up
	w.redis.Kill()
	killed := time.Now()
	if waitRedis(false) {
		t.Logf("every replica found Redis down within %v of the kill", time.Since(killed).Round(time.Millisecond))
	}
	// The mix runs with Redis down for at least a second, and until it has sent every
	// kind of step to every replica (at most 30 s).
	downFrom := time.Now()
	for {
		time.Sleep(200 * time.Millisecond)
		cov := coveredSince(killed)
		done := time.Since(downFrom) > time.Second
		for _, r := range rs {
			for _, k := range kinds {
				done = done && cov[r.name][k] > 0
			}
		}
		if done {
			break
		}
		if time.Since(downFrom) > 30*time.Second {
			t.Errorf("30 s after the kill the mix had not sent every kind of step %v to every replica: %v", kinds, cov)
			break
		}
	}
	w.redis.Restart(t)
	restarted := time.Now()
	if waitRedis(true) {
		t.Logf("every replica found Redis back within %v of the restart", time.Since(restarted).Round(time.Millisecond))
	}
	time.Sleep(500 * time.Millisecond) // and runs a little with Redis back
	stopMix()
	wg.Wait()

	counts := map[string]int{}
	whileDown := map[string]int{} // per replica, requests sent and answered while Redis was killed
	for _, s := range log {
		if s.start.After(killed) && s.end.Before(restarted) {
			whileDown[s.replica]++
		}
		key := s.what
		switch {
		case s.a.err != nil:
			t.Errorf("%s on replica %s was not answered: %v", s.what, s.replica, s.a.err)
			key += " unanswered"
		case s.a.status >= 500:
			t.Errorf("%s on replica %s: %s; want no 5xx while Redis is killed", s.what, s.replica, s.a)
		case s.problem != "":
			t.Errorf("%s on replica %s: %s: %s", s.what, s.replica, s.a, s.problem)
		case s.what == "client lookup" && s.a.status != http.StatusOK && s.a.status != http.StatusTooManyRequests:
			t.Errorf("%s on replica %s as %s: %s; want 200 or 429", s.what, s.replica, client, s.a)
		case s.what != "client lookup" && s.a.status != http.StatusOK:
			t.Errorf("%s on replica %s: %s; want 200", s.what, s.replica, s.a)
		}
		counts[fmt.Sprintf("%s %d", key, s.a.status)]++
	}
	t.Logf("the mix over the kill and the restart: %v; while Redis was killed, by replica: %v", counts, whileDown)
	for _, r := range rs {
		if whileDown[r.name] < len(kinds) {
			t.Errorf("the mix sent replica %s %d requests while Redis was killed; want at least %d", r.name, whileDown[r.name], len(kinds))
		}
	}

	// Shared again: a fresh client sending 3× its burst at once over the three replicas
	// is served about its burst once, not once per replica. (Made again with another
	// client if a replica went local meanwhile.) The other deployment's replica, which
	// the mix did not use, may not have probed Redis since the restart: every replica
	// must find it up first, or the attempt sees the kill's "refused" there.
	w.waitRedisUp(t)
	w.retried(t, fleetAttempts, func(o *outcome, attempt int) {
		client := fmt.Sprintf("203.0.113.%d", 49+attempt)
		n := 3 * fleetBurst
		answers := make([]answer, n)
		begin := time.Now()
		var cwg sync.WaitGroup
		for i := range n {
			cwg.Add(1)
			go func() {
				defer cwg.Done()
				answers[i] = w.lookup(t.Context(), rs[i%len(rs)], after, client)
			}()
		}
		cwg.Wait()
		elapsed := time.Since(begin)
		served := 0
		for i, a := range answers {
			switch a.status {
			case http.StatusOK:
				served++
			case http.StatusTooManyRequests:
			default:
				o.errorf("request %d of a fresh client after the restart: %s", i, a)
			}
		}
		if most := fleetBurst + int(math.Ceil(fleetRate*elapsed.Seconds())) + 2; served > most {
			o.errorf("after Redis came back, a fresh client sending %d requests at once over 3 replicas was served %d in %v; want at most %d (burst + rate × time + 2): the limit is not shared again",
				n, served, elapsed.Round(time.Millisecond), most)
		}
	})
}

// (f) Two deployments with different -redis-prefix on one Redis do not see each other:
// a participant cached by A (the fleet) is a miss on B (the other deployment), a
// client limited on A is not limited on B, and an MCP session made on A is unknown to
// B (404, the client starts a new session: the negative of (d)). Within A (replicas 1
// and 2) all three are shared, which shows the test can tell. An attempt a replica going local disturbed is
// made again with another participant and another client.
func testFleetPrefixes(t *testing.T, w *fleetWorld) {
	w.retried(t, fleetAttempts, func(o *outcome, n int) {
		prefixesAttempt(t, w, o, fmt.Sprintf("203.0.113.%d", 10+n))
	})
}

// prefixesAttempt is one attempt of (f), as client.
func prefixesAttempt(t *testing.T, w *fleetWorld, o *outcome, client string) {
	a, b := w.rs[:2], w.other
	id := w.fresh(t, 1)[0]

	// The cache.
	step := func(r *replica) (xcache string, smpRequests int64, ok bool) {
		before := w.sim.Hits()
		ans := w.lookup(t.Context(), r, id, "")
		if ans.status != http.StatusOK {
			o.errorf("lookup of %s on %s: %s", id, r.name, ans)
			return "", 0, false
		}
		sg, sm := smpDelta(before, w.sim.Hits())
		return ans.header.Get("X-Cache"), sg + sm, true
	}
	if xc, d, ok := step(a[0]); !ok || xc != "miss" || d == 0 {
		o.errorf("first lookup on A: X-Cache %q, %d SMP requests; want a miss that asked the SMP", xc, d)
		return
	}
	if xc, d, ok := step(a[1]); ok && (xc != "hit" || d != 0) {
		o.errorf("the participant A's replica 1 cached, on A's replica 2: X-Cache %q, %d SMP requests; want a hit from the shared cache", xc, d)
	}
	if xc, d, ok := step(b); ok && (xc != "miss" || d == 0) {
		o.errorf("the participant A cached, on B: X-Cache %q, %d SMP requests; want a miss that asks the SMP (B must not see A's cache)", xc, d)
	}

	// The limit: a client spends its burst on A's replica 1; on A's replica 2 it is
	// limited (shared), on B it has its whole burst.
	burst := func(r *replica) (served int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range fleetBurst {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ans := w.lookup(t.Context(), r, id, client)
				mu.Lock()
				defer mu.Unlock()
				switch ans.status {
				case http.StatusOK:
					served++
				case http.StatusTooManyRequests:
				default:
					o.errorf("lookup on %s as %s: %s", r.name, client, ans)
				}
			}()
		}
		wg.Wait()
		return served
	}
	begin := time.Now()
	if got := burst(a[0]); got != fleetBurst {
		o.errorf("a fresh client's burst on A's replica 1: %d of %d served; want all", got, fleetBurst)
		return
	}
	gotA2 := burst(a[1])
	elapsedA := time.Since(begin)
	gotB := burst(b)
	if most := int(math.Ceil(fleetRate*elapsedA.Seconds())) + 1; gotA2 > most {
		o.errorf("the client that spent its burst on A's replica 1 was served %d of %d on A's replica 2 %v later; want at most %d (rate × time + 1): A's replicas share the limit",
			gotA2, fleetBurst, elapsedA.Round(time.Millisecond), most)
	}
	if gotB != fleetBurst {
		o.errorf("the client limited on A was served %d of its burst of %d on B; want all: B must not see A's limits", gotB, fleetBurst)
	}

	// The MCP sessions: one made on A's replica 1 lists tools on A's replica 2, and is
	// not found on B.
	session, err := w.mcpSession(t.Context(), a[0])
	if err != nil {
		o.errorf("%v", err)
		return
	}
	if _, err := decodeRPC(w.mcpPost(t.Context(), a[1], session, fleetMCPList)); err != nil {
		o.errorf("tools/list on A's replica 2 in the session made on A's replica 1: %v; want the tools (A's replicas share their sessions)", err)
	}
	if ans := w.mcpPost(t.Context(), b, session, fleetMCPList); ans.status != http.StatusNotFound {
		o.errorf("tools/list on B in the session made on A's replica 1: %s; want 404 (B must not see A's sessions)", ans)
	}
}

// TestFleetDisturbanceJudged: fleetWorld.retried makes an attempt again only when the
// replica that went local did so for a timeout (Redis slow on a busy machine, which
// -redis-timeout 500ms makes rare); any other cause, or Redis refusing an operation,
// is a failure of the test, not an excuse.
func TestFleetDisturbanceJudged(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	line := func(at time.Time, msg, cause string) string {
		return fmt.Sprintf("time=%s level=WARN msg=%q redis=redis://127.0.0.1:1/0 cause=%s err=\"x\"\n", at.Format(time.RFC3339Nano), msg, cause)
	}
	unavailable := "redis unavailable: serving from this replica's own state until it answers again"
	still := "redis still unavailable: serving from this replica's own state"
	refused := "time=2026-11-27T10:00:00Z level=WARN msg=\"redis refused an operation\" op=\"cache get\" err=\"WRONGTYPE\"\n"
	for _, tt := range []struct {
		name      string
		before    string // the replica's log before the attempt
		during    string // its log during the attempt
		seen      []string
		wentDown  bool
		excused   bool
		wantInWhy string
	}{
		{"undisturbed", "", "", nil, false, false, ""},
		{"a timeout in the log", "", line(now, unavailable, "timeout"), nil, true, true, ""},
		{"a timeout in /readyz", "", "", []string{"timeout"}, true, true, ""},
		{"refused in the log", "", line(now, unavailable, "refused"), nil, true, false, "refused"},
		{"a timeout then refused", "", line(now, unavailable, "timeout") + line(now, still, "refused"), nil, true, false, "refused"},
		{"oom in /readyz", "", "", []string{"oom"}, true, false, "oom"},
		{"an operation refused", "", refused, nil, false, false, "refused an operation"},
		{"an operation refused while a timeout", "", line(now, unavailable, "timeout") + refused, nil, true, false, "refused an operation"},
		{"no cause, a timeout logged a minute ago is not repeated", line(now.Add(-30*time.Second), unavailable, "timeout"), "", nil, true, true, ""},
		{"no cause, nothing logged before", "", "", nil, true, false, "no cause"},
		{"no cause, only refused logged before", line(now.Add(-30*time.Second), unavailable, "refused"), "", nil, true, false, "no cause"},
		{"no cause, a timeout logged long ago", line(now.Add(-5*time.Minute), unavailable, "timeout"), "", nil, true, false, "no cause"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			excused, why := judgeDisturbance(tt.before, tt.during, tt.seen, tt.wentDown, now)
			if excused != tt.excused || (tt.wantInWhy != "" && !strings.Contains(why, tt.wantInWhy)) || (tt.wantInWhy == "" && why != "") {
				t.Errorf("judgeDisturbance = %v, %q; want %v and %q in why", excused, why, tt.excused, tt.wantInWhy)
			}
		})
	}
}
