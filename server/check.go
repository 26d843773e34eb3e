package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// The defaults of BulkLimits (docs/INTERFACE.md §4.7, §8).
const (
	// DefaultCheckRows is how many rows one POST /api/v1/check may hold.
	DefaultCheckRows = 10_000
	// DefaultCheckBody is the largest POST /api/v1/check body, in bytes.
	DefaultCheckBody = 2 << 20
	// DefaultChecksPerClient is how many checks one client may run at once.
	DefaultChecksPerClient = 2
	// DefaultChecksTotal is how many checks the server runs at once, all clients
	// together.
	DefaultChecksTotal = 32
	// DefaultCheckMaxDuration bounds one check: its rows not answered by then are
	// answered not checked (retryable). 10,000 rows take seconds when the network
	// answers, a few minutes when SMPs are slow.
	DefaultCheckMaxDuration = 10 * time.Minute
	// DefaultCheckWriteStall is how long a check's answer may wait for the client to
	// take it: a client that takes nothing for this long (it stopped reading, or
	// reads slower than one push of at most checkFlushLines lines per this time) ends
	// its check.
	DefaultCheckWriteStall = 30 * time.Second
)

// checkRowsPerRequest is how many rows of a check cost one request of the REST API's
// rate limit: a check of n rows costs ⌈n/100⌉ requests. A row is cheaper than a
// lookup of its own because rows naming the same participant are looked up once and
// the registry keeps the upstream load polite whatever the rows (per-SMP-host caps,
// the Directory limiter); the cost keeps the bulk endpoint from being a way around
// the REST limit.
const checkRowsPerRequest = 100

// checkRetryAfter is the Retry-After of a check refused because too many run.
const checkRetryAfter = 10 * time.Second

// checkSummaryTrailer is the trailer that carries a CSV answer's summary.
const checkSummaryTrailer = "Peppolgate-Check-Summary"

// The media types of POST /api/v1/check.
const (
	mediaJSON   = "application/json"
	mediaNDJSON = "application/x-ndjson"
	mediaCSV    = "text/csv"
)

// BulkLimits bound POST /api/v1/check (docs/INTERFACE.md §4.7). Zero fields take the
// defaults (DefaultCheckRows, DefaultCheckBody, DefaultChecksPerClient,
// DefaultChecksTotal, DefaultCheckMaxDuration, DefaultCheckWriteStall; Buffered
// Total×Body).
type BulkLimits struct {
	// Rows is how many rows one check may hold.
	Rows int
	// Body is the largest body, in bytes.
	Body int
	// PerClient is how many checks one client (its IP address, an IPv6 client's /64)
	// may have at once, their bodies being read included. Clients in
	// Config.RateLimitExempt are counted too, with a cap of max(PerClient, Total/2):
	// such an address may be a local reverse proxy that speaks for many clients, but
	// no one address can take every place.
	PerClient int
	// Total is how many checks the server runs at once. A check takes its place only
	// once its whole body is read: a slow body holds none.
	Total int
	// Buffered bounds the memory of the check bodies being read, all clients
	// together: a body's declared length is taken before any byte of it is read (a
	// body of unknown length takes its buffer's capacity as it grows), and given back
	// once its rows are read. A body that does not fit is refused 503 with Retry-After.
	Buffered int
	// MaxDuration bounds one check from the moment it runs; the rows not answered by
	// then are named not checked in the answer's last line (CSV: its trailer).
	MaxDuration time.Duration
	// WriteStall is how long the answer may wait for the client to take it (the
	// connection's write deadline, moved ahead before each write); a client that
	// stops reading ends its check that much after the network buffers fill.
	WriteStall time.Duration
}

func (l BulkLimits) withDefaults() BulkLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.Rows, DefaultCheckRows)
	def(&l.Body, DefaultCheckBody)
	def(&l.PerClient, DefaultChecksPerClient)
	def(&l.Total, DefaultChecksTotal)
	def(&l.Buffered, l.Total*l.Body)
	if l.MaxDuration <= 0 {
		l.MaxDuration = DefaultCheckMaxDuration
	}
	if l.WriteStall <= 0 {
		l.WriteStall = DefaultCheckWriteStall
	}
	return l
}

// checkGate admits checks in two steps (docs/INTERFACE.md §4.7): a client's place
// (enterClient, before its body is read: at most PerClient per client, exempt clients
// too), then, once the whole body is read and its rows are good, a place among the
// checks running (enterRun, at most Total). Between the two, the bodies being read hold
// memory, not places: at most Buffered bytes in all (reserve, before the memory is
// allocated). The zero value is not
// ready: use newCheckGate.
type checkGate struct {
	limits BulkLimits
	// closing is done when the server begins to shut down (close): no check is taken.
	closing  context.Context
	closeNow context.CancelFunc
	// stop is done when the running checks are cut (drain, after -drain-delay): they
	// end with their rows not checked named.
	stop     context.Context
	drainNow context.CancelFunc

	mu       sync.Mutex
	total    int
	clients  map[netip.Addr]int
	buffered int
}

func newCheckGate(l BulkLimits) *checkGate {
	closing, closeNow := context.WithCancel(context.Background())
	stop, drain := context.WithCancel(context.Background())
	return &checkGate{limits: l, clients: map[netip.Addr]int{}, closing: closing, closeNow: closeNow, stop: stop, drainNow: drain}
}

// close refuses new checks and lets the running ones go on: the server begins to shut
// down.
func (g *checkGate) close() { g.closeNow() }

