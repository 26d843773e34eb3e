package mirror

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/mirror/export"
)

// CardSource is what Build reads: export.Decoder satisfies it. Next returns the next
// card, an *export.RecordError for a malformed card that is skipped (Build counts it and
// goes on), or io.EOF at the end.
type CardSource interface {
	Header() export.Header
	Next() (*export.Card, error)
}

// BuildOptions tune Build. The zero value is valid.
type BuildOptions struct {
	// Progress, if set, is called at most every ~250 ms during the import and once at
	// the end.
	Progress func(Progress)
	// Logger receives the first malformed records individually at warn, then their
	// count; nil discards.
	Logger *slog.Logger
	// Source is where the export came from (file path or URL), stored in the meta.
	Source string
}

// Progress is the state of an import.
type Progress struct {
	// Cards is the number of cards read so far, Skipped the malformed ones.
	Cards, Skipped int
	// Elapsed is the time since the import started.
	Elapsed time.Duration
	// Phase is "reading" while cards are read and "indexing" while the index is built.
	Phase string
}

// BuildStats says what Build did.
type BuildStats struct {
	// Cards is the number of cards read, Skipped the malformed ones left out.
	Cards, Skipped int
	// Participants is the number of participants in the index: Cards less Duplicates.
	Participants int
	// Duplicates is the number of cards replaced by a later card of the same participant.
	Duplicates int
	// Elapsed is the import's duration.
	Elapsed time.Duration
	// Bytes is the index file's size.
	Bytes int64
	// DataAsOf is the export's creationdt, or the import time when it has none.
	DataAsOf time.Time
}

// maxLoggedRecords is how many malformed records are logged one by one.
const maxLoggedRecords = 20

// buildCacheKiB is the page cache of the building connection.
const buildCacheKiB = 32 << 10

// progressEvery is the least time between two Progress calls.
const progressEvery = 250 * time.Millisecond

// Build imports every card of src into a new index file written beside path
// (path + ".new-<random>"), fsyncs it and
// renames it over path; an index already at path stays valid for readers that have it
// open. Of several cards of one participant the last wins. A failure (or ctx cancelled)
// leaves path untouched and removes the temporary files. While it runs, the garbage
// collector's target is at most buildGCPercent (see lowerGCPercent), which bounds the
// import's memory. It returns the error of src
// (other than *export.RecordError), of ctx, or of writing the files.
func Build(ctx context.Context, path string, src CardSource, opts BuildOptions) (stats BuildStats, err error) {
	start := time.Now()
	defer lowerGCPercent()()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return stats, fmt.Errorf("mirror: build: %w", err)
	}
	tmp := path + ".new-" + hex.EncodeToString(rnd[:])
	defer func() {
		// Cancelling ctx rolls the transaction back under the writer, which then sees
		// e.g. "statement is closed": report the cause.
		if cerr := ctx.Err(); err != nil && cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("mirror: build %s: %w (%v)", path, cerr, err)
		}
	}()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	b, err := newBuilder(ctx, tmp)
	if err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	defer b.close() // after a failure: roll back, close the connection and the database

	hdr := src.Header()
	b.log = log
	b.progress = func(phase string) {
		if opts.Progress != nil {
			opts.Progress(Progress{Cards: b.cards, Skipped: b.skipped, Elapsed: time.Since(start), Phase: phase})
		}
	}
	if err := b.read(ctx, src, log); err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	if b.skipped > maxLoggedRecords {
		log.Warn("malformed cards skipped", "count", b.skipped, "logged", maxLoggedRecords)
	}
	b.progress("indexing")
	imported := time.Now().UTC()
	dataAsOf := hdr.Created
	if dataAsOf.IsZero() {
		dataAsOf = imported
	}
	meta := map[string]string{
		"schema_version": strconv.Itoa(SchemaVersion),
		"data_as_of":     dataAsOf.UTC().Format(time.RFC3339Nano),
		"imported_at":    imported.Format(time.RFC3339Nano),
		"source":         opts.Source,
		"format":         string(hdr.Format),
		"code_list":      hdr.CodeList,
	}
	if !hdr.Created.IsZero() {
		meta["creationdt"] = hdr.Created.UTC().Format(time.RFC3339Nano)
	}
	if err := b.finish(ctx, meta); err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	db := b.db
	b.db = nil
	if err := db.Close(); err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	size, err := syncFile(tmp)
	if err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return stats, fmt.Errorf("mirror: build %s: %w", path, err)
	}
	fsyncDir(filepath.Dir(path))
	stats = BuildStats{
		Cards: b.cards, Skipped: b.skipped, Participants: b.cards - b.dups, Duplicates: b.dups,
		Elapsed: time.Since(start), Bytes: size, DataAsOf: dataAsOf,
	}
	b.progress("done")
	return stats, nil
}

