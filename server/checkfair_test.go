package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
)

// checkFairBound bounds every wait of these tests: far above what they take, so a
// busy machine cannot fail them, and far below the 2 minutes a stuck check used to
// hold its slot.
const checkFairBound = 45 * time.Second

// waitLong waits up to checkFairBound for cond.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(checkFairBound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting %v for %s", checkFairBound, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loopbackProxy makes the test's loopback connections a trusted proxy, so that each
// request names its client in X-Forwarded-For.
func loopbackProxy(c *Config) {
	c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

// rawCheck opens a TCP connection to e and sends the head of a POST /api/v1/check as
// client, announcing a body of length bytes, and the first part of it; the rest is
// the caller's to send (or not). rcvbuf, when above 0, shrinks the connection's
// receive buffer, so that a client that stops reading stops the server's writes soon.
func rawCheck(t *testing.T, e *e2e, client, contentType string, length int, part string, rcvbuf int) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 10 * time.Second}
	if rcvbuf > 0 {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf) })
			if err != nil {
				return err
			}
			return serr
		}
	}
	conn, err := d.DialContext(t.Context(), "tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := fmt.Sprintf("POST /api/v1/check HTTP/1.1\r\nHost: peppolgate.test\r\nContent-Type: %s\r\nContent-Length: %d\r\nX-Forwarded-For: %s\r\n\r\n", contentType, length, client)
	if _, err := io.WriteString(conn, head+part); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestCheckSlowBodiesDoNotLockOut: clients that send their bodies slowly (or never
// finish them) do not hold the server's check slots: another client's check is
// answered while they dawdle. A client still runs at most 2 checks at once, its bodies
// being read included.
func TestCheckSlowBodiesDoNotLockOut(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, func(c *Config) {
		loopbackProxy(c)
		c.Bulk.Total = 2
	}, nil)
	row := `"` + netsim.KnownBelgian + `"` + "\n"
	// Three slow clients, each with half a body sent.
	for i := range 3 {
		rawCheck(t, e, fmt.Sprintf("192.0.2.%d", i+1), "application/x-ndjson", 2*len(row), row, 0)
	}
	places := func(client string) int {
		g := e.srv.checks
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.clients[netip.MustParseAddr(client)]
	}
	waitLong(t, "the slow bodies to be taken in", func() bool {
		return places("192.0.2.1") == 1 && places("192.0.2.2") == 1 && places("192.0.2.3") == 1
	})
	for i := range 3 {
		resp, raw := e.postCheck(t, "", "application/x-ndjson", strings.Repeat(row, 3), "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a check beside slow bodies: %d %s", resp.StatusCode, raw)
		}
		if _, sum := readNDJSON(t, raw); sum == nil || sum.Rows != 3 {
			t.Fatalf("a check beside slow bodies: summary %+v\n%s", sum, raw)
		}
	}
	// One client's slow bodies count against its own 2 checks at once.
	rawCheck(t, e, "192.0.2.1", "application/x-ndjson", 2*len(row), row, 0)
	waitLong(t, "the second slow body of 192.0.2.1 to be taken in", func() bool { return places("192.0.2.1") == 2 })
	resp, raw := e.postCheck(t, "", "application/x-ndjson", row, "X-Forwarded-For", "192.0.2.1")
	if got := decodeJSON[errorBody](t, raw).Error; resp.StatusCode != http.StatusTooManyRequests || got.Code != CodeTooManyBulkRequests {
		t.Fatalf("a third check of a client with 2 slow bodies: %d %s", resp.StatusCode, raw)
	}
}