// drain ends the running checks (each answers its rows not checked as such) and
// refuses new ones: the server stops.
func (g *checkGate) drain() {
	g.closeNow()
	g.drainNow()
}

// errShuttingDown refuses a check while the server shuts down.
func errShuttingDown() error {
	return &registry.Error{Code: CodeUnavailable, RetryAfter: checkRetryAfter,
		Message: fmt.Sprintf("the server is shutting down and takes no bulk check; retry in %d s", int(checkRetryAfter/time.Second))}
}

// enterClient takes one of client's places (at most PerClient, or for a client exempt
// from the rate limits clientCap's larger share, max(PerClient, Total/2)) and returns the function that gives it
// back. It returns *registry.Error with CodeTooManyBulkRequests when the client has
// as many checks (running or sending their bodies) as it may, CodeUnavailable when
// the server shuts down.
func (g *checkGate) enterClient(client netip.Addr, exempt bool) (func(), error) {
	if g.closing.Err() != nil {
		return nil, errShuttingDown()
	}
	limit := clientCap(g.limits.PerClient, g.limits.Total, exempt)
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := g.clients[client]; n >= limit {
		return nil, &registry.Error{Code: CodeTooManyBulkRequests, RetryAfter: checkRetryAfter,
			Message: fmt.Sprintf("%s already runs %s, as many as a client may at once (a check counts from its first byte); wait for one to finish (retry in %d s), or send its rows in one check of up to %d rows",
				describeClient(client), phrase.Plural(n, "bulk check"), int(checkRetryAfter/time.Second), g.limits.Rows)}
	}
	g.clients[client]++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.clients[client]--; g.clients[client] <= 0 {
			delete(g.clients, client)
		}
	}, nil
}

// enterRun takes one of the server's places for a check whose body is read, and
// returns the function that gives it back. It returns *registry.Error with
// CodeUnavailable when the server runs as many checks as it may, or shuts down.
func (g *checkGate) enterRun() (func(), error) {
	if g.closing.Err() != nil {
		return nil, errShuttingDown()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.total >= g.limits.Total {
		return nil, &registry.Error{Code: CodeUnavailable, RetryAfter: checkRetryAfter,
			Message: fmt.Sprintf("the server runs as many bulk checks as it may (%d); retry in %d s", g.limits.Total, int(checkRetryAfter/time.Second))}
	}
	g.total++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.total--
	}, nil
}

// reserve takes n bytes of the memory for bodies; false when Buffered would be passed.
func (g *checkGate) reserve(n int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.buffered+n > g.limits.Buffered {
		return false
	}
	g.buffered += n
	return true
}

// release gives back n bytes reserved.
func (g *checkGate) release(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buffered -= n
}

// checkBodyChunk is the first buffer of a body of unknown length (chunked): it
// doubles as the body comes, each growth reserved before it is made.
const checkBodyChunk = 64 << 10

// readCheckBody reads r's body whole, at most the largest body, before the check takes
// a place among those running. The memory it needs is taken from the gate's memory for
// bodies (checkGate.reserve) before it is allocated: the declared Content-Length at
// once, before any byte arrives; a body of unknown length as its buffer grows,
// counted by capacity. release gives it back; call it once the rows are read (they
// hold no reference to the body). It returns *registry.Error with CodeUnavailable and
// Retry-After when the memory is taken, tooLarge past the largest body, and
// CodeInvalidRequest for a body that cannot be read. It is bounded in time by the
// server's ReadTimeout (stack.ReadTimeout) and the client's place (enterClient).
func (s *Server) readCheckBody(w http.ResponseWriter, r *http.Request, tooLarge error) (body []byte, release func(), err error) {
	limit := s.bulkLimits.Body
	held := 0
	release = func() {
		s.checks.release(held)
		held = 0
	}
	full := &registry.Error{Code: CodeUnavailable, RetryAfter: checkRetryAfter,
		Message: fmt.Sprintf("the server holds as many bulk check bodies as it may (%s); retry in %d s", spelledSize(s.bulkLimits.Buffered), int(checkRetryAfter/time.Second))}
	alloc := func(length, capacity int) ([]byte, bool) {
		if !s.checks.reserve(capacity) {
			return nil, false
		}
		held += capacity
		return make([]byte, length, capacity), true
	}
	rd := http.MaxBytesReader(w, r.Body, int64(limit))
	if cl := r.ContentLength; cl >= 0 {
		// The caller refused a declared length over the largest body; net/http reads
		// no byte past it.
		buf, ok := alloc(int(cl), int(cl))
		if !ok {
			// Answered at once, the body unread (see check).
			w.Header().Set("Connection", "close")
			return nil, release, full
		}
		_, err = io.ReadFull(rd, buf)
		body = buf
	} else {
		buf, ok := alloc(0, min(checkBodyChunk, limit+1))
		if !ok {
			return nil, release, full
		}
		for {
			if len(buf) == cap(buf) {
				old := cap(buf)
				nb, ok := alloc(len(buf), min(2*old, limit+1))
				if !ok {
					return nil, release, full
				}
				copy(nb, buf)
				buf = nb
				s.checks.release(old)
				held -= old
			}
			var n int
			n, err = rd.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err != nil {
				break
			}
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		body = buf
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, release, tooLarge
	case err != nil:
		return nil, release, apiError(registry.CodeInvalidRequest, "the request body could not be read")
	}
	return body, release, nil
}

// checkFormat is the format of a check's body, from its Content-Type and
// Content-Encoding. It returns *registry.Error with CodeUnsupportedMediaType for any
// other media type, a charset other than UTF-8 or a compressed body.
func checkFormat(r *http.Request) (bulk.Format, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	want := "send the rows as JSON (Content-Type: application/json, {\"rows\": [...], \"documents\": [...]}), NDJSON (application/x-ndjson, one row per line) or CSV (text/csv, with a header line)"
	if ct == "" || err != nil {
		return "", apiError(CodeUnsupportedMediaType, "POST /api/v1/check needs a Content-Type: "+want)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return "", apiError(CodeUnsupportedMediaType, fmt.Sprintf("the body must be UTF-8, not %s; convert it and send charset=utf-8", phrase.Quote(cs)))
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return "", apiError(CodeUnsupportedMediaType, fmt.Sprintf("POST /api/v1/check takes an uncompressed body; send it without Content-Encoding, not %s", phrase.Quote(ce)))
	}
	switch mt {
	case mediaJSON:
		return bulk.JSON, nil
	case mediaNDJSON:
		return bulk.NDJSON, nil
	case mediaCSV:
		return bulk.CSV, nil
	}
	return "", apiError(CodeUnsupportedMediaType, fmt.Sprintf("POST /api/v1/check does not take %s: %s", phrase.Quote(mt), want))
}

// answersCSV reports whether the request asks for a CSV answer: Accept names text/csv
// and does not prefer application/x-ndjson.
func answersCSV(r *http.Request) bool {
	var qCSV, qNDJSON float64
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil {
				continue
			}
		}
		switch mt {
		case mediaCSV:
			qCSV = max(qCSV, q)
		case mediaNDJSON:
			qNDJSON = max(qNDJSON, q)
		}
	}
	return qCSV > 0 && qCSV >= qNDJSON
}

