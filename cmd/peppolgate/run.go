package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
)

// Timeouts of the HTTP server and the upstream clients. Upstream requests are also
// bounded by the registry's per-lookup deadline.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 60 * time.Second
	idleTimeout       = 120 * time.Second
	shutdownTimeout   = 20 * time.Second
	upstreamTimeout   = 10 * time.Second
	// maxHeaderBytes bounds a request's header block (net/http's default is 1 MiB);
	// more is answered 431 by net/http itself.
	maxHeaderBytes = 64 << 10
)

// program is the command with its environment, so tests can run it in-process.
type program struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// listening, when set, is called once the server accepts connections, with its
	// bound address and base URL (tests use it to find a port chosen with :0).
	listening func(addr net.Addr, baseURL string)
}

// run runs the command for args (without the program name) until ctx is done and
// returns the exit status: 0 for success or -h, 1 for a runtime failure, 2 for a usage
// error.
func (p program) run(ctx context.Context, args []string) int {
	cmd := cmdServe
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case cmdServe, cmdMCP:
			cmd, args = args[0], args[1:]
		case cmdMirror:
			return p.runMirror(ctx, args[1:])
		case "help":
			printUsage(p.stdout)
			return 0
		default:
			fmt.Fprintf(p.stderr, "peppolgate: unknown command %q; the commands are serve (the default), mcp and mirror\nRun 'peppolgate -h' for usage.\n", args[0])
			return 2
		}
	}
	cfg, err := parseConfig(cmd, args, p.getenv)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(p.stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\nRun 'peppolgate -h' for usage.\n", err)
		return 2
	}
	run := p.serve
	if cmd == cmdMCP {
		run = p.serveMCP
	}
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\n", err)
		var ue *usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}

// upstream is the registry over the configured Peppol network, and the simulated
// network behind it for -network demo (nil otherwise).
type upstream struct {
	reg    *registry.Live
	mirror *mirror.Store // nil without -mirror
	demo   *netsim.Network
	// now is the registries' clock: nil (the real one) except for the demo (demoClock).
	now func() time.Time
	// others are the registries of the other networks offered per request (-networks)
	// by name; demoTest is the simulated test network of -network demo, nil otherwise.
	others map[string]registry.Registry
	// nets are every network offered, cfg.network the default.
	nets     *registry.Networks
	demoTest *netsim.Network
	zone     string
	dirURL   string
	closeAll func()
}

// clock is the registries' clock, so that /readyz judges the mirror's age as they do.
func (up *upstream) clock() func() time.Time {
	if up.now != nil {
		return up.now
	}
	return time.Now
}

// connect builds the registry for cfg, starting the simulated network first for
// -network demo. The caller must call closeAll when done. Errors about the
// configuration are *usageError.
func connect(ctx context.Context, cfg config, log *slog.Logger) (*upstream, error) {
	return connectObserved(ctx, cfg, log, nil)
}

