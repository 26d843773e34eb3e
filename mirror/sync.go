package mirror

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/peppol/directory"
)

// DirectoryExportPath is the Directory's path of the XML v3 business-card export (with
// document types). The Directory answers it with a 302 to a static file rebuilt daily.
const DirectoryExportPath = "/export/businesscards"

// DirectoryExportLimit is how many requests per IP and 24 h the Directory allows on
// one export path (phoss-directory export.limit.requestsperday); beyond it the answer
// is 429 with Retry-After: 86400.
const DirectoryExportLimit = 3

// Defaults of SyncConfig.
const (
	// DefaultSyncMaxDownloadsPerDay stays one below DirectoryExportLimit: a manual
	// download from the same IP must not make the next scheduled sync fail.
	DefaultSyncMaxDownloadsPerDay = 2
	DefaultSyncRetries            = 3
	DefaultSyncRetryBase          = time.Second
	DefaultSyncTimeout            = 30 * time.Minute
	DefaultSyncIdleTimeout        = 60 * time.Second
)

const (
	syncMaxRedirects  = 10
	syncMaxBackoff    = 2 * time.Minute
	syncMaxRetryAfter = 2 * time.Minute // a 5xx's Retry-After is waited for up to this; longer ends the run
	syncWindow        = 24 * time.Hour
	syncCopyBuffer    = 256 << 10
	syncProgressEvery = 1 << 20
	syncVerifyWindow  = 512
)

// syncRetryAfterLimit is the longest wait a Retry-After from the export server can ask
// for, in seconds or as a date.
const syncRetryAfterLimit = 7 * 24 * time.Hour

// SyncConfig says where Sync downloads the Directory's export from and how carefully.
type SyncConfig struct {
	// DirectoryURL is the Directory's base URL, e.g. https://directory.peppol.eu;
	// DirectoryExportPath is appended.
	DirectoryURL string
	// Dest is where the downloaded export is kept, bytes as served (plain XML or gzip),
	// e.g. <mirror>.export.xml. Beside it live Dest+".partial" (a download in progress
	// or to resume) and Dest+".sync.json" (the sync state).
	Dest string
	// HTTPClient sends the requests; nil means a client with connect, TLS and header
	// timeouts. Sync follows redirects itself (checking each hop's scheme) and bounds
	// the download with Timeout and IdleTimeout, so the client's own CheckRedirect and
	// Timeout are not used: pass peppolgate's SSRF-guarded client (internal/netguard)
	// whose per-request Timeout is meant for small answers.
	HTTPClient *http.Client
	// MaxDownloadsPerDay is our own budget of requests to DirectoryExportPath per 24 h
	// (conditional ones and retries included); 0 means DefaultSyncMaxDownloadsPerDay.
	MaxDownloadsPerDay int
	// Retries is how often a transient failure (network error, 5xx, cut connection,
	// idle timeout) is retried; 0 means DefaultSyncRetries, negative means none.
	Retries int
	// RetryBase is the first backoff delay, doubled per retry with jitter; 0 means
	// DefaultSyncRetryBase.
	RetryBase time.Duration
	// Timeout bounds the whole Sync; 0 means DefaultSyncTimeout.
	Timeout time.Duration
	// IdleTimeout fails an attempt that receives no byte for this long (headers or
	// body), which is then retried; 0 means DefaultSyncIdleTimeout.
	IdleTimeout time.Duration
	// UserAgent is sent as User-Agent; "" means directory.DefaultUserAgent.
	UserAgent string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Logger receives progress and warnings; nil discards them.
	Logger *slog.Logger
	// Progress, when set, is called as the download advances with the bytes of the
	// file so far and its total size (-1 when unknown).
	Progress func(done, total int64)
}

// SyncResult says what Sync did.
type SyncResult struct {
	// Changed is true when a new export was written to Path.
	Changed bool
	// Path is the export file (Dest); it exists when Changed or when the export was
	// unchanged (304).
	Path string
	// Bytes is the size of the file at Path.
	Bytes int64
	// ETag and LastModified are the validators of the file at Path.
	ETag, LastModified string
	// NotBefore, when set, is the time before which Sync will not contact the
	// Directory: the local budget is used up or the Directory answered 429.
	NotBefore time.Time
}

