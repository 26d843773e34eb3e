// Package fleet is what several peppolgate replicas share through Redis (or Valkey):
// the connection, its health, and the names of the keys. The shared parts themselves
// (client rate limits, the response cache and coalescing, the upstream budgets and
// breakers, MCP sessions, the mirror's sync lease) live with the code they serve and
// use a *Fleet when one is configured; a nil *Fleet means one process with everything
// in memory, as without -redis (docs/ARCHITECTURE.md §7).
//
// Redis trouble is never an outage: every operation has a short deadline (OpTimeout,
// 50 ms by default); the first one that fails marks Redis down, and from then on
// operations fail at once with ErrDown, so that callers fall back to their local state
// without waiting, until a background probe finds Redis answering again (every
// ProbeEvery). The cause is logged at most once a minute and counted.
package fleet

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/redact"
	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// Defaults of Options.
const (
	// DefaultOpTimeout bounds one Redis operation: slower than this, Redis is treated
	// as down and the replica uses its local state.
	DefaultOpTimeout = 50 * time.Millisecond
	// DefaultProbeEvery is how often a replica that found Redis down asks it again.
	DefaultProbeEvery = time.Second
	// DefaultPrefix namespaces every key of a deployment.
	DefaultPrefix = "peppolgate"
	// logEvery bounds how often the same kind of Redis trouble is logged.
	logEvery = time.Minute
)

// ErrDown is returned by Do while Redis is marked down: the caller uses its local
// state. It is also what Do wraps around the error that marked Redis down.
var ErrDown = errors.New("redis is down")

// Options configure Open.
type Options struct {
	// URL is the Redis URL: redis://[user:password@]host:port[/db],
	// rediss://… for TLS, or unix://[user:password@]/path/to/socket[?db=N].
	URL string
	// Prefix namespaces every key, so that two deployments can share one Redis;
	// empty means DefaultPrefix. It may hold letters, digits, '-', '_' and '.'.
	Prefix string
	// OpTimeout bounds each operation; 0 means DefaultOpTimeout.
	OpTimeout time.Duration
	// ProbeEvery is how often Redis is asked again while down; 0 means
	// DefaultProbeEvery.
	ProbeEvery time.Duration
	// RootCAs are the certificate authorities a rediss:// Redis's certificate must
	// chain to; nil means the system's (which SSL_CERT_FILE and SSL_CERT_DIR extend).
	RootCAs *x509.CertPool
	// Now is the clock that spaces the log lines about Redis trouble; nil means
	// time.Now.
	Now func() time.Time
	// Logger receives the cause of Redis trouble (at most once a minute per kind) and
	// its recovery; nil discards.
	Logger *slog.Logger
	// TracerProvider, when it records (telemetry.On), makes every operation Do sends
	// a span named "redis <op>" under the caller's, with a failure recorded on it
	// (docs/ARCHITECTURE.md §3); nil means none.
	TracerProvider trace.TracerProvider
}

// Fleet is a replica's connection to the Redis its fleet shares. Its methods are safe
// for concurrent use, and those of a nil *Fleet report that there is no fleet (Do
// returns ErrOff), so callers need not check.
type Fleet struct {
	client     *redis.Client
	prefix     string
	opTimeout  time.Duration
	probeEvery time.Duration
	log        *slog.Logger
	redacted   string // the URL without password, for logs and /readyz
	now        func() time.Time

	down     atomic.Bool
	errCount atomic.Uint64 // operations that failed for Redis (not redis.Nil)
	skipped  atomic.Uint64 // operations not tried because Redis was down
	downs    atomic.Uint64 // times Redis was marked down

	mu        sync.Mutex
	lastErr   string
	lastCause string
	downSince time.Time
	logged    map[string]time.Time // cause kind → last logged

	stop     chan struct{}
	stopOnce sync.Once
	probing  sync.WaitGroup

	// tracer makes a span of each operation Do sends; nil with tracing off.
	tracer trace.Tracer
}

// ErrOff is returned by a nil *Fleet's Do: there is no Redis configured.
var ErrOff = errors.New("no redis configured")

