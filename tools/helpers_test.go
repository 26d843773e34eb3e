package tools

import (
	"flag"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// datasetNow pins the simulated network's dates.
var datasetNow = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// liveNet is the real registry over a simulated Peppol network on loopback.
type liveNet struct {
	net *netsim.Network
	ds  *netsim.Dataset
	reg *registry.Live
}

func startNet(t testing.TB) *liveNet {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 11, Participants: 300, Now: datasetNow})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: time.Second, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.NewLive(registry.Config{
		Resolver:       res,
		SMP:            &smp.Client{HTTP: netguard.HTTPClient(true, 5*time.Second)},
		Directory:      &directory.Client{Base: n.DirectoryURL(), Timeout: 5 * time.Second},
		DirectoryRate:  1000,
		DirectoryBurst: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &liveNet{net: n, ds: ds, reg: reg}
}

// cardName returns the first name on id's business card, or "".
func (l *liveNet) cardName(id string) string {
	p := l.ds.MustLookup(id)
	if p == nil || p.Card == nil || len(p.Card.Entities) == 0 || len(p.Card.Entities[0].Names) == 0 {
		return ""
	}
	return p.Card.Entities[0].Names[0].Name
}
