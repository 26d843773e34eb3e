package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/stack"
	"github.com/peppolgate/peppolgate/tools"
)

// envPrefix starts the environment variable of every flag.
const envPrefix = "PEPPOLGATE_"

// Commands.
const (
	cmdServe  = "serve"
	cmdMCP    = "mcp"
	cmdMirror = "mirror"
	cmdCheck  = "check"
)

// config is the validated configuration of the serve and mcp commands.
type config struct {
	cmd             string
	addr            string
	baseURL         string // "" means derived from the bound address
	mcpOrigins      []string
	mcpHosts        []string
	llm             string // "" or "openai"
	llmBaseURL      string
	llmModel        string
	llmTimeout      time.Duration
	llmKey          string // from OPENAI_API_KEY, never a flag
	network         string
	networks        []string // offered per request, the default (network) first
	smlZone         string
	dnsServers      []string // empty means the system resolvers
	directoryURL    string
	allowPrivateSMP bool
	cacheTTL        time.Duration
	logLevel        slog.Level
	// logRequests is which successful requests serve's access log writes at info
	// level (-log-requests).
	logRequests server.RequestLog
	// rateLimit, askRateLimit and mcpRateLimit are the per-client limits of the REST
	// API, POST /ask and /mcp; trustedProxies the proxies whose X-Forwarded-For is
	// believed.
	rateLimit, askRateLimit, mcpRateLimit server.RateLimit
	trustedProxies, rateLimitExempt       []netip.Prefix
	// mirrorPath is the Directory mirror's index file ("" for none), mirrorMaxAge how
	// old its data may be to answer first, mirrorHardMaxAge how old to answer when the
	// live Directory fails, mirrorRefresh how often serve syncs it (0 never).
	mirrorPath                                    string
	mirrorMaxAge, mirrorHardMaxAge, mirrorRefresh time.Duration
	// trustCA are the extra CA certificates (PEM) each network trusts (-trust-ca).
	trustCA map[string][]byte
	// drainDelay is how long serve answers /readyz 503 before it stops listening.
	drainDelay time.Duration
	// checkMaxDuration bounds one POST /api/v1/check (server.BulkLimits.MaxDuration).
	checkMaxDuration time.Duration
	// check is the check command's own configuration.
	check checkConfig
	// redisURL is the Redis the replicas share ("" for none: one process, everything
	// in memory), redisPrefix its key prefix (-redis, -redis-prefix).
	redisURL, redisPrefix string
	redisTimeout          time.Duration
	// ocsp says whether access point and SMP certificates' OCSP responders are asked
	// (-ocsp), ocspTimeout how long each may take (-ocsp-timeout).
	ocsp        bool
	ocspTimeout time.Duration
	// proxy is the outbound proxy of SMP, Directory and OCSP requests, from the
	// environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY).
	proxy netguard.Proxy
	// warnings are said at start-up: a -config file others may read holding a secret.
	warnings []string
	// layers is where each setting came from, for 'config print'.
	layers *configLayers
}

// configLayers is what parseConfig read: the flags with their values, where each
// value came from (flag, env, file; default when absent), and the -config file.
type configLayers struct {
	fs   *flag.FlagSet
	src  map[string]string
	file *configFile
	// keySource says where the LLM's key came from: env, file, or "" (none).
	keySource string
}

// usageError is a bad flag, value or argument: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// envName returns the environment variable of a flag: "cache-ttl" → PEPPOLGATE_CACHE_TTL.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// flagValues holds the raw flag values before validation.
type flagValues struct {
	addr, baseURL, mcpOrigins, mcpHosts                 string
	llm, llmBaseURL, llmModel                           string
	llmTimeout                                          time.Duration
	network, smlZone, dnsServer, directoryURL, logLevel string
	networks                                            string
	trustCA                                             string
	allowPrivateSMP                                     bool
	cacheTTL                                            time.Duration
	rateLimit, askRateLimit, mcpRateLimit, trustProxy   string
	rateLimitExempt                                     string
	mirror                                              string
	mirrorMaxAge, mirrorHardMaxAge, mirrorRefresh       time.Duration
	drainDelay                                          time.Duration
	checkMaxDuration                                    time.Duration
	logRequests                                         string
	redis, redisPrefix                                  string
	redisTimeout                                        time.Duration
	check                                               checkFlags
	config                                              string
	ocsp                                                onOff
	ocspTimeout                                         time.Duration
}

