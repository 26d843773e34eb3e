package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

// startTimeout bounds how long a target may take to log its "listening" line.
const startTimeout = 60 * time.Second

// target is a peppolgate process under load: the binary, or this program's in-stack
// server (serveStack) whose simulated network takes fault commands.
type target struct {
	name    string
	base    string // http://127.0.0.1:port
	cmd     *exec.Cmd
	logPath string
	// ctl talks to an in-stack target; nil for the binary.
	ctl *controller
	// exited is closed when the process has exited, waitErr then holds Wait's result.
	exited  chan struct{}
	waitErr error
}

// startBinary starts `bin -network demo -addr 127.0.0.1:0 args…` with its JSON logs in
// dir. It returns an error when the binary does not start or log its address in time.
func startBinary(ctx context.Context, bin string, args []string, dir string) (*target, error) {
	cmd := exec.Command(bin, append([]string{"-network", "demo", "-addr", "127.0.0.1:0"}, args...)...)
	// The demo banner names the address too ("serving http://…"), for a -log-level
	// that hides the "listening" line.
	banner, err := os.Create(filepath.Join(dir, "binary.stdout"))
	if err != nil {
		return nil, err
	}
	defer banner.Close()
	cmd.Stdout = banner
	return start(ctx, "binary", cmd, dir, false)
}

// startStack starts this program with -serve: serveStack in a child process, so that
// the report can split CPU between server and generator and their garbage collectors
// do not share a heap.
func startStack(ctx context.Context, dir string) (*target, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to start the in-stack server: %w", err)
	}
	return start(ctx, "in-stack", exec.Command(self, "-serve"), dir, true)
}

func start(ctx context.Context, name string, cmd *exec.Cmd, dir string, control bool) (*target, error) {
	t := &target{name: name, cmd: cmd, logPath: filepath.Join(dir, name+".log"), exited: make(chan struct{})}
	logf, err := os.Create(t.logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor
	cmd.Stderr = logf
	cmd.Env = os.Environ()
	if control {
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		t.ctl = &controller{in: in, out: bufio.NewReader(out)}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		t.waitErr = cmd.Wait()
		close(t.exited)
	}()
	addr, err := waitListening(ctx, t, t.exited)
	if err != nil {
		t.kill()
		return nil, fmt.Errorf("%s: %w (log: %s)", name, err, t.logPath)
	}
	t.base = "http://" + addr
	return t, nil
}

// waitListening polls t's JSON log for the "listening" line and returns its
// addr, or an error when the process exits or startTimeout passes first.
func waitListening(ctx context.Context, t *target, exited <-chan struct{}) (string, error) {
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(t.logPath)
		if err != nil {
			return "", err
		}
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "listening" && rec.Addr != "" {
				return rec.Addr, nil
			}
		}
		if b, err := os.ReadFile(strings.TrimSuffix(t.logPath, ".log") + ".stdout"); err == nil {
			for line := range strings.SplitSeq(string(b), "\n") {
				if addr, ok := strings.CutPrefix(line, "serving http://"); ok && addr != "" {
					return addr, nil
				}
			}
		}
		select {
		case <-exited:
			return "", fmt.Errorf("exited before listening: %v", t.waitErr)
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return "", fmt.Errorf("no \"listening\" log line within %v", startTimeout)
}

// pid returns the target's process id.
func (t *target) pid() int { return t.cmd.Process.Pid }

// stop ends the target gracefully (SIGTERM, or end of stdin for the in-stack one) and
// kills it when it has not exited after 25 s.
func (t *target) stop() {
	if t.ctl != nil {
		t.ctl.in.Close()
	} else {
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-t.exited:
	case <-time.After(25 * time.Second):
		t.kill()
		<-t.exited
	}
}

func (t *target) kill() { _ = t.cmd.Process.Kill() }

// logLevels counts the target's log lines by level ("INFO", "WARN", "ERROR").
func (t *target) logLevels() map[string]int {
	out := map[string]int{}
	f, err := os.Open(t.logPath)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.Index(line, []byte(`"level":"`))
		if i < 0 {
			continue
		}
		rest := line[i+len(`"level":"`):]
		if j := bytes.IndexByte(rest, '"'); j > 0 {
			out[string(rest[:j])]++
		}
	}
	return out
}

// controller sends serveStack's commands and reads their answers.
type controller struct {
	mu  sync.Mutex
	in  io.WriteCloser
	out *bufio.Reader
}

// do sends one command and returns its answer; an "error: …" answer is an error.
func (c *controller) do(cmd string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := io.WriteString(c.in, cmd+"\n"); err != nil {
		return "", err
	}
	line, err := c.out.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return "", errors.New(msg)
	}
	return line, nil
}

// hits returns the simulated network's request counters.
func (c *controller) hits() (netsim.HitCounts, error) {
	var h netsim.HitCounts
	s, err := c.do("hits")
	if err != nil {
		return h, err
	}
	return h, json.Unmarshal([]byte(s), &h)
}
