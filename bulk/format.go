package bulk

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/peppolgate/peppolgate/internal/phrase"
)

// Format is how a list of rows is written.
type Format string

// The formats rows are read in.
const (
	// JSON is one object {"rows": [...], "documents": [...]}; each row is an object
	// {"input", "country", "reference"} or a string (the input alone).
	JSON Format = "json"
	// NDJSON is one row per line, an object or a string as in JSON; blank lines are
	// skipped.
	NDJSON Format = "ndjson"
	// CSV is a header line, then one row per line; the delimiter (comma, semicolon or
	// tab) is read from the header.
	CSV Format = "csv"
)

// ReadOptions say which CSV columns hold what; empty means found by name (Columns).
type ReadOptions struct {
	// Column names the column with the identifier or number.
	Column string
	// CountryColumn names the column with the country hint; "-" means none.
	CountryColumn string
	// ReferenceColumn names the column with the caller's reference; "-" means none.
	ReferenceColumn string
	// DocumentsLast says the caller reads every row before it asks for Documents: a
	// JSON "documents" after "rows" is then taken as it comes, in the one reading,
	// rather than looked for first by reading an io.ReadSeeker twice.
	DocumentsLast bool
}

// The column names a CSV header is searched for, best first, compared by their letters
// and digits only, without regard to case ("VAT number", "vat_number" and "VATNumber"
// are one name).
var (
	idColumns = []string{
		"input", "participantid", "participant", "peppolid", "peppolparticipantid", "endpointid",
		"vatnumber", "vatid", "vat", "vatno", "taxid", "taxnumber", "btwnummer", "btw", "tva", "numerotva", "ustidnr", "ustid", "mva", "moms",
		"companynumber", "companyid", "companyregistrationnumber", "registrationnumber", "enterprisenumber", "ondernemingsnummer", "kbo",
		"kvk", "kvknummer", "siren", "siret", "orgnr", "organisationsnummer", "organisasjonsnummer", "cvr", "gln", "identifier", "id",
	}
	countryColumns   = []string{"country", "countrycode", "land", "pays", "landcode"}
	referenceColumns = []string{"reference", "ref", "customernumber", "customerid", "customer", "accountnumber", "account", "debtor", "debtornumber", "clientnumber", "client", "number"}
)

// Columns is the list of column names the CSV reader looks for, for messages and
// documents: the identifier's, the country's and the reference's.
func Columns() (id, country, reference []string) {
	return slices.Clone(idColumns), slices.Clone(countryColumns), slices.Clone(referenceColumns)
}

// ReadError is returned by Reader.Next for input it cannot read.
type ReadError struct {
	// Line is the 1-based line of the input (0 when unknown, e.g. inside a JSON body).
	Line int
	Err  error
	// Fatal says nothing more can be read; otherwise the row is skipped and the next
	// Next reads on (Row.Index then counts the unreadable row).
	Fatal bool
}

func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *ReadError) Unwrap() error { return e.Err }

// Reader reads rows in one Format, streaming: it holds one row at a time.
type Reader struct {
	next   func() (Row, error)
	header []string
	docs   []string
	// docsFirst says docs were read before the rows, wherever the body has them;
	// docsLast that they may be read after them (ReadOptions.DocumentsLast).
	docsFirst, docsLast bool
	index               int
}