// TestCheckExemptCountedPerClient: a client exempt from the rate limits (e.g. a local
// reverse proxy speaking for many) is counted too: it may run up to half the server's
// checks at once, never all of them.
func TestCheckExemptCountedPerClient(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, func(c *Config) {
		loopbackProxy(c)
		c.RateLimitExempt = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
		c.Bulk.Total = 6
	}, nil)
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	row := `"` + netsim.KnownBelgian + `"`
	for range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		resp := e.startCheck(t, ctx, "", "application/x-ndjson", row, "X-Forwarded-For", "192.0.2.7")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("check: %d", resp.StatusCode)
		}
		defer resp.Body.Close()
	}
	resp, body := e.postCheck(t, "", "application/x-ndjson", row, "X-Forwarded-For", "192.0.2.7")
	if got := decodeJSON[errorBody](t, body).Error; resp.StatusCode != http.StatusTooManyRequests || got.Code != CodeTooManyBulkRequests || !strings.Contains(got.Message, "3 bulk checks") {
		t.Fatalf("an exempt client's fourth check at once (of 6 in all): %d %s", resp.StatusCode, body)
	}
	// The other half is left to everyone else.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if resp := e.startCheck(t, ctx, "", "application/x-ndjson", row, "X-Forwarded-For", "198.51.100.1"); resp.StatusCode != http.StatusOK {
		t.Errorf("another client's check beside the exempt one's: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
}

// TestCheckNonReadingClient: a client that stops reading the answer (a real TCP
// client, its receive buffer small) does not hold its check's slot: the check ends
// once its writes stall, and the next check is taken.
func TestCheckNonReadingClient(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, func(c *Config) {
		loopbackProxy(c)
		c.Bulk.Total = 1
		c.Bulk.WriteStall = time.Second
	}, func(s *http.Server) { s.WriteTimeout = time.Second })
	// Enough rows that the answer (~6 MB) overflows every buffer on the way.
	body := strings.Repeat(`"`+netsim.KnownBelgian+`"`+"\n", 10_000)
	conn := rawCheck(t, e, "192.0.2.1", "application/x-ndjson", len(body), body, 4096)
	br := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(checkFairBound))
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status line %q: %v", status, err)
	}
	// Read no more: the server's writes stall.
	waitLong(t, "the check of the client that stopped reading to end", func() bool {
		return strings.Contains(e.logs.String(), `"msg":"check"`)
	})
	logs := e.logs.String()
	if !strings.Contains(logs, `"outcome":"client stopped reading"`) {
		t.Errorf("the check's log line does not say the client stopped reading:\n%s", logs)
	}
	resp, raw := e.postCheck(t, "", "application/x-ndjson", `"`+netsim.KnownBelgian+`"`, "X-Forwarded-For", "198.51.100.1")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the next check: %d %s", resp.StatusCode, raw)
	}
}

// notCheckedLine is the last line of an NDJSON answer cut short.
type notCheckedLine struct {
	Summary    bulk.Summary    `json:"summary"`
	NotChecked *checkUnchecked `json:"notChecked"`
}

// lastNDJSONLine decodes the last line of raw.
func lastNDJSONLine(t *testing.T, raw []byte) notCheckedLine {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var last notCheckedLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	return last
}

// hungRows returns n rows whose SMP host hangs (the Belgian company's host) and m that
// answer, as NDJSON lines, with the indexes of the hung ones.
func hungRows(t *testing.T, e *e2e, n, m int) (body string, hung []int) {
	t.Helper()
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	slow := quoted(registeredOn(e.ds, belgian.SMPHost, true, n))
	fast := quoted(registeredOn(e.ds, belgian.SMPHost, false, m))
	if len(slow) < n || len(fast) < m {
		t.Fatalf("the dataset has %d and %d such participants", len(slow), len(fast))
	}
	var lines []string
	for i := range max(n, m) {
		if i < m {
			lines = append(lines, fast[i])
		}
		if i < n {
			hung = append(hung, len(lines))
			lines = append(lines, slow[i])
		}
	}
	return strings.Join(lines, "\n"), hung
}

