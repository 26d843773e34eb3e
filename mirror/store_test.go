package mirror

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

func TestOpenIndexErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenIndex(filepath.Join(dir, "missing.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: err = %v", err)
	}
	text := filepath.Join(dir, "text.db")
	os.WriteFile(text, []byte("this is not an SQLite file, it is long enough to have a header of its own………………………………"), 0o644)
	if _, err := OpenIndex(text); !errors.Is(err, ErrNotIndex) {
		t.Errorf("text file: err = %v", err)
	}
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	if _, err := OpenIndex(empty); !errors.Is(err, ErrNotIndex) {
		t.Errorf("empty file: err = %v", err)
	}
}

func TestStoreMissingThenReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "directory.db")
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Search(ctx, "bygg", "", 25); !errors.Is(err, registry.ErrMirrorUnavailable) {
		t.Errorf("Search on empty store: %v", err)
	}
	if _, err := s.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "815344782"}); !errors.Is(err, registry.ErrMirrorUnavailable) {
		t.Errorf("Card on empty store: %v", err)
	}
	if !s.DataAsOf().IsZero() {
		t.Error("DataAsOf not zero")
	}
	if _, ok := s.Meta(); ok {
		t.Error("Meta ok on empty store")
	}
	if _, err := Build(ctx, path, &sliceSource{hdr: export.Header{Created: testCreated}, cards: []*export.Card{card("0192:815344782", "Bygg og Hold AS", "NO")}}, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Reload(); !changed || err != nil {
		t.Fatalf("Reload = %v, %v", changed, err)
	}
	if changed, err := s.Reload(); changed || err != nil {
		t.Fatalf("second Reload = %v, %v", changed, err)
	}
	if !s.DataAsOf().Equal(testCreated) {
		t.Errorf("DataAsOf = %v", s.DataAsOf())
	}
	rec, err := s.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "815344782"})
	if err != nil || rec == nil || rec.Name != "Bygg og Hold AS" {
		t.Errorf("Card = %+v, %v", rec, err)
	}
	if rec, err := s.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "1"}); rec != nil || err != nil {
		t.Errorf("absent Card = %+v, %v", rec, err)
	}
}

func TestStoreRejectsNonIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "directory.db")
	os.WriteFile(path, []byte("not an index"), 0o644)
	if _, err := OpenStore(path, nil); !errors.Is(err, ErrNotIndex) {
		t.Errorf("OpenStore = %v", err)
	}
}

// TestStoreSwapUnderLoad rebuilds and reloads the index while searches run: no search
// may see an error, and each sees one whole index (generation A or B).
func TestStoreSwapUnderLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "directory.db")
	gen := func(name string) *sliceSource {
		return &sliceSource{cards: []*export.Card{card("0192:815344782", name+" Bygg AS", "NO"), card("0192:815344783", name+" Hold AS", "NO")}}
	}
	ctx := context.Background()
	if _, err := Build(ctx, path, gen("Alfa"), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var searches atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res, err := s.Search(ctx, "bygg", "", 25)
				if err != nil {
					t.Errorf("Search during swap: %v", err)
					return
				}
				if res.TotalCount != 1 || len(res.Results) != 1 {
					t.Errorf("Search during swap: %+v", res)
					return
				}
				if _, err := s.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "815344783"}); err != nil {
					t.Errorf("Card during swap: %v", err)
					return
				}
				searches.Add(1)
			}
		}()
	}
	names := []string{"Gamma", "Alfa", "Beta"}
	for _, n := range names {
		if _, err := Build(ctx, path, gen(n), BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if changed, err := s.Reload(); err != nil || !changed {
			t.Fatalf("Reload = %v, %v", changed, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	res, err := s.Search(ctx, "beta", "", 25)
	if err != nil || len(res.Results) != 2 || res.Results[0].Name != "Beta Bygg AS" {
		t.Errorf("after swaps: %+v, %v", res, err)
	}
	t.Logf("%d searches during %d swaps", searches.Load(), len(names))
}