// onOff is a flag that is on or off (the -config file passes a bare on or off as
// written, not as YAML 1.1's boolean).
type onOff bool

// String returns on or off.
func (o *onOff) String() string {
	if o != nil && *o {
		return "on"
	}
	return "off"
}

// Set reads on or off; anything else is an error.
func (o *onOff) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on":
		*o = true
	case "off":
		*o = false
	default:
		return errors.New("not on or off")
	}
	return nil
}

// newFlagSet returns the flags of cmd: the upstream flags for both commands, the
// HTTP ones only for serve.
func newFlagSet(v *flagValues, cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet("peppolgate "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by parseConfig, usage by printUsage
	if cmd == cmdServe {
		fs.StringVar(&v.addr, "addr", ":8080", "`address` to listen on, host:port")
		fs.StringVar(&v.baseURL, "base-url", "", "public `URL` of the service, used in links (default derived from -addr, e.g. http://localhost:8080)")
		fs.StringVar(&v.mcpOrigins, "mcp-allowed-origins", "", "browser `origins` allowed to use /mcp besides the base URL's and localhost ones, comma-separated, e.g. https://app.example.com; * allows all")
		fs.StringVar(&v.mcpHosts, "mcp-allowed-hosts", "", "Host `names` /mcp accepts besides localhost and the base URL's host, comma-separated (for a reverse proxy that forwards the public name); * allows all")
		fs.StringVar(&v.llm, "llm", "none", "LLM for POST /ask: none (the rule planner) or openai (any OpenAI-compatible API: OpenAI, Ollama, vLLM, ...; key from OPENAI_API_KEY)")
		fs.StringVar(&v.llmBaseURL, "llm-base-url", "", "base `URL` of the OpenAI-compatible API (default https://api.openai.com/v1; Ollama: http://localhost:11434/v1)")
		fs.StringVar(&v.llmModel, "llm-model", "", "LLM `model`, e.g. gpt-4o-mini or llama3.1 (required with -llm openai)")
		fs.DurationVar(&v.llmTimeout, "llm-timeout", 20*time.Second, "deadline of the LLM's work on one question, a positive `duration`; the rule planner answers when it passes")
		fs.StringVar(&v.rateLimit, "rate-limit", "20/s,burst=40", "requests per client to the REST API (/api/v1/...): a `rate` N/s or N/m, optionally ,burst=B (when left out, one second's or minute's worth); 0 or off for no limit. With -redis, one limit per client for the whole fleet")
		fs.StringVar(&v.askRateLimit, "ask-rate-limit", "2/s,burst=5", "requests per client to POST /ask, a `rate` as for -rate-limit")
		fs.StringVar(&v.mcpRateLimit, "mcp-rate-limit", "20/s,burst=40", "requests per client to /mcp, a `rate` as for -rate-limit")
		fs.StringVar(&v.rateLimitExempt, "rate-limit-exempt", "127.0.0.0/8,::1", "`clients` no rate limit applies to, IP addresses or CIDR prefixes, comma-separated; none for no exception. Loopback by default: tools on the same host, and a local reverse proxy without -trust-proxy, which would otherwise put every client in one bucket")
		fs.DurationVar(&v.mirrorRefresh, "mirror-refresh", 0, "how often to download the Directory's export and rebuild the -mirror index while serving, a `duration` such as 24h (the Directory rebuilds it daily and allows 3 downloads a day); 0 never (run 'peppolgate mirror sync' yourself). With -redis the replicas take turns under a lease: one sync per period between them")
		fs.DurationVar(&v.drainDelay, "drain-delay", 0, "on SIGTERM or SIGINT, how long /readyz answers 503 while the server still serves, before it stops listening and drains, a `duration` such as 5s for a load balancer's health check to notice; 0 stops at once (MCP event streams end first either way; new bulk checks are refused at once, running ones end with the delay)")
		fs.DurationVar(&v.checkMaxDuration, "check-max-duration", server.DefaultCheckMaxDuration, "the longest one POST /api/v1/check may run, a `duration` between 10s and 1h; its rows not answered by then are named not checked (retryable) in the answer's last line, or a CSV's trailer")
		fs.StringVar(&v.logRequests, "log-requests", "all", "which requests the access log writes at info level: all, errors (failures only, status 400 and up) or sample:N (failures and one success in N, e.g. sample:100); the others at debug level")
		fs.StringVar(&v.redis, "redis", "", "`URL` of the Redis (or Valkey) that several replicas share their cache, client rate limits, upstream budgets, circuit breakers and MCP sessions through: redis://[user:password@]host:6379[/db], rediss://… (TLS) or unix:///path/to/redis.sock; never logged with its password. Unset: one process, everything in memory. Redis trouble is never an outage: each replica then serves from its own state")
		fs.DurationVar(&v.redisTimeout, "redis-timeout", fleet.DefaultOpTimeout, "the longest one Redis operation may take, a `duration` between 1ms and 5s: slower, Redis counts as down and each replica serves from its own state until Redis answers a probe (every second)")
		fs.StringVar(&v.redisPrefix, "redis-prefix", fleet.DefaultPrefix, "`prefix` of every Redis key, so that two deployments can share one Redis: letters, digits, '-', '_' and '.'")
		fs.StringVar(&v.trustProxy, "trust-proxy", "", "reverse `proxies` whose X-Forwarded-For names the client, as IP addresses or CIDR prefixes, comma-separated (e.g. 10.0.0.0/8,::1); the client is the right-most address in the header that is not one of them. Unset: the header is ignored")
	}
	if cmd == cmdCheck {
		v.check.define(fs)
	}
	fs.StringVar(&v.network, "network", registry.NetworkProduction, "Peppol `network` answering by default: production, test, or demo (a simulated network in-process, offline)")
	fs.StringVar(&v.trustCA, "trust-ca", "", "extra CA certificates SMP signers and access point certificates may chain to, for a private or simulated network: `[network=]file` of PEM certificates, comma-separated; a file without network= is the -network network's. A self-signed certificate is a root; an issuing CA whose name says SMP or SERVICE METADATA PUBLISHER issues SMP certificates, any other access point ones. Certificates that chain to them count as the network's own, labelled chain operator (never as OpenPeppol's). The OpenPeppol CAs are always trusted")
	if cmd != cmdCheck {
		fs.StringVar(&v.networks, "networks", "", "Peppol `networks` a request may pick with ?network= (the tools' network argument), comma-separated, -network's included; production or test with either of them, demo or test with demo (a second simulated network in-process) "+
			"(default production,test; demo,test with -network demo); only -network's to offer no choice. The other network uses its own SML zone and Directory and the system resolvers")
	}
	fs.StringVar(&v.smlZone, "sml-zone", "", "SML DNS `zone` of the -network network (default its own: production "+sml.ZoneProduction+", test "+sml.ZoneTest+"); not for the other -networks")
	fs.StringVar(&v.dnsServer, "dns-server", "", "DNS `server`s for the -network network's SML lookups, host:port, comma-separated (default the system resolvers); not for the other -networks")
	fs.StringVar(&v.directoryURL, "directory-url", "", "Peppol Directory base `URL` of the -network network (default per network: production "+directory.Production+", test "+directory.Test+"); not for the other -networks")
	fs.BoolVar(&v.allowPrivateSMP, "allow-private-smp", false, "allow SMP hosts on loopback, private and other non-public addresses, and plain http SMPs on the production network (always on for -network demo)")
	v.ocsp = true
	fs.Var(&v.ocsp, "ocsp", "on or off: ask the OCSP responder each access point and SMP certificate names whether it is revoked. Off, for a network that cannot reach the CAs' responders: nothing is asked and each certificate's revocation says unchecked (never good)")
	fs.DurationVar(&v.ocspTimeout, "ocsp-timeout", peppolnet.DefaultOCSPTimeout, "the longest one OCSP request may take, a `duration` between 100ms and 10s (the bound of every upstream request); slower, the certificate's revocation is unknown (a warning, never a failure)")
	fs.StringVar(&v.mirror, "mirror", "", "Directory mirror index `file` built by 'peppolgate mirror import' or 'mirror sync': searches and the Directory half of lookups on the -network network are answered from it; empty for none (everything asks the live Directory)")
	fs.DurationVar(&v.mirrorMaxAge, "mirror-max-age", peppolnet.DefaultMirrorMaxAge, "how old the mirror's data may be and still answer first, a positive `duration`; older, the live Directory answers, and the mirror only when the live Directory fails (with a mirror_stale warning)")
	fs.DurationVar(&v.mirrorHardMaxAge, "mirror-hard-max-age", peppolnet.DefaultMirrorHardMaxAge, "how old the mirror's data may be and still answer when the live Directory fails, a `duration` at least -mirror-max-age; older data is never used")
	fs.DurationVar(&v.cacheTTL, "cache-ttl", 15*time.Minute, "how long a found participant is cached, a positive `duration`")
	logLevel := "info"
	if cmd == cmdCheck {
		logLevel = "error" // the rows say what failed upstream, the summary what was done
	}
	fs.StringVar(&v.logLevel, "log-level", logLevel, "log `level`: debug, info, warn or error")
	fs.StringVar(&v.config, "config", "", "YAML `file` of settings, its keys the flags' names (cache-ttl: 15m), lists as YAML lists or comma-separated; a flag beats its environment variable, which beats the file. Keys of other commands' flags are ignored, unknown keys are errors. It may hold the LLM's key as openai-api-key (OPENAI_API_KEY beats it); 'peppolgate config print' shows the result")
	return fs
}

// parseConfig parses the arguments and environment of cmd (serve, mcp or check). Flags
// set on the command line win; a flag left unset takes its environment variable when
// that is non-empty (check's own flags have none). Only check takes an argument (its
// input), before or after the flags. It returns flag.ErrHelp for -h and a *usageError
// saying what is wrong for anything else.
func parseConfig(cmd string, args []string, getenv func(string) string) (config, error) {
	var v flagValues
	fs := newFlagSet(&v, cmd)
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return config{}, err
			}
			return config{}, usagef("%v", err)
		}
		if fs.NArg() == 0 || cmd != cmdCheck {
			break
		}
		// An argument, then maybe more flags: "check ledger.csv -o out.csv".
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if fs.NArg() > 0 {
		return config{}, usagef("unexpected argument %q; flags go before it and %s takes no arguments", fs.Arg(0), cmd)
	}
	set := map[string]bool{}
	layers := &configLayers{fs: fs, src: map[string]string{}}
	fs.Visit(func(f *flag.Flag) { set[f.Name], layers.src[f.Name] = true, "flag" })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || envErr != nil || isCheckFlag(f.Name) {
			return
		}
		val := getenv(envName(f.Name))
		if val == "" {
			return
		}
		if err := fs.Set(f.Name, val); err != nil {
			envErr = usagef("invalid value %q for %s: %v", val, envName(f.Name), cleanFlagErr(err))
			return
		}
		set[f.Name], layers.src[f.Name] = true, "env"
	})
	if envErr != nil {
		return config{}, envErr
	}
	// The -config file fills in what neither a flag nor the environment set.
	if path := strings.TrimSpace(v.config); path != "" {
		cf, err := loadConfigFile(path)
		if err != nil {
			return config{}, err
		}
		if err := cf.apply(fs, func(name string) bool { return set[name] }, layers.src); err != nil {
			return config{}, err
		}
		for name, from := range layers.src {
			set[name] = set[name] || from == "file"
		}
		layers.file = cf
	}
	c, err := v.validate(cmd, set)
	if err == nil && cmd == cmdCheck {
		c.check, err = v.check.validate(rest, set)
	}
	if err != nil {
		return c, layers.file.fromFile(err, layers.src)
	}
	c.layers = layers
	// The outbound proxy: the standard variables, read through getenv (tests), not
	// the process's (docs/DEPLOY.md "Outbound proxy").
	if c.proxy = netguard.ProxyFromEnv(getenv); c.proxy.Check() != nil {
		return c, usagef("%v", c.proxy.Check())
	}
	if c.llm != "" {
		if c.llmKey = strings.TrimSpace(getenv("OPENAI_API_KEY")); c.llmKey != "" {
			layers.keySource = "env"
		} else if layers.file != nil && layers.file.values[keyOpenAIKey] != "" {
			c.llmKey, layers.keySource = strings.TrimSpace(layers.file.values[keyOpenAIKey]), "file"
		}
	}
	if cf := layers.file; cf != nil && cf.readable && cf.holdsSecret() {
		c.warnings = append(c.warnings, fmt.Sprintf("the -config file %s holds a secret (%s or a Redis password) and is readable by others than its owner: chmod 600 it", cf.path, keyOpenAIKey))
	}
	return c, nil
}

