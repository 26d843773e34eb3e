package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
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
		return nil, fmt.Errorf("%s not found (make redis-server installs Debian's): %w", bin, err)
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
	raw, err := s.admin.Info(ctx, "cpu", "stats", "commandstats").Result()
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

// redisInfo is what Redis counted (INFO cpu, stats and commandstats): its CPU time,
// the bytes it read and wrote on the network, and the commands it ran (lower case;
// subcommands as "config|resetstat"), those a script runs included; and, in a delta
// made by bench.counted, the commands the replicas sent (sentCounter).
type redisInfo struct {
	calls             counts
	sent              counts
	trips             int64   // in a delta: round trips the replicas made
	trouble           trouble // in a delta: what the replicas' fleets counted
	cpu               float64 // seconds, system and user
	inBytes, outBytes int64
}

// parseInfo reads an INFO reply holding the cpu, stats and commandstats sections. It
// returns an error when the reply has no network byte counts.
func parseInfo(raw string) (redisInfo, error) {
	in := redisInfo{calls: counts{}, inBytes: -1, outBytes: -1}
	for line := range strings.SplitSeq(raw, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch {
		case name == "total_net_input_bytes":
			in.inBytes, _ = strconv.ParseInt(rest, 10, 64)
		case name == "total_net_output_bytes":
			in.outBytes, _ = strconv.ParseInt(rest, 10, 64)
		case name == "used_cpu_sys" || name == "used_cpu_user":
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				return in, fmt.Errorf("INFO cpu: %q", line)
			}
			in.cpu += v
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
	d := redisInfo{calls: i.calls.sub(before.calls), cpu: i.cpu - before.cpu,
		inBytes: i.inBytes - before.inBytes, outBytes: i.outBytes - before.outBytes - beforeReply}
	for k := range d.calls {
		if ownCommand(k) {
			delete(d.calls, k)
		}
	}
	return d
}

// counts are Redis commands by name.
type counts map[string]int64

// sub returns c less before, leaving out the commands that did not grow.
func (c counts) sub(before counts) counts {
	d := counts{}
	for k, v := range c {
		if n := v - before[k]; n > 0 {
			d[k] = n
		}
	}
	return d
}

// total returns the number of commands.
func (c counts) total() int64 {
	var n int64
	for _, v := range c {
		n += v
	}
	return n
}

// perRequest lists the commands per request, by name: "EVALSHA 1.00 · GET 0.25";
// "none" when there were none.
func (c counts) perRequest(requests int) string {
	if requests == 0 || len(c) == 0 {
		return "none"
	}
	var names []string
	for k := range c {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for j, k := range names {
		parts[j] = fmt.Sprintf("%s %.2f", strings.ToUpper(k), float64(c[k])/float64(requests))
	}
	return strings.Join(parts, " · ")
}

// sentCounter is a go-redis hook counting the commands a client sends, by name: a
// script's EVALSHA is one, whatever it runs inside Redis (which INFO commandstats
// counts too). Install it on every replica's fleet client. Safe for concurrent use.
type sentCounter struct {
	mu    sync.Mutex
	n     counts
	trips int64 // round trips: a command, or a whole pipeline or transaction
}

func (c *sentCounter) add(cmds ...redis.Cmder) {
	c.mu.Lock()
	if c.n == nil {
		c.n = counts{}
	}
	for _, cmd := range cmds {
		c.n[cmd.Name()]++
	}
	c.trips++
	c.mu.Unlock()
}

// snapshot returns the commands and round trips so far.
func (c *sentCounter) snapshot() (counts, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n), c.trips
}

// DialHook counts nothing.
func (c *sentCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook counts one command.
func (c *sentCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook counts each command of a pipeline (or transaction, MULTI and
// EXEC included), and one round trip.
func (c *sentCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.add(cmds...)
		return next(ctx, cmds)
	}
}
