package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

func TestOpenIndexErrors(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	os.WriteFile(path, []byte("not an index"), 0o644)
	if _, err := OpenStore(path, nil); !errors.Is(err, ErrNotIndex) {
		t.Errorf("OpenStore = %v", err)
	}
}

// TestStoreSwapUnderLoad rebuilds and reloads the index while searches run: no search
// may see an error, and each sees one whole index (generation A or B).
func TestStoreSwapUnderLoad(t *testing.T) {
	t.Parallel()
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

// TestIndexKeepsItsFileAfterReplace checks that an Index answers from the file it
// opened after reads were cancelled and another file was renamed over its path: a
// cancelled read must not cost a connection (a new one would open the new file), and
// a connection opened anyway must fail rather than read the new file.
func TestIndexKeepsItsFileAfterReplace(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	ctx := context.Background()
	alfa := &sliceSource{cards: []*export.Card{card("0192:815344782", "Alfa Bygg AS", "NO"), card("0192:815344783", "Alfa Hold AS", "NO")}}
	if _, err := Build(ctx, path, alfa, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	// Reads cancelled before and while they run.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, "0192:815344782", "", 25); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context: %v", err)
	}
	if _, err := ix.Card(cctx, peppol.ParticipantID{ICD: "0192", Value: "815344782"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Card with a cancelled context: %v", err)
	}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithCancel(ctx)
			go cancel()
			var err error
			if i%2 == 0 {
				_, err = ix.Search(cctx, "alfa 815344782", "", 25)
			} else {
				_, err = ix.Card(cctx, peppol.ParticipantID{ICD: "0192", Value: "815344783"})
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled read: %v", err)
			}
		}()
	}
	wg.Wait()

	// Another index renamed over the path: more cards, other names, other rowids.
	var beta []*export.Card
	for i := range 50 {
		beta = append(beta, card(fmt.Sprintf("0192:9%08d", i), fmt.Sprintf("Beta %d Bygg AS", i), "SE"))
	}
	if _, err := Build(ctx, path, &sliceSource{cards: beta}, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T) {
		t.Helper()
		res, err := ix.Search(ctx, "bygg", "", 25)
		if err != nil || res.TotalCount != 1 || len(res.Results) != 1 || res.Results[0].Name != "Alfa Bygg AS" {
			t.Errorf("Search after replace = %+v, %v; want Alfa Bygg AS", res, err)
		}
		rec, err := ix.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "815344783"})
		if err != nil || rec == nil || rec.Name != "Alfa Hold AS" {
			t.Errorf("Card after replace = %+v, %v; want Alfa Hold AS", rec, err)
		}
	}
	check(t)

	// Should the pool still open a connection, it must not read the new file.
	ix.db.SetMaxIdleConns(0) // closes the idle connections
	ix.db.SetMaxIdleConns(readConns)
	rec, err := ix.Card(ctx, peppol.ParticipantID{ICD: "0192", Value: "900000001"})
	if !errors.Is(err, errReplaced) {
		t.Errorf("Card on a new connection after replace = %+v, %v; want errReplaced", rec, err)
	}
}

// TestStoreSearchDataAsOf checks that a search result carries the export date of the
// index it came from, across a Reload.
func TestStoreSearchDataAsOf(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	ctx := context.Background()
	var s *Store
	for i, created := range []time.Time{testCreated, testCreated.Add(24 * time.Hour)} {
		src := &sliceSource{hdr: export.Header{Created: created}, cards: []*export.Card{card("0192:815344782", "Alfa Bygg AS", "NO")}}
		if _, err := Build(ctx, path, src, BuildOptions{}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			var err error
			if s, err = OpenStore(path, nil); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
		} else if _, err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		res, err := s.Search(ctx, "alfa", "", 25)
		if err != nil {
			t.Fatal(err)
		}
		if res.DataAsOf == nil || !res.DataAsOf.Equal(created) {
			t.Errorf("index %d: DataAsOf = %v, want %v", i, res.DataAsOf, created)
		}
	}
}

// TestStoreReloadReleasesOldTermIndex checks that a Reload under a search in flight keeps
// the old index's term index readable until that search ends, and then releases it
// exactly once (Store.retire and Store.release both close the old Index).
func TestStoreReloadReleasesOldTermIndex(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "directory.db")
	ctx := context.Background()
	gen := func(name string) *sliceSource {
		return &sliceSource{cards: []*export.Card{card("0192:815344782", name+" Bygg AS", "NO")}}
	}
	if _, err := Build(ctx, path, gen("Alfa"), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := s.acquire()
	if h == nil || !h.ix.enter() {
		t.Fatal("no index to search")
	}
	old := h.ix
	if _, err := Build(ctx, path, gen("Beta"), BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.Reload(); err != nil || !changed {
		t.Fatalf("Reload = %v, %v", changed, err)
	}
	released := func() bool {
		old.termsMu.Lock()
		defer old.termsMu.Unlock()
		return old.released
	}
	if released() || len(old.terms.post) == 0 || old.terms.post[0] != 0 {
		t.Fatal("old term index released under a search in flight")
	}
	old.leave()
	s.release(h)
	// The old index's statistics count (Reload's warm-up) may still hold it: wait, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for !released() {
		if time.Now().After(deadline) {
			t.Fatal("old term index not released 30 s after its last search")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := old.Close(); err != nil {
		t.Errorf("Close of the retired index: %v", err)
	}
	res, err := s.Search(ctx, "beta", "", 25)
	if err != nil || len(res.Results) != 1 {
		t.Errorf("after reload: %+v, %v", res, err)
	}
}