// connectObserved is connect with an observer of the registry's upstream calls and
// cache decisions (the metrics); nil means none.
func connectObserved(ctx context.Context, cfg config, log *slog.Logger, obs registry.Observer) (*upstream, error) {
	up := &upstream{closeAll: func() {}}
	smlCfg := sml.Config{Servers: cfg.dnsServers, Zone: cfg.smlZone}
	dirURL := cfg.directoryURL
	dirRate := 0.0 // the registry's default: the real Directory's 2 requests/s
	var demo *netsim.Network
	if cfg.network == registry.NetworkDemo {
		// The simulated network outlives ctx until the server has drained, so that
		// requests in flight at shutdown still get answers.
		n, err := startDemo(context.WithoutCancel(ctx), log)
		if err != nil {
			return nil, fmt.Errorf("starting the demo network: %w", err)
		}
		up.closeAll = func() { n.Close() }
		demo = n
		up.now = demoClock()
		smlCfg = sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone()}
		dirURL = n.DirectoryURL()
		// The simulated Directory has no rate limit; keeping the real one's would only
		// make the demo's first searches slow.
		dirRate = demoDirectoryRate
	}
	resolver, err := sml.New(smlCfg)
	if err != nil {
		up.closeAll()
		if len(smlCfg.Servers) == 0 {
			return nil, &usageError{fmt.Sprintf("configuring SML lookups: %v; name a DNS server with -dns-server host:port", err)}
		}
		return nil, &usageError{fmt.Sprintf("configuring SML lookups: %v", err)}
	}
	smpHTTP := netguard.NewHTTPClient(netguard.Policy{
		AllowPrivate: cfg.allowPrivateSMP,
		// Production SMPs are https-only since 2026-02-01; the test network still has
		// http ones.
		HTTPSOnly: cfg.network == registry.NetworkProduction && !cfg.allowPrivateSMP,
		Timeout:   upstreamTimeout,
	})
	var store *mirror.Store
	if cfg.mirrorPath != "" {
		st, err := mirror.OpenStore(cfg.mirrorPath, log)
		if err != nil {
			up.closeAll()
			return nil, fmt.Errorf("opening the Directory mirror %s: %w", cfg.mirrorPath, err)
		}
		store = st
		closeNet := up.closeAll
		up.closeAll = func() { store.Close(); closeNet() }
		if m, ok := store.Meta(); ok {
			log.Info("Directory mirror opened", "path", cfg.mirrorPath, "cards", m.Cards, "data_as_of", m.DataAsOf.Format(time.RFC3339), "source", m.Source)
		} else {
			log.Warn("the Directory mirror holds no data yet; the live Directory answers until it does (run 'peppolgate mirror import' or 'mirror sync', or use -mirror-refresh)", "path", cfg.mirrorPath)
		}
	}
	rcfg := up.registryConfig(cfg, cfg.network, resolver, smpHTTP, dirURL, dirRate, log, obs)
	if store != nil {
		// Assigned only when set: a nil *Store in the interface would not be nil.
		rcfg.Mirror = store
	}
	reg, err := registry.NewLive(rcfg)
	if err != nil {
		up.closeAll()
		return nil, fmt.Errorf("configuring the registry: %w", err)
	}
	up.reg, up.demo, up.zone, up.dirURL, up.mirror = reg, demo, resolver.Zone(), dirURL, store
	up.others = map[string]registry.Registry{}
	for _, name := range cfg.networks[1:] {
		if err := up.connectOther(ctx, cfg, name, log, obs); err != nil {
			up.closeAll()
			return nil, err
		}
	}
	regs := map[string]registry.Registry{cfg.network: up.reg}
	maps.Copy(regs, up.others)
	if up.nets, err = registry.NewNetworks(cfg.network, regs); err != nil {
		up.closeAll()
		return nil, err
	}
	return up, nil
}

// registryConfig is the registry configuration of one network: its SML resolver, SMP
// HTTP client and Directory, and what every network shares (cache TTL, clock, logger,
// observer). The mirror is the caller's to add.
func (up *upstream) registryConfig(cfg config, network string, resolver *sml.Resolver, smpHTTP *http.Client, dirURL string, dirRate float64, log *slog.Logger, obs registry.Observer) registry.Config {
	return registry.Config{
		Resolver:         resolver,
		SMP:              &smp.Client{HTTP: smpHTTP},
		Directory:        &directory.Client{Base: dirURL, HTTP: &http.Client{Timeout: upstreamTimeout}},
		PositiveTTL:      cfg.cacheTTL,
		DirectoryRate:    dirRate,
		Logger:           log,
		Observer:         obs,
		MirrorMaxAge:     cfg.mirrorMaxAge,
		MirrorHardMaxAge: cfg.mirrorHardMaxAge,
		Network:          network,
		Now:              up.now,
	}
}

