package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/registry"
)

// Mirror defaults and limits.
const (
	// defaultMirrorPath is where `mirror import` and `mirror sync` put the index when
	// -mirror is not given.
	defaultMirrorPath = "peppolgate-mirror.db"
	// importHeaderTimeout bounds the wait for the response headers of an export URL;
	// the body of a multi-gigabyte export is bounded by the idle watch of the decoder's
	// reader instead (importIdleTimeout).
	importHeaderTimeout = 30 * time.Second
	importIdleTimeout   = 60 * time.Second
	// progressEvery is how often a progress line is logged when stderr is not a terminal.
	progressEvery = 10 * time.Second
)

// mirrorUsage is the help of `peppolgate mirror`.
const mirrorUsage = `Usage: peppolgate mirror import [-mirror FILE] [-allow-private] <export file | URL | ->
       peppolgate mirror sync   [-mirror FILE] [-network production|test] [-directory-url URL]
                                [-redis URL] [-redis-prefix PREFIX] [-redis-timeout DURATION]

A local copy of the Peppol Directory, for 'peppolgate serve -mirror FILE': searches and the
Directory half of lookups are answered from it in milliseconds instead of asking the
Directory (2 requests/s). The SMP half of lookups stays live.

  import  builds the index from a Directory export: XML v3, XML v2 or JSON v2, plain or gzip,
          from a file, an http(s) URL or stdin (-). The new index is built beside FILE and
          swapped in atomically; a running 'serve -mirror FILE' picks it up within a minute.
          Malformed cards are reported and skipped.
  sync    downloads the export from the Directory's /export/businesscards when it changed
          (conditional requests, resumed when interrupted, at most 2 downloads a day: the
          Directory allows 3 per IP) into FILE.export, then imports it. With -redis, it
          takes the fleet's sync lease first: when a replica (serve -mirror-refresh) or
          another job is syncing from the same Directory, it says so and exits 0 without
          downloading; when the fleet's last sync failed and postponed the next one, it
          says until when and exits 0 without downloading; it records the sync so that
          the replicas skip their own turn, or a failed one so that they wait too.

Flags:
  -mirror FILE          the index file (env PEPPOLGATE_MIRROR, default ` + defaultMirrorPath + `)
  -allow-private        import: allow an export URL on loopback or a private network
  -network NAME         sync: production (default) or test, which Directory to download from
  -directory-url URL    sync: the Directory's base URL, overriding the network's
  -redis URL            sync: the Redis the fleet shares (env PEPPOLGATE_REDIS), as for serve:
                        redis://[user:password@]host:6379[/db], rediss://… or unix:///path;
                        unreachable, the sync runs without the lease
  -redis-prefix PREFIX  sync: the fleet's key prefix (env PEPPOLGATE_REDIS_PREFIX, default ` + fleet.DefaultPrefix + `)
  -redis-timeout DURATION
                        sync: the longest one Redis operation may take, 1ms to 5s (env
                        PEPPOLGATE_REDIS_TIMEOUT, default 50ms); slower, the sync runs
                        without the lease
  -log-level LEVEL      debug, info (default), warn or error
  -config FILE          the YAML -config file serve reads (env PEPPOLGATE_CONFIG): its keys
                        for these flags apply (mirror, network, redis, ...), serve's are
                        ignored; a flag beats the environment, which beats the file
`

// mirrorFlags are the flags of the mirror subcommands.
type mirrorFlags struct {
	path, network, directoryURL, logLevel string
	redisURL, redisPrefix                 string
	redisTimeout                          time.Duration
	allowPrivate                          bool
	// proxy is the outbound proxy, from the program's environment as serve reads it
	// (docs/DEPLOY.md "Outbound proxy").
	proxy netguard.Proxy
	// config is the -config file (or PEPPOLGATE_CONFIG).
	config string
	// logOnly reports progress as log lines even on a terminal (inside serve).
	logOnly bool
}

