package peppolnet

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// CachePolicy returns how long l keeps answers and how often it asks the Directory, as
// configured.
func (l *Registry) CachePolicy() registry.CachePolicy {
	c := l.cfg
	return registry.CachePolicy{Found: c.PositiveTTL, NotFound: c.NegativeTTL, Search: c.SearchTTL, Stale: c.StaleFor, DirectoryRate: c.DirectoryRate}.WithDefaults()
}

// Defaults of Config, used when the corresponding field is zero (and the
// defaults of CachePolicy, registry.DefaultPositiveTTL and the others, in package registry).
const (
	DefaultWarningTTL      = time.Minute
	DefaultLookupTimeout   = 10 * time.Second
	DefaultSearchTimeout   = 10 * time.Second
	DefaultDirectoryBurst  = 2
	DefaultDirectoryQueue  = 32
	DefaultMaxCacheEntries = 10000
	// DefaultSMPHostConcurrency is the default of Config.SMPHostConcurrency.
	DefaultSMPHostConcurrency = 8
	// DefaultServiceConcurrency is the default of Config.ServiceConcurrency.
	DefaultServiceConcurrency = 8
	// DefaultBreakerFailures is the default of Config.BreakerFailures.
	DefaultBreakerFailures = 5
	// DefaultBreakerWindow is the default of Config.BreakerWindow.
	DefaultBreakerWindow = time.Minute
	// DefaultBreakerCooldown is the default of Config.BreakerCooldown.
	DefaultBreakerCooldown = 30 * time.Second
	// DefaultMirrorMaxAge is the default of Config.MirrorMaxAge: the Directory rebuilds
	// its export daily, so three days means three missed refreshes.
	DefaultMirrorMaxAge = 72 * time.Hour
	// DefaultMirrorHardMaxAge is the default of Config.MirrorHardMaxAge: a month-old
	// copy still holds nearly every card (participants change slowly), so it beats an
	// error while the Directory is down; older than that it is refused.
	DefaultMirrorHardMaxAge = 30 * 24 * time.Hour
)

