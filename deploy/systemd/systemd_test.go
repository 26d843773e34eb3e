// Package systemd_test checks the systemd unit and its environment file example in this
// directory (docs/DEPLOY.md, "Single binary with systemd") with the real tools: systemd's
// own systemd-analyze verify for the unit's directives, and the built peppolgate binary
// for every PEPPOLGATE_* variable and value of the example.
//
// systemd-analyze comes with Debian's systemd package (scripts/ensure-debian.sh installs
// it); without it the unit's check skips, unless PEPPOLGATE_REQUIRE_SYSTEMD is set, as
// `make test` does.
package systemd_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/telemetry"
)

const (
	unitFile = "peppolgate.service"
	envFile  = "peppolgate.env"
	// execStart is the unit's ExecStart= line: the binary where docs/DEPLOY.md installs it.
	execStart = "ExecStart=/usr/local/bin/peppolgate serve"
	// maxDrainDelay is the largest -drain-delay serve accepts (checked against the
	// binary in TestStopTimeoutCoversTheDrain) and shutdownTimeout the longest serve
	// lets in-flight requests finish after it (cmd/peppolgate/run.go): TimeoutStopSec
	// must cover both, or systemd kills a draining service.
	maxDrainDelay   = time.Minute
	shutdownTimeout = 20 * time.Second
)

// buildOnce builds cmd/peppolgate once for every test of the package (and TestMain
// removes it).
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "peppolgate-systemd-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "peppolgate")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/peppolgate")
	// The environment's own settings (no -race, CGO_ENABLED as set), so that the packages
	// `go vet ./...` compiled earlier in `make test` are reused and only this links.
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/peppolgate: %v\n%s", err, out)
	}
	return bin, nil
})

// TestMain removes the binary buildOnce built.
func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := buildOnce(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// binary returns the path of the built peppolgate.
func binary(t *testing.T) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// systemdAnalyze returns the path of systemd-analyze, skipping t when it is missing
// unless PEPPOLGATE_REQUIRE_SYSTEMD is set.
func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("PEPPOLGATE_REQUIRE_SYSTEMD") != "" {
			t.Fatalf("systemd-analyze is not installed (PEPPOLGATE_REQUIRE_SYSTEMD is set): apt-get install -y systemd, or make systemd-analyze")
		}
		t.Skip("systemd-analyze is not installed; apt-get install -y systemd (make test does)")
	}
	return p
}

// TestUnitVerifies runs systemd-analyze verify on the unit as shipped, with only its
// ExecStart's binary path pointed at a freshly built peppolgate (verify wants the
// binary to exist), and on broken copies, which must be reported: verify exits 0 on
// an unknown directive or a bad value and only prints a warning, so any output naming
// the unit fails the test.
func TestUnitVerifies(t *testing.T) {
	analyze := systemdAnalyze(t)
	bin := binary(t)
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(unit), "\nExecStart="); n != 1 || !strings.Contains(string(unit), "\n"+execStart+"\n") {
		t.Fatalf("%s: want exactly one ExecStart= line, %q; found %d ExecStart= lines", unitFile, execStart, n)
	}
	shipped := strings.Replace(string(unit), execStart, "ExecStart="+bin+" serve", 1)
	tests := []struct {
		name  string
		unit  string
		clean bool
	}{
		{"as shipped", shipped, true},
		{"unknown directive", strings.Replace(shipped, "[Service]\n", "[Service]\nProtectEverything=yes\n", 1), false},
		{"bad value", strings.Replace(shipped, "ProtectSystem=strict", "ProtectSystem=sometimes", 1), false},
		{"missing binary", strings.Replace(shipped, bin, bin+".missing", 1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.unit == shipped && !tc.clean {
				t.Fatal("the broken copy is the shipped unit: the replacement found nothing")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, unitFile)
			if err := os.WriteFile(path, []byte(tc.unit), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := exec.CommandContext(ctx, analyze, "verify", "--man=no", path).CombinedOutput()
			var about []string
			for line := range strings.Lines(string(out)) {
				if strings.Contains(line, dir) || strings.Contains(line, unitFile) || strings.Contains(line, bin) {
					about = append(about, strings.TrimSpace(line))
				} else if strings.TrimSpace(line) != "" {
					t.Logf("systemd-analyze verify, about another unit: %s", strings.TrimSpace(line))
				}
			}
			switch {
			case tc.clean && (err != nil || len(about) > 0):
				t.Errorf("systemd-analyze verify %s: %v\n%s", unitFile, err, strings.Join(about, "\n"))
			case !tc.clean && err == nil && len(about) == 0:
				t.Errorf("systemd-analyze verify reported nothing for the %s; output:\n%s", tc.name, out)
			}
		})
	}
}

// maxExposure is the highest `systemd-analyze security` exposure the unit may score
// (0 is the most locked-down, 10 the least); docs/DEPLOY.md reports 1.4 with systemd 252.
const maxExposure = 2.0