// mirrorFlagSet returns the flags of `mirror sub` (import or sync), documented in
// mirrorUsage.
func mirrorFlagSet(sub string, f *mirrorFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("peppolgate mirror "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.path, "mirror", "", "")
	fs.StringVar(&f.logLevel, "log-level", "info", "")
	fs.StringVar(&f.config, "config", "", "")
	if sub == "import" {
		fs.BoolVar(&f.allowPrivate, "allow-private", false, "")
	} else {
		fs.StringVar(&f.network, "network", registry.NetworkProduction, "")
		fs.StringVar(&f.directoryURL, "directory-url", "", "")
		fs.StringVar(&f.redisURL, "redis", "", "")
		fs.StringVar(&f.redisPrefix, "redis-prefix", "", "")
		fs.DurationVar(&f.redisTimeout, "redis-timeout", fleet.DefaultOpTimeout, "")
	}
	return fs
}

// runMirror runs `peppolgate mirror <sub> ...` and returns the exit status.
func (p program) runMirror(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" || args[0] == "-help" {
		fmt.Fprint(p.stdout, mirrorUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub, args := args[0], args[1:]
	if sub != "import" && sub != "sync" {
		fmt.Fprintf(p.stderr, "peppolgate mirror: unknown subcommand %q; the subcommands are import and sync\nRun 'peppolgate mirror -h' for usage.\n", sub)
		return 2
	}
	var f mirrorFlags
	fs := mirrorFlagSet(sub, &f)
	usage := func(format string, a ...any) int {
		fmt.Fprintf(p.stderr, "peppolgate mirror %s: %s\nRun 'peppolgate mirror -h' for usage.\n", sub, fmt.Sprintf(format, a...))
		return 2
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(p.stdout, mirrorUsage)
			return 0
		}
		return usage("%v", err)
	}
	// The -config file fills in what neither a flag nor the environment (for the flags
	// that read one) set; serve's keys in it are ignored.
	visited := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { visited[fl.Name] = true })
	if f.config == "" {
		f.config = p.getenv(envName("config"))
	}
	var cf *configFile
	src := map[string]string{}
	if path := strings.TrimSpace(f.config); path != "" {
		var err error
		if cf, err = loadConfigFile(path); err != nil {
			return usage("%v", err)
		}
		fromEnv := func(name string) bool {
			switch name {
			case "mirror", "redis", "redis-prefix", "redis-timeout":
				return strings.TrimSpace(p.getenv(envName(name))) != ""
			}
			return false
		}
		if err := cf.apply(fs, func(name string) bool { return visited[name] || fromEnv(name) }, src); err != nil {
			return usage("%v", err)
		}
	}
	usage = func(format string, a ...any) int {
		err := cf.fromFile(usagef(format, a...), src)
		fmt.Fprintf(p.stderr, "peppolgate mirror %s: %v\nRun 'peppolgate mirror -h' for usage.\n", sub, err)
		return 2
	}
	if f.path == "" {
		f.path = p.getenv(envName("mirror"))
	}
	if f.path == "" {
		f.path = defaultMirrorPath
	}
	if sub == "sync" {
		if f.redisURL = strings.TrimSpace(f.redisURL); f.redisURL == "" {
			f.redisURL = strings.TrimSpace(p.getenv(envName("redis")))
		}
		if f.redisPrefix == "" {
			f.redisPrefix = p.getenv(envName("redis-prefix"))
		}
		timeoutSet := visited["redis-timeout"]
		if env := strings.TrimSpace(p.getenv(envName("redis-timeout"))); !timeoutSet && env != "" {
			d, err := time.ParseDuration(env)
			if err != nil {
				return usage("%s %q is not a duration (e.g. 50ms)", envName("redis-timeout"), env)
			}
			f.redisTimeout = d
		}
		if f.redisTimeout < time.Millisecond || f.redisTimeout > 5*time.Second {
			return usage("-redis-timeout must be between 1ms and 5s, e.g. 50ms; got %v", f.redisTimeout)
		}
		if err := fleet.Check(fleet.Options{URL: "redis://localhost", Prefix: f.redisPrefix}); err != nil {
			return usage("-redis-prefix: %v", err)
		}
		if err := fleet.Check(fleet.Options{URL: f.redisURL, Prefix: f.redisPrefix}); f.redisURL != "" && err != nil {
			return usage("-redis: %v", err)
		}
	}
	if f.proxy = netguard.ProxyFromEnv(p.getenv); f.proxy.Check() != nil {
		return usage("%v", f.proxy.Check())
	}
	level, ok := parseLogLevel(f.logLevel)
	if !ok {
		return usage("-log-level %q is not one of debug, info, warn, error", f.logLevel)
	}
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: level}))

	var err error
	switch sub {
	case "import":
		if fs.NArg() != 1 {
			return usage("give exactly one export: a file, an http(s) URL, or - for stdin")
		}
		_, err = p.importExport(ctx, f, fs.Arg(0), log)
	case "sync":
		if fs.NArg() != 0 {
			return usage("unexpected argument %q", fs.Arg(0))
		}
		dirURL, uerr := exportDirectoryURL(f.network, f.directoryURL)
		if uerr != nil {
			return usage("%v", uerr)
		}
		err = p.syncMirrorOnce(ctx, f, dirURL, log)
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "peppolgate mirror %s: %v\n", sub, err)
		return 1
	}
	return 0
}

