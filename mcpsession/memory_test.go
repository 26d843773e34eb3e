package mcpsession_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mcpsession"
)

// TestMemoryOnlyMinted: the in-memory store accepts only ids it minted and that
// have not idled out or ended, keeps at most its maximum (forgetting the one idle
// longest), and refuses a terminated id as terminated.
func TestMemoryOnlyMinted(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := newMemory(time.Hour, 3, 3, clock, nil)
	if _, err := m.Validate("mcp-session-7f1d6a7e-1111-2222-3333-444455556666", false); err == nil {
		t.Error("a made-up, well-formed id was accepted")
	}
	var ids []string
	for range 4 {
		ids = append(ids, m.Generate(netip.Addr{}, false))
		now = now.Add(time.Minute)
	}
	if m.Size() != 3 {
		t.Errorf("%d sessions kept, want the maximum 3", m.Size())
	}
	if _, err := m.Validate(ids[0], false); err == nil {
		t.Error("the session idle longest was not the one forgotten")
	}
	for _, id := range ids[1:] {
		if term, err := m.Validate(id, false); err != nil || term {
			t.Errorf("%s: %v %v", id, term, err)
		}
	}
	m.Terminate(ids[1])
	if term, _ := m.Validate(ids[1], false); !term {
		t.Error("a terminated session is not reported terminated")
	}
	now = now.Add(2 * time.Hour)
	if _, err := m.Validate(ids[2], false); err == nil {
		t.Error("an idled-out session was accepted")
	}
}

// TestMemoryPerClientLRU: a client beyond its cap loses its own session used
// longest ago, not another client's; at the global cap the session used longest ago of
// all goes; a session in use moves to the front; every session forgotten is handed to
// forget (so that mcp-go forgets it too); the sweep forgets idled-out sessions and logs
// one summary line for all of them.
func TestMemoryPerClientLRU(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var forgot []string
	m := newMemory(time.Hour, 5, 2, func() time.Time { return now }, func(ids []string) { forgot = append(forgot, ids...) })
	a, b, c := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2"), netip.MustParseAddr("192.0.2.3")
	tick := func() { now = now.Add(time.Minute) }
	b1 := m.Generate(b, false)
	tick()
	a1 := m.Generate(a, false)
	tick()
	a2 := m.Generate(a, false)
	tick()
	if _, err := m.Validate(a1, false); err != nil { // a1 is now a's most recently used
		t.Fatal(err)
	}
	tick()
	a3 := m.Generate(a, false)
	if want := []string{a2}; !slices.Equal(forgot, want) {
		t.Errorf("client a beyond its cap of 2 forgot %v, want its session used longest ago %v", forgot, want)
	}
	for _, id := range []string{b1, a1, a3} {
		if _, err := m.Validate(id, false); err != nil {
			t.Errorf("%s was forgotten: %v", id, err)
		}
	}
	if m.ClientSize(a) != 2 || m.ClientSize(b) != 1 {
		t.Errorf("a holds %d, b %d, want 2 and 1", m.ClientSize(a), m.ClientSize(b))
	}
	tick()
	forgot = nil
	c1 := m.Generate(c, false)
	tick()
	c2 := m.Generate(c, false) // 5 live now: b1 a1 a3 c1 c2
	tick()
	if _, err := m.Validate(b1, false); err != nil {
		t.Fatal(err)
	}
	d := m.Generate(netip.MustParseAddr("192.0.2.4"), false)
	if want := []string{a1}; !slices.Equal(forgot, want) {
		t.Errorf("at the global cap %v was forgotten, want the session used longest ago of all %v", forgot, want)
	}
	if m.Size() != 5 {
		t.Errorf("%d live, want 5", m.Size())
	}
	// Last uses (minutes from the start): a3 4, c1 5, c2 6, b1 7, d 7.
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	start := now.Add(-7 * time.Minute)
	forgot = nil
	now = start.Add(time.Hour + 5*time.Minute + 30*time.Second)
	m.Sweep(log) // a3 and c1 idled out
	if want := []string{a3, c1}; !slices.Equal(forgot, want) {
		t.Errorf("the first sweep forgot %v, want %v", forgot, want)
	}
	now = now.Add(2 * time.Minute)
	m.Sweep(log) // c2, b1 and d idled out
	m.Sweep(log) // nothing left: no line
	if m.Size() != 0 || len(forgot) != 5 {
		t.Errorf("after the idle TTL: %d live, forgot %v", m.Size(), forgot)
	}
	for _, id := range []string{b1, a3, c1, c2, d} {
		if _, err := m.Validate(id, false); err == nil {
			t.Errorf("%s is still valid after idling out", id)
		}
	}
	type summary struct {
		Msg           string `json:"msg"`
		Idle          int    `json:"idle"`
		EvictedClient int    `json:"evicted_client_cap"`
		EvictedGlobal int    `json:"evicted_global_cap"`
		Live          int    `json:"live"`
	}
	var got []summary
	for l := range strings.Lines(logs.String()) {
		var rec summary
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		got = append(got, rec)
	}
	want := []summary{{"MCP sessions forgotten", 2, 1, 1, 3}, {"MCP sessions forgotten", 3, 0, 0, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("the sweeps logged %+v, want one summary line each (and none when nothing was forgotten): %+v\n%s", got, want, logs.String())
	}
}

// TestMemoryPerClientOne: with one session a client, every new session of the
// client forgets its previous one, each time (the client's list is not left detached
// when it empties).
func TestMemoryPerClientOne(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	m := newMemory(time.Hour, 100, 1, func() time.Time { return now }, nil)
	a := netip.MustParseAddr("192.0.2.1")
	prev := m.Generate(a, false)
	for i := range 6 {
		now = now.Add(time.Second)
		id := m.Generate(a, false)
		if _, err := m.Validate(prev, false); err == nil {
			t.Errorf("new session %d: the previous one is still live", i+2)
		}
		if m.ClientSize(a) != 1 || m.Size() != 1 {
			t.Fatalf("new session %d: the client holds %d, %d live in all; want 1 and 1", i+2, m.ClientSize(a), m.Size())
		}
		prev = id
	}
}

// newMemory is the in-memory store with the test's idle TTL, caps (an exempt
// client's being the same), clock and forget.
func newMemory(ttl time.Duration, max, perClient int, now func() time.Time, forget func(ids []string)) *mcpsession.Memory {
	return mcpsession.NewMemory(mcpsession.Options{TTL: ttl, Max: max, PerClient: perClient,
		ExemptPerClient: perClient, Now: now, Forget: forget})
}
