package bulk

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// readAll reads every row of in, the unreadable ones as their error text.
func readAll(t *testing.T, f Format, opts ReadOptions, in string, once bool) ([]Row, []string, error) {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if once {
		r = struct{ io.Reader }{r} // no Seek: read once, like standard input
	}
	rd, err := NewReader(r, f, opts)
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	var bad []string
	for {
		row, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rows, bad, nil
		}
		var re *ReadError
		if errors.As(err, &re) && !re.Fatal {
			bad = append(bad, re.Error())
			continue
		}
		if err != nil {
			return rows, bad, err
		}
		rows = append(rows, row)
	}
}

func TestReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		once   bool
		f      Format
		opts   ReadOptions
		in     string
		want   []Row // Record left out
		bad    []string
		errHas string
	}{
		{name: "json objects and strings", f: JSON,
			in:   `{"documents":["Invoice"],"rows":[{"input":"0208:0677424046","country":"BE","reference":"C-1"},"BE0677424046"]}`,
			want: []Row{{Index: 0, Input: "0208:0677424046", Country: "BE", Reference: "C-1"}, {Index: 1, Input: "BE0677424046"}}},
		{name: "json row without input", f: JSON, in: `{"rows":[{"country":"BE"},"x"]}`,
			want: []Row{{Index: 1, Input: "x"}}, bad: []string{`row 0: the row has no "input"`}},
		{name: "json unknown row member", f: JSON, in: `{"rows":[{"input":"x","vat":"y"}]}`, bad: []string{`unknown field "vat"`}},
		{name: "json not an object", f: JSON, in: `["x"]`, errHas: "not a JSON object"},
		{name: "json no rows", f: JSON, in: `{"documents":[]}`, errHas: `no "rows"`},
		{name: "json documents after rows", f: JSON, in: `{"rows":["x"],"documents":["Order"]}`, want: []Row{{Input: "x"}}},
		{name: "json documents after rows read once", once: true, f: JSON, in: `{"rows":["x"],"documents":["Order"]}`, want: []Row{{Input: "x"}}, errHas: `"documents" comes after "rows" in a list read once`},
		{name: "json unknown member", f: JSON, in: `{"row":["x"]}`, errHas: `unknown member "row"`},
		{name: "json cut short", f: JSON, in: `{"rows":["x",`, want: []Row{{Input: "x"}}, errHas: "EOF"},
		{name: "ndjson", f: NDJSON, in: "\"0208:0677424046\"\n\n{\"input\":\"BE 0677.424.046\",\"reference\":\"r\"}\nnope\n\"last\"",
			want: []Row{{Index: 0, Input: "0208:0677424046"}, {Index: 1, Input: "BE 0677.424.046", Reference: "r"}, {Index: 3, Input: "last"}},
			bad:  []string{"line 4: a row is an object"}},
		{name: "csv comma with BOM", f: CSV, in: "\ufeffCustomer,Name,VAT number,Country\nC-1,Acme,BE0677424046,be\n",
			want: []Row{{Input: "BE0677424046", Country: "be", Reference: "C-1"}}},
		{name: "csv semicolon and blank line", f: CSV, in: "Klantnummer;BTW-nummer;Land\r\nK1;BE 0677.424.046;BE\r\n\r\nK2;NL859048939B01;NL\r\n",
			want: []Row{{Input: "BE 0677.424.046", Country: "BE"}, {Index: 1, Input: "NL859048939B01", Country: "NL"}}},
		{name: "csv tab", f: CSV, in: "participant_id\tref\n0208:0677424046\tA\n", want: []Row{{Input: "0208:0677424046", Reference: "A"}}},
		{name: "csv column given", f: CSV, opts: ReadOptions{Column: "Klant ID", CountryColumn: "-"}, in: "Klant ID,Country\nx,BE\n", want: []Row{{Input: "x"}}},
		{name: "csv column missing", f: CSV, opts: ReadOptions{Column: "nope"}, in: "a,b\n1,2\n", errHas: `no column "nope"; its columns are "a", "b"`},
		{name: "csv no id column", f: CSV, in: "a,b\n1,2\n", errHas: `no column of the header ("a", "b") is named like an identifier`},
		{name: "csv empty", f: CSV, in: "", errHas: "the CSV is empty"},
		{name: "csv bad quote goes on", f: CSV, in: "vat,ref\nBE0677424046,\"a\"b\nBE0677424046,c\n", want: []Row{{Index: 1, Input: "BE0677424046", Reference: "c"}}, bad: []string{"line 2"}},
		{name: "csv quote left open stops", f: CSV, in: "vat\n\"BE0677424046\nBE1\nBE2\n", errHas: "line 2: a quoted field opened here runs to line 4"},
		{name: "csv short record", f: CSV, in: "ref,vat,country\nC-9\n", want: []Row{{Reference: "C-9"}}},
		{name: "unknown format", f: "xml", errHas: `unknown format "xml"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, bad, err := readAll(t, tt.f, tt.opts, tt.in, tt.once)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one containing %q", err, tt.errHas)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				rows[i].Record = nil
			}
			if len(rows) != len(tt.want) || len(rows) > 0 && !slices.EqualFunc(rows, tt.want, func(a, b Row) bool {
				return a.Index == b.Index && a.Input == b.Input && a.Country == b.Country && a.Reference == b.Reference
			}) {
				t.Errorf("rows %+v, want %+v", rows, tt.want)
			}
			if len(bad) != len(tt.bad) {
				t.Fatalf("unreadable rows %q, want %q", bad, tt.bad)
			}
			for i := range bad {
				if !strings.Contains(bad[i], tt.bad[i]) {
					t.Errorf("unreadable row %q, want %q", bad[i], tt.bad[i])
				}
			}
		})
	}
}

// TestReaderDocuments: a JSON body's documents come with its reader, before or (from
// a body read twice) after its rows, or after the last row with DocumentsLast.
func TestReaderDocuments(t *testing.T) {
	t.Parallel()
	rd, err := NewReader(strings.NewReader(`{"documents":["Order"],"rows":[]}`), JSON, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rd.Documents(), []string{"Order"}) {
		t.Errorf("documents %q", rd.Documents())
	}
	if _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("empty rows: %v", err)
	}
	rd, err = NewReader(strings.NewReader(`{"rows":["x"],"documents":["Credit Note"]}`), JSON, ReadOptions{})
	if err != nil || !slices.Equal(rd.Documents(), []string{"Credit Note"}) {
		t.Errorf("documents after rows: %q, %v", rd.Documents(), err)
	}
	// With DocumentsLast, read once (no Seek), they are there after the last row.
	once := struct{ io.Reader }{strings.NewReader(`{"rows":["x","y"],"documents":["Order"]}`)}
	rd, err = NewReader(once, JSON, ReadOptions{DocumentsLast: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err = rd.Next(); err == nil; _, err = rd.Next() {
		n++
	}
	if !errors.Is(err, io.EOF) || n != 2 || !slices.Equal(rd.Documents(), []string{"Order"}) {
		t.Errorf("documents last: %d rows, %v, documents %q", n, err, rd.Documents())
	}
}

// TestRunCSV: a CSV in, checked over a simulated network, comes out in input order
// with its own columns first and the answer's after, one line per row, the unreadable
// ones as invalid; NDJSON comes out with a summary last.
func TestRunCSV(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 200, Now: datasetNow})
	in := "customer;vat;country\n" +
		"C-1;BE 0677.424.046;BE\n" +
		"C-2;0208:0000000097;\n" +
		"C-3;\"bad\n" +
		"C-4;hello;\n"
	for _, ordered := range []bool{true, false} {
		rd, err := NewReader(strings.NewReader(in), CSV, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w := NewCSVWriter(&buf, rd.Header(), DefaultDocuments())
		sum, err := Run(t.Context(), Config{Registry: n.Reg}, rd.Next, w, RunOptions{Ordered: ordered, Window: 2})
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		wantHeader := append([]string{"customer", "vat", "country"}, AnswerColumns(DefaultDocuments())...)
		if !slices.Equal(recs[0], wantHeader) {
			t.Fatalf("header %q", recs[0])
		}
		if len(recs) != 4 {
			t.Fatalf("%d records: %q", len(recs), recs)
		}
		status := map[string]string{}
		for i, r := range recs[1:] {
			status[r[0]] = r[4]
			if ordered && r[3] != string(rune('0'+i)) {
				t.Errorf("ordered run wrote row %s at %d", r[3], i)
			}
		}
		// The unreadable row swallows the next line into its quoted field, and its
		// record is unknown. The dataset's certificate of C-1's access point expired.
		want := map[string]string{"C-1": "blocked", "C-2": "not_registered", "": "invalid"}
		for k, v := range want {
			if status[k] != v {
				t.Errorf("ordered=%v: %s is %q, want %q (%q)", ordered, k, status[k], v, recs)
			}
		}
		if sum.Rows != 3 || sum.Counts.Invalid != 1 {
			t.Errorf("summary %+v", sum)
		}
	}
}

// TestRunNDJSON: NDJSON out carries each row's index and ends with the summary.
func TestRunNDJSON(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 200, Now: datasetNow})
	rd, err := NewReader(strings.NewReader(`{"rows":["`+netsim.KnownCertValid+`","nope","0208:0000000097"]}`), JSON, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var written int
	sum, err := Run(t.Context(), Config{Registry: n.Reg}, rd.Next, NewNDJSONWriter(&buf), RunOptions{Skip: func(i int) bool { return i == 1 }, Written: func(Result) { written++ }})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || written != 2 || sum.Rows != 2 {
		t.Fatalf("%d lines, %d written, summary %+v: %s", len(lines), written, sum, buf.String())
	}
	var last struct {
		Summary struct {
			Rows   int            `json:"rows"`
			Counts map[string]int `json:"counts"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Summary.Rows != 2 || last.Summary.Counts["receives"] != 1 || last.Summary.Counts["not_registered"] != 1 || len(last.Summary.Counts) != len(Statuses()) {
		t.Errorf("summary line %s", lines[2])
	}
}

// TestRunCancel: a run cut short says so and leaves its writer open.
func TestRunCancel(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: datasetNow})
	ctx, cancel := context.WithCancel(t.Context())
	i := 0
	next := func() (Row, error) {
		if i == 3 {
			cancel()
		}
		i++
		return Row{Index: i - 1, Input: netsim.KnownBelgian}, nil
	}
	var buf bytes.Buffer
	_, err := Run(ctx, Config{Registry: n.Reg}, next, NewNDJSONWriter(&buf), RunOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v", err)
	}
	if strings.Contains(buf.String(), "summary") {
		t.Errorf("a cancelled run wrote its summary: %s", buf.String())
	}
}