// Config configures a Registry. Resolver, SMP and Directory are required; every
// other zero field takes the default named after it.
type Config struct {
	// Fleet is the Redis the replicas of a deployment share: with it, the caches, the
	// coalescing of identical lookups, the Directory's budget, the SMP hosts' caps and
	// the circuit breakers hold fleet-wide (docs/ARCHITECTURE.md §7); nil keeps them in
	// this process. FleetScope names this registry's network in its keys, so that
	// two networks' answers never mix: required with Fleet (New returns an error
	// without it).
	Fleet      *fleet.Fleet
	FleetScope string
	// Resolver resolves participants to their SMP through the SML.
	Resolver *sml.Resolver
	// SMP fetches ServiceGroup and ServiceMetadata documents. Put the SSRF policy
	// (internal/netguard) into its HTTP client. The Registry sends through a copy whose Gate
	// is its own (per-host concurrency cap and circuit breaker); a Gate set here is
	// not used.
	SMP *smp.Client
	// Directory searches the Peppol Directory.
	Directory *directory.Client
	// PositiveTTL is how long a found participant is served from the cache (15m).
	PositiveTTL time.Duration
	// NegativeTTL is how long a "not registered" answer is cached (1m).
	NegativeTTL time.Duration
	// WarningTTL is how long an answer degraded by an upstream failure (it carries a
	// warning such as directory_unavailable) is cached (1m).
	WarningTTL time.Duration
	// StaleFor is how old a cached answer may be and still be served, marked stale,
	// when upstream fails (24h).
	StaleFor time.Duration
	// SearchTTL is how long a search answer is cached (5m).
	SearchTTL time.Duration
	// LookupTimeout bounds the work of one whole lookup, both branches (10s). Time
	// spent waiting for a turn (a busy SMP host's slot, the Directory limiter) is not
	// counted: it is bounded apart, by LookupTimeout again for interactive lookups and
	// by 6 times it for a bulk check's rows (registry.WithBulk).
	LookupTimeout time.Duration
	// SearchTimeout bounds the work of one whole search (10s); waiting for the
	// limiter is bounded apart, by SearchTimeout again.
	SearchTimeout time.Duration
	// DirectoryRate is the most Directory requests per second, lookups and searches
	// together (2, the Directory's own limit per client IP).
	DirectoryRate float64
	// DirectoryBurst is how many Directory requests may go out at once after a quiet
	// spell (2).
	DirectoryBurst int
	// DirectoryQueue is how many callers may wait for the limiter; one more is turned
	// away at once (32).
	DirectoryQueue int
	// MaxCacheEntries bounds each cache (lookups, searches) (10000).
	MaxCacheEntries int
	// SMPHostConcurrency is the most requests in flight to one SMP host at once, over
	// all lookups; further requests wait for a slot, interactive ones first (8). A bulk
	// check's rows (registry.WithBulk) hold at most all but a quarter of them (6 of 8),
	// so the rest is always left to interactive requests.
	SMPHostConcurrency int
	// ServiceConcurrency is the most ServiceMetadata requests one Services call has in
	// flight at once, within the SMPHostConcurrency cap over all lookups (8).
	ServiceConcurrency int
	// BreakerFailures is how many consecutive failures of an SMP host or of the
	// Directory (timeouts, connection errors, 5xx; not 404, 429, a cancelled request,
	// a request refused or given up while it waited for its turn, nor one its lookup's
	// deadline cut short before the upstream had half of it), the first at most
	// BreakerWindow ago, open its circuit breaker (5).
	BreakerFailures int
	// BreakerWindow is how far back a run of failures may begin and still count (1m).
	BreakerWindow time.Duration
	// BreakerCooldown is how long an open breaker fails calls fast, with
	// lookup_failed or search_failed and RetryAfter, before it lets one probe call
	// through; the probe's success closes it, its failure opens it again (30s).
	BreakerCooldown time.Duration
	// Now returns the current time for cache ages and the circuit breakers; nil means
	// time.Now. Tests use it to age the cache and cool breakers down. (The Directory
	// rate limiter always uses the real clock.)
	Now func() time.Time
	// Logger receives upstream failures; nil discards them.
	Logger *slog.Logger
	// Observer hears about upstream calls and cache decisions, for metrics; nil means
	// nobody.
	Observer registry.Observer
	// Mirror, when set, answers searches and the Directory half of lookups from a local
	// copy of the Directory (package mirror) instead of asking the Directory; nil means
	// every such question goes to the live Directory. When the mirror holds no data or
	// its data is older than MirrorMaxAge, the live Directory answers and searches say
	// so in their warnings.
	Mirror DirectoryMirror
	// Network names the Peppol network this registry queries: "production" or "test"
	// expect SMP signers and access point certificates to chain to that network's CAs
	// (smp_certificate_not_peppol, certificate_chain_invalid otherwise); any other
	// value (e.g. "" or "demo") accepts either network's.
	Network string
	// Anchors are the CAs certificates must chain to (package peppol/pki); nil means
	// the OpenPeppol PKI that ships with the binary.
	Anchors *pki.Anchors
	// OCSP asks access point certificates' OCSP responders whether they are revoked;
	// give it the same SSRF guard as the SMP client's. Nil means no revocation checks.
	OCSP *http.Client
	// OCSPOff turns revocation checks off (-ocsp off, for a network that cannot reach
	// the CAs' responders): no responder is asked, and every certificate that names one
	// says revocation "unchecked", never good; no warning, nothing blocked.
	OCSPOff bool
	// OCSPTimeout bounds one OCSP request (DefaultOCSPTimeout); a responder slower
	// than that leaves the revocation unknown.
	OCSPTimeout time.Duration
	// TracerProvider, when it records (telemetry.On), gives the upstream work of a
	// lookup, a services call and a search spans under the caller's: the SML query,
	// each SMP, Directory and OCSP request (host, status, bytes; no trace context is
	// sent to them), the mirror, and the signature and chain checks
	// (docs/ARCHITECTURE.md §3). Nil means no tracing.
	TracerProvider trace.TracerProvider
	// MirrorMaxAge is how old the mirror's data (its export's creation time) may be and
	// still be used first (72h). Older data is stale: the live Directory is asked, and
	// when it fails the stale mirror answers with a mirror_stale warning.
	MirrorMaxAge time.Duration
	// MirrorHardMaxAge is how old the mirror's data may be and still answer when the
	// live Directory fails (30 days); at least MirrorMaxAge. Older data is never used.
	MirrorHardMaxAge time.Duration
}