// checkDocuments are the document kinds a check asks about: those of the body
// (fromBody) or of the documents query parameters (each a comma-separated list), in
// the code list's spelling, without repeats; bulk.DefaultDocuments when neither names
// any. It returns *registry.Error with CodeInvalidRequest for a kind the code list
// does not have (naming those it has), or documents given both ways.
func checkDocuments(fromBody, fromQuery []string) ([]string, error) {
	var given []string
	for _, q := range fromQuery {
		given = append(given, strings.Split(q, ",")...)
	}
	if len(fromBody) > 0 {
		if len(given) > 0 {
			return nil, apiError(registry.CodeInvalidRequest, `documents are given both in the body and in the query; give them in one place`)
		}
		given = fromBody
	}
	return bulk.ParseDocuments(given)
}

// checkReadOptions reads the CSV column parameters. It returns *registry.Error with
// CodeInvalidRequest when they are given for a body that is not CSV.
func checkReadOptions(r *http.Request, f bulk.Format) (bulk.ReadOptions, error) {
	q := r.URL.Query()
	opts := bulk.ReadOptions{Column: q.Get("column"), CountryColumn: q.Get("countryColumn"), ReferenceColumn: q.Get("referenceColumn")}
	if f != bulk.CSV && opts != (bulk.ReadOptions{}) {
		return opts, apiError(registry.CodeInvalidRequest, "column, countryColumn and referenceColumn name columns of a CSV body; a JSON or NDJSON row names its members input, country and reference")
	}
	return opts, nil
}

// checkRow is a row of the body, or why it could not be read.
type checkRow struct {
	row bulk.Row
	err error
}

// readCheckRows reads every row of rd, at most max. It returns *registry.Error with
// CodeTooManyRows beyond max, and CodeInvalidRequest for a body that cannot be read
// (it does not start as its format must, or ends in the middle) or holds no row that
// can be read.
func readCheckRows(rd *bulk.Reader, f bulk.Format, max int) ([]checkRow, error) {
	var rows []checkRow
	readable := 0
	for {
		row, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var re *bulk.ReadError
		if err != nil && (!errors.As(err, &re) || re.Fatal) {
			return nil, unreadableBody(f, err)
		}
		if len(rows) == max {
			return nil, apiError(CodeTooManyRows, fmt.Sprintf("the body holds more than %d rows, the most one check takes; split it into checks of at most %d rows each", max, max))
		}
		if err == nil {
			readable++
		}
		rows = append(rows, checkRow{row, err})
	}
	switch {
	case len(rows) == 0:
		return nil, apiError(registry.CodeInvalidRequest, "the body holds no rows; send at least one participant id or VAT or company number")
	case readable == 0:
		return nil, unreadableBody(f, rows[0].err)
	}
	return rows, nil
}

// unreadableBody is the invalid_request error of a body that cannot be read as f.
func unreadableBody(f bulk.Format, err error) error {
	name := map[bulk.Format]string{bulk.JSON: "JSON", bulk.NDJSON: "NDJSON", bulk.CSV: "CSV"}[f]
	return apiError(registry.CodeInvalidRequest, fmt.Sprintf("the body cannot be read as %s: %v", name, err))
}