// connectOther adds the registry of network name, offered per request besides the
// default: for -network demo, a second simulated network (netsim's test network)
// in-process; otherwise the real network's own SML zone and Directory over the
// system resolvers (-sml-zone, -dns-server, -directory-url and -mirror are the
// default network's). Nothing is asked upstream until a request names the network.
func (up *upstream) connectOther(ctx context.Context, cfg config, name string, log *slog.Logger, obs registry.Observer) error {
	log = log.With("network", name)
	allowPrivate, dirRate := cfg.allowPrivateSMP, 0.0
	var smlCfg sml.Config
	var dirURL string
	if cfg.network == registry.NetworkDemo {
		ds := netsim.Generate(netsim.DatasetConfig{Seed: demoSeed, Network: netsim.NetworkTest, Now: demoNow})
		n, err := netsim.Start(context.WithoutCancel(ctx), ds, netsim.Config{Logger: log.With("component", "netsim")})
		if err != nil {
			return fmt.Errorf("starting the demo's %s network: %w", name, err)
		}
		closeRest := up.closeAll
		up.closeAll = func() { n.Close(); closeRest() }
		up.demoTest = n
		smlCfg = sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone()}
		dirURL, dirRate, allowPrivate = n.DirectoryURL(), demoDirectoryRate, true
	} else {
		zone, err := sml.ZoneFor(name)
		if err != nil {
			return &usageError{err.Error()}
		}
		smlCfg.Zone = zone
		dirURL = directory.Production
		if name == registry.NetworkTest {
			dirURL = directory.Test
		}
	}
	resolver, err := sml.New(smlCfg)
	if err != nil {
		return &usageError{fmt.Sprintf("configuring SML lookups of the %s network: %v; offer only -network's with -networks %s", name, err, cfg.network)}
	}
	smpHTTP := netguard.NewHTTPClient(netguard.Policy{
		AllowPrivate: allowPrivate,
		HTTPSOnly:    name == registry.NetworkProduction && !allowPrivate,
		Timeout:      upstreamTimeout,
	})
	reg, err := registry.NewLive(up.registryConfig(cfg, name, resolver, smpHTTP, dirURL, dirRate, log, obs))
	if err != nil {
		return fmt.Errorf("configuring the registry of the %s network: %w", name, err)
	}
	up.others[name] = reg
	return nil
}