// RateLimitedError is returned by Sync when the export must not be requested now,
// either because the Directory answered 429 (now or in an earlier run) or because the
// local budget of requests per 24 h is used up.
type RateLimitedError struct {
	// Until is the earliest time for the next attempt.
	Until time.Time
	// ByDirectory is true when the Directory's 429 is the reason.
	ByDirectory bool
	// Contacted is true when this Sync reached the Directory before being refused.
	Contacted bool
	// Requests and Budget are the requests made in the last 24 h and
	// MaxDownloadsPerDay, when the local budget is the reason.
	Requests, Budget int
	// Err is the transient failure whose retry the budget stopped, or nil.
	Err error
}

// Error says why and when to try again.
func (e *RateLimitedError) Error() string {
	until := e.Until.UTC().Format(time.RFC3339)
	var msg string
	switch {
	case e.ByDirectory && e.Contacted:
		msg = fmt.Sprintf("mirror sync: the Directory refused the export download (429): its limit is %d per IP per 24 h; next attempt after %s", DirectoryExportLimit, until)
	case e.ByDirectory:
		msg = fmt.Sprintf("mirror sync: not contacting the Directory: it refused the export download earlier (429, its limit is %d per IP per 24 h); next attempt after %s", DirectoryExportLimit, until)
	default:
		msg = fmt.Sprintf("mirror sync: not contacting the Directory: %d of the local budget of %d export requests per 24 h are used (the Directory allows %d per IP); next attempt after %s", e.Requests, e.Budget, DirectoryExportLimit, until)
	}
	if e.Err != nil {
		msg += "; last failure: " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the failure whose retry the budget stopped, or nil.
func (e *RateLimitedError) Unwrap() error { return e.Err }

// syncState is the JSON file beside Dest.
type syncState struct {
	// ETag, LastModified and URL describe Dest: its validators and the final
	// (redirected) URL it came from.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	URL          string `json:"url,omitempty"`
	// Synced is when Dest was last confirmed current (downloaded or 304).
	Synced time.Time `json:"synced,omitzero"`
	// Requests are the times of the requests to DirectoryExportPath in the last 24 h.
	Requests []time.Time `json:"requests,omitempty"`
	// NotBefore is the end of a 429's Retry-After.
	NotBefore time.Time `json:"notBefore,omitzero"`
	// Partial describes Dest+".partial" when it may be resumed.
	Partial *syncPartial `json:"partial,omitempty"`
}

// syncPartial is what a resumable partial download was fetched from.
type syncPartial struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
}

// ifRange returns the validator to send as If-Range, "" when none is usable: a weak
// ETag never matches in If-Range.
func (p *syncPartial) ifRange() string {
	if p == nil {
		return ""
	}
	if p.ETag != "" && !strings.HasPrefix(p.ETag, "W/") {
		return p.ETag
	}
	return p.LastModified
}

// syncer is one Sync run.
type syncer struct {
	cfg       SyncConfig
	client    *http.Client
	log       *slog.Logger
	exportURL *url.URL
	statePath string
	partPath  string
	st        syncState
	destOK    bool // Dest exists, so its validators may be sent

	// download progress within this run
	finalURL *url.URL     // where the export is served from, once known
	offset   int64        // bytes of the partial file to keep
	part     *syncPartial // validators of the partial file
	lastErr  error        // the last transient failure
	hint     time.Duration
}

// Sync downloads the Directory's business-card export to cfg.Dest when it changed
// since the last successful sync, using conditional requests, resuming interrupted
// downloads with Range/If-Range and retrying transient failures with backoff. It never
// leaves Dest half-written: the download goes to Dest+".partial", is verified (non-empty;
// a gzip stream complete; XML or JSON ending plausibly) and renamed over Dest.
//
// Sync keeps its state in files beside Dest; two Syncs for the same Dest must not run
// at the same time (the caller serialises them, e.g. one scheduler per mirror).
//
// Errors: a *RateLimitedError when the Directory answered 429 or the local budget is
// used up (the Directory is then not contacted); a configuration error; an error for a
// non-retryable answer (4xx) or a download that fails verification (the partial file is
// dropped); the last transient failure once Retries are used up (the partial file is
// kept for the next run to resume); the context's error, wrapped, when ctx ends or
// Timeout passes.
func Sync(ctx context.Context, cfg SyncConfig) (SyncResult, error) {
	s, err := newSyncer(cfg)
	if err != nil {
		return SyncResult{}, err
	}
	return s.run(ctx)
}

// newSyncer checks cfg and fills in the defaults.
func newSyncer(cfg SyncConfig) (*syncer, error) {
	if cfg.Dest == "" {
		return nil, errors.New("mirror sync: no destination file (Dest) given")
	}
	base, err := url.Parse(strings.TrimSpace(cfg.DirectoryURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("mirror sync: Directory URL %q is not an http(s) URL such as https://directory.peppol.eu", cfg.DirectoryURL)
	}
	exp := *base
	exp.Path = strings.TrimRight(base.Path, "/") + DirectoryExportPath
	exp.RawPath, exp.RawQuery, exp.Fragment = "", "", ""

	if cfg.MaxDownloadsPerDay <= 0 {
		cfg.MaxDownloadsPerDay = DefaultSyncMaxDownloadsPerDay
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultSyncRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = DefaultSyncRetryBase
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultSyncTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultSyncIdleTimeout
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = directory.DefaultUserAgent
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	var client http.Client
	if cfg.HTTPClient != nil {
		client = *cfg.HTTPClient
	} else {
		client.Transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			IdleConnTimeout:       90 * time.Second,
		}
	}
	// Redirects are followed by fetch (each hop to DirectoryExportPath is counted), and
	// the whole download is bounded by Timeout and IdleTimeout instead of a per-request
	// Timeout that would cut a multi-gigabyte body.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client.Timeout = 0

	return &syncer{
		cfg:       cfg,
		client:    &client,
		log:       log.With("component", "mirror-sync"),
		exportURL: &exp,
		statePath: cfg.Dest + ".sync.json",
		partPath:  cfg.Dest + ".partial",
	}, nil
}

// run is Sync after the configuration is checked.
func (s *syncer) run(ctx context.Context) (SyncResult, error) {
	if err := os.MkdirAll(filepath.Dir(s.cfg.Dest), 0o755); err != nil {
		return SyncResult{}, fmt.Errorf("mirror sync: %w", err)
	}
	s.loadState()
	now := s.cfg.Now()
	s.prune(now)
	if rl := s.refusal(now); rl != nil {
		s.log.Warn("export download refused locally", "until", rl.Until, "byDirectory", rl.ByDirectory)
		return SyncResult{Path: s.cfg.Dest, NotBefore: rl.Until}, rl
	}

	if fi, err := os.Stat(s.cfg.Dest); err == nil && fi.Mode().IsRegular() {
		s.destOK = true
	}
	s.preparePartial()

	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()

	restarted := false
	for attempt := 0; ; {
		out, err := s.attempt(ctx)
		var tr *syncTransient
		switch {
		case err == nil && out == syncNotModified:
			return s.notModified()
		case err == nil:
			return s.finish(ctx)
		case errors.Is(err, errSyncRestart) && !restarted:
			restarted = true // the first restart is free: it is not a failure
			continue
		case errors.Is(err, errSyncRestart):
			s.lastErr, s.hint = errors.New("mirror sync: the export server keeps refusing the resume"), 0
		case errors.As(err, &tr) && tr.retryAfter > syncMaxRetryAfter:
			// Waiting that long inside one run would hold it for hours; the next
			// scheduled run is the retry.
			return s.fail(fmt.Errorf("%w; it asks to retry after %s (at %s), so not retrying now", tr.err, tr.retryAfter, s.cfg.Now().Add(tr.retryAfter).UTC().Format(time.RFC3339)))
		case errors.As(err, &tr):
			s.lastErr, s.hint = tr.err, tr.retryAfter
		default:
			return s.fail(err)
		}
		attempt++
		if attempt > s.cfg.Retries {
			return s.fail(fmt.Errorf("mirror sync: giving up after %d attempts: %w", attempt, s.lastErr))
		}
		d := s.backoff(attempt)
		s.log.Warn("export download failed; retrying", "attempt", attempt, "of", s.cfg.Retries, "in", d, "err", s.lastErr, "resumeAt", s.offset)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return s.fail(fmt.Errorf("mirror sync: %w (after: %v)", ctx.Err(), s.lastErr))
		case <-t.C:
		}
	}
}

// fail saves the state (the partial download's validators stay for a resume) and
// returns err.
func (s *syncer) fail(err error) (SyncResult, error) {
	if serr := s.saveState(); serr != nil {
		s.log.Warn("cannot save the sync state", "err", serr)
	}
	var rl *RateLimitedError
	if errors.As(err, &rl) {
		return SyncResult{Path: s.cfg.Dest, NotBefore: rl.Until}, err
	}
	return SyncResult{}, err
}

// backoff returns the delay before retry number attempt (1-based): exponential from
// RetryBase with equal jitter, at least a 5xx's Retry-After.
func (s *syncer) backoff(attempt int) time.Duration {
	d := s.cfg.RetryBase << min(attempt-1, 20)
	if d <= 0 || d > syncMaxBackoff {
		d = syncMaxBackoff
	}
	d = d/2 + rand.N(d/2+1)
	d = max(d, s.hint) // the hint is at most syncMaxRetryAfter here

	return d
}

// refusal returns why the Directory must not be contacted at now, or nil.
func (s *syncer) refusal(now time.Time) *RateLimitedError {
	var rl *RateLimitedError
	if now.Before(s.st.NotBefore) {
		rl = &RateLimitedError{Until: s.st.NotBefore, ByDirectory: true}
	}
	if n := len(s.st.Requests); n >= s.cfg.MaxDownloadsPerDay {
		// A slot frees when the request that put us at the budget leaves the window.
		until := s.st.Requests[n-s.cfg.MaxDownloadsPerDay].Add(syncWindow)
		if rl == nil || until.After(rl.Until) {
			rl = &RateLimitedError{Until: until, Requests: n, Budget: s.cfg.MaxDownloadsPerDay}
		}
	}
	if rl != nil {
		rl.Err = s.lastErr
	}
	return rl
}

// prune drops request times outside the 24-hour window (and any from the future, which
// a clock change would leave behind: kept, they would block the budget indefinitely).
func (s *syncer) prune(now time.Time) {
	kept := s.st.Requests[:0]
	for _, t := range s.st.Requests {
		if now.Sub(t) < syncWindow && !t.After(now.Add(time.Minute)) {
			kept = append(kept, t)
		}
	}
	s.st.Requests = kept
}

// loadState reads the state file; a missing one is an empty state, a corrupt one is
// ignored with a warning.
func (s *syncer) loadState() {
	b, err := os.ReadFile(s.statePath)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err == nil {
		err = json.Unmarshal(b, &s.st)
	}
	if err != nil {
		s.log.Warn("ignoring the unreadable sync state file; the export will be downloaded in full", "path", s.statePath, "err", err)
		s.st = syncState{}
	}
}

// saveState writes the state file atomically (temp file, fsync, rename).
func (s *syncer) saveState() error {
	b, err := json.MarshalIndent(&s.st, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(s.statePath, append(b, '\n'))
}

// writeFileAtomic replaces path with data so that readers see the old or the new
// content, never a mix.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// preparePartial keeps the partial file of an earlier run when the state says what it
// was fetched from (so If-Range can prove it is still the same file), and removes it
// otherwise.
func (s *syncer) preparePartial() {
	p := s.st.Partial
	fi, err := os.Stat(s.partPath)
	if err == nil && fi.Mode().IsRegular() && fi.Size() > 0 && p.ifRange() != "" {
		if u, uerr := url.Parse(p.URL); uerr == nil {
			s.part, s.offset = p, fi.Size()
			s.log.Info("resuming the partial export download", "bytes", s.offset, "url", u.Redacted())
			return
		}
	}
	s.st.Partial = nil
	if err == nil {
		os.Remove(s.partPath)
	}
}

// dropPartial forgets the partial file; the next attempt starts from byte 0.
func (s *syncer) dropPartial() {
	s.offset, s.part, s.st.Partial = 0, nil, nil
	os.Remove(s.partPath)
}

type syncOutcome int

const (
	syncDownloaded syncOutcome = iota
	syncNotModified
)

// syncTransient marks a failure worth retrying.
type syncTransient struct {
	err        error
	retryAfter time.Duration
}

func (t *syncTransient) Error() string { return t.err.Error() }
func (t *syncTransient) Unwrap() error { return t.err }

func transient(err error) error { return &syncTransient{err: err} }

// errSyncRestart asks for one immediate new attempt from byte 0.
var errSyncRestart = errors.New("mirror sync: restart from byte 0")

// attempt makes one request (following redirects) and, on 200 or 206, writes the body
// to the partial file.
func (s *syncer) attempt(ctx context.Context) (syncOutcome, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	idle := httpx.NewIdleWatch(s.cfg.IdleTimeout, cancel)
	defer idle.Stop()

	start := s.exportURL
	if s.finalURL != nil {
		// A retry within this run goes straight to the static file: it is not the
		// rate-limited export path, and resuming there is what Range is for.
		start = s.finalURL
	}
	resp, err := s.fetch(actx, start, s.headers(), idle)
	if err != nil {
		return 0, s.classify(ctx, idle, err)
	}
	defer resp.Body.Close()
	idle.Kick()

	switch code := resp.StatusCode; {
	case code == http.StatusNotModified:
		return syncNotModified, nil
	case code == http.StatusTooManyRequests:
		return 0, s.rateLimited(resp)
	case code == http.StatusRequestedRangeNotSatisfiable:
		s.log.Warn("the export server cannot serve the rest of the partial download (416); starting from byte 0", "bytes", s.offset)
		s.dropPartial()
		return 0, errSyncRestart
	case code >= 500 || code == http.StatusRequestTimeout:
		return 0, &syncTransient{
			err:        fmt.Errorf("mirror sync: %s answered %s", redact(resp.Request.URL), resp.Status),
			retryAfter: httpx.ParseRetryAfter(resp.Header.Get("Retry-After"), s.cfg.Now(), 0, syncRetryAfterLimit),
		}
	case code == http.StatusOK:
		if s.offset > 0 {
			s.log.Info("the export server sent the whole file instead of the rest (200, the file changed or Range is not supported); starting from byte 0", "bytes", s.offset)
			s.offset = 0
		}
	case code == http.StatusPartialContent:
		first, _, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err != nil || first != s.offset || s.offset == 0 {
			s.log.Warn("the export server's partial answer does not continue the download; starting from byte 0", "contentRange", resp.Header.Get("Content-Range"), "want", s.offset)
			s.dropPartial()
			return 0, errSyncRestart
		}
	default:
		return 0, fmt.Errorf("mirror sync: %s answered %s; not retrying (check the Directory URL)", redact(resp.Request.URL), resp.Status)
	}

	// From here the partial file holds this answer's bytes: remember what it is, so
	// that a cut (now or in a later run) can resume with If-Range.
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.StatusCode == http.StatusPartialContent {
		// If-Range matched, so the validators are those we sent; servers need not
		// repeat them all.
		etag, lm = cmp(etag, s.part.ETag), cmp(lm, s.part.LastModified)
	}
	s.part = &syncPartial{URL: s.finalURL.String(), ETag: etag, LastModified: lm}
	s.st.Partial = s.part
	if err := s.saveState(); err != nil {
		return 0, fmt.Errorf("mirror sync: saving the sync state: %w", err)
	}

	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = s.offset + resp.ContentLength
	}
	if resp.StatusCode == http.StatusPartialContent {
		if _, t, _ := parseContentRange(resp.Header.Get("Content-Range")); t >= 0 {
			total = t
		}
	}
	return syncDownloaded, s.copyBody(ctx, resp.Body, total, idle)
}

// cmp returns a when it is set, else b.
func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// copyBody appends body to the partial file at s.offset, advancing s.offset as bytes
// arrive so that a cut keeps them for the resume.
func (s *syncer) copyBody(ctx context.Context, body io.Reader, total int64, idle *httpx.IdleWatch) error {
	f, err := os.OpenFile(s.partPath, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("mirror sync: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(s.offset); err != nil {
		return fmt.Errorf("mirror sync: %w", err)
	}
	if _, err := f.Seek(s.offset, io.SeekStart); err != nil {
		return fmt.Errorf("mirror sync: %w", err)
	}
	buf := make([]byte, syncCopyBuffer)
	lastReport := s.offset
	report := func() {
		if s.cfg.Progress != nil {
			s.cfg.Progress(s.offset, total)
		}
		lastReport = s.offset
	}
	report()
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			idle.Kick()
			if _, err := f.Write(buf[:n]); err != nil {
				return fmt.Errorf("mirror sync: writing %s: %w", s.partPath, err)
			}
			s.offset += int64(n)
			if s.offset-lastReport >= syncProgressEvery {
				report()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return s.classify(ctx, idle, fmt.Errorf("mirror sync: download cut after %d bytes: %w", s.offset, rerr))
		}
	}
	report()
	if total >= 0 && s.offset != total {
		return transient(fmt.Errorf("mirror sync: download ended after %d of %d bytes", s.offset, total))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("mirror sync: %w", err)
	}
	return f.Close()
}

// classify turns a request or read failure into the end of the run (ctx ended), a
// transient failure (idle timeout, network error) or a permanent one.
func (s *syncer) classify(ctx context.Context, idle *httpx.IdleWatch, err error) error {
	var rl *RateLimitedError
	switch {
	case errors.As(err, &rl), errors.Is(err, errSyncPermanent):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("mirror sync: %w (%d bytes kept in %s for a resume)", ctx.Err(), s.offset, s.partPath)
	case idle.Fired():
		return transient(fmt.Errorf("mirror sync: no data from the export server for %s (%d bytes so far)", s.cfg.IdleTimeout, s.offset))
	}
	return transient(err)
}

// errSyncPermanent marks failures not worth retrying.
var errSyncPermanent = errors.New("not retryable")

// headers returns the request headers: the conditional ones for Dest, and Range with
// If-Range for a partial download.
func (s *syncer) headers() http.Header {
	h := http.Header{}
	h.Set("User-Agent", s.cfg.UserAgent)
	// Bytes as served: with a transparent gzip decoding, offsets for Range would count
	// decoded bytes.
	h.Set("Accept-Encoding", "identity")
	if s.destOK {
		if s.st.ETag != "" {
			h.Set("If-None-Match", s.st.ETag)
		}
		if s.st.LastModified != "" {
			h.Set("If-Modified-Since", s.st.LastModified)
		}
	}
	if s.offset > 0 {
		// If-Range makes the server prove the partial file's bytes are still those
		// of the file it serves; otherwise it answers 200 with the whole file.
		if v := s.part.ifRange(); v != "" {
			h.Set("Range", fmt.Sprintf("bytes=%d-", s.offset))
			h.Set("If-Range", v)
		} else {
			s.dropPartial() // no strong validator: its bytes cannot be proven current
		}
	}
	return h
}

// fetch sends a GET for u with h and follows redirects itself, sending h on every hop.
// Go's client would keep these headers across hosts too (it drops only Authorization,
// WWW-Authenticate and cookies there), but the client may be netguard's, which does
// not follow redirects at all, and each hop to the export path must be counted against
// the local budget before it is sent.
func (s *syncer) fetch(ctx context.Context, u *url.URL, h http.Header, idle *httpx.IdleWatch) (*http.Response, error) {
	for hop := 0; ; hop++ {
		if hop > syncMaxRedirects {
			return nil, fmt.Errorf("mirror sync: more than %d redirects from %s: %w", syncMaxRedirects, redact(s.exportURL), errSyncPermanent)
		}
		var spent time.Time
		if s.isExportURL(u) {
			var err error
			if spent, err = s.spend(); err != nil {
				return nil, err
			}
		}
		var sent sendTrace
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, sent.trace()), http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("mirror sync: %w: %w", err, errSyncPermanent)
		}
		req.Header = h.Clone()
		resp, err := s.client.Do(req)
		if err != nil {
			if !spent.IsZero() && !sent.mayHaveArrived(err) {
				s.unspend(spent, err)
			}
			return nil, err
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			s.finalURL = u
			return resp, nil
		}
		idle.Kick()
		loc, lerr := resp.Location()
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		switch {
		case lerr != nil:
			return nil, fmt.Errorf("mirror sync: %s answered %s without a usable Location: %w", redact(u), resp.Status, errSyncPermanent)
		case loc.Scheme != "http" && loc.Scheme != "https":
			return nil, fmt.Errorf("mirror sync: %s redirects to the unsupported URL %s: %w", redact(u), redact(loc), errSyncPermanent)
		case u.Scheme == "https" && loc.Scheme == "http":
			return nil, fmt.Errorf("mirror sync: %s redirects from https to plain http (%s); refused: %w", redact(u), redact(loc), errSyncPermanent)
		}
		s.log.Debug("following redirect", "status", resp.StatusCode, "to", redact(loc))
		// A retry in this run starts here, even if this hop fails: it costs no budget.
		s.finalURL = loc
		u = loc
	}
}