// parseLogLevel maps a -log-level value to its slog level.
func parseLogLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// exportDirectoryURL is the Directory that `mirror sync` downloads from.
func exportDirectoryURL(network, override string) (string, error) {
	if s := strings.TrimSpace(override); s != "" {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("-directory-url %q is not an absolute http or https URL", s)
		}
		return strings.TrimSuffix(s, "/"), nil
	}
	switch strings.ToLower(strings.TrimSpace(network)) {
	case registry.NetworkProduction:
		return directory.Production, nil
	case registry.NetworkTest:
		return directory.Test, nil
	}
	return "", fmt.Errorf("-network %q is not one of production, test", network)
}

// importExport builds the index at f.path from src (a file, an http(s) URL or "-").
func (p program) importExport(ctx context.Context, f mirrorFlags, src string, log *slog.Logger) (mirror.BuildStats, error) {
	r, size, closeSrc, err := openExport(ctx, src, f.allowPrivate, f.proxy, p.stdin)
	if err != nil {
		return mirror.BuildStats{}, err
	}
	defer closeSrc()
	dec, err := export.NewDecoder(r)
	if err != nil {
		return mirror.BuildStats{}, fmt.Errorf("reading %s: %w", src, err)
	}
	h := dec.Header()
	log.Info("importing the Directory export", "source", src, "format", string(h.Format), "gzip", h.Gzip,
		"created", h.Created.Format(time.RFC3339), "announced_cards", h.Count, "index", f.path)
	bar := newProgress(p.stderr, !f.logOnly && isTerminal(p.stderr), log, "import progress: ")
	update, last := importProgress(bar, size, dec.BytesRead)
	stats, err := mirror.Build(ctx, f.path, dec, mirror.BuildOptions{Progress: update, Logger: log, Source: src})
	bar.done(last())
	if err != nil {
		return stats, fmt.Errorf("importing %s: %w (the previous index, if any, is unchanged)", src, err)
	}
	rate := 0.0
	if s := stats.Elapsed.Seconds(); s > 0 {
		rate = float64(stats.Cards) / s
	}
	fmt.Fprintf(p.stderr, "imported %d cards (%d malformed, skipped) in %s, %.0f cards/s, into %s (%.1f MB); data as of %s\n",
		stats.Cards, stats.Skipped, stats.Elapsed.Round(time.Millisecond), rate, f.path, float64(stats.Bytes)/1e6, stats.DataAsOf.UTC().Format(time.RFC3339))
	return stats, nil
}

