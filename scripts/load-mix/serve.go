package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/stack"
)

// serveStack runs peppolgate's stack on the demo network in this process, the way
// `peppolgate -network demo -addr 127.0.0.1:0` does, until stdin ends. It logs JSON to
// stderr like the binary, including the "listening" line with the address. Each line
// on stdin is a command, answered with one line on stdout:
//
//	fault smp <host> <status>              SMP host <host> answers <status> to everything
//	fault directory <status> <retry-after> the Directory answers <status> with Retry-After
//	clear                                  remove every fault
//	hits                                   the network's request counters as JSON
//
// The answer is "ok", the JSON, or "error: …". It returns an error when the stack
// cannot start.
func serveStack(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	stack.SetGC() // as the binary does
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sims, stopSims, err := stack.StartDemo(ctx, []string{registry.NetworkDemo}, log)
	if err != nil {
		return err
	}
	defer stopSims()
	n := sims[0].Sim
	// One Metrics for the registries (upstream calls, cache) and the server (requests).
	metrics := server.NewMetrics()
	st, err := stack.Build(stack.Config{Networks: sims, Now: sims[0].Sim.Now, Logger: log, Observer: metrics})
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	baseURL := "http://" + ln.Addr().String()
	// No per-client rate limits (zero RateLimit values), as the binary's run has them
	// off: one load generator is one client, and the run measures the service, not the
	// limiter.
	h, err := server.New(server.Config{Networks: st.Networks, Cache: st.CachePolicy(), BaseURL: baseURL, Logger: log, Version: "load-mix", Metrics: metrics})
	if err != nil {
		ln.Close()
		return err
	}
	defer h.Close()
	srv := stack.HTTPServer(h, log)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "base_url", baseURL, "network", "demo (in-stack, load-mix)")

	cmds := make(chan string)
	go func() {
		defer close(cmds)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			cmds <- sc.Text()
		}
	}()
	for {
		select {
		case err := <-serveErr:
			return fmt.Errorf("serving: %w", err)
		case line, ok := <-cmds:
			if !ok {
				sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				defer scancel()
				if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
					srv.Close()
				}
				return nil
			}
			fmt.Fprintln(stdout, control(n, line))
		}
	}
}

// control runs one command of serveStack's protocol on n and returns its answer line.
func control(n *netsim.Network, line string) string {
	f := strings.Fields(line)
	num := func(i int) (int, error) {
		if i >= len(f) {
			return 0, fmt.Errorf("%q needs %d arguments", line, i)
		}
		return strconv.Atoi(f[i])
	}
	switch {
	case len(f) == 1 && f[0] == "clear":
		n.ClearFaults()
		return "ok"
	case len(f) == 1 && f[0] == "hits":
		b, err := json.Marshal(n.Hits())
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	case len(f) == 4 && f[0] == "fault" && f[1] == "smp":
		host, err1 := num(2)
		status, err2 := num(3)
		if err := errors.Join(err1, err2); err != nil {
			return "error: " + err.Error()
		}
		n.SetFault(netsim.SMPHostTarget(host), netsim.Fault{HTTPStatus: status})
		return "ok"
	case len(f) == 4 && f[0] == "fault" && f[1] == "directory":
		status, err := num(2)
		if err != nil {
			return "error: " + err.Error()
		}
		n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: status, RetryAfter: f[3]})
		return "ok"
	}
	return fmt.Sprintf("error: unknown command %q", line)
}
