package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/phrase"
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
)

// checkRowsPerRequest is how many rows of a check cost one request of the REST API's
// rate limit: a check of n rows costs ⌈n/100⌉ requests. A row is cheaper than a
// lookup of its own because rows naming the same participant are looked up once and
// the registry keeps the upstream load polite whatever the rows (per-SMP-host caps,
// the Directory limiter); the cost keeps the bulk endpoint from being a way around
// the REST limit.
const checkRowsPerRequest = 100

// checkIdleTimeout is how long a check's answer may go without a line being written:
// each line pushes the connection's write deadline this far ahead, so a check outlives the
// server's WriteTimeout (stack.WriteTimeout) as long as it makes progress. It is well
// above the longest a row can take (a few lookups, each bounded by the registry).
const checkIdleTimeout = 2 * time.Minute

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

// BulkLimits bound POST /api/v1/check. Zero fields take the defaults
// (DefaultCheckRows, DefaultCheckBody, DefaultChecksPerClient, DefaultChecksTotal).
type BulkLimits struct {
	// Rows is how many rows one check may hold.
	Rows int
	// Body is the largest body, in bytes.
	Body int
	// PerClient is how many checks one client (its IP address, an IPv6 client's /64)
	// may run at once; clients in Config.RateLimitExempt are not counted.
	PerClient int
	// Total is how many checks the server runs at once.
	Total int
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
	return l
}

// checkGate counts the checks running, per client and in all. The zero value is not
// ready: use newCheckGate.
type checkGate struct {
	limits  BulkLimits
	mu      sync.Mutex
	total   int
	running map[netip.Addr]int
}

func newCheckGate(l BulkLimits) *checkGate {
	return &checkGate{limits: l, running: map[netip.Addr]int{}}
}

// enter admits one check of client (counted per client unless exempt) and returns
// the function that lets it go. It returns *registry.Error with
// CodeTooManyBulkRequests when the client runs as many checks as it may, and
// CodeUnavailable when the server does.
func (g *checkGate) enter(client netip.Addr, exempt bool) (func(), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.total >= g.limits.Total {
		return nil, &registry.Error{Code: CodeUnavailable, RetryAfter: checkRetryAfter,
			Message: fmt.Sprintf("the server runs as many bulk checks as it may (%d); retry in %d s", g.limits.Total, int(checkRetryAfter/time.Second))}
	}
	if !exempt && g.running[client] >= g.limits.PerClient {
		return nil, &registry.Error{Code: CodeTooManyBulkRequests, RetryAfter: checkRetryAfter,
			Message: fmt.Sprintf("%s already runs %s, as many as a client may at once; wait for one to finish (retry in %d s), or send its rows in one check of up to %d rows",
				describeClient(client), phrase.Plural(g.running[client], "bulk check"), int(checkRetryAfter/time.Second), g.limits.Rows)}
	}
	g.total++
	if !exempt {
		g.running[client]++
	}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.total--
		if !exempt {
			if g.running[client]--; g.running[client] <= 0 {
				delete(g.running, client)
			}
		}
	}, nil
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
// refused is refused before the first byte of the answer, with a 4xx error: the
// media type, the parameters, the number of checks running, the body's size, every
// row read, the documents. Then the answer streams: NDJSON lines as rows finish, or a
// CSV in input order with the summary in a trailer.
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
	client := clientAddr(r, s.trustedProxies)
	exempt := isTrusted(client, s.rateLimitExempt)
	key := bucketKey(client)
	leave, err := s.checks.enter(key, exempt)
	if err != nil {
		return err
	}
	defer leave()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.bulkLimits.Body)))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge
	case err != nil:
		return apiError(registry.CodeInvalidRequest, "the request body could not be read")
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
	if l := s.limitREST; l != nil && !exempt {
		// One request was charged on arrival; the rest of the check's cost now.
		if extra := checkCost(len(rows)) - 1; extra > 0 {
			d := l.charge(key, float64(extra))
			w.Header()["Ratelimit"] = []string{l.rateLimitHeader(d, 0)}
		}
	}

	csvOut := answersCSV(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	sw := &checkWriter{rc: http.NewResponseController(w), w: w}
	if csvOut {
		h.Set("Content-Type", "text/csv; charset=utf-8; header=present")
		h.Set("Trailer", checkSummaryTrailer)
		cw := bulk.NewCSVWriter(w, rd.Header(), docs)
		sw.enc, sw.flush, sw.csv = cw, cw.Flush, true
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
	sum, err := bulk.Run(r.Context(), bulk.Config{Registry: reg, Documents: docs}, next, sw, bulk.RunOptions{Ordered: csvOut})
	sw.stop()
	sum.SetElapsed(time.Since(start))
	s.logCheck(r, network, format, csvOut, sum, err)
	return nil
}

// logCheck writes the one log line of a check, after its answer, with its summary.
func (s *Server) logCheck(r *http.Request, network string, in bulk.Format, csvOut bool, sum bulk.Summary, err error) {
	level, outcome := slog.LevelInfo, "complete"
	if err != nil {
		level, outcome = slog.LevelWarn, "cut short"
		if r.Context().Err() != nil {
			level, outcome = slog.LevelInfo, "client went away"
		}
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
// checkFlushDelay), and each push moves the connection's write deadline
// checkIdleTimeout ahead, so a long check outlives the server's write timeout. Its
// methods may be called while its timer pushes: mu guards the response.
type checkWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	enc bulk.Writer
	// flush pushes what enc has buffered to w.
	flush func() error
	csv   bool

	mu sync.Mutex
	// pending counts the lines written since the last push; timer pushes them
	// checkFlushDelay after the first.
	pending int
	timer   *time.Timer
	// stopped is set by stop: nothing may be written after the handler returns.
	stopped bool
	// err is the first push's error.
	err error
	// deadline is the connection's write deadline as last set.
	deadline time.Time
}

// Write writes one result; it is pushed to the client with the next batch.
func (c *checkWriter) Write(res bulk.Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if err := c.enc.Write(res); err != nil {
		return err
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
	if !c.stopped && c.pending > 0 {
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
	if err := c.enc.Close(sum); err != nil {
		return err
	}
	if c.csv {
		c.w.Header().Set(checkSummaryTrailer, summaryField(sum))
	}
	c.push()
	return c.err
}

// stop ends the timer's pushes; call it before the handler returns.
func (c *checkWriter) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
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
	if err := c.flush(); err != nil {
		c.err = err
		return
	}
	c.extend(time.Now())
	if err := c.rc.Flush(); err != nil {
		c.err = err
	}
}

// extend moves the connection's write deadline checkIdleTimeout past now, when less
// than half of that is left (net/http's WriteTimeout counts from the request's start).
// The read deadline needs no care: net/http clears it for its background read once
// the body is read, and the body is read before the answer starts.
func (c *checkWriter) extend(now time.Time) {
	if c.deadline.Sub(now) > checkIdleTimeout/2 {
		return
	}
	c.deadline = now.Add(checkIdleTimeout)
	_ = c.rc.SetWriteDeadline(c.deadline)
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
				"with the summary in the HTTP trailer `" + checkSummaryTrailer + "`. Everything that can be refused (media type, size, rows, documents, checks running) " +
				"is refused with a 4xx before the answer starts. A client that disconnects stops the check. " +
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
					strings.Join(bulk.AnswerColumns([]string{"<kind>"}), ", ") + " (one receives_ column per document kind asked about, yes or no); the summary in the trailer " + checkSummaryTrailer + ".",
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