// NewReader returns a Reader of r in format f. For CSV it reads the header and finds the
// columns (opts); for JSON it reads up to the rows, taking "documents" when it comes
// first, or wherever it is when r is an io.ReadSeeker (read twice, rows never held). It returns a *ReadError when the header has no identifier column or the JSON
// does not start as it must.
func NewReader(r io.Reader, f Format, opts ReadOptions) (*Reader, error) {
	rd := &Reader{docsLast: opts.DocumentsLast}
	if rs, ok := r.(io.ReadSeeker); ok && f == JSON && !opts.DocumentsLast {
		// A body or a file can be read twice: "documents" may then come after
		// "rows", as well as before.
		if docs, found := documentsOf(rs); found {
			rd.docs, rd.docsFirst = docs, true
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return nil, &ReadError{Err: err, Fatal: true}
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\ufeff")) {
		_, _ = br.Discard(3)
	}
	switch f {
	case CSV:
		return rd, rd.startCSV(br, opts)
	case NDJSON:
		rd.startNDJSON(br)
		return rd, nil
	case JSON:
		return rd, rd.startJSON(br)
	}
	return nil, &ReadError{Err: fmt.Errorf("unknown format %q: use json, ndjson or csv", f), Fatal: true}
}

// Header is the CSV header as read (nil for JSON and NDJSON): the input columns a CSV
// answer repeats.
func (rd *Reader) Header() []string { return rd.header }

// Documents are the document kinds a JSON body names (its "documents" member: before
// "rows", or anywhere when the body can be read twice, an io.ReadSeeker such as a file,
// or after the last row with ReadOptions.DocumentsLast); nil otherwise.
func (rd *Reader) Documents() []string { return rd.docs }

// Next returns the next row, with Index counting from 0, and io.EOF after the last. A
// row it cannot read is a *ReadError; unless it is Fatal, the returned Row has the
// unreadable row's Index and the next call reads on.
func (rd *Reader) Next() (Row, error) {
	row, err := rd.next()
	var re *ReadError
	if err == nil || errors.As(err, &re) && !re.Fatal {
		row.Index = rd.index
		rd.index++
	}
	return row, err
}

// wireRow is a row as JSON and NDJSON give it.
type wireRow struct {
	Input     *string `json:"input"`
	Country   string  `json:"country"`
	Reference string  `json:"reference"`
}

// decodeRow reads one row from raw: a JSON string, or an object with "input".
func decodeRow(raw json.RawMessage) (Row, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Row{}, err
		}
		return Row{Input: s}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return Row{}, errors.New(`a row is an object {"input": "0208:0677424046", "country": "BE", "reference": "C-1"} or a string`)
	}
	var w wireRow
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Row{}, fmt.Errorf(`%v; a row has the members "input" (required), "country" and "reference"`, err)
	}
	if w.Input == nil {
		return Row{}, errors.New(`the row has no "input": give the participant id or the VAT or company number`)
	}
	return Row{Input: *w.Input, Country: w.Country, Reference: w.Reference}, nil
}

// maxLine is the longest NDJSON line read; a longer one is an error.
const maxLine = 64 << 10

// maxRecord is about the most bytes one CSV record may span (quoted fields may hold line
// breaks); a longer one is an error, the sign of a quote left open.
const maxRecord = 1 << 20

// errRecordTooLong is what recordLimit returns once a record has read maxRecord bytes.
var errRecordTooLong = fmt.Errorf("a record runs over %d MiB: a quote left open swallows the lines after it; close the quote", maxRecord>>20)

// recordLimit counts the bytes the CSV reader takes for one record (with its read-ahead)
// and fails once they pass maxRecord, so that a quote left open cannot make one record
// of the rest of the input.
type recordLimit struct {
	r io.Reader
	n int
}

func (l *recordLimit) Read(p []byte) (int, error) {
	if l.n > maxRecord {
		return 0, errRecordTooLong
	}
	n, err := l.r.Read(p)
	l.n += n
	return n, err
}

func (rd *Reader) startNDJSON(br *bufio.Reader) {
	line := 0
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	rd.next = func() (Row, error) {
		for sc.Scan() {
			line++
			b := bytes.TrimSpace(sc.Bytes())
			if len(b) == 0 {
				continue
			}
			row, err := decodeRow(b)
			if err != nil {
				return Row{}, &ReadError{Line: line, Err: err}
			}
			return row, nil
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("a line is longer than %d KiB", maxLine>>10)
			}
			return Row{}, &ReadError{Line: line + 1, Err: err, Fatal: true}
		}
		return Row{}, io.EOF
	}
}

func (rd *Reader) startJSON(br *bufio.Reader) error {
	dec := json.NewDecoder(br)
	fail := func(err error) error {
		return &ReadError{Err: fmt.Errorf(`%v; the body is {"documents": [...], "rows": [...]}`, err), Fatal: true}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if err == nil {
			err = errors.New("the body is not a JSON object")
		}
		return fail(err)
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		if t == json.Delim('}') {
			return fail(errors.New(`the body has no "rows"`))
		}
		key, _ := t.(string)
		switch key {
		case "documents":
			var docs []string
			if err := dec.Decode(&docs); err != nil {
				return fail(fmt.Errorf(`"documents" is a list of document kinds, e.g. ["Invoice", "Credit Note"]: %v`, err))
			}
			if !rd.docsFirst {
				rd.docs = docs
			}
			continue
		case "rows":
		default:
			return fail(fmt.Errorf("unknown member %q", key))
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return fail(errors.New(`"rows" is a list`))
		}
		break
	}
	done := false
	rd.next = func() (Row, error) {
		if done {
			return Row{}, io.EOF
		}
		if !dec.More() {
			done = true
			if _, err := dec.Token(); err != nil { // ]
				return Row{}, fail(err)
			}
			// After "rows" only "documents" may come, and only when it was read first
			// (a stream read once would apply it too late).
			for dec.More() {
				t, err := dec.Token()
				switch {
				case err != nil:
					return Row{}, fail(err)
				case t == "documents" && rd.docsFirst:
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return Row{}, fail(err)
					}
					continue
				case t == "documents" && rd.docsLast:
					if err := dec.Decode(&rd.docs); err != nil {
						return Row{}, fail(fmt.Errorf(`"documents" is a list of document kinds, e.g. ["Invoice", "Credit Note"]: %v`, err))
					}
					continue
				case t == "documents":
					return Row{}, fail(errors.New(`"documents" comes after "rows" in a list read once (standard input); put it first`))
				}
				return Row{}, fail(fmt.Errorf("unknown member %q", t))
			}
			return Row{}, io.EOF
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			done = true
			return Row{}, fail(err)
		}
		row, err := decodeRow(raw)
		if err != nil {
			return Row{}, &ReadError{Err: fmt.Errorf("row %d: %v", rd.index, err)}
		}
		return row, nil
	}
	return nil
}