// cleanFlagErr drops the strconv noise from flag value errors: 'parse error' is enough.
func cleanFlagErr(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err.Error()
	}
	return err.Error()
}

func (v flagValues) validate(cmd string, set map[string]bool) (config, error) {
	c := config{cmd: cmd, allowPrivateSMP: v.allowPrivateSMP, cacheTTL: v.cacheTTL, ocsp: bool(v.ocsp), ocspTimeout: v.ocspTimeout}
	// Capped at stack.UpstreamTimeout, the OCSP client's own bound and the lookup's
	// deadline: more would have no effect.
	if v.ocspTimeout < 100*time.Millisecond || v.ocspTimeout > stack.UpstreamTimeout {
		return c, usagef("-ocsp-timeout must be between 100ms and %v, e.g. 3s; got %v", stack.UpstreamTimeout, v.ocspTimeout)
	}

	if cmd == cmdServe {
		if _, port, err := net.SplitHostPort(v.addr); err != nil {
			return c, usagef("-addr %q is not host:port (e.g. :8080 or 127.0.0.1:8080)", v.addr)
		} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return c, usagef("-addr %q has no valid port number", v.addr)
		}
		c.addr = v.addr
	}
	if cmd == cmdServe {
		c.redisURL, c.redisPrefix, c.redisTimeout = strings.TrimSpace(v.redis), v.redisPrefix, v.redisTimeout
		if c.redisTimeout < time.Millisecond || c.redisTimeout > 5*time.Second {
			return c, usagef("-redis-timeout must be between 1ms and 5s, e.g. 50ms; got %v", v.redisTimeout)
		}
		if err := fleet.Check(fleet.Options{URL: c.redisURL, Prefix: c.redisPrefix}); c.redisURL != "" && err != nil {
			return c, usagef("-redis: %v", err)
		} else if err := fleet.Check(fleet.Options{URL: "redis://localhost", Prefix: c.redisPrefix}); err != nil {
			return c, usagef("-redis-prefix: %v", err)
		}
	}
	c.mcpOrigins = splitList(v.mcpOrigins)
	c.mcpHosts = splitList(v.mcpHosts)
	if cmd == cmdServe {
		for _, rl := range []struct {
			flag, value string
			dst         *server.RateLimit
		}{{"rate-limit", v.rateLimit, &c.rateLimit}, {"ask-rate-limit", v.askRateLimit, &c.askRateLimit}, {"mcp-rate-limit", v.mcpRateLimit, &c.mcpRateLimit}} {
			lim, err := parseRateLimit(rl.value)
			if err != nil {
				return c, usagef("-%s %q %v", rl.flag, rl.value, err)
			}
			*rl.dst = lim
		}
		proxies, err := parseProxies(v.trustProxy)
		if err != nil {
			return c, usagef("-trust-proxy: %v", err)
		}
		c.trustedProxies = proxies
		if v.drainDelay < 0 || v.drainDelay > time.Minute {
			return c, usagef("-drain-delay must be between 0 and 1m, e.g. 5s; got %v", v.drainDelay)
		}
		c.drainDelay = v.drainDelay
		if v.checkMaxDuration < 10*time.Second || v.checkMaxDuration > time.Hour {
			return c, usagef("-check-max-duration must be between 10s and 1h, e.g. 10m; got %v", v.checkMaxDuration)
		}
		c.checkMaxDuration = v.checkMaxDuration
		if !strings.EqualFold(strings.TrimSpace(v.rateLimitExempt), "none") {
			if c.rateLimitExempt, err = parseProxies(v.rateLimitExempt); err != nil {
				return c, usagef("-rate-limit-exempt: %v", err)
			}
		}
	}
	switch llm := strings.ToLower(strings.TrimSpace(v.llm)); llm {
	case "", "none":
		for _, name := range []string{"llm-base-url", "llm-model"} {
			if set[name] {
				return c, usagef("-%s needs -llm openai", name)
			}
		}
	case "openai":
		c.llm, c.llmBaseURL, c.llmModel, c.llmTimeout = llm, strings.TrimSpace(v.llmBaseURL), strings.TrimSpace(v.llmModel), v.llmTimeout
		if c.llmModel == "" {
			return c, usagef("-llm openai needs -llm-model, e.g. gpt-4o-mini (OpenAI) or llama3.1 (Ollama)")
		}
		if c.llmTimeout <= 0 || c.llmTimeout > nlq.MaxLLMTimeout {
			return c, usagef("-llm-timeout must be positive and at most %v, e.g. 20s; got %v", nlq.MaxLLMTimeout, c.llmTimeout)
		}
	default:
		return c, usagef("-llm %q is not one of none, openai", v.llm)
	}

	if v.baseURL != "" {
		u, err := url.Parse(v.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return c, usagef("-base-url %q is not an absolute http or https URL such as https://peppolgate.example.com", v.baseURL)
		}
		c.baseURL = strings.TrimSuffix(v.baseURL, "/")
	}

	c.network = strings.ToLower(strings.TrimSpace(v.network))
	switch c.network {
	case registry.NetworkProduction, registry.NetworkTest, registry.NetworkDemo:
	default:
		return c, usagef("-network %q is not one of production, test, demo", v.network)
	}
	if c.network == registry.NetworkDemo {
		for _, name := range []string{"sml-zone", "dns-server", "directory-url"} {
			if set[name] {
				return c, usagef("-%s cannot be used with -network demo, which runs its own SML, SMPs and Directory", name)
			}
		}
		c.allowPrivateSMP = true
	}

	networks, err := parseNetworks(c.network, v.networks)
	if err != nil {
		return c, err
	}
	c.networks = networks
	if cmd == cmdCheck {
		c.networks = networks[:1] // a check asks one network
	}
	if c.trustCA, err = parseTrustCA(c.network, c.networks, v.trustCA); err != nil {
		return c, err
	}

	c.smlZone = strings.TrimSpace(v.smlZone)
	if c.smlZone == "" && c.network != registry.NetworkDemo {
		zone, err := sml.ZoneFor(c.network)
		if err != nil {
			return c, usagef("%v", err)
		}
		c.smlZone = zone
	}

	if s := strings.TrimSpace(v.dnsServer); s != "" {
		for _, srv := range strings.Split(s, ",") {
			srv = strings.TrimSpace(srv)
			host, port, err := net.SplitHostPort(srv)
			if err != nil || host == "" {
				return c, usagef("-dns-server %q is not host:port (e.g. 9.9.9.9:53 or [2620:fe::fe]:53)", srv)
			}
			if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
				return c, usagef("-dns-server %q has no valid port number", srv)
			}
			c.dnsServers = append(c.dnsServers, srv)
		}
	}

	c.directoryURL = strings.TrimSpace(v.directoryURL)
	if c.directoryURL == "" {
		switch c.network {
		case registry.NetworkProduction:
			c.directoryURL = directory.Production
		case registry.NetworkTest:
			c.directoryURL = directory.Test
		}
	} else if u, err := url.Parse(c.directoryURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, usagef("-directory-url %q is not an absolute http or https URL", v.directoryURL)
	}

	c.mirrorPath = strings.TrimSpace(v.mirror)
	if v.mirrorMaxAge <= 0 {
		return c, usagef("-mirror-max-age must be positive, e.g. 72h; got %v", v.mirrorMaxAge)
	}
	c.mirrorMaxAge = v.mirrorMaxAge
	if v.mirrorHardMaxAge < v.mirrorMaxAge {
		return c, usagef("-mirror-hard-max-age must be at least -mirror-max-age (%v); got %v", v.mirrorMaxAge, v.mirrorHardMaxAge)
	}
	c.mirrorHardMaxAge = v.mirrorHardMaxAge
	if v.mirrorRefresh < 0 || (v.mirrorRefresh > 0 && v.mirrorRefresh < time.Hour) {
		return c, usagef("-mirror-refresh must be 0 (never) or at least 1h, because the Directory allows 3 export downloads a day; got %v", v.mirrorRefresh)
	}
	if v.mirrorRefresh > 0 && c.mirrorPath == "" {
		return c, usagef("-mirror-refresh needs -mirror FILE, the index to keep fresh")
	}
	c.mirrorRefresh = v.mirrorRefresh
	if v.cacheTTL <= 0 {
		return c, usagef("-cache-ttl must be positive, e.g. 15m; got %v", v.cacheTTL)
	}

	switch strings.ToLower(strings.TrimSpace(v.logLevel)) {
	case "debug":
		c.logLevel = slog.LevelDebug
	case "info":
		c.logLevel = slog.LevelInfo
	case "warn", "warning":
		c.logLevel = slog.LevelWarn
	case "error":
		c.logLevel = slog.LevelError
	default:
		return c, usagef("-log-level %q is not one of debug, info, warn, error", v.logLevel)
	}
	if cmd == cmdServe {
		if c.logRequests, err = server.ParseRequestLog(v.logRequests); err != nil {
			return c, usagef("-log-requests %v", err)
		}
	}
	return c, nil
}

