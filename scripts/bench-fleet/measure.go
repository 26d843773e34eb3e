package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// bench is what every phase shares: one Redis, one simulated network, one client.
type bench struct {
	o      options
	redis  *redisServer
	nets   []stack.Network
	sim    *netsim.Network
	pop    population
	client *http.Client
	log    *slog.Logger
	logw   io.Writer
	sent   *sentCounter // what every replica (and the bare Redis measurements) sent
}

func (b *bench) replicaConfig(withRedis bool) replicaConfig {
	cfg := replicaConfig{nets: b.nets, prefix: b.o.prefix, limits: b.o.limits, log: b.log, hook: b.sent}
	if withRedis {
		cfg.redisURL = b.redis.url(0)
	}
	return cfg
}

// fresh starts n replicas on an emptied Redis with the network's counters at zero.
func (b *bench) fresh(ctx context.Context, n int, withRedis bool) ([]*replica, error) {
	if err := b.redis.flush(ctx); err != nil {
		return nil, err
	}
	reps, err := startReplicas(n, b.replicaConfig(withRedis))
	if err != nil {
		return nil, err
	}
	b.sim.ResetHits()
	return reps, nil
}

// counted runs fn and returns what the replicas reps sent to Redis and how often
// their fleets found it down, what Redis counted and what the network served
// meanwhile.
func (b *bench) counted(ctx context.Context, reps []*replica, fn func()) (redisInfo, netsim.HitCounts, error) {
	before, reply, err := b.redis.info(ctx)
	if err != nil {
		return redisInfo{}, netsim.HitCounts{}, err
	}
	h0, f0 := b.sim.Hits(), fleetTrouble(reps)
	s0, t0 := b.sent.snapshot()
	fn()
	after, _, err := b.redis.info(ctx)
	if err != nil {
		return redisInfo{}, netsim.HitCounts{}, err
	}
	d := after.sub(before, reply)
	s1, t1 := b.sent.snapshot()
	d.sent, d.trips = s1.sub(s0), t1-t0
	d.trouble = fleetTrouble(reps).sub(f0)
	return d, subHits(b.sim.Hits(), h0), nil
}

// trouble is what replicas' fleets counted of Redis failing them (fleet.Status):
// operations that failed (each marks Redis down, over 50 ms included), operations
// not tried while it was down (answered from the replica's own state), and times it
// was marked down.
type trouble struct{ errors, skipped, downs uint64 }

func fleetTrouble(reps []*replica) trouble {
	var t trouble
	for _, r := range reps {
		st := r.fleet.Status() // a nil fleet's is zero
		t.errors += st.Errors
		t.skipped += st.Skipped
		t.downs += st.Downs
	}
	return t
}

func (t trouble) sub(o trouble) trouble {
	return trouble{errors: t.errors - o.errors, skipped: t.skipped - o.skipped, downs: t.downs - o.downs}
}

// String says how often Redis failed the replicas: "none", or e.g. "2 downs · 2
// failed · 37 skipped".
func (t trouble) String() string {
	if t == (trouble{}) {
		return "none"
	}
	return fmt.Sprintf("%d downs · %d failed · %d skipped", t.downs, t.errors, t.skipped)
}

// upstream is a phase's requests to the simulated network, by kind.
type upstream struct{ dns, smp, dir, ocsp int64 }

func (u upstream) total() int64 { return u.dns + u.smp + u.dir + u.ocsp }

func subHits(after, before netsim.HitCounts) netsim.HitCounts {
	d := after
	d.DNS.UDP -= before.DNS.UDP
	d.DNS.TCP -= before.DNS.TCP
	d.Directory.Search -= before.Directory.Search
	d.Directory.Other -= before.Directory.Other
	d.OCSP -= before.OCSP
	d.SMP = make([]netsim.SMPHits, len(after.SMP))
	for i, s := range after.SMP {
		d.SMP[i] = s
		if i < len(before.SMP) {
			d.SMP[i].ServiceGroup -= before.SMP[i].ServiceGroup
			d.SMP[i].ServiceMetadata -= before.SMP[i].ServiceMetadata
			d.SMP[i].Other -= before.SMP[i].Other
		}
	}
	return d
}

