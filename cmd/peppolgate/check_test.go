package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/stack"
)

// runCheck runs `peppolgate check args` with stdin (nil for none) to completion and
// returns its exit code and output.
func runCheck(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCheckCtx(t.Context(), stdin, args...)
}

func runCheckCtx(ctx context.Context, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errb syncBuffer
	p := program{stdin: stdin, stdout: &out, stderr: &errb, getenv: envMap(nil)}
	code = p.run(ctx, append([]string{"check"}, args...))
	return code, out.String(), errb.String()
}

// readCSV reads a CSV file whole, in its dialect: a byte order mark skipped, the
// delimiter the header line's most frequent of comma, semicolon and tab.
func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	head, _, _ := bytes.Cut(b, []byte("\n"))
	cr := csv.NewReader(bytes.NewReader(b))
	for _, d := range []byte{';', '\t'} {
		if bytes.Count(head, []byte{d}) > bytes.Count(head, []byte{byte(cr.Comma)}) {
			cr.Comma = rune(d)
		}
	}
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return recs
}

// writeFile writes content to name in a new temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mixedLedger is a small ledger of the demo network: one row of each status, the same
// companies in several notations (participant id, with its scheme, VAT with and without
// the country prefix, dots and spaces, national numbers with a country column).
const mixedLedger = `Customer number;Name;VAT number;Country
C1;Vandelanotte;0208:0677424046;
C2;Vandelanotte again;BE 0677.424.046;
C3;Vandelanotte, by enterprise number;0677424046;BE
C4;Fjellheim;NO 923 609 016 MVA;
C5;Fjellheim by orgnr;923609016;NO
C6;Brouwer;54441587;NL
C7;Müller;DE811152493;
C8;Lefèvre;784 301 772;FR
C9;Bluegum (no credit notes);iso6523-actorid-upis::0151:51824753556;
C10;Directory only;0208:0403019261;
C11;Unknown;BE0000000097;
C12;Nobody;n/a;
C13;Failing SMP;0208:1085544222;
`

// mixedWant are mixedLedger's statuses and participant ids, in order.
var mixedWant = []struct{ status, id string }{
	{"receives", netsim.KnownBelgian}, {"receives", netsim.KnownBelgian}, {"receives", netsim.KnownBelgian},
	{"receives", netsim.KnownNorwegian}, {"receives", netsim.KnownNorwegian}, {"receives", netsim.KnownDutch},
	{"receives", netsim.KnownGerman}, {"receives", netsim.KnownFrenchSIREN},
	{"registered_without_that_document", netsim.KnownAustralian},
	{"not_registered", ""}, {"not_registered", ""}, {"invalid", ""}, {"failed", ""},
}

// TestCheckCSV checks a CSV ledger in mixed notations on the demo network into a CSV
// file: the input's columns as given, then the answer's, in input order, every status;
// a failing SMP host's row makes the exit status 1.
func TestCheckCSV(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "ledger.csv", mixedLedger)
	out := filepath.Join(t.TempDir(), "checked.csv")
	code, stdout, stderr := runCheck(t, nil, "-network", "demo", in, "-o", out) // flags after the list too
	if code != 1 || stdout != "" {
		t.Fatalf("exit %d, want 1 (a row failed); stdout %q stderr %s", code, stdout, stderr)
	}
	for _, want := range []string{"13 rows: 8 receives, 1 registered_without_that_document, 2 not_registered, 1 invalid, 1 failed in ", "1 row failed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	recs := readCSV(t, out)
	wantHeader := append([]string{"Customer number", "Name", "VAT number", "Country"}, bulk.AnswerColumns(bulk.DefaultDocuments())...)
	if !slices.Equal(recs[0], wantHeader) {
		t.Fatalf("header %q, want %q", recs[0], wantHeader)
	}
	// A semicolon list is answered with semicolons.
	if raw, _ := os.ReadFile(out); !bytes.HasPrefix(raw, []byte(strings.Join(wantHeader, ";")+"\n")) {
		t.Errorf("the answer does not start with the header in semicolons: %.200q", raw)
	}
	col := func(name string) int { return slices.Index(recs[0], name) }
	inputLines := strings.Split(strings.TrimSpace(mixedLedger), "\n")[1:]
	if len(recs)-1 != len(mixedWant) {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(mixedWant))
	}
	for i, w := range mixedWant {
		rec := recs[i+1]
		if strings.Join(rec[:4], ";") != inputLines[i] || rec[col("index")] != strconv.Itoa(i) || rec[col("status")] != w.status || rec[col("participant_id")] != w.id {
			t.Errorf("row %d: %q, want the input %q, status %s, id %s", i, rec, inputLines[i], w.status, w.id)
		}
	}
	if rec := recs[9]; rec[col("receives_invoice")] != "yes" || rec[col("receives_credit_note")] != "no" {
		t.Errorf("Bluegum: %q, want invoice yes, credit note no", rec)
	}
	if rec := recs[13]; rec[col("error_code")] != "lookup_failed" || rec[col("retryable")] != "true" {
		t.Errorf("the failing SMP's row: %q", rec)
	}
	if rec := recs[1]; rec[col("name")] != "Vandelanotte Installaties NV" || !strings.HasPrefix(rec[col("access_point")], "https://") {
		t.Errorf("Vandelanotte: %q", rec)
	}
}

