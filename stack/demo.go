package stack

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
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

// StartDemo starts on 127.0.0.1 the simulated networks of the demo named by names:
// demo (DemoDataset) and test (netsim's test network, a second one offered per
// request). It returns them as Networks, in the order of names, and the function
// that stops them; they run until then, whatever happens to ctx's cancellation, so
// that requests in flight at shutdown still get answers. It returns an error for
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
		n, err := netsim.Start(context.WithoutCancel(ctx), ds, netsim.Config{Logger: nlog.With("component", "netsim")})
		if err != nil {
			stop()
			if name == registry.NetworkDemo {
				return nil, nil, fmt.Errorf("starting the demo network: %w", err)
			}
			return nil, nil, fmt.Errorf("starting the demo's %s network: %w", name, err)
		}
		stops = append(stops, func() { n.Close() })
		nets = append(nets, Network{Name: name, Sim: n, DirectoryRate: DemoDirectoryRate})
	}
	return nets, stop, nil
}