func upstreamOf(h netsim.HitCounts) upstream {
	u := upstream{dns: h.DNS.Total(), dir: h.Directory.Search + h.Directory.Other, ocsp: h.OCSP}
	for _, s := range h.SMP {
		u.smp += s.ServiceGroup + s.ServiceMetadata + s.Other
	}
	return u
}

// mixRow is one configuration of the mix.
type mixRow struct {
	replicas int
	redis    bool
	d        *driveResult
	up       upstream
	ri       redisInfo
}

// runMix sends the mix to n replicas (with Redis or not), round robin.
func (b *bench) runMix(ctx context.Context, n int, withRedis bool, reqs []request) (mixRow, error) {
	row := mixRow{replicas: n, redis: withRedis}
	reps, err := b.fresh(ctx, n, withRedis)
	if err != nil {
		return row, err
	}
	defer closeReplicas(reps)
	ri, h, err := b.counted(ctx, reps, func() { row.d = drive(ctx, b.client, reps, roundRobin(reqs, n), b.o.concurrency) })
	row.ri, row.up = ri, upstreamOf(h)
	return row, err
}

// kindRow is one kind of request asked alone, for the capacity model.
type kindRow struct {
	name, what string
	d          *driveResult
	up         upstream
	ri         redisInfo
}

// hitRow is the latency of one way of answering from a cache, or of one Redis
// operation.
type hitRow struct {
	name, what string
	lat        latencies
	bytes      int // mean size of the value, when it is one
	problems   int
	// ri is what was sent to Redis and what it counted meanwhile, for a bare Redis
	// operation; ops is the number of operations (0 for an HTTP row).
	ri  redisInfo
	ops int
}

// runKinds asks each kind of request alone on -replicas-max replicas with Redis, and
// measures the cache hits' latency on the same replicas.
func (b *bench) runKinds(ctx context.Context) ([]kindRow, []hitRow, error) {
	n := b.o.maxReplicas()
	reps, err := b.fresh(ctx, n, true)
	if err != nil {
		return nil, nil, err
	}
	defer closeReplicas(reps)
	k := min(b.o.kindRequests, len(b.pop.ids)/2, len(b.pop.queries))
	// The least popular items of the mix: the mix's phases are over, and the replicas
	// are new anyway.
	ids := b.pop.ids[len(b.pop.ids)-k:]
	svcIDs := b.pop.ids[len(b.pop.ids)-2*k : len(b.pop.ids)-k]
	queries := b.pop.queries[len(b.pop.queries)-k:]
	on := func(shift int, reqs []request) []job {
		out := make([]job, len(reqs))
		for i, r := range reqs {
			out[i] = job{replica: (i + shift) % n, req: r}
		}
		return out
	}
	var lookups, services, searches []request
	for i := range k {
		lookups = append(lookups, lookupRequest(ids[i]))
		s := lookupRequest(svcIDs[i])
		s.kind, s.path = kindServices, s.path+"/services"
		services = append(services, s)
		searches = append(searches, searchRequest(queries[i]))
	}
	steps := []struct {
		name, what string
		jobs       []job
	}{
		{"lookup, cold", "GET /api/v1/participant/{id}, each id for the first time in the fleet", on(0, lookups)},
		{"lookup, in-process hit", "the same ids again, each on the replica that looked it up", on(0, lookups)},
		{"lookup, other replica", fmt.Sprintf("the same ids again, each on the next replica (its in-process cache has not seen it; %s)", sharedNote(n)), on(1, lookups)},
		{"services, cold", "GET /api/v1/participant/{id}/services of other ids, each for the first time in the fleet", on(0, services)},
		{"services, in-process hit", "the same again, on the same replica", on(0, services)},
		{"search, cold", "GET /api/v1/search?q={name}, each query for the first time in the fleet", on(0, searches)},
		{"search, in-process hit", "the same queries again, on the same replica", on(0, searches)},
		{"MCP tools/call", "lookup_participant of the ids looked up above (an in-process hit), in one MCP session initialised on replica 1, round robin over the replicas (the session is valid on all once sessions are shared)", nil},
	}
	session, err := mcpSession(ctx, b.client, reps[0].base)
	if err != nil {
		return nil, nil, err
	}
	var calls []request
	for i, id := range ids {
		calls = append(calls, mcpLookup(id, session, i))
	}
	steps[len(steps)-1].jobs = on(0, calls)
	var rows []kindRow
	for _, s := range steps {
		row := kindRow{name: s.name, what: s.what}
		ri, h, err := b.counted(ctx, reps, func() { row.d = drive(ctx, b.client, reps, s.jobs, b.o.concurrency) })
		if err != nil {
			return rows, nil, err
		}
		row.ri, row.up = ri, upstreamOf(h)
		rows = append(rows, row)
		fmt.Fprintf(b.logw, "bench-fleet: %s: %d requests, %d Redis commands, %d upstream requests\n", s.name, row.d.requests, row.ri.sent.total(), row.up.total())
	}
	hits, err := b.hitLatency(ctx, reps, ids, on)
	return rows, hits, err
}