// openExport opens an export for reading: a file, stdin ("-") or an http(s) URL. size is
// the number of bytes to expect, or 0 when unknown.
func openExport(ctx context.Context, src string, allowPrivate bool, proxy netguard.Proxy, stdin io.Reader) (r io.Reader, size int64, closeFn func(), err error) {
	if src == "-" {
		if stdin == nil {
			return nil, 0, nil, errors.New("no standard input to read the export from")
		}
		return stdin, 0, func() {}, nil
	}
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		client := netguard.NewHTTPClient(netguard.Policy{AllowPrivate: allowPrivate, Timeout: importHeaderTimeout, Proxy: proxy})
		client.Timeout = 0 // the body may take many minutes; the idle watch bounds it
		ctx, cancel := context.WithCancel(ctx)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			cancel()
			return nil, 0, nil, fmt.Errorf("%q is not a usable URL: %w", src, err)
		}
		// The headers must come within importHeaderTimeout; the body then has the idle
		// watch. (A context deadline would also cut the body.)
		headers := time.AfterFunc(importHeaderTimeout, cancel)
		resp, err := client.Do(req)
		headers.Stop()
		if err != nil {
			cancel()
			return nil, 0, nil, fmt.Errorf("downloading %s: %w", src, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			cancel()
			return nil, 0, nil, fmt.Errorf("downloading %s: HTTP %s", src, resp.Status)
		}
		// A body that sends nothing for importIdleTimeout is cut, so that an import
		// from a URL cannot hang on a stalled server.
		idle := httpx.NewIdleWatch(importIdleTimeout, cancel)
		return idle.Reader(resp.Body), max(resp.ContentLength, 0), func() { idle.Stop(); resp.Body.Close(); cancel() }, nil
	}
	file, err := os.Open(src)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("cannot open the export: %w", err)
	}
	var n int64
	if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
		n = fi.Size()
	}
	return file, n, func() { file.Close() }, nil
}

// syncMirrorOnce runs `mirror sync`: with -redis under the fleet's sync lease, whose
// holder being another replica or job is a success with nothing done (the holder's
// index is what every replica will serve), as is a postponement left by the fleet's
// last failed sync; it records the sync for the replicas' -mirror-refresh, or a failure
// as a postponement; with Redis unreachable, as without -redis (docs/ARCHITECTURE.md §7).
func (p program) syncMirrorOnce(ctx context.Context, f mirrorFlags, dirURL string, log *slog.Logger) error {
	var mf *mirrorFleet
	if f.redisURL != "" {
		fl, err := fleet.Open(fleet.Options{URL: f.redisURL, Prefix: f.redisPrefix, OpTimeout: f.redisTimeout, Logger: log})
		if err != nil {
			return fmt.Errorf("-redis: %w", err)
		}
		defer fl.Close()
		mf = newMirrorFleet(fl, dirURL, log)
		// postponed says, and logs, whether the fleet's last sync failed and asked
		// everyone to wait (Redis trouble: no, sync as without -redis).
		postponed := func() bool {
			until, ok, err := mf.postponed(ctx)
			if err != nil || !ok {
				return false
			}
			fmt.Fprintf(p.stderr, "the fleet's last sync of the Directory mirror from %s failed and postponed the next one until %s (Redis %s, prefix %s); nothing to do before then\n",
				dirURL, until.Format(time.RFC3339), fl.URL(), fl.Prefix())
			return true
		}
		if postponed() {
			return nil
		}
		lease, err := mf.acquire(ctx)
		switch {
		case err != nil:
			// The fleet's own line speaks of "this replica's own state": for this job that
			// is a sync like one without -redis.
			log.Warn("mirror sync: this job syncs without the fleet's lease, as without -redis: Redis did not answer within -redis-timeout (another replica or job may download the export at the same time)",
				"redis", fl.URL(), "redis_timeout", f.redisTimeout.String(), "err", err)
		case lease == nil:
			fmt.Fprintf(p.stderr, "another sync holds the lease: a replica or job of this fleet (Redis %s, prefix %s) is syncing the Directory mirror from %s; nothing to do\n",
				fl.URL(), fl.Prefix(), dirURL)
			return nil
		default:
			defer lease.release()
			// Another may have failed between the look and the lease.
			if postponed() {
				return nil
			}
		}
	}
	// The Directory is the operator's (-network or -directory-url): no SSRF guard, as
	// for serve's Directory client, but the program's proxy.
	tr := netguard.Transport(f.proxy)
	tr.ResponseHeaderTimeout = importHeaderTimeout
	if err := p.syncMirror(ctx, f.path, dirURL, &http.Client{Transport: tr}, log, false); err != nil {
		// Any failure postpones the fleet's next attempt, as a replica's
		// -mirror-refresh does (refreshMirror): until the download limit allows one
		// again, or an hour.
		if mf != nil && ctx.Err() == nil {
			until := time.Now().Add(time.Hour)
			var rl *mirror.RateLimitedError
			if errors.As(err, &rl) && !rl.Until.IsZero() {
				until = rl.Until
			}
			_ = mf.postpone(ctx, until)
		}
		return err
	}
	if mf != nil {
		ix, err := mirror.OpenIndex(f.path)
		if err != nil {
			return fmt.Errorf("reading the synced index: %w", err)
		}
		dataAsOf := ix.Meta().DataAsOf
		ix.Close()
		_ = mf.recordSync(ctx, dataAsOf) // Redis trouble is logged by the fleet; the replicas then sync on their own schedule
	}
	return nil
}

