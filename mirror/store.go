package mirror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Store is the live mirror a server uses: a peppolnet.DirectoryMirror over the index file
// at one path. Reload swaps in a new file atomically under concurrent searches: calls in
// flight finish on the old Index, which is closed when the last of them is done.
type Store struct {
	path string
	log  *slog.Logger

	mu     sync.Mutex
	cur    *handle
	closed bool
}

// handle is one opened Index with the number of calls using it.
type handle struct {
	ix      *Index
	file    fileID
	refs    int
	retired bool
}

// fileID is what tells one index file from the next at the same path.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func statFile(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), st.Ino
	}
	return id, nil
}

// OpenStore opens the index at path. A missing file, or an index of another schema
// version (ErrOtherSchema: an older peppolgate built it, see docs/DEPLOY.md Upgrades),
// is not an error: the Store is empty (its methods return
// registry.ErrMirrorUnavailable) until Reload finds a usable one; the latter is logged
// once as a warning that says how to rebuild it. It returns the other errors of
// OpenIndex for a file that is there but cannot be used.
func OpenStore(path string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{path: path, log: log}
	_, err := s.Reload()
	switch {
	case errors.Is(err, ErrOtherSchema):
		log.Warn("the Directory mirror file is an index of another schema version (built by another peppolgate version): the live Directory answers until it is rebuilt; run 'peppolgate mirror sync' or 'peppolgate mirror import' (or use -mirror-refresh), and it is picked up without a restart",
			"path", path, "err", err)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	return s, nil
}

// Reload opens the file at the Store's path when it is not the one open (device, inode,
// size or modification time differ) and makes it current, and starts counting its
// statistics in the background (the old file is closed once that count and the calls
// in flight on it are done). It reports whether it did.
// When the file is missing, the Store keeps what it has and Reload returns an error
// wrapping fs.ErrNotExist; when the new file cannot be opened it keeps the current one
// and returns the error.
func (s *Store) Reload() (changed bool, err error) {
	id, err := statFile(s.path)
	if err != nil {
		return false, fmt.Errorf("mirror: reload: %w", err)
	}
	s.mu.Lock()
	same := s.cur != nil && s.cur.file == id
	closed := s.closed
	s.mu.Unlock()
	if same || closed {
		return false, nil
	}
	ix, err := OpenIndex(s.path)
	if err != nil {
		return false, err
	}
	// The file opened, even if another replaced id's meanwhile; one reference is the
	// statistics' warm-up's.
	h := &handle{ix: ix, file: ix.file, refs: 1}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ix.Close()
		return false, nil
	}
	old := s.cur
	s.cur = h
	s.mu.Unlock()
	if old != nil {
		s.retire(old)
	}
	m := ix.Meta()
	s.log.Info("directory mirror loaded", "path", s.path, "cards", m.Cards, "data_as_of", m.DataAsOf, "imported_at", m.ImportedAt)
	go s.warmStats(h)
	return true, nil
}

// warmStats computes h's statistics (Index.Stats) in the background, so that the first
// request for them does not wait for a pass over every card, then releases h.
func (s *Store) warmStats(h *handle) {
	defer s.release(h)
	start := time.Now()
	if _, err := h.ix.Stats(context.Background()); err != nil {
		s.log.Warn("directory mirror statistics could not be counted; the first request for them tries again", "path", s.path, "err", err)
		return
	}
	s.log.Debug("directory mirror statistics counted", "path", s.path, "elapsed", time.Since(start).String())
}

// retire closes h once no call uses it.
func (s *Store) retire(h *handle) {
	s.mu.Lock()
	h.retired = true
	done := h.refs == 0
	s.mu.Unlock()
	if done {
		h.ix.Close()
	}
}

// acquire returns the current handle with a reference taken, or nil.
func (s *Store) acquire() *handle {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.cur
	if h != nil {
		h.refs++
	}
	return h
}

func (s *Store) release(h *handle) {
	s.mu.Lock()
	h.refs--
	done := h.retired && h.refs == 0
	s.mu.Unlock()
	if done {
		h.ix.Close()
	}
}

// Meta describes the current index; false when there is none.
func (s *Store) Meta() (Meta, bool) {
	h := s.acquire()
	if h == nil {
		return Meta{}, false
	}
	defer s.release(h)
	return h.ix.Meta(), true
}

// Search searches the current index (see Index.Search). The result's DataAsOf is
// that of the very index searched, so a Reload meanwhile cannot make a caller label
// new hits with the old date (prefer it over DataAsOf()). It returns
// registry.ErrMirrorUnavailable when there is none, and the errors of Index.Search.
func (s *Store) Search(ctx context.Context, text, country string, limit int) (*registry.SearchResult, error) {
	return s.SearchPage(ctx, text, country, 0, limit)
}

// SearchPage searches the current index for a page of hits from offset (see
// Index.SearchPage), as Search does.
func (s *Store) SearchPage(ctx context.Context, text, country string, offset, limit int) (*registry.SearchResult, error) {
	h := s.acquire()
	if h == nil {
		return nil, registry.ErrMirrorUnavailable
	}
	defer s.release(h)
	return h.ix.SearchPage(ctx, text, country, offset, limit)
}

// Card returns the business card of id from the current index, nil when it has none.
// It returns registry.ErrMirrorUnavailable when there is no index, and the errors of
// Index.Card.
func (s *Store) Card(ctx context.Context, id peppol.ParticipantID) (*registry.DirectoryRecord, error) {
	h := s.acquire()
	if h == nil {
		return nil, registry.ErrMirrorUnavailable
	}
	defer s.release(h)
	return h.ix.Card(ctx, id)
}

// DataAsOf is when the current index's data was exported; zero when there is none.
func (s *Store) DataAsOf() time.Time {
	m, _ := s.Meta()
	return m.DataAsOf
}

// Close closes the Store: later calls return registry.ErrMirrorUnavailable and the
// index is closed once the calls in flight are done, a background count of its
// statistics included (Reload).
func (s *Store) Close() error {
	s.mu.Lock()
	h := s.cur
	s.cur, s.closed = nil, true
	s.mu.Unlock()
	if h != nil {
		s.retire(h)
	}
	return nil
}