// TestCheckJSONL: JSON Lines out (from -o's extension), one result a line in input
// order with its index and reference, then the summary; exit 0 with no failed row.
func TestCheckJSONL(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "ledger.csv", strings.Join(strings.Split(mixedLedger, "\n")[:13], "\n")+"\n") // without the failing row
	out := filepath.Join(t.TempDir(), "checked.jsonl")
	code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", out, "-documents", "invoice", in)
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", code, stderr)
	}
	lines := readLines(t, out)
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 12 results and the summary", len(lines))
	}
	for i, l := range lines[:12] {
		var r bulk.Result
		want := mixedWant[i].status
		if i == 8 {
			want = "receives" // Bluegum receives invoices, the one kind asked about
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Index != i || string(r.Status) != want || r.Reference != "C"+strconv.Itoa(i+1) {
			t.Errorf("line %d: %s (%v), want index %d status %s", i, l, err, i, want)
		}
		if r.Status == bulk.Receives && (len(r.Documents) != 1 || r.Documents[0].Kind != "Invoice") {
			t.Errorf("line %d asks about %v, want Invoice alone", i, r.Documents)
		}
	}
	var sum struct {
		Summary bulk.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[12]), &sum); err != nil || sum.Summary.Rows != 12 || sum.Summary.Counts.Receives != 9 || sum.Summary.Counts.Failed != 0 {
		t.Errorf("summary %s (%v)", lines[12], err)
	}
}