// exposure matches the score line of `systemd-analyze security`.
var exposure = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

// TestUnitSecurityExposure scores the unit with `systemd-analyze security --offline=yes`
// (systemd 250 and later; older ones skip) and fails when the hardening weakens beyond
// maxExposure.
func TestUnitSecurityExposure(t *testing.T) {
	analyze := systemdAnalyze(t)
	bin := binary(t)
	unit, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), unitFile)
	if err := os.WriteFile(path, []byte(strings.Replace(string(unit), execStart, "ExecStart="+bin+" serve", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, analyze, "security", "--offline=yes", "--no-pager", path).CombinedOutput()
	if bytes.Contains(out, []byte("--offline")) && err != nil {
		t.Skipf("this systemd-analyze cannot score a unit file offline: %s", out)
	}
	m := exposure.FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze security: %v, no exposure level in:\n%s", err, out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("systemd-analyze security: exposure %.1f", score)
	if score > maxExposure {
		t.Errorf("systemd-analyze security scores the unit %.1f, above %.1f: a hardening directive was lost\n%s", score, maxExposure, out)
	}
}

// directive returns the value of the unit's last key= line.
func directive(t *testing.T, unit, key string) string {
	t.Helper()
	val, found := "", false
	for line := range strings.Lines(unit) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			val, found = v, true
		}
	}
	if !found {
		t.Fatalf("%s has no %s=", unitFile, key)
	}
	return val
}

// TestUnitSettings checks the directives the service relies on: the hardening the issue
// asks for and docs/DEPLOY.md describes, and where the mirror may be written.
func TestUnitSettings(t *testing.T) {
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for key, want := range map[string]string{
		"DynamicUser":             "yes",
		"StateDirectory":          "peppolgate",
		"ProtectSystem":           "strict",
		"ProtectHome":             "yes",
		"PrivateTmp":              "yes",
		"PrivateDevices":          "yes",
		"NoNewPrivileges":         "yes",
		"CapabilityBoundingSet":   "",
		"RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"MemoryDenyWriteExecute":  "yes",
		"LockPersonality":         "yes",
		"RestrictNamespaces":      "yes",
		"RestrictRealtime":        "yes",
		"ProtectKernelTunables":   "yes",
		"ProtectKernelModules":    "yes",
		"ProtectKernelLogs":       "yes",
		"ProtectControlGroups":    "yes",
		"ProtectClock":            "yes",
		"ProtectHostname":         "yes",
		"UMask":                   "0077",
		"Restart":                 "on-failure",
		"KillSignal":              "SIGTERM",
		"EnvironmentFile":         "-/etc/peppolgate/peppolgate.env",
	} {
		if got := directive(t, unit, key); got != want {
			t.Errorf("%s=%s, want %s=%s", key, got, key, want)
		}
	}
	if !strings.Contains(unit, "\nSystemCallFilter=@system-service\n") {
		t.Errorf("%s: no SystemCallFilter=@system-service", unitFile)
	}
}

// TestStopTimeoutCoversTheDrain checks that systemd waits at least as long as serve
// may take to stop on SIGTERM: the largest -drain-delay (the binary refuses more) and
// then shutdownTimeout for in-flight requests, then the flush of the queued traces.
func TestStopTimeoutCoversTheDrain(t *testing.T) {
	b, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := time.ParseDuration(directive(t, string(b), "TimeoutStopSec"))
	if err != nil {
		t.Fatalf("TimeoutStopSec: %v (write it as a Go-style duration such as 90s)", err)
	}
	// After the drain, the traces still queued are flushed, within telemetry.ShutdownTimeout.
	if stop < maxDrainDelay+shutdownTimeout+telemetry.ShutdownTimeout {
		t.Errorf("TimeoutStopSec=%v is shorter than the longest drain and trace flush, %v + %v + %v", stop, maxDrainDelay, shutdownTimeout, telemetry.ShutdownTimeout)
	}
	// The binary refuses a -drain-delay above maxDrainDelay, before listening (exit 2).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "-network", "demo", "-addr", "127.0.0.1:0", "-drain-delay", (maxDrainDelay + time.Second).String())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "-drain-delay") {
		t.Errorf("peppolgate -drain-delay %v: want exit 2 naming -drain-delay (the largest is %v); got %v\n%s", maxDrainDelay+time.Second, maxDrainDelay, err, out)
	}
}

// envVar matches a PEPPOLGATE_* (or other) variable line of the example, set or
// commented out.
var envVar = regexp.MustCompile(`^#?([A-Z][A-Z0-9_]*)=(.*)$`)

// envExample returns the example's variables: those set, and those commented out.
func envExample(t *testing.T) (set, commented [][2]string) {
	t.Helper()
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		m := envVar.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if strings.HasPrefix(line, "#") {
			commented = append(commented, [2]string{m[1], m[2]})
		} else {
			set = append(set, [2]string{m[1], m[2]})
		}
	}
	if len(set) == 0 || len(commented) == 0 {
		t.Fatalf("%s: found %d variables set and %d commented out; want some of both", envFile, len(set), len(commented))
	}
	return set, commented
}