// quoteAll renders a header's names for a message, at most 20 of them.
func quoteAll(names []string) string {
	var q []string
	for i, n := range names {
		if i == 20 {
			q = append(q, "…")
			break
		}
		q = append(q, phrase.Quote(n))
	}
	return strings.Join(q, ", ")
}

// documentsOf reads the "documents" member of a JSON body wherever it is, skipping
// the rest token by token (rows are never held); found is false when the body has none
// or is not an object (the reading proper says what is wrong then).
func documentsOf(r io.Reader) (docs []string, found bool) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if t == "documents" {
			if err := dec.Decode(&docs); err != nil {
				return nil, false
			}
			return docs, true
		}
		if skipValue(dec) != nil {
			return nil, false
		}
	}
	return nil, false
}

// skipValue reads past the next JSON value of dec, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// columnKey is a column name reduced to its lower-case letters and digits.
func columnKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// findColumn returns the index of the column named want (if given) or of the first of
// names in header; -1 when none is there. taken are columns already used.
func findColumn(header []string, want string, names []string, taken ...int) int {
	keys := make([]string, len(header))
	for i, h := range header {
		keys[i] = columnKey(h)
	}
	free := func(i int) bool {
		for _, t := range taken {
			if t == i {
				return false
			}
		}
		return true
	}
	if want != "" {
		for i, h := range header {
			if (h == want || keys[i] == columnKey(want)) && free(i) {
				return i
			}
		}
		return -1
	}
	for _, n := range names {
		for i, k := range keys {
			if k == n && free(i) {
				return i
			}
		}
	}
	return -1
}

// sniffDelimiter picks the CSV delimiter of a header line: the most frequent of comma,
// semicolon and tab outside quotes; comma when none.
func sniffDelimiter(line []byte) rune {
	counts := map[rune]int{}
	quoted := false
	for _, c := range string(line) {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == ';' || c == '\t'):
			counts[c]++
		}
	}
	best := ','
	for _, d := range []rune{';', '\t'} {
		if counts[d] > counts[best] {
			best = d
		}
	}
	return best
}

func (rd *Reader) startCSV(br *bufio.Reader, opts ReadOptions) error {
	// The header line is read on its own, so that a list fed slowly through a pipe
	// is checked as its lines come.
	first, err := br.ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, bufio.ErrBufferFull) {
			err = fmt.Errorf("the header line is longer than %d KiB", br.Size()>>10)
		}
		return &ReadError{Line: 1, Err: err, Fatal: true}
	}
	head := bytes.Clone(first)
	limit := &recordLimit{r: io.MultiReader(bytes.NewReader(head), br)}
	cr := csv.NewReader(limit)
	cr.Comma = sniffDelimiter(head)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			err = errors.New("the CSV is empty; it needs a header line naming its columns")
		}
		return &ReadError{Line: 1, Err: err, Fatal: true}
	}
	rd.header = header
	idc := findColumn(header, opts.Column, idColumns)
	if idc < 0 {
		if opts.Column != "" {
			return &ReadError{Line: 1, Err: fmt.Errorf("the header has no column %q; its columns are %s", opts.Column, quoteAll(header)), Fatal: true}
		}
		return &ReadError{Line: 1, Err: fmt.Errorf(`no column of the header (%s) is named like an identifier column (e.g. "participant id", "VAT number", "company number"); name the column that holds them`, quoteAll(header)), Fatal: true}
	}
	pick := func(want string, names []string, taken ...int) (int, error) {
		if want == "-" {
			return -1, nil
		}
		i := findColumn(header, want, names, taken...)
		if i < 0 && want != "" {
			return -1, &ReadError{Line: 1, Err: fmt.Errorf("the header has no column %q; its columns are %s", want, quoteAll(header)), Fatal: true}
		}
		return i, nil
	}
	cc, err := pick(opts.CountryColumn, countryColumns, idc)
	if err != nil {
		return err
	}
	rc, err := pick(opts.ReferenceColumn, referenceColumns, idc, cc)
	if err != nil {
		return err
	}
	field := func(rec []string, i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return rec[i]
	}
	rd.next = func() (Row, error) {
		for {
			limit.n = 0
			rec, err := cr.Read()
			if err == io.EOF {
				return Row{}, io.EOF
			}
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					if errors.Is(pe.Err, errRecordTooLong) || pe.Line > pe.StartLine+1 {
						// A quote opened at StartLine ran over the lines after it: what
						// follows cannot be told apart, so nothing more is read.
						return Row{}, &ReadError{Line: pe.StartLine, Fatal: true,
							Err: fmt.Errorf("a quoted field opened here runs to line %d: %v; close the quote", pe.Line, pe.Err)}
					}
					return Row{}, &ReadError{Line: pe.StartLine, Err: pe.Err}
				}
				return Row{}, &ReadError{Err: err, Fatal: true}
			}
			if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
				continue // a blank line
			}
			return Row{Input: field(rec, idc), Country: field(rec, cc), Reference: field(rec, rc), Record: rec}, nil
		}
	}
	return nil
}