// Open parses opt.URL and returns a Fleet using it. It does not wait for Redis: a
// Redis that is not reachable yet is marked down, and the replica serves from its
// local state until the probe finds it. It returns an error for a URL that cannot be
// parsed or a prefix with other characters than letters, digits, '-', '_' and '.';
// the error never holds the password.
func Open(opt Options) (*Fleet, error) {
	prefix := opt.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	ro, err := parseURL(opt.URL)
	if err != nil {
		return nil, err
	}
	if opt.OpTimeout <= 0 {
		opt.OpTimeout = DefaultOpTimeout
	}
	if opt.ProbeEvery <= 0 {
		opt.ProbeEvery = DefaultProbeEvery
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// One dial per attempt: go-redis would otherwise retry a refused dial 5 times,
	// 100 ms apart, in the background, and the caller's deadline would end first and
	// report a refused or untrusted Redis as a timeout. The probe retries. The dial
	// itself may take longer than an operation (a TLS handshake to a Redis far away):
	// callers wait at most their deadline either way.
	ro.DialerRetries = 1
	ro.DialTimeout = max(4*opt.OpTimeout, time.Second)
	ro.ReadTimeout = opt.OpTimeout
	ro.WriteTimeout = opt.OpTimeout
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1 // a retry would exceed the deadline; the probe retries
	ro.PoolTimeout = opt.OpTimeout
	ro.DisableIdentity = true // no CLIENT SETINFO round trip on each new connection
	// Connections kept open, so that a burst of requests after a quiet spell (or the
	// start) does not have to dial within an operation's deadline.
	ro.MinIdleConns = 8
	if ro.TLSConfig != nil && opt.RootCAs != nil {
		ro.TLSConfig.RootCAs = opt.RootCAs
	}
	f := &Fleet{
		client:     redis.NewClient(ro),
		prefix:     prefix,
		opTimeout:  opt.OpTimeout,
		probeEvery: opt.ProbeEvery,
		log:        log,
		redacted:   Redact(opt.URL),
		now:        opt.Now,
		logged:     map[string]time.Time{},
		stop:       make(chan struct{}),
	}
	if telemetry.On(opt.TracerProvider) {
		f.tracer = opt.TracerProvider.Tracer("github.com/peppolgate/peppolgate/fleet")
	}
	// Ask once, within the dial budget (a TLS handshake to a busy or distant Redis may
	// take longer than an operation), so that a replica started with Redis down starts
	// local, and its cause is the real one, not a timeout.
	ctx, cancel := context.WithTimeout(context.Background(), ro.DialTimeout)
	err = f.client.Ping(ctx).Err()
	cancel()
	if err != nil {
		f.markDown(context.Background(), err)
	}
	f.probing.Add(1)
	go f.probe()
	return f, nil
}

// Check reports what Open would refuse in opt (the URL and the prefix), without
// connecting.
func Check(opt Options) error {
	if opt.Prefix != "" {
		if err := checkPrefix(opt.Prefix); err != nil {
			return err
		}
	}
	_, err := parseURL(opt.URL)
	return err
}

// parseURL reads a redis://, rediss:// or unix:// URL into go-redis options, with
// errors that never quote the password.
func parseURL(raw string) (*redis.Options, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("the Redis URL is empty; use redis://host:6379/0, rediss://host:6380 or unix:///path/to/redis.sock")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the Redis URL %s cannot be parsed; use redis://[user:password@]host:6379[/db], rediss://… or unix:///path/to/redis.sock", Redact(raw))
	}
	switch u.Scheme {
	case "redis", "rediss", "unix":
	default:
		return nil, fmt.Errorf("the Redis URL %s has scheme %q; use redis://, rediss:// (TLS) or unix://", Redact(raw), u.Scheme)
	}
	ro, err := redis.ParseURL(raw)
	if err != nil {
		msg := err.Error()
		if u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				msg = strings.ReplaceAll(msg, p, redact.Placeholder)
			}
		}
		return nil, fmt.Errorf("the Redis URL %s is not usable: %s", Redact(raw), msg)
	}
	return ro, nil
}

// Redact returns a Redis URL with its password replaced by REDACTED, for logs
// (redact.URL: without a scheme too; after the scheme nothing when unparseable).
func Redact(raw string) string {
	return redact.URL(raw)
}

// checkPrefix refuses a key prefix that could collide with another's keys or hold
// spaces or control characters.
func checkPrefix(p string) error {
	if len(p) > 64 {
		return errors.New("the Redis key prefix is longer than 64 characters")
	}
	for _, r := range p {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return fmt.Errorf("the Redis key prefix %q may hold only letters, digits, '-', '_' and '.'", p)
		}
	}
	return nil
}