// isExportURL reports whether u is the rate-limited export path.
func (s *syncer) isExportURL(u *url.URL) bool {
	return strings.EqualFold(u.Host, s.exportURL.Host) && strings.TrimRight(u.Path, "/") == s.exportURL.Path
}

// spend records a request to the export path in the state file before it is sent, or
// refuses it when the budget is used up. It returns the time recorded, for unspend.
//
// Every request that may have reached the Directory counts, whatever its answer: the
// Directory counts the requests that reach its export handler — a conditional request
// too, since the handler answers with a redirect before any If-None-Match is
// evaluated by the static file behind it — and a request that failed for us after it
// was sent may still have reached it. Only a request that provably never left (fetch:
// no connection, or not written) is given back, by unspend: a network that is down
// must not use up the day's budget on retries that reach nobody.
func (s *syncer) spend() (time.Time, error) {
	now := s.cfg.Now()
	s.prune(now)
	if rl := s.refusal(now); rl != nil {
		rl.Contacted = true
		return time.Time{}, rl
	}
	s.st.Requests = append(s.st.Requests, now)
	if err := s.saveState(); err != nil {
		return time.Time{}, fmt.Errorf("mirror sync: cannot record the export request in %s, so not sending it: %w: %w", s.statePath, err, errSyncPermanent)
	}
	return now, nil
}