// Summary counts a check's rows by status.
type Summary struct {
	Rows   int    `json:"rows" jsonschema:"the number of rows checked"`
	Counts Counts `json:"counts" jsonschema:"how many rows got each status"`
	// Blocked counts the rows of status blocked, as Counts.Blocked does; kept for
	// clients that read it before blocked was a status of its own.
	Blocked int `json:"blocked" jsonschema:"how many rows are blocked: registered and listing the documents, but sending to them fails right now (the same as counts.blocked)"`
	// ElapsedMS is how long the check took, in milliseconds (SetElapsed).
	ElapsedMS int64 `json:"elapsedMs" jsonschema:"how long the check took, in milliseconds"`
}

// Counts are the rows of each status.
type Counts struct {
	Receives                  int `json:"receives" jsonschema:"rows whose participant can receive every document kind asked about"`
	Blocked                   int `json:"blocked" jsonschema:"rows whose participant is registered and lists every document kind asked about, but cannot be sent to right now (e.g. its access point certificate expired, or its SMP answer is not validly signed)"`
	RegisteredWithoutDocument int `json:"registered_without_that_document" jsonschema:"rows whose participant is registered but lacks a document kind asked about"`
	NotRegistered             int `json:"not_registered" jsonschema:"rows no reading of which is registered in the SML"`
	Invalid                   int `json:"invalid" jsonschema:"rows that are no participant identifier and no number peppolgate can read"`
	Failed                    int `json:"failed" jsonschema:"rows the Peppol network did not answer for; checking them again later may help"`
}

// of returns the count of st.
func (c *Counts) of(st Status) *int {
	switch st {
	case Receives:
		return &c.Receives
	case Blocked:
		return &c.Blocked
	case RegisteredWithoutDocument:
		return &c.RegisteredWithoutDocument
	case NotRegistered:
		return &c.NotRegistered
	case Invalid:
		return &c.Invalid
	}
	return &c.Failed
}

// Of returns how many rows got status st.
func (c Counts) Of(st Status) int { return *c.of(st) }

// Add counts r.
func (s *Summary) Add(r Result) {
	s.Rows++
	*s.Counts.of(r.Status)++
	if r.Status == Blocked {
		s.Blocked++
	}
}

// SetElapsed sets ElapsedMS to d.
func (s *Summary) SetElapsed(d time.Duration) {
	s.ElapsedMS = d.Milliseconds()
}

// Statuses are the statuses in the order documents list them.
func Statuses() []Status {
	return []Status{Receives, Blocked, RegisteredWithoutDocument, NotRegistered, Invalid, Failed}
}

// String is the summary in a line: "4 rows: 1 receives, 1 blocked, 1 not_registered,
// 1 invalid in 120ms", statuses without rows left out.
func (s Summary) String() string {
	var parts []string
	for _, st := range Statuses() {
		if n := s.Counts.Of(st); n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+string(st))
		}
	}
	out := phrase.Plural(s.Rows, "row")
	if len(parts) > 0 {
		out += ": " + strings.Join(parts, ", ")
	}
	return out + " in " + (time.Duration(s.ElapsedMS) * time.Millisecond).String()
}