// TestCheckTimeLimit: a check that runs past its longest time ends with a last line
// (CSV: the trailer) naming the rows not checked, retryable; the rows answered by then
// are in the answer.
func TestCheckTimeLimit(t *testing.T) {
	t.Parallel()
	// Long enough that the fast rows finish on a loaded machine; the hung rows never do,
	// so it costs wall time only.
	e := startE2EWith(t, func(c *Config) { c.Bulk.MaxDuration = 9 * time.Second }, nil)
	body, hung := hungRows(t, e, 3, 5)
	t.Run("ndjson", func(t *testing.T) {
		resp, raw := e.postCheck(t, "", "application/x-ndjson", body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		last := lastNDJSONLine(t, raw)
		want := indexRanges(hung)
		if u := last.NotChecked; u == nil || u.Reason != "time_limit" || !u.Retryable || u.Rows != len(hung) || u.Indexes != want {
			t.Fatalf("last line %+v, want the rows %s not checked for time_limit\n%s", u, want, raw)
		}
		if last.Summary.Rows != 5 || last.Summary.Counts.Of(bulk.Failed) != 0 {
			t.Errorf("summary %+v, want the 5 rows answered", last.Summary)
		}
	})
	t.Run("csv", func(t *testing.T) {
		resp, raw := e.postCheck(t, "", "application/x-ndjson", body, "Accept", "text/csv")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, raw)
		}
		// In input order: the rows before the first hung one are written, the rest not.
		tr := resp.Trailer.Get(checkSummaryTrailer)
		want := fmt.Sprintf(`not_checked=%d, not_checked_rows="%d-7", reason="time_limit", retryable=?1`, 8-hung[0], hung[0])
		if !strings.HasPrefix(tr, fmt.Sprintf("rows=%d, ", hung[0])) || !strings.HasSuffix(tr, want) {
			t.Errorf("trailer %q, want it to end %q\n%s", tr, want, raw)
		}
	})
}

// TestCheckShutdown: when the server begins to shut down, new checks are refused and
// a running check goes on (it has the drain delay to finish); when the checks are cut
// (EndChecks, after the delay), it ends at once with a last line naming the rows not
// checked (retryable), and the server's Shutdown drains within its time.
func TestCheckShutdown(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	body, hung := hungRows(t, e, 2, 4)
	resp := e.startCheck(t, t.Context(), "", "application/x-ndjson", body)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	// The rows that answer come first; then the server begins to shut down.
	br := bufio.NewReader(resp.Body)
	var raw []byte
	for range 4 {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%v after %s", err, raw)
		}
		raw = append(raw, line...)
	}
	e.srv.BeginShutdown()
	r1, raw1 := e.postCheck(t, "", "application/x-ndjson", `"`+netsim.KnownNorwegian+`"`)
	if got := decodeJSON[errorBody](t, raw1).Error; r1.StatusCode != http.StatusServiceUnavailable || got.Code != CodeUnavailable || !strings.Contains(got.Message, "shutting down") {
		t.Errorf("a check once the server begins to shut down: %d %s", r1.StatusCode, raw1)
	}
	// Its hung rows never finish: it runs until the checks are cut.
	g := e.srv.checks
	g.mu.Lock()
	running := g.total
	g.mu.Unlock()
	if running != 1 {
		t.Errorf("%d checks run during the drain delay, want the one begun before it", running)
	}
	e.srv.EndChecks()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, rest...)
	last := lastNDJSONLine(t, raw)
	if u := last.NotChecked; u == nil || u.Reason != "shutting_down" || !u.Retryable || u.Indexes != indexRanges(hung) || u.Rows != len(hung) {
		t.Fatalf("last line %+v, want the hung rows %v not checked for shutting_down\n%s", u, hung, raw)
	}
	if last.Summary.Rows != 4 {
		t.Errorf("summary %+v, want the 4 rows answered", last.Summary)
	}
	r2, raw2 := e.postCheck(t, "", "application/x-ndjson", `"`+netsim.KnownNorwegian+`"`)
	if got := decodeJSON[errorBody](t, raw2).Error; r2.StatusCode != http.StatusServiceUnavailable || got.Code != CodeUnavailable || !strings.Contains(got.Message, "shutting down") {
		t.Errorf("a check while shutting down: %d %s", r2.StatusCode, raw2)
	}
	ctx, cancel := context.WithTimeout(t.Context(), checkFairBound)
	defer cancel()
	if err := e.hs.Config.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestCheckBodiesMemoryBound: the memory for check bodies (BulkLimits.Buffered) is
