// Package redistest starts a real redis-server (Debian's package; `make test` installs
// it) on a free loopback port for a test, and stops it when the test ends. Without
// redis-server on PATH a test using it is skipped, unless PEPPOLGATE_REQUIRE_REDIS is
// set (as `make test` does), when it fails.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is one redis-server process of a test.
type Server struct {
	tb   testing.TB
	bin  string
	dir  string
	port int
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Start starts redis-server on a free loopback port with no persistence, extra being
// further `--name value` arguments (e.g. "--maxmemory", "1mb"), and stops it when tb
// ends. It skips tb when redis-server is not installed, unless PEPPOLGATE_REQUIRE_REDIS
// is set.
func Start(tb testing.TB, extra ...string) *Server {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("PEPPOLGATE_REQUIRE_REDIS") != "" {
			tb.Fatalf("redis-server is not installed (PEPPOLGATE_REQUIRE_REDIS is set): apt-get install -y redis-server")
		}
		tb.Skip("redis-server is not installed; apt-get install -y redis-server (make test does)")
	}
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), args: extra}
	// The free port found may be taken by a parallel test before redis-server binds
	// it: then try another.
	for attempt := 1; ; attempt++ {
		s.port = FreePort(tb)
		err := s.start()
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Address already in use") {
			tb.Fatalf("redistest: %v", err)
		}
	}
	tb.Cleanup(s.Kill)
	return s
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("redistest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start starts redis-server and waits until it accepts connections; the error quotes
// what it printed when it exits or does not get ready within 10 s.
func (s *Server) start() error {
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--unixsocket", s.SocketPath(), "--unixsocketperm", "700", "--daemonize", "no"}
	args = append(args, s.args...)
	cmd := exec.Command(s.bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	ready, exited := make(chan struct{}), make(chan struct{})
	var (
		logMu sync.Mutex
		log   strings.Builder
	)
	printed := func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return log.String()
	}
	go func() {
		defer close(exited) // the output ends when the process does
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			if log.Len() < 8<<10 {
				log.WriteString(line + "\n")
			}
			logMu.Unlock()
			if strings.Contains(line, "Ready to accept connections") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-exited:
		_ = cmd.Wait()
		return fmt.Errorf("redis-server exited at start:\n%s", printed())
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("redis-server did not start within 10 s:\n%s", printed())
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	return nil
}

// Addr returns host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// URL returns redis://127.0.0.1:port/db.
func (s *Server) URL(db int) string { return fmt.Sprintf("redis://%s/%d", s.Addr(), db) }

// SocketPath returns the path of the server's unix socket.
func (s *Server) SocketPath() string { return filepath.Join(s.dir, "redis.sock") }

// Kill stops the server at once (SIGKILL), as a crash would. Safe to call twice.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd := s.cmd
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

// Restart starts the server again on the same port after Kill, empty; a failure
// fails tb, which must be the test or subtest calling it.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	s.Kill()
	if err := s.start(); err != nil {
		tb.Fatalf("redistest: restarting: %v", err)
	}
}