// unspend takes back the request recorded at t by spend, which never reached the
// Directory (why says why).
func (s *syncer) unspend(t time.Time, why error) {
	for i := len(s.st.Requests) - 1; i >= 0; i-- {
		if s.st.Requests[i].Equal(t) {
			s.st.Requests = slices.Delete(s.st.Requests, i, i+1)
			break
		}
	}
	if err := s.saveState(); err != nil {
		s.log.Warn("cannot take back an export request that never reached the Directory; it stays counted", "statePath", s.statePath, "err", err)
		return
	}
	s.log.Debug("the export request never reached the Directory; not counted against the budget", "err", why)
}

// sendTrace watches one request on its way out, to tell a request that never left
// from one that may have reached the server.
type sendTrace struct {
	mu sync.Mutex
	// traced says the client's transport reports on the request (net/http's does).
	traced bool
	// wrote says the whole request was written to a connection.
	wrote bool
}

func (t *sendTrace) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(string) {
			t.mu.Lock()
			t.traced = true
			t.mu.Unlock()
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			t.mu.Lock()
			// A request written in part (Err set) may have reached the server all
			// the same, for all we know: it counts as written.
			t.wrote = true
			t.mu.Unlock()
		},
	}
}

// mayHaveArrived reports whether a request that failed with err may have reached the
// server: false only when no connection could be made (a dial or DNS error) or the
// transport reported that it never wrote the request.
func (t *sendTrace) mayHaveArrived(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &dns) || errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.traced || t.wrote
}