// TestEnvExampleNamesRealFlags checks every variable of the example, set or commented
// out, and every PEPPOLGATE_* variable docs/DEPLOY.md names, against the variables
// `peppolgate -h` lists for its flags, so that a renamed or removed flag breaks the test. OPENAI_API_KEY is not a flag's: -h names it as the
// LLM's key.
func TestEnvExampleNamesRealFlags(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary(t), "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("peppolgate -h: %v\n%s", err, out)
	}
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+env (PEPPOLGATE_[A-Z0-9_]+)`).FindAllStringSubmatch(string(out), -1) {
		known[m[1]] = true
	}
	if len(known) < 10 {
		t.Fatalf("peppolgate -h lists %d env variables; the pattern no longer matches its output:\n%s", len(known), out)
	}
	if bytes.Contains(out, []byte("OPENAI_API_KEY")) {
		known["OPENAI_API_KEY"] = true
	}
	set, commented := envExample(t)
	for _, kv := range append(set, commented...) {
		if !known[kv[0]] {
			t.Errorf("%s sets %s, which no flag of `peppolgate -h` reads", envFile, kv[0])
		}
	}
	// The deployment guide's variables too (the test-only PEPPOLGATE_REQUIRE_* aside).
	const guide = "../../docs/DEPLOY.md"
	doc, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range regexp.MustCompile(`PEPPOLGATE_[A-Z0-9_]*[A-Z0-9]`).FindAllString(string(doc), -1) {
		if !known[name] && !strings.HasPrefix(name, "PEPPOLGATE_REQUIRE_") {
			t.Errorf("%s names %s, which no flag of `peppolgate -h` reads", guide, name)
		}
	}
}

// TestEnvExampleServes starts the built binary with the example's settings, as
// systemd would pass them (only the address, the network and the files are changed for
// the test: a free loopback port, the offline demo network, a temporary directory), waits
// until it serves /healthz, sends SIGTERM as `systemctl stop` does and wants exit status
// 0 within the unit's TimeoutStopSec. Once with the variables set in the example, once
// with the commented-out ones too, so that each value shown is one the binary accepts.
func TestEnvExampleServes(t *testing.T) {
	bin := binary(t)
	set, commented := envExample(t)
	tests := []struct {
		name string
		vars [][2]string
	}{
		{"as shipped", set},
		{"every line", append(append([][2]string{}, set...), commented...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
			for _, kv := range tc.vars {
				switch kv[0] {
				case "PEPPOLGATE_ADDR":
					kv[1] = "127.0.0.1:0"
				case "PEPPOLGATE_MIRROR":
					kv[1] = filepath.Join(dir, "mirror.db")
				case "PEPPOLGATE_REDIS":
					// No Redis answers here: the service starts anyway (docs/ARCHITECTURE.md §7).
					kv[1] = "unix://" + filepath.Join(dir, "no-redis.sock")
				}
				env = append(env, kv[0]+"="+kv[1])
			}
			env = append(env, "PEPPOLGATE_NETWORK=demo")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "serve")
			cmd.Env = env
			cmd.Dir = dir
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			cmd.Stdout = &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			addr := make(chan string, 1)
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				sc := bufio.NewScanner(stderr)
				sc.Buffer(make([]byte, 64<<10), 1<<20)
				for sc.Scan() {
					var rec struct {
						Msg  string `json:"msg"`
						Addr string `json:"addr"`
					}
					if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "listening" {
						select {
						case addr <- rec.Addr:
						default:
						}
					}
					t.Logf("peppolgate: %s", sc.Text())
				}
			}()
			var listen string
			select {
			case listen = <-addr:
			case <-copied:
				cmd.Wait()
				t.Fatalf("peppolgate exited before listening: %v", cmd.ProcessState)
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatal("peppolgate did not listen within 2m")
			}
			client := &http.Client{Timeout: 30 * time.Second}
			resp, err := client.Get("http://" + listen + "/healthz")
			if err != nil {
				t.Fatalf("GET /healthz: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET /healthz: %s", resp.Status)
			}
			// systemctl stop: KillSignal=SIGTERM, then SIGKILL after TimeoutStopSec.
			unit, err := os.ReadFile(unitFile)
			if err != nil {
				t.Fatal(err)
			}
			stopTimeout, err := time.ParseDuration(directive(t, string(unit), "TimeoutStopSec"))
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() {
				<-copied
				exited <- cmd.Wait()
			}()
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("peppolgate after SIGTERM: %v, want exit status 0", err)
				}
			case <-time.After(stopTimeout):
				cmd.Process.Kill()
				<-exited
				t.Errorf("peppolgate did not stop within TimeoutStopSec=%v of SIGTERM", stopTimeout)
			}
		})
	}
}
