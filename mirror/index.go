// Package mirror is peppolgate's local copy of the Peppol Directory: Build imports a bulk
// export (package export) into an embedded SQLite index file, Index searches and reads
// one such file, and Store serves the current file to the registry as a
// peppolnet.DirectoryMirror, swapping in a newly built file atomically.
//
// The index file (schema version 3: 2 plus the term positions, fwd_pos) holds
//
//	meta(key, value)                 schema version, export creationdt, code list, format, source, import time, card count
//	doctype(id, scheme, value, display_name, state, non_standard)   every document type once
//	card(id, pid, name, ccs, data)  one row per participant: normalised id, display name,
//	                                 the entities' distinct country codes, the record blob
//	pid(pid → card)                  participant ids
//	ident(key, card)                 additional identifiers, compacted (letters and digits, folded)
//	tindex(id, name, data)           the name term index (see termIndex): its arrays as
//	                                 little-endian blobs of at most 16 MiB, loaded into
//	                                 memory when the file is opened
//
// A card's rowid is (length of its folded display name) << 32 | import sequence; the term
// index numbers the cards in rowid order: shorter names first, the order of cards the
// ranking (rank.go) finds equal.
package mirror

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"

	"modernc.org/sqlite" // the "sqlite" database/sql driver, FTS5 included
)

// SchemaVersion is the version of the index file layout this package writes and reads.
const SchemaVersion = 3

// applicationID marks an SQLite file as a peppolgate index (PRAGMA application_id), "PGM1".
const applicationID = 0x50474d31

// errReplaced is returned by an Index's reads when database/sql had to open a new
// connection and the file at the Index's path is no longer the one it opened.
var errReplaced = errors.New("the index file was replaced since it was opened (reopen it)")

// ErrNotIndex is returned by OpenIndex for a file that is not a peppolgate index, or one
// of another schema version.
var ErrNotIndex = errors.New("not a peppolgate Directory index")

// ErrOtherSchema is returned (wrapped, with ErrNotIndex) by OpenIndex and CheckIndex for
// a peppolgate index of another schema version than SchemaVersion: one an older (or
// newer) peppolgate built. Importing the export again rebuilds it (docs/DEPLOY.md,
// Upgrades).
var ErrOtherSchema = fmt.Errorf("%w of another schema version", ErrNotIndex)

// Meta describes an index file.
type Meta struct {
	// DataAsOf is when the Directory wrote the export (its creationdt), or the import
	// time when the export does not say.
	DataAsOf time.Time
	// ImportedAt is when the index was built.
	ImportedAt time.Time
	// Source is where the export came from (file path or URL), as given to Build.
	Source string
	// Format is the export's format, e.g. "xml-v3".
	Format string
	// CodeList is the export's codeListSupported, e.g. "9.4"; empty when absent.
	CodeList string
	// Cards is the number of participants in the index.
	Cards int
	// SchemaVersion is the index file's layout version.
	SchemaVersion int
}

// Index is one opened read-only index file. Its methods are safe for concurrent use.
type Index struct {
	db       *sql.DB
	path     string
	file     fileID // of the file opened; every connection is checked against it
	meta     Meta
	docTypes []registry.IDParts // by doctype id - 1

	card      *sql.Stmt
	pidLookup *sql.Stmt
	identLook *sql.Stmt

	terms   *termIndex
	bitmaps scratchPool // bitmaps sized for terms

	// The term index's memory is outside the Go heap and released explicitly: searches
	// count themselves in users, and the last one to end after Close releases it. Whoever
	// sees closed && users == 0 first under termsMu sets released and frees, so the
	// memory is released exactly once however Close and leave interleave.
	termsMu  sync.Mutex
	users    int
	closed   bool
	released bool

	statsMu sync.Mutex
	stats   *statsCall // the statistics, computed once (stats.go)
}

// readConns is the number of connections an Index keeps: searches on both cores and a
// lookup or two besides.
const readConns = 4

// readCacheKiB is each connection's page cache. The OS page cache holds the file; this
// only keeps the hottest b-tree interior pages in process, and bounds RSS. Name search
// reads only the hits' rows.
const readCacheKiB = 8 << 10

// sqliteURI is the SQLite URI of the file at path with the given query.
func sqliteURI(path, query string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: query}
	return u.String(), nil
}

