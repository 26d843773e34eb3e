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
	s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), port: freePort(tb), args: extra}
	s.start()
	tb.Cleanup(s.Kill)
	return s
}

func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("redistest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) start() {
	s.tb.Helper()
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--unixsocket", s.SocketPath(), "--unixsocketperm", "700", "--daemonize", "no"}
	args = append(args, s.args...)
	cmd := exec.Command(s.bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.tb.Fatalf("redistest: %v", err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		s.tb.Fatalf("redistest: starting %s: %v", s.bin, err)
	}
	ready := make(chan struct{})
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Text()
			if log.Len() < 8<<10 {
				log.WriteString(line + "\n")
			}
			if strings.Contains(line, "Ready to accept connections") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		s.tb.Fatalf("redistest: redis-server did not start within 10 s")
	}
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
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

// Restart starts the server again on the same port after Kill, empty.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Kill()
	s.start()
}
