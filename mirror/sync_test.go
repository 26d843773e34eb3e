package mirror

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
)

// fakeExport is a Directory export endpoint and the static file server it redirects to,
// on two hosts like directory.peppol.eu and directory-static.peppol.eu, with the faults
// netsim cannot produce (a server ignoring Range, missing validators, idle bodies).
type fakeExport struct {
	dir, static *httptest.Server

	mu     sync.Mutex
	body   []byte
	mod    time.Time
	etag   string // "" sends no ETag
	noMod  bool   // no Last-Modified
	limit  int    // export requests answered before 429; 0 = unlimited
	retry  string // Retry-After of the 429; "-" for none
	noRang bool   // ignore Range (answer 200)
	target string // where the export path redirects; "" = the static server

	exportStatus, exportStatusTimes int // answer the export path with this status n times (-1: always)
	fileStatus, fileStatusTimes     int // the same for the static file
	fileRetryAfter                  string
	cutAfter                        int64
	cutTimes                        int  // cut the file's body after cutAfter bytes this many times
	idle                            bool // send the file's headers, then nothing
	idleStarted                     chan struct{}

	exportHits, fileHits int
	ranges, ifRanges     []string // Range and If-Range of each file request
	inm                  []string // If-None-Match of each export request
}

func newFakeExport(t *testing.T, body []byte) *fakeExport {
	t.Helper()
	f := &fakeExport{
		body:        body,
		mod:         time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC),
		etag:        `"v1"`,
		idleStarted: make(chan struct{}, 16),
	}
	f.static = httptest.NewServer(http.HandlerFunc(f.serveFile))
	f.dir = httptest.NewServer(http.HandlerFunc(f.serveExport))
	t.Cleanup(func() {
		f.dir.Close()
		f.static.CloseClientConnections()
		f.static.Close()
	})
	return f
}

// set replaces the served file.
func (f *fakeExport) set(body []byte, etag string, mod time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body, f.etag, f.mod = body, etag, mod
}

func (f *fakeExport) with(fn func(f *fakeExport)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeExport) hits() (export, file int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.exportHits, f.fileHits
}

func takeFault(status, times *int) int {
	if *status == 0 || *times == 0 {
		return 0
	}
	if *times > 0 {
		*times--
	}
	return *status
}

func (f *fakeExport) serveExport(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != DirectoryExportPath {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.exportHits++
	f.inm = append(f.inm, r.Header.Get("If-None-Match"))
	over := f.limit > 0 && f.exportHits > f.limit
	retry, target := f.retry, f.target
	if target == "" {
		target = f.static.URL + "/export1/export-all-businesscards.xml"
	}
	status := takeFault(&f.exportStatus, &f.exportStatusTimes)
	f.mu.Unlock()
	switch {
	case over:
		switch retry {
		case "":
			w.Header().Set("Retry-After", "86400")
		case "-":
		default:
			w.Header().Set("Retry-After", retry)
		}
		http.Error(w, "export limit reached", http.StatusTooManyRequests)
	case status != 0:
		http.Error(w, "fault", status)
	default:
		w.Header().Set("Cache-Control", "max-age=86400")
		http.Redirect(w, r, target, http.StatusFound)
	}
}

func (f *fakeExport) serveFile(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.fileHits++
	f.ranges = append(f.ranges, r.Header.Get("Range"))
	f.ifRanges = append(f.ifRanges, r.Header.Get("If-Range"))
	body, etag, mod := f.body, f.etag, f.mod
	if f.noMod {
		mod = time.Time{}
	}
	noRange, idle, retryAfter := f.noRang, f.idle, f.fileRetryAfter
	status := takeFault(&f.fileStatus, &f.fileStatusTimes)
	cut := int64(-1)
	if f.cutTimes > 0 {
		f.cutTimes--
		cut = f.cutAfter
	}
	f.mu.Unlock()

	if status != 0 {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, "fault", status)
		return
	}
	if idle {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		f.idleStarted <- struct{}{}
		<-r.Context().Done()
		return
	}
	if noRange {
		r.Header.Del("Range")
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	if cut >= 0 {
		w = &cutWriter{ResponseWriter: w, left: cut}
	}
	http.ServeContent(w, r, "export-all-businesscards.xml", mod, bytes.NewReader(body))
}

// cutWriter drops the connection after left body bytes.
type cutWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		c.ResponseWriter.Write(p[:c.left])
		c.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	c.left -= int64(len(p))
	return c.ResponseWriter.Write(p)
}