// OpenIndex opens the index file at path read-only. It returns an error wrapping
// fs.ErrNotExist when there is no file, ErrNotIndex when the file is not a peppolgate
// index of SchemaVersion, and other errors when it cannot be read.
func OpenIndex(path string) (*Index, error) {
	id, err := statFile(path)
	if err != nil {
		return nil, fmt.Errorf("mirror: open index: %w", err)
	}
	// immutable: the file is never changed in place (Build renames a new one over it),
	// so SQLite need not lock it nor check for changes.
	q := "mode=ro&immutable=1&_pragma=" + url.QueryEscape("cache_size=-"+strconv.Itoa(readCacheKiB)) +
		"&_pragma=" + url.QueryEscape("mmap_size=0") + "&_query_only=1"
	dsn, err := sqliteURI(path, q)
	if err != nil {
		return nil, fmt.Errorf("mirror: open index: %w", err)
	}
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("mirror: open index %s: %w", path, err)
	}
	db := sql.OpenDB(&pinnedConnector{Connector: base, path: path, file: id})
	db.SetMaxOpenConns(readConns)
	db.SetMaxIdleConns(readConns)
	db.SetConnMaxIdleTime(0)
	ix := &Index{db: db, path: path, file: id}
	if err := ix.pinConns(); err != nil {
		db.Close()
		if strings.Contains(err.Error(), "not a database") {
			err = ErrNotIndex
		}
		return nil, fmt.Errorf("mirror: open index %s: %w", path, err)
	}
	if err := ix.load(); err != nil {
		if ix.terms != nil {
			ix.terms.free()
		}
		db.Close()
		return nil, fmt.Errorf("mirror: open index %s: %w", path, err)
	}
	return ix, nil
}