// readLines reads a file's lines.
func readLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestCheckStdin: the list from standard input, CSV by default or NDJSON with -in, the
// answer on standard output (CSV for CSV, JSON Lines otherwise), the summary on stderr.
func TestCheckStdin(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCheck(t, strings.NewReader("VAT number\nBE0677424046\nnonsense\n"), "-network", "demo", "-")
	if code != 0 || !strings.HasPrefix(stdout, "VAT number,index,status,participant_id,") ||
		!strings.Contains(stdout, "\nBE0677424046,0,receives,0208:0677424046,Vandelanotte Installaties NV,") || !strings.Contains(stdout, "\nnonsense,1,invalid,") {
		t.Errorf("CSV from stdin: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stderr, "2 rows: 1 receives, 1 invalid in ") {
		t.Errorf("stderr %q, want the summary line alone", stderr)
	}
	ndjson := `{"input":"` + netsim.KnownNorwegian + `","reference":"N-1"}` + "\n" + `"DE811152493"` + "\n"
	code, stdout, stderr = runCheck(t, strings.NewReader(ndjson), "-network", "demo", "-in", "ndjson", "-")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], `"reference":"N-1","status":"receives","participantId":"0192:923609016"`) ||
		!strings.Contains(lines[1], `"participantId":"9930:de811152493"`) || !strings.HasPrefix(lines[2], `{"summary":{"rows":2,`) {
		t.Errorf("NDJSON from stdin: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCheckStdinPipe: a JSON list through a pipe (cat list.json | peppolgate check -in
// json -): standard input is a file that cannot seek, read once.
func TestCheckStdinPipe(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		defer pw.Close()
		_, _ = io.WriteString(pw, `{"documents":["Invoice"],"rows":[{"input":"`+netsim.KnownNorwegian+`","reference":"N-1"},"DE811152493"]}`)
	}()
	code, stdout, stderr := runCheck(t, pr, "-network", "demo", "-in", "json", "-")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], `"reference":"N-1","status":"receives","participantId":"0192:923609016"`) ||
		!strings.HasPrefix(lines[2], `{"summary":{"rows":2,`) {
		t.Errorf("JSON through a pipe: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestCheckNotUTF8: a list that is not UTF-8 (a spreadsheet's Windows-1252 export) stops
// the check naming its line; its bytes are never echoed into the answer.
func TestCheckNotUTF8(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCheck(t, strings.NewReader("Klant;Naam;BTW\nK1;Acme;BE0677424046\nK2;M\xfcller;DE811152493\n"), "-network", "demo", "-")
	if code == 0 || !strings.Contains(stderr, "line 3: not valid UTF-8") || !utf8.ValidString(stdout) {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
}

// normaliseElapsed blanks the summary's time, the one thing two runs differ in.
func normaliseElapsed(s string) string {
	return regexp.MustCompile(`"elapsedMs":[0-9]+`).ReplaceAllString(s, `"elapsedMs":0`)
}

// TestCheckResume: an output cut anywhere (between rows, inside a row, inside the
// header) is continued by -resume into exactly the file an uninterrupted check writes;
// a finished JSON Lines file is said to be complete; an output of another check is
// refused.
func TestCheckResume(t *testing.T) {
	t.Parallel()
	// The demo's first participants, in several notations, and a few that are not
	// registered or readable; no failing row, so that every run answers alike.
	ds := stack.DemoDataset()
	var b strings.Builder
	b.WriteString("customer,participant\n")
	for i, p := range ds.Participants[:60] {
		in := p.ID.String()
		if i%3 == 1 {
			in = strings.ToUpper(in)
		}
		b.WriteString("K" + strconv.Itoa(i) + "," + in + "\n")
		if i%10 == 0 {
			b.WriteString("K" + strconv.Itoa(i) + "b,not a number\n")
		}
	}
	// The same list as a spreadsheet writes it: a byte order mark and semicolons,
	// which the CSV answer keeps, resumed or not.
	excel := "\ufeff" + strings.ReplaceAll(b.String(), ",", ";")
	for _, format := range []string{"csv", "jsonl", "excel.csv"} {
		in := writeFile(t, "ledger.csv", b.String())
		if format == "excel.csv" {
			in = writeFile(t, "ledger.csv", excel)
		}
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			full := filepath.Join(dir, "full."+format)
			if code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", full, in); code != 0 {
				t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
			}
			whole, err := os.ReadFile(full)
			if err != nil {
				t.Fatal(err)
			}
			if format == "excel.csv" && !bytes.HasPrefix(whole, []byte("\ufeffcustomer;participant;index;status;")) {
				t.Fatalf("the answer to a spreadsheet's list: %.100q", whole)
			}
			firstLine := bytes.IndexByte(whole, '\n') + 1
			rowStarts := []int{}
			for i := firstLine; i < len(whole); i = bytes.IndexByte(whole[i:], '\n') + i + 1 {
				rowStarts = append(rowStarts, i)
			}
			cuts := map[string]int{
				"nothing written":       0,
				"inside the first line": firstLine / 2,
				"after the first line":  firstLine,
				"between rows":          rowStarts[20],
				"inside a row":          rowStarts[33] + 17,
				"just before a newline": rowStarts[41] - 1,
				"all rows, no end":      len(whole) - len(lastLine(whole)),
			}
			for name, cut := range cuts {
				out := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+"."+format)
				if err := os.WriteFile(out, whole[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", out, "-resume", in)
				if code != 0 {
					t.Errorf("%s: exit %d: %s", name, code, stderr)
					continue
				}
				got, _ := os.ReadFile(out)
				if normaliseElapsed(string(got)) != normaliseElapsed(string(whole)) {
					t.Errorf("%s: the resumed file differs from the uninterrupted one:\n%s\nwant\n%s", name, got, whole)
				}
				if !strings.HasPrefix(stderr, "66 rows: ") {
					t.Errorf("%s: stderr %q, want the summary of every row", name, stderr)
				}
			}
			code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", full, "-resume", in)
			switch format {
			case "jsonl":
				if code != 0 || !strings.Contains(stderr, "is complete") {
					t.Errorf("resuming a finished file: exit %d: %s", code, stderr)
				}
			case "csv", "excel.csv":
				if code != 0 || !strings.HasPrefix(stderr, "66 rows: ") || !strings.Contains(stderr, "66 of them checked before") {
					t.Errorf("resuming a finished file: exit %d: %s", code, stderr)
				}
			}
			if got, _ := os.ReadFile(full); !bytes.Equal(got, whole) {
				t.Errorf("resuming a finished file changed it")
			}
			// Another check's output: other document kinds.
			code, _, stderr = runCheck(t, nil, "-network", "demo", "-o", filepath.Join(dir, "between-rows."+format), "-resume", "-documents", "Invoice,Order", in)
			if code != 2 || !strings.Contains(stderr, "give another -o") {
				t.Errorf("resuming another check's output: exit %d: %s", code, stderr)
			}
		})
	}
}

// lastLine is the last line of b, its newline included.
func lastLine(b []byte) []byte {
	i := bytes.LastIndexByte(b[:len(b)-1], '\n')
	return b[i+1:]
}

// TestCheckResumeRefusesOtherOutputs: -resume refuses a file another check wrote, naming
// what differs, and leaves it as it is.
func TestCheckResumeRefusesOtherOutputs(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "ledger.csv", "VAT number,Country\nBE0677424046,\n923609016,NO\n")
	tests := []struct{ name, file, content, want string }{
		{"another header", "out.csv", "Customer,VAT number,index,status\n", "the header of the output file is not the one this check writes"},
		{"rows out of order", "out.csv", "VAT number,Country," + strings.Join(bulk.AnswerColumns(bulk.DefaultDocuments()), ",") + "\nBE0677424046,,1,receives\n", "has the index \"1\", not 0"},
		{"not results", "out.jsonl", "{\"hello\":1}\n", "line 1 of the output file is not the result of row 0"},
		{"not JSON", "out.jsonl", "index,status\n0,receives\n", "line 1 of the output file is not a result of a check"},
		{"other documents", "out.jsonl", `{"index":0,"input":"x","status":"receives","documents":[{"kind":"Order","receives":true}]}` + "\n", "the output file's rows were asked about Order, this check asks about Invoice, Credit Note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := writeFile(t, tt.file, tt.content)
			code, _, stderr := runCheck(t, nil, "-network", "demo", "-resume", "-o", out, in)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 saying %q: %s", code, tt.want, stderr)
			}
			if got, _ := os.ReadFile(out); string(got) != tt.content {
				t.Errorf("the file was changed to %q", got)
			}
		})
	}
}