// Key returns the key of parts under the fleet's prefix: prefix:part1:part2…. Parts
// must be our own words or Hash of anything a client sent: nothing from a client is
// used raw in a key.
func (f *Fleet) Key(parts ...string) string {
	var b strings.Builder
	b.WriteString(f.prefix)
	for _, p := range parts {
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// URL returns the Redis URL without its password, for logs.
func (f *Fleet) URL() string { return f.redacted }

// Prefix returns the fleet's key prefix.
func (f *Fleet) Prefix() string { return f.prefix }

// Hash returns a key part for s, which may come from a client: 22 characters of
// URL-safe base64 of its SHA-256 (128 bits), so that no client text reaches a key and
// keys have a bounded length.
func Hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// Client returns the go-redis client, for callers that run their own scripts; they
// must run them inside Do, so that deadlines and health apply.
func (f *Fleet) Client() *redis.Client { return f.client }

// OpTimeout returns the deadline of one operation.
func (f *Fleet) OpTimeout() time.Duration { return f.opTimeout }

// Do runs fn against Redis with the operation deadline, unless Redis is marked down
// (then ErrDown at once) or f is nil (ErrOff). An error of fn other than redis.Nil and
// the caller's own cancellation marks Redis down and is returned wrapped in ErrDown;
// op names the operation in logs. Callers fall back to their local state on any
// error.
func (f *Fleet) Do(ctx context.Context, op string, fn func(ctx context.Context, c *redis.Client) error) error {
	if f == nil {
		return ErrOff
	}
	if f.down.Load() {
		f.skipped.Add(1)
		return ErrDown
	}
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.opTimeout)
	defer cancel()
	// A span only under the caller's: Redis work outside a traced request (a session
	// check, a background release) starts no root trace of its own, and none under
	// telemetry.WithoutSpans (a bulk check, a lease's polls).
	if f.tracer != nil && trace.SpanContextFromContext(ctx).IsValid() && !telemetry.Untraced(ctx) {
		var span trace.Span
		octx, span = f.tracer.Start(octx, "redis "+op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("db.system.name", "redis"), attribute.String("db.operation.name", op)))
		defer span.End()
		err := fn(octx, f.client)
		if err != nil && !errors.Is(err, redis.Nil) {
			telemetry.Fail(span, err, "")
		}
		return f.done(ctx, octx, op, err)
	}
	return f.done(ctx, octx, op, fn(octx, f.client))
}

// done is Do's verdict on fn's err: an error of Redis marks it down.
func (f *Fleet) done(ctx, octx context.Context, op string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	if ctx.Err() != nil && octx.Err() == nil {
		return ctx.Err() // the caller left; says nothing about Redis
	}
	f.errCount.Add(1)
	if !troubled(err) {
		// An error reply to this command alone (a wrong type, a script error): the
		// caller falls back for this operation, and Redis stays in use.
		f.log.WarnContext(ctx, "redis refused an operation", "op", op, "err", err)
		return fmt.Errorf("%s: %w", op, err)
	}
	f.markDown(ctx, fmt.Errorf("%s: %w", op, err))
	return fmt.Errorf("%w: %s: %w", ErrDown, op, err)
}

// troubled reports whether err says Redis as a whole cannot serve us now (a network
// error, a timeout, or an error reply such as OOM, READONLY, LOADING, BUSY, MASTERDOWN
// or an authentication failure), rather than refusing one command.
func troubled(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return true
	}
	msg := re.Error()
	for _, p := range []string{"OOM", "READONLY", "LOADING", "BUSY", "MASTERDOWN", "NOAUTH", "WRONGPASS", "NOPERM", "CLUSTERDOWN", "TRYAGAIN"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Up reports whether Redis is in use (not marked down); false for a nil *Fleet.
func (f *Fleet) Up() bool { return f != nil && !f.down.Load() }

// markDown marks Redis down for cause and logs the cause, at most once a minute per
// kind of cause, with the context of the operation that found it (its trace id).
func (f *Fleet) markDown(ctx context.Context, cause error) {
	kind := Cause(cause)
	now := f.now()
	f.mu.Lock()
	f.lastErr = kind + ": " + cause.Error()
	f.lastCause = kind
	first := !f.down.Load()
	if first {
		f.downSince = now
		f.downs.Add(1)
	}
	f.down.Store(true)
	logIt := f.dueLocked(kind, now)
	f.mu.Unlock()
	if logIt {
		f.log.WarnContext(ctx, "redis unavailable: serving from this replica's own state until it answers again", "redis", f.redacted, "cause", kind, "err", cause)
	}
}

// dueLocked reports whether a cause of kind may be logged now (at most once a minute
// per kind), and notes that it is; f.mu is held.
func (f *Fleet) dueLocked(kind string, now time.Time) bool {
	if last, seen := f.logged[kind]; seen && now.Sub(last) < logEvery {
		return false
	}
	f.logged[kind] = now
	return true
}

// Cause names the kind of a Redis failure for logs and metrics: timeout, refused,
// dns, tls, auth, oom (Redis is full), readonly, or other.
func Cause(err error) string {
	var ne net.Error
	var oe *net.OpError
	msg := err.Error()
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, redis.ErrPoolTimeout), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case strings.Contains(msg, "OOM"):
		return "oom"
	case strings.Contains(msg, "NOAUTH"), strings.Contains(msg, "WRONGPASS"), strings.Contains(msg, "NOPERM"):
		return "auth"
	case strings.Contains(msg, "READONLY"):
		return "readonly"
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "x509:"):
		return "tls"
	case errors.Is(err, os.ErrNotExist), strings.Contains(msg, "connection refused"), strings.Contains(msg, "no such file"):
		return "refused"
	case errors.As(err, &oe) && oe.Op == "dial":
		var de *net.DNSError
		if errors.As(err, &de) {
			return "dns"
		}
		return "refused"
	}
	return "other"
}

