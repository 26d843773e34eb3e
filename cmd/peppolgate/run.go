package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/stack"
)

// shutdownTimeout bounds the drain of in-flight requests at shutdown.
const shutdownTimeout = 20 * time.Second

// program is the command with its environment, so tests can run it in-process.
type program struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// listening, when set, is called once the server accepts connections, with its
	// bound address and base URL (tests use it to find a port chosen with :0).
	listening func(addr net.Addr, baseURL string)
	// mirrorReload, when set, replaces mirrorReloadEvery (tests).
	mirrorReload time.Duration
}

// run runs the command for args (without the program name) until ctx is done and
// returns the exit status: 0 for success or -h, 1 for a runtime failure, 2 for a usage
// error.
func (p program) run(ctx context.Context, args []string) int {
	cmd := cmdServe
	if len(args) > 0 && (args[0] == "-version" || args[0] == "--version" || args[0] == "version") {
		fmt.Fprintln(p.stdout, versionLine())
		return 0
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case cmdServe, cmdMCP, cmdCheck:
			cmd, args = args[0], args[1:]
		case cmdMirror:
			return p.runMirror(ctx, args[1:])
		case "config":
			return p.runConfig(args[1:])
		case "help":
			printUsage(p.stdout)
			return 0
		default:
			fmt.Fprintf(p.stderr, "peppolgate: unknown command %q; the commands are serve (the default), mcp, check, mirror, config and version\nRun 'peppolgate -h' for usage.\n", args[0])
			return 2
		}
	}
	if len(args) > 0 && (args[0] == "-version" || args[0] == "--version") {
		fmt.Fprintln(p.stdout, versionLine()) // "peppolgate serve -version" too
		return 0
	}
	cfg, err := parseConfig(cmd, args, p.getenv)
	help, usage := printUsage, "peppolgate -h"
	if cmd == cmdCheck {
		help, usage = printCheckUsage, "peppolgate check -h"
	}
	if errors.Is(err, flag.ErrHelp) {
		help(p.stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "peppolgate: %v\nRun '%s' for usage.\n", err, usage)
		return 2
	}
	if cmd != cmdServe {
		// serve logs them (as JSON, with its other logs).
		for _, w := range cfg.warnings {
			fmt.Fprintf(p.stderr, "peppolgate: warning: %s\n", w)
		}
	}
	run := p.serve
	switch cmd {
	case cmdMCP:
		run = p.serveMCP
	case cmdCheck:
		cfg.check.args = args
		run = p.check
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

// upstream is the stack over the configured Peppol networks, and the simulated
// networks behind them for -network demo (none otherwise).
type upstream struct {
	*stack.Stack
	// demo and demoTest are the simulated networks of -network demo (demoTest with
	// -networks test too); nil otherwise.
	demo, demoTest *netsim.Network
	stopDemo       func()
}

// closeAll closes the stack, then stops the simulated networks.
func (up *upstream) closeAll() {
	up.Close()
	if up.stopDemo != nil {
		up.stopDemo()
	}
}

// connect builds the stack for cfg (stack.Build), starting the simulated networks
// first for -network demo, with obs (the metrics; nil for none) observing the
// registries. The caller must call closeAll when done. Errors about the
// configuration are *usageError.
func connect(ctx context.Context, cfg config, log *slog.Logger, obs registry.Observer, fl *fleet.Fleet, tp trace.TracerProvider) (*upstream, error) {
	scfg := stack.Config{
		TracerProvider:   tp,
		Fleet:            fl,
		MirrorPath:       cfg.mirrorPath,
		CacheTTL:         cfg.cacheTTL,
		MirrorMaxAge:     cfg.mirrorMaxAge,
		MirrorHardMaxAge: cfg.mirrorHardMaxAge,
		Logger:           log,
		Observer:         obs,
		OCSPOff:          !cfg.ocsp,
		OCSPTimeout:      cfg.ocspTimeout,
		Proxy:            cfg.proxy,
	}
	up := &upstream{}
	if cfg.network == registry.NetworkDemo {
		nets, stop, err := stack.StartDemo(ctx, cfg.networks, log)
		if err != nil {
			return nil, err
		}
		up.stopDemo, up.demo = stop, nets[0].Sim
		if len(nets) > 1 {
			up.demoTest = nets[1].Sim
		}
		for i := range nets {
			nets[i].TrustPEM = cfg.trustCA[nets[i].Name]
		}
		// The registries judge on the demo networks' own clock (stack.StartDemo).
		scfg.Networks, scfg.Now = nets, nets[0].Sim.Now
	} else {
		scfg.Networks = []stack.Network{{Name: cfg.network, DNSServers: cfg.dnsServers, Zone: cfg.smlZone,
			DirectoryURL: cfg.directoryURL, AllowPrivateSMP: cfg.allowPrivateSMP, TrustPEM: cfg.trustCA[cfg.network]}}
		// The other networks use their own SML zone and Directory over the system
		// resolvers: -sml-zone, -dns-server, -directory-url and -mirror are the
		// default network's.
		for _, name := range cfg.networks[1:] {
			scfg.Networks = append(scfg.Networks, stack.Network{Name: name, AllowPrivateSMP: cfg.allowPrivateSMP, TrustPEM: cfg.trustCA[name]})
		}
	}
	st, err := stack.Build(scfg)
	if err != nil {
		if up.stopDemo != nil {
			up.stopDemo()
		}
		return nil, configError(cfg, err)
	}
	up.Stack = st
	return up, nil
}

// serve wires the registry and the server for cfg and serves until ctx is done, then
// drains in-flight requests.
func (p program) serve(ctx context.Context, cfg config) error {
	log := slog.New(server.WithRequestIDs(slog.NewJSONHandler(p.stderr, &slog.HandlerOptions{Level: cfg.logLevel})))
	// Every setting is checked before anything starts or listens: a usage error must
	// exit 2 with its own message, not 1 because -addr is taken or the demo network
	// could not start. Tracing starts as its settings are checked (telemetry.Setup).
	var flushTraces func(context.Context) error
	tp, llm, err := checkServe(cfg, func() (trace.TracerProvider, error) {
		tp, flush, err := telemetry.Setup(ctx, p.getenv, log, version())
		flushTraces = flush
		return tp, err
	})
	if flushTraces != nil {
		// Registered first, so it runs last: after the server has drained, every
		// span has ended and the queued ones go out, within telemetry.ShutdownTimeout.
		defer func() {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetry.ShutdownTimeout)
			defer cancel()
			if err := flushTraces(fctx); err != nil {
				log.Warn("the spans still queued could not all be sent to the collector", "err", err)
			}
		}()
	}
	if err != nil {
		return err
	}
	if telemetry.On(tp) {
		// Every log line of a traced request carries its trace_id and span_id.
		log = slog.New(telemetry.WithTraceIDs(log.Handler()))
	}
	for _, w := range cfg.warnings {
		log.Warn(w)
	}
	warnWideProxies(log, cfg.trustedProxies)
	// One Metrics for the registry (upstream calls, cache) and the server (requests).
	metrics := server.NewMetrics()
	var fl *fleet.Fleet
	if cfg.redisURL != "" {
		var err error
		if fl, err = fleet.Open(fleet.Options{URL: cfg.redisURL, Prefix: cfg.redisPrefix, OpTimeout: cfg.redisTimeout, Logger: log, TracerProvider: tp}); err != nil {
			return &usageError{"-redis: " + err.Error()}
		}
		defer fl.Close()
		if fl.Up() {
			log.Info("sharing cache, limits and sessions through redis", "redis", fl.URL(), "prefix", fl.Prefix())
		} else {
			log.Warn("redis does not answer yet: serving from this replica's own state, and sharing once it answers", "redis", fl.URL(), "prefix", fl.Prefix(), "cause", fl.Status().Cause)
		}
	}
	up, err := connect(ctx, cfg, log, metrics, fl, tp)
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
		Networks:          up.Networks,
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
		RequestLog:        cfg.logRequests,
		TracerProvider:    tp,
		RateLimitExempt:   cfg.rateLimitExempt,
		Bulk:              server.BulkLimits{MaxDuration: cfg.checkMaxDuration},
		Metrics:           metrics,
		Fleet:             fl,
		Mirror:            up.MirrorStatus(),
		SML:               up.SMLStatus(),
		Cache:             up.CachePolicy(),
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
	srv := stack.HTTPServer(handler, log)

	defer p.startKeepMirror(ctx, cfg, up, fl, log)()

	serveErr := make(chan error, 1)
	// net/http's own 400s (a request it cannot read) answer JSON too (server.Listener).
	go func() { serveErr <- srv.Serve(handler.Listener(ln)) }()
	log.Info("listening", "addr", ln.Addr().String(), "base_url", baseURL, "network", cfg.network, "networks", strings.Join(cfg.networks, ","),
		"sml_zone", up.Zone, "directory", up.DirectoryURL, "allow_private_smp", cfg.allowPrivateSMP, "version", version(),
		"ask_planner", askPlanner(llm), "rate_limit", cfg.rateLimit.String(), "ask_rate_limit", cfg.askRateLimit.String(),
		"mcp_rate_limit", cfg.mcpRateLimit.String(), "rate_limit_exempt", prefixes(cfg.rateLimitExempt), "trusted_proxies", prefixes(cfg.trustedProxies),
		"ocsp", (*onOff)(&cfg.ocsp).String(), "outbound_proxy", cfg.proxy.String())
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
	// MCP event streams, which would otherwise hold Shutdown until its timeout, end; new
	// bulk checks are refused, the running ones have the drain delay to finish.
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
	// The running bulk checks had the drain delay to finish; the rest end now, naming
	// their rows not checked (docs/INTERFACE.md §4.7).
	handler.EndChecks()
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

// newLLM returns the LLM of -llm (nil for none), or a *usageError for settings it
// refuses (e.g. no key).
func newLLM(cfg config, tp trace.TracerProvider) (*nlq.LLM, error) {
	if cfg.llm == "" {
		return nil, nil
	}
	llm, err := nlq.NewLLM(nlq.LLMConfig{BaseURL: cfg.llmBaseURL, Model: cfg.llmModel, APIKey: cfg.llmKey,
		Timeout: cfg.llmTimeout, HTTPClient: telemetry.Client(&http.Client{Timeout: cfg.llmTimeout}, tp, "LLM")})
	if err != nil {
		msg := err.Error()
		if strings.HasSuffix(msg, "set OPENAI_API_KEY") {
			msg += " (or " + keyOpenAIKey + " in the -config file)"
		}
		return nil, &usageError{msg}
	}
	return llm, nil
}

// checkServe checks, once each, the settings serve checks before it starts serving
// (beyond parseConfig), so that 'config print' refuses what serve refuses: the OTEL_*
// settings (setup: telemetry.Setup for serve, which starts tracing with them and
// returns its provider; telemetry.Check for config print, which starts nothing), then
// the LLM's (building it, its HTTP client traced by that provider), then the MCP allow
// lists. It returns the provider and the LLM (nil for none), or a *usageError for a
// setting it refuses (another error of setup as it is).
func checkServe(cfg config, setup func() (trace.TracerProvider, error)) (trace.TracerProvider, *nlq.LLM, error) {
	tp, err := setup()
	if err != nil {
		var ce *telemetry.ConfigError
		if errors.As(err, &ce) {
			return nil, nil, &usageError{err.Error()}
		}
		return nil, nil, err
	}
	llm, err := newLLM(cfg, tp)
	if err != nil {
		return nil, nil, err
	}
	if err := server.CheckMCPAllowed(cfg.mcpOrigins, cfg.mcpHosts); err != nil {
		return nil, nil, &usageError{err.Error()}
	}
	return tp, llm, nil
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

// configError is the error of connect when stack.Build fails with err: a usage error
// (exit 2) saying which flag to change for a network that cannot be configured,
// else err.
func configError(cfg config, err error) error {
	var ce *stack.ConfigError
	switch {
	case !errors.As(err, &ce):
		return err
	case ce.Network != cfg.network:
		return &usageError{fmt.Sprintf("%v; offer only -network's with -networks %s", err, cfg.network)}
	case ce.SML && len(cfg.dnsServers) == 0 && cfg.network != registry.NetworkDemo:
		return &usageError{fmt.Sprintf("%v; name a DNS server with -dns-server host:port", err)}
	default:
		return &usageError{err.Error()}
	}
}