// syncMirror downloads the export from dirURL when it changed and imports it into path
// when the index is older than the downloaded export (also when an earlier import of an
// unchanged download failed). A download refused by the export limit is an error that
// says when to retry (*mirror.RateLimitedError), unless an export downloaded earlier
// was never imported: then that one is. logOnly reports the import's progress
// as log lines even on a terminal (serve's own logs go there).
func (p program) syncMirror(ctx context.Context, path, dirURL string, client *http.Client, log *slog.Logger, logOnly bool) error {
	dest := path + ".export"
	res, err := mirror.Sync(ctx, mirror.SyncConfig{DirectoryURL: dirURL, Dest: dest, HTTPClient: client, Logger: log})
	if err != nil {
		var rl *mirror.RateLimitedError
		if _, statErr := os.Stat(dest); !errors.As(err, &rl) || statErr != nil || indexNewer(path, dest, log) {
			return fmt.Errorf("downloading the export from %s: %w", dirURL, err)
		}
		// No download now, but the one on disk was never imported: import it.
		log.Warn("the export download is refused by the limit; importing the export downloaded earlier", "export", dest, "err", err)
		res = mirror.SyncResult{Changed: true, Path: dest}
	}
	if !res.Changed && indexNewer(path, res.Path, log) {
		log.Info("the Directory export has not changed since the last sync; the index is up to date", "index", path, "export", res.Path)
		return nil
	}
	_, err = p.importExport(ctx, mirrorFlags{path: path, logOnly: logOnly}, res.Path, log)
	return err
}

// indexNewer reports whether the index at path was built after the export file was
// written (both exist) and is one this peppolgate reads: an index of another schema
// version (an older peppolgate built it) is stale whatever its age, so that a sync
// after an upgrade rebuilds it from the unchanged export (docs/DEPLOY.md, Upgrades).
// The latter is logged.
func indexNewer(path, exportPath string, log *slog.Logger) bool {
	ix, err := os.Stat(path)
	if err != nil {
		return false
	}
	ex, err := os.Stat(exportPath)
	if err != nil {
		return false
	}
	if !ix.ModTime().After(ex.ModTime()) {
		return false
	}
	if err := mirror.CheckIndex(path); errors.Is(err, mirror.ErrNotIndex) {
		log.Warn("the index is not one this peppolgate reads (of another schema version after an upgrade, or another file); importing the export again", "index", path, "err", err)
		return false
	}
	return true
}