// probe asks Redis every probeEvery while it is marked down, and marks it up when it
// answers.
func (f *Fleet) probe() {
	defer f.probing.Done()
	t := time.NewTicker(f.probeEvery)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		if !f.down.Load() {
			continue
		}
		// A write, not a PING: a full (OOM) or read-only Redis answers PING, and
		// marking it up would send every replica back to it once a second.
		ctx, cancel := context.WithTimeout(context.Background(), f.client.Options().DialTimeout)
		err := f.client.Set(ctx, f.Key("fleet", "probe"), "1", 5*time.Second).Err()
		cancel()
		if err != nil {
			kind := Cause(err)
			f.mu.Lock()
			f.lastErr = kind + ": probe: " + err.Error()
			f.lastCause = kind
			logIt := f.dueLocked(kind, f.now())
			f.mu.Unlock()
			if logIt {
				f.log.Warn("redis still unavailable: serving from this replica's own state", "redis", f.redacted, "cause", kind, "err", err)
			}
			continue
		}
		f.mu.Lock()
		since := f.downSince
		f.lastCause = ""
		f.mu.Unlock()
		f.down.Store(false)
		f.log.Info("redis answers again: the fleet's shared state is in use", "redis", f.redacted, "down_for", f.now().Sub(since).Round(time.Millisecond).String())
	}
}

// Status is what /readyz and /metrics show of the fleet's Redis. It names no host:
// the URL and the full error go to the log only.
type Status struct {
	// Up is false while Redis is marked down and the replica uses its own state.
	Up bool `json:"up" jsonschema:"false while the shared Redis is unreachable, slow (over -redis-timeout, 50 ms by default) or refusing writes: this replica then serves from its own cache and limits (still ready), and goes back to the shared state when Redis answers again"`
	// DownSince is when Redis was marked down; zero while up.
	DownSince time.Time `json:"downSince,omitzero" jsonschema:"when Redis was last found down (RFC 3339); absent while up"`
	// Cause is, while down, the kind of the failure: timeout, refused, dns, tls,
	// auth, oom, readonly or other.
	Cause string `json:"cause,omitempty" jsonschema:"while down, the kind of the failure: timeout, refused, dns, tls, auth, oom (Redis is full), readonly or other; absent while up"`
	// Errors counts operations that failed for Redis, Skipped those not tried because
	// it was down, and Downs the times it was marked down.
	Errors  uint64 `json:"errors" jsonschema:"Redis operations that failed since the start"`
	Skipped uint64 `json:"skipped" jsonschema:"Redis operations not tried because Redis was down (the replica's own state answered)"`
	Downs   uint64 `json:"downs" jsonschema:"times Redis was found down since the start"`
	// LastError is the last failure in full, for logs; never shown to clients.
	LastError string `json:"-"`
}

// Status returns the fleet's Redis status; a nil *Fleet gives the zero Status.
func (f *Fleet) Status() Status {
	if f == nil {
		return Status{}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := Status{Up: !f.down.Load(), Cause: f.lastCause, LastError: f.lastErr,
		Errors: f.errCount.Load(), Skipped: f.skipped.Load(), Downs: f.downs.Load()}
	if !s.Up {
		s.DownSince = f.downSince
	}
	return s
}

// Close stops the probe and closes the connections. Safe to call on nil and twice.
func (f *Fleet) Close() {
	if f == nil {
		return
	}
	f.stopOnce.Do(func() {
		close(f.stop)
		f.probing.Wait()
		_ = f.client.Close()
	})
}

// SilenceDriverLog stops go-redis from printing its own lines (e.g. "connection pool:
// failed to dial") to stderr: the fleet logs Redis trouble itself, with its cause, at
// most once a minute. The driver's logger is process-wide, so call it once at program
// start, before any Fleet is opened.
func SilenceDriverLog() { redis.SetLogger(&logging.VoidLogger{}) }
