package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// stampBits sizes the ring of row start times: rows more than 1<<stampBits apart in
// the input cannot both be in flight without the older one going unmeasured.
const stampBits = 17

// stamps remembers when each row in flight was taken by the engine, in a fixed ring
// indexed by the row's index, so that memory does not grow with the rows. The producer
// stores the time it offers a row, and again once the engine has taken it (the send on
// the unbuffered rows channel returned); a result read in between sees the offer time,
// which precedes the take by at most the wait of one row for a free worker.
type stamps struct {
	base time.Time
	idx  [1 << stampBits]atomic.Int64 // row index + 1; 0: empty
	at   [1 << stampBits]atomic.Int64 // nanoseconds since base
}

func newStamps() *stamps { return &stamps{base: time.Now()} }

func (s *stamps) offer(i int) {
	slot := i & (1<<stampBits - 1)
	s.at[slot].Store(int64(time.Since(s.base)))
	s.idx[slot].Store(int64(i) + 1)
}

func (s *stamps) taken(i int) {
	s.at[i&(1<<stampBits-1)].Store(int64(time.Since(s.base)))
}

// since returns how long ago row i was taken, and false when its slot was reused.
func (s *stamps) since(i int) (time.Duration, bool) {
	slot := i & (1<<stampBits - 1)
	if s.idx[slot].Load() != int64(i)+1 {
		return 0, false
	}
	return time.Duration(int64(time.Since(s.base)) - s.at[slot].Load()), true
}

// histBuckets per natural-log unit: 1 % wide buckets.
const histBuckets = 100

// histogram counts durations in logarithmic buckets 1 % wide, up to 1000 s, in
// constant memory. It is not safe for concurrent use.
type histogram struct {
	counts [28 * histBuckets]int64 // ln(1000 s in ns) < 28
	n      int64
}

func (h *histogram) add(d time.Duration) {
	b := 0
	if d > 1 {
		b = min(int(math.Log(float64(d))*histBuckets), len(h.counts)-1)
	}
	h.counts[b]++
	h.n++
}

// quantile returns the q-quantile (0 < q ≤ 1) within 1 %, 0 when empty.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	target := int64(math.Ceil(q * float64(h.n)))
	var cum int64
	for b, c := range h.counts {
		cum += c
		if cum >= target {
			return time.Duration(math.Exp((float64(b) + 0.5) / histBuckets))
		}
	}
	return 0
}

// hostLoad samples how many rows of each SMP host are in the engine (offered or taken,
// not yet answered), to see whether rows pile up on some hosts while others idle, and
// how many requests each host is answering (served), to see how busy its slots are
// kept.
type hostLoad struct {
	inFlight []atomic.Int64
	cap      int64
	served   func() []int64

	mu        sync.Mutex
	samples   int64
	sum       []int64
	under     []int64 // samples with fewer rows than cap in flight
	max       []int64
	servedSum []int64
}

func newHostLoad(hosts, hostCap int, served func() []int64) *hostLoad {
	return &hostLoad{inFlight: make([]atomic.Int64, hosts), cap: int64(hostCap), served: served,
		sum: make([]int64, hosts), under: make([]int64, hosts), max: make([]int64, hosts), servedSum: make([]int64, hosts)}
}

// run samples every interval until stop is closed.
func (l *hostLoad) run(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		served := l.served()
		l.mu.Lock()
		l.samples++
		for h, v := range served {
			l.servedSum[h] += v
		}
		for h := range l.inFlight {
			v := l.inFlight[h].Load()
			l.sum[h] += v
			l.max[h] = max(l.max[h], v)
			if v < l.cap {
				l.under[h]++
			}
		}
		l.mu.Unlock()
	}
}

// summary returns per host the mean rows in flight, the share of samples under the
// cap, the most rows in flight and the mean requests the host was answering.
func (l *hostLoad) summary() (mean, under []float64, most []int64, served []float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := float64(max(l.samples, 1))
	for h := range l.sum {
		mean = append(mean, float64(l.sum[h])/n)
		under = append(under, float64(l.under[h])/n)
		served = append(served, float64(l.servedSum[h])/n)
	}
	return mean, under, append(most, l.max...), served
}

// observer counts the registry's upstream calls and cache decisions.
type observer struct {
	hit, miss, stale atomic.Int64

	mu       sync.Mutex
	upstream map[string]int64 // "kind outcome"
}

func (o *observer) Upstream(kind, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.upstream == nil {
		o.upstream = map[string]int64{}
	}
	o.upstream[kind+" "+outcome]++
}

func (o *observer) Cache(kind, result string) {
	if kind != registry.CacheLookup {
		return
	}
	switch result {
	case registry.CacheHit:
		o.hit.Add(1)
	case registry.CacheMiss:
		o.miss.Add(1)
	case registry.CacheStale:
		o.stale.Add(1)
	}
}

// take returns the cache decisions and upstream calls counted so far, and starts afresh.
func (o *observer) take() (hit, miss, stale int64, upstream map[string]int64) {
	o.mu.Lock()
	upstream, o.upstream = o.upstream, nil
	o.mu.Unlock()
	return o.hit.Swap(0), o.miss.Swap(0), o.stale.Swap(0), upstream
}

var _ registry.Observer = (*observer)(nil)

// statusKB returns a "Vm…" field of /proc/self/status in KB.
func statusKB(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != field {
			continue
		}
		return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no " + field + " in /proc/self/status")
}

// resetPeakRSS sets the process's peak RSS (VmHWM) back to its current RSS, as writing
// 5 to /proc/self/clear_refs does (Linux 4.0 and later).
func resetPeakRSS() error {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy is the CPU time all processes have used (every CPU's time less idle and
// iowait), from /proc/stat.
func machineBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "cpu" {
		return 0, errors.New("/proc/stat: no cpu line")
	}
	var busy int64
	for i, s := range f[1:] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		// user, nice, system, irq, softirq: not idle, iowait, steal, or guest (which
		// user already counts).
		if i != 3 && i != 4 && i < 7 {
			busy += v
		}
	}
	// USER_HZ is 100 on every Linux Go supports.
	return time.Duration(busy) * 10 * time.Millisecond, nil
}

// otherCPU measures the cores other processes use while it runs.
type otherCPU struct {
	start        time.Time
	busy0, self0 time.Duration
	ok           bool
}

func startOtherCPU() otherCPU {
	busy, err := machineBusy()
	return otherCPU{start: time.Now(), busy0: busy, self0: cpuTime(), ok: err == nil}
}

// cores returns the cores other processes used since start, -1 when unknown.
func (c otherCPU) cores() float64 {
	busy, err := machineBusy()
	if !c.ok || err != nil {
		return -1
	}
	other := (busy - c.busy0) - (cpuTime() - c.self0)
	return max(0, other.Seconds()/time.Since(c.start).Seconds())
}

// waitQuiet waits up to d for other processes to use under quiet cores, measured over
// 3 s at a time; it says on logw how it went.
func waitQuiet(ctx context.Context, d time.Duration, quiet float64, logw io.Writer) {
	deadline := time.Now().Add(d)
	other := -1.0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		c := startOtherCPU()
		select {
		case <-ctx.Done():
			return
		case <-time.After(3 * time.Second):
		}
		if other = c.cores(); other < quiet {
			fmt.Fprintf(logw, "bench-bulk: the machine is quiet (other processes %.2f cores)\n", other)
			return
		}
	}
	fmt.Fprintf(logw, "bench-bulk: the machine did not go quiet within %v (other processes %.2f cores); running anyway\n", d, other)
}