// parseNetworks reads -networks for the default network def: the networks offered
// per request, def first. Empty means def and its companion (production and test
// for each other, test for demo). It returns a *usageError for a name that is not
// one of them or a list without def.
// parseTrustCA reads -trust-ca: [network=]file items, a file without network being
// def's, each network one of offered; every file must hold CA certificates. It returns
// the PEM data by network, or a usage error saying what is wrong.
func parseTrustCA(def string, offered []string, raw string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, item := range splitList(raw) {
		network, file, ok := strings.Cut(item, "=")
		if !ok {
			network, file = def, item
		}
		network, file = strings.ToLower(strings.TrimSpace(network)), strings.TrimSpace(file)
		if !slices.Contains(offered, network) {
			return nil, usagef("-trust-ca %q names network %q, which is not offered (-networks %s)", item, network, strings.Join(offered, ","))
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef("-trust-ca: %v", err)
		}
		if err := (&pki.Anchors{}).AddPEM(pki.Test, data); err != nil {
			return nil, usagef("-trust-ca %s: %v; give PEM CA certificates", file, err)
		}
		out[network] = append(out[network], data...)
	}
	return out, nil
}

func parseNetworks(def, raw string) ([]string, error) {
	companion := map[string]string{registry.NetworkProduction: registry.NetworkTest, registry.NetworkTest: registry.NetworkProduction, registry.NetworkDemo: registry.NetworkTest}[def]
	names := splitList(strings.ToLower(raw))
	if len(names) == 0 {
		return []string{def, companion}, nil
	}
	out := []string{def}
	for _, n := range names {
		switch {
		case n == def:
		case n == companion:
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		default:
			return nil, usagef("-networks %q: %q cannot be offered with -network %s; name %s and optionally %s", raw, n, def, def, companion)
		}
	}
	if !slices.Contains(names, def) {
		return nil, usagef("-networks %q must include -network's %s, the default network", raw, def)
	}
	return out, nil
}