// blockingReader serves its data, then blocks until release is closed, then ends.
type blockingReader struct {
	data    *strings.Reader
	release chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if r.data.Len() > 0 {
		return r.data.Read(p)
	}
	<-r.release
	return 0, io.EOF
}

// TestCheckInterrupted: a check interrupted (Ctrl-C) while its input is still coming
// stops, keeps the rows done in -o's file, a prefix of the whole, says how to resume,
// and exits 1; the command it gives finishes the file as an uninterrupted check would.
func TestCheckInterrupted(t *testing.T) {
	t.Parallel()
	ds := stack.DemoDataset()
	var b strings.Builder
	b.WriteString("participant\n")
	for _, p := range ds.Participants[:40] {
		b.WriteString(p.ID.String() + "\n")
	}
	list := b.String()
	dir := t.TempDir()
	full := filepath.Join(dir, "full.csv")
	if code, _, stderr := runCheck(t, strings.NewReader(list), "-network", "demo", "-o", full, "-"); code != 0 {
		t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
	}
	whole, _ := os.ReadFile(full)

	// The first 25 rows come; the check answers them, then is interrupted while it
	// waits for more, and stops although its input still blocks.
	first := strings.Join(strings.SplitAfter(list, "\n")[:26], "")
	out := filepath.Join(dir, "out.csv")
	ctx, cancel := context.WithCancel(t.Context())
	release := make(chan struct{})
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCheckCtx(ctx, &blockingReader{data: strings.NewReader(first), release: release}, "-network", "demo", "-o", out, "-")
	}()
	// Wait until all 25 rows are in the file (it is flushed at least every second).
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got, _ := os.ReadFile(out); bytes.Count(got, []byte("\n")) == 26 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the rows given were not written within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the check did not stop within 30s of its interruption while its input blocked")
	}
	close(release)
	if code != 1 || !strings.Contains(stderr, "interrupted: 25 rows of the list are in "+out) || !strings.Contains(stderr, "continue with:\n  peppolgate check -resume -network demo -o "+out+" -\n") {
		t.Fatalf("exit %d, want 1 saying how to resume: %s", code, stderr)
	}
	got, _ := os.ReadFile(out)
	if !bytes.HasPrefix(whole, got) || len(got) == len(whole) {
		t.Fatalf("the interrupted file is not a prefix of the whole:\n%s", got)
	}
	if code, _, stderr := runCheck(t, strings.NewReader(list), "-resume", "-network", "demo", "-o", out, "-"); code != 0 || !strings.Contains(stderr, "25 of them checked before") {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, whole) {
		t.Errorf("the resumed file differs from the uninterrupted one:\n%s\nwant\n%s", got, whole)
	}
}