// check serves POST /api/v1/check (docs/INTERFACE.md §4.7). Everything that can be
// refused is refused before the first byte of the answer, with a 4xx or 503 error:
// the media type, the parameters, the client's checks at once, the body's size, every
// row read, the documents, the checks running (a server-wide place is taken only once
// the whole body is read). Then the answer streams: NDJSON lines as rows finish, or a
// CSV in input order with the summary in a trailer; a check cut short (its time is up,
// the server shuts down) ends naming the rows not checked.
func (s *Server) check(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	format, err := checkFormat(r)
	if err != nil {
		return err
	}
	reg, network, err := s.network(r)
	if err != nil {
		return err
	}
	opts, err := checkReadOptions(r, format)
	if err != nil {
		return err
	}
	tooLarge := apiError(CodeBodyTooLarge, fmt.Sprintf("the body is over %s, the most one check takes; split the rows into several checks (at most %d rows each)",
		spelledSize(s.bulkLimits.Body), s.bulkLimits.Rows))
	// Refused before reading, so that a client sending Expect: 100-continue is not
	// told to go on with a body that will not be read.
	if r.ContentLength > int64(s.bulkLimits.Body) {
		return tooLarge
	}
	key, exempt := s.clientOf(r)
	// A client's place first, counted for every client (rate-limit exempt or not,
	// BulkLimits.PerClient);
	// then the body, whole, before a place among the checks running: a body that is
	// slow to come holds its client's place and the bytes it sent, never the server's.
	leaveClient, err := s.checks.enterClient(key, exempt)
	if err != nil {
		// Answered at once, its body unread: net/http would otherwise read the body
		// (up to 256 KiB) before answering, and a client that sends none would wait
		// for the read timeout.
		w.Header().Set("Connection", "close")
		return err
	}
	defer leaveClient()
	body, release, err := s.readCheckBody(w, r, tooLarge)
	defer release()
	if err != nil {
		return err
	}
	// Every row is read before the documents are asked for: "documents" after "rows"
	// is taken in the one reading of the body.
	opts.DocumentsLast = true
	rd, err := bulk.NewReader(bytes.NewReader(body), format, opts)
	if err != nil {
		return unreadableBody(format, err)
	}
	rows, err := readCheckRows(rd, format, s.bulkLimits.Rows)
	if err != nil {
		return err
	}
	docs, err := checkDocuments(rd.Documents(), r.URL.Query()["documents"])
	if err != nil {
		return err
	}
	// The rows are read (they hold copies, not the body): the body's memory is given
	// back before the check runs, so only bodies being read hold it (docs/INTERFACE.md
	// §4.7).
	inputHeader, dialect := rd.Header(), rd.Dialect()
	rd, body = nil, nil
	release()
	leaveRun, err := s.checks.enterRun()
	if err != nil {
		return err
	}
	defer leaveRun()
	if l := s.limitREST; l != nil && !exempt {
		// One request was charged on arrival; the rest of the check's cost now.
		if extra := checkCost(len(rows)) - 1; extra > 0 {
			d := l.decide.Charge(r.Context(), key, float64(extra))
			w.Header()["Ratelimit"] = []string{l.rateLimitHeader(d, 0)}
		}
	}

	csvOut := answersCSV(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	sw := &checkWriter{rc: http.NewResponseController(w), w: w, stall: s.bulkLimits.WriteStall, written: make([]bool, len(rows))}
	if csvOut {
		h.Set("Content-Type", "text/csv; charset=utf-8; header=present")
		h.Set("Trailer", checkSummaryTrailer)
		cw := bulk.NewCSVWriter(w, inputHeader, docs)
		if format == bulk.CSV {
			// Answered in the dialect it was given: delimiter and byte order mark.
			cw.SetDialect(dialect)
		}
		sw.enc, sw.flush, sw.csv = cw, cw.Flush, cw
	} else {
		h.Set("Content-Type", mediaNDJSON)
		nw := bulk.NewNDJSONWriter(w)
		sw.enc, sw.flush = nw, nw.Flush
	}
	sw.extend(time.Now())
	w.WriteHeader(http.StatusOK)
	_ = sw.rc.Flush()

	i := 0
	next := func() (bulk.Row, error) {
		if i == len(rows) {
			return bulk.Row{}, io.EOF
		}
		cr := rows[i]
		rows[i] = checkRow{} // written rows need not stay
		i++
		return cr.row, cr.err
	}
	// The check ends when its rows are answered, the client goes (or stops reading:
	// the writes fail), its time is up, or the server shuts down; in the last two
	// cases the answer ends saying which rows were not checked.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	timeUp := time.AfterFunc(s.bulkLimits.MaxDuration, func() { cancel(errCheckTimeUp) })
	defer timeUp.Stop()
	stopDrain := context.AfterFunc(s.checks.stop, func() {
		cancel(errCheckShutdown)
		// Its last writes get checkShutdownWrite, not the write stall, so that a client
		// that stopped reading does not hold the server's drain (docs/INTERFACE.md §4.7).
		sw.cut(time.Now().Add(checkShutdownWrite))
	})
	defer stopDrain()
	// One span for the whole check: its rows' upstream work is counted on it rather
	// than traced call by call (10,000 rows would be hundreds of thousands of spans,
	// more than the exporter's queue holds; docs/DEPLOY.md "Traces (OpenTelemetry)").
	var calls func() int64
	if s.tracer != nil {
		ctx, calls = telemetry.WithoutSpans(ctx)
	}
	sum, err := bulk.Run(ctx, bulk.Config{Registry: reg, Documents: docs}, next, sw, bulk.RunOptions{Ordered: csvOut})
	if span := trace.SpanFromContext(ctx); calls != nil && span.IsRecording() {
		span.SetAttributes(attribute.Int("peppolgate.check.rows", sum.Rows), attribute.Int64("peppolgate.upstream_calls", calls()))
	}
	outcome := "complete"
	switch cause := context.Cause(ctx); {
	case err == nil:
	case sw.failed() != nil:
		err = sw.failed()
		outcome = "client went away"
		if errors.Is(err, os.ErrDeadlineExceeded) {
			outcome = "client stopped reading"
		}
	case r.Context().Err() != nil:
		// net/http may end the request when a write of its own buffer fails before
		// any write of the check's has: past the write deadline, the client stopped
		// reading.
		outcome = "client went away"
		if sw.stalled(time.Now()) {
			outcome = "client stopped reading"
		}
	case errors.Is(cause, errCheckTimeUp), errors.Is(cause, errCheckShutdown):
		outcome = "cut short: " + cause.Error()
		sum.SetElapsed(time.Since(start))
		sw.closeUnchecked(sum, s.unchecked(cause, sw.notWritten()))
	default:
		outcome = "cut short"
	}
	sw.stop()
	sum.SetElapsed(time.Since(start))
	s.logCheck(r, network, format, csvOut, sum, outcome, err)
	return nil
}

// checkShutdownWrite is how long a check's last writes may wait for its client once
// the server begins to shut down: well within the binary's drain (20 s).
const checkShutdownWrite = 3 * time.Second

// Why a check ended before its rows were answered, besides its client.
var (
	errCheckTimeUp   = errors.New("its time is up")
	errCheckShutdown = errors.New("the server is shutting down")
)

// checkUnchecked names the rows of a check cut short (its time is up, the server shuts
// down) that were not answered: the last NDJSON line carries it beside the summary.
type checkUnchecked struct {
	Rows      int    `json:"rows" jsonschema:"how many rows were not checked"`
	Indexes   string `json:"indexes" jsonschema:"the indexes of the rows not checked, as ranges: 3-7,9"`
	Reason    string `json:"reason" jsonschema:"why the check stopped: time_limit (it ran for the longest a check may) or shutting_down (the server is stopping)"`
	Message   string `json:"message" jsonschema:"what happened and what to do"`
	Retryable bool   `json:"retryable" jsonschema:"whether checking these rows again may help (always true)"`
}

// unchecked describes the rows not written of a check ended by cause.
func (s *Server) unchecked(cause error, notWritten []int) checkUnchecked {
	u := checkUnchecked{Rows: len(notWritten), Indexes: indexRanges(notWritten), Retryable: true}
	if errors.Is(cause, errCheckTimeUp) {
		u.Reason = "time_limit"
		u.Message = fmt.Sprintf("the check ran for %v, the longest a check may; check the rows not checked again, in smaller checks", s.bulkLimits.MaxDuration)
	} else {
		u.Reason = "shutting_down"
		u.Message = fmt.Sprintf("the server is shutting down; check the rows not checked again in %d s", int(checkRetryAfter/time.Second))
	}
	return u
}

// indexRanges writes sorted indexes as ranges: 3-7,9.
func indexRanges(idx []int) string {
	var b strings.Builder
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// logCheck writes the one log line of a check, after its answer, with its summary.
// outcome says how it ended: complete, client went away, client stopped reading, cut
// short (why).
func (s *Server) logCheck(r *http.Request, network string, in bulk.Format, csvOut bool, sum bulk.Summary, outcome string, err error) {
	level := slog.LevelInfo
	if err != nil && outcome != "client went away" {
		level = slog.LevelWarn
	}
	if !s.log.Enabled(r.Context(), level) {
		return
	}
	out := "ndjson"
	if csvOut {
		out = "csv"
	}
	counts := make([]any, 0, len(bulk.Statuses()))
	for _, st := range bulk.Statuses() {
		counts = append(counts, slog.Int(string(st), sum.Counts.Of(st)))
	}
	attrs := []slog.Attr{
		slog.String("request_id", RequestID(r.Context())),
		slog.String("network", network),
		slog.String("in", string(in)),
		slog.String("out", out),
		slog.Int("rows", sum.Rows),
		slog.Group("counts", counts...),
		slog.Int64("duration_ms", sum.ElapsedMS),
		slog.String("outcome", outcome),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	s.log.LogAttrs(r.Context(), level, "check", attrs...)
}

// How a check's answer is pushed to the client: at once when checkFlushLines lines
// wait, else at most checkFlushDelay after the first of them was written. Measured
// (BenchmarkCheckCached, 10,000 cached rows over HTTP, 2 CPUs): a flush per line
// 51,000–57,000 rows/s; these batches 128,000 (a flush per 16 lines without the timer
// 103,000, per 256 108,000). A row that finishes alone still reaches the client
// within checkFlushDelay.
const (
	checkFlushLines = 16
	checkFlushDelay = 20 * time.Millisecond
)

// checkWriter writes a check's answer as it is made, in small batches (checkFlushLines,
// checkFlushDelay). Before each write it moves the connection's write deadline stall
// ahead (extend), so that a long check outlives the
// server's write timeout while the client takes its answer, and a client that stops
// taking it fails the write at most stall later (docs/INTERFACE.md §4.7). Its methods
// may be called while its timer pushes: mu guards the response.
type checkWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	enc bulk.Writer
	// flush pushes what enc has buffered to w.
	flush func() error
	// csv is enc for a CSV answer, nil for NDJSON.
	csv   *bulk.CSVWriter
	stall time.Duration

	mu sync.Mutex
	// pending counts the lines written since the last push; timer pushes them
	// checkFlushDelay after the first.
	pending int
	timer   *time.Timer
	// stopped is set by stop: nothing may be written after the handler returns.
	stopped bool
	// err is the first write's error.
	err error
	// deadline is the connection's write deadline as last set.
	deadline time.Time
	// cutoff, once set (cut, Unix nanoseconds), is the latest write deadline: extend
	// moves the deadline no further. It is read without mu: cut is called while a
	// write may hold mu.
	cutoff atomic.Int64
	// ended is set by stop.
	ended atomic.Bool
	// written marks the rows whose result was written, by index.
	written []bool
}

// Write writes one result; it is pushed to the client with the next batch.
func (c *checkWriter) Write(res bulk.Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	// The encoder's buffer may spill to the connection here: the deadline must hold.
	c.extend(time.Now())
	if err := c.enc.Write(res); err != nil {
		c.err = err
		return err
	}
	if res.Index >= 0 && res.Index < len(c.written) {
		c.written[res.Index] = true
	}
	c.pending++
	switch {
	case c.pending >= checkFlushLines:
		c.push()
	case c.pending == 1:
		if c.timer == nil {
			c.timer = time.AfterFunc(checkFlushDelay, c.tick)
		} else {
			c.timer.Reset(checkFlushDelay)
		}
	}
	return c.err
}

// tick pushes the lines waiting, unless they were pushed or the writer stopped.
func (c *checkWriter) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped && c.pending > 0 && c.err == nil {
		c.push()
	}
}

// Close writes the summary (the NDJSON summary line, or the CSV's trailer) and
// pushes what is left.
func (c *checkWriter) Close(sum bulk.Summary) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.extend(time.Now())
	if err := c.enc.Close(sum); err != nil {
		c.err = err
		return err
	}
	if c.csv != nil {
		c.w.Header().Set(checkSummaryTrailer, summaryField(sum))
	}
	c.push()
	return c.err
}

