package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// The demo network is the same every run and every day, so the README's examples stay
// true: a fixed seed, and validity and registration dates drawn around a fixed day
// rather than today.
const (
	DemoSeed         = 1
	DemoParticipants = 3000
	// DemoDirectoryRate is the limit towards the simulated Directory, which has none
	// of its own: keeping the real one's would only make the demo's first searches
	// slow.
	DemoDirectoryRate = 100
	// DemoDirectoryQueue is how many Directory requests may wait for the demo's
	// limiter: at DemoDirectoryRate the queue clears within 2.6 s, so every lookup of
	// a bulk check (a lane of 8 per SMP host) gets its business card, as a real
	// network's check does with a mirror, instead of a Directory warning that depends
	// on timing.
	DemoDirectoryQueue = 256
)

// DemoNow returns the reference day of the demo dataset's dates.
func DemoNow() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }

// DemoClock returns the clock of the demo's registries: DemoNow when it is called,
// moving on at the real pace, so that the certificates and service dates built to
// trigger warnings (netsim's showcase participants) give those warnings on any day.
func DemoClock() func() time.Time {
	start, now := time.Now(), DemoNow()
	return func() time.Time { return now.Add(time.Since(start)) }
}

// DemoDataset returns the dataset of the simulated network of -network demo.
func DemoDataset() *netsim.Dataset {
	return netsim.Generate(netsim.DatasetConfig{Seed: DemoSeed, Participants: DemoParticipants, Now: DemoNow()})
}

// DemoFailingSMP returns the demo participants whose SML records point to an SMP host
// that answers every request 503 Service Unavailable, so that the demo shows what a
// lookup on a failing SMP gives (lookup_failed, retryable). They are ordinary
// generated companies, each with one identifier, a Directory card and no other role
// in the demo; their Directory cards are served as usual.
func DemoFailingSMP() []string {
	return []string{"0208:1085544222", "0007:5583718357", "0106:49639162", "9930:de383868473", "0192:816142482"}
}

// failingSMPBody is what the demo's failing SMP host answers.
const failingSMPBody = "503 Service Unavailable: this SMP is failing (a simulated outage of the demo network)\n"

// startFailingSMP starts on 127.0.0.1 the demo's failing SMP host, answering every
// request 503, and points the SML records of DemoFailingSMP at it. It returns the
// function that stops the host.
func startFailingSMP(n *netsim.Network, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the demo's failing SMP host: %w", err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(failingSMPBody))
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("the demo's failing SMP host stopped", "err", err)
		}
	}()
	base := "http://" + ln.Addr().String() + "/"
	for _, s := range DemoFailingSMP() {
		id, err := peppol.ParseParticipantID(s)
		if err != nil {
			srv.Close()
			return nil, fmt.Errorf("the demo's failing SMP participant %q: %w", s, err)
		}
		n.SetNAPTR(id, base)
	}
	return func() { srv.Close() }, nil
}

// StartDemo starts on 127.0.0.1 the simulated networks of the demo named by names:
// demo (DemoDataset, with the failing SMP host of DemoFailingSMP) and test (netsim's test network, a second one offered per
// request). It returns them as Networks, in the order of names, and the function
// that stops them; they run until then, whatever happens to ctx's cancellation, so
// that requests in flight at shutdown still get answers. The networks run on one
// DemoClock, which a stack built over them must use as its Config.Now (their Sim.Now):
// one demo, one "now". It returns an error for
// another name or when a network cannot start.
func StartDemo(ctx context.Context, names []string, log *slog.Logger) ([]Network, func(), error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var nets []Network
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	// One clock for every network of the demo; the registries read it too
	// (Network.Sim.Now), so that the Directory's export, its statistics and the
	// lookups' warnings all share the demo's day.
	clock := DemoClock()
	for _, name := range names {
		var ds *netsim.Dataset
		switch name {
		case registry.NetworkDemo:
			ds = DemoDataset()
		case registry.NetworkTest:
			ds = netsim.Generate(netsim.DatasetConfig{Seed: DemoSeed, Network: netsim.NetworkTest, Now: DemoNow()})
		default:
			stop()
			return nil, nil, fmt.Errorf("the demo simulates the networks demo and test, not %q", name)
		}
		nlog := log
		if name != registry.NetworkDemo {
			nlog = log.With("network", name)
		}
		n, err := netsim.Start(context.WithoutCancel(ctx), ds, netsim.Config{Logger: nlog.With("component", "netsim"), Now: clock})
		if err != nil {
			stop()
			if name == registry.NetworkDemo {
				return nil, nil, fmt.Errorf("starting the demo network: %w", err)
			}
			return nil, nil, fmt.Errorf("starting the demo's %s network: %w", name, err)
		}
		stops = append(stops, func() { n.Close() })
		if name == registry.NetworkDemo {
			stopSMP, err := startFailingSMP(n, nlog.With("component", "failing-smp"))
			if err != nil {
				stop()
				return nil, nil, err
			}
			stops = append(stops, stopSMP)
		}
		nets = append(nets, Network{Name: name, Sim: n, DirectoryRate: DemoDirectoryRate, DirectoryQueue: DemoDirectoryQueue})
	}
	return nets, stop, nil
}
