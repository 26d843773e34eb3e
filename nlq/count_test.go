package nlq

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppolnet"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// TestAskCountByCountry counts a country's participants in Norwegian, from the live
// Directory (netsim, which counts business entities as the real one does) and from a
// mirror built from the same Directory's export (which counts cards exactly); both
// must equal the count the dataset itself gives.
func TestAskCountByCountry(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	cards, entities := 0, 0
	for _, p := range n.DS.Participants {
		if p.Card == nil {
			continue
		}
		in := 0
		for _, e := range p.Card.Entities {
			if e.CountryCode == "NO" {
				in++
			}
		}
		if in > 0 {
			cards++
			entities += in
		}
	}
	if cards == 0 {
		t.Fatal("the dataset has no Norwegian card; the test proves nothing")
	}
	mirrored := startMirrored(t, n)
	for _, tt := range []struct {
		name string
		reg  registry.Registry
		want int
	}{
		{"live Directory", n.Reg, entities},
		{"mirror", mirrored, cards},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(Config{Registry: tt.reg, Planner: RulePlanner{}, BaseURL: "https://peppolgate.test", Version: "t"})
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.Ask(t.Context(), "Hvor mange norske selskaper er på Peppol?", nil)
			if err != nil {
				t.Fatal(err)
			}
			// With a mirror the statistics count the country (issue 29), else the live
			// Directory's search.
			counted := len(a.Calls) == 1 && (a.Calls[0].Tool == ruleToolStats) == (tt.name == "mirror") &&
				(a.Calls[0].Tool == ruleToolStats || a.Calls[0].Arguments["country"] == "NO")
			if a.Intent != IntentCount || a.Meta.Language != LangNorwegian || !counted {
				t.Errorf("intent %s language %s calls %v", a.Intent, a.Meta.Language, a.Calls)
			}
			if !strings.Contains(a.Answer, strconv.Itoa(tt.want)+" ") || !strings.Contains(a.Answer, "NO") {
				t.Errorf("answer %q; want the count %d", a.Answer, tt.want)
			}
		})
	}
}

// startMirrored returns a registry whose Directory half is a mirror built from n's
// Directory export; the live Directory it would fall back to is a closed port.
func startMirrored(t *testing.T, n *livenet.Net) *peppolnet.Registry {
	t.Helper()
	st, err := stack.Build(stack.Config{
		Networks:    []stack.Network{{Sim: n.Net, DirectoryURL: "http://127.0.0.1:1", DirectoryRate: 1000, DirectoryBurst: 1000}},
		MirrorPath:  livenet.BuildMirror(t, n.Net),
		SMLTimeout:  time.Second,
		SMLAttempts: 1,
		// However old the export, the mirror answers.
		MirrorMaxAge: 100000 * time.Hour, MirrorHardMaxAge: 100000 * time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	mirrored := st.Default()
	return mirrored
}

// TestAskTypoMirror: with a mirror, a name typed with a letter missing is found by the
// mirror's own typo tolerance in one search; the answer says the match is approximate
// and ranks the closest name first.
func TestAskTypoMirror(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e, err := New(Config{Registry: startMirrored(t, n), Planner: RulePlanner{}, BaseURL: "https://peppolgate.test", Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	be := n.Name(netsim.KnownBelgian)
	words := strings.Fields(be)
	typo := strings.Replace(be, words[0], words[0][:len(words[0])-2]+words[0][len(words[0])-1:], 1)
	a, err := e.Ask(t.Context(), "find "+typo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Approximate || len(a.Calls) != 1 || len(a.Results) == 0 || a.Results[0].Name != be || !strings.Contains(a.Answer, "approximate") {
		t.Errorf("typo %q: approximate %v, calls %v, results %+v, answer %s", typo, a.Approximate, a.Calls, a.Results, a.Answer)
	}
	// Spelt right, nothing is approximate.
	if a, err := e.Ask(t.Context(), "find "+be, nil); err != nil || a.Approximate || len(a.Results) == 0 || a.Results[0].Name != be {
		t.Errorf("exact name: %v %+v", err, a)
	}
}
