package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/stack"
)

// replica is one peppolgate replica in this process: its own stack (registries,
// caches, breakers, limiters) and server over the shared simulated network, its own
// *fleet.Fleet on the shared Redis (nil without), served on a loopback port.
type replica struct {
	fleet *fleet.Fleet
	st    *stack.Stack
	h     *server.Server
	srv   *http.Server
	base  string
	done  chan error
}

// replicaConfig is what every replica of one configuration shares.
type replicaConfig struct {
	nets     []stack.Network
	redisURL string // "" for none
	prefix   string
	limits   bool // a client rate limit on every API request, too high to refuse any
	log      *slog.Logger
	hook     redis.Hook // counts what each replica sends to Redis
}

// startReplicas starts n replicas of cfg. It returns an error when one cannot be
// built or cannot listen; those already started are closed.
func startReplicas(n int, cfg replicaConfig) ([]*replica, error) {
	var reps []*replica
	for i := range n {
		r, err := startReplica(i, cfg)
		if err != nil {
			closeReplicas(reps)
			return nil, fmt.Errorf("replica %d: %w", i+1, err)
		}
		reps = append(reps, r)
	}
	return reps, nil
}

func startReplica(i int, cfg replicaConfig) (*replica, error) {
	log := cfg.log.With("replica", i+1)
	r := &replica{done: make(chan error, 1)}
	if cfg.redisURL != "" {
		f, err := fleet.Open(fleet.Options{URL: cfg.redisURL, Prefix: cfg.prefix, Logger: log})
		if err != nil {
			return nil, err
		}
		if !f.Up() {
			f.Close()
			return nil, fmt.Errorf("redis at %s does not answer", fleet.Redact(cfg.redisURL))
		}
		if cfg.hook != nil {
			f.Client().AddHook(cfg.hook)
		}
		r.fleet = f
	}
	metrics := server.NewMetrics()
	st, err := stack.Build(stack.Config{Networks: cfg.nets, Now: cfg.nets[0].Sim.Now, Logger: log, Observer: metrics, Fleet: r.fleet})
	if err != nil {
		r.fleet.Close()
		return nil, err
	}
	r.st = st
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.close()
		return nil, err
	}
	r.base = "http://" + ln.Addr().String()
	scfg := server.Config{Networks: st.Networks, Cache: st.CachePolicy(), BaseURL: r.base, Logger: log,
		Version: "bench-fleet", Metrics: metrics, Fleet: r.fleet}
	if cfg.limits {
		// The limiter decides on every request (and, with Redis, asks it), but never
		// refuses: the benchmark measures the work, not the refusals.
		scfg.RateLimit = server.RateLimit{Rate: 1e6, Burst: 1e6}
		scfg.MCPRateLimit = scfg.RateLimit
	}
	h, err := server.New(scfg)
	if err != nil {
		ln.Close()
		r.close()
		return nil, err
	}
	r.h = h
	r.srv = stack.HTTPServer(h, log)
	go func() { r.done <- r.srv.Serve(ln) }()
	return r, nil
}

// close stops serving and closes the replica's server, stack and fleet.
func (r *replica) close() {
	if r.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := r.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.srv.Close()
		}
		cancel()
	}
	if r.h != nil {
		r.h.Close()
	}
	if r.st != nil {
		r.st.Close()
	}
	r.fleet.Close()
}

func closeReplicas(reps []*replica) {
	for _, r := range reps {
		r.close()
	}
}