// TestCheckUsageErrors: bad flags, arguments and input headers exit 2 saying what is
// wrong, before anything is checked.
func TestCheckUsageErrors(t *testing.T) {
	t.Parallel()
	ledger := writeFile(t, "ledger.csv", "VAT number\nBE0677424046\n")
	noColumn := writeFile(t, "other.csv", "Name,Street\nA,B\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no list", nil, "check needs the customer list"},
		{"two lists", []string{ledger, ledger}, "check takes one customer list, not 2"},
		{"unknown extension", []string{"ledger.xlsx"}, "cannot tell the format of ledger.xlsx from its name; give -in csv, json or ndjson"},
		{"bad -in", []string{"-in", "xml", ledger}, `-in "xml" is not one of csv, json, ndjson`},
		{"bad -format", []string{"-format", "xlsx", ledger}, `-format "xlsx" is not one of csv, jsonl`},
		{"resume to stdout", []string{"-resume", ledger}, "-resume continues the check in -o's file; give -o FILE"},
		{"concurrency", []string{"-concurrency", "0", ledger}, "-concurrency must be between 1 and 256"},
		{"unknown document kind", []string{"-documents", "Invoice,Bill", ledger}, `-documents: unknown document kind "Bill"; the Peppol code list's kinds are `},
		{"missing list", []string{filepath.Join(t.TempDir(), "none.csv")}, "cannot read the list: open "},
		{"no identifier column", []string{noColumn}, `no column of the header ("Name", "Street") is named like an identifier column`},
		{"column not there", []string{"-column", "Tax", ledger}, `the header has no column "Tax"`},
		{"output is the input", []string{"-o", ledger, ledger}, "is the input; give another file"},
		{"serve's flag", []string{"-addr", ":80", ledger}, "flag provided but not defined: -addr"},
		{"demo with a DNS server", []string{"-network", "demo", "-dns-server", "127.0.0.1:53", ledger}, "-dns-server cannot be used with -network demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCheck(t, nil, append([]string{"-network", "demo"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, want 2 saying %q; stderr %s stdout %q", code, tt.want, stderr, stdout)
			}
			if flagError := !strings.Contains(tt.name, "list") && !strings.Contains(tt.name, "column") && tt.name != "output is the input"; flagError && !strings.Contains(stderr, "Run 'peppolgate check -h' for usage.") {
				t.Errorf("stderr does not point to check's help: %s", stderr)
			}
		})
	}
	if b, _ := os.ReadFile(ledger); string(b) != "VAT number\nBE0677424046\n" {
		t.Errorf("the input was changed: %q", b)
	}
}