// testExport returns a plausible XML v3 export of n cards.
func testExport(n int, tag string) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n")
	b.WriteString(`<root xmlns="urn:peppol:schema:pd:businesscard-generic:2025:03" version="3" creationdt="2026-11-20T02:00:00Z" codeListSupported="9.4">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `<businesscard><participant scheme="iso6523-actorid-upis" value="0208:%010d"/><entity countrycode="BE"><name name="Testbedrijf %s %d NV"/><id scheme="VAT" value="BE%010d"/></entity></businesscard>`+"\n", i, tag, i, i)
	}
	b.WriteString("</root>\n")
	return b.Bytes()
}

func gzipped(t *testing.T, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var syncEpoch = time.Date(2026, 11, 22, 2, 10, 0, 0, time.UTC)

// syncConfig returns a quick configuration for directoryURL with Dest in a temp dir.
func syncConfig(t *testing.T, directoryURL string, clock *clock.Fake) SyncConfig {
	t.Helper()
	return SyncConfig{
		DirectoryURL:       directoryURL,
		Dest:               filepath.Join(t.TempDir(), "mirror.export.xml"),
		MaxDownloadsPerDay: 100,
		Retries:            3,
		RetryBase:          time.Millisecond,
		Timeout:            20 * time.Second,
		IdleTimeout:        5 * time.Second,
		Now:                clock.Now,
		Logger:             slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

func readState(t *testing.T, dest string) syncState {
	t.Helper()
	var st syncState
	b, err := os.ReadFile(dest + ".sync.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: %d bytes, want %d identical bytes", filepath.Base(path), len(got), len(want))
	}
}

func assertNoFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s exists (err %v), want none", filepath.Base(path), err)
	}
}

// TestSyncDownload runs one Sync against each behaviour of the export server.
func TestSyncDownload(t *testing.T) {
	t.Parallel()
	xml := testExport(2000, "a") // ~300 KB
	gz := gzipped(t, xml)
	old := []byte("<root>the previous export</root>")
	tests := []struct {
		name    string
		body    []byte
		setup   func(f *fakeExport)
		cfg     func(c *SyncConfig)
		wantErr string // substring; "" = success
		// request counts and the Range/If-Range headers of the file requests
		exportHits, fileHits int
		ranges, ifRanges     []string
	}{
		{name: "first download", body: xml, exportHits: 1, fileHits: 1, ranges: []string{""}, ifRanges: []string{""}},
		{name: "gzip as served", body: gz, exportHits: 1, fileHits: 1, ranges: []string{""}, ifRanges: []string{""}},
		{
			name: "cut download resumes with Range and If-Range", body: xml,
			setup:      func(f *fakeExport) { f.cutAfter, f.cutTimes = 100_000, 1 },
			exportHits: 1, fileHits: 2,
			ranges:   []string{"", "bytes=100000-"},
			ifRanges: []string{"", `"v1"`},
		},
		{
			name: "cut twice resumes twice", body: gz,
			setup:      func(f *fakeExport) { f.cutAfter, f.cutTimes = 1000, 2 },
			exportHits: 1, fileHits: 3,
			ranges:   []string{"", "bytes=1000-", "bytes=2000-"},
			ifRanges: []string{"", `"v1"`, `"v1"`},
		},
		{
			name: "no ETag: If-Range carries Last-Modified", body: xml,
			setup:      func(f *fakeExport) { f.etag = ""; f.cutAfter, f.cutTimes = 50_000, 1 },
			exportHits: 1, fileHits: 2,
			ranges:   []string{"", "bytes=50000-"},
			ifRanges: []string{"", "Fri, 20 Nov 2026 02:00:00 GMT"},
		},
		{
			name: "weak ETag only is no validator: restart", body: xml,
			setup:      func(f *fakeExport) { f.etag = `W/"v1"`; f.noMod = true; f.cutAfter, f.cutTimes = 50_000, 1 },
			exportHits: 1, fileHits: 2,
			ranges: []string{"", ""}, ifRanges: []string{"", ""},
		},
		{
			name: "no validators: restart from 0", body: xml,
			setup:      func(f *fakeExport) { f.etag = ""; f.noMod = true; f.cutAfter, f.cutTimes = 50_000, 1 },
			exportHits: 1, fileHits: 2,
			ranges: []string{"", ""}, ifRanges: []string{"", ""},
		},
		{
			name: "server ignores Range (200): restart", body: xml,
			setup:      func(f *fakeExport) { f.noRang = true; f.cutAfter, f.cutTimes = 100_000, 1 },
			exportHits: 1, fileHits: 2,
			ranges:   []string{"", "bytes=100000-"},
			ifRanges: []string{"", `"v1"`},
		},
		{
			name: "transient 503 on the file", body: xml,
			setup:      func(f *fakeExport) { f.fileStatus, f.fileStatusTimes = 503, 2 },
			exportHits: 1, fileHits: 3, ranges: []string{"", "", ""}, ifRanges: []string{"", "", ""},
		},
		{
			name: "503 with a short Retry-After is retried", body: xml,
			setup:      func(f *fakeExport) { f.fileStatus, f.fileStatusTimes, f.fileRetryAfter = 503, 1, "0" },
			exportHits: 1, fileHits: 2, ranges: []string{"", ""}, ifRanges: []string{"", ""},
		},
		{
			name: "503 with a day's Retry-After ends the run", body: xml,
			setup:      func(f *fakeExport) { f.fileStatus, f.fileStatusTimes, f.fileRetryAfter = 503, 1, "86400" },
			wantErr:    "503 Service Unavailable; it asks to retry after 24h0m0s (at 2026-11-23T02:10:00Z), so not retrying now",
			exportHits: 1, fileHits: 1, ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "transient 502 on the export path counts each request", body: xml,
			setup:      func(f *fakeExport) { f.exportStatus, f.exportStatusTimes = 502, 1 },
			exportHits: 2, fileHits: 1, ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "persistent 500: bounded retries, Dest untouched", body: xml,
			setup:   func(f *fakeExport) { f.fileStatus, f.fileStatusTimes = 500, -1 },
			wantErr: "giving up after 4 attempts", exportHits: 1, fileHits: 4,
			ranges: []string{"", "", "", ""}, ifRanges: []string{"", "", "", ""},
		},
		{
			name: "no retries configured", body: xml,
			setup:   func(f *fakeExport) { f.fileStatus, f.fileStatusTimes = 500, -1 },
			cfg:     func(c *SyncConfig) { c.Retries = -1 },
			wantErr: "500 Internal Server Error", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "404 is not retried", body: xml,
			setup:   func(f *fakeExport) { f.fileStatus, f.fileStatusTimes = 404, -1 },
			wantErr: "404 Not Found; not retrying", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "corrupt gzip: Dest untouched", body: gz[:len(gz)-100],
			wantErr: "gzip stream is incomplete", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "truncated XML: Dest untouched", body: xml[:len(xml)-30],
			wantErr: "ends in the middle", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "truncated JSON", body: []byte(`{"version":2,"bc":[{"pid":"iso6523-actorid-upis::0088:1",`),
			wantErr: "ends in the middle", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "empty body", body: []byte{},
			wantErr: "empty", exportHits: 1, fileHits: 1,
			ranges: []string{""}, ifRanges: []string{""},
		},
		{
			name: "idle server: idle timeout, retried, then error", body: xml,
			setup:   func(f *fakeExport) { f.idle = true },
			cfg:     func(c *SyncConfig) { c.IdleTimeout, c.Retries = 200*time.Millisecond, 1 },
			wantErr: "giving up after 2 attempts: mirror sync: no data from the export server for 200ms",
			// Which requests got through before each idle timeout depends on the
			// machine's load; the error says there were two attempts.
			exportHits: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeExport(t, tt.body)
			if tt.setup != nil {
				f.with(tt.setup)
			}
			clock := clock.NewFake(syncEpoch)
			cfg := syncConfig(t, f.dir.URL, clock)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			if tt.wantErr != "" {
				// An earlier export without sync state: it must survive a failure.
				if err := os.WriteFile(cfg.Dest, old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var lastDone, lastTotal int64
			cfg.Progress = func(done, total int64) { lastDone, lastTotal = done, total }

			res, err := Sync(t.Context(), cfg)

			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				assertFile(t, cfg.Dest, old)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if !res.Changed || res.Path != cfg.Dest || res.Bytes != int64(len(tt.body)) {
					t.Errorf("result %+v, want Changed, Path %s, %d bytes", res, cfg.Dest, len(tt.body))
				}
				assertFile(t, cfg.Dest, tt.body)
				assertNoFile(t, cfg.Dest+".partial")
				if lastDone != int64(len(tt.body)) || lastTotal != int64(len(tt.body)) {
					t.Errorf("last progress (%d, %d), want (%d, %[3]d)", lastDone, lastTotal, len(tt.body))
				}
				st := readState(t, cfg.Dest)
				if st.ETag != res.ETag || st.Partial != nil || len(st.Requests) != tt.exportHits {
					t.Errorf("state %+v, want ETag %s, no partial, %d requests", st, res.ETag, tt.exportHits)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if tt.exportHits < 0 {
				return
			}
			if f.exportHits != tt.exportHits || f.fileHits != tt.fileHits {
				t.Errorf("hits: export %d, file %d; want %d, %d", f.exportHits, f.fileHits, tt.exportHits, tt.fileHits)
			}
			if fmt.Sprint(f.ranges) != fmt.Sprint(tt.ranges) || fmt.Sprint(f.ifRanges) != fmt.Sprint(tt.ifRanges) {
				t.Errorf("Range %q If-Range %q; want %q %q", f.ranges, f.ifRanges, tt.ranges, tt.ifRanges)
			}
		})
	}
}

// TestSyncConditional: a second run sends the validators and gets 304; a changed
// export is downloaded again.
func TestSyncConditional(t *testing.T) {
	t.Parallel()
	v1, v2 := testExport(100, "v1"), testExport(120, "v2")
	f := newFakeExport(t, v1)
	clock := clock.NewFake(syncEpoch)
	cfg := syncConfig(t, f.dir.URL, clock)

	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed || res.ETag != `"v1"` {
		t.Fatalf("first sync: %+v, %v", res, err)
	}

	clock.Advance(time.Hour)
	res, err = Sync(t.Context(), cfg)
	if err != nil || res.Changed || res.Bytes != int64(len(v1)) || res.ETag != `"v1"` {
		t.Fatalf("second sync: %+v, %v; want unchanged", res, err)
	}
	assertFile(t, cfg.Dest, v1)

	f.set(v2, `"v2"`, f.mod.Add(24*time.Hour))
	clock.Advance(time.Hour)
	res, err = Sync(t.Context(), cfg)
	if err != nil || !res.Changed || res.ETag != `"v2"` || res.LastModified != "Sat, 21 Nov 2026 02:00:00 GMT" {
		t.Fatalf("third sync: %+v, %v; want the new export", res, err)
	}
	assertFile(t, cfg.Dest, v2)

	f.mu.Lock()
	defer f.mu.Unlock()
	if want := []string{"", `"v1"`, `"v1"`}; fmt.Sprint(f.inm) != fmt.Sprint(want) {
		t.Errorf("If-None-Match %q, want %q", f.inm, want)
	}
	if f.exportHits != 3 || f.fileHits != 3 {
		t.Errorf("hits: export %d, file %d; want 3, 3", f.exportHits, f.fileHits)
	}
	if st := readState(t, cfg.Dest); len(st.Requests) != 3 || st.URL != f.static.URL+"/export1/export-all-businesscards.xml" {
		t.Errorf("state %+v: want 3 requests and the static URL", st)
	}
}

// TestSyncValidatorsNeedDest: without Dest the state's validators are not sent.
func TestSyncValidatorsNeedDest(t *testing.T) {
	t.Parallel()
	body := testExport(10, "x")
	f := newFakeExport(t, body)
	cfg := syncConfig(t, f.dir.URL, clock.NewFake(syncEpoch))
	if _, err := Sync(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cfg.Dest); err != nil {
		t.Fatal(err)
	}
	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed {
		t.Fatalf("%+v, %v; want a new download", res, err)
	}
	assertFile(t, cfg.Dest, body)
}

// TestSyncRateLimited: a 429 is remembered and the Directory is left alone until its
// Retry-After passes.
func TestSyncRateLimited(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, retryAfter string
		wantWait         time.Duration
	}{
		{"seconds", "86400", 24 * time.Hour},
		{"absent", "-", 24 * time.Hour},
		{"HTTP date", syncEpoch.Add(3 * time.Hour).Format(http.TimeFormat), 3 * time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := testExport(10, "x")
			f := newFakeExport(t, body)
			f.with(func(f *fakeExport) { f.limit, f.retry = 1, tt.retryAfter })
			clock := clock.NewFake(syncEpoch)
			cfg := syncConfig(t, f.dir.URL, clock)
			if _, err := Sync(t.Context(), cfg); err != nil {
				t.Fatal(err)
			}

			res, err := Sync(t.Context(), cfg)
			var rl *RateLimitedError
			if !errors.As(err, &rl) || !rl.ByDirectory || !rl.Contacted {
				t.Fatalf("err = %v, want a RateLimitedError from the Directory", err)
			}
			until := syncEpoch.Add(tt.wantWait)
			if !rl.Until.Equal(until) || !res.NotBefore.Equal(until) {
				t.Errorf("Until %v, NotBefore %v; want %v", rl.Until, res.NotBefore, until)
			}
			want := "the Directory refused the export download (429): its limit is 3 per IP per 24 h; next attempt after " + until.Format(time.RFC3339)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err, want)
			}
			assertFile(t, cfg.Dest, body)

			// Until then, nothing is sent.
			clock.Advance(tt.wantWait - time.Second)
			_, err = Sync(t.Context(), cfg)
			if !errors.As(err, &rl) || rl.Contacted || !rl.Until.Equal(until) || !strings.Contains(err.Error(), "not contacting the Directory") {
				t.Fatalf("err = %v, want a local refusal until %v", err, until)
			}
			if e, _ := f.hits(); e != 2 {
				t.Fatalf("export hits %d, want 2: the refused call must not contact the Directory", e)
			}

			clock.Advance(time.Second)
			f.with(func(f *fakeExport) { f.limit = 0 })
			if res, err := Sync(t.Context(), cfg); err != nil || res.Changed {
				t.Fatalf("after Retry-After: %+v, %v; want 304", res, err)
			}
		})
	}
}

// TestSyncLocalBudget: the budget counts requests to the export path (304s and
// retries included) and refuses without sending anything.
func TestSyncLocalBudget(t *testing.T) {
	t.Parallel()
	body := testExport(10, "x")
	f := newFakeExport(t, body)
	clock := clock.NewFake(syncEpoch)
	cfg := syncConfig(t, f.dir.URL, clock)
	cfg.MaxDownloadsPerDay = 2

	if _, err := Sync(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if res, err := Sync(t.Context(), cfg); err != nil || res.Changed {
		t.Fatalf("%+v, %v; want 304", res, err)
	}
	clock.Advance(time.Hour)
	res, err := Sync(t.Context(), cfg)
	var rl *RateLimitedError
	if !errors.As(err, &rl) || rl.ByDirectory || rl.Requests != 2 || rl.Budget != 2 {
		t.Fatalf("err = %v, want the local budget refusal", err)
	}
	if until := syncEpoch.Add(24 * time.Hour); !rl.Until.Equal(until) || !res.NotBefore.Equal(until) {
		t.Errorf("Until %v, want %v (when the first request leaves the window)", rl.Until, until)
	}
	if !strings.Contains(err.Error(), "2 of the local budget of 2 export requests per 24 h") {
		t.Errorf("message %q", err)
	}
	if e, _ := f.hits(); e != 2 {
		t.Fatalf("export hits %d, want 2", e)
	}

	clock.Advance(22 * time.Hour)
	if _, err := Sync(t.Context(), cfg); err != nil {
		t.Fatalf("a day after the first request: %v", err)
	}

	// A failing export path spends the budget on its retries and stops there.
	f.with(func(f *fakeExport) { f.exportStatus, f.exportStatusTimes = 500, -1 })
	clock.Advance(24 * time.Hour)
	cfg.Retries = 5
	_, err = Sync(t.Context(), cfg)
	if !errors.As(err, &rl) || rl.Err == nil || !strings.Contains(err.Error(), "last failure") {
		t.Fatalf("err = %v, want the budget to stop the retries", err)
	}
	if e, _ := f.hits(); e != 5 {
		t.Fatalf("export hits %d, want 5 (2 spent by the failing run)", e)
	}
}

// TestSyncUnreachableSpendsNothing: a sync whose requests never reach the Directory
// (the connection cannot be made: no network, a DNS failure, a refused port) spends
// none of the budget, however often it retries: the next sync is not refused for it.
func TestSyncUnreachableSpendsNothing(t *testing.T) {
	t.Parallel()
	body := testExport(10, "x")
	f := newFakeExport(t, body)
	clock := clock.NewFake(syncEpoch)
	cfg := syncConfig(t, f.dir.URL, clock)
	cfg.MaxDownloadsPerDay = 2
	cfg.Retries = 3
	var unreachable atomic.Bool
	unreachable.Store(true)
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	cfg.HTTPClient = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if unreachable.Load() {
				return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connect: network is unreachable")}
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}}
	_, err := Sync(t.Context(), cfg)
	var rl *RateLimitedError
	if err == nil || errors.As(err, &rl) || !strings.Contains(err.Error(), "network is unreachable") {
		t.Fatalf("err = %v, want the connection's failure", err)
	}
	if st := readState(t, cfg.Dest); len(st.Requests) != 0 {
		t.Errorf("%d export requests recorded by a sync that reached nothing: %v", len(st.Requests), st.Requests)
	}
	unreachable.Store(false)
	clock.Advance(time.Minute)
	if res, err := Sync(t.Context(), cfg); err != nil || !res.Changed {
		t.Fatalf("the next sync, the network back: %+v, %v", res, err)
	}
	if e, _ := f.hits(); e != 1 {
		t.Errorf("export hits %d, want 1", e)
	}
	if st := readState(t, cfg.Dest); len(st.Requests) != 1 {
		t.Errorf("%d export requests recorded, want 1: %v", len(st.Requests), st.Requests)
	}
}

// TestSyncResumeAcrossRuns: a download cut with no retries left keeps its partial file,
// which the next run resumes if the file did not change, and drops otherwise.
func TestSyncResumeAcrossRuns(t *testing.T) {
	t.Parallel()
	v1, v2 := testExport(2000, "v1"), testExport(1500, "v2")
	short := testExport(300, "v1")
	tests := []struct {
		name     string
		between  func(f *fakeExport)
		want     []byte
		ranges   []string
		ifRanges []string
	}{
		{
			name:     "unchanged: resumed",
			want:     v1,
			ranges:   []string{"", "bytes=100000-"},
			ifRanges: []string{"", `"v1"`},
		},
		{
			name:     "changed: If-Range fails, whole new file",
			between:  func(f *fakeExport) { f.body, f.etag = v2, `"v2"` },
			want:     v2,
			ranges:   []string{"", "bytes=100000-"},
			ifRanges: []string{"", `"v1"`},
		},
		{
			name: "range not satisfiable (416): restart",
			// Same validator, shorter file: the partial file is past its end.
			between:  func(f *fakeExport) { f.body = short },
			want:     short,
			ranges:   []string{"", "bytes=100000-", ""},
			ifRanges: []string{"", `"v1"`, ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeExport(t, v1)
			f.with(func(f *fakeExport) { f.cutAfter, f.cutTimes = 100_000, 1 })
			clock := clock.NewFake(syncEpoch)
			cfg := syncConfig(t, f.dir.URL, clock)
			cfg.Retries = -1
			if _, err := Sync(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "cut after 100000 bytes") {
				t.Fatalf("err = %v, want the cut", err)
			}
			assertNoFile(t, cfg.Dest)
			assertFile(t, cfg.Dest+".partial", v1[:100_000])
			if st := readState(t, cfg.Dest); st.Partial == nil || st.Partial.ETag != `"v1"` {
				t.Fatalf("state %+v, want the partial's validators", st)
			}

			if tt.between != nil {
				f.with(tt.between)
			}
			clock.Advance(time.Hour)
			res, err := Sync(t.Context(), cfg)
			if err != nil || !res.Changed {
				t.Fatalf("%+v, %v", res, err)
			}
			assertFile(t, cfg.Dest, tt.want)
			assertNoFile(t, cfg.Dest+".partial")
			f.mu.Lock()
			defer f.mu.Unlock()
			if fmt.Sprint(f.ranges) != fmt.Sprint(tt.ranges) || fmt.Sprint(f.ifRanges) != fmt.Sprint(tt.ifRanges) {
				t.Errorf("Range %q If-Range %q; want %q %q", f.ranges, f.ifRanges, tt.ranges, tt.ifRanges)
			}
		})
	}
}

// TestSyncNotModifiedDropsPartial: a partial download of another version is useless
// once the Directory says Dest is current.
func TestSyncNotModifiedDropsPartial(t *testing.T) {
	t.Parallel()
	v1, v2 := testExport(100, "v1"), testExport(2000, "v2")
	f := newFakeExport(t, v1)
	clock := clock.NewFake(syncEpoch)
	cfg := syncConfig(t, f.dir.URL, clock)
	if _, err := Sync(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	f.set(v2, `"v2"`, f.mod.Add(time.Hour))
	f.with(func(f *fakeExport) { f.cutAfter, f.cutTimes = 1000, 1 })
	cfg.Retries = -1
	if _, err := Sync(t.Context(), cfg); err == nil {
		t.Fatal("want the cut")
	}
	f.set(v1, `"v1"`, f.mod.Add(-time.Hour)) // rolled back
	res, err := Sync(t.Context(), cfg)
	if err != nil || res.Changed {
		t.Fatalf("%+v, %v; want 304", res, err)
	}
	assertFile(t, cfg.Dest, v1)
	assertNoFile(t, cfg.Dest+".partial")
}

// TestSyncCorruptState: an unreadable state file is ignored with a warning.
func TestSyncCorruptState(t *testing.T) {
	t.Parallel()
	body := testExport(10, "x")
	f := newFakeExport(t, body)
	cfg := syncConfig(t, f.dir.URL, clock.NewFake(syncEpoch))
	var logs bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	if err := os.WriteFile(cfg.Dest+".sync.json", []byte(`{"etag": "v1", "requests": [tr`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A partial file the state no longer describes cannot be trusted.
	if err := os.WriteFile(cfg.Dest+".partial", []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	assertFile(t, cfg.Dest, body)
	if !strings.Contains(logs.String(), "ignoring the unreadable sync state file") {
		t.Errorf("no warning in the log:\n%s", logs.String())
	}
	if st := readState(t, cfg.Dest); st.ETag != `"v1"` || len(st.Requests) != 1 {
		t.Errorf("state %+v was not rewritten", st)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ranges[0] != "" {
		t.Errorf("Range %q sent for an undescribed partial file", f.ranges[0])
	}
}

// TestSyncContextEnd: cancelling the context or reaching Timeout ends the download
// promptly; Dest stays as it was.
func TestSyncContextEnd(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		cancel bool
		want   error
	}{
		{"cancel", true, context.Canceled},
		{"timeout", false, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeExport(t, testExport(10, "x"))
			f.with(func(f *fakeExport) { f.idle = true })
			cfg := syncConfig(t, f.dir.URL, clock.NewFake(syncEpoch))
			cfg.IdleTimeout = time.Hour
			if !tt.cancel {
				cfg.Timeout = 100 * time.Millisecond
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancel {
				go func() {
					<-f.idleStarted
					cancel()
				}()
			}
			_, err := Sync(ctx, cfg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			assertNoFile(t, cfg.Dest)
			if _, file := f.hits(); file > 1 {
				t.Errorf("file hits %d, want at most 1 (no retry after the context ended)", file)
			}
		})
	}
}

// TestSyncNetguardClient: with netguard's client, which follows no redirects and has a
// short per-request Timeout, Sync follows the 302 itself and is bounded by its own
// deadlines.
func TestSyncNetguardClient(t *testing.T) {
	t.Parallel()
	body := testExport(3000, "x")
	f := newFakeExport(t, body)
	var exempt []netip.AddrPort
	for _, s := range []*httptest.Server{f.dir, f.static} {
		exempt = append(exempt, netip.MustParseAddrPort(s.Listener.Addr().String()))
	}
	cfg := syncConfig(t, f.dir.URL, clock.NewFake(syncEpoch))
	cfg.HTTPClient = netguard.NewHTTPClient(netguard.Policy{Exempt: exempt, Timeout: time.Nanosecond})
	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	assertFile(t, cfg.Dest, body)

	// The guard still applies: a redirect to a non-exempt loopback port is refused.
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	f.with(func(f *fakeExport) { f.target = other.URL + "/export1/export-all-businesscards.xml" })
	cfg.Dest = filepath.Join(t.TempDir(), "guarded.xml")
	cfg.Retries = -1
	if _, err := Sync(t.Context(), cfg); !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Fatalf("err = %v, want ErrForbiddenAddress", err)
	}
}

// TestSyncRefusesDowngrade: an https Directory redirecting to plain http is refused.
func TestSyncRefusesDowngrade(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsDir := httptest.NewTLSServer(http.RedirectHandler(plain.URL+"/export1/x.xml", http.StatusFound))
	defer tlsDir.Close()
	cfg := syncConfig(t, tlsDir.URL, clock.NewFake(syncEpoch))
	cfg.HTTPClient = tlsDir.Client()
	_, err := Sync(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "from https to plain http") {
		t.Fatalf("err = %v", err)
	}
}

// TestSyncConfigErrors: a bad configuration fails before anything is sent.
func TestSyncConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		cfg  SyncConfig
		want string
	}{
		{"no Dest", SyncConfig{DirectoryURL: "https://directory.peppol.eu"}, "no destination"},
		{"no URL", SyncConfig{Dest: "x"}, "not an http(s) URL"},
		{"ftp", SyncConfig{DirectoryURL: "ftp://directory.peppol.eu", Dest: "x"}, "not an http(s) URL"},
		{"no host", SyncConfig{DirectoryURL: "https:///export", Dest: "x"}, "not an http(s) URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Sync(t.Context(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseContentRange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in           string
		first, total int64
		ok           bool
	}{
		{"bytes 100-199/200", 100, 200, true},
		{"bytes 0-0/*", 0, -1, true},
		{"bytes */200", 0, -1, false},
		{"items 1-2/3", 0, -1, false},
		{"bytes 5-9", 0, -1, false},
		{"bytes x-9/10", 0, -1, false},
	} {
		first, total, err := parseContentRange(tt.in)
		if (err == nil) != tt.ok || (tt.ok && (first != tt.first || total != tt.total)) {
			t.Errorf("parseContentRange(%q) = %d, %d, %v", tt.in, first, total, err)
		}
	}
}

func TestPlausibleExportEnds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		head, tail string
		ok         bool
	}{
		{"\ufeff<?xml", "</root>\n", true},
		{"  {\"version\":2", "]}\r\n", true},
		{"[1,", "2]", true},
		{"<root>", "<businessc", false},
		{"{", "\"a\":", false},
		{"Participant ID;Names", "x;y\n", true}, // CSV: nothing cheap to check
		{" \n", " ", false},
	} {
		if err := plausibleExportEnds([]byte(tt.head), []byte(tt.tail)); (err == nil) != tt.ok {
			t.Errorf("plausibleExportEnds(%q, %q) = %v", tt.head, tt.tail, err)
		}
	}
}

// startNetsim starts a simulated network whose Directory serves the export.
func startNetsim(t *testing.T) *netsim.Network {
	t.Helper()
	n, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 1, Participants: 200}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// TestSyncNetsim runs Sync against netsim's Directory: the export of its own dataset,
// 304s, a changed export, the Directory's daily limit and our own budget below it.
func TestSyncNetsim(t *testing.T) {
	t.Parallel()
	n := startNetsim(t)
	clock := clock.NewFake(syncEpoch)
	cfg := syncConfig(t, n.DirectoryURL(), clock)
	cfg.MaxDownloadsPerDay = 0 // the default, 2

	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed || res.ETag == "" || res.LastModified == "" {
		t.Fatalf("first sync: %+v, %v", res, err)
	}
	got, err := os.ReadFile(cfg.Dest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(got, []byte("<?xml")) || !bytes.Contains(got, []byte("urn:peppol:schema:pd:businesscard-generic:2025:03")) || res.Bytes != int64(len(got)) {
		t.Fatalf("downloaded %d bytes, not the XML v3 export: %.200q", len(got), got)
	}

	clock.Advance(time.Hour)
	if res, err := Sync(t.Context(), cfg); err != nil || res.Changed {
		t.Fatalf("second sync: %+v, %v; want 304", res, err)
	}
	h := n.Hits().Directory
	if h.ExportRedirects != 2 || h.ExportDownloads != 2 {
		t.Fatalf("hits %+v, want 2 redirects and 2 file requests", h)
	}

	// Our budget (2) is used: the Directory would still allow a third request today,
	// but we keep it for someone else on this IP.
	clock.Advance(time.Hour)
	_, err = Sync(t.Context(), cfg)
	var rl *RateLimitedError
	if !errors.As(err, &rl) || rl.ByDirectory {
		t.Fatalf("third sync: %v, want the local budget refusal", err)
	}
	if h := n.Hits().Directory; h.ExportRedirects != 2 {
		t.Fatalf("hits %+v: the refused sync contacted the Directory", h)
	}

	// With a budget above the Directory's limit, its 429 stops us and is remembered.
	cfg.MaxDownloadsPerDay = 10
	v2 := testExport(300, "v2")
	n.SetExport(v2, syncEpoch)
	if res, err := Sync(t.Context(), cfg); err != nil || !res.Changed {
		t.Fatalf("changed export: %+v, %v", res, err)
	}
	assertFile(t, cfg.Dest, v2)
	_, err = Sync(t.Context(), cfg)
	if !errors.As(err, &rl) || !rl.ByDirectory || !rl.Until.Equal(clock.Now().Add(24*time.Hour)) {
		t.Fatalf("fourth request: %v, want the Directory's 429 for 24 h", err)
	}
	clock.Advance(23 * time.Hour)
	if _, err = Sync(t.Context(), cfg); !errors.As(err, &rl) || rl.Contacted {
		t.Fatalf("after the 429: %v, want a local refusal", err)
	}
	if h := n.Hits().Directory; h.ExportRedirects != 4 || h.ExportLimited != 1 {
		t.Fatalf("hits %+v, want 4 redirects, 1 limited", h)
	}
	assertFile(t, cfg.Dest, v2)
}

// TestSyncNetsimFaults: netsim's export file faults against Sync.
func TestSyncNetsimFaults(t *testing.T) {
	t.Parallel()
	body := testExport(3000, "n") // ~450 KB
	tests := []struct {
		name          string
		fault         netsim.ExportFault
		retries       int
		wantErr       string
		wantDownloads int64
	}{
		{name: "cut twice: resumed", fault: netsim.ExportFault{CutAfter: 64 << 10, Times: 2}, retries: 3, wantDownloads: 3},
		{name: "cut, no retries left", fault: netsim.ExportFault{CutAfter: 64 << 10}, retries: 2, wantErr: "giving up after 3 attempts", wantDownloads: 3},
		{name: "transient 500", fault: netsim.ExportFault{Status: 500, Times: 2}, retries: 3, wantDownloads: 3},
		{name: "persistent 500", fault: netsim.ExportFault{Status: 500}, retries: 3, wantErr: "500 Internal Server Error", wantDownloads: 4},
		{name: "503 for a day", fault: netsim.ExportFault{Status: 503}, retries: 3, wantErr: "not retrying now", wantDownloads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := startNetsim(t)
			n.SetExport(body, syncEpoch.Add(-time.Hour))
			n.SetExportFault(tt.fault)
			cfg := syncConfig(t, n.DirectoryURL(), clock.NewFake(syncEpoch))
			cfg.Retries = tt.retries
			old := []byte("<root>the previous export</root>")
			if err := os.WriteFile(cfg.Dest, old, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Sync(t.Context(), cfg)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				assertFile(t, cfg.Dest, body)
			} else {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				assertFile(t, cfg.Dest, old)
			}
			if h := n.Hits().Directory; h.ExportRedirects != 1 || h.ExportDownloads != tt.wantDownloads {
				t.Errorf("hits %+v, want 1 redirect and %d file requests", h, tt.wantDownloads)
			}
		})
	}
}

// TestSyncNetsimResumeNextRun: the partial file of a failed run is resumed by the next
// run, through the export path again.
func TestSyncNetsimResumeNextRun(t *testing.T) {
	t.Parallel()
	body := testExport(3000, "n")
	n := startNetsim(t)
	n.SetExport(body, syncEpoch.Add(-time.Hour))
	n.SetExportFault(netsim.ExportFault{CutAfter: 100_000, Times: 1})
	cfg := syncConfig(t, n.DirectoryURL(), clock.NewFake(syncEpoch))
	cfg.Retries = -1
	if _, err := Sync(t.Context(), cfg); err == nil {
		t.Fatal("want the cut")
	}
	assertFile(t, cfg.Dest+".partial", body[:100_000])
	var done []int64
	cfg.Progress = func(d, _ int64) { done = append(done, d) }
	res, err := Sync(t.Context(), cfg)
	if err != nil || !res.Changed {
		t.Fatalf("%+v, %v", res, err)
	}
	assertFile(t, cfg.Dest, body)
	if len(done) == 0 || done[0] != 100_000 {
		t.Errorf("progress %v, want it to start at the resumed 100000 bytes", done)
	}
	if h := n.Hits().Directory; h.ExportRedirects != 2 || h.ExportDownloads != 2 {
		t.Errorf("hits %+v, want 2 redirects, 2 file requests", h)
	}
}

// BenchmarkSync measures a whole download over loopback, verification and rename
// included, of a ~64 MB export as plain XML and as gzip.
func BenchmarkSync(b *testing.B) {
	xml := testExport(450_000, "bench")
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(xml)
	zw.Close()
	for _, bc := range []struct {
		name string
		body []byte
	}{{"xml", xml}, {"gzip", gz.Bytes()}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == DirectoryExportPath {
					http.Redirect(w, r, "/export1/export-all-businesscards.xml", http.StatusFound)
					return
				}
				w.Header().Set("ETag", `"bench"`)
				http.ServeContent(w, r, "", syncEpoch, bytes.NewReader(bc.body))
			}))
			defer srv.Close()
			dir := b.TempDir()
			b.SetBytes(int64(len(bc.body)))
			for i := 0; b.Loop(); i++ {
				cfg := SyncConfig{DirectoryURL: srv.URL, Dest: filepath.Join(dir, fmt.Sprintf("e%d.xml", i)), MaxDownloadsPerDay: 1}
				if _, err := Sync(b.Context(), cfg); err != nil {
					b.Fatal(err)
				}
				os.Remove(cfg.Dest)
			}
		})
	}
}