// closeUnchecked ends the answer of a check cut short: the NDJSON summary line with
// the rows not checked beside it, or the CSV's summary trailer naming them.
func (c *checkWriter) closeUnchecked(sum bulk.Summary, u checkUnchecked) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.stopped {
		return
	}
	c.extend(time.Now())
	if c.csv != nil {
		if c.err = c.csv.Close(sum); c.err != nil {
			return
		}
		c.w.Header().Set(checkSummaryTrailer, summaryField(sum)+fmt.Sprintf(", not_checked=%d, not_checked_rows=%q, reason=%q, retryable=?1", u.Rows, u.Indexes, u.Reason))
	} else {
		if c.err = c.flush(); c.err != nil {
			return
		}
		line, _ := json.Marshal(checkSummaryLine{Summary: sum, NotChecked: &u})
		if _, c.err = c.w.Write(append(line, '\n')); c.err != nil {
			return
		}
	}
	c.push()
}

// notWritten returns the indexes of the rows whose result was not written, in order.
func (c *checkWriter) notWritten() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for i, ok := range c.written {
		if !ok {
			out = append(out, i)
		}
	}
	return out
}

// failed returns the first write's error, or nil.
func (c *checkWriter) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// stalled reports whether the connection's write deadline, as last moved, had passed
// at now: a write blocked on a client that stopped reading failed then.
func (c *checkWriter) stalled(now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.deadline.IsZero() && !now.Before(c.deadline)
}