// TestReaderPipe: a CSV fed slowly through a pipe gives its rows as their lines come,
// not once 64 KiB or the end arrived.
func TestReaderPipe(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	defer pr.Close() // ends a write nobody reads, so a failing reader fails the test instead of hanging it
	type result struct {
		row Row
		err error
	}
	got := make(chan result, 1)
	go func() { // reports on the channel: it may end after the test did
		rd, err := NewReader(pr, CSV, ReadOptions{})
		if err != nil {
			got <- result{err: err}
			return
		}
		row, err := rd.Next()
		got <- result{row, err}
	}()
	go func() { _, _ = io.WriteString(pw, "vat;country\nBE0677424046;BE\n") }()
	select {
	case r := <-got:
		if r.err != nil || r.row.Input != "BE0677424046" || r.row.Country != "BE" {
			t.Errorf("row %+v, error %v", r.row, r.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no row from a pipe that has sent its header and first row")
	}
}

// TestCSVWriterColumns: a record with more fields than the header keeps the answer
// under its column names; one with fewer is padded.
func TestCSVWriterColumns(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, []string{"vat", "ref"}, []string{"Invoice"})
	for _, rec := range [][]string{{"a", "b", "extra"}, {"c"}} {
		if err := w.Write(Result{Status: NotRegistered, Record: rec}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Summary{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) || r[3] != string(NotRegistered) {
			t.Errorf("record %q under header %q", r, recs[0])
		}
	}
}

// TestCSVInert: answer cells a spreadsheet would read as formulas (a Directory name is
// anyone's to write) come out as text; the input's own cells are left as they are.
func TestCSVInert(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, []string{"vat"}, nil)
	if err := w.Write(Result{Status: Receives, Name: `=HYPERLINK("http://evil.example","x")`, AccessPoint: "@SUM(1)", Record: []string{"=1+1"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(Summary{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	row := recs[1]
	if row[0] != "=1+1" || row[4] != `'=HYPERLINK("http://evil.example","x")` || row[6] != "'@SUM(1)" {
		t.Errorf("record %q", row)
	}
}

// TestRunCancelBlockedReader: cancelling a run whose input blocks (a terminal, a pipe
// that sends nothing) returns at once.
func TestRunCancelBlockedReader(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	release := make(chan struct{})
	defer close(release)
	first := true
	next := func() (Row, error) {
		if first {
			first = false
			return Row{Input: "hello"}, nil
		}
		cancel()
		<-release
		return Row{}, io.EOF
	}
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Registry: registry.One(nil)}, next, NewNDJSONWriter(io.Discard), RunOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled while its input blocked")
	}
}