// rateLimited records a 429's Retry-After and returns the error for it.
func (s *syncer) rateLimited(resp *http.Response) error {
	now := s.cfg.Now()
	d := httpx.ParseRetryAfter(resp.Header.Get("Retry-After"), now, syncWindow, syncRetryAfterLimit)
	until := now.Add(d)
	if until.After(s.st.NotBefore) {
		s.st.NotBefore = until
	}
	s.log.Warn("the Directory refused the export download (429)", "retryAfter", resp.Header.Get("Retry-After"), "until", until)
	return &RateLimitedError{Until: until, ByDirectory: true, Contacted: true}
}

// parseContentRange reads "bytes first-last/total"; total is -1 for "*".
func parseContentRange(v string) (first, total int64, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !ok {
		return 0, -1, fmt.Errorf("bad Content-Range %q", v)
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, -1, fmt.Errorf("bad Content-Range %q", v)
	}
	f, _, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, -1, fmt.Errorf("bad Content-Range %q", v)
	}
	if first, err = strconv.ParseInt(f, 10, 64); err != nil || first < 0 {
		return 0, -1, fmt.Errorf("bad Content-Range %q", v)
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, -1, fmt.Errorf("bad Content-Range %q", v)
		}
	}
	return first, total, nil
}

// notModified ends a run whose export was unchanged (304).
func (s *syncer) notModified() (SyncResult, error) {
	s.dropPartial() // it was fetched from another version of the file
	s.st.Synced = s.cfg.Now()
	if err := s.saveState(); err != nil {
		return SyncResult{}, fmt.Errorf("mirror sync: saving the sync state: %w", err)
	}
	res := SyncResult{Path: s.cfg.Dest, ETag: s.st.ETag, LastModified: s.st.LastModified}
	if fi, err := os.Stat(s.cfg.Dest); err == nil {
		res.Bytes = fi.Size()
	}
	s.log.Info("the Directory export is unchanged", "etag", s.st.ETag, "lastModified", s.st.LastModified)
	return res, nil
}