// pinConns opens all readConns connections now: each connection opens the path, and
// Build may rename a new file over it at any time, so that a connection opened later
// would read another file than the term index loaded from the first.
func (ix *Index) pinConns() error {
	ctx := context.Background()
	conns := make([]*sql.Conn, 0, readConns)
	defer func() {
		for _, c := range conns {
			c.Close() // back to the pool, which keeps readConns idle connections
		}
	}()
	for range readConns {
		c, err := ix.db.Conn(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		if err := c.PingContext(ctx); err != nil {
			return err
		}
	}
	return nil
}

// pinnedConnector opens connections to the file at path only while it is the file
// (device and inode) the Index was opened on. An Index keeps its connections (see
// pinConns, readCtx), but should database/sql still open a new one after Build renamed
// another file over the path, the connection would read that file with the old Index's
// term index and doc types: wrong hits, wrong cards. Connect fails with errReplaced
// instead. The path is checked before and after opening: the same inode both times
// means the connection opened it, as the Index's other connections keep it alive.
type pinnedConnector struct {
	driver.Connector
	path string
	file fileID
}

func (c *pinnedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

func (c *pinnedConnector) check() error {
	id, err := statFile(c.path)
	if err != nil {
		return fmt.Errorf("%w: %w", errReplaced, err)
	}
	if id.dev != c.file.dev || id.ino != c.file.ino {
		return errReplaced
	}
	return nil
}

// readCtx is the context of an SQLite read of an Index made under ctx: ctx's values
// without its cancellation, or ctx's error when it is done already. The driver
// interrupts a read whose context is cancelled, and database/sql then discards the
// connection as unusable; a new one would open the path anew (see pinnedConnector).
// The reads are short and bounded, so they run to the end; callers check ctx.Err()
// after them.
func readCtx(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// checkSchema returns ErrNotIndex when db is not a peppolgate index, ErrOtherSchema
// when it is one of another schema version, and the errors of reading it.
func checkSchema(ctx context.Context, db *sql.DB) error {
	var app, ver int
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		if strings.Contains(err.Error(), "not a database") || strings.Contains(err.Error(), "file is not a database") {
			return ErrNotIndex
		}
		return err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return err
	}
	if app != applicationID {
		return ErrNotIndex
	}
	if ver != SchemaVersion {
		return fmt.Errorf("%w: schema version %d, this peppolgate reads %d (import the export again)", ErrOtherSchema, ver, SchemaVersion)
	}
	return nil
}

// CheckIndex reports whether the file at path is a peppolgate index of SchemaVersion,
// reading only its header (not the term index, as OpenIndex does). It returns an error
// wrapping fs.ErrNotExist when there is no file, ErrOtherSchema (which is also
// ErrNotIndex) for an index of another schema version, ErrNotIndex for another file,
// and other errors when it cannot be read.
func CheckIndex(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("mirror: check index: %w", err)
	}
	dsn, err := sqliteURI(path, "mode=ro&immutable=1&_query_only=1")
	if err != nil {
		return fmt.Errorf("mirror: check index: %w", err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("mirror: check index %s: %w", path, err)
	}
	defer db.Close()
	if err := checkSchema(context.Background(), db); err != nil {
		return fmt.Errorf("mirror: check index %s: %w", path, err)
	}
	return nil
}

// load checks the file's identity and reads its meta and doc types.
func (ix *Index) load() error {
	ctx := context.Background()
	if err := checkSchema(ctx, ix.db); err != nil {
		return err
	}
	rows, err := ix.db.QueryContext(ctx, "SELECT key, value FROM meta")
	if err != nil {
		return err
	}
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return err
		}
		m[k] = v
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	ix.meta = Meta{Source: m["source"], Format: m["format"], CodeList: m["code_list"], SchemaVersion: SchemaVersion}
	ix.meta.DataAsOf, _ = time.Parse(time.RFC3339Nano, m["data_as_of"])
	ix.meta.ImportedAt, _ = time.Parse(time.RFC3339Nano, m["imported_at"])
	ix.meta.Cards, _ = strconv.Atoi(m["cards"])

	rows, err = ix.db.QueryContext(ctx, "SELECT id, scheme, value FROM doctype ORDER BY id")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var p registry.IDParts
		if err := rows.Scan(&id, &p.Scheme, &p.Value); err != nil {
			return err
		}
		if id != len(ix.docTypes)+1 {
			return errCorrupt
		}
		ix.docTypes = append(ix.docTypes, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if ix.terms, err = readTermIndex(ctx, ix.db, ix.meta.Cards); err != nil {
		return err
	}
	words := (ix.terms.n + 63) / 64
	ix.bitmaps.kept = runtime.GOMAXPROCS(0)
	ix.bitmaps.new = func() *bitmaps {
		return &bitmaps{exact: make([]uint64, words), typo: make([]uint64, words), filter: make([]uint64, words)}
	}
	if ix.card, err = ix.db.PrepareContext(ctx, "SELECT c.pid, c.name, c.data FROM pid p JOIN card c ON c.id = p.card WHERE p.pid = ?"); err != nil {
		return err
	}
	if ix.pidLookup, err = ix.db.PrepareContext(ctx, "SELECT card FROM pid WHERE pid = ?"); err != nil {
		return err
	}
	if ix.identLook, err = ix.db.PrepareContext(ctx, "SELECT card FROM ident WHERE key = ? ORDER BY card LIMIT ?"); err != nil {
		return err
	}
	return nil
}

// Meta describes the index.
func (ix *Index) Meta() Meta { return ix.meta }

// Path is the file the index was opened from.
func (ix *Index) Path() string { return ix.path }

// Card returns the business card of participant id, or nil and no error when the index
// has none. Errors are ctx's (checked before and after the read, which is not
// interrupted), those of reading the file, or errCorrupt for an unreadable record.
func (ix *Index) Card(ctx context.Context, id peppol.ParticipantID) (*registry.DirectoryRecord, error) {
	rctx, err := readCtx(ctx)
	if err != nil {
		return nil, fmt.Errorf("mirror: card %s: %w", id, err)
	}
	var pid, name string
	var blob []byte
	err = ix.card.QueryRowContext(rctx, id.String()).Scan(&pid, &name, &blob)
	if err == nil {
		err = ctx.Err()
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mirror: card %s: %w", id, err)
	}
	rec, err := decodeRecord(pid, name, blob, ix.docTypes)
	if err != nil {
		return nil, fmt.Errorf("mirror: card %s: %w", id, err)
	}
	return rec, nil
}

// Close closes the index file. Calls in flight may fail afterwards; searches started
// afterwards return errClosed. The term index is released when the last search in
// flight ends. Close may be called more than once, also concurrently: only the first
// call closes, later ones return nil.
func (ix *Index) Close() error {
	ix.termsMu.Lock()
	if ix.closed {
		ix.termsMu.Unlock()
		return nil
	}
	ix.closed = true
	release := ix.takeRelease()
	ix.termsMu.Unlock()
	if release {
		ix.terms.free()
	}
	return ix.db.Close()
}

// takeRelease reports whether the caller must free the term index now: the index is
// closed, no search uses it and nobody freed it yet. ix.termsMu must be held.
func (ix *Index) takeRelease() bool {
	if !ix.closed || ix.users != 0 || ix.released {
		return false
	}
	ix.released = true
	return true
}

// errClosed is returned by searches of a closed Index.
var errClosed = errors.New("the index is closed")

// enter counts a search that reads the term index; it reports false after Close.
func (ix *Index) enter() bool {
	ix.termsMu.Lock()
	defer ix.termsMu.Unlock()
	if ix.closed {
		return false
	}
	ix.users++
	return true
}

// leave ends a search counted by enter, releasing the term index after Close.
func (ix *Index) leave() {
	ix.termsMu.Lock()
	ix.users--
	release := ix.takeRelease()
	ix.termsMu.Unlock()
	if release {
		ix.terms.free()
	}
}
