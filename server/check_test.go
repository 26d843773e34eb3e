package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// postCheck sends POST /api/v1/check?query with body as contentType (and header
// pairs in hdr) and returns the response with its whole body.
func (e *e2e) postCheck(t *testing.T, query, contentType, body string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	resp := e.startCheck(t, t.Context(), query, contentType, body, hdr...)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// startCheck sends a check and returns as soon as the answer's headers are in.
func (e *e2e) startCheck(t *testing.T, ctx context.Context, query, contentType, body string, hdr ...string) *http.Response {
	t.Helper()
	target := e.url + "/api/v1/check"
	if query != "" {
		target += "?" + query
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readNDJSON reads an NDJSON answer: the results by index (each index once), and the
// summary, which must be the last line.
func readNDJSON(t *testing.T, body []byte) (map[int]bulk.Result, *bulk.Summary) {
	t.Helper()
	got := map[int]bulk.Result{}
	var sum *bulk.Summary
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sum != nil {
			t.Fatalf("a line after the summary: %s", sc.Bytes())
		}
		var line struct {
			bulk.Result
			Summary *bulk.Summary `json:"summary"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %s: %v", sc.Bytes(), err)
		}
		if line.Summary != nil {
			sum = line.Summary
			continue
		}
		if _, dup := got[line.Index]; dup {
			t.Fatalf("row %d answered twice", line.Index)
		}
		got[line.Index] = line.Result
	}
	return got, sum
}

// registeredOn returns up to n participants of ds registered in the SML on an SMP
// host that answers for them itself, with a card, whose host is (on) or is not
// (!on) host.
func registeredOn(ds *netsim.Dataset, host int, on bool, n int) []string {
	var out []string
	for _, p := range ds.Participants {
		if len(out) == n {
			break
		}
		if !p.InSML || p.SMPNotFound || p.RedirectHost != -1 || p.Card == nil || (p.SMPHost == host) != on {
			continue
		}
		out = append(out, p.ID.String())
	}
	return out
}

// quoted returns each of ids as a JSON string, an NDJSON line.
func quoted(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.Quote(id)
	}
	return out
}

// TestCheckStatuses: JSON in, NDJSON out, over the simulated network: every status
// but failed (TestCheckFailingHost), inputs in several notations, the documents asked
// about, references and indexes echoed, the summary last.
func TestCheckStatuses(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	body := `{"documents": ["invoice", "Credit Note", "ORDER"], "rows": [
		{"input": "` + netsim.KnownDirectoryMismatch + `", "reference": "C-0"},
		{"input": "` + netsim.KnownBelgian + `", "reference": "C-1"},
		"BE 0677.424.046",
		{"input": "0677424046", "country": "be"},
		"` + netsim.KnownDirectoryOnly + `",
		"0208:0000000097",
		"hello world",
		{"input": ""}
	]}`
	resp, raw := e.postCheck(t, "", "application/json", body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v\n%s", resp.StatusCode, resp.Header, raw)
	}
	got, sum := readNDJSON(t, raw)
	want := []struct {
		status bulk.Status
		id     string
		ref    string
	}{
		{bulk.Receives, netsim.KnownDirectoryMismatch, "C-0"},
		{bulk.RegisteredWithoutDocument, netsim.KnownBelgian, "C-1"},
		{bulk.RegisteredWithoutDocument, netsim.KnownBelgian, ""},
		{bulk.RegisteredWithoutDocument, netsim.KnownBelgian, ""},
		{bulk.NotRegistered, "", ""},
		{bulk.NotRegistered, "", ""},
		{bulk.Invalid, "", ""},
		{bulk.Invalid, "", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(got), len(want), raw)
	}
	for i, w := range want {
		r := got[i]
		if r.Status != w.status || r.ParticipantID != w.id || r.Reference != w.ref {
			t.Errorf("row %d: %s %q %q, want %s %q %q", i, r.Status, r.ParticipantID, r.Reference, w.status, w.id, w.ref)
		}
		switch w.status {
		case bulk.Receives, bulk.RegisteredWithoutDocument:
			var kinds []string
			for _, d := range r.Documents {
				kinds = append(kinds, d.Kind)
				if d.Kind == "Order" && d.Receives != (w.status == bulk.Receives) {
					t.Errorf("row %d: Order %v", i, d.Receives)
				}
			}
			// Asked in any case, answered in the code list's spelling.
			if !slices.Equal(kinds, []string{"Invoice", "Credit Note", "Order"}) || r.Name == "" || r.AccessPoint == "" {
				t.Errorf("row %d: documents %v, name %q, access point %q", i, kinds, r.Name, r.AccessPoint)
			}
		case bulk.Invalid:
			if r.Error == nil || r.Error.Retryable || r.Error.Message == "" {
				t.Errorf("row %d: error %+v", i, r.Error)
			}
		}
	}
	if got[3].CountryHint != "be" || len(got[2].Tried) == 0 {
		t.Errorf("row 3 country %q, row 2 tried %v", got[3].CountryHint, got[2].Tried)
	}
	if sum == nil {
		t.Fatal("no summary line")
	}
	if sum.Rows != 8 || sum.Counts.Of(bulk.Receives) != 1 || sum.Counts.Of(bulk.RegisteredWithoutDocument) != 3 ||
		sum.Counts.Of(bulk.NotRegistered) != 2 || sum.Counts.Of(bulk.Invalid) != 2 || sum.Counts.Of(bulk.Failed) != 0 {
		t.Errorf("summary %+v", sum)
	}
	// One log line for the whole check, with its summary.
	logs := e.logs.String()
	if !strings.Contains(logs, `"msg":"check"`) || !strings.Contains(logs, `"rows":8`) || !strings.Contains(logs, `"registered_without_that_document":3`) ||
		!strings.Contains(logs, `"outcome":"complete"`) {
		t.Errorf("no check log line with the summary:\n%s", logs)
	}
}

// TestCheckCSV: a semicolon CSV in (columns found by name, the reference column given
// by a parameter), a CSV out in input order with the input's columns first, the
// summary in the trailer, and duplicates in several notations looked up once.
func TestCheckCSV(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	in := "Kundennummer;Name;USt-IdNr;Land\n" +
		"K1;Vandelanotte;" + netsim.KnownBelgian + ";\n" +
		"K2;Vandelanotte;iso6523-actorid-upis::0208:0677424046;\n" +
		"K3;Vandelanotte; 0208:0677424046 ;\n" +
		"K4;Vandelanotte;0677424046;BE\n" +
		"K5;\"Bad \"quote\";0677424046;BE\n" +
		"K6;Nobody;0208:0000000097;\n" +
		"K7;Vandelanotte;" + netsim.KnownBelgian + ";\n"
	e.net.ResetHits()
	resp, raw := e.postCheck(t, "referenceColumn=Kundennummer&documents=Invoice", "text/csv; charset=utf-8", in, "Accept", "text/csv")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("%d %v\n%s", resp.StatusCode, resp.Header, raw)
	}
	// Answered in the dialect it was given: semicolons.
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.Comma = ';'
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	wantHeader := append([]string{"Kundennummer", "Name", "USt-IdNr", "Land"}, bulk.AnswerColumns([]string{"Invoice"})...)
	if !slices.Equal(recs[0], wantHeader) {
		t.Fatalf("header %v, want %v", recs[0], wantHeader)
	}
	col := func(name string) int { return slices.Index(wantHeader, name) }
	// The dataset's certificate of KnownBelgian's access point has expired: blocked.
	wantStatus := []bulk.Status{bulk.Blocked, bulk.Blocked, bulk.Blocked, bulk.Blocked, bulk.Invalid, bulk.NotRegistered, bulk.Blocked}
	if len(recs) != 1+len(wantStatus) {
		t.Fatalf("%d records:\n%s", len(recs), raw)
	}
	for i, st := range wantStatus {
		rec := recs[i+1]
		if rec[col("index")] != strconv.Itoa(i) || rec[col("status")] != string(st) {
			t.Errorf("record %d: index %s status %s, want %d %s", i, rec[col("index")], rec[col("status")], i, st)
		}
		// A blocked row receives no invoice right now (receives_invoice is the verdict's).
		if st == bulk.Blocked && (rec[col("participant_id")] != netsim.KnownBelgian || rec[col("receives_invoice")] != "no" || rec[0] != "K"+strconv.Itoa(i+1)) {
			t.Errorf("record %d: %v", i, rec)
		}
	}
	if rec := recs[5]; rec[col("error_code")] != string(registry.CodeInvalidRequest) || !strings.Contains(rec[col("error")], "quote") {
		t.Errorf("the unreadable line: %v", rec)
	}
	if got := resp.Trailer.Get(checkSummaryTrailer); !strings.HasPrefix(got, "rows=7, receives=0, blocked=5, registered_without_that_document=0, not_registered=1, invalid=1, failed=0, elapsed_ms=") {
		t.Errorf("trailer %q (declared %q)", got, resp.Header.Get("Trailer"))
	}
	// Six rows name the Belgian company: its SMP was asked once.
	if sg := e.net.Hits().SMP[belgian.SMPHost].ServiceGroup; sg != 1 {
		t.Errorf("the Belgian company's ServiceGroup was asked %d times for six rows, want 1", sg)
	}
}

// TestCheckCSVDialect: a CSV is answered in its own dialect (a spreadsheet's
// semicolons and byte order mark come back as they were sent); a CSV that is not
// UTF-8 is refused, not echoed byte for byte.
func TestCheckCSVDialect(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian)}
	s, _ := newTestServer(t, reg, nil)
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/check", strings.NewReader(body))
		req.Header.Set("Content-Type", "text/csv; charset=utf-8")
		req.Header.Set("Accept", "text/csv")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w
	}
	for _, tt := range []struct{ name, in, head, row string }{
		{"semicolon with BOM", "\ufeffKlant;Naam;BTW\nK1;Müller;" + netsim.KnownBelgian + "\n", "\ufeffKlant;Naam;BTW;index;status;", "\nK1;Müller;" + netsim.KnownBelgian + ";0;"},
		{"tab", "Klant\tBTW\nK1\t" + netsim.KnownBelgian + "\n", "Klant\tBTW\tindex\tstatus\t", "\nK1\t" + netsim.KnownBelgian + "\t0\t"},
		{"comma", "Klant,BTW\nK1," + netsim.KnownBelgian + "\n", "Klant,BTW,index,status,", "\nK1," + netsim.KnownBelgian + ",0,"},
	} {
		w := post(tt.in)
		if out := w.Body.String(); w.Code != 200 || !strings.HasPrefix(out, tt.head) || !strings.Contains(out, tt.row) {
			t.Errorf("%s: %d\n%q\nwant it to start %q and hold %q", tt.name, w.Code, out, tt.head, tt.row)
		}
	}
	w := post("Klant;Naam;BTW\nK1;Acme;" + netsim.KnownBelgian + "\nK2;M\xfcller;DE811152493\n")
	got := decodeJSON[errorBody](t, w.Body.Bytes()).Error
	if w.Code != 400 || got.Code != registry.CodeInvalidRequest || !strings.Contains(got.Message, "line 3: not valid UTF-8") || !utf8.ValidString(w.Body.String()) {
		t.Errorf("a Latin-1 CSV: %d %q", w.Code, w.Body.String())
	}
}

// TestCheckNDJSON: NDJSON in, with lines that are no rows answered as invalid rows,
// blank lines skipped, NDJSON and CSV out, on the test network.
func TestCheckNDJSON(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	in := "\"" + netsim.KnownNorwegian + "\"\n" +
		"{\"input\": \"" + netsim.KnownDutch + "\", \"reference\": \"R2\"}\n" +
		"\n" +
		"{\"input\": \n" +
		"{\"input\": \"x\", \"vat\": 1}\n"
	resp, raw := e.postCheck(t, "documents=Invoice&documents=credit%20note", "application/x-ndjson", in)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	got, sum := readNDJSON(t, raw)
	if got[0].Status != bulk.Receives || got[1].Status != bulk.Blocked || got[1].Reference != "R2" || sum == nil || sum.Rows != 4 {
		t.Fatalf("%v %+v\n%s", got, sum, raw)
	}
	for _, i := range []int{2, 3} {
		if r := got[i]; r.Status != bulk.Invalid || r.Error == nil || r.Error.Code != string(registry.CodeInvalidRequest) || !strings.Contains(r.Error.Message, "line") {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// The same rows as CSV: input, country and reference are the input columns.
	resp, raw = e.postCheck(t, "", "application/x-ndjson", in, "Accept", "application/x-ndjson;q=0.5, text/csv")
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if resp.StatusCode != http.StatusOK || err != nil || len(recs) != 5 || !slices.Equal(recs[0][:4], []string{"input", "country", "reference", "index"}) || recs[2][2] != "R2" {
		t.Errorf("%d %v\n%s", resp.StatusCode, err, raw)
	}
	// The test network answers from its own participants.
	resp, raw = e.postCheck(t, "network=test", "application/x-ndjson", "\""+netsim.KnownBelgian+"\"\n")
	if got, _ := readNDJSON(t, raw); resp.StatusCode != http.StatusOK || got[0].Status != bulk.NotRegistered {
		t.Errorf("test network: %d %s", resp.StatusCode, raw)
	}
}

// TestCheckFailingHost: an SMP host answering 500 fails its own rows (retryable)
// while the rows of the other hosts are answered, as netsim's counters show.
func TestCheckFailingHost(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	failing := e.ds.MustLookup(netsim.KnownNorwegian).SMPHost
	bad := registeredOn(e.ds, failing, true, 10)
	good := registeredOn(e.ds, failing, false, 30)
	var lines []string
	for i := range max(len(bad), len(good)) {
		if i < len(good) {
			lines = append(lines, `"`+good[i]+`"`)
		}
		if i < len(bad) {
			lines = append(lines, `"`+bad[i]+`"`)
		}
	}
	e.net.SetFault(netsim.SMPHostTarget(failing), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	e.net.ResetHits()
	resp, raw := e.postCheck(t, "", "application/x-ndjson", strings.Join(lines, "\n"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	got, sum := readNDJSON(t, raw)
	if sum == nil || sum.Rows != len(lines) || sum.Counts.Of(bulk.Failed) != len(bad) {
		t.Fatalf("summary %+v, want %d rows of which %d failed", sum, len(lines), len(bad))
	}
	for _, r := range got {
		onBad := slices.Contains(bad, r.Input)
		switch {
		case onBad && (r.Status != bulk.Failed || r.Error == nil || !r.Error.Retryable || r.Error.Code != string(registry.CodeLookupFailed)):
			t.Errorf("row %d on the failing host: %+v", r.Index, r)
		case !onBad && r.Status != bulk.Receives && r.Status != bulk.Blocked && r.Status != bulk.RegisteredWithoutDocument:
			t.Errorf("row %d on a working host: %+v", r.Index, r)
		}
	}
	hits := e.net.Hits()
	for host, h := range hits.SMP {
		if host != failing && h.ServiceGroup == 0 {
			t.Errorf("SMP host %d was not asked", host)
		}
	}
	if hits.SMP[failing].ServiceGroup == 0 {
		t.Errorf("the failing host was not asked")
	}
	t.Logf("SMP ServiceGroup requests per host (host %d failing): %v", failing, func() (n []int64) {
		for _, h := range hits.SMP {
			n = append(n, h.ServiceGroup)
		}
		return n
	}())
}

// TestCheckCancel: a client that goes away stops its check: the SMP requests in
// flight are abandoned and the rows not yet started are never asked.
func TestCheckCancel(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	ids := quoted(registeredOn(e.ds, -2, false, 200))
	for i := range e.ds.SMPHosts {
		e.net.SetFault(netsim.SMPHostTarget(i), netsim.Fault{Hang: true})
	}
	e.net.ResetHits()
	ctx, cancel := context.WithCancel(t.Context())
	resp := e.startCheck(t, ctx, "", "application/x-ndjson", strings.Join(ids, "\n"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	asked := func() (n int64) {
		for _, h := range e.net.Hits().SMP {
			n += h.ServiceGroup
		}
		return n
	}
	waitFor(t, "the SMPs to be asked", func() bool { return asked() > 0 })
	cancel()
	resp.Body.Close()
	waitFor(t, "the check to end", func() bool { return strings.Contains(e.logs.String(), `"msg":"check"`) })
	logs := e.logs.String()
	if !strings.Contains(logs, `"outcome":"client went away"`) {
		t.Errorf("the check did not end because the client went away:\n%s", logs)
	}
	waitFor(t, "the SMP requests to be abandoned", func() bool { return e.net.Hits().Abandoned > 0 })
	if n := asked(); n >= int64(len(ids)) {
		t.Errorf("%d ServiceGroup requests for %d rows: the check went on after the client left", n, len(ids))
	} else {
		t.Logf("%d of %d rows reached an SMP before the client left; %d requests abandoned", n, len(ids), e.net.Hits().Abandoned)
	}
}

// TestCheckPerClientLimit: a client may run two checks at once; a third is 429
// too_many_bulk_requests with Retry-After until one ends.
func TestCheckPerClientLimit(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	row := `"` + netsim.KnownBelgian + `"`
	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	ctx2, cancel2 := context.WithCancel(t.Context())
	defer cancel2()
	for _, ctx := range []context.Context{ctx1, ctx2} {
		resp := e.startCheck(t, ctx, "", "application/x-ndjson", row)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("check: %d", resp.StatusCode)
		}
		defer resp.Body.Close()
	}
	resp, body := e.postCheck(t, "", "application/x-ndjson", row)
	if got := decodeJSON[errorBody](t, body).Error; resp.StatusCode != http.StatusTooManyRequests || got.Code != CodeTooManyBulkRequests ||
		resp.Header.Get("Retry-After") != "10" || !strings.Contains(got.Message, "2 bulk checks") {
		t.Fatalf("third check: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	cancel1()
	waitFor(t, "the first check to end", func() bool { return strings.Contains(e.logs.String(), `"outcome":"client went away"`) })
	ctx3, cancel3 := context.WithCancel(t.Context())
	defer cancel3()
	if resp := e.startCheck(t, ctx3, "", "application/x-ndjson", row); resp.StatusCode != http.StatusOK {
		t.Errorf("a check after one ended: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
}

// TestCheckTotalLimit: past the server's checks at once, a check from any client is 503
// service_unavailable with Retry-After; once one ends, the next is taken.
func TestCheckTotalLimit(t *testing.T) {
	t.Parallel()
	e := startE2EWith(t, func(c *Config) { c.Bulk.Total = 1 }, nil)
	belgian := e.ds.MustLookup(netsim.KnownBelgian)
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	row := `"` + netsim.KnownBelgian + `"`
	ctx1, cancel1 := context.WithCancel(t.Context())
	defer cancel1()
	resp := e.startCheck(t, ctx1, "", "application/x-ndjson", row)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("first check: %d", resp.StatusCode)
	}
	defer resp.Body.Close()
	resp, body := e.postCheck(t, "", "application/x-ndjson", row)
	if got := decodeJSON[errorBody](t, body).Error; resp.StatusCode != http.StatusServiceUnavailable || got.Code != CodeUnavailable ||
		resp.Header.Get("Retry-After") != "10" || !strings.Contains(got.Message, "as many bulk checks as it may (1)") {
		t.Fatalf("second check: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	cancel1()
	waitFor(t, "the first check to end", func() bool { return strings.Contains(e.logs.String(), `"outcome":"client went away"`) })
	e.net.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{})
	if resp, body := e.postCheck(t, "", "application/x-ndjson", row); resp.StatusCode != http.StatusOK {
		t.Errorf("a check after the first ended: %d %s", resp.StatusCode, body)
	}
}

// TestCheckOutlivesTimeouts: a check whose answer takes longer than the server's
// read and write timeouts is answered whole: each line moves the deadlines.
func TestCheckOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	const timeout = 200 * time.Millisecond
	// A long IdleTimeout (it would be the ReadTimeout) keeps the second subtest from
	// reusing a connection the server is closing just then: a POST is not retried.
	e := startE2EWith(t, nil, func(s *http.Server) {
		s.ReadTimeout, s.WriteTimeout, s.IdleTimeout = timeout, timeout, time.Minute
	})
	ids := quoted(registeredOn(e.ds, -2, false, 6))
	for i := range e.ds.SMPHosts {
		// Every lookup takes longer than both timeouts.
		e.net.SetFault(netsim.SMPHostTarget(i), netsim.Fault{Latency: 2 * timeout})
	}
	for _, accept := range []string{"application/x-ndjson", "text/csv"} {
		t.Run(accept, func(t *testing.T) {
			resp, raw := e.postCheck(t, "", "application/x-ndjson", strings.Join(ids, "\n"), "Accept", accept)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			if accept == "text/csv" {
				if tr := resp.Trailer.Get(checkSummaryTrailer); !strings.Contains(tr, "rows=6, ") || !strings.Contains(tr, "failed=0,") {
					t.Errorf("trailer %q\n%s", tr, raw)
				}
				return
			}
			got, sum := readNDJSON(t, raw)
			if sum == nil || sum.Rows != len(ids) || sum.Counts.Of(bulk.Failed) != 0 || len(got) != len(ids) {
				t.Errorf("summary %+v\n%s", sum, raw)
			}
		})
	}
}

// TestCheckRefused: everything a check can be refused for is refused with a 4xx
// error object before the answer starts.
func TestCheckRefused(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian)}
	s, _ := newTestServer(t, reg, func(c *Config) {
		c.Bulk = BulkLimits{Rows: 5, Body: 200}
		c.Networks = prodAndTest(t, reg, reg)
	})
	tests := []struct {
		name, query, ct, body string
		hdr                   []string
		status                int
		code                  registry.Code
		msg                   string
	}{
		{name: "no content type", body: `{"rows":["x"]}`, status: 415, code: CodeUnsupportedMediaType, msg: "text/csv"},
		{name: "xml", ct: "application/xml", body: `<rows/>`, status: 415, code: CodeUnsupportedMediaType, msg: "application/x-ndjson"},
		{name: "latin-1 CSV", ct: "text/csv; charset=iso-8859-1", body: "id\nx\n", status: 415, code: CodeUnsupportedMediaType, msg: "UTF-8"},
		{name: "gzip", ct: "text/csv", hdr: []string{"Content-Encoding", "gzip"}, body: "id\nx\n", status: 415, code: CodeUnsupportedMediaType, msg: "Content-Encoding"},
		{name: "too many rows", ct: "application/json", body: `{"rows":["a","b","c","d","e","f"]}`, status: 413, code: CodeTooManyRows, msg: "at most 5 rows"},
		{name: "too many NDJSON rows", ct: "application/x-ndjson", body: "\"a\"\n\"b\"\n\"c\"\n\"d\"\n\"e\"\n\"f\"\n", status: 413, code: CodeTooManyRows, msg: "5 rows"},
		{name: "body too large", ct: "text/csv", body: "id\n" + strings.Repeat("0208:0677424046\n", 13), status: 413, code: CodeBodyTooLarge, msg: "200 bytes"},
		{name: "no rows", ct: "application/json", body: `{"rows":[]}`, status: 400, code: registry.CodeInvalidRequest, msg: "no rows"},
		{name: "empty NDJSON", ct: "application/x-ndjson", body: "\n\n", status: 400, code: registry.CodeInvalidRequest, msg: "no rows"},
		{name: "CSV header only", ct: "text/csv", body: "VAT number\n", status: 400, code: registry.CodeInvalidRequest, msg: "no rows"},
		{name: "not JSON", ct: "application/json", body: `hello`, status: 400, code: registry.CodeInvalidRequest, msg: "as JSON"},
		{name: "JSON cut short", ct: "application/json", body: `{"rows":["a",`, status: 400, code: registry.CodeInvalidRequest, msg: "as JSON"},
		{name: "no NDJSON line is a row", ct: "application/x-ndjson", body: "{\n[1]\n", status: 400, code: registry.CodeInvalidRequest, msg: "NDJSON"},
		{name: "CSV without an id column", ct: "text/csv", body: "name,city\nacme,gent\n", status: 400, code: registry.CodeInvalidRequest, msg: "identifier column"},
		{name: "CSV column not there", query: "column=btw", ct: "text/csv", body: "vat\nx\n", status: 400, code: registry.CodeInvalidRequest, msg: `"btw"`},
		{name: "column with JSON", query: "column=vat", ct: "application/json", body: `{"rows":["a"]}`, status: 400, code: registry.CodeInvalidRequest, msg: "CSV"},
		{name: "unknown document kind", query: "documents=Invoice,Invoic", ct: "application/x-ndjson", body: "\"a\"\n", status: 400, code: registry.CodeInvalidRequest, msg: "Credit Note, "},
		{name: "unknown document kind in the body", ct: "application/json", body: `{"documents":["Bill"],"rows":["a"]}`, status: 400, code: registry.CodeInvalidRequest, msg: `unknown document kind "Bill"`},
		{name: "long unknown document kind", query: "documents=Invoice," + strings.Repeat("Invoic", 5000), ct: "application/x-ndjson", body: "\"a\"\n", status: 400, code: registry.CodeInvalidRequest, msg: `unknown document kind "InvoicInvoic`},
		{name: "data after the JSON body", ct: "application/json", body: `{"rows":["a"]}{"rows":["b"]}`, status: 400, code: registry.CodeInvalidRequest, msg: "data after the JSON body"},
		{name: "documents twice", query: "documents=Order", ct: "application/json", body: `{"documents":["Invoice"],"rows":["a"]}`, status: 400, code: registry.CodeInvalidRequest, msg: "one place"},
		{name: "unknown network", query: "network=staging", ct: "application/json", body: `{"rows":["a"]}`, status: 400, code: registry.CodeInvalidRequest, msg: "staging"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := "/api/v1/check"
			if tt.query != "" {
				target += "?" + tt.query
			}
			req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(tt.body))
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			for i := 0; i+1 < len(tt.hdr); i += 2 {
				req.Header.Set(tt.hdr[i], tt.hdr[i+1])
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			got := decodeJSON[errorBody](t, w.Body.Bytes()).Error
			if w.Code != tt.status || got.Code != tt.code || !strings.Contains(got.Message, tt.msg) {
				t.Errorf("%d %s %q, want %d %s with %q", w.Code, got.Code, phrase.Shorten(got.Message, 300), tt.status, tt.code, tt.msg)
			}
			// What the client sent is quoted capped (phrase.Quote), never echoed whole.
			if len(got.Message) > 1000 {
				t.Errorf("a message of %d bytes: %s", len(got.Message), phrase.Shorten(got.Message, 300))
			}
			if w.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", w.Header().Get("Cache-Control"))
			}
		})
	}
	// A body of unknown length over the limit is cut off while it is read.
	req := httptest.NewRequest(http.MethodPost, "/api/v1/check", io.MultiReader(strings.NewReader("id\n"), strings.NewReader(strings.Repeat("0208:0677424046\n", 20))))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "text/csv")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if got := decodeJSON[errorBody](t, w.Body.Bytes()).Error; w.Code != 413 || got.Code != CodeBodyTooLarge {
		t.Errorf("chunked body over the limit: %d %+v", w.Code, got)
	}
	if reg.calls != 0 {
		t.Errorf("the registry was asked %d times by refused checks", reg.calls)
	}
}

// TestCheckDocumentsAfterRows: a JSON body may name its documents after its rows, as
// the issue writes it ({"rows": [...], "documents": [...]}).
func TestCheckDocumentsAfterRows(t *testing.T) {
	t.Parallel()
	e := startE2E(t)
	resp, raw := e.postCheck(t, "", "application/json", `{"rows":["`+netsim.KnownBelgian+`"],"documents":["Order"]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	got, _ := readNDJSON(t, raw)
	if r := got[0]; r.Status != bulk.RegisteredWithoutDocument || len(r.Documents) != 1 || r.Documents[0].Kind != "Order" {
		t.Errorf("%+v", r)
	}
}

// TestCheckRateLimitCost: a check costs ⌈rows/100⌉ requests of the REST API's rate
// limit, the rest once its rows are read, and may leave the quota below zero.
func TestCheckRateLimitCost(t *testing.T) {
	t.Parallel()
	reg := &fakeRegistry{part: samplePart(netsim.KnownBelgian)}
	s, _ := newTestServer(t, reg, func(c *Config) { c.RateLimit = RateLimit{Rate: 1, Burst: 3} })
	clk := clock.NewFake(time.Now())
	useClock(s, clk)
	rows := strings.TrimSuffix(strings.Repeat("\""+netsim.KnownBelgian+"\"\n", 250), "\n")
	req := httptest.NewRequest(http.MethodPost, "/api/v1/check", strings.NewReader(rows))
	req.Header.Set("Content-Type", "application/x-ndjson")
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	// 250 rows cost 3 requests of a bucket of 3: none left, and 3 s to refill.
	if w.Code != 200 || w.Header().Get("RateLimit") != `"rest";r=0;t=3` {
		t.Fatalf("%d RateLimit %q", w.Code, w.Header().Get("RateLimit"))
	}
	if w := do(t, s, "GET", "/api/v1/participant/"+netsim.KnownBelgian); w.Code != 429 {
		t.Errorf("a lookup right after a check of 250 rows: %d", w.Code)
	}
	clk.Advance(time.Second)
	if w := do(t, s, "GET", "/api/v1/participant/"+netsim.KnownBelgian); w.Code != 200 {
		t.Errorf("a lookup a second later: %d", w.Code)
	}
	// A check of 800 rows costs 8: the bucket owes 5 (after this lookup 6); a request
	// refused then says no request is left, never a negative number.
	clk.Advance(time.Hour)
	rows = strings.TrimSuffix(strings.Repeat("\""+netsim.KnownBelgian+"\"\n", 800), "\n")
	req = httptest.NewRequest(http.MethodPost, "/api/v1/check", strings.NewReader(rows))
	req.Header.Set("Content-Type", "application/x-ndjson")
	w = httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != 200 || w.Header().Get("RateLimit") != `"rest";r=0;t=8` {
		t.Fatalf("check of 800 rows: %d RateLimit %q", w.Code, w.Header().Get("RateLimit"))
	}
	w = do(t, s, "GET", "/api/v1/participant/"+netsim.KnownBelgian)
	if h := w.Header().Get("RateLimit"); w.Code != 429 || h != `"rest";r=0;t=6` {
		t.Errorf("a lookup while the bucket owes 5 requests: %d RateLimit %q, want 429 \"rest\";r=0;t=6", w.Code, h)
	}
}

func TestAnswersCSV(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		accept string
		want   bool
	}{
		{"", false},
		{"*/*", false},
		{"text/csv", true},
		{"text/csv;q=0", false},
		{"application/x-ndjson, text/csv", true},
		{"application/x-ndjson, text/csv;q=0.5", false},
		{"application/x-ndjson;q=0.5, text/csv", true},
		{"application/json", false},
	} {
		r := httptest.NewRequest("POST", "/api/v1/check", nil)
		r.Header.Set("Accept", tt.accept)
		if got := answersCSV(r); got != tt.want {
			t.Errorf("Accept %q: CSV %v, want %v", tt.accept, got, tt.want)
		}
	}
}

// BenchmarkCheckCached measures a check of 10,000 rows answered from the cache
// (400 participants, each looked up once before), through HTTP, NDJSON out pushed as
// the server does (checkFlushLines lines or checkFlushDelay).
func BenchmarkCheckCached(b *testing.B) {
	e := startE2E(b)
	ids := quoted(registeredOn(e.ds, -2, false, 400))
	var lines []string
	for i := range 10_000 {
		lines = append(lines, ids[i%len(ids)])
	}
	body := strings.Join(lines, "\n")
	send := func() {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, e.url+"/api/v1/check", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n < 10_000 {
			b.Fatalf("%d, %d bytes", resp.StatusCode, n)
		}
	}
	send() // warm the cache
	b.ResetTimer()
	for b.Loop() {
		send()
	}
	b.ReportMetric(float64(b.N*10_000)/b.Elapsed().Seconds(), "rows/s")
}
