package main

import (
	"bytes"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
)

// writeConfig writes a -config file with body into a new directory, mode 0600, and
// returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "peppolgate.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigFilePrecedence checks each layer: a flag beats its environment variable,
// which beats the -config file, which beats the default; the file is named by -config
// or PEPPOLGATE_CONFIG, and takes lists as YAML lists or comma strings.
func TestConfigFilePrecedence(t *testing.T) {
	t.Parallel()
	file := writeConfig(t, `# a shared file: mirror import's allow-private is ignored by serve
cache-ttl: 20m
rate-limit: "10/s,burst=30"
trust-proxy: [10.0.0.0/8, "192.0.2.1"]
rate-limit-exempt: 127.0.0.1, ::1
allow-private-smp: true
log-level: warn
allow-private: true
`)
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c config)
	}{
		{"defaults without a file", nil, nil, func(t *testing.T, c config) {
			if c.cacheTTL != 15*time.Minute || c.rateLimit != (server.RateLimit{Rate: 20, Burst: 40}) || c.allowPrivateSMP {
				t.Errorf("%+v", c)
			}
		}},
		{"file by -config", []string{"-config", file}, nil, func(t *testing.T, c config) {
			if c.cacheTTL != 20*time.Minute || c.rateLimit != (server.RateLimit{Rate: 10, Burst: 30}) || !c.allowPrivateSMP ||
				prefixes(c.trustedProxies) != "10.0.0.0/8,192.0.2.1/32" || prefixes(c.rateLimitExempt) != "127.0.0.1/32,::1/128" ||
				c.logLevel.String() != "WARN" || c.addr != ":8080" {
				t.Errorf("%+v", c)
			}
		}},
		{"file by PEPPOLGATE_CONFIG", nil, map[string]string{"PEPPOLGATE_CONFIG": file}, func(t *testing.T, c config) {
			if c.cacheTTL != 20*time.Minute {
				t.Errorf("cache ttl %v, want the file's", c.cacheTTL)
			}
		}},
		{"env beats file", []string{"-config", file}, map[string]string{"PEPPOLGATE_CACHE_TTL": "30m", "PEPPOLGATE_ALLOW_PRIVATE_SMP": "false"}, func(t *testing.T, c config) {
			if c.cacheTTL != 30*time.Minute || c.allowPrivateSMP || c.rateLimit.Rate != 10 {
				t.Errorf("%+v", c)
			}
		}},
		{"flag beats env and file", []string{"-config", file, "-cache-ttl", "40m"}, map[string]string{"PEPPOLGATE_CACHE_TTL": "30m"}, func(t *testing.T, c config) {
			if c.cacheTTL != 40*time.Minute {
				t.Errorf("cache ttl %v, want the flag's", c.cacheTTL)
			}
		}},
		{"-config beats PEPPOLGATE_CONFIG", []string{"-config", file}, map[string]string{"PEPPOLGATE_CONFIG": "/nonexistent.yaml"}, func(t *testing.T, c config) {
			if c.cacheTTL != 20*time.Minute {
				t.Errorf("cache ttl %v", c.cacheTTL)
			}
		}},
		{"mcp takes the shared file, without serve's keys", []string{"mcp", "-config", file}, nil, func(t *testing.T, c config) {
			if c.cacheTTL != 20*time.Minute || c.rateLimit.On() {
				t.Errorf("%+v", c)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd, args := cmdServe, tt.args
			if len(args) > 0 && args[0] == cmdMCP {
				cmd, args = cmdMCP, args[1:]
			}
			c, err := parseConfig(cmd, args, envMap(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

// TestConfigFileErrors runs serve with bad files: exit 2, and a message naming the file
// and the key, in the words the flag's own check uses.
func TestConfigFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"unknown key", "cache-tl: 5m\n", []string{`peppolgate.yaml: unknown key "cache-tl" (did you mean cache-ttl?)`}},
		{"key with a dash", "-cache-ttl: 5m\n", []string{`unknown key "-cache-ttl" (did you mean cache-ttl?)`}},
		{"key with underscores", "rate_limit: 5/s\n", []string{`unknown key "rate_limit" (did you mean rate-limit?)`}},
		{"key nothing like a flag", "colour: blue\n", []string{`unknown key "colour"`, "the keys are the flags' names"}},
		{"bad duration", "cache-ttl: soon\n", []string{`peppolgate.yaml: invalid value "soon" for key cache-ttl: parse error`}},
		{"bad bool", "allow-private-smp: maybe\n", []string{`invalid value "maybe" for key allow-private-smp`}},
		{"check of the value", "cache-ttl: 0s\n", []string{"peppolgate.yaml: key cache-ttl: -cache-ttl must be positive"}},
		{"bad rate", "rate-limit: fast\n", []string{`peppolgate.yaml: key rate-limit: -rate-limit "fast" is not a rate`}},
		{"mapping", "rate-limit:\n  rate: 5/s\n", []string{"key rate-limit: give a value or a list, not a mapping"}},
		{"not a mapping", "- cache-ttl\n", []string{"peppolgate.yaml: not a mapping of keys to values"}},
		{"bad yaml", "cache-ttl: [5m\n", []string{"peppolgate.yaml: "}},
		{"duplicate key", "cache-ttl: 5m\ncache-ttl: 6m\n", []string{"peppolgate.yaml: line 2: key cache-ttl repeats line 1"}},
		{"too large", strings.Repeat("# a comment\n", 100_000), []string{"peppolgate.yaml: larger than 1048576 bytes"}},
		{"config in config", "config: other.yaml\n", []string{`unknown key "config"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
			file := writeConfig(t, tt.body)
			if code := p.run(t.Context(), []string{"-config", file, "-addr", "127.0.0.1:1"}); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not say %q", stderr.String(), w)
				}
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		var stderr bytes.Buffer
		p := program{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: envMap(map[string]string{"PEPPOLGATE_CONFIG": "/nonexistent/p.yaml"})}
		if code := p.run(t.Context(), []string{"mcp"}); code != 2 || !strings.Contains(stderr.String(), "-config: open /nonexistent/p.yaml") {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	})
}

// TestConfigFileSecrets reads the LLM key from the file (the environment's wins) and
// warns about a file others can read that holds a secret.
func TestConfigFileSecrets(t *testing.T) {
	t.Parallel()
	file := writeConfig(t, "llm: openai\nllm-model: m\nopenai-api-key: sk-file\n")
	c, err := parseConfig(cmdServe, []string{"-config", file}, envMap(nil))
	if err != nil || c.llmKey != "sk-file" || len(c.warnings) != 0 {
		t.Errorf("key %q, warnings %q, err %v; want the file's key", c.llmKey, c.warnings, err)
	}
	c, err = parseConfig(cmdServe, []string{"-config", file}, envMap(map[string]string{"OPENAI_API_KEY": "sk-env"}))
	if err != nil || c.llmKey != "sk-env" {
		t.Errorf("key %q, err %v; want the environment's", c.llmKey, err)
	}
	for _, body := range []string{"openai-api-key: sk-file\n", "redis: redis://u:pw@localhost:6379\n"} {
		file := writeConfig(t, body)
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := parseConfig(cmdServe, []string{"-config", file}, envMap(nil))
		if err != nil || !slices.ContainsFunc(c.warnings, func(w string) bool { return strings.Contains(w, "readable by others") }) {
			t.Errorf("%s: warnings %q, err %v; want one about a readable secret", body, c.warnings, err)
		}
	}
}

// TestConfigPrint runs 'config print': every setting of serve with where it came from,
// secrets redacted, exit 0; a bad configuration exits 2 with serve's message; and the
// output, read back as a -config file, gives the same settings (the redacted secrets
// aside: the redacted password is what comes back).
func TestConfigPrint(t *testing.T) {
	t.Parallel()
	file := writeConfig(t, "cache-ttl: 20m\nllm: openai\nllm-model: gpt-4o-mini\nopenai-api-key: sk-secret\ntrust-proxy: [10.0.0.0/8]\n")
	env := map[string]string{
		"PEPPOLGATE_REDIS": "redis://app:hunter2@redis.internal:6379/0", "PEPPOLGATE_LOG_LEVEL": "debug",
		"HTTPS_PROXY": "http://proxyuser:proxypass@proxy.internal:3128", "NO_PROXY": ".internal",
	}
	var stdout, stderr bytes.Buffer
	p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(env)}
	if code := p.run(t.Context(), []string{"config", "print", "-config", file, "-addr", "127.0.0.1:9090", "-ocsp", "off"}); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		`addr: "127.0.0.1:9090"  # flag -addr`,
		`cache-ttl: "20m0s"  # file ` + file,
		`log-level: "debug"  # env PEPPOLGATE_LOG_LEVEL`,
		`rate-limit: "20/s,burst=40"  # default`,
		`allow-private-smp: false  # default`,
		`ocsp: "off"  # flag -ocsp`,
		`# redis: "redis://app:REDACTED@redis.internal:6379/0"  # env PEPPOLGATE_REDIS — set it yourself`,
		`# openai-api-key: REDACTED  # file ` + file + ` — set it yourself`,
		`HTTPS_PROXY=http://proxyuser:REDACTED@proxy.internal:3128`,
		`NO_PROXY=.internal`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("config print lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{"hunter2", "sk-secret", "proxypass"} {
		if strings.Contains(out, secret) {
			t.Errorf("config print shows the secret %q:\n%s", secret, out)
		}
	}
	var v flagValues
	newFlagSet(&v, cmdServe).VisitAll(func(f *flag.Flag) {
		if f.Name != "config" && !strings.Contains(out, "\n"+f.Name+": ") && !strings.Contains(out, "\n# "+f.Name+": ") {
			t.Errorf("config print lacks -%s", f.Name)
		}
	})

	// Round trip: the output is a -config file giving the same settings, but never a
	// fake secret: the secrets' lines are comments, the secrets left to the environment.
	again := writeConfig(t, out)
	if c, err := parseConfig(cmdServe, []string{"-config", again}, envMap(nil)); err != nil || c.llmKey != "" || c.redisURL != "" {
		t.Errorf("the output read back gives key %q, redis %q, err %v; want no secret", c.llmKey, c.redisURL, err)
	}
	var stdout2 bytes.Buffer
	p = program{stdout: &stdout2, stderr: &stderr, getenv: envMap(map[string]string{"OPENAI_API_KEY": "sk-env", "PEPPOLGATE_REDIS": env["PEPPOLGATE_REDIS"]})}
	if code := p.run(t.Context(), []string{"config", "print", "-config", again}); code != 0 {
		t.Fatalf("round trip: exit %d, stderr %s", code, stderr.String())
	}
	if a, b := settings(out), settings(stdout2.String()); !slices.Equal(a, b) {
		t.Errorf("round trip changed the settings:\n%q\n%q", a, b)
	}

	// A bad configuration: serve's message and exit status.
	for _, args := range [][]string{{"-cache-ttl", "0s"}, {"-config", writeConfig(t, "cache-tl: 1m\n")}} {
		var serveErr, printErr bytes.Buffer
		code := program{stdout: &bytes.Buffer{}, stderr: &serveErr, getenv: envMap(nil)}.run(t.Context(), append(slices.Clone(args), "-addr", "127.0.0.1:1"))
		pcode := program{stdout: &stdout, stderr: &printErr, getenv: envMap(nil)}.run(t.Context(), append([]string{"config", "print"}, args...))
		if code != 2 || pcode != 2 || printErr.String() != serveErr.String() {
			t.Errorf("%v: config print exit %d %q, serve exit %d %q; want 2 and the same message", args, pcode, printErr.String(), code, serveErr.String())
		}
	}
}

// settings returns the key: value lines of a config print, without their comments.
func settings(out string) []string {
	var s []string
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kv, _, _ := strings.Cut(line, "  #")
		s = append(s, kv)
	}
	return s
}

// TestOCSPSettings runs -ocsp and -ocsp-timeout through parseConfig and connect to
// the demo network's OCSP responder: on asks it, off never does and says unchecked; a
// timeout below the responder's latency leaves the revocation unknown.
func TestOCSPSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		latency  time.Duration
		want     string
		askedAny bool
	}{
		{"on by default", nil, 0, "good", true},
		{"off", []string{"-ocsp", "off"}, 0, "unchecked", false},
		{"off from the file, as written", []string{"-config", writeConfig(t, "ocsp: off\n")}, 0, "unchecked", false},
		{"timeout", []string{"-ocsp-timeout", "100ms"}, time.Second, "unknown", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := parseConfig(cmdServe, append([]string{"-network", "demo", "-networks", "demo"}, tt.args...), envMap(nil))
			if err != nil {
				t.Fatal(err)
			}
			up, err := connect(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer up.closeAll()
			if tt.latency > 0 {
				up.demo.SetFault(netsim.OCSPTarget(), netsim.Fault{Latency: tt.latency})
			}
			id, err := peppol.ParseParticipantID(netsim.KnownCertValid)
			if err != nil {
				t.Fatal(err)
			}
			p, _, err := up.Networks.Lookup(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.SMP.Endpoint.Certificate.Revocation; got != tt.want {
				t.Errorf("revocation %q, want %q", got, tt.want)
			}
			if asked := up.demo.Hits().OCSP > 0; asked != tt.askedAny {
				t.Errorf("OCSP responder asked %d times", up.demo.Hits().OCSP)
			}
		})
	}
	for _, bad := range []string{"50ms", "11s", "1m"} {
		if _, err := parseConfig(cmdServe, []string{"-ocsp-timeout", bad}, envMap(nil)); err == nil || !strings.Contains(err.Error(), "-ocsp-timeout must be between 100ms and 10s") {
			t.Errorf("-ocsp-timeout %s: %v", bad, err)
		}
	}
	for _, bad := range []string{"maybe", "true", "no"} {
		if _, err := parseConfig(cmdServe, nil, envMap(map[string]string{"PEPPOLGATE_OCSP": bad})); err == nil || !strings.Contains(err.Error(), `invalid value "`+bad+`" for PEPPOLGATE_OCSP: not on or off`) {
			t.Errorf("PEPPOLGATE_OCSP=%s: %v", bad, err)
		}
	}
}

// TestDirectoryThroughProxy: with HTTP_PROXY in the program's environment, the
// Directory is asked through the proxy (a real one on loopback, forwarding to the
// simulated Directory), and a bad proxy URL is a usage error.
func TestDirectoryThroughProxy(t *testing.T) {
	t.Parallel()
	n, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 1, Participants: 50}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	pxURL, proxied := forwardingProxy(t, "directory.example", n.DirectoryURL())
	env := map[string]string{"HTTP_PROXY": pxURL, "NO_PROXY": "nothing.example"}
	cfg, err := parseConfig(cmdServe, []string{"-network", "test", "-networks", "test", "-directory-url", "http://directory.example", "-dns-server", "127.0.0.1:1"}, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	up, err := connect(t.Context(), cfg, slog.New(slog.DiscardHandler), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer up.closeAll()
	if _, _, err := up.Networks.Search(t.Context(), registry.SearchQuery{Q: "acme"}); err != nil {
		t.Fatal(err)
	}
	if got := proxied.Load(); got == 0 {
		t.Error("the Directory was not asked through the proxy")
	}
	if _, err := parseConfig(cmdServe, nil, envMap(map[string]string{"HTTPS_PROXY": "ftp://u:pw@proxy:21"})); err == nil || !strings.Contains(err.Error(), "HTTPS_PROXY ftp://u:REDACTED@proxy:21") {
		t.Errorf("bad proxy: %v", err)
	}
}

// TestMirrorConfigFile: mirror sync takes its settings from a -config file shared with
// serve (serve's keys ignored), a flag beating the file; an unknown key is an error.
func TestMirrorConfigFile(t *testing.T) {
	t.Parallel()
	n, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 1, Participants: 50}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	dir := t.TempDir()
	file := writeConfig(t, "mirror: "+filepath.Join(dir, "from-file.db")+"\ndirectory-url: "+n.DirectoryURL()+"\ncache-ttl: 5m\nrate-limit: 5/s\n")
	for _, tt := range []struct {
		flags []string
		db    string
	}{
		{nil, "from-file.db"},
		{[]string{"-mirror", filepath.Join(dir, "from-flag.db")}, "from-flag.db"},
	} {
		if code, _, stderr := runCmd(t, append([]string{"mirror", "sync", "-config", file}, tt.flags...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tt.flags, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, tt.db)); err != nil {
			t.Errorf("%v: the mirror %s was not written: %v", tt.flags, tt.db, err)
		}
	}
	for body, want := range map[string]string{
		"mirorr: x.db\n":      `unknown key "mirorr" (did you mean mirror?)`,
		"redis-timeout: 1h\n": "-redis-timeout must be between 1ms and 5s",
		"network: mainnet\n":  `-network "mainnet" is not one of production, test`,
	} {
		if code, _, stderr := runCmd(t, "mirror", "sync", "-config", writeConfig(t, body)); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", body, code, stderr, want)
		}
	}
}

// TestDeployExampleConfig reads docs/DEPLOY.md's example -config file as serve would.
func TestDeployExampleConfig(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/DEPLOY.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Configuration file\n")
	_, block, ok2 := strings.Cut(sec, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/DEPLOY.md has no example under ## Configuration file")
	}
	c, err := parseConfig(cmdServe, []string{"-config", writeConfig(t, block)}, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != "127.0.0.1:8080" || prefixes(c.trustedProxies) != "127.0.0.1/32,::1/128" || !c.ocsp || c.llmKey == "" || c.mirrorRefresh != 24*time.Hour {
		t.Errorf("%+v", c)
	}
}

// TestConfigFileValuesAsWritten: each scalar is taken as written, whatever YAML 1.1
// would make of it (off, no, 0x10, 010); null or a missing value is unset, "" is set
// to empty; a list is only for the comma-list flags.
func TestConfigFileValuesAsWritten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		check      func(c config) bool
		err        string
	}{
		{"off is a rate limit's off", "rate-limit: off\n", func(c config) bool { return !c.rateLimit.On() }, ""},
		{"hex-looking prefix", "redis-prefix: 0x10\n", func(c config) bool { return c.redisPrefix == "0x10" }, ""},
		{"octal-looking prefix", "redis-prefix: 010\n", func(c config) bool { return c.redisPrefix == "010" }, ""},
		{"no is not false", "network: no\n", nil, `-network "no" is not one of`},
		{"null is unset", "cache-ttl:\nredis-prefix: ~\n", func(c config) bool { return c.cacheTTL == 15*time.Minute && c.redisPrefix == fleetDefaultPrefix() }, ""},
		{"empty string is empty", "rate-limit-exempt: \"\"\n", func(c config) bool { return len(c.rateLimitExempt) == 0 }, ""},
		{"empty list is empty", "rate-limit-exempt: []\n", func(c config) bool { return len(c.rateLimitExempt) == 0 }, ""},
		{"list for a list flag", "mcp-allowed-hosts: [a.example, b.example]\n", func(c config) bool { return strings.Join(c.mcpHosts, ",") == "a.example,b.example" }, ""},
		{"list for log-level", "log-level: [info]\n", nil, "key log-level: a single value, not a list"},
		{"list for ocsp", "ocsp: [on]\n", nil, "key ocsp: a single value, not a list"},
		{"list for addr", "addr: [a, b]\n", nil, "key addr: a single value, not a list"},
		{"list of lists", "trust-proxy: [[10.0.0.1]]\n", nil, "a list may hold only values"},
		{"check's per-run flag is no key", "o: out.csv\n", nil, `unknown key "o"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(cmdServe, []string{"-config", writeConfig(t, tt.body)}, envMap(nil))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Errorf("err %v, config %+v", err, c)
			}
		})
	}
}

func fleetDefaultPrefix() string {
	var v flagValues
	return newFlagSet(&v, cmdServe).Lookup("redis-prefix").DefValue
}

// TestConfigPrintRoundTripEmpty: a setting set to empty (-rate-limit-exempt=, no
// exemption) stays empty when config print's output is read back.
func TestConfigPrintRoundTripEmpty(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := program{stdout: &out, stderr: &bytes.Buffer{}, getenv: envMap(nil)}
	if code := p.run(t.Context(), []string{"config", "print", "-rate-limit-exempt="}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	c, err := parseConfig(cmdServe, []string{"-config", writeConfig(t, out.String())}, envMap(nil))
	if err != nil || len(c.rateLimitExempt) != 0 {
		t.Errorf("err %v, exempt %v; want none", err, c.rateLimitExempt)
	}
}

// TestConfigPrintProxyWithoutScheme: a proxy URL without a scheme, as net/http takes
// it, has its password hidden too.
func TestConfigPrintProxyWithoutScheme(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := program{stdout: &out, stderr: &bytes.Buffer{}, getenv: envMap(map[string]string{"HTTPS_PROXY": "svc:pw0rd@proxy.corp:3128"})}
	if code := p.run(t.Context(), []string{"config", "print"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if s := out.String(); strings.Contains(s, "pw0rd") || !strings.Contains(s, "HTTPS_PROXY=svc:REDACTED@proxy.corp:3128") {
		t.Errorf("config print:\n%s", s)
	}
}

// TestConfigPrintOTEL: config print refuses the OTEL_* settings serve refuses, with
// serve's message.
func TestConfigPrintOTEL(t *testing.T) {
	t.Parallel()
	env := envMap(map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
	var serveErr, printErr bytes.Buffer
	code := program{stdout: &bytes.Buffer{}, stderr: &serveErr, getenv: env}.run(t.Context(), []string{"-addr", "127.0.0.1:1"})
	pcode := program{stdout: &bytes.Buffer{}, stderr: &printErr, getenv: env}.run(t.Context(), []string{"config", "print"})
	if code != 2 || pcode != 2 || printErr.String() != serveErr.String() || !strings.Contains(printErr.String(), "OTEL_EXPORTER_OTLP_PROTOCOL") {
		t.Errorf("config print exit %d %q, serve exit %d %q; want 2 and the same message", pcode, printErr.String(), code, serveErr.String())
	}
}

// TestVersionAfterCommand: -version works after serve, mcp and check too.
func TestVersionAfterCommand(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{cmdServe, cmdMCP, cmdCheck} {
		code, stdout, stderr := runCmd(t, cmd, "-version")
		if code != 0 || stdout != versionLine()+"\n" {
			t.Errorf("%s -version: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

// forwardingProxy is an HTTP proxy on loopback that forwards absolute-form requests
// for host to target and refuses every other; it counts what it forwarded.
func forwardingProxy(t *testing.T, host, target string) (string, *atomic.Int32) {
	t.Helper()
	u, _ := url.Parse(target)
	var n atomic.Int32
	fwd := httputil.NewSingleHostReverseProxy(u)
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() || r.URL.Host != host {
			http.Error(w, "not a proxy request for "+host, http.StatusBadRequest)
			return
		}
		n.Add(1)
		fwd.ServeHTTP(w, r)
	}))
	t.Cleanup(px.Close)
	return px.URL, &n
}

// TestMirrorThroughProxy: mirror import of a URL and mirror sync go through the
// program's HTTP_PROXY, on a network where only the proxy reaches the Directory.
func TestMirrorThroughProxy(t *testing.T) {
	t.Parallel()
	n, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 2, Participants: 60}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	pxURL, proxied := forwardingProxy(t, "directory.example", n.DirectoryURL())
	env := envMap(map[string]string{"HTTP_PROXY": pxURL})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mirror", "import", "-allow-private", "-mirror", filepath.Join(dir, "import.db"), "http://directory.example/export1/export-all-businesscards.xml"},
		{"mirror", "sync", "-mirror", filepath.Join(dir, "sync.db"), "-directory-url", "http://directory.example"},
	} {
		before := proxied.Load()
		var stderr bytes.Buffer
		if code := (program{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: env}).run(t.Context(), args); code != 0 || proxied.Load() == before {
			t.Errorf("%v: exit %d, %d requests through the proxy\n%s", args, code, proxied.Load()-before, stderr.String())
		}
	}
}

// TestConfigFileListKeys: the keys that take a YAML list are those whose flags take a
// comma-separated list, read from the flags' usage.
func TestConfigFileListKeys(t *testing.T) {
	t.Parallel()
	var lists []string
	for k, list := range fileKeys() {
		if list {
			lists = append(lists, k)
		}
	}
	slices.Sort(lists)
	want := []string{"dns-server", "mcp-allowed-hosts", "mcp-allowed-origins", "networks", "rate-limit-exempt", "trust-ca", "trust-proxy"}
	if !slices.Equal(lists, want) {
		t.Errorf("list keys %q, want %q", lists, want)
	}
}

// TestServeChecksAsConfigPrint: the settings serve checks beyond parsing (OTEL_*, the
// LLM's, the MCP allow lists) are refused by 'config print' with serve's message and
// exit status, both going through checkServe.
func TestServeChecksAsConfigPrint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"},
		{nil, map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "grpc"},
		{[]string{"-llm", "openai", "-llm-model", "gpt-4o-mini"}, nil, "OPENAI_API_KEY"},
		{[]string{"-mcp-allowed-origins", "app.example.com"}, nil, `allowed MCP origin "app.example.com" is not an origin`},
		{[]string{"-mcp-allowed-hosts", "https://x.example/"}, nil, `allowed MCP host "https://x.example/" is not a host name`},
	} {
		var serveErr, printErr bytes.Buffer
		code := program{stdout: &bytes.Buffer{}, stderr: &serveErr, getenv: envMap(tt.env)}.run(t.Context(), append(slices.Clone(tt.args), "-addr", "127.0.0.1:1"))
		pcode := program{stdout: &bytes.Buffer{}, stderr: &printErr, getenv: envMap(tt.env)}.run(t.Context(), append([]string{"config", "print"}, tt.args...))
		if code != 2 || pcode != 2 || printErr.String() != serveErr.String() || !strings.Contains(serveErr.String(), tt.want) {
			t.Errorf("%v %v: config print exit %d %q, serve exit %d %q; want 2 and the same message, saying %q", tt.args, tt.env, pcode, printErr.String(), code, serveErr.String(), tt.want)
		}
	}
}