// serve wires the registry and the server for cfg and serves until ctx is done, then
// drains in-flight requests.
func (p program) serve(ctx context.Context, cfg config) error {
	log := slog.New(server.WithRequestIDs(slog.NewJSONHandler(p.stderr, &slog.HandlerOptions{Level: cfg.logLevel})))
	// Every setting is checked before anything starts or listens: a usage error must
	// exit 2 with its own message, not 1 because -addr is taken or the demo network
	// could not start.
	var llm *nlq.LLM
	if cfg.llm != "" {
		var err error
		llm, err = nlq.NewLLM(nlq.LLMConfig{BaseURL: cfg.llmBaseURL, Model: cfg.llmModel, APIKey: cfg.llmKey,
			Timeout: cfg.llmTimeout, HTTPClient: &http.Client{Timeout: cfg.llmTimeout}})
		if err != nil {
			return &usageError{err.Error()}
		}
	}
	if err := server.CheckMCPAllowed(cfg.mcpOrigins, cfg.mcpHosts); err != nil {
		return &usageError{err.Error()}
	}
	warnWideProxies(log, cfg.trustedProxies)
	// One Metrics for the registry (upstream calls, cache) and the server (requests).
	metrics := server.NewMetrics()
	up, err := connectObserved(ctx, cfg, log, metrics)
	if err != nil {
		return err
	}
	defer up.closeAll()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the address is already in use (is another peppolgate running?); choose another with -addr or %s", cfg.addr, envName("addr"))
		}
		return fmt.Errorf("cannot listen on %s: %w", cfg.addr, err)
	}
	defer ln.Close()
	baseURL := cfg.baseURL
	if baseURL == "" {
		baseURL = deriveBaseURL(cfg.addr, ln.Addr())
	}

	var draining atomic.Bool
	handler, err := server.New(server.Config{
		Networks:          up.nets,
		BaseURL:           baseURL,
		Logger:            log,
		Version:           version(),
		LLM:               llm,
		MCPAllowedOrigins: cfg.mcpOrigins,
		MCPAllowedHosts:   cfg.mcpHosts,
		RateLimit:         cfg.rateLimit,
		AskRateLimit:      cfg.askRateLimit,
		MCPRateLimit:      cfg.mcpRateLimit,
		TrustedProxies:    cfg.trustedProxies,
		RateLimitExempt:   cfg.rateLimitExempt,
		Metrics:           metrics,
		Mirror:            mirrorStatus(up.mirror, cfg.mirrorMaxAge, cfg.mirrorHardMaxAge, up.clock()),
		Cache:             up.reg.CachePolicy(),
		Ready: func(context.Context) error {
			if draining.Load() {
				return errors.New("shutting down")
			}
			return nil
		},
	})
	if err != nil {
		return &usageError{err.Error()}
	}
	defer handler.Close()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	defer p.startKeepMirror(ctx, cfg, up, log)()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "base_url", baseURL, "network", cfg.network, "networks", strings.Join(cfg.networks, ","),
		"sml_zone", up.zone, "directory", up.dirURL, "allow_private_smp", cfg.allowPrivateSMP, "version", version(),
		"ask_planner", askPlanner(llm), "rate_limit", cfg.rateLimit.String(), "ask_rate_limit", cfg.askRateLimit.String(),
		"mcp_rate_limit", cfg.mcpRateLimit.String(), "rate_limit_exempt", prefixes(cfg.rateLimitExempt), "trusted_proxies", prefixes(cfg.trustedProxies))
	if up.demo != nil {
		printDemoBanner(p.stdout, up.demo, up.demoTest, baseURL)
	}
	if p.listening != nil {
		p.listening(ln.Addr(), baseURL)
	}

	select {
	case err := <-serveErr:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	// Not ready first, so that a load balancer stops sending (for -drain-delay), and the
	// MCP event streams, which would otherwise hold Shutdown until its timeout, end.
	draining.Store(true)
	handler.BeginShutdown()
	if cfg.drainDelay > 0 {
		log.Info("not ready; waiting before closing the listener", "drain_delay", cfg.drainDelay.String())
		select {
		case <-time.After(cfg.drainDelay):
		case err := <-serveErr:
			return fmt.Errorf("serving: %w", err)
		}
	}
	log.Info("shutting down, draining in-flight requests", "timeout", shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("in-flight requests did not finish within %v: %w", shutdownTimeout, err)
	}
	log.Info("stopped")
	return nil
}

// deriveBaseURL builds the default public URL from the -addr flag and the bound
// address: the flag's host when it names one, localhost for a wildcard address, and
// the port actually bound (which differs from the flag for port 0).
func deriveBaseURL(addrFlag string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(addrFlag)
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		_, port, _ = net.SplitHostPort(addrFlag)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// prefixes lists prefixes for the start-up log.
func prefixes(ps []netip.Prefix) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return strings.Join(out, ",")
}

// askPlanner names what answers POST /ask, for the start-up log.
func askPlanner(llm *nlq.LLM) string {
	if llm == nil {
		return "rules"
	}
	return llm.Name() + ", rules as fallback"
}

// warnWideProxies warns about -trust-proxy prefixes so wide that clients in them, not
// only proxies, are believed when they name a client in X-Forwarded-For: each could
// pick its own rate-limit bucket (wider than an IPv4 /16 or an IPv6 /48, or holding
// public addresses).
func warnWideProxies(log *slog.Logger, trusted []netip.Prefix) {
	for _, p := range trusted {
		a := p.Addr()
		wide := (a.Is4() && p.Bits() < 16) || (a.Is6() && !a.Is4In6() && p.Bits() < 48)
		public := !(a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast())
		if wide || public {
			log.Warn("-trust-proxy names a wide or public range: any client in it may set X-Forwarded-For and so choose its own rate-limit bucket; name only your proxies' addresses",
				"prefix", p.String(), "wide", wide, "public", public)
		}
	}
}