// stop ends the timer's pushes; call it before the handler returns.
func (c *checkWriter) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.ended.Store(true)
	if c.timer != nil {
		c.timer.Stop()
	}
}

// push sends what is written to the client; c.mu is held.
func (c *checkWriter) push() {
	c.pending = 0
	if c.timer != nil {
		c.timer.Stop()
	}
	c.extend(time.Now())
	if err := c.flush(); err != nil {
		c.err = err
		return
	}
	if err := c.rc.Flush(); err != nil {
		c.err = err
	}
}

// extend moves the connection's write deadline stall past now, unless it was moved in
// the last sixteenth of stall (net/http's WriteTimeout counts from the request's
// start). It is called
// before each write, never only after one: a deadline moved after each push that the
// kernel's socket buffers took lets a client that stopped reading hold its check
// until megabytes of buffers fill, and then the whole deadline more. The read deadline
// needs no care: net/http clears it for its background read once the body is read,
// and the body is read before the answer starts.
func (c *checkWriter) extend(now time.Time) {
	if c.deadline.Sub(now) > c.stall-c.stall/16 {
		return
	}
	c.deadline = now.Add(c.stall)
	if cut := c.cutoff.Load(); cut != 0 && c.deadline.UnixNano() > cut {
		c.deadline = time.Unix(0, cut)
	}
	_ = c.rc.SetWriteDeadline(c.deadline)
	// cut may have run since the cutoff was read: its deadline wins.
	if cut := c.cutoff.Load(); cut != 0 && c.deadline.UnixNano() > cut {
		c.deadline = time.Unix(0, cut)
		_ = c.rc.SetWriteDeadline(c.deadline)
	}
}

// cut makes at the latest write deadline, at once (a write blocked now fails at at)
// and for every write after. It does not take mu: a write may hold it.
func (c *checkWriter) cut(at time.Time) {
	if c.ended.Load() {
		return // the handler returned: the connection may serve another request
	}
	c.cutoff.Store(at.UnixNano())
	_ = c.rc.SetWriteDeadline(at)
}

