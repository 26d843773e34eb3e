// Package livenet starts, for tests, the real registry over a simulated Peppol network
// on loopback: netsim's DNS, SMP and Directory servers, the real sml/smp/directory
// clients and registry.Live, and a Directory mirror built from its export. It is for
// tests of the packages above the registry (tools, nlq) and the registry's external
// tests.
package livenet

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// Net is a running simulated network and the registry over it.
type Net struct {
	Net *netsim.Network
	DS  *netsim.Dataset
	Reg *registry.Live
}

// Start generates the dataset of cfg, starts netsim on it and returns the registry over
// it, with the Directory rate limit out of the way (the limiter is the registry's own
// business). Everything stops when the test ends; a failure to start fails the test.
func Start(t testing.TB, cfg netsim.DatasetConfig) *Net {
	t.Helper()
	ds := netsim.Generate(cfg)
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: time.Second, Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The registry reads validity dates (certificates, services) at the dataset's
	// instant, moving on from it at the real pace, so that a dataset pinned to a date
	// gives the same warnings on any day.
	start := time.Now()
	now := func() time.Time { return ds.Now.Add(time.Since(start)) }
	reg, err := registry.NewLive(registry.Config{
		Now:            now,
		Resolver:       res,
		SMP:            &smp.Client{HTTP: netguard.HTTPClient(true, 5*time.Second)},
		Directory:      &directory.Client{Base: n.DirectoryURL(), Timeout: 5 * time.Second},
		DirectoryRate:  1000,
		DirectoryBurst: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &Net{Net: n, DS: ds, Reg: reg}
}

// Name returns the first name on id's business card, or "" when it has none.
func (n *Net) Name(id string) string {
	p := n.DS.MustLookup(id)
	if p == nil || p.Card == nil || len(p.Card.Entities) == 0 || len(p.Card.Entities[0].Names) == 0 {
		return ""
	}
	return p.Card.Entities[0].Names[0].Name
}

// BuildMirror downloads the business-card export of n's Directory and builds a mirror
// index from it in a temporary folder, as 'peppolgate mirror import' does; it returns
// the index file. A failure fails the test.
func BuildMirror(t testing.TB, n *netsim.Network) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mirror.db")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, n.DirectoryURL()+"/export/businesscards", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec, err := export.NewDecoder(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mirror.Build(t.Context(), path, dec, mirror.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	return path
}
