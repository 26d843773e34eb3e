package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// children tracks the child processes of a run so that every one is stopped on the
// way out, whatever path the run takes.
type children struct {
	mu   sync.Mutex
	live map[*child]struct{}
}

// child is one started process, in its own process group.
type child struct {
	name string
	// stopSig asks the child to stop (SIGTERM when zero); PostgreSQL's fast shutdown
	// is SIGINT.
	stopSig syscall.Signal
	cmd     *exec.Cmd
	done    chan struct{}
	err     error // set before done closes
}

// start starts cmd in its own process group, killed with the benchmark if it dies;
// its stdout and stderr go to out (nil: discarded).
func (cs *children) start(name string, cmd *exec.Cmd, out io.Writer) (*child, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	cs.mu.Lock()
	if cs.live == nil {
		cs.live = map[*child]struct{}{}
	}
	cs.live[c] = struct{}{}
	cs.mu.Unlock()
	go func() {
		c.err = cmd.Wait()
		cs.mu.Lock()
		delete(cs.live, c)
		cs.mu.Unlock()
		close(c.done)
	}()
	return c, nil
}

// wait waits for the child to exit, or stops it when ctx ends first.
func (c *child) wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		c.stop(c.signal(), 10*time.Second)
		return fmt.Errorf("%s: %w", c.name, context.Cause(ctx))
	}
}

// signal is the signal that asks the child to stop.
func (c *child) signal() syscall.Signal {
	if c.stopSig == 0 {
		return syscall.SIGTERM
	}
	return c.stopSig
}

// exited reports whether the child has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop sends sig to the child's process group, waits up to grace for the child to
// exit and then kills the group.
func (c *child) stop(sig syscall.Signal, grace time.Duration) {
	if c.exited() {
		return
	}
	pid := c.cmd.Process.Pid
	_ = syscall.Kill(-pid, sig)
	select {
	case <-c.done:
	case <-time.After(grace):
		fmt.Fprintf(os.Stderr, "bench-mirror: %s did not stop within %v of %v; killing it\n", c.name, grace, sig)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-c.done
}

// stopAll stops every child still running.
func (cs *children) stopAll() {
	cs.mu.Lock()
	var all []*child
	for c := range cs.live {
		all = append(all, c)
	}
	cs.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range all {
		wg.Go(func() { c.stop(c.signal(), 15*time.Second) })
	}
	wg.Wait()
}

// maxRSS is the child's peak resident set size in bytes, from its rusage.
func (c *child) maxRSS() (int64, error) {
	st := c.cmd.ProcessState
	if st == nil {
		return 0, errors.New(c.name + " has not exited")
	}
	ru, ok := st.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no rusage for " + c.name)
	}
	return ru.Maxrss * 1024, nil
}