func sharedNote(n int) string {
	if n < 2 {
		return "with one replica it is the same one"
	}
	return "answered from Redis once the shared cache is in"
}

// hitLatency measures, one request at a time, a cached lookup answered from the
// replica's own cache, one answered by a replica that has not seen the id, and a bare
// Redis GET and decode of a participant.
func (b *bench) hitLatency(ctx context.Context, reps []*replica, ids []string, on func(int, []request) []job) ([]hitRow, error) {
	n := len(reps)
	var lookups []request
	for _, id := range ids {
		lookups = append(lookups, lookupRequest(id))
	}
	var l1Jobs []job
	for len(l1Jobs) < b.o.hitSamples {
		l1Jobs = append(l1Jobs, on(0, lookups)...)
	}
	l1 := drive(ctx, b.client, reps, l1Jobs[:b.o.hitSamples], 1)
	rows := []hitRow{{name: "HTTP GET, in-process hit", what: "GET /api/v1/participant/{id} on the replica that looked it up (its in-process cache answers), one request at a time",
		lat: l1.lat, problems: l1.serverErrors() + l1.statuses[404]}}
	if n > 1 {
		other := drive(ctx, b.client, reps, on(2, lookups), 1)
		rows = append(rows, hitRow{name: "HTTP GET, other replica", what: fmt.Sprintf("GET /api/v1/participant/{id} on a replica that has not asked for it (the fleet has: its in-process cache misses; %s), one request at a time, each id once", sharedNote(n)),
			lat: other.lat, problems: other.serverErrors() + other.statuses[404]})
	}
	row, err := b.redisGetLatency(ctx, reps[0], ids)
	if err != nil {
		return rows, err
	}
	rows = append(rows, row)
	row, err = b.allowLatency(ctx)
	if err != nil {
		return rows, err
	}
	return append(rows, row), nil
}

// allowLatency measures fleet.Allow, the shared GCRA limit a rate-limited request
// asks, one call at a time, over 1,000 clients' keys.
func (b *bench) allowLatency(ctx context.Context) (hitRow, error) {
	row := hitRow{name: "Redis rate limit (fleet.Allow)", what: "one GCRA decision on Redis's clock (EVALSHA of fleet/gcra.go's script) for one of 1,000 clients, through fleet.Do, one at a time: what each rate-limited request adds with Redis"}
	f, err := fleet.Open(fleet.Options{URL: b.redis.url(0), Prefix: b.o.prefix, Logger: b.log})
	if err != nil {
		return row, err
	}
	defer f.Close()
	f.Client().AddHook(b.sent)
	var keys []string
	for i := range 1000 {
		keys = append(keys, f.Key("rl", "rest", fleet.Hash(fmt.Sprintf("192.0.2.%d/%d", i%256, i))))
	}
	// The first call loads the script (EVALSHA answers NOSCRIPT, then EVAL): not timed.
	if _, err := f.Allow(ctx, keys[0], 1e6, 1e6, 1); err != nil {
		return row, err
	}
	row.ri, _, err = b.counted(ctx, nil, func() {
		for i := range b.o.hitSamples {
			start := time.Now()
			_, err := f.Allow(ctx, keys[i%len(keys)], 1e6, 1e6, 1)
			row.lat.add(time.Since(start))
			if err != nil {
				row.problems++
			}
		}
	})
	row.ops = b.o.hitSamples
	return row, err
}