// summaryField is a check's summary as a structured field dictionary (RFC 8941):
// rows, the rows of each status and elapsed_ms, e.g. "rows=3, receives=1, blocked=0,
// registered_without_that_document=0, not_registered=1, invalid=1, failed=0,
// elapsed_ms=120".
func summaryField(sum bulk.Summary) string {
	parts := []string{"rows=" + strconv.Itoa(sum.Rows)}
	for _, st := range bulk.Statuses() {
		parts = append(parts, string(st)+"="+strconv.Itoa(sum.Counts.Of(st)))
	}
	parts = append(parts, "elapsed_ms="+strconv.FormatInt(sum.ElapsedMS, 10))
	return strings.Join(parts, ", ")
}

// checkCost is how many requests of the REST API's rate limit a check of rows costs.
func checkCost(rows int) int { return int(math.Ceil(float64(rows) / checkRowsPerRequest)) }

// checkExampleCSV is the CSV body of the documents' example, as captured in
// discovery/examples/checkParticipants.200.csv.
const checkExampleCSV = "Customer number;Name;VAT number;Country\n" +
	"C-1001;Vandelanotte;BE0677424046;BE\n" +
	"C-1003;Svensk Bygg;556036-0793;SE\n" +
	"C-1004;Nobody;0208:0999999999;\n"

// checkSummaryLine is the last line of an NDJSON answer.
type checkSummaryLine struct {
	Summary bulk.Summary `json:"summary" jsonschema:"the check's summary: rows, the rows of each status, the time taken"`
	// NotChecked is set when the check was cut short.
	NotChecked *checkUnchecked `json:"notChecked,omitempty" jsonschema:"set when the check was cut short (its time was up, or the server shut down): the rows not checked, which may be checked again"`
}

// checkRowSchema is the schema of one row of a JSON or NDJSON body: an object, or a
// string (the input alone).
func checkRowSchema() *jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	return &jsonschema.Schema{
		Description: "a row: {input, country, reference}, or a string (the input alone)",
		OneOf: []*jsonschema.Schema{
			str("the input alone: a participant id or a VAT or company number in any notation"),
			{
				Type:                 "object",
				Required:             []string{"input"},
				AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				Properties: map[string]*jsonschema.Schema{
					"input":     str("a participant id (<scheme>:<value>) or a VAT or company number in any notation, e.g. BE 0677.424.046"),
					"country":   str("an ISO 3166 alpha-2 country hint: only readings of input in this country are tried"),
					"reference": str("the caller's own key for the row (e.g. a customer number), echoed in the answer"),
				},
			},
		},
	}
}