// taken for a body's declared length before any byte of it is read, so clients that
// announce large bodies and send nothing are refused 503 once it is taken, while a
// small check still runs; a check whose rows are read holds none of it.
func TestCheckBodiesMemoryBound(t *testing.T) {
	t.Parallel()
	const body = 64 << 10
	e := startE2EWith(t, func(c *Config) {
		loopbackProxy(c)
		c.Bulk.Body = body
		c.Bulk.Buffered = 2*body + 4096
	}, func(s *http.Server) { s.ReadTimeout = 20 * time.Second })
	buffered := func() int {
		g := e.srv.checks
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.buffered
	}
	// Two clients announce the largest body and send none of it.
	for i := range 2 {
		rawCheck(t, e, fmt.Sprintf("192.0.2.%d", i+1), "application/x-ndjson", body, "", 0)
	}
	waitLong(t, "the two announced bodies to be reserved", func() bool { return buffered() == 2*body })
	// A third is refused at once, before it sends anything.
	conn := rawCheck(t, e, "192.0.2.3", "application/x-ndjson", body, "", 0)
	_ = conn.SetReadDeadline(time.Now().Add(checkFairBound))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the third announced body: no answer: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	if got := decodeJSON[errorBody](t, raw).Error; resp.StatusCode != http.StatusServiceUnavailable || got.Code != CodeUnavailable ||
		resp.Header.Get("Retry-After") != "10" || !strings.Contains(got.Message, "bulk check bodies") {
		t.Fatalf("the third announced body: %d %s", resp.StatusCode, raw)
	}
	// Another client's small check runs beside them, and holds no memory for bodies
	// once its rows are read, while it runs.
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := e.startCheck(t, ctx, "", "application/x-ndjson", `"`+netsim.KnownBelgian+`"`, "X-Forwarded-For", "198.51.100.1")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("a small check beside the announced bodies: %d", r.StatusCode)
	}
	defer r.Body.Close()
	if got := buffered(); got != 2*body {
		t.Errorf("a running check holds memory for bodies: %d bytes taken, want %d (the two announced bodies)", got, 2*body)
	}
}

// TestCheckChunkedBodyMemory: a body of unknown length (chunked) reserves memory as
// its buffer grows, counted by capacity, and is refused 503 when the bound is reached.
func TestCheckChunkedBodyMemory(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, func(c *Config) {
		c.Bulk.Body = 1 << 20
		c.Bulk.Buffered = 200 << 10
	}, nil)
	// 300 KiB of rows, chunked: more than the memory for bodies.
	row := `"` + netsim.KnownBelgian + `"` + "\n"
	big := strings.Repeat(row, (300<<10)/len(row))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, e.url+"/api/v1/check", io.MultiReader(strings.NewReader(big)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if got := decodeJSON[errorBody](t, raw).Error; resp.StatusCode != http.StatusServiceUnavailable || got.Code != CodeUnavailable {
		t.Fatalf("a chunked body over the memory for bodies: %d %s", resp.StatusCode, raw)
	}
	g := e.srv.checks
	waitLong(t, "the refused body's memory to be given back", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.buffered == 0
	})
}

// TestCheckShutdownNonReadingClient: a check whose client stopped reading does not
// hold the server's shutdown for its write stall (30 s): once the server begins to
// shut down, its writes get a few seconds, and Shutdown returns well within the
// binary's drain.
func TestCheckShutdownNonReadingClient(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, loopbackProxy, nil)
	// Served without the OpenAPI check, which would read the megabytes written after
	// the handler returns, slowly under the race detector.
	hs := httptest.NewServer(e.srv)
	t.Cleanup(hs.Close)
	direct := *e
	direct.url, direct.hs = hs.URL, hs
	e = &direct
	// Enough rows that the answer (~6 MB) overflows every buffer on the way.
	body := strings.Repeat(`"`+netsim.KnownBelgian+`"`+"\n", 10_000)
	conn := rawCheck(t, e, "192.0.2.1", "application/x-ndjson", len(body), body, 4096)
	br := bufio.NewReader(conn)
	_ = conn.SetReadDeadline(time.Now().Add(checkFairBound))
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status line %q: %v", status, err)
	}
	// Read no more; wait until the check's rows are all answered (written, or
	// waiting for the client), so that its writes are what is left.
	time.Sleep(2 * time.Second)
	e.srv.BeginShutdown()
	e.srv.EndChecks()
	// Far below the check's 30 s write stall, far above the few seconds it gets.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := e.hs.Config.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a check whose client stopped reading: %v\n%s", err, e.logs.String())
	}
	if logs := e.logs.String(); !strings.Contains(logs, `"outcome":"client stopped reading"`) {
		t.Errorf("the check's log line does not say the client stopped reading:\n%s", logs)
	}
}
