package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is the redis-server process the benchmark starts on a free loopback
// port, with no persistence, and stops at the end.
type redisServer struct {
	cmd     *exec.Cmd
	dir     string
	addr    string
	version string
	admin   *redis.Client // the benchmark's own connection: INFO and FLUSHALL
	done    chan struct{}
}

// startRedis starts bin (redis-server) on a free port of 127.0.0.1 and waits up to 10 s
// for it to accept connections. It returns an error when bin cannot be found or
// started, or does not get ready in time.
func startRedis(ctx context.Context, bin string) (*redisServer, error) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%s not found (scripts/ensure-redis.sh installs Debian's redis-server): %w", bin, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "bench-fleet-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	s := &redisServer{cmd: cmd, dir: dir, addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan struct{})}
	ready := make(chan struct{})
	var log strings.Builder
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if log.Len() < 4<<10 {
				log.WriteString(sc.Text() + "\n")
			}
			if !signalled && strings.Contains(sc.Text(), "Ready to accept connections") {
				signalled = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-s.done:
		s.stop()
		return nil, fmt.Errorf("%s exited before it was ready: %s", path, log.String())
	case <-time.After(10 * time.Second):
		s.stop()
		return nil, fmt.Errorf("%s did not get ready within 10 s", path)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
	s.admin = redis.NewClient(&redis.Options{Addr: s.addr, DisableIdentity: true})
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	srv, err := s.admin.Info(cctx, "server").Result()
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("asking redis-server its version: %w", err)
	}
	for line := range strings.SplitSeq(srv, "\r\n") {
		if v, ok := strings.CutPrefix(line, "redis_version:"); ok {
			s.version = v
		}
	}
	return s, nil
}

// url returns the URL of database db.
func (s *redisServer) url(db int) string { return fmt.Sprintf("redis://%s/%d", s.addr, db) }

// flush empties every database, so that a configuration starts from an empty shared
// state as it starts from empty replicas.
func (s *redisServer) flush(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return s.admin.FlushAll(ctx).Err()
}

// info reads the commands and network bytes Redis has counted so far, and the length
// of the reply that told it (so that a delta can leave the benchmark's own INFO out).
func (s *redisServer) info(ctx context.Context) (redisInfo, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	raw, err := s.admin.Info(ctx, "stats", "commandstats").Result()
	if err != nil {
		return redisInfo{}, 0, fmt.Errorf("INFO: %w", err)
	}
	in, err := parseInfo(raw)
	// The reply went out as a RESP bulk string: $<len>\r\n<raw>\r\n.
	return in, int64(len(raw) + len(strconv.Itoa(len(raw))) + 5), err
}

// stop ends redis-server (SIGTERM, then SIGKILL after 5 s) and removes its directory.
func (s *redisServer) stop() {
	if s.admin != nil {
		s.admin.Close()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
	}
	_ = s.cmd.Wait()
	os.RemoveAll(s.dir)
}

// redisInfo is what INFO stats and INFO commandstats count: calls per command (lower
// case; subcommands as "config|resetstat") and bytes read and written on the network.
type redisInfo struct {
	calls             map[string]int64
	inBytes, outBytes int64
}

// parseInfo reads an INFO reply holding the stats and commandstats sections. It
// returns an error when the reply has no network byte counts.
func parseInfo(raw string) (redisInfo, error) {
	in := redisInfo{calls: map[string]int64{}, inBytes: -1, outBytes: -1}
	for line := range strings.SplitSeq(raw, "\n") {
		line = strings.TrimSpace(line)
		if name, rest, ok := strings.Cut(line, ":"); ok {
			switch {
			case name == "total_net_input_bytes":
				in.inBytes, _ = strconv.ParseInt(rest, 10, 64)
			case name == "total_net_output_bytes":
				in.outBytes, _ = strconv.ParseInt(rest, 10, 64)
			case strings.HasPrefix(name, "cmdstat_"):
				for f := range strings.SplitSeq(rest, ",") {
					if v, ok := strings.CutPrefix(f, "calls="); ok {
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							return in, fmt.Errorf("INFO commandstats: %q", line)
						}
						in.calls[strings.TrimPrefix(name, "cmdstat_")] = n
					}
				}
			}
		}
	}
	if in.inBytes < 0 || in.outBytes < 0 {
		return in, errors.New("INFO has no total_net_input_bytes or total_net_output_bytes")
	}
	return in, nil
}

// ownCommand reports whether a command is the benchmark's own measuring (INFO,
// CONFIG, FLUSHALL), not the replicas' work.
func ownCommand(name string) bool {
	return name == "info" || name == "flushall" || strings.HasPrefix(name, "config")
}

// sub returns what happened between before and i, leaving out the benchmark's own
// commands and the reply to the INFO that read before (beforeReply bytes).
func (i redisInfo) sub(before redisInfo, beforeReply int64) redisInfo {
	d := redisInfo{calls: map[string]int64{}, inBytes: i.inBytes - before.inBytes, outBytes: i.outBytes - before.outBytes - beforeReply}
	for k, v := range i.calls {
		if ownCommand(k) {
			continue
		}
		if n := v - before.calls[k]; n > 0 {
			d.calls[k] = n
		}
	}
	return d
}

// total returns the number of commands.
func (i redisInfo) total() int64 {
	var n int64
	for _, v := range i.calls {
		n += v
	}
	return n
}

// String lists the commands and their calls, by name: "evalsha 10 · get 20".
func (i redisInfo) String() string {
	var names []string
	for k := range i.calls {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for j, k := range names {
		parts[j] = fmt.Sprintf("%s %d", k, i.calls[k])
	}
	return strings.Join(parts, " · ")
}

// perRequest lists the commands per request, by name: "evalsha 1.00 · get 0.25";
// "none" when there were none.
func (i redisInfo) perRequest(requests int) string {
	if requests == 0 || len(i.calls) == 0 {
		return "none"
	}
	var names []string
	for k := range i.calls {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for j, k := range names {
		parts[j] = fmt.Sprintf("%s %.2f", strings.ToUpper(k), float64(i.calls[k])/float64(requests))
	}
	return strings.Join(parts, " · ")
}
