package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/registry"
)

// Output formats of check.
const (
	formatCSV   = "csv"
	formatJSONL = "jsonl"
)

// defaultCheckConcurrency is -concurrency's default: how many rows are located (their
// SML asked) at once. Each SMP host's rows are then looked up in a lane of their own, at
// most the registry's cap per host at a time, so this only needs to keep the lanes fed:
// 8 reaches 86 % of the bound the per-host caps allow (BENCHMARKS.md, issue 18).
const defaultCheckConcurrency = 8

// checkFlushEvery is how often, at least, a check's output is pushed to its file, so
// that a check killed outright (not interrupted) leaves its rows there to resume from.
const checkFlushEvery = time.Second

// maxCheckConcurrency bounds -concurrency: the per-SMP-host limits are what keep a
// check polite; more rows at once than this only queue behind them.
const maxCheckConcurrency = 256

// checkUsageHead is the start of `peppolgate check -h`; the flags follow.
const checkUsageHead = `Usage: peppolgate check [flags] <customers.csv | list.json | list.ndjson | ->

Checks a whole customer list against Peppol, in-process (no server needed): for each row,
a participant id (0208:0677424046) or a VAT or company number in any notation (BE 0677.424.046,
0677424046 with a country column), whether the participant can receive the document kinds
asked about, under which participant id, through which access point. Each row's status is
receives, blocked (registered, but sending fails right now: the blocked column says why;
access_point is empty when the SMP answer is not validly signed), registered_without_that_document,
not_registered, invalid or failed.

The input is CSV with a header (the identifier, country and reference columns are found by
their names, or named with -column, -country-column and -reference-column; comma, semicolon or
tab separated), JSON ({"rows": [...], "documents": [...]}) or NDJSON (one row a line: an object
{"input", "country", "reference"} or a string), from a file or standard input (-). The output,
in input order, is CSV (the input's columns, then the answer's: index, status, participant_id,
name, country, receives_<kind> per document kind, access_point, blocked, tried, warnings,
error_code, error, retryable) or JSON Lines (one result a line, then {"summary": ...}). On a terminal a
progress bar shows on stderr; the summary line ends the run.

Ctrl-C stops cleanly: the rows done are in -o's file, and 'check -resume' with the same flags
continues from there. Rows are looked up through the registry like every lookup of
peppolgate: cached, each participant asked once however often it appears, at most a few
requests at a time to each SMP host.

Exit status: 0 when every row was answered (whatever its status), 1 when a row failed (the
Peppol network could not be asked: the row's retryable column says whether checking it again
later may help; check those rows again later, e.g. a list of just the failed rows' inputs),
when the check could not run or was interrupted, 2 for a bad flag, value or input header.

Flags (the network flags may also be set by the environment variable shown, as for serve):
`

// checkFlags are the check command's own flags, as given.
type checkFlags struct {
	output, format, in, documents          string
	column, countryColumn, referenceColumn string
	concurrency                            int
	resume                                 bool
}