// buildGCPercent is the garbage collector's target while Build runs. The import holds
// a live heap of some hundred bytes per card (term ids, participant ids, identifiers)
// while it allocates garbage fast; with a process's usual target (peppolgate serves
// with 400) the heap would grow to five times the live one.
const buildGCPercent = 100

// lowerGCPercent lowers the garbage collector's target to buildGCPercent when it is
// higher and returns the function that puts it back. Of overlapping Builds the first
// lowers it and restores it when it ends; a target set by someone else meanwhile is
// left alone.
func lowerGCPercent() (restore func()) {
	old := debug.SetGCPercent(buildGCPercent)
	if old <= buildGCPercent { // already low enough, or off (-1: e.g. GOMEMLIMIT rules)
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() {
		if cur := debug.SetGCPercent(old); cur != buildGCPercent {
			debug.SetGCPercent(cur)
		}
	}
}

// syncFile fsyncs the file at path and returns its size.
func syncFile(path string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), f.Close()
}

// fsyncDir fsyncs a directory so that a rename in it is durable; best effort.
func fsyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// builder holds an import in progress.
type builder struct {
	db       *sql.DB
	conn     *sql.Conn
	tx       *sql.Tx
	progress func(phase string)

	log                  *slog.Logger
	cards, skipped, dups int
	terms                *termBuilder
}

// buildSchema creates the index's tables; the %d are applicationID and SchemaVersion.
const buildSchema = `
PRAGMA application_id = %d;
PRAGMA user_version = %d;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE doctype(id INTEGER PRIMARY KEY, scheme TEXT NOT NULL, value TEXT NOT NULL,
	display_name TEXT NOT NULL, state TEXT NOT NULL, non_standard INTEGER NOT NULL);
CREATE TABLE card(id INTEGER PRIMARY KEY, pid TEXT NOT NULL, name TEXT NOT NULL, ccs TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE pid(pid TEXT PRIMARY KEY, card INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE ident(key TEXT NOT NULL, card INTEGER NOT NULL, PRIMARY KEY(key, card)) WITHOUT ROWID;
CREATE TABLE tindex(id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB NOT NULL);
`

// newBuilder creates the index file tmp.
func newBuilder(ctx context.Context, tmp string) (*builder, error) {
	q := "_pragma=" + urlq("journal_mode=OFF") + "&_pragma=" + urlq("synchronous=OFF") +
		"&_pragma=" + urlq("cache_size=-"+strconv.Itoa(buildCacheKiB)) + "&_pragma=" + urlq("temp_store=FILE")
	dsn, err := sqliteURI(tmp, q)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	b := &builder{db: db}
	fail := func(err error) (*builder, error) {
		b.close()
		return nil, err
	}
	if b.conn, err = db.Conn(ctx); err != nil {
		return fail(err)
	}
	if _, err := b.conn.ExecContext(ctx, fmt.Sprintf(buildSchema, applicationID, SchemaVersion)); err != nil {
		return fail(err)
	}
	return b, nil
}

// close releases what the builder holds, in order: it rolls back the transaction (if
// any), closes the connection and then the database. sql.DB.Close does not close a
// connection in use, so without the first two a failed import would keep the unlinked
// temporary file open, and its disk space allocated, until the process exits. It is a
// no-op for what is already released.
func (b *builder) close() {
	if b.tx != nil {
		b.tx.Rollback()
		b.tx = nil
	}
	if b.conn != nil {
		b.conn.Close()
		b.conn = nil
	}
	if b.db != nil {
		b.db.Close()
		b.db = nil
	}
}

