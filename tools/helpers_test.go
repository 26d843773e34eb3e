package tools

import (
	"flag"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// datasetNow pins the simulated network's dates.
var datasetNow = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// startNet starts the real registry over a simulated Peppol network of 300 participants.
func startNet(t testing.TB) *livenet.Net {
	t.Helper()
	return livenet.Start(t, netsim.DatasetConfig{Seed: 11, Participants: 300, Now: datasetNow})
}