// define adds the check flags to fs.
func (f *checkFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.output, "o", "", "output `file` (default standard output); its extension .csv, .jsonl or .ndjson picks the format when -format is not given")
	fs.StringVar(&f.format, "format", "", "output `format`: csv (the input's columns, then the answer's) or jsonl (one JSON object a row, then a summary line) (default from -o's extension, else csv for a CSV input and jsonl for JSON and NDJSON)")
	fs.StringVar(&f.in, "in", "", "input `format`: csv, json or ndjson (default from the input's extension: .csv, .tsv or .txt, .json, .ndjson or .jsonl; csv for standard input)")
	fs.StringVar(&f.documents, "documents", strings.Join(bulk.DefaultDocuments(), ","), "document `kinds` to ask about, comma-separated categories of the Peppol code list, e.g. Invoice,Credit Note,Order (a JSON input's \"documents\" when this is not given)")
	fs.StringVar(&f.column, "column", "", "CSV `column` with the participant id, VAT or company number (default the first named like one, e.g. participant id, VAT number, company number, identifier)")
	fs.StringVar(&f.countryColumn, "country-column", "", "CSV `column` with the country (ISO 3166 code) that numbers without a country prefix are read in (default the one named country, if any); - for none")
	fs.StringVar(&f.referenceColumn, "reference-column", "", "CSV `column` with your reference, echoed in JSON Lines (default the one named e.g. customer number or reference, if any); - for none")
	fs.IntVar(&f.concurrency, "concurrency", defaultCheckConcurrency, "how many rows are located at once (their SML asked), 1 to "+strconv.Itoa(maxCheckConcurrency)+"; each SMP host's rows are then looked up in a lane of their own, a few at a time, so the check stays polite whatever the number and a slow SMP holds up only its own rows. "+
		"Without -mirror each lookup also asks the Directory for its card, at the Directory's rate: rows beyond what its limiter lets wait come back without the name, with a directory_unavailable warning")
	fs.BoolVar(&f.resume, "resume", false, "continue an interrupted check from its -o file: keep the rows in it, drop a torn last line, check the rest and append them. Give the same input and flags as the first run")
}

// isCheckFlag reports whether name is one of check's own flags, which take no
// environment variable.
func isCheckFlag(name string) bool {
	switch name {
	case "o", "format", "in", "documents", "column", "country-column", "reference-column", "concurrency", "resume":
		return true
	}
	return false
}

// checkConfig is the validated configuration of check.
type checkConfig struct {
	input     string // a file, or "-" for standard input
	inFormat  bulk.Format
	output    string // "" for standard output
	outFormat string // formatCSV or formatJSONL
	// documents are the document kinds asked about; documentsSet says -documents was
	// given (else a JSON input's own apply).
	documents    []string
	documentsSet bool
	read         bulk.ReadOptions
	concurrency  int
	resume       bool
	// args are the command's arguments, for the line that says how to resume.
	args []string
}

// validate checks the check flags and the input argument (rest).
func (f checkFlags) validate(rest []string, set map[string]bool) (checkConfig, error) {
	c := checkConfig{output: strings.TrimSpace(f.output), resume: f.resume, concurrency: f.concurrency, documentsSet: set["documents"],
		read: bulk.ReadOptions{Column: f.column, CountryColumn: f.countryColumn, ReferenceColumn: f.referenceColumn}}
	switch len(rest) {
	case 0:
		return c, usagef("check needs the customer list: a CSV, JSON or NDJSON file, or - for standard input")
	case 1:
		c.input = rest[0]
	default:
		return c, usagef("check takes one customer list, not %d: %s", len(rest), strings.Join(rest, " "))
	}
	var err error
	if c.inFormat, err = inputFormat(f.in, c.input); err != nil {
		return c, err
	}
	if c.output == "-" {
		c.output = ""
	}
	if c.outFormat, err = outputFormat(f.format, c.output, c.inFormat); err != nil {
		return c, err
	}
	if c.resume && c.output == "" {
		return c, usagef("-resume continues the check in -o's file; give -o FILE (the file an interrupted check wrote)")
	}
	if c.concurrency < 1 || c.concurrency > maxCheckConcurrency {
		return c, usagef("-concurrency must be between 1 and %d; got %d", maxCheckConcurrency, c.concurrency)
	}
	if c.documents, err = documentKinds(f.documents); err != nil {
		return c, err
	}
	return c, nil
}

