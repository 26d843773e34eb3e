package main

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// phase is a part of a run, by the time its requests were sent (offsets from the
// start of the run).
type phase struct {
	name     string
	from, to time.Duration
}

// bucket collects the outcomes of one kind in one phase.
type bucket struct {
	lat []time.Duration
	// classes counts answers by status class: index status/100; 0 counts transport
	// failures (no status).
	classes [6]int
	// codes counts what was not a plain success: "502 lookup_failed", "stream
	// ask_failed", "transport: timeout".
	codes    map[string]int
	cache    map[string]int
	degraded int
}

func (b *bucket) n() int { return len(b.lat) }

// add adds o's latencies and counts to b, whose maps must be made.
func (b *bucket) add(o *bucket) {
	b.lat = append(b.lat, o.lat...)
	for c := range b.classes {
		b.classes[c] += o.classes[c]
	}
	for c, n := range o.codes {
		b.codes[c] += n
	}
	for c, n := range o.cache {
		b.cache[c] += n
	}
	b.degraded += o.degraded
}

// failure is a request that counts against the "zero unexplained 5xx" rule: a 5xx, an
// event stream whose complete event carries an error, or a transport failure.
type failure struct {
	kind       kind
	id         string // the participant of a lookup
	sent, done time.Duration
	status     int
	code       string
	transport  string
}

// recorder collects every outcome of a run. It is safe for concurrent use.
type recorder struct {
	phases []phase
	done   atomic.Int64
	failed atomic.Int64

	mu       sync.Mutex
	buckets  [][numKinds]bucket // per phase
	failures []failure
	samples  []sample // every request, for the timeline
}

// sample is one request's send offset and latency, for the timeline.
type sample struct {
	sent, lat time.Duration
	failed    bool
}

// newRecorder returns a recorder for phases, sized for about expect requests.
func newRecorder(phases []phase, expect int) *recorder {
	r := &recorder{phases: phases, buckets: make([][numKinds]bucket, len(phases)), samples: make([]sample, 0, expect+16)}
	total := time.Duration(0)
	for _, p := range phases {
		total += p.to - p.from
	}
	sp := specs()
	for i, p := range phases {
		for k := range numKinds {
			n := int(float64(expect) * float64(sp[k].perMille) / 1000 * float64(p.to-p.from) / float64(max(total, 1)))
			r.buckets[i][k] = bucket{lat: make([]time.Duration, 0, n+16), codes: map[string]int{}, cache: map[string]int{}}
		}
	}
	return r
}

// phaseOf returns the index of the phase an offset falls in (the last one for offsets
// past the end).
func (r *recorder) phaseOf(t time.Duration) int {
	for i, p := range r.phases {
		if t < p.to {
			return i
		}
	}
	return len(r.phases) - 1
}

// add records rq, sent at offset sent, and its outcome.
func (r *recorder) add(rq request, sent time.Duration, o outcome) {
	f := o.transport != "" || o.status >= 500 || (o.code != "" && o.status < 400)
	r.done.Add(1)
	if f {
		r.failed.Add(1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, sample{sent: sent, lat: o.latency, failed: f})
	b := &r.buckets[r.phaseOf(sent)][rq.kind]
	b.lat = append(b.lat, o.latency)
	b.classes[min(o.status/100, 5)]++
	switch {
	case o.transport != "":
		b.codes["transport: "+o.transport]++
	case o.status >= 300:
		b.codes[fmt.Sprintf("%d %s", o.status, o.code)]++
	case o.code != "":
		b.codes["stream "+o.code]++
	}
	if o.cache != "" {
		b.cache[o.cache]++
	}
	if o.degraded {
		b.degraded++
	}
	if f {
		r.failures = append(r.failures, failure{kind: rq.kind, id: rq.id, sent: sent, done: sent + o.latency,
			status: o.status, code: o.code, transport: o.transport})
	}
}

// merged returns the buckets of phases from..to-1 merged per kind.
func (r *recorder) merged(from, to int) [numKinds]bucket {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [numKinds]bucket
	for k := range numKinds {
		m := bucket{codes: map[string]int{}, cache: map[string]int{}}
		for i := from; i < to; i++ {
			m.add(&r.buckets[i][k])
		}
		slices.Sort(m.lat)
		out[k] = m
	}
	return out
}

// percentile returns the p-th percentile (0 < p ≤ 1) of sorted, nearest rank; 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// Nearest rank: the ceil(n·p)-th value; the epsilon keeps 0.99·1000 at 990.
	i := int(math.Ceil(float64(len(sorted))*p-1e-9)) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// timeSlice is one row of the timeline.
type timeSlice struct {
	from, to      time.Duration
	n, failed     int
	p50, p99, max time.Duration
}

// timeline returns the requests in slices of step by send time, up to d.
func (r *recorder) timeline(step, d time.Duration) []timeSlice {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []timeSlice
	lats := make([][]time.Duration, 0, int(d/step)+1)
	for from := time.Duration(0); from < d; from += step {
		out = append(out, timeSlice{from: from, to: min(from+step, d)})
		lats = append(lats, nil)
	}
	for _, s := range r.samples {
		i := min(int(s.sent/step), len(out)-1)
		lats[i] = append(lats[i], s.lat)
		if s.failed {
			out[i].failed++
		}
	}
	for i := range out {
		slices.Sort(lats[i])
		out[i].n = len(lats[i])
		out[i].p50, out[i].p99 = percentile(lats[i], 0.5), percentile(lats[i], 0.99)
		if n := len(lats[i]); n > 0 {
			out[i].max = lats[i][n-1]
		}
	}
	return out
}
