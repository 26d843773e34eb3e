package peppolnet

import (
	"context"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// testNow is the dataset's reference instant, so that generated data is reproducible.
var testNow = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)

// startNet starts a netsim network with participants participants on loopback; it is
// closed at the end of the test.
func startNet(tb testing.TB, participants int) *netsim.Network {
	tb.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: participants, Now: testNow})
	n, err := netsim.Start(context.Background(), ds, netsim.Config{})
	if err != nil {
		tb.Fatalf("netsim.Start: %v", err)
	}
	tb.Cleanup(func() { n.Close() })
	return n
}

// newLive returns a Registry over n; edit adjusts the config before New.
func newLive(tb testing.TB, n *netsim.Network, edit func(*Config)) (*Registry, *clock.Fake) {
	tb.Helper()
	res, err := sml.New(sml.Config{Servers: []string{n.DNSAddr()}, Zone: n.Zone(), Timeout: 500 * time.Millisecond, Attempts: 1})
	if err != nil {
		tb.Fatalf("sml.New: %v", err)
	}
	clock := clock.NewFake(testNow)
	anchors, err := n.Anchors()
	if err != nil {
		tb.Fatal(err)
	}
	cfg := Config{
		Anchors:        anchors,
		OCSP:           netguard.HTTPClient(true, 5*time.Second),
		Resolver:       res,
		SMP:            &smp.Client{HTTP: netguard.HTTPClient(true, 5*time.Second)},
		Directory:      &directory.Client{Base: n.DirectoryURL()},
		DirectoryRate:  1000,
		DirectoryBurst: 1000,
		DirectoryQueue: 1000,
		LookupTimeout:  5 * time.Second,
		Now:            clock.Now,
	}
	if edit != nil {
		edit(&cfg)
	}
	l, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return l, clock
}

func mustID(tb testing.TB, s string) peppol.ParticipantID {
	tb.Helper()
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		tb.Fatalf("ParseParticipantID(%q): %v", s, err)
	}
	return id
}

// hasWarning reports whether p carries a warning with code.
func hasWarning(p *registry.Participant, code string) bool {
	for _, w := range p.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

// smpHits sums the SMP hit counters over all hosts.
func smpHits(h netsim.HitCounts) (sg, sm int64) {
	for _, s := range h.SMP {
		sg += s.ServiceGroup
		sm += s.ServiceMetadata
	}
	return sg, sm
}