// checkRequestSchema is the schema of a JSON body.
func (s *Server) checkRequestSchema() *jsonschema.Schema {
	enum := tools.Enum(bulk.Kinds())
	return &jsonschema.Schema{
		Type:                 "object",
		Required:             []string{"rows"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Properties: map[string]*jsonschema.Schema{
			"documents": {Type: "array", Description: "the document kinds to ask about, categories of the Peppol code list (any case); default Invoice and Credit Note. Before or after rows.",
				Items: &jsonschema.Schema{Type: "string", Enum: enum}},
			"rows": {Type: "array", MinItems: ptr(1), MaxItems: ptr(s.bulkLimits.Rows), Description: fmt.Sprintf("the rows, 1 to %d", s.bulkLimits.Rows),
				Items: checkRowSchema()},
		},
	}
}

// checkRoutes describes and serves the bulk check (docs/INTERFACE.md §4.7).
func (s *Server) checkRoutes(k docKit) []route {
	idCols, countryCols, refCols := bulk.Columns()
	result := tools.Schema[bulk.Result]()
	result.Title = "CheckResult"
	summary := tools.Schema[checkSummaryLine]()
	summary.Title = "CheckSummary"
	ndjsonRows := &jsonschema.Schema{Type: "string", ContentMediaType: mediaNDJSON,
		Description:   "one row per line, each a JSON object {input, country, reference} or a string; blank lines are skipped; a line that is no row is answered as an invalid row",
		ContentSchema: &jsonschema.Schema{Type: "array", Items: checkRowSchema()}}
	csvRows := &jsonschema.Schema{Type: "string", ContentMediaType: mediaCSV,
		Description: "a header line, then one row per line; the delimiter (comma, semicolon or tab) is read from the header. The identifier column is found by its name (" +
			strings.Join(idCols[:8], ", ") + ", …) unless `column` names it; the country column (" + strings.Join(countryCols, ", ") +
			") and the reference column (" + strings.Join(refCols[:6], ", ") + ", …) likewise, or `countryColumn` and `referenceColumn` (`-` for none). " +
			"A line the CSV cannot hold (a stray quote) is answered as an invalid row; a quote left open that swallows the lines after it is a 400 invalid_request naming its line"}
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodPost, Path: "/api/v1/check", OperationID: "checkParticipants", Tag: "participants",
			Summary: "Check a list of customers against Peppol",
			Description: "Checks up to " + strconv.Itoa(s.bulkLimits.Rows) + " rows at once (a customer list: participant ids, or VAT or company numbers in any notation, " +
				"each with an optional country hint and reference): whether each can receive the document kinds asked about, under which participant id, " +
				"through which access point. Each row's status is `receives`, `blocked` (registered and listing the documents, but sending to it fails right now: " +
				"`blocked` gives the warning codes, e.g. `certificate_expired` or `smp_signature_invalid`; `accessPoint` is then absent when the SMP answer is not validly signed, " +
				"as an unverified URL is never shown), `registered_without_that_document`, `not_registered` (a reading whose check digit fails says so in an `identifier` warning), `invalid` or `failed` " +
				"(the network could not be asked; `error.retryable` says whether asking again may help). Rows naming the same participant are looked up once; " +
				"a slow or failing SMP holds up only its own rows.\n\n" +
				"The body is JSON, NDJSON or CSV (by `Content-Type`). The answer is NDJSON, one line per row as it finishes (`index` is the row's position in the input, from 0), " +
				"then a last line with the summary; or with `Accept: text/csv` a CSV in input order, the input's columns followed by the answer's, " +
				"in the dialect of a CSV body (delimiter, byte order mark), with the summary in the HTTP trailer `" + checkSummaryTrailer + "`. Everything that can be refused (media type, size, rows, documents, checks running) " +
				"is refused with a 4xx before the answer starts; a check takes a server-wide place once its whole body has arrived. A client that disconnects, or stops reading the answer, stops the check. " +
				"A check that runs past its longest time or while the server shuts down ends with the summary line naming the rows not checked (`notChecked`, retryable; CSV: in the trailer). " +
				"Each check costs ⌈rows/" + strconv.Itoa(checkRowsPerRequest) + "⌉ requests of the REST API's rate limit.",
			Params: k.network(
				discovery.Param{Name: "documents", In: "query", Description: "The document kinds to ask about, comma-separated or repeated: categories of the Peppol code list (any case), " +
					"e.g. `Invoice,Credit Note,Order`; default Invoice and Credit Note. A JSON body may name them in `documents` instead.",
					Schema: &jsonschema.Schema{Type: "string"}, Example: "Invoice,Credit Note"},
				discovery.Param{Name: "column", In: "query", Description: "CSV only: the name of the column with the participant id or VAT or company number; default: found by its name.",
					Schema: &jsonschema.Schema{Type: "string"}, Example: "VAT number"},
				discovery.Param{Name: "countryColumn", In: "query", Description: "CSV only: the name of the column with the country hint; `-` for none; default: found by its name.",
					Schema: &jsonschema.Schema{Type: "string"}, Example: "Country"},
				discovery.Param{Name: "referenceColumn", In: "query", Description: "CSV only: the name of the column with the caller's reference; `-` for none; default: found by its name.",
					Schema: &jsonschema.Schema{Type: "string"}, Example: "Customer number"},
			),
			Body: &discovery.Body{Required: true,
				Description: fmt.Sprintf("The rows, 1 to %d, at most %s: JSON {\"rows\": [...], \"documents\": [...]}, NDJSON (one row per line) or CSV (with a header line).",
					s.bulkLimits.Rows, spelledSize(s.bulkLimits.Body)),
				MediaTypes: []string{mediaJSON, mediaNDJSON, mediaCSV}, Schema: s.checkRequestSchema(),
				Examples: map[string]any{
					"ledger": map[string]any{"documents": []any{"Invoice", "Credit Note"}, "rows": []any{
						map[string]any{"input": "BE 0677.424.046", "reference": "C-1001"},
						map[string]any{"input": "0192:923609016", "reference": "C-1002"},
						map[string]any{"input": "556036-0793", "country": "SE", "reference": "C-1003"},
						map[string]any{"input": "0208:0999999999", "reference": "C-1004"},
						"hello world",
					}},
				},
				Text: map[string]discovery.TextBody{
					mediaNDJSON: {Schema: ndjsonRows, Examples: map[string]string{
						"ledger": "{\"input\": \"BE 0677.424.046\", \"reference\": \"C-1001\"}\n\"0192:923609016\"\n{\"input\": \"556036-0793\", \"country\": \"SE\"}\n",
					}},
					mediaCSV: {Schema: csvRows, Examples: map[string]string{
						"ledger": checkExampleCSV,
					}},
				}},
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "One line per row as it finishes, then the summary.", MediaType: mediaNDJSON,
					Events: []discovery.Event{
						{Name: "result", Description: "One per row, as soon as it is answered (not in input order: index says which row).", Schema: result},
						{Name: "summary", Description: "Last: how many rows, how many of each status, and the time taken.", Schema: summary},
					}},
				{Status: http.StatusOK, Description: "With Accept: text/csv, a CSV in input order: the input's columns (input, country, reference for JSON and NDJSON bodies), then " +
					strings.Join(bulk.AnswerColumns([]string{"<kind>"}), ", ") + " (one receives_ column per document kind asked about, yes or no: whether it can be sent right now, not merely listed); the summary in the trailer " + checkSummaryTrailer + ".",
					MediaType: mediaCSV},
			},
			Errors: append([]registry.Code{registry.CodeInvalidRequest, CodeUnsupportedMediaType, CodeBodyTooLarge, CodeTooManyRows,
				CodeTooManyBulkRequests, CodeUnavailable}, commonErrors()...),
			Headers: map[string]string{
				"Trailer": "CSV answers: `" + checkSummaryTrailer + "`, the trailer sent after the body",
				checkSummaryTrailer: "CSV answers, as an HTTP trailer after the body: the summary as a structured-field dictionary (RFC 8941), " +
					"e.g. `rows=3, receives=1, blocked=0, registered_without_that_document=0, not_registered=1, invalid=1, failed=0, elapsed_ms=120`",
			},
		}, handler: s.check, class: classREST},
	}
}