// withDefaults returns c with zero fields set to their defaults, or an error naming the
// first missing or negative field.
func (c Config) withDefaults() (Config, error) {
	if c.Resolver == nil {
		return c, errors.New("peppolnet: Config.Resolver is required")
	}
	if c.SMP == nil {
		return c, errors.New("peppolnet: Config.SMP is required")
	}
	if c.Anchors == nil {
		a, err := pki.Peppol()
		if err != nil {
			return c, fmt.Errorf("peppolnet: the OpenPeppol certificates: %w", err)
		}
		c.Anchors = a
	}
	if c.Fleet != nil && c.FleetScope == "" {
		// Two networks in one process would share answers (docs/ARCHITECTURE.md §7).
		return c, errors.New("peppolnet: Config.FleetScope is required with Config.Fleet")
	}
	if c.Directory == nil {
		return c, errors.New("peppolnet: Config.Directory is required")
	}
	durs := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"PositiveTTL", &c.PositiveTTL, registry.DefaultPositiveTTL},
		{"NegativeTTL", &c.NegativeTTL, registry.DefaultNegativeTTL},
		{"WarningTTL", &c.WarningTTL, DefaultWarningTTL},
		{"StaleFor", &c.StaleFor, registry.DefaultStaleFor},
		{"SearchTTL", &c.SearchTTL, registry.DefaultSearchTTL},
		{"LookupTimeout", &c.LookupTimeout, DefaultLookupTimeout},
		{"SearchTimeout", &c.SearchTimeout, DefaultSearchTimeout},
		{"BreakerWindow", &c.BreakerWindow, DefaultBreakerWindow},
		{"BreakerCooldown", &c.BreakerCooldown, DefaultBreakerCooldown},
		{"MirrorMaxAge", &c.MirrorMaxAge, DefaultMirrorMaxAge},
		{"MirrorHardMaxAge", &c.MirrorHardMaxAge, DefaultMirrorHardMaxAge},
		{"OCSPTimeout", &c.OCSPTimeout, DefaultOCSPTimeout},
	}
	hardSet := c.MirrorHardMaxAge != 0
	for _, d := range durs {
		if *d.v < 0 {
			return c, errors.New("peppolnet: Config." + d.name + " must not be negative")
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.MirrorHardMaxAge < c.MirrorMaxAge {
		if hardSet {
			return c, errors.New("peppolnet: Config.MirrorHardMaxAge must not be shorter than MirrorMaxAge")
		}
		c.MirrorHardMaxAge = c.MirrorMaxAge
	}
	if c.DirectoryRate < 0 || c.DirectoryBurst < 0 || c.DirectoryQueue < 0 || c.MaxCacheEntries < 0 {
		return c, errors.New("peppolnet: Config.DirectoryRate, DirectoryBurst, DirectoryQueue and MaxCacheEntries must not be negative")
	}
	if c.DirectoryRate == 0 {
		c.DirectoryRate = registry.DefaultDirectoryRate
	}
	if c.DirectoryBurst == 0 {
		c.DirectoryBurst = DefaultDirectoryBurst
	}
	if c.DirectoryQueue == 0 {
		c.DirectoryQueue = DefaultDirectoryQueue
	}
	if c.MaxCacheEntries == 0 {
		c.MaxCacheEntries = DefaultMaxCacheEntries
	}
	if c.SMPHostConcurrency < 0 || c.BreakerFailures < 0 || c.ServiceConcurrency < 0 {
		return c, errors.New("peppolnet: Config.SMPHostConcurrency, ServiceConcurrency and BreakerFailures must not be negative")
	}
	if c.ServiceConcurrency == 0 {
		c.ServiceConcurrency = DefaultServiceConcurrency
	}
	if c.SMPHostConcurrency == 0 {
		c.SMPHostConcurrency = DefaultSMPHostConcurrency
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = DefaultBreakerFailures
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c, nil
}
