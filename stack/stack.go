// Package stack builds what peppolgate answers from, one way for every caller: the
// command (serve and mcp), the load tool, the test helpers and the end-to-end tests.
// From one Config it builds each Peppol network's SML resolver, SMP and Directory
// clients (behind the SSRF guard) and live registry, the Directory mirror of the
// default network, and the registry.Networks the server, the tools and /ask answer
// from. The HTTP server's own timeouts are here too (HTTPServer). It starts the
// simulated networks of the demo (StartDemo) but never builds the HTTP handler:
// server.New takes the Stack's Networks, CachePolicy and MirrorStatus (see
// docs/ARCHITECTURE.md §2).
package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
)

// UpstreamTimeout bounds one HTTP request to an SMP or the Directory. Lookups and
// searches are also bounded by the registry's own deadlines (as long as this one), which
// usually end a hanging request first; the breakers still count such a request as the
// upstream's timeout once it has been on the wire a fair time (peppolnet's cutShort,
// docs/ARCHITECTURE.md §3), however late in the lookup it was sent.
const UpstreamTimeout = 10 * time.Second

// The mirror answers for the live registry's Directory.
var _ peppolnet.DirectoryMirror = (*mirror.Store)(nil)

// Network is one Peppol network to answer for.
type Network struct {
	// Name is production, test or demo; "" for the one unnamed network of a stack
	// whose answers carry no network (tests).
	Name string
	// Sim, when set, answers for the network: the SML zone on its DNS server, its
	// SMPs and its Directory, all on loopback (so private SMP addresses are allowed).
	// Its lifetime is the caller's. DNSServers and Zone are then ignored;
	// DirectoryURL, when set, replaces its Directory (e.g. with one that is down).
	Sim *netsim.Network
	// DNSServers are the DNS servers to ask (host:port); empty means the system's.
	DNSServers []string
	// Zone is the SML zone; empty means the named network's own.
	Zone string
	// DirectoryURL is the Peppol Directory's base URL; empty means the named
	// network's own.
	DirectoryURL string
	// DirectoryRate and DirectoryBurst limit the requests to the Directory; zero
	// means the registry's defaults (the real Directory's limit).
	DirectoryRate  float64
	DirectoryBurst int
	// DirectoryQueue is how many Directory requests may wait for the limiter; zero
	// means the registry's default.
	DirectoryQueue int
	// AllowPrivateSMP lets SMP addresses be private or loopback (and http on
	// production), for private test networks.
	AllowPrivateSMP bool
	// TrustPEM are further CA certificates (PEM) the network's SMP signers and access
	// point certificates may chain to, besides OpenPeppol's (or the simulated
	// network's), sorted as pki.Anchors.AddPEM says; they count as the network's own,
	// labelled chain "operator" (pki.Operator), never as OpenPeppol's.
	TrustPEM []byte
}

// Config configures a Stack.
type Config struct {
	// Fleet is the Redis the replicas share (peppolnet.Config.Fleet); nil for none.
	Fleet *fleet.Fleet
	// Networks are the networks to answer for, the default first. Required.
	Networks []Network
	// MirrorPath is the Directory mirror's index file of the default network; ""
	// means none.
	MirrorPath string
	// CacheTTL is how long a found participant is cached; 0 means the registry's
	// default.
	CacheTTL time.Duration
	// MirrorMaxAge and MirrorHardMaxAge are how old the mirror's data may be to
	// answer first, and to answer when the live Directory fails; 0 means the
	// registry's defaults.
	MirrorMaxAge, MirrorHardMaxAge time.Duration
	// SMLTimeout and SMLAttempts bound DNS lookups (sml.Config); 0 means sml's
	// defaults.
	SMLTimeout  time.Duration
	SMLAttempts int
	// Now is the registries' clock; nil means time.Now.
	Now func() time.Time
	// Logger receives the registries' and the mirror's logs; nil discards them.
	Logger *slog.Logger
	// Observer sees the registries' upstream calls and cache decisions (the
	// server's Metrics); nil means none.
	Observer registry.Observer
	// OCSPOff turns certificates' revocation checks off and OCSPTimeout bounds each
	// (peppolnet.Config.OCSPOff, OCSPTimeout; 0 means peppolnet's default).
	OCSPOff     bool
	OCSPTimeout time.Duration
	// Proxy is the outbound proxy of SMP, Directory and OCSP requests; the zero Proxy
	// means direct connections. The SSRF guard holds through it (netguard.Proxy).
	Proxy netguard.Proxy
	// TracerProvider gives the registries' upstream work spans
	// (peppolnet.Config.TracerProvider); nil means no tracing.
	TracerProvider trace.TracerProvider
}

// ConfigError is a network of a Config that cannot be configured: a name given twice,
// no SML zone or Directory known for its name, or an SML resolver that cannot be made
// (SML; e.g. no DNS server given and none in the system's configuration). Network
// names the network ("" for an unnamed one).
type ConfigError struct {
	Network string
	SML     bool
	Err     error
}

