package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
)

// TestParticipantServedFromMemo: a participant page whose answers are cached is served
// from the memo, not rendered again (the memo's copy is marked to tell). That a page
// for another network is not served another's is server.TestParticipantPageMemo's.
func TestParticipantServedFromMemo(t *testing.T) {
	t.Parallel()
	ln := livenet.Start(t, netsim.DatasetConfig{Seed: 1, Participants: 50})
	nets := registry.One(ln.Reg)
	eng, err := nlq.New(nlq.Config{Registry: nets, Planner: nlq.RulePlanner{}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Networks: nets, Asker: eng, BaseURL: "http://peppolgate.test"})
	if err != nil {
		t.Fatal(err)
	}
	get := func(target string) string {
		t.Helper()
		w := httptest.NewRecorder()
		if err := p.Participant(w, httptest.NewRequest(http.MethodGet, target, nil)); err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if w.Code != http.StatusOK {
			t.Fatalf("%s: status %d", target, w.Code)
		}
		return w.Body.String()
	}
	path := "/participant/" + netsim.KnownCertValid
	first := get(path)
	if len(p.memo.pages) != 1 {
		t.Fatalf("%d pages kept after the first view, want 1", len(p.memo.pages))
	}
	for k := range p.memo.pages {
		p.memo.pages[k] = []byte("kept")
	}
	if got := get(path); got != "kept" {
		t.Errorf("the second view was rendered again (%d bytes), not served from the memo", len(got))
	}
	if got := get(path + "?network="); got != "kept" {
		t.Errorf("an empty network is the same page; rendered again (%d bytes)", len(got))
	}
	if first == "kept" {
		t.Fatal("the first view came from the memo")
	}
}

// BenchmarkParticipantRender: the participant page from cached answers, without HTTP:
// kept (served from the memo) and rendered (the memo emptied before each).
func BenchmarkParticipantRender(b *testing.B) {
	ln := livenet.Start(b, netsim.DatasetConfig{Seed: 1, Participants: 50})
	nets := registry.One(ln.Reg)
	eng, err := nlq.New(nlq.Config{Registry: nets, Planner: nlq.RulePlanner{}})
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Config{Networks: nets, Asker: eng, BaseURL: "http://peppolgate.test"})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/participant/"+netsim.KnownCertValid, nil)
	serve := func(b *testing.B) {
		w := httptest.NewRecorder()
		if err := p.Participant(w, req); err != nil || w.Code != http.StatusOK {
			b.Fatalf("%d %v", w.Code, err)
		}
	}
	for _, c := range []struct {
		name   string
		forget bool
	}{{"kept", false}, {"rendered", true}} {
		b.Run(c.name, func(b *testing.B) {
			serve(b) // the registry's caches warm
			b.ReportAllocs()
			for b.Loop() {
				if c.forget {
					p.memo.mu.Lock()
					clear(p.memo.pages) // kept allocated, as it is between resets
					p.memo.mu.Unlock()
				}
				serve(b)
			}
		})
	}
}