// inputFormat is the format of the input: flag (-in) when given, else the name's
// extension; standard input is CSV unless -in says otherwise.
func inputFormat(flagValue, name string) (bulk.Format, error) {
	switch v := strings.ToLower(strings.TrimSpace(flagValue)); v {
	case "csv", "tsv":
		return bulk.CSV, nil
	case "json":
		return bulk.JSON, nil
	case "ndjson", "jsonl":
		return bulk.NDJSON, nil
	case "":
	default:
		return "", usagef("-in %q is not one of csv, json, ndjson", flagValue)
	}
	if name == "-" {
		return bulk.CSV, nil
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".tsv", ".txt":
		return bulk.CSV, nil
	case ".json":
		return bulk.JSON, nil
	case ".ndjson", ".jsonl":
		return bulk.NDJSON, nil
	}
	return "", usagef("cannot tell the format of %s from its name; give -in csv, json or ndjson", name)
}

// outputFormat is the format of the output: flag (-format) when given, else -o's
// extension, else CSV for a CSV input and JSON Lines otherwise.
func outputFormat(flagValue, output string, in bulk.Format) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(flagValue)); v {
	case "csv":
		return formatCSV, nil
	case "jsonl", "ndjson":
		return formatJSONL, nil
	case "":
	default:
		return "", usagef("-format %q is not one of csv, jsonl", flagValue)
	}
	switch strings.ToLower(filepath.Ext(output)) {
	case ".csv":
		return formatCSV, nil
	case ".jsonl", ".ndjson":
		return formatJSONL, nil
	}
	if in == bulk.CSV {
		return formatCSV, nil
	}
	return formatJSONL, nil
}

// documentKinds reads -documents: code-list categories, comma-separated, any case,
// returned as the code list spells them (bulk.ParseDocuments).
func documentKinds(raw string) ([]string, error) {
	items := splitList(raw)
	if len(items) == 0 {
		return nil, usagef("-documents names no document kind; e.g. -documents Invoice,Credit Note")
	}
	docs, err := bulk.ParseDocuments(items)
	if err != nil {
		return nil, usagef("-documents: %s", errorMessage(err))
	}
	return docs, nil
}

// printCheckUsage writes `peppolgate check -h`: what it does, then its flags, its own
// first.
func printCheckUsage(w io.Writer) {
	var v flagValues
	fs := newFlagSet(&v, cmdCheck)
	fmt.Fprint(w, checkUsageHead)
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	order := func(f *flag.Flag) int {
		if isCheckFlag(f.Name) {
			return slices.Index([]string{"o", "format", "in", "documents", "column", "country-column", "reference-column", "concurrency", "resume"}, f.Name)
		}
		return 100 + flagOrder(f.Name)
	}
	slices.SortStableFunc(flags, func(a, b *flag.Flag) int { return order(a) - order(b) })
	for _, f := range flags {
		name, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s", head, usage)
		var notes []string
		if !isCheckFlag(f.Name) {
			notes = append(notes, "env "+envName(f.Name))
		}
		if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(usage, "(default") {
			notes = append(notes, "default "+f.DefValue)
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n      %s", strings.Join(notes, ", "))
		}
		fmt.Fprintln(w)
	}
}

// rowsFailedError is check's error when the check ran through but rows failed.
type rowsFailedError struct{ failed int }

func (e *rowsFailedError) Error() string {
	return fmt.Sprintf("%s failed: the Peppol network could not be asked (the error and retryable columns say why); check again later, e.g. a list of just the failed rows",
		phraseRows(e.failed))
}

// phraseRows is "1 row" or "12 rows", grouped.
func phraseRows(n int) string {
	if n == 1 {
		return "1 row"
	}
	return phrase.Grouped(int64(n), ",") + " rows"
}

// checkSink is the bulk.Writer of a check: it passes results to w until ctx is done,
// then drops them (a row cut short by the cancellation would be written as failed;
// what is written stays a prefix of the input that -resume can continue), and counts
// every row of the output, those an earlier run wrote included.
type checkSink struct {
	ctx context.Context
	// mu serialises Write and flush (every checkFlushEvery, from another goroutine).
	mu    sync.Mutex
	w     flushWriter
	sum   bulk.Summary // the output's rows: the earlier run's and this run's
	wrote int          // rows this run wrote
	cut   bool
}

