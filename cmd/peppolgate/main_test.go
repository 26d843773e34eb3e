package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"addr": "PEPPOLGATE_ADDR", "cache-ttl": "PEPPOLGATE_CACHE_TTL", "allow-private-smp": "PEPPOLGATE_ALLOW_PRIVATE_SMP",
	} {
		if got := envName(in); got != want {
			t.Errorf("envName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseConfigPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		check func(t *testing.T, c config)
	}{
		{"defaults", nil, nil, func(t *testing.T, c config) {
			if c.addr != ":8080" || c.baseURL != "" || c.network != "production" || c.smlZone != sml.ZoneProduction ||
				len(c.dnsServers) != 0 || c.directoryURL != directory.Production || c.allowPrivateSMP ||
				c.cacheTTL != 15*time.Minute || c.logLevel != slog.LevelInfo ||
				c.rateLimit != (server.RateLimit{Rate: 20, Burst: 40}) || c.askRateLimit != (server.RateLimit{Rate: 2, Burst: 5}) ||
				c.mcpRateLimit != (server.RateLimit{Rate: 20, Burst: 40}) || c.trustedProxies != nil ||
				fmt.Sprint(c.rateLimitExempt) != "[127.0.0.0/8 ::1/128]" {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{"env only", nil, map[string]string{
			"PEPPOLGATE_ADDR": "127.0.0.1:9000", "PEPPOLGATE_NETWORK": "test", "PEPPOLGATE_CACHE_TTL": "2m",
			"PEPPOLGATE_ALLOW_PRIVATE_SMP": "true", "PEPPOLGATE_LOG_LEVEL": "debug", "PEPPOLGATE_DNS_SERVER": "9.9.9.9:53, [::1]:5353",
			"PEPPOLGATE_BASE_URL": "https://pg.example/", "PEPPOLGATE_SML_ZONE": "sml.example.org", "PEPPOLGATE_LOG_REQUESTS": "sample:100",
		}, func(t *testing.T, c config) {
			if c.logRequests.String() != "sample:100" {
				t.Errorf("env: -log-requests %v", c.logRequests)
			}
			if c.addr != "127.0.0.1:9000" || c.network != "test" || c.cacheTTL != 2*time.Minute || !c.allowPrivateSMP ||
				c.logLevel != slog.LevelDebug || strings.Join(c.dnsServers, " ") != "9.9.9.9:53 [::1]:5353" ||
				c.baseURL != "https://pg.example" || c.smlZone != "sml.example.org" || c.directoryURL != directory.Test {
				t.Errorf("env: %+v", c)
			}
		}},
		{"flag beats env", []string{"-addr", ":7000", "-network=production", "-cache-ttl", "1h", "-allow-private-smp=false", "-directory-url", "http://dir.example"},
			map[string]string{"PEPPOLGATE_ADDR": ":9000", "PEPPOLGATE_NETWORK": "test", "PEPPOLGATE_CACHE_TTL": "2m",
				"PEPPOLGATE_ALLOW_PRIVATE_SMP": "true", "PEPPOLGATE_DIRECTORY_URL": "http://other.example"},
			func(t *testing.T, c config) {
				if c.addr != ":7000" || c.network != "production" || c.cacheTTL != time.Hour || c.allowPrivateSMP ||
					c.directoryURL != "http://dir.example" || c.smlZone != sml.ZoneProduction {
					t.Errorf("flags: %+v", c)
				}
			}},
		{"empty env is unset", nil, map[string]string{"PEPPOLGATE_ADDR": "", "PEPPOLGATE_CACHE_TTL": ""}, func(t *testing.T, c config) {
			if c.addr != ":8080" || c.cacheTTL != 15*time.Minute {
				t.Errorf("%+v", c)
			}
		}},
		{"rate limits from env and flags", []string{"-ask-rate-limit", "30/m", "-mcp-rate-limit", "off"},
			map[string]string{"PEPPOLGATE_RATE_LIMIT": "5/s,burst=8", "PEPPOLGATE_ASK_RATE_LIMIT": "1/s", "PEPPOLGATE_TRUST_PROXY": "10.0.0.0/8, 192.0.2.1",
				"PEPPOLGATE_RATE_LIMIT_EXEMPT": "None"},
			func(t *testing.T, c config) {
				if c.rateLimit != (server.RateLimit{Rate: 5, Burst: 8}) || c.askRateLimit != (server.RateLimit{Rate: 0.5, Burst: 30}) ||
					c.mcpRateLimit.On() || len(c.trustedProxies) != 2 || c.trustedProxies[1].String() != "192.0.2.1/32" || c.rateLimitExempt != nil {
					t.Errorf("%+v", c)
				}
			}},
		{"check max duration", []string{"-check-max-duration", "90s"}, nil, func(t *testing.T, c config) {
			if c.checkMaxDuration != 90*time.Second {
				t.Errorf("checkMaxDuration %v", c.checkMaxDuration)
			}
		}},
		{"check max duration by default", nil, nil, func(t *testing.T, c config) {
			if c.checkMaxDuration != server.DefaultCheckMaxDuration {
				t.Errorf("checkMaxDuration %v", c.checkMaxDuration)
			}
		}},
		{"demo forces private SMPs", []string{"-network", "DEMO"}, nil, func(t *testing.T, c config) {
			if c.network != "demo" || !c.allowPrivateSMP || c.directoryURL != "" || c.smlZone != "" || strings.Join(c.networks, ",") != "demo,test" {
				t.Errorf("%+v", c)
			}
		}},
		{"networks by default", nil, nil, func(t *testing.T, c config) {
			if strings.Join(c.networks, ",") != "production,test" {
				t.Errorf("networks %v", c.networks)
			}
		}},
		{"test network's default networks", []string{"-network", "test"}, nil, func(t *testing.T, c config) {
			if strings.Join(c.networks, ",") != "test,production" {
				t.Errorf("networks %v", c.networks)
			}
		}},
		{"only the default network", nil, map[string]string{"PEPPOLGATE_NETWORKS": "production"}, func(t *testing.T, c config) {
			if strings.Join(c.networks, ",") != "production" {
				t.Errorf("networks %v", c.networks)
			}
		}},
		{"networks in any order and case", []string{"-networks", " Test, production ,test"}, nil, func(t *testing.T, c config) {
			if strings.Join(c.networks, ",") != "production,test" {
				t.Errorf("networks %v", c.networks)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(cmdServe, tt.args, envMap(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantMsg string
	}{
		{"unknown flag", []string{"-port", "80"}, nil, "flag provided but not defined: -port"},
		{"bad network", []string{"-network", "prod2"}, nil, `-network "prod2" is not one of production, test, demo`},
		{"bad duration", []string{"-cache-ttl", "soon"}, nil, `invalid value "soon" for flag -cache-ttl`},
		{"zero ttl", []string{"-cache-ttl", "0s"}, nil, "-cache-ttl must be positive"},
		{"negative ttl", []string{"-cache-ttl=-1m"}, nil, "-cache-ttl must be positive"},
		{"bad log level", []string{"-log-level", "loud"}, nil, `-log-level "loud" is not one of`},
		{"bad addr", []string{"-addr", "8080"}, nil, `-addr "8080" is not host:port`},
		{"bad port", []string{"-addr", ":99999"}, nil, "no valid port"},
		{"bad dns server", []string{"-dns-server", "9.9.9.9"}, nil, `-dns-server "9.9.9.9" is not host:port`},
		{"redis url with another scheme", []string{"-redis", "http://u:s3cret@h:6379"}, nil, `-redis: the Redis URL http://u:REDACTED@h:6379 has scheme "http"`},
		{"redis prefix with a space", []string{"-redis-prefix", "a b"}, nil, "-redis-prefix: the Redis key prefix \"a b\" may hold only letters"},
		{"redis timeout too long", []string{"-redis-timeout", "10s"}, nil, "-redis-timeout must be between 1ms and 5s"},
		{"redis url from the environment", nil, map[string]string{"PEPPOLGATE_REDIS": "redis://h:6379/x"}, "-redis: the Redis URL redis://h:6379/x is not usable"},
		{"bad base url", []string{"-base-url", "localhost:8080"}, nil, "-base-url"},
		{"bad directory url", []string{"-directory-url", "directory.peppol.eu"}, nil, "-directory-url"},
		{"bad bool env", nil, map[string]string{"PEPPOLGATE_ALLOW_PRIVATE_SMP": "maybe"}, `invalid value "maybe" for PEPPOLGATE_ALLOW_PRIVATE_SMP`},
		{"bad duration env", nil, map[string]string{"PEPPOLGATE_CACHE_TTL": "15"}, `invalid value "15" for PEPPOLGATE_CACHE_TTL`},
		{"bad network env", nil, map[string]string{"PEPPOLGATE_NETWORK": "mainnet"}, `"mainnet" is not one of`},
		{"networks without the default", []string{"-networks", "test"}, nil, `-networks "test" must include -network's production`},
		{"demo offered with production", []string{"-networks", "production,demo"}, nil, `"demo" cannot be offered with -network production`},
		{"production offered with demo", []string{"-network", "demo", "-networks", "demo,production"}, nil, `"production" cannot be offered with -network demo`},
		{"unknown network offered", []string{"-networks", "production,staging"}, nil, `"staging" cannot be offered`},
		{"demo with dns server", []string{"-network", "demo", "-dns-server", "1.1.1.1:53"}, nil, "-dns-server cannot be used with -network demo"},
		{"demo with zone from env", []string{"-network", "demo"}, map[string]string{"PEPPOLGATE_SML_ZONE": "x.example"}, "-sml-zone cannot be used with -network demo"},
		{"trust-ca for a network not offered", []string{"-networks", "production", "-trust-ca", "test=ca.pem"}, nil, `-trust-ca "test=ca.pem" names network "test", which is not offered`},
		{"trust-ca file missing", []string{"-trust-ca", "/nonexistent/ca.pem"}, nil, "-trust-ca: open /nonexistent/ca.pem"},
		{"trust-ca file without certificates", []string{"-trust-ca", "main_test.go"}, nil, "-trust-ca main_test.go: no PEM certificate found; give PEM CA certificates"},
		{"stray argument", []string{"-addr", ":1", "now"}, nil, `unexpected argument "now"`},
		{"unknown command", []string{"start"}, nil, `unknown command "start"`},
		{"llm without model", []string{"-llm", "openai"}, nil, "-llm openai needs -llm-model"},
		{"llm model without llm", []string{"-llm-model", "gpt-4o-mini"}, nil, "-llm-model needs -llm openai"},
		{"unknown llm", []string{"-llm", "claude"}, nil, `-llm "claude" is not one of none, openai`},
		{"llm timeout", []string{"-llm", "openai", "-llm-model", "m", "-llm-timeout", "0s"}, nil, "-llm-timeout must be positive"},
		{"llm timeout too long", []string{"-llm", "openai", "-llm-model", "m", "-llm-timeout", "5m"}, nil, "at most 1m30s"},
		{"llm base url", []string{"-llm", "openai", "-llm-model", "m", "-llm-base-url", "localhost:11434"}, nil, "LLM base URL"},
		{"bad rate", []string{"-rate-limit", "fast"}, nil, `-rate-limit "fast" is not a rate such as 20/s`},
		{"rate without unit", []string{"-ask-rate-limit", "20"}, nil, `-ask-rate-limit "20" is not a rate`},
		{"rate per hour", []string{"-rate-limit", "20/h"}, nil, `is not a rate`},
		{"negative rate", []string{"-rate-limit", "-1/s"}, nil, `is not a rate`},
		{"bad burst", []string{"-mcp-rate-limit", "20/s,burst=0"}, nil, `-mcp-rate-limit "20/s,burst=0" has no valid burst`},
		{"bad rate env", nil, map[string]string{"PEPPOLGATE_RATE_LIMIT": "lots"}, `-rate-limit "lots" is not a rate`},
		{"bad exemption", []string{"-rate-limit-exempt", "localhost"}, nil, `-rate-limit-exempt: "localhost" is not an IP address`},
		{"bad proxy", []string{"-trust-proxy", "10.0.0.0/8,proxy.internal"}, nil, `-trust-proxy: "proxy.internal" is not an IP address or CIDR prefix`},
		{"openai without key", []string{"-llm", "openai", "-llm-model", "gpt-4o-mini", "-network", "demo"}, nil, "OPENAI_API_KEY"},
		{"mirror max age", []string{"-mirror", "m.db", "-mirror-max-age", "0s"}, nil, "-mirror-max-age must be positive"},
		{"mirror hard max age below max age", []string{"-mirror", "m.db", "-mirror-max-age", "96h", "-mirror-hard-max-age", "72h"}, nil, "-mirror-hard-max-age must be at least -mirror-max-age (96h0m0s)"},
		{"mirror refresh without mirror", []string{"-mirror-refresh", "24h"}, nil, "-mirror-refresh needs -mirror FILE"},
		{"mirror refresh too often", []string{"-mirror", "m.db", "-mirror-refresh", "10m"}, nil, "at least 1h"},
		{"mirror refresh on mcp", []string{"mcp", "-mirror-refresh", "24h"}, nil, "flag provided but not defined: -mirror-refresh"},
		{"bad mcp origin", []string{"-mcp-allowed-origins", "app.example.com"}, nil, `allowed MCP origin "app.example.com" is not an origin`},
		{"bad log-requests", []string{"-log-requests", "some"}, nil, `-log-requests "some" is not one of all, errors or sample:N`},
		{"bad log-requests env", nil, map[string]string{"PEPPOLGATE_LOG_REQUESTS": "sample:0"}, `-log-requests "sample:0" is not one of all, errors or sample:N`},
		{"log-requests on mcp", []string{"mcp", "-log-requests", "errors"}, nil, "flag provided but not defined: -log-requests"},
		{"bad mcp host", []string{"-mcp-allowed-hosts", "https://x.example/"}, nil, `allowed MCP host "https://x.example/" is not a host name`},
	}
	// Every setting is checked before the command listens: each case runs with -addr
	// naming a port that is taken, so a check made after binding exits 1 ("cannot
	// listen"), not 2. No case binds a fixed port.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(tt.env)}
			args := tt.args
			if !slices.Contains(args, "-addr") && (len(args) == 0 || args[0] != "mcp" && args[0] != "start") {
				args = append(slices.Clone(args), "-addr", taken.Addr().String())
			}
			code := p.run(t.Context(), args)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.wantMsg) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.wantMsg)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty: %q", stdout.String())
			}
		})
	}
}

func TestHelpListsEveryFlagAndEnv(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"--help"}, {"serve", "-h"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
		if code := p.run(t.Context(), args); code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
		out := stdout.String()
		var v flagValues
		n := 0
		newFlagSet(&v, cmdServe).VisitAll(func(f *flag.Flag) {
			n++
			if !strings.Contains(out, "  -"+f.Name) || !strings.Contains(out, envName(f.Name)) {
				t.Errorf("%v: help lacks -%s or %s", args, f.Name, envName(f.Name))
			}
			if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(out, f.DefValue) {
				t.Errorf("%v: help lacks the default %q of -%s", args, f.DefValue, f.Name)
			}
		})
		if n != 35 {
			t.Errorf("%d flags, want 35", n)
		}
		for _, s := range []string{"default derived from -addr", "production, test, or demo", "-networks", "PEPPOLGATE_NETWORKS", "default production,test; demo,test with -network demo", "directory.peppol.eu", "Exit status", "peppolgate mirror import|sync", "peppolgate config print", "peppolgate -version", "a flag beats its variable, the variable the -config file"} {
			if !strings.Contains(out, s) {
				t.Errorf("%v: help lacks %q", args, s)
			}
		}
	}
}

func TestParseRateLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want server.RateLimit
		bad  bool
	}{
		{in: "20/s", want: server.RateLimit{Rate: 20, Burst: 20}},
		{in: "20/s,burst=40", want: server.RateLimit{Rate: 20, Burst: 40}},
		{in: " 20 / sec , burst = 40 ", want: server.RateLimit{Rate: 20, Burst: 40}},
		{in: "0.5/s", want: server.RateLimit{Rate: 0.5, Burst: 1}},
		{in: "90/m", want: server.RateLimit{Rate: 1.5, Burst: 90}},
		{in: "6/minute,burst=2", want: server.RateLimit{Rate: 0.1, Burst: 2}},
		{in: "0", want: server.RateLimit{}},
		{in: "OFF", want: server.RateLimit{}},
		{in: "none", want: server.RateLimit{}},
		{in: "", bad: true},
		{in: "20", bad: true},
		{in: "0/s", bad: true},
		{in: "NaN/s", bad: true},
		{in: "Inf/s", bad: true},
		{in: "2000000/s", bad: true},
		{in: "20/h", bad: true},
		{in: "20/s,40", bad: true},
		{in: "20/s,burst=1.5", bad: true},
		{in: "20/s,size=40", bad: true},
	}
	for _, tt := range tests {
		got, err := parseRateLimit(tt.in)
		switch {
		case tt.bad && err == nil:
			t.Errorf("%q: %+v, want an error", tt.in, got)
		case !tt.bad && (err != nil || got != tt.want):
			t.Errorf("%q: %+v %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseProxies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "", want: ""},
		{in: "10.0.0.1", want: "10.0.0.1/32"},
		{in: "10.1.2.3/8, ::1, fd00::/8", want: "10.0.0.0/8 ::1/128 fd00::/8"},
		{in: "::ffff:10.0.0.0/104", want: "10.0.0.0/8"},
		{in: "::ffff:10.0.0.1", want: "10.0.0.1/32"},
		{in: "proxy.internal", bad: true},
		{in: "10.0.0.0/33", bad: true},
		{in: "fe80::1%eth0", bad: true},
		{in: "::ffff:0.0.0.0/64", bad: true},
	}
	for _, tt := range tests {
		ps, err := parseProxies(tt.in)
		var got []string
		for _, p := range ps {
			got = append(got, p.String())
		}
		switch {
		case tt.bad && err == nil:
			t.Errorf("%q: %v, want an error", tt.in, got)
		case !tt.bad && (err != nil || strings.Join(got, " ") != tt.want):
			t.Errorf("%q: %v %v, want %s", tt.in, got, err, tt.want)
		}
	}
}

// metricValue is the value of one series in the Prometheus text format, -1 when it
// is absent.
func metricValue(text, series string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			var v float64
			if _, err := fmt.Sscan(rest, &v); err == nil {
				return v
			}
		}
	}
	return -1
}

func TestDeriveBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ flag, bound, want string }{
		{":8080", "[::]:8080", "http://localhost:8080"},
		{"0.0.0.0:8080", "0.0.0.0:8080", "http://localhost:8080"},
		{"127.0.0.1:0", "127.0.0.1:43211", "http://127.0.0.1:43211"},
		{"[::1]:9000", "[::1]:9000", "http://[::1]:9000"},
		{"pg.internal:80", "10.0.0.1:80", "http://pg.internal:80"},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.bound)
		if err != nil {
			t.Fatal(err)
		}
		if got := deriveBaseURL(tt.flag, addr); got != tt.want {
			t.Errorf("deriveBaseURL(%q, %s) = %q, want %q", tt.flag, tt.bound, got, tt.want)
		}
	}
}

func TestPortInUse(t *testing.T) {
	// Not parallel: it holds a port other tests might be given.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr bytes.Buffer
	p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
	// A DNS server is named so that the test does not depend on /etc/resolv.conf; no
	// query is sent before listening fails.
	code := p.run(t.Context(), []string{"-addr", ln.Addr().String(), "-dns-server", "127.0.0.1:1"})
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "already in use"; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "PEPPOLGATE_ADDR") {
		t.Errorf("stderr %q does not say %q and how to fix it", stderr.String(), want)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServeDemo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncBuffer
	ready := make(chan string, 1)
	p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(map[string]string{"PEPPOLGATE_LOG_LEVEL": "warn"}),
		listening: func(_ net.Addr, base string) { ready <- base }}
	done := make(chan int, 1)
	// Not exempt, so that the test sees the default limits from 127.0.0.1.
	go func() {
		done <- p.run(ctx, []string{"serve", "-network", "demo", "-addr", "127.0.0.1:0", "-rate-limit-exempt", "none"})
	}()
	var base string
	select {
	case base = <-ready:
	case code := <-done:
		t.Fatalf("exited %d before listening: %s", code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("not listening after 30s")
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("base URL %q", base)
	}

	var lastHeader http.Header
	get := func(path string) (int, []byte) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		lastHeader = resp.Header
		return resp.StatusCode, body
	}
	if code, body := get("/readyz"); code != 200 {
		t.Fatalf("readyz %d %s", code, body)
	}
	code, body := get("/api/v1/participant/" + netsim.KnownBelgian)
	var part registry.Participant
	if code != 200 || json.Unmarshal(body, &part) != nil || part.ParticipantID != netsim.KnownBelgian || part.Network != "demo" ||
		part.SMP == nil || part.Directory == nil || part.SMP.Endpoint == nil {
		t.Errorf("participant: %d %s", code, body)
	}
	// The default limits are on.
	if got := lastHeader.Get("RateLimit-Policy"); got != `"rest";q=40;w=2` {
		t.Errorf("RateLimit-Policy %q, want the default limit", got)
	}
	code, body = get("/api/v1/search?q=BE0677424046")
	var res registry.SearchResult
	if code != 200 || json.Unmarshal(body, &res) != nil || len(res.Results) == 0 || res.Results[0].ParticipantID != netsim.KnownBelgian {
		t.Errorf("search: %d %s", code, body)
	}

	// One Metrics counts the server's requests and, as the registry's Observer, the
	// upstream calls and cache decisions of the cold lookup and search above.
	code, body = get("/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, series := range []string{
		`peppolgate_http_requests_total{method="GET",route="/api/v1/participant/{participantId}",status="200"}`,
		`peppolgate_http_requests_total{method="GET",route="/api/v1/search",status="200"}`,
		`peppolgate_upstream_requests_total{kind="sml",outcome="ok"}`,
		`peppolgate_upstream_requests_total{kind="smp",outcome="ok"}`,
		`peppolgate_upstream_requests_total{kind="directory",outcome="ok"}`,
		`peppolgate_cache_requests_total{kind="lookup",result="miss"}`,
		`peppolgate_cache_requests_total{kind="search",result="miss"}`,
		"go_goroutines",
	} {
		if v := metricValue(string(body), series); v <= 0 {
			t.Errorf("/metrics: %s is %v, want more than 0", series, v)
		}
	}

	// The banner names the three example ids and two searches, as commands for this
	// server.
	banner := stdout.String()
	for _, want := range []string{
		"curl -s " + base + "/api/v1/participant/" + netsim.KnownBelgian,
		"curl -s " + base + "/api/v1/participant/" + netsim.KnownSMLOnly,
		"curl -s " + base + "/api/v1/participant/" + netsim.KnownDirectoryOnly,
		"curl -s '" + base + "/api/v1/search?q=BE0677424046'",
		"curl -s '" + base + "/api/v1/search?q=",
		"3000 participants",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	if strings.Count(banner, "curl -s") != 8 {
		t.Errorf("banner has %d commands, want 8", strings.Count(banner, "curl -s"))
	}
	// The simulated test network answers with ?network=test, and only there.
	code, body = get("/api/v1/participant/" + netsim.TestKnownInvoice + "?network=test")
	if code != 200 || json.Unmarshal(body, &part) != nil || part.Network != "test" || part.Directory == nil || part.SMP == nil ||
		!strings.Contains(banner, "/api/v1/participant/"+netsim.TestKnownInvoice+"?network=test") {
		t.Errorf("test network: %d %s", code, body)
	}
	if code, body = get("/api/v1/participant/" + netsim.TestKnownInvoice); code != 404 {
		t.Errorf("test participant on the demo network: %d %s", code, body)
	}
	if code, body = get("/api/v1/participant/" + netsim.KnownBelgian + "?network=production"); code != 400 || !strings.Contains(string(body), "demo, test") {
		t.Errorf("production on the demo: %d %s", code, body)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after shutdown, want 0; stderr %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30s after cancel")
	}
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		t.Error("still accepting connections after shutdown")
	}
}