func urlq(s string) string {
	return strings.NewReplacer("=", "%3D", " ", "%20", "(", "%28", ")", "%29").Replace(s)
}

// prepared is one card made ready for the database by the reading goroutine.
type prepared struct {
	id     int64
	pid    string
	name   string
	ccs    string
	data   []byte
	terms  []string // distinct folded name terms
	tpos   []uint8  // each term's position byte (see termIndex.fpos)
	cckeys []string // distinct folded country codes
	key    string   // the display name's folded terms, joined by spaces
	idents []string
}

// batch is what the reading goroutine hands to the writing one.
type batch struct {
	cards    []prepared
	docTypes []export.DocType // newly interned, in id order
	err      error            // the source failed; the last batch
	terms    *termBuilder     // the last batch: the cards' terms
	// read and skipped count the cards and malformed records read so far.
	read, skipped int
}

const batchSize = 512

// read reads every card of src: one goroutine decodes and prepares cards, this one
// writes them to the database.
func (b *builder) read(ctx context.Context, src CardSource, log *slog.Logger) error {
	// The producer stops when read returns; the transaction lives on (ctx).
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan batch, 4)
	go produce(pctx, src, log, ch)
	defer func() {
		cancel()
		for range ch { // wait for the producer: it must not use src after Build returns
		}
	}()

	var err error
	if b.tx, err = b.conn.BeginTx(ctx, nil); err != nil {
		return err
	}
	ins, err := b.prepareInserts(ctx)
	if err != nil {
		return err
	}
	defer ins.close()
	last := time.Now()
	for bt := range ch {
		b.cards, b.skipped = bt.read, bt.skipped
		if bt.err != nil {
			return bt.err
		}
		if bt.terms != nil {
			b.terms = bt.terms
		}
		for _, d := range bt.docTypes {
			if _, err := ins.docType.ExecContext(ctx, d.Scheme, d.Value, d.DisplayName, d.State, d.NonStandard); err != nil {
				return err
			}
		}
		for i := range bt.cards {
			if err := ins.add(ctx, &bt.cards[i]); err != nil {
				return err
			}
		}
		if time.Since(last) >= progressEvery {
			last = time.Now()
			b.progress("reading")
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return ins.flush(ctx)
}

// produce reads src, prepares its cards and sends them in batches to ch, which it
// closes. It stops early when ctx is done.
func produce(ctx context.Context, src CardSource, log *slog.Logger, ch chan<- batch) {
	defer close(ch)
	docTypes := map[export.DocType]int{}
	tb := newTermBuilder()
	bt := batch{cards: make([]prepared, 0, batchSize)}
	send := func() bool {
		select {
		case ch <- bt:
			bt = batch{cards: make([]prepared, 0, batchSize)}
			return true
		case <-ctx.Done():
			return false
		}
	}
	var seq int64
	var skipped int
	var dtIDs []int
	for ctx.Err() == nil {
		c, err := src.Next()
		if err == io.EOF {
			break
		}
		var rerr *export.RecordError
		if errors.As(err, &rerr) {
			skipped++
			if skipped <= maxLoggedRecords {
				log.Warn("malformed card skipped", "index", rerr.Index, "participant", rerr.Participant, "reason", rerr.Reason)
			}
			continue
		}
		if err != nil {
			bt.err = fmt.Errorf("reading the export: %w", err)
			bt.read, bt.skipped = int(seq), skipped
			send()
			return
		}
		if c == nil {
			continue
		}
		seq++
		dtIDs = dtIDs[:0]
		for _, d := range c.DocTypes {
			id, ok := docTypes[d]
			if !ok {
				id = len(docTypes) + 1
				docTypes[d] = id
				bt.docTypes = append(bt.docTypes, d)
			}
			dtIDs = append(dtIDs, id)
		}
		p := prepareCard(c, seq, dtIDs)
		tb.add(p.terms, p.tpos, p.cckeys, p.id, p.key)
		tb.addIDs(p.pid, p.idents)
		bt.cards = append(bt.cards, p)
		if len(bt.cards) == batchSize {
			bt.read, bt.skipped = int(seq), skipped
			if !send() {
				return
			}
		}
	}
	bt.read, bt.skipped = int(seq), skipped
	bt.terms = tb
	send()
}

// maxVocabLen is the longest typo alternative, in runes. Longer terms are found by
// exact match and as prefixes only.
const maxVocabLen = 64

// maxRankLen caps the name length that orders cards within a tier.
const maxRankLen = 1023

// prepareCard computes everything stored for c, the seq-th card.
func prepareCard(c *export.Card, seq int64, docTypeIDs []int) prepared {
	p := prepared{pid: normalisePID(c.Participant.Value)}
	var ccs []string
	seenTerm := map[string]bool{}
	named := false
	pos := 0 // the next term's position among all the card's name terms
	for _, e := range c.Entities {
		cc := strings.ToUpper(strings.TrimSpace(e.CountryCode))
		if cc != "" && !slices.Contains(ccs, cc) {
			ccs = append(ccs, cc)
		}
		if k := compactKey(cc); k != "" && !slices.Contains(p.cckeys, k) {
			p.cckeys = append(p.cckeys, k)
		}
		for _, n := range e.Names {
			ts := terms(n.Name)
			if len(ts) > 0 && pos > 0 {
				pos++ // a gap: the last term of one name is not next to the first of the next
			}
			// The display name is the first non-empty name of any entity: the decoder
			// drops empty names, so the first entity may have none.
			if !named && strings.TrimSpace(n.Name) != "" {
				named = true
				p.name = n.Name
				p.key = strings.Join(ts, " ")
			}
			for j, t := range ts {
				if !seenTerm[t] {
					seenTerm[t] = true
					p.terms = append(p.terms, t)
					p.tpos = append(p.tpos, posByte(pos, j == 0))
				}
				pos++
			}
		}
		for _, id := range e.Identifiers {
			if k := compactKey(id.Value); len(k) >= 2 && !slices.Contains(p.idents, k) {
				p.idents = append(p.idents, k)
			}
		}
	}
	// The participant id's own value is always findable as typed, whether or not a
	// candidate id can be derived from it (a failing check digit, a free-form value).
	if _, v, ok := strings.Cut(p.pid, ":"); ok {
		if k := compactKey(v); len(k) >= 2 && !slices.Contains(p.idents, k) {
			p.idents = append(p.idents, k)
		}
	}
	p.ccs = strings.Join(ccs, " ")
	rank := utf8.RuneCountInString(p.key)
	p.id = int64(min(rank, maxRankLen))<<32 | seq
	p.data = encodeRecord(nil, c, docTypeIDs)
	return p
}

// multiInsert inserts rows rowsPerStatement at a time: one statement execution per
// row costs more than the b-tree insert itself.
type multiInsert struct {
	tx     *sql.Tx
	prefix string // "INSERT INTO t(a, b) VALUES"
	cols   int
	full   *sql.Stmt
	args   []any
}

const rowsPerStatement = 64

func newMultiInsert(ctx context.Context, tx *sql.Tx, prefix string, cols int) (*multiInsert, error) {
	m := &multiInsert{tx: tx, prefix: prefix, cols: cols, args: make([]any, 0, cols*rowsPerStatement)}
	var err error
	m.full, err = tx.PrepareContext(ctx, m.statement(rowsPerStatement))
	return m, err
}

func (m *multiInsert) statement(rows int) string {
	row := "(" + strings.Repeat("?,", m.cols-1) + "?)"
	return m.prefix + " " + strings.Repeat(row+",", rows-1) + row
}

func (m *multiInsert) add(ctx context.Context, vals ...any) error {
	m.args = append(m.args, vals...)
	if len(m.args) < m.cols*rowsPerStatement {
		return nil
	}
	_, err := m.full.ExecContext(ctx, m.args...)
	m.args = m.args[:0]
	return err
}

func (m *multiInsert) flush(ctx context.Context) error {
	if len(m.args) == 0 {
		return nil
	}
	_, err := m.tx.ExecContext(ctx, m.statement(len(m.args)/m.cols), m.args...)
	m.args = m.args[:0]
	return err
}

func (m *multiInsert) close() {
	if m != nil && m.full != nil {
		m.full.Close()
	}
}

// inserts are the statements of the reading phase.
type inserts struct {
	docType *sql.Stmt
	card    *multiInsert
}

func (b *builder) prepareInserts(ctx context.Context) (*inserts, error) {
	ins := &inserts{}
	var err error
	if ins.docType, err = b.tx.PrepareContext(ctx, "INSERT INTO doctype(scheme, value, display_name, state, non_standard) VALUES(?,?,?,?,?)"); err != nil {
		return nil, err
	}
	for _, m := range []struct {
		m      **multiInsert
		prefix string
		cols   int
	}{
		{&ins.card, "INSERT INTO card(id, pid, name, ccs, data) VALUES", 5},
	} {
		if *m.m, err = newMultiInsert(ctx, b.tx, m.prefix, m.cols); err != nil {
			ins.close()
			return nil, err
		}
	}
	return ins, nil
}

func (ins *inserts) close() {
	if ins.docType != nil {
		ins.docType.Close()
	}
	ins.card.close()
}

func (ins *inserts) add(ctx context.Context, p *prepared) error {
	if err := ins.card.add(ctx, p.id, p.pid, p.name, p.ccs, p.data); err != nil {
		return err
	}
	return nil
}

func (ins *inserts) flush(ctx context.Context) error {
	for _, m := range []*multiInsert{ins.card} {
		if err := m.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// finish builds the indexes from the staged rows and the collected terms, resolving
// duplicate participants (the last card wins), then the meta, and commits.
func (b *builder) finish(ctx context.Context, meta map[string]string) error {
	exec := func(q string, args ...any) (sql.Result, error) {
		t0 := time.Now()
		res, err := b.tx.ExecContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("%.60s…: %w", q, err)
		}
		if len(args) == 0 {
			b.log.Debug("index build step", "sql", q, "elapsed", time.Since(t0), "cpu", cpuTime())
		}
		return res, nil
	}
	tb := b.terms
	if tb == nil {
		tb = newTermBuilder()
	}
	b.terms = nil
	// Of the cards of one participant the one read last wins.
	t0 := time.Now()
	winners, loserSeqs := tb.byPID()
	losers := make(map[int64]bool, len(loserSeqs)) // by import sequence
	for _, s := range loserSeqs {
		if _, err := exec("DELETE FROM card WHERE id = ?", tb.rowid[s-1]); err != nil {
			return err
		}
		b.dups++
		losers[int64(s)] = true
	}
	if err := tb.writeIDs(ctx, b.tx, winners, losers); err != nil {
		return err
	}
	b.log.Debug("index build step", "sql", "pid and ident", "elapsed", time.Since(t0), "cpu", cpuTime())
	b.progress("indexing")
	t0 = time.Now()
	x := tb.build(losers)
	b.log.Debug("index build step", "sql", "term index", "elapsed", time.Since(t0), "cpu", cpuTime(), "terms", x.terms(), "postings", len(x.post))
	t0 = time.Now()
	if err := x.write(ctx, b.tx); err != nil {
		return err
	}
	b.log.Debug("index build step", "sql", "term index written", "elapsed", time.Since(t0), "cpu", cpuTime())
	meta["cards"] = strconv.Itoa(b.cards - b.dups)
	for k, v := range meta {
		if _, err := exec("INSERT INTO meta(key, value) VALUES(?, ?)", k, v); err != nil {
			return err
		}
	}
	if err := b.tx.Commit(); err != nil {
		return err
	}
	b.tx = nil
	for _, s := range []string{"PRAGMA journal_mode=DELETE"} {
		if _, err := b.conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	conn := b.conn
	b.conn = nil
	return conn.Close()
}

// cpuTime is the process's CPU time so far, for the debug log of the build's steps.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