// maxRate bounds a rate and a burst: beyond it a limit limits nothing anyway, and a
// typo such as 2000000/s is more likely than a wish.
const maxRate = 1_000_000

// parseRateLimit reads a rate-limit flag: "N/s" or "N/m" (N positive, fractions
// allowed), optionally followed by ",burst=B"; the burst defaults to N rounded up,
// one unit's worth. "0", "off" and "none" mean no limit. Its error completes a
// sentence that starts with the flag and its value.
func parseRateLimit(s string) (server.RateLimit, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "0", "off", "none":
		return server.RateLimit{}, nil
	}
	bad := errors.New("is not a rate such as 20/s, 20/s,burst=40 or 100/m (0 or off for no limit)")
	rate, burstPart, hasBurst := strings.Cut(s, ",")
	num, unit, ok := strings.Cut(strings.TrimSpace(rate), "/")
	if !ok {
		return server.RateLimit{}, bad
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(n) || n <= 0 || n > maxRate {
		return server.RateLimit{}, bad
	}
	lim := server.RateLimit{Burst: int(math.Ceil(n))}
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		lim.Rate = n
	case "m", "min", "minute":
		lim.Rate = n / 60
	default:
		return server.RateLimit{}, bad
	}
	if hasBurst {
		key, val, ok := strings.Cut(strings.TrimSpace(burstPart), "=")
		b, err := strconv.Atoi(strings.TrimSpace(val))
		if !ok || strings.TrimSpace(key) != "burst" || err != nil || b < 1 || b > maxRate {
			return server.RateLimit{}, errors.New("has no valid burst: write it as 20/s,burst=40, the burst a whole number of at least 1")
		}
		lim.Burst = b
	}
	return lim, nil
}

