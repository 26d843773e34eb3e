package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// newHTTPClient returns the benchmark's client: keep-alive connections to every
// replica, each request bounded by timeout.
func newHTTPClient(conns int, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        4 * conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// job is one request sent to one replica.
type job struct {
	replica int
	req     request
}

// roundRobin sends request i to replica i mod n, as a round-robin load balancer does.
func roundRobin(reqs []request, n int) []job {
	out := make([]job, len(reqs))
	for i, r := range reqs {
		out[i] = job{replica: i % n, req: r}
	}
	return out
}

// driveResult is what a batch of requests got.
type driveResult struct {
	requests int
	seconds  float64
	lat      latencies
	byKind   [numKinds]latencies
	statuses map[int]int // 0: transport failure
	cache    map[string]int
	failures []string // the first few transport failures and 5xx answers
}

func (d *driveResult) serverErrors() int {
	n := d.statuses[0]
	for s, c := range d.statuses {
		if s >= 500 {
			n += c
		}
	}
	return n
}

// drive sends jobs with concurrency workers and waits for every answer, reading
// each answer whole.
func drive(ctx context.Context, c *http.Client, reps []*replica, jobs []job, concurrency int) *driveResult {
	var next atomic.Int64
	return work(ctx, c, reps, concurrency, func() (job, bool) {
		i := int(next.Add(1)) - 1
		if i >= len(jobs) {
			return job{}, false
		}
		return jobs[i], true
	})
}

// closedLoop sends jobs in turn (from the start again when done) with concurrency
// workers for dur, and returns what they got: requests per second of a saturated
// service.
func closedLoop(ctx context.Context, c *http.Client, reps []*replica, jobs []job, concurrency int, dur time.Duration) *driveResult {
	ctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var next atomic.Int64
	return work(ctx, c, reps, concurrency, func() (job, bool) {
		return jobs[int(next.Add(1)-1)%len(jobs)], true
	})
}

// work runs concurrency workers, each sending the jobs next hands out until it has
// none or ctx ends, and adds up what they got; a request cut short by ctx's end is
// not counted.
func work(ctx context.Context, c *http.Client, reps []*replica, concurrency int, next func() (job, bool)) *driveResult {
	res := &driveResult{statuses: map[int]int{}, cache: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range max(1, concurrency) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := driveResult{statuses: map[int]int{}, cache: map[string]int{}}
			for ctx.Err() == nil {
				j, ok := next()
				if !ok {
					break
				}
				status, cache, took, err := send(ctx, c, reps[j.replica].base, j.req)
				if ctx.Err() != nil {
					break // cut short by the end of the run: not counted
				}
				own.requests++
				own.statuses[status]++
				if cache != "" {
					own.cache[cache]++
				}
				own.lat.add(took)
				own.byKind[j.req.kind].add(took)
				if (err != nil || status >= 500) && len(own.failures) < 5 {
					own.failures = append(own.failures, fmt.Sprintf("replica %d %s: %d %v", j.replica+1, j.req.path, status, err))
				}
			}
			mu.Lock()
			res.merge(&own)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.seconds = time.Since(start).Seconds()
	return res
}

func (d *driveResult) merge(o *driveResult) {
	d.requests += o.requests
	d.lat.merge(&o.lat)
	for k := range o.byKind {
		d.byKind[k].merge(&o.byKind[k])
	}
	for s, n := range o.statuses {
		d.statuses[s] += n
	}
	for s, n := range o.cache {
		d.cache[s] += n
	}
	if len(d.failures) < 5 {
		d.failures = append(d.failures, o.failures[:min(len(o.failures), 5-len(d.failures))]...)
	}
}

// send sends r to the replica at base and reads the answer whole; status 0 for a
// transport failure.
func send(ctx context.Context, c *http.Client, base string, r request) (status int, cache string, took time.Duration, err error) {
	req, err := newRequest(ctx, base, r)
	if err != nil {
		return 0, "", 0, err
	}
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", time.Since(start), err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took = time.Since(start)
	if err != nil {
		return 0, "", took, err
	}
	return resp.StatusCode, resp.Header.Get("X-Cache"), took, nil
}

// newRequest makes the HTTP request of r to the replica at base.
func newRequest(ctx context.Context, base string, r request) (*http.Request, error) {
	if r.body == "" {
		return http.NewRequestWithContext(ctx, http.MethodGet, base+r.path, nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+r.path, strings.NewReader(r.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("MCP-Protocol-Version", mcpProtocolVersion)
	}
	return req, nil
}

// The MCP requests of the benchmark.
const (
	mcpProtocolVersion = "2025-06-18"
	mcpInitialize      = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-fleet","version":"0"}}}`
	mcpInitialized     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// mcpSession initialises an MCP session on the replica at base and returns its id.
func mcpSession(ctx context.Context, c *http.Client, base string) (string, error) {
	req, err := newRequest(ctx, base, request{path: "/mcp", body: mcpInitialize})
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		return "", fmt.Errorf("MCP initialize: %d, session %q: %s", resp.StatusCode, id, body)
	}
	status, _, _, err := send(ctx, c, base, request{path: "/mcp", body: mcpInitialized, session: id})
	if err != nil || status/100 != 2 {
		return "", fmt.Errorf("MCP notifications/initialized: %d %v", status, err)
	}
	return id, nil
}

// mcpLookup is a tools/call of lookup_participant for id in session.
func mcpLookup(id, session string, n int) request {
	return request{kind: kindMCP, path: "/mcp", session: session,
		body: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lookup_participant","arguments":{"participantId":%q}}}`, n+2, id)}
}
