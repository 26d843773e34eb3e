package server

import (
	"net/http"
	"runtime"
	"testing"

	"go.uber.org/goleak"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// The leak checks are per test, not a package-wide TestMain: other tests of the
// package may keep process-wide goroutines (http.DefaultTransport's idle
// connections, a validator's cache), and a TestMain check would blame whichever test
// ran last. A test that checks takes a snapshot of the goroutines before it starts
// anything (goroutinesBefore), runs its servers in subtests, whose cleanups stop them,
// then calls checkNoLeaks: a goroutine that is new and still there is a leak. Such a
// test must not run in parallel with others (no t.Parallel, and none of its own).

// goroutinesBefore snapshots the goroutines running now, for checkNoLeaks.
func goroutinesBefore() goleak.Option { return goleak.IgnoreCurrent() }

// checkNoLeaks fails t if goroutines started since before are still running. Idle
// keep-alive connections of the shared default client are closed first: they belong to
// the client, not to the server, and would otherwise wait for their idle timeout.
// goleak retries for a while, so goroutines that are already on their way out
// (connections closing after a server's Close) are not reported.
func checkNoLeaks(t *testing.T, before goleak.Option) {
	t.Helper()
	http.DefaultClient.CloseIdleConnections()
	if err := goleak.Find(before); err != nil {
		t.Errorf("goroutines leaked: %v", err)
	}
}

// oversizeAllocBound is how much one request may allocate while an upstream client
// with a body cap of limit bytes is sent 50 MiB. Without a Content-Length the client
// reads up to its cap with io.ReadAll, whose buffer grows by append (about 1.25× a
// step for large slices), so reaching the cap allocates about 2.3× the cap in all
// (measured: 4.7 MiB for the SMP client's 2 MiB); the race detector, under which make
// test runs, about doubles that (9.3 MiB). The rest of a request (DNS, JSON, the OpenAPI
// check of the answer) costs a few hundred KiB. So 5× the cap plus 1 MiB: well above
// what is measured, and still far below the 50 MiB that reading the body whole, or in
// proportion to its size, would cost.
func oversizeAllocBound(limit int64) uint64 { return uint64(5*limit + 1<<20) }

// TestOversizeBodyMemoryBounded measures, with runtime.MemStats.TotalAlloc (every byte
// allocated in the process, freed or not), what a lookup costs while its SMP answers
// 50 MiB, both with a Content-Length (refused before reading) and without one (read up
// to the client's cap). The Directory's 50 MiB answer to a search is measured too.
func TestOversizeBodyMemoryBounded(t *testing.T) {
	before := goroutinesBefore()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400, Now: datasetNow})
	const size = 50 << 20
	smpTarget := func(e *faultE2E) netsim.Target {
		return netsim.ParticipantTarget(e.ds.MustLookup(netsim.KnownSwedish).ID)
	}
	dirTarget := func(*faultE2E) netsim.Target { return netsim.DirectoryTarget() }
	tests := []struct {
		name   string
		opts   faultOptions
		target func(e *faultE2E) netsim.Target
		path   string
		code   registry.Code
		limit  int64 // the client's body cap
	}{
		{"smp, Content-Length", faultOptions{}, smpTarget, participantPath(netsim.KnownSwedish), registry.CodeLookupFailed, smp.DefaultMaxBody},
		{"smp, no Content-Length", faultOptions{hideLength: true}, smpTarget, participantPath(netsim.KnownSwedish), registry.CodeLookupFailed, smp.DefaultMaxBody},
		{"directory, Content-Length", faultOptions{}, dirTarget, "/api/v1/search?q=Globex", registry.CodeSearchFailed, directory.DefaultMaxBody},
		{"directory, no Content-Length", faultOptions{hideLength: true}, dirTarget, "/api/v1/search?q=Globex", registry.CodeSearchFailed, directory.DefaultMaxBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startFaultE2E(t, ds, tt.opts)
			// A first request warms what is set up once (connections, the validator,
			// lazily built tables), so that the measured one costs only itself.
			if r := e.send(t.Context(), "GET", participantPath(netsim.KnownGLN), ""); r.err != nil || r.status != 200 {
				t.Fatalf("warming: %d %v", r.status, r.err)
			}
			e.net.SetFault(tt.target(e), netsim.Fault{OversizeBody: size})
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			r := e.send(t.Context(), "GET", tt.path, "")
			runtime.ReadMemStats(&m1)
			if r.err != nil || r.status != 502 || describeAnswer(r) != string(tt.code) {
				t.Fatalf("%d %s %v, want 502 %s", r.status, r.body, r.err, tt.code)
			}
			alloc := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("allocated %.2f MiB for a %d MiB upstream body", float64(alloc)/(1<<20), size>>20)
			if bound := oversizeAllocBound(tt.limit); alloc > bound {
				t.Errorf("allocated %d bytes while upstream sent %d; want at most %d", alloc, size, bound)
			}
		})
	}
	checkNoLeaks(t, before)
}