// mirrorReloadEvery is how often serve checks whether the mirror file was replaced (by
// `peppolgate mirror import` or `sync` in another process); a check is one stat.
const mirrorReloadEvery = 30 * time.Second

// startKeepMirror runs keepMirror in the background when a mirror is configured and
// returns the function that stops it and waits for it, which must run before the store
// is closed.
func (p program) startKeepMirror(ctx context.Context, cfg config, up *upstream, fl *fleet.Fleet, log *slog.Logger) (stop func()) {
	if up.Mirror == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.keepMirror(ctx, cfg, up, fl, log)
	}()
	return func() {
		cancel()
		<-done
	}
}

// keepMirror keeps the served mirror current until ctx is done: it reloads the index
// when its file was replaced, and with -mirror-refresh it syncs the export and
// rebuilds the index on that schedule (at once when the data is older than one
// period). With a fleet (fl not nil), the replicas take turns (refreshMirror).
func (p program) keepMirror(ctx context.Context, cfg config, up *upstream, fl *fleet.Fleet, log *slog.Logger) {
	reloadEvery := mirrorReloadEvery
	if p.mirrorReload > 0 {
		reloadEvery = p.mirrorReload
	}
	reload := time.NewTicker(reloadEvery)
	defer reload.Stop()
	mf := newMirrorFleet(fl, up.DirectoryURL, log)
	waiting := false // another replica holds the lease; said once at info
	// refresh stays nil, and never fires, without -mirror-refresh.
	var refresh <-chan time.Time
	var t *time.Timer
	var client *http.Client
	if cfg.mirrorRefresh > 0 {
		next := time.Now()
		if m, ok := up.Mirror.Meta(); ok && time.Since(m.ImportedAt) < cfg.mirrorRefresh {
			next = m.ImportedAt.Add(cfg.mirrorRefresh)
		}
		t = time.NewTimer(max(time.Until(next), 0))
		defer t.Stop()
		refresh = t.C
		client = netguard.NewHTTPClient(netguard.Policy{AllowPrivate: cfg.allowPrivateSMP, Timeout: importHeaderTimeout, Proxy: cfg.proxy})
		client.Timeout = 0 // Sync bounds the whole download itself
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-reload.C:
			p.reloadMirror(up.Mirror, log)
		case <-refresh:
			t.Reset(p.refreshMirror(ctx, cfg, up, mf, client, log, reloadEvery, &waiting))
		}
	}
}