// finish verifies the complete partial file and renames it over Dest.
func (s *syncer) finish(ctx context.Context) (SyncResult, error) {
	if err := verifyExportFile(ctx, s.partPath); err != nil {
		if ctx.Err() != nil {
			return s.fail(fmt.Errorf("mirror sync: verifying the download: %w", ctx.Err()))
		}
		s.dropPartial()
		return s.fail(fmt.Errorf("mirror sync: the downloaded export from %s is unusable, %s left unchanged: %w", redact(s.finalURL), s.cfg.Dest, err))
	}
	if err := os.Rename(s.partPath, s.cfg.Dest); err != nil {
		return s.fail(fmt.Errorf("mirror sync: %w", err))
	}
	syncDir(filepath.Dir(s.cfg.Dest))
	changed := s.part.ETag == "" || s.part.ETag != s.st.ETag || !s.destOK
	s.st.ETag, s.st.LastModified, s.st.URL = s.part.ETag, s.part.LastModified, s.finalURL.String()
	s.st.Synced = s.cfg.Now()
	s.st.Partial, s.part = nil, nil
	res := SyncResult{Changed: changed, Path: s.cfg.Dest, Bytes: s.offset, ETag: s.st.ETag, LastModified: s.st.LastModified}
	if err := s.saveState(); err != nil {
		// Dest is complete; the next run just cannot send its validators.
		s.log.Warn("cannot save the sync state", "err", err)
	}
	s.log.Info("downloaded the Directory export", "bytes", res.Bytes, "etag", res.ETag, "lastModified", res.LastModified, "changed", changed)
	return res, nil
}