// flushWriter is bulk's CSVWriter and NDJSONWriter.
type flushWriter interface {
	bulk.Writer
	Flush() error
}

func (s *checkSink) Write(r bulk.Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut || s.ctx.Err() != nil {
		s.cut = true
		return nil
	}
	if err := s.w.Write(r); err != nil {
		return err
	}
	s.sum.Add(r)
	s.wrote++
	return nil
}

// flush pushes what is written to the file.
func (s *checkSink) flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
}

// flushEvery flushes s every checkFlushEvery until the returned function is called,
// which waits for it to stop.
func (s *checkSink) flushEvery() (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(checkFlushEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = s.flush() // an error comes again at the final flush
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// Close writes the end of the output (the JSON Lines summary) with the counts of
// every row in it and this run's time.
func (s *checkSink) Close(run bulk.Summary) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := s.sum
	sum.ElapsedMS = run.ElapsedMS
	return s.w.Close(sum)
}

// gateWriter drops what is written while mute.
type gateWriter struct {
	w    io.Writer
	mute bool
}

func (g *gateWriter) Write(b []byte) (int, error) {
	if g.mute {
		return len(b), nil
	}
	return g.w.Write(b)
}

// resumeState is what an earlier run left in the output file.
type resumeState struct {
	// rows are the complete result rows, the input's rows 0 to rows-1.
	rows int
	// keep is the length of the file up to the end of the last complete row (the
	// header included); what follows is a torn line, dropped.
	keep int64
	// header says the file holds the whole header line (CSV).
	header bool
	// complete says the file ends with the summary line (JSON Lines): nothing to do.
	complete bool
	// sum counts the rows by status.
	sum bulk.Summary
}

// scanCSVOutput reads the output file f of an earlier check written in CSV with the
// header line header (as this run writes it) and the delimiter comma (0 for ','): the
// rows complete in it, each numbered in order. It returns a *usageError when the file's header is not header or its rows
// are not numbered 0, 1, 2, …
func scanCSVOutput(f io.ReaderAt, size int64, header []byte, comma rune, indexCol, blockedCol int) (resumeState, error) {
	st := resumeState{sum: bulk.Summary{}}
	first := make([]byte, min(size, int64(len(header))))
	if _, err := f.ReadAt(first, 0); err != nil && !errors.Is(err, io.EOF) {
		return st, err
	}
	if !bytes.Equal(first, header[:len(first)]) {
		line, _, _ := bytes.Cut(first, []byte("\n"))
		return st, usagef("the header of the output file is not the one this check writes, so it was written by another check (another input, other -documents or -in); resume it with the same input and flags, or give another -o.\n  the file's: %s\n  this check: %s",
			line, bytes.TrimSuffix(header, []byte("\n")))
	}
	if len(first) < len(header) {
		return st, nil // not even the header is whole: start again
	}
	st.header, st.keep = true, int64(len(header))
	rest := io.NewSectionReader(f, st.keep, size-st.keep)
	cr := csv.NewReader(bufio.NewReaderSize(rest, 64<<10))
	if comma != 0 {
		cr.Comma = comma
	}
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	statusCol := indexCol + 1
	last := make([]byte, 1)
	for {
		rec, err := cr.Read()
		if err != nil {
			// io.EOF, or a record cut inside a quoted field: a torn end.
			return st, nil
		}
		off := int64(len(header)) + cr.InputOffset()
		if _, err := f.ReadAt(last, off-1); err != nil || last[0] != '\n' {
			return st, nil // the last record has no line end: torn
		}
		if len(rec) <= blockedCol || rec[indexCol] != strconv.Itoa(st.rows) {
			got := "none"
			if len(rec) > indexCol {
				got = strconv.Quote(rec[indexCol])
			}
			return st, usagef("row %d of the output file has the index %s, not %d: it is not the output of a check of this input in input order; give another -o", st.rows+1, got, st.rows)
		}
		st.sum.Add(bulk.Result{Status: bulk.Status(rec[statusCol]), Blocked: strings.Fields(rec[blockedCol])})
		st.rows++
		st.keep = off
	}
}

// scanJSONLOutput reads the output file r of an earlier check written in JSON Lines:
// the result lines complete in it, each numbered in order, and whether the summary
// line ends it. docs are the document kinds this run asks about; a result line that
// names others is a *usageError, as is one not numbered in order.
func scanJSONLOutput(r io.Reader, docs []string) (resumeState, error) {
	st := resumeState{sum: bulk.Summary{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil {
			return st, nil // io.EOF with or without a torn line: keep what is whole
		}
		var res struct {
			Index     *int             `json:"index"`
			Status    bulk.Status      `json:"status"`
			Blocked   []string         `json:"blocked"`
			Documents []bulk.Document  `json:"documents"`
			Summary   *json.RawMessage `json:"summary"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			return st, usagef("line %d of the output file is not a result of a check (%v); give another -o", line, err)
		}
		if res.Summary != nil {
			st.complete = true
			st.keep += int64(len(b))
			return st, nil
		}
		if res.Index == nil || *res.Index != st.rows {
			return st, usagef("line %d of the output file is not the result of row %d: it is not the output of a check of this input in input order; give another -o", line, st.rows)
		}
		if len(res.Documents) > 0 {
			var kinds []string
			for _, d := range res.Documents {
				kinds = append(kinds, d.Kind)
			}
			if !slices.EqualFunc(kinds, docs, strings.EqualFold) {
				return st, usagef("the output file's rows were asked about %s, this check asks about %s; resume it with the same -documents, or give another -o",
					strings.Join(kinds, ", "), strings.Join(docs, ", "))
			}
		}
		st.sum.Add(bulk.Result{Status: res.Status, Blocked: res.Blocked})
		st.rows++
		st.keep += int64(len(b))
	}
}

// checkOutput is where a check writes.
type checkOutput struct {
	w     flushWriter
	prior resumeState
	// close closes the file (a no-op for standard output).
	close func() error
}

// openCheckOutput opens the output of c: standard output, a new file, or with
// -resume the earlier run's file, read and cut after its last complete row. header
// is the input's CSV header (nil for JSON and NDJSON), docs the kinds asked about,
// dialect the input CSV's (a CSV answer is written in it; the zero Dialect for JSON and
// NDJSON).
func (p program) openCheckOutput(c checkConfig, header, docs []string, dialect bulk.Dialect) (*checkOutput, error) {
	gate := &gateWriter{}
	var w flushWriter
	newWriter := func(to io.Writer) {
		gate.w = to
		if c.outFormat == formatCSV {
			cw := bulk.NewCSVWriter(gate, header, docs)
			cw.SetDialect(dialect)
			w = cw
		} else {
			w = bulk.NewNDJSONWriter(gate)
		}
	}
	if c.output == "" {
		newWriter(p.stdout)
		return &checkOutput{w: w, prior: resumeState{sum: bulk.Summary{}}, close: func() error { return nil }}, nil
	}
	if c.input != "-" {
		if a, err := os.Stat(c.input); err == nil {
			if b, err := os.Stat(c.output); err == nil && os.SameFile(a, b) {
				return nil, usagef("-o %s is the input; give another file", c.output)
			}
		}
	}
	if !c.resume {
		f, err := os.Create(c.output)
		if err != nil {
			return nil, err
		}
		newWriter(f)
		return &checkOutput{w: w, prior: resumeState{sum: bulk.Summary{}}, close: f.Close}, nil
	}
	f, err := os.OpenFile(c.output, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*checkOutput, error) {
		f.Close()
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	var st resumeState
	if c.outFormat == formatCSV {
		var want bytes.Buffer
		cw := bulk.NewCSVWriter(&want, header, docs)
		cw.SetDialect(dialect)
		if err := cw.WriteHeader(); err != nil {
			return fail(err)
		}
		if err := cw.Flush(); err != nil {
			return fail(err)
		}
		index := len(header)
		if header == nil {
			index = 3 // input, country, reference
		}
		st, err = scanCSVOutput(f, fi.Size(), want.Bytes(), dialect.Comma, index, index+slices.Index(bulk.AnswerColumns(docs), "blocked"))
	} else {
		st, err = scanJSONLOutput(io.NewSectionReader(f, 0, fi.Size()), docs)
	}
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return fail(usagef("-resume -o %s: %v", c.output, ue.msg))
		}
		return fail(fmt.Errorf("reading %s to resume: %w", c.output, err))
	}
	if st.complete {
		f.Close()
		return &checkOutput{prior: st, close: func() error { return nil }}, nil
	}
	if err := f.Truncate(st.keep); err != nil {
		return fail(err)
	}
	if _, err := f.Seek(st.keep, io.SeekStart); err != nil {
		return fail(err)
	}
	newWriter(f)
	if st.header {
		// The file has the header: the writer's own goes nowhere.
		if cw, ok := w.(*bulk.CSVWriter); ok {
			gate.mute = true
			err := cw.WriteHeader()
			if err == nil {
				err = cw.Flush()
			}
			gate.mute = false
			if err != nil {
				return fail(err)
			}
		}
	}
	return &checkOutput{w: w, prior: st, close: f.Close}, nil
}

// countRows counts the rows of the input file for the progress bar, cheaply: its
// non-blank lines, less the header for CSV (a quoted field over several lines counts
// more than once). It returns 0 when it cannot tell (JSON, standard input).
func countRows(name string, f bulk.Format) int64 {
	if name == "-" || f == bulk.JSON {
		return 0
	}
	file, err := os.Open(name)
	if err != nil {
		return 0
	}
	defer file.Close()
	var n int64
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			n++
		}
	}
	if f == bulk.CSV && n > 0 {
		n--
	}
	return n
}

// shellQuote quotes args for a POSIX shell where they need it.
func shellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// check runs `peppolgate check`: it reads the list, checks every row through the
// stack's registry of cfg's network and writes the answers, then says the summary on
// stderr. It returns a *rowsFailedError when rows failed, a *usageError for an input
// or output file that does not fit the flags.
func (p program) check(ctx context.Context, cfg config) error {
	c := cfg.check
	log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: cfg.logLevel}))
	in, name := p.stdin, "standard input"
	if c.input != "-" {
		f, err := os.Open(c.input)
		if err != nil {
			return &usageError{fmt.Sprintf("cannot read the list: %v", err)}
		}
		defer f.Close()
		in, name = f, c.input
	}
	if in == nil {
		return &usageError{"no standard input to read the list from"}
	}
	rd, err := bulk.NewReader(in, c.inFormat, c.read)
	if err != nil {
		return &usageError{fmt.Sprintf("reading %s: %v", name, err)}
	}
	docs := c.documents
	if !c.documentsSet && len(rd.Documents()) > 0 {
		if docs, err = bulk.ParseDocuments(rd.Documents()); err != nil {
			return &usageError{fmt.Sprintf("%s: \"documents\": %s", name, errorMessage(err))}
		}
	}
	var dialect bulk.Dialect
	if c.inFormat == bulk.CSV {
		// A CSV list is answered in its own dialect: delimiter, byte order mark.
		dialect = rd.Dialect()
	}
	out, err := p.openCheckOutput(c, rd.Header(), docs, dialect)
	if err != nil {
		return err
	}
	prior := out.prior
	if prior.complete {
		fmt.Fprintf(p.stderr, "%s is complete: it ends with the summary of its %s; nothing to resume\n", c.output, phraseRows(prior.rows))
		// The exit status says what the finished check said: whether a row failed.
		if n := prior.sum.Counts.Failed; n > 0 {
			return &rowsFailedError{failed: n}
		}
		return nil
	}
	closed := false
	defer func() {
		if !closed {
			out.close()
		}
	}()

	up, err := connect(ctx, cfg, log, nil, nil, nil)
	if err != nil {
		return err
	}
	defer up.closeAll()

	sink := &checkSink{ctx: ctx, w: out.w, sum: prior.sum}
	stopFlushing := sink.flushEvery()
	tty := isTerminal(p.stderr)
	bar := newProgress(p.stderr, tty, nil, "")
	state := progressState{Unit: "rows", Frac: -1, Base: int64(prior.rows), Done: int64(prior.rows)}
	if tty {
		state.Total = countRows(c.input, c.inFormat)
	}
	start := time.Now()
	read := 0
	next := func() (bulk.Row, error) {
		row, err := rd.Next()
		var re *bulk.ReadError
		if err == nil || errors.As(err, &re) && !re.Fatal {
			read = row.Index + 1
		}
		return row, err
	}
	_, runErr := bulk.Run(ctx, bulk.Config{Registry: up.Default(), Documents: docs, Concurrency: c.concurrency}, next, sink, bulk.RunOptions{
		Ordered: true,
		Skip:    func(i int) bool { return i < prior.rows },
		Written: func(bulk.Result) {
			state.Done, state.Elapsed = int64(prior.rows+sink.wrote), time.Since(start)
			state.Total = max(state.Total, state.Done)
			bar.show(state)
		},
	})
	stopFlushing()
	flushErr := out.w.Flush()
	closeErr := out.close()
	closed = true
	state.Done, state.Elapsed = int64(prior.rows+sink.wrote), time.Since(start)
	if runErr == nil && state.Total > 0 {
		state.Total = state.Done
	}
	if tty && (sink.wrote > 0 || state.Total > 0) {
		bar.done(state)
	}
	where := "the output"
	if c.output != "" {
		where = c.output
	}
	switch {
	case sink.cut || (runErr != nil && ctx.Err() != nil):
		msg := fmt.Sprintf("interrupted: %s of the list %s in %s", phraseRows(prior.rows+sink.wrote), areOrIs(prior.rows+sink.wrote), where)
		if c.output == "" {
			return errors.New(msg + "; to continue an interrupted check instead of starting again, write to a file with -o and run again with -resume")
		}
		args := c.args
		if !slices.Contains(args, "-resume") && !slices.Contains(args, "--resume") {
			args = append([]string{"-resume"}, args...)
		}
		return fmt.Errorf("%s; continue with:\n  peppolgate check %s", msg, shellQuote(args))
	case runErr != nil:
		return fmt.Errorf("checking %s: %w", name, runErr)
	case flushErr != nil:
		return fmt.Errorf("writing %s: %w", where, flushErr)
	case closeErr != nil:
		return fmt.Errorf("writing %s: %w", where, closeErr)
	case read < prior.rows:
		return &usageError{fmt.Sprintf("-resume -o %s: the file holds %s but %s only %d: it is not the output of this list; give another -o", c.output, phraseRows(prior.rows), name, read)}
	}
	sum := sink.sum
	sum.SetElapsed(time.Since(start))
	line := sum.String()
	if prior.rows > 0 {
		line += fmt.Sprintf(" (%s of them checked before, resumed from %s)", phrase.Grouped(int64(prior.rows), ","), c.output)
	}
	fmt.Fprintln(p.stderr, line)
	if n := sum.Counts.Failed; n > 0 {
		return &rowsFailedError{failed: n}
	}
	return nil
}

// areOrIs agrees with n rows.
func areOrIs(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// errorMessage is err's message for the client: a *registry.Error's Message, else
// err's text.
func errorMessage(err error) string {
	var re *registry.Error
	if errors.As(err, &re) {
		return re.Message
	}
	return err.Error()
}