// refreshMirror is one turn of -mirror-refresh: it syncs the export, rebuilds the
// index and returns when the next turn is due. With a fleet (mf not nil; docs/
// ARCHITECTURE.md §7) it first reloads the index and asks Redis when the fleet last
// synced: when that is within one period and this replica's index is as new, another
// replica (or `mirror sync` job) did the work and the next turn is one period after
// it; when the fleet's last attempt failed, no replica tries before the time that
// attempt set (the Directory's Retry-After, or an hour). Else it syncs under the
// fleet's lease; when another holds the lease, it skips this turn and looks again
// after reloadEvery (the holder's index, on a shared volume,
// is reloaded meanwhile; a replica with its own copy syncs it when the lease is free).
// Without an answer from Redis it syncs on its own, as without a fleet.
func (p program) refreshMirror(ctx context.Context, cfg config, up *upstream, mf *mirrorFleet, client *http.Client, log *slog.Logger, reloadEvery time.Duration, waiting *bool) time.Duration {
	if mf != nil {
		// upToDate says whether the fleet's last sync makes this one unnecessary, and
		// until when. Redis trouble: no (sync on our own).
		upToDate := func() (time.Time, bool) {
			p.reloadMirror(up.Mirror, log)
			rec, ok, err := mf.lastSync(ctx)
			if err != nil || !ok {
				return time.Time{}, false
			}
			m, have := up.Mirror.Meta()
			next, fresh := rec.fresh(cfg.mirrorRefresh, m.DataAsOf, have)
			if fresh {
				*waiting = false
				log.Info("the Directory mirror was synced by another replica or job of the fleet; serving its index, next sync due then",
					"synced", rec.Synced.Format(time.RFC3339), "data_as_of", rec.DataAsOf.Format(time.RFC3339), "next", next.Format(time.RFC3339))
			}
			return next, fresh
		}
		// notNow says whether the fleet's last attempt failed and asked everyone to
		// wait, and until when.
		notNow := func() (time.Time, bool) {
			until, ok, err := mf.postponed(ctx)
			if err != nil || !ok {
				return time.Time{}, false
			}
			*waiting = false
			log.Info("the fleet's last sync of the Directory mirror failed; no replica tries again before then", "until", until.Format(time.RFC3339))
			return until, true
		}
		if next, ok := upToDate(); ok {
			return max(time.Until(next), time.Minute)
		}
		if until, ok := notNow(); ok {
			return max(time.Until(until), reloadEvery)
		}
		lease, err := mf.acquire(ctx)
		switch {
		case err != nil:
			log.Warn("Directory mirror refresh without the fleet's lease: Redis does not answer, so this replica syncs on its own schedule (another may download at the same time)", "err", err)
		case lease == nil:
			if !*waiting {
				log.Info("another replica is syncing the Directory mirror (it holds the fleet's lease); this one skips its turn and reloads the index when it changes", "check_again_in", reloadEvery.String())
			}
			*waiting = true
			return reloadEvery
		default:
			*waiting = false
			defer lease.release()
			// Another may have finished (or failed) between the look and the lease.
			if next, ok := upToDate(); ok {
				return max(time.Until(next), time.Minute)
			}
			if until, ok := notNow(); ok {
				return max(time.Until(until), reloadEvery)
			}
		}
	}
	wait := cfg.mirrorRefresh
	err := p.syncMirror(ctx, cfg.mirrorPath, up.DirectoryURL, client, log, true)
	var rl *mirror.RateLimitedError
	switch {
	case errors.As(err, &rl) && !rl.Until.IsZero():
		wait = max(time.Until(rl.Until), time.Minute)
		log.Warn("Directory mirror refresh postponed: the export download limit is reached", "until", rl.Until.Format(time.RFC3339))
	case err != nil && ctx.Err() == nil:
		wait = min(cfg.mirrorRefresh, time.Hour)
		log.Warn("Directory mirror refresh failed; the mirror keeps its current data", "err", err, "retry_in", wait.String())
	}
	p.reloadMirror(up.Mirror, log)
	// Redis trouble here is logged by the fleet; the others then sync on their own.
	if m, ok := up.Mirror.Meta(); err == nil && ok && mf != nil {
		_ = mf.recordSync(ctx, m.DataAsOf)
	} else if err != nil && ctx.Err() == nil && mf != nil {
		_ = mf.postpone(ctx, time.Now().Add(wait))
	}
	return wait
}

// reloadMirror swaps in a replaced mirror file and logs it.
func (p program) reloadMirror(store *mirror.Store, log *slog.Logger) {
	changed, err := store.Reload()
	_, holding := store.Meta()
	switch {
	case (errors.Is(err, fs.ErrNotExist) || errors.Is(err, mirror.ErrOtherSchema)) && !holding:
		// Not imported yet, or (after an upgrade) not rebuilt yet: said once at start;
		// the live Directory answers meanwhile.
		log.Debug("no usable Directory mirror file yet", "err", err)
	case err != nil:
		log.Warn("the Directory mirror file could not be reopened; serving the previous one", "err", err)
	case changed:
		if m, ok := store.Meta(); ok {
			log.Info("Directory mirror reloaded", "cards", m.Cards, "data_as_of", m.DataAsOf.Format(time.RFC3339))
		}
	}
}