// Error says what is wrong, and with which network.
func (e *ConfigError) Error() string {
	switch {
	case e.SML && e.Network != "":
		return fmt.Sprintf("configuring SML lookups of the %s network: %v", e.Network, e.Err)
	case e.SML:
		return fmt.Sprintf("configuring SML lookups: %v", e.Err)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// Stack is what peppolgate answers from. Close it when done.
type Stack struct {
	// Networks answer lookups and searches, Config.Networks[0] by default.
	Networks *registry.Networks
	// Mirror is the default network's Directory mirror; nil without one.
	Mirror *mirror.Store
	// Zone and DirectoryURL are the default network's SML zone and Directory, for logs
	// and the mirror's sync.
	Zone, DirectoryURL string

	lives map[string]*peppolnet.Registry
	// order is the networks' names in Config order, the default first.
	order    []string
	def      string
	now      func() time.Time
	closeFns []func()
}

// Build builds the stack of cfg. Nothing is asked upstream until a request comes;
// the mirror is opened. It returns a *ConfigError for a network that cannot be
// configured, and another error when cfg has no networks, the mirror cannot be opened
// or a registry refuses its configuration (a negative duration).
func Build(cfg Config) (*Stack, error) {
	if len(cfg.Networks) == 0 {
		return nil, errors.New("stack: Config.Networks is empty")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stack{lives: map[string]*peppolnet.Registry{}, def: cfg.Networks[0].Name, now: cfg.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if cfg.MirrorPath != "" {
		st, err := mirror.OpenStore(cfg.MirrorPath, log)
		if err != nil {
			return nil, fmt.Errorf("opening the Directory mirror %s: %w", cfg.MirrorPath, err)
		}
		s.Mirror = st
		s.closeFns = append(s.closeFns, func() { st.Close() })
		if m, ok := st.Meta(); ok {
			log.Info("Directory mirror opened", "path", cfg.MirrorPath, "cards", m.Cards, "data_as_of", m.DataAsOf.Format(time.RFC3339), "source", m.Source)
		} else {
			log.Warn("the Directory mirror holds no data yet; the live Directory answers until it does (run 'peppolgate mirror import' or 'mirror sync', or use -mirror-refresh)", "path", cfg.MirrorPath)
		}
	}
	regs := map[string]registry.Registry{}
	for i, n := range cfg.Networks {
		if _, dup := regs[n.Name]; dup {
			s.Close()
			return nil, &ConfigError{Network: n.Name, Err: fmt.Errorf("network %q is given twice", n.Name)}
		}
		nlog := log
		if i > 0 {
			nlog = log.With("network", n.Name)
		}
		live, zone, dirURL, err := s.live(cfg, n, i == 0, nlog)
		if err != nil {
			s.Close()
			return nil, err
		}
		if i == 0 {
			s.Zone, s.DirectoryURL = zone, dirURL
		}
		s.lives[n.Name] = live
		s.order = append(s.order, n.Name)
		regs[n.Name] = live
	}
	if len(cfg.Networks) == 1 && s.def == "" {
		s.Networks = registry.One(s.lives[""])
		return s, nil
	}
	nets, err := registry.NewNetworks(s.def, regs)
	if err != nil {
		s.Close()
		return nil, &ConfigError{Network: s.def, Err: err}
	}
	s.Networks = nets
	return s, nil
}

// live builds the registry of n: its resolver, clients and, for the default network,
// the mirror. It returns the SML zone and the Directory URL it uses.
func (s *Stack) live(cfg Config, n Network, isDefault bool, log *slog.Logger) (*peppolnet.Registry, string, string, error) {
	smlCfg := sml.Config{Servers: n.DNSServers, Zone: n.Zone, Timeout: cfg.SMLTimeout, Attempts: cfg.SMLAttempts}
	dirURL, allowPrivate := n.DirectoryURL, n.AllowPrivateSMP
	// The CAs certificates must chain to: OpenPeppol's of the network named (nil: the
	// registry's default). A simulated network's certificates are netsim's own,
	// whatever it is named: they chain to its anchors, as the test PKI's would.
	caNetwork := n.Name
	var anchors *pki.Anchors
	if n.Sim != nil {
		a, err := n.Sim.Anchors()
		if err != nil {
			return nil, "", "", err
		}
		caNetwork, anchors = "", a
		smlCfg.Servers, smlCfg.Zone, allowPrivate = []string{n.Sim.DNSAddr()}, n.Sim.Zone(), true
		if dirURL == "" {
			dirURL = n.Sim.DirectoryURL()
		}
	} else {
		if smlCfg.Zone == "" {
			zone, err := sml.ZoneFor(n.Name)
			if err != nil {
				return nil, "", "", &ConfigError{Network: n.Name, Err: err}
			}
			smlCfg.Zone = zone
		}
		if dirURL == "" {
			switch n.Name {
			case registry.NetworkProduction:
				dirURL = directory.Production
			case registry.NetworkTest:
				dirURL = directory.Test
			default:
				return nil, "", "", &ConfigError{Network: n.Name, Err: fmt.Errorf("network %q has no Peppol Directory of its own; name one", n.Name)}
			}
		}
	}
	if len(n.TrustPEM) > 0 {
		if anchors == nil {
			a, err := pki.Peppol()
			if err != nil {
				return nil, "", "", err
			}
			anchors = a
		}
		if err := anchors.AddPEM(pki.Operator, n.TrustPEM); err != nil {
			return nil, "", "", &ConfigError{Network: n.Name, Err: fmt.Errorf("the trusted CA certificates: %w", err)}
		}
	}
	resolver, err := sml.New(smlCfg)
	if err != nil {
		return nil, "", "", &ConfigError{Network: n.Name, SML: true, Err: err}
	}
	guarded := netguard.NewHTTPClient(netguard.Policy{
		AllowPrivate: allowPrivate,
		// Production SMPs are https-only since 2026-02-01; the test network still has
		// http ones.
		HTTPSOnly: n.Name == registry.NetworkProduction && !allowPrivate,
		Timeout:   UpstreamTimeout,
		Proxy:     cfg.Proxy,
	})
	rcfg := peppolnet.Config{
		Resolver: resolver,
		SMP:      &smp.Client{HTTP: guarded},
		// OCSP responders are asked through the same SSRF guard as SMPs, but over
		// plain http, as OCSP is.
		OCSP:             netguard.NewHTTPClient(netguard.Policy{AllowPrivate: allowPrivate, Timeout: UpstreamTimeout, Proxy: cfg.Proxy}),
		OCSPOff:          cfg.OCSPOff,
		OCSPTimeout:      cfg.OCSPTimeout,
		Directory:        &directory.Client{Base: dirURL, HTTP: &http.Client{Timeout: UpstreamTimeout, Transport: netguard.Transport(cfg.Proxy)}},
		PositiveTTL:      cfg.CacheTTL,
		DirectoryRate:    n.DirectoryRate,
		DirectoryBurst:   n.DirectoryBurst,
		DirectoryQueue:   n.DirectoryQueue,
		Logger:           log,
		Observer:         cfg.Observer,
		MirrorMaxAge:     cfg.MirrorMaxAge,
		MirrorHardMaxAge: cfg.MirrorHardMaxAge,
		Network:          caNetwork,
		Anchors:          anchors,
		Now:              cfg.Now,
		Fleet:            cfg.Fleet,
		FleetScope:       "net-" + n.Name,
		TracerProvider:   cfg.TracerProvider,
	}
	if isDefault && s.Mirror != nil {
		// Assigned only when set: a nil *Store in the interface would not be nil.
		rcfg.Mirror = s.Mirror
	}
	live, err := peppolnet.New(rcfg)
	if err != nil {
		return nil, "", "", fmt.Errorf("configuring the registry of the %s network: %w", n.Name, err)
	}
	return live, resolver.Zone(), dirURL, nil
}

// Default returns the default network's live registry.
func (s *Stack) Default() *peppolnet.Registry { return s.lives[s.def] }

// CachePolicy returns how long the registries keep answers, for the documents.
func (s *Stack) CachePolicy() registry.CachePolicy { return s.Default().CachePolicy() }

// Close closes the mirror. It does not stop the simulated networks, which are the
// caller's.
func (s *Stack) Close() {
	for i := len(s.closeFns) - 1; i >= 0; i-- {
		s.closeFns[i]()
	}
	s.closeFns = nil
}

// MirrorStatus returns the function that reports the mirror's state for /readyz, as
// the default network's registry judges it on its clock, or nil when the stack has no
// mirror.
func (s *Stack) MirrorStatus() func() mirror.Status {
	if s.Mirror == nil {
		return nil
	}
	return func() mirror.Status {
		now := s.now()
		state, maxAge, hardMaxAge := s.Default().MirrorState(now)
		st := mirror.Status{State: state, MaxAgeSeconds: int64(maxAge / time.Second), HardMaxAgeSeconds: int64(hardMaxAge / time.Second)}
		if m, ok := s.Mirror.Meta(); ok {
			asOf, imported := m.DataAsOf.UTC(), m.ImportedAt.UTC()
			st.DataAsOf, st.ImportedAt, st.Cards = &asOf, &imported, m.Cards
			st.AgeSeconds = int64(max(now.Sub(asOf), 0) / time.Second)
		}
		return st
	}
}

// SMLStatus returns the function that reports, for /readyz, whether each network's SML
// zone resolves through its DNS servers (peppolnet.Registry.CheckSML), default network
// first. The networks are checked at once; each check's outcome is remembered for a
// while, so probing /readyz often costs at most one DNS query per server and
// sml.ZoneCheckRetry. Each check is bounded by ctx and by the SML timeouts.
func (s *Stack) SMLStatus() func(ctx context.Context) []registry.SMLStatus {
	return func(ctx context.Context) []registry.SMLStatus {
		out := make([]registry.SMLStatus, len(s.order))
		var wg sync.WaitGroup
		for i, name := range s.order {
			wg.Go(func() {
				st := s.lives[name].CheckSML(ctx)
				st.Network = name
				out[i] = st
			})
		}
		wg.Wait()
		return out
	}
}