// redisGetLatency stores the cached participants of ids as JSON in Redis and then
// measures GET + json.Unmarshal into a registry.Participant through fleet.Do (the
// deadline and health checks every shared operation goes through), one at a time.
func (b *bench) redisGetLatency(ctx context.Context, r *replica, ids []string) (hitRow, error) {
	row := hitRow{name: "Redis GET + decode", what: "GET of a registry.Participant stored as JSON, and json.Unmarshal, through fleet.Do on a replica's own connection, one at a time (the part a lookup answered from the shared cache adds to an in-process hit)"}
	f, err := fleet.Open(fleet.Options{URL: b.redis.url(0), Prefix: b.o.prefix, Logger: b.log})
	if err != nil {
		return row, err
	}
	defer f.Close()
	f.Client().AddHook(b.sent)
	var keys []string
	total := 0
	for _, s := range ids {
		id, err := peppol.ParseParticipantID(s)
		if err != nil {
			return row, err
		}
		p, _, err := r.st.Networks.Lookup(ctx, id)
		if err != nil {
			return row, fmt.Errorf("looking up %s for the Redis GET: %w", s, err)
		}
		v, err := json.Marshal(p)
		if err != nil {
			return row, err
		}
		key := f.Key("bench", fleet.Hash(s))
		if err := b.redis.admin.Set(ctx, key, v, time.Hour).Err(); err != nil {
			return row, err
		}
		keys = append(keys, key)
		total += len(v)
	}
	row.bytes = total / max(1, len(keys))
	row.ri, _, err = b.counted(ctx, nil, func() {
		for i := range b.o.hitSamples {
			start := time.Now()
			err := f.Do(ctx, "bench get", func(ctx context.Context, c *redis.Client) error {
				v, err := c.Get(ctx, keys[i%len(keys)]).Bytes()
				if err != nil {
					return err
				}
				var p registry.Participant
				return json.Unmarshal(v, &p)
			})
			row.lat.add(time.Since(start))
			if err != nil {
				row.problems++
			}
		}
	})
	row.ops = b.o.hitSamples
	return row, err
}

// tputRow is the closed-loop rate of cached lookups of one configuration.
type tputRow struct {
	replicas int
	redis    bool
	hot      int
	d        *driveResult
	ri       redisInfo
}

// runThroughput warms -hot popular ids on every replica, then sends cached lookups of
// them round robin as fast as -throughput-concurrency clients can for -duration.
func (b *bench) runThroughput(ctx context.Context, n int, withRedis bool) (tputRow, error) {
	row := tputRow{replicas: n, redis: withRedis}
	reps, err := b.fresh(ctx, n, withRedis)
	if err != nil {
		return row, err
	}
	defer closeReplicas(reps)
	hot := b.pop.ids[:min(b.o.hot, len(b.pop.ids))]
	row.hot = len(hot)
	var warm []job
	for _, id := range hot {
		for r := range n {
			warm = append(warm, job{replica: r, req: lookupRequest(id)})
		}
	}
	if w := drive(ctx, b.client, reps, warm, b.o.concurrency); w.serverErrors() > 0 {
		return row, fmt.Errorf("warming %d ids: %d failed (%v)", len(hot), w.serverErrors(), w.failures)
	}
	var reqs []request
	for _, id := range hot {
		reqs = append(reqs, lookupRequest(id))
	}
	ri, _, err := b.counted(ctx, reps, func() {
		row.d = closedLoop(ctx, b.client, reps, roundRobin(reqs, n), b.o.tputConcurrency, b.o.duration)
	})
	row.ri = ri
	return row, err
}
