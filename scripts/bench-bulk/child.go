package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// childResult is what one child run measured, printed as JSON.
type childResult struct {
	Rows         int     `json:"rows"`
	Distinct     int     `json:"distinct"`
	Concurrency  int     `json:"concurrency"`
	Order        string  `json:"order"`
	Hosts        int     `json:"hosts"`
	HostCap      int     `json:"hostCap"`
	CacheEntries int     `json:"cacheEntries"`
	DNSLatency   string  `json:"dnsLatency"`
	SMPLatency   string  `json:"smpLatency"`
	Directory    string  `json:"directory"`
	DirRate      float64 `json:"directoryRate,omitempty"`
	Participants int     `json:"participants"`
	MirrorCards  int64   `json:"mirrorCards,omitempty"`
	GOGC         int     `json:"gogc"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	SetupSeconds float64 `json:"setupSeconds"`

	// NominalBound is hosts × cap ÷ (2 × SMP latency): the cold rows/s the per-host caps
	// allow when every row costs two requests and the rows are spread evenly.
	NominalBound float64 `json:"nominalBound"`
	// Bound is the cold pass's rows ÷ (its busiest host's SMP requests × SMP latency ÷
	// cap), lowered to the Directory rate with -directory live.
	Bound  float64    `json:"bound"`
	Cold   passResult `json:"cold"`
	Cached passResult `json:"cached"`

	// Peak RSS in KB: after the setup (dataset, netsim, mirror, stack), after the cold
	// pass, and during the cached pass alone (the peak reset before it, at
	// CachedStartKB; -1 when the kernel does not let it be reset).
	SetupHWMKB  int64 `json:"setupHWMKB"`
	ColdHWMKB   int64 `json:"coldHWMKB"`
	CachedHWMKB int64 `json:"cachedHWMKB"`
	HWMReset    bool  `json:"hwmReset"`
	// LiveHeapKB is the Go heap in use after the cold pass and a collection: mostly the
	// registry's cache of the distinct participants.
	LiveHeapKB int64 `json:"liveHeapKB"`
	// LiveHeapEndKB is the Go heap in use after the cached pass and a collection: more
	// than LiveHeapKB only if the engine keeps something per row.
	LiveHeapEndKB int64 `json:"liveHeapEndKB"`
	// CachedStartKB is the RSS the cached pass starts from, once the cold pass's
	// garbage has been collected and returned to the system.
	CachedStartKB int64 `json:"cachedStartKB"`
	// MaxRSSKB is the child's peak RSS from its rusage, filled in by the parent.
	MaxRSSKB int64 `json:"maxRSSKB"`

	Problems []string `json:"problems,omitempty"`
}

// passResult is one pass over the rows.
type passResult struct {
	Rows       int                 `json:"rows"`
	Seconds    float64             `json:"seconds"`
	RowsPerSec float64             `json:"rowsPerSec"`
	CPUSeconds float64             `json:"cpuSeconds"`
	Statuses   map[bulk.Status]int `json:"statuses"`
	P50MS      float64             `json:"p50ms"`
	P95MS      float64             `json:"p95ms"`
	P99MS      float64             `json:"p99ms"`
	Unmeasured int                 `json:"unmeasured,omitempty"`
	// OtherCores is the CPU other processes on the machine used during the pass.
	OtherCores float64 `json:"otherCores"`

	CacheHit   int64            `json:"cacheHit"`
	CacheMiss  int64            `json:"cacheMiss"`
	CacheStale int64            `json:"cacheStale"`
	Upstream   map[string]int64 `json:"upstream,omitempty"`

	// What netsim served during the pass.
	SMPRequests    []int64 `json:"smpRequests"`
	SMPMaxInFlight []int64 `json:"smpMaxInFlight"`
	DNSQueries     int64   `json:"dnsQueries"`
	OCSPRequests   int64   `json:"ocspRequests"`
	DirRequests    int64   `json:"directoryRequests"`

	// Rows of each host in the engine, sampled every 10 ms: mean, share of samples
	// under the host cap, most.
	HostRowsMean  []float64 `json:"hostRowsMean"`
	HostRowsUnder []float64 `json:"hostRowsUnder"`
	HostRowsMax   []int64   `json:"hostRowsMax"`
	// SMPInFlightMean is the mean requests each SMP host was answering, sampled with
	// the rows: its slots' use is this ÷ the host cap.
	SMPInFlightMean []float64 `json:"smpInFlightMean"`
}

func writeResult(w io.Writer, r childResult) error {
	return json.NewEncoder(w).Encode(r)
}

// runChild runs one size in this process.
func runChild(ctx context.Context, o options, logw io.Writer) (childResult, error) {
	// As the peppolgate command does (the CLI's `check` included).
	stack.SetGC()
	res := childResult{Rows: o.rows, Distinct: o.distinct, Concurrency: o.concurrency, Order: o.order,
		Hosts: o.hosts, HostCap: peppolnet.BulkShare(peppolnet.DefaultSMPHostConcurrency), CacheEntries: peppolnet.DefaultMaxCacheEntries,
		DNSLatency: o.dnsLatency.String(), SMPLatency: o.smpLatency.String(), Directory: o.directory,
		GOMAXPROCS: runtime.GOMAXPROCS(0)}
	res.GOGC = debug.SetGCPercent(-1)
	debug.SetGCPercent(res.GOGC)
	if o.directory == directoryLive {
		res.DirRate = o.dirRate
		if res.DirRate == 0 {
			res.DirRate = registry.DefaultDirectoryRate
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	start := time.Now()

	ds, picks, err := generate(o.seed, o.hosts, o.distinct)
	if err != nil {
		return res, err
	}
	res.Participants = len(ds.Participants)
	order := arrange(picks, o.order, o.seed, o.hosts)
	n, err := netsim.Start(ctx, ds, netsim.Config{})
	if err != nil {
		return res, err
	}
	defer n.Close()

	cfg := stack.Config{
		Networks: []stack.Network{{Sim: n}},
		// The registry reads validity dates at the dataset's instant, moving on at the
		// real pace (as internal/livenet does), so the answers are the same any day.
		Now:      func() time.Time { return ds.Now.Add(time.Since(start)) },
		Observer: &observer{},
	}
	if o.directory == directoryMirror {
		dir, err := os.MkdirTemp("", "bench-bulk-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(dir)
		cfg.MirrorPath = filepath.Join(dir, "mirror.db")
		if res.MirrorCards, err = livenet.ImportExport(ctx, n, cfg.MirrorPath); err != nil {
			return res, err
		}
	} else {
		cfg.Networks[0].DirectoryRate = res.DirRate
		cfg.Networks[0].DirectoryBurst = max(1, int(math.Ceil(res.DirRate)))
	}
	st, err := stack.Build(cfg)
	if err != nil {
		return res, err
	}
	defer st.Close()
	obs := cfg.Observer.(*observer)

	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: o.dnsLatency})
	for h := range ds.SMPHosts {
		n.SetFault(netsim.SMPHostTarget(h), netsim.Fault{Latency: o.smpLatency})
	}
	if o.directory == directoryLive && o.dirLatency > 0 {
		n.SetFault(netsim.DirectoryTarget(), netsim.Fault{Latency: o.dirLatency})
	}
	res.SetupSeconds = time.Since(start).Seconds()
	if res.SetupHWMKB, err = statusKB("VmHWM"); err != nil {
		return res, err
	}
	fmt.Fprintf(logw, "bench-bulk: set up in %.1f s: %d participants, %d distinct rows, %d mirror cards\n", res.SetupSeconds, res.Participants, len(order), res.MirrorCards)

	bcfg := bulk.Config{Registry: st.Default(), Concurrency: o.concurrency}
	res.NominalBound = float64(o.hosts*res.HostCap) / (2 * o.smpLatency.Seconds())

	n.ResetHits()
	obs.take()
	if res.Cold, err = runPass(ctx, bcfg, n, order, len(order), res.HostCap); err != nil {
		return res, fmt.Errorf("cold pass: %w", err)
	}
	fillPass(&res.Cold, n, obs)
	res.Bound = bound(res.Cold, o.smpLatency, res.HostCap)
	if o.directory == directoryLive {
		res.Bound = min(res.Bound, res.DirRate)
	}
	fmt.Fprintf(logw, "bench-bulk: cold: %d rows in %.1f s, %.0f rows/s (bound %.0f: %.0f %%)\n", res.Cold.Rows, res.Cold.Seconds, res.Cold.RowsPerSec, res.Bound, 100*res.Cold.RowsPerSec/res.Bound)
	if res.ColdHWMKB, err = statusKB("VmHWM"); err != nil {
		return res, err
	}
	// The cached pass starts from the live heap, its garbage returned to the system, so
	// that its own peak shows what it needs rather than what the cold pass left.
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.LiveHeapKB = int64(ms.HeapAlloc / 1024)
	if o.memProfile != "" {
		if err := writeHeapProfile(o.memProfile); err != nil {
			return res, err
		}
	}
	if res.CachedStartKB, err = statusKB("VmRSS"); err != nil {
		return res, err
	}
	res.HWMReset = resetPeakRSS() == nil

	n.ResetHits()
	obs.take()
	if res.Cached, err = runPass(ctx, bcfg, n, order, o.rows, res.HostCap); err != nil {
		return res, fmt.Errorf("cached pass: %w", err)
	}
	fillPass(&res.Cached, n, obs)
	fmt.Fprintf(logw, "bench-bulk: cached: %d rows in %.1f s, %.0f rows/s\n", res.Cached.Rows, res.Cached.Seconds, res.Cached.RowsPerSec)
	if res.CachedHWMKB, err = statusKB("VmHWM"); err != nil {
		return res, err
	}
	if !res.HWMReset {
		res.CachedHWMKB = -1
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	res.LiveHeapEndKB = int64(ms.HeapAlloc / 1024)
	res.Problems = check(res)
	return res, nil
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runPass streams rows rows through bulk.Check: row i names order[i % len(order)].
// Results are counted, never kept.
func runPass(ctx context.Context, cfg bulk.Config, n *netsim.Network, order []pick, rows, hostCap int) (passResult, error) {
	pr := passResult{Rows: rows, Statuses: map[bulk.Status]int{}}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := make(chan bulk.Row)
	out := make(chan bulk.Result)
	st := newStamps()
	load := newHostLoad(len(n.Dataset().SMPHosts), hostCap, func() []int64 {
		var out []int64
		for _, s := range n.Hits().SMP {
			out = append(out, s.InFlight)
		}
		return out
	})
	var hist histogram
	stop := make(chan struct{})
	go load.run(10*time.Millisecond, stop)
	defer close(stop)

	other := startOtherCPU()
	cpu0, start := cpuTime(), time.Now()
	errc := make(chan error, 1)
	go func() { errc <- bulk.Check(ctx, cfg, in, out) }()
	go func() {
		defer close(in)
		for i := range rows {
			p := order[i%len(order)]
			load.inFlight[p.host].Add(1)
			st.offer(i)
			select {
			case in <- bulk.Row{Index: i, Input: p.id}:
				st.taken(i)
			case <-ctx.Done():
				return
			}
		}
	}()
	got := 0
	for r := range out {
		got++
		if r.Index < 0 || r.Index >= rows {
			cancel()
			return pr, fmt.Errorf("a result has index %d, outside the %d rows", r.Index, rows)
		}
		load.inFlight[order[r.Index%len(order)].host].Add(-1)
		if d, ok := st.since(r.Index); ok {
			hist.add(d)
		} else {
			pr.Unmeasured++
		}
		pr.Statuses[r.Status]++
	}
	took := time.Since(start)
	if err := <-errc; err != nil {
		return pr, err
	}
	if got != rows {
		return pr, fmt.Errorf("%d results for %d rows", got, rows)
	}
	pr.Seconds = took.Seconds()
	pr.RowsPerSec = float64(rows) / took.Seconds()
	pr.CPUSeconds = (cpuTime() - cpu0).Seconds()
	pr.OtherCores = other.cores()
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	pr.P50MS, pr.P95MS, pr.P99MS = ms(hist.quantile(0.5)), ms(hist.quantile(0.95)), ms(hist.quantile(0.99))
	pr.HostRowsMean, pr.HostRowsUnder, pr.HostRowsMax, pr.SMPInFlightMean = load.summary()
	return pr, nil
}

// fillPass adds what netsim served and what the registry observed during the pass.
func fillPass(pr *passResult, n *netsim.Network, obs *observer) {
	h := n.Hits()
	for _, s := range h.SMP {
		pr.SMPRequests = append(pr.SMPRequests, s.ServiceGroup+s.ServiceMetadata+s.Other)
		pr.SMPMaxInFlight = append(pr.SMPMaxInFlight, s.MaxInFlight)
	}
	pr.DNSQueries, pr.OCSPRequests = h.DNS.Total(), h.OCSP
	pr.DirRequests = h.Directory.Search + h.Directory.Other
	pr.CacheHit, pr.CacheMiss, pr.CacheStale, pr.Upstream = obs.take()
}

// bound is the cold rows/s the per-host caps allow for the pass: its busiest host
// needs (requests × latency ÷ cap) at the least.
func bound(pr passResult, smpLatency time.Duration, hostCap int) float64 {
	var most int64
	for _, r := range pr.SMPRequests {
		most = max(most, r)
	}
	if most == 0 {
		return math.Inf(1)
	}
	return float64(pr.Rows) / (float64(most) * smpLatency.Seconds() / float64(hostCap))
}

// check lists what makes the run not the benchmark it means to be.
func check(r childResult) []string {
	var out []string
	for _, p := range []struct {
		name string
		pr   passResult
	}{{"cold", r.Cold}, {"cached", r.Cached}} {
		if bad := p.pr.Rows - p.pr.Statuses[bulk.Receives] - p.pr.Statuses[bulk.Blocked] - p.pr.Statuses[bulk.RegisteredWithoutDocument]; bad > 0 {
			out = append(out, fmt.Sprintf("%s pass: %d rows not answered as registered (%v)", p.name, bad, p.pr.Statuses))
		}
	}
	if r.Cached.CacheMiss > 0 || r.Cached.CacheStale > 0 {
		out = append(out, fmt.Sprintf("cached pass: %d cache misses and %d stale answers", r.Cached.CacheMiss, r.Cached.CacheStale))
	}
	var smp int64
	for _, s := range r.Cached.SMPRequests {
		smp += s
	}
	if smp > 0 || r.Cached.DNSQueries > 0 {
		out = append(out, fmt.Sprintf("cached pass: %d SMP requests and %d DNS queries went upstream", smp, r.Cached.DNSQueries))
	}
	if r.Directory == directoryMirror && r.Cold.DirRequests > 0 {
		out = append(out, fmt.Sprintf("cold pass: %d requests reached the live Directory although the mirror is fresh", r.Cold.DirRequests))
	}
	return out
}
