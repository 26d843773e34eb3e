// Package livenet starts, for tests, the real registry over a simulated Peppol network
// on loopback: netsim's DNS, SMP and Directory servers and the stack over them
// (stack.Build: the real sml/smp/directory clients and peppolnet.Registry), and a Directory
// mirror built from its export. It is for tests of the packages above the registry
// (tools, nlq) and the registry's external tests, and for the benchmark scripts.
package livenet

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/stack"
)

// Net is a running simulated network and the registry over it.
type Net struct {
	Net *netsim.Network
	DS  *netsim.Dataset
	Reg *peppolnet.Registry
}

// Start generates the dataset of cfg, starts netsim on it and returns the registry over
// it as stack.Build builds it, with the Directory rate limit out of the way (the
// limiter is the registry's own business). Everything stops when the test ends; a
// failure to start fails the test.
func Start(t testing.TB, cfg netsim.DatasetConfig) *Net {
	t.Helper()
	return start(t, cfg, false)
}

// StartWithMirror is Start with a Directory mirror built from the network's export
// (BuildMirror) answering for the registry, as -mirror does.
func StartWithMirror(t testing.TB, cfg netsim.DatasetConfig) *Net {
	t.Helper()
	return start(t, cfg, true)
}

func start(t testing.TB, cfg netsim.DatasetConfig, withMirror bool) *Net {
	t.Helper()
	ds := netsim.Generate(cfg)
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	// The registry reads validity dates (certificates, services) at the dataset's
	// instant, moving on from it at the real pace, so that a dataset pinned to a date
	// gives the same warnings on any day.
	mirrorPath := ""
	if withMirror {
		mirrorPath = BuildMirror(t, n)
	}
	start := time.Now()
	st, err := stack.Build(stack.Config{
		MirrorPath:  mirrorPath,
		Networks:    []stack.Network{{Sim: n, DirectoryRate: 1000, DirectoryBurst: 1000}},
		SMLTimeout:  time.Second,
		SMLAttempts: 1,
		Now:         func() time.Time { return ds.Now.Add(time.Since(start)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return &Net{Net: n, DS: ds, Reg: st.Default()}
}

// Name returns the first name on id's business card, or "" when it has none.
func (n *Net) Name(id string) string { return n.DS.CardName(id) }

// BuildMirror downloads the business-card export of n's Directory and builds a mirror
// index from it in a temporary folder, as 'peppolgate mirror import' does; it returns
// the index file. A failure fails the test.
func BuildMirror(t testing.TB, n *netsim.Network) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mirror.db")
	if _, err := ImportExport(t.Context(), n, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// ImportExport downloads the business-card export of n's Directory and builds a mirror
// index at path from it, as 'peppolgate mirror import' does; it returns how many cards
// the index holds. It returns the errors of the download and of mirror.Build.
func ImportExport(ctx context.Context, n *netsim.Network, path string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.DirectoryURL()+"/export/businesscards", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("the Directory's export: HTTP %d", resp.StatusCode)
	}
	dec, err := export.NewDecoder(resp.Body)
	if err != nil {
		return 0, err
	}
	stats, err := mirror.Build(ctx, path, dec, mirror.BuildOptions{})
	if err != nil {
		return 0, err
	}
	return int64(stats.Cards), nil
}