// Writer writes results in one format.
type Writer interface {
	// Write writes one result.
	Write(Result) error
	// Close writes what comes after the last result (the summary, for NDJSON) and
	// flushes.
	Close(Summary) error
}

// NDJSONWriter writes each result as a JSON line, then {"summary": …}.
type NDJSONWriter struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewNDJSONWriter returns an NDJSONWriter on w; call Flush to push what is buffered.
func NewNDJSONWriter(w io.Writer) *NDJSONWriter {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &NDJSONWriter{w: bw, enc: enc}
}

// Write writes r as one line.
func (n *NDJSONWriter) Write(r Result) error { return n.enc.Encode(r) }

// Flush pushes the buffered lines to the underlying writer.
func (n *NDJSONWriter) Flush() error { return n.w.Flush() }

// Close writes the summary line and flushes.
func (n *NDJSONWriter) Close(s Summary) error {
	if err := n.enc.Encode(struct {
		Summary Summary `json:"summary"`
	}{s}); err != nil {
		return err
	}
	return n.w.Flush()
}

// CSVWriter writes a header, then per result the input columns and the answer
// columns (AnswerColumns).
type CSVWriter struct {
	w      *csv.Writer
	input  []string
	docs   []string
	record []string
	header bool
}

// NewCSVWriter returns a CSVWriter on w. input is the input CSV's header (nil when the
// rows came as JSON: the columns are then input, country and reference); docs are the
// document kinds asked about, one answer column each.
func NewCSVWriter(w io.Writer, input, docs []string) *CSVWriter {
	return &CSVWriter{w: csv.NewWriter(w), input: input, docs: docs}
}

// AnswerColumns are the columns a CSV answer adds after the input's, for docs asked
// about.
func AnswerColumns(docs []string) []string {
	cols := []string{"index", "status", "participant_id", "name", "country"}
	for _, d := range docs {
		cols = append(cols, "receives_"+strings.ReplaceAll(strings.ToLower(strings.TrimSpace(d)), " ", "_"))
	}
	return append(cols, "access_point", "blocked", "tried", "warnings", "error_code", "error", "retryable")
}

// WriteHeader writes the header line unless written; Write does it first.
func (c *CSVWriter) WriteHeader() error {
	if c.header {
		return nil
	}
	c.header = true
	in := c.input
	if in == nil {
		in = []string{"input", "country", "reference"}
	}
	return c.w.Write(append(append([]string{}, in...), AnswerColumns(c.docs)...))
}

// Write writes r: its input record (or input, country and reference), then the answer.
func (c *CSVWriter) Write(r Result) error {
	if err := c.WriteHeader(); err != nil {
		return err
	}
	rec := c.record[:0]
	if c.input != nil {
		// As many input columns as the header has, so that the answer's columns stay
		// under their names.
		rec = append(rec, r.Record[:min(len(r.Record), len(c.input))]...)
		for len(rec) < len(c.input) {
			rec = append(rec, "")
		}
	} else {
		rec = append(rec, r.Input, r.CountryHint, r.Reference)
	}
	answer := len(rec)
	rec = append(rec, strconv.Itoa(r.Index), string(r.Status), r.ParticipantID, r.Name, r.Country)
	for _, d := range c.docs {
		v := ""
		for _, got := range r.Documents {
			if strings.EqualFold(got.Kind, d) {
				v = "no"
				if got.Receives {
					v = "yes"
				}
			}
		}
		rec = append(rec, v)
	}
	var warnings []string
	for _, w := range r.Warnings {
		warnings = append(warnings, string(w.Code))
	}
	var code, msg, retry string
	if r.Error != nil {
		code, msg, retry = r.Error.Code, r.Error.Message, strconv.FormatBool(r.Error.Retryable)
	}
	rec = append(rec, r.AccessPoint, strings.Join(r.Blocked, " "), strings.Join(r.Tried, " "), strings.Join(warnings, " "), code, msg, retry)
	for i := answer; i < len(rec); i++ {
		rec[i] = inert(rec[i])
	}
	c.record = rec
	return c.w.Write(rec)
}

// inert keeps a cell of the answer from being read as a formula by a spreadsheet (CSV
// injection): names and URLs come from Directory cards and SMPs, which anyone may write,
// and messages quote the input. A cell that starts with =, +, -, @, a tab or a carriage
// return gets a leading apostrophe, which spreadsheets show as text.
func inert(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}

// Flush pushes the buffered lines to the underlying writer.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// Close writes the header if no result was written, and flushes; a CSV has no place
// for the summary.
func (c *CSVWriter) Close(Summary) error {
	if err := c.WriteHeader(); err != nil {
		return err
	}
	return c.Flush()
}