// TestShutdownWithOpenEventStream: serve with an open GET /mcp event stream stops on
// cancellation (SIGTERM) at once and exits 0: /readyz answers 503 during -drain-delay,
// the stream is ended before the server drains instead of holding Shutdown until its
// timeout (then exit 1).
func TestShutdownWithOpenEventStream(t *testing.T) {
	// Not parallel: it times a drain and holds ports; other tests would skew it. The
	// drain delay leaves a busy machine time to ask /readyz during it.
	base, cancel, done, stderr := launchServe(t, &syncBuffer{}, "-network", "demo", "-networks", "demo", "-addr", "127.0.0.1:0", "-drain-delay", "3s")
	defer cancel()
	post := func(session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d", resp.StatusCode)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("GET /mcp: %v %v", stream, err)
	}
	ended := make(chan struct{})
	go func() { io.Copy(io.Discard, stream.Body); stream.Body.Close(); close(ended) }()

	cancel() // SIGTERM
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream was not ended at shutdown")
	}
	// During -drain-delay the server still answers, not ready.
	r, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatalf("/readyz during the drain delay: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the drain delay: %d, want 503", r.StatusCode)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0: %s", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop within 15s of SIGTERM with an event stream open")
	}
}

// TestServeHardening: a header block over 64 KiB is refused by net/http (431) before
// any handler, and a -trust-proxy range wide enough to hold clients is warned about at
// start.
func TestServeHardening(t *testing.T) {
	t.Parallel()
	base, logs := startServe(t, "-network", "demo", "-networks", "demo", "-trust-proxy", "0.0.0.0/0,10.1.2.3", "-log-level", "warn")
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/healthz", nil)
	req.Header.Set("X-Padding", strings.Repeat("a", 100<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 100 KiB header: %d, want 431", resp.StatusCode)
	}
	// A request net/http cannot read is answered by net/http itself, yet as the API's
	// JSON error (server.Listener), not text/plain.
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	bad, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(bad.Body)
	if bad.StatusCode != 400 || bad.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), `"code":"invalid_request"`) {
		t.Errorf("a request without Host: %d %q %s", bad.StatusCode, bad.Header.Get("Content-Type"), body)
	}
	if !strings.Contains(logs.String(), `-trust-proxy names a wide or public range`) || !strings.Contains(logs.String(), `"prefix":"0.0.0.0/0"`) ||
		strings.Contains(logs.String(), `"prefix":"10.1.2.3/32"`) {
		t.Errorf("the start-up log does not warn about 0.0.0.0/0 (and only it): %s", logs.String())
	}
}