// syncDir makes a rename in dir durable; failure only weakens durability.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// verifyExportFile checks that path holds a plausible complete export: not empty; a
// gzip stream that decodes to its end; XML ending in '>' or JSON ending in '}' or ']'.
// It does not parse the export (the import does).
func verifyExportFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return errors.New("the file is empty")
	}
	var magic [2]byte
	if _, err := f.ReadAt(magic[:], 0); err != nil && fi.Size() >= 2 {
		return err
	}
	if magic == [2]byte{0x1f, 0x8b} {
		zr, err := gzip.NewReader(syncCtxReader{ctx, f})
		if err != nil {
			return fmt.Errorf("not a gzip stream: %w", err)
		}
		var ends syncEnds
		if _, err := io.Copy(&ends, zr); err != nil {
			return fmt.Errorf("the gzip stream is incomplete or corrupt: %w", err)
		}
		return plausibleExportEnds(ends.head, ends.tail)
	}
	head := make([]byte, min(fi.Size(), syncVerifyWindow))
	tail := make([]byte, min(fi.Size(), syncVerifyWindow))
	if _, err := f.ReadAt(head, 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail, fi.Size()-int64(len(tail))); err != nil {
		return err
	}
	return plausibleExportEnds(head, tail)
}

// plausibleExportEnds checks that a document starting with head ends like one with
// tail.
func plausibleExportEnds(head, tail []byte) error {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	t := bytes.TrimRight(tail, " \t\r\n")
	if len(h) == 0 || len(t) == 0 {
		return errors.New("the export is empty")
	}
	var want byte
	switch h[0] {
	case '<':
		want = '>'
	case '{':
		want = '}'
	case '[':
		want = ']'
	default:
		return nil // another format: nothing cheap to check
	}
	if t[len(t)-1] != want {
		return fmt.Errorf("the export ends in the middle of the document (…%q)", t[max(0, len(t)-40):])
	}
	return nil
}

// syncEnds keeps the first and last bytes written to it.
type syncEnds struct{ head, tail []byte }

func (e *syncEnds) Write(p []byte) (int, error) {
	n := len(p)
	if len(e.head) < syncVerifyWindow {
		e.head = append(e.head, p[:min(len(p), syncVerifyWindow-len(e.head))]...)
	}
	if len(p) >= syncVerifyWindow {
		e.tail = append(e.tail[:0], p[len(p)-syncVerifyWindow:]...)
	} else {
		e.tail = append(e.tail, p...)
		if len(e.tail) > syncVerifyWindow {
			e.tail = append(e.tail[:0], e.tail[len(e.tail)-syncVerifyWindow:]...)
		}
	}
	return n, nil
}

// syncCtxReader stops a long verification when ctx ends.
type syncCtxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c syncCtxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// redact returns u for messages, without a password.
func redact(u *url.URL) string {
	if u == nil {
		return "the export server"
	}
	return u.Redacted()
}