// TestCheckHelp: check -h lists check's flags and the network flags with their
// environment variables, and exits 0; the main help names the command.
func TestCheckHelp(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCheck(t, nil, "-h")
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"Usage: peppolgate check", "  -o file", "  -format format", "  -resume\n", "  -concurrency int", "default 8",
		"  -network network", "env PEPPOLGATE_NETWORK", "  -mirror file", "Exit status: 0 when every row was answered"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check -h lacks %q", want)
		}
	}
	for _, no := range []string{"  -addr", "  -networks", "PEPPOLGATE_RESUME", "PEPPOLGATE_O,"} {
		if strings.Contains(stdout, no) {
			t.Errorf("check -h has %q", no)
		}
	}
	var main bytes.Buffer
	(program{stdout: &main, stderr: io.Discard, getenv: envMap(nil)}).run(t.Context(), []string{"-h"})
	if !strings.Contains(main.String(), "peppolgate check [flags]") {
		t.Errorf("the main help does not name check")
	}
}

// TestCheckFlagsIgnoreEnvironment: check's own flags take no environment variable,
// the network flags do.
func TestCheckFlagsIgnoreEnvironment(t *testing.T) {
	t.Parallel()
	c, err := parseConfig(cmdCheck, []string{"l.csv"}, envMap(map[string]string{"PEPPOLGATE_FORMAT": "jsonl", "PEPPOLGATE_RESUME": "true", "PEPPOLGATE_NETWORK": "test"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.check.outFormat != formatCSV || c.check.resume || c.network != "test" || !slices.Equal(c.networks, []string{"test"}) || c.check.concurrency != 8 {
		t.Errorf("%+v", c)
	}
}

// TestProgressLine renders progress lines: the share, the rows of the total, the rate
// (of this run's rows only, when resumed) and the ETA it gives, and the import's form.
func TestProgressLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    progressState
		bar  bool
		want string
	}{
		{"rows with a total", progressState{Done: 1234, Total: 2742, Unit: "rows", Frac: -1, Elapsed: 2 * time.Second}, true,
			"[=============                 ]  45% 1,234/2,742 rows, 617 rows/s, ETA 2s, 2s elapsed"},
		{"resumed: the rate counts this run's rows", progressState{Done: 1500, Base: 1000, Total: 3000, Unit: "rows", Frac: -1, Elapsed: 10 * time.Second}, false,
			" 50% 1,500/3,000 rows, 50 rows/s, ETA 30s, 10s elapsed"},
		{"no total (standard input)", progressState{Done: 10, Unit: "rows", Frac: -1, Elapsed: 4 * time.Second}, true,
			"10 rows, 2 rows/s, 4s elapsed"},
		{"done", progressState{Done: 300, Total: 300, Unit: "rows", Frac: -1, Elapsed: 1500 * time.Millisecond}, true,
			"[==============================] 100% 300/300 rows, 200 rows/s, 2s elapsed"},
		{"nothing yet", progressState{Total: 300, Unit: "rows", Frac: -1}, true,
			"[                              ]   0% 0/300 rows, 0 rows/s, 0s elapsed"},
		{"import by bytes read", progressState{Done: 5000, Skipped: 3, Frac: 0.25, Unit: "cards", Elapsed: 10 * time.Second}, false,
			" 25% 5,000 cards, 500 cards/s, 3 skipped, ETA 30s, 10s elapsed"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.s, tt.bar); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestProgressRedraw: the bar is drawn in place on each show at most every
// progressRedraw, and done draws the final state on its own line; without a terminal
// and a log nothing is written.
func TestProgressRedraw(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	p := newProgress(&w, true, nil, "")
	s := progressState{Total: 3, Unit: "rows", Frac: -1}
	for i := range 3 {
		s.Done = int64(i + 1)
		p.show(s) // three shows within progressRedraw: one drawing
	}
	p.done(s)
	lines := strings.Split(w.String(), "\r")
	if len(lines) != 3 || !strings.Contains(lines[1], "1/3 rows") || !strings.HasSuffix(w.String(), "3/3 rows, 0 rows/s, 0s elapsed\x1b[K\n") {
		t.Errorf("drawn %q", w.String())
	}
	var none bytes.Buffer
	q := newProgress(&none, false, nil, "")
	q.show(s)
	q.done(s)
	if none.Len() != 0 {
		t.Errorf("without a terminal: %q", none.String())
	}
}

// TestREADMECheckExample runs the README's check example on the demo network and
// compares what it shows with what the command writes: the summary lines on stderr
// (but for the time taken) and the first lines of the answer.
func TestREADMECheckExample(t *testing.T) {
	t.Parallel()
	blocks, _ := readmeBlocks(t)
	i := slices.IndexFunc(blocks, func(b readmeBlock) bool {
		return b.info == "sh" && len(b.lines) == 1 && strings.HasPrefix(b.lines[0], "go run ./cmd/peppolgate check ")
	})
	if i < 0 || i+3 >= len(blocks) {
		t.Fatal("the README has no check example followed by its output")
	}
	cmd, outFile, ok := strings.Cut(strings.TrimPrefix(blocks[i].lines[0], "go run ./cmd/peppolgate check "), " > ")
	head := regexp.MustCompile(`^head -([0-9]+) (\S+)$`).FindStringSubmatch(strings.Join(blocks[i+2].lines, "\n"))
	if !ok || head == nil || head[2] != outFile {
		t.Fatalf("README line %d: the example is not 'check … > FILE' then 'head -N FILE'", blocks[i].at)
	}
	args := strings.Fields(cmd)
	args[len(args)-1] = "../../" + args[len(args)-1]
	_, stdout, stderr := runCheck(t, nil, args...)
	took := regexp.MustCompile(` in [0-9.]+m?s\n`)
	if got, want := took.ReplaceAllString(stderr, " in …\n"), took.ReplaceAllString(strings.Join(blocks[i+1].lines, "\n")+"\n", " in …\n"); got != want {
		t.Errorf("README line %d shows\n%s\nbut the command says\n%s", blocks[i+1].at, want, got)
	}
	n, _ := strconv.Atoi(head[1])
	if got, want := strings.Join(strings.Split(stdout, "\n")[:n], "\n"), strings.Join(blocks[i+3].lines, "\n"); got != want {
		t.Errorf("README line %d shows\n%s\nbut the command writes\n%s", blocks[i+3].at, want, got)
	}
}

// TestCheckResumeFinishedFailed: resuming a finished check whose rows failed says it is
// complete and exits 1, as the finished check did.
func TestCheckResumeFinishedFailed(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "list.csv", "vat\n0192:923609016\n")
	out := writeFile(t, "out.jsonl", `{"index":0,"input":"0192:923609016","status":"failed","tried":["0192:923609016"],"error":{"code":"lookup_failed","message":"x","retryable":true}}`+"\n"+
		`{"summary":{"rows":1,"counts":{"receives":0,"registered_without_that_document":0,"not_registered":0,"invalid":0,"failed":1},"blocked":0,"elapsedMs":1}}`+"\n")
	code, _, stderr := runCheck(t, nil, "-network", "demo", "-o", out, "-resume", in)
	if code != 1 || !strings.Contains(stderr, "is complete") || !strings.Contains(stderr, "1 row failed") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestCheckSinkElapsed: the JSON Lines summary the command writes carries the run's
// time (it once wrote 0).
func TestCheckSinkElapsed(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	sink := &checkSink{ctx: t.Context(), w: bulk.NewNDJSONWriter(&out)}
	var run bulk.Summary
	run.SetElapsed(1234 * time.Millisecond)
	if err := sink.Close(run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"elapsedMs":1234`) {
		t.Errorf("summary %s, want elapsedMs 1234", out.String())
	}
}