// parseProxies reads -trust-proxy and -rate-limit-exempt: IP addresses and CIDR
// prefixes, comma-separated.
// IPv4-mapped IPv6 ones count as IPv4, as clients' addresses do.
func parseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range splitList(s) {
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not an IP address or CIDR prefix such as 10.0.0.1, 10.0.0.0/8 or fd00::/8", item)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if a := p.Addr(); a.Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("%q mixes IPv6 and IPv4-mapped addresses; name the IPv4 prefix itself", item)
			}
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// usageMCPLine is the usage's line about /mcp, naming every tool of tools.All() so the
// list cannot drift from the registry (docs/INTERFACE.md §4.5), wrapped at 100 columns.
func usageMCPLine() string {
	var names []string
	for _, t := range tools.All() {
		names = append(names, t.Name+",")
	}
	if n := len(names); n > 1 {
		names[n-2] = strings.TrimSuffix(names[n-2], ",") + " and"
	}
	if n := len(names); n > 0 {
		names[n-1] = strings.TrimSuffix(names[n-1], ",")
	}
	const column = 53 // where the usage's descriptions start
	words := append(strings.Fields("MCP (streamable HTTP), tools"), names...)
	line := fmt.Sprintf("%-*s", column, "  POST /mcp")
	var lines []string
	for i, word := range words {
		if i > 0 && len(line)+1+len(word) > 100 {
			lines = append(lines, line)
			line = strings.Repeat(" ", column)
		} else if i > 0 {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// printUsage writes the -h text: commands, then every flag with its default and its
// environment variable.
func printUsage(w io.Writer) {
	var v flagValues
	fs := newFlagSet(&v, cmdServe)
	fmt.Fprintf(w, `Usage: peppolgate [serve] [flags]
       peppolgate mcp [flags]
       peppolgate check [flags] <customers.csv> (see 'peppolgate check -h')
       peppolgate mirror import|sync [flags] (see 'peppolgate mirror -h')
       peppolgate config print [-config FILE] [flags]
       peppolgate -version

peppolgate answers Peppol participant lookups and directory searches as JSON and over MCP:
  GET /api/v1/participant/{participantId}            e.g. /api/v1/participant/0208:0677424046
  GET /api/v1/participant/{participantId}/services   every document type, process and endpoint
  GET /api/v1/search?q=&country=                     e.g. /api/v1/search?q=BE0677424046
  POST /api/v1/check                                 a whole customer list (JSON, NDJSON or CSV), streamed
  GET /api/v1/stats                                  counts of the network's participants (with -mirror)
  POST /ask  {"query": "..."}                        questions in plain language, JSON or server-sent events
%s
Try it offline with: peppolgate -network demo

Commands:
  serve    run the HTTP API and /mcp (the default)
  mcp      speak MCP over stdin/stdout, for MCP clients that start a local command;
           logs go to stderr. Takes the same flags except -addr, -base-url, -mcp-allowed-*, -llm*,
           the rate limits, -trust-proxy, -redis* and -mirror-refresh.
  check    check a whole customer list (CSV, JSON or NDJSON) against Peppol in-process, no
           server: which rows can receive invoices, under which id (see 'peppolgate check -h')
  mirror   build and refresh a local copy of the Peppol Directory for -mirror:
           'mirror import <export>' or 'mirror sync' (see 'peppolgate mirror -h')
  config   'config print': the effective settings of serve as a -config file, each with
           where it came from, secrets redacted (see 'peppolgate config -h')
  version  the version, revision, Go version and platform (also -version)

Flags (each may also be set by the environment variable shown, or by its name as a key of the
-config file; a flag beats its variable, the variable the -config file, the file the default):
`, usageMCPLine())
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	sort.Slice(flags, func(i, j int) bool { return flagOrder(flags[i].Name) < flagOrder(flags[j].Name) })
	for _, f := range flags {
		name, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s\n      env %s", head, usage, envName(f.Name))
		if f.DefValue != "" && !strings.Contains(usage, "(default") {
			fmt.Fprintf(w, ", default %s", f.DefValue)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, `
Outbound proxy: HTTPS_PROXY, HTTP_PROXY and NO_PROXY carry SMP, Directory and OCSP requests
through a proxy (the SSRF guard checks each target first); SML lookups are DNS, always direct.
The LLM's key: OPENAI_API_KEY, or openai-api-key in the -config file.

Exit status: 0 after a clean shutdown (SIGINT or SIGTERM drains in-flight requests),
1 when the service cannot start or stop cleanly, 2 for a bad flag or value.
`)
}

// flagOrder lists flags in the order a reader needs them, not alphabetically.
func flagOrder(name string) int {
	for i, n := range []string{"addr", "base-url", "mcp-allowed-origins", "mcp-allowed-hosts", "llm", "llm-base-url", "llm-model", "llm-timeout",
		"rate-limit", "ask-rate-limit", "mcp-rate-limit", "rate-limit-exempt", "trust-proxy", "redis", "redis-prefix", "redis-timeout",
		"network", "networks", "trust-ca", "sml-zone", "dns-server", "directory-url", "allow-private-smp", "ocsp", "ocsp-timeout", "mirror", "mirror-max-age", "mirror-hard-max-age", "mirror-refresh", "cache-ttl", "log-level", "log-requests", "config"} {
		if n == name {
			return i
		}
	}
	return 100
}
