package tools

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// rowsArg is the rows argument of check_participants for inputs, each optionally
// followed by "|country|reference".
func rowsArg(inputs ...string) []any {
	rows := make([]any, len(inputs))
	for i, in := range inputs {
		parts := strings.Split(in, "|")
		row := map[string]any{"input": parts[0]}
		if len(parts) > 1 && parts[1] != "" {
			row["country"] = parts[1]
		}
		if len(parts) > 2 {
			row["reference"] = parts[2]
		}
		rows[i] = row
	}
	return rows
}

// TestMCPCheck: check_participants answers every status for rows in mixed notations
// and duplicates, in input order, with counts that add up, a text line per row, and
// structured content that validates against its own output schema.
func TestMCPCheck(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	failing := l.DS.MustLookup(netsim.KnownNorwegian)
	belgian := l.DS.MustLookup(netsim.KnownBelgian)
	if failing.SMPHost == belgian.SMPHost {
		t.Fatal("the dataset puts the Belgian and the Norwegian participant on one SMP host; the test needs two")
	}
	l.Net.SetFault(netsim.SMPHostTarget(failing.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	c := mcpClient(t, l)
	schema := outputSchemas(t, c)["check_participants"]

	rows := []struct {
		input  string
		status bulk.Status
		id     string
	}{
		// The dataset's certificate of KnownBelgian's access point has expired.
		{netsim.KnownBelgian + "||C-1", bulk.Blocked, netsim.KnownBelgian},
		{"BE 0677.424.046", bulk.Blocked, netsim.KnownBelgian},
		{"0677424046|be|C-3", bulk.Blocked, netsim.KnownBelgian},
		{"iso6523-actorid-upis::0208:0677424046", bulk.Blocked, netsim.KnownBelgian},
		{netsim.KnownBelgian, bulk.Blocked, netsim.KnownBelgian},
		{netsim.KnownDirectoryOnly, bulk.NotRegistered, ""},
		{"0208:0000000097", bulk.NotRegistered, ""},
		{"hello world", bulk.Invalid, ""},
		{"", bulk.Invalid, ""},
		{netsim.KnownNorwegian, bulk.Failed, ""},
	}
	var inputs []string
	for _, r := range rows {
		inputs = append(inputs, r.input)
	}
	r := call(t, c, "check_participants", map[string]any{"rows": rowsArg(inputs...)})
	res := checkStructured[CheckResult](t, r, schema)
	if len(res.Results) != len(rows) || res.Summary.Rows != len(rows) {
		t.Fatalf("%d results, total %d, for %d rows", len(res.Results), res.Summary.Rows, len(rows))
	}
	var counts bulk.Counts
	for i, want := range rows {
		got := res.Results[i]
		counts = addCount(counts, got.Status)
		in, _, _ := strings.Cut(want.input, "|")
		if got.Index != i || got.Input != in || got.Status != want.status || got.ParticipantID != want.id {
			t.Errorf("row %d (%q): %+v; want %s as %q", i, in, got, want.status, want.id)
		}
		if want.status == bulk.Failed && (got.Error == nil || !got.Error.Retryable || got.Error.Code != string(registry.CodeLookupFailed)) {
			t.Errorf("row %d failed without a retryable lookup_failed: %+v", i, got.Error)
		}
	}
	if res.Summary.Counts != counts || counts.Blocked != 5 || counts.NotRegistered != 2 || counts.Invalid != 2 || counts.Failed != 1 {
		t.Errorf("counts %+v, rows say %+v", res.Summary.Counts, counts)
	}
	if res.Results[0].Reference != "C-1" || res.Results[2].Reference != "C-3" || res.Results[1].Reference != "" {
		t.Errorf("references not echoed: %q %q %q", res.Results[0].Reference, res.Results[1].Reference, res.Results[2].Reference)
	}
	if got := strings.Join(res.Documents, ","); got != "Invoice,Credit Note" {
		t.Errorf("documents %q, want the default Invoice,Credit Note", got)
	}
	text := resultText(r)
	lines := strings.Split(text, "\n")
	if len(lines) != len(rows)+1 || !strings.HasPrefix(lines[0], "Checked 10 rows for Invoice and Credit Note: 5 registered for them but cannot be sent to right now") {
		t.Fatalf("text:\n%s", text)
	}
	name := l.Name(netsim.KnownBelgian)
	for i, want := range []string{
		"- " + netsim.KnownBelgian + " [C-1]: " + netsim.KnownBelgian + " “" + name + "” (BE) is registered for Invoice and Credit Note, but sending to it fails right now (certificate_expired, service_expired); access point https://",
		"- " + netsim.KnownDirectoryOnly + ": not registered on Peppol (tried " + netsim.KnownDirectoryOnly + ")",
		"- hello world: invalid: ",
		"- " + netsim.KnownNorwegian + ": failed (lookup_failed): ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text line %d: no %q in\n%s", i, want, text)
		}
	}

	// Another document kind, in any case: registered without it.
	r = call(t, c, "check_participants", map[string]any{"rows": rowsArg(netsim.KnownBelgian), "documents": []string{"invoice", " ORDER", "Invoice"}})
	res = checkStructured[CheckResult](t, r, schema)
	if got := strings.Join(res.Documents, ","); got != "Invoice,Order" {
		t.Errorf("documents %q, want Invoice,Order", got)
	}
	if row := res.Results[0]; row.Status != bulk.RegisteredWithoutDocument || len(row.Documents) != 2 || !row.Documents[0].Listed || row.Documents[1].Listed || row.Documents[1].Receives {
		t.Errorf("asking for orders: %+v", row)
	}
	if !strings.Contains(resultText(r), "is registered but does not receive Order") || res.Summary.Counts.RegisteredWithoutDocument != 1 {
		t.Errorf("text %q, counts %+v", resultText(r), res.Summary.Counts)
	}

	// The most rows a call takes.
	many := make([]string, MaxCheckRows)
	for i := range many {
		many[i] = fmt.Sprintf("0208:%010d", i)
	}
	r = call(t, c, "check_participants", map[string]any{"rows": rowsArg(many...)})
	if res = checkStructured[CheckResult](t, r, schema); res.Summary.Rows != MaxCheckRows || len(res.Results) != MaxCheckRows {
		t.Errorf("%d rows: total %d", MaxCheckRows, res.Summary.Rows)
	}
}

// TestMCPCheckErrors: the arguments check_participants refuses, each an
// invalid_request saying what to do.
func TestMCPCheckErrors(t *testing.T) {
	t.Parallel()
	l := startNet(t)
	c := mcpClient(t, l)
	tooMany := make([]string, MaxCheckRows+1)
	for i := range tooMany {
		tooMany[i] = netsim.KnownBelgian
	}
	tests := []struct {
		name   string
		args   any
		wantIn []string
	}{
		{"no arguments", nil, []string{"rows is required"}},
		{"no rows", map[string]any{"rows": []any{}}, []string{"rows is required", "1 to 100 rows"}},
		{"too many rows", map[string]any{"rows": rowsArg(tooMany...)}, []string{"at most 100 rows per call; got 101", "POST /api/v1/check", "peppolgate check"}},
		{"a row without input", map[string]any{"rows": []any{map[string]any{"input": netsim.KnownBelgian}, map[string]any{"reference": "x"}}}, []string{"rows[1].input is required"}},
		{"a plain string row", map[string]any{"rows": []any{netsim.KnownBelgian}}, []string{"argument rows", "must be a JSON object"}},
		{"an unknown row field", map[string]any{"rows": []any{map[string]any{"input": netsim.KnownBelgian, "vat": "x"}}}, []string{`unknown argument "vat"`}},
		{"a bad country", map[string]any{"rows": rowsArg(netsim.KnownBelgian + "|BEL")}, []string{"rows[0].country", "two-letter"}},
		{"a long reference", map[string]any{"rows": rowsArg(netsim.KnownBelgian + "||" + strings.Repeat("r", 201))}, []string{"rows[0].reference", "at most 200"}},
		{"an unknown document kind", map[string]any{"rows": rowsArg(netsim.KnownBelgian), "documents": []string{"Invoice", "Receipt"}},
			[]string{`unknown document kind "Receipt"`, "Credit Note", "Order Response", "Despatch Advice"}},
		{"documents not a list", map[string]any{"rows": rowsArg(netsim.KnownBelgian), "documents": "Invoice"}, []string{"argument documents", "must be a JSON array"}},
		{"an unknown network", map[string]any{"rows": rowsArg(netsim.KnownBelgian), "network": "acceptance"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := call(t, c, "check_participants", tt.args)
			text := resultText(r)
			if !r.IsError || r.StructuredContent != nil || !strings.HasPrefix(text, "invalid_request: ") {
				t.Fatalf("isError %v, text %q; want invalid_request", r.IsError, text)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(text, w) {
					t.Errorf("text %q lacks %q", text, w)
				}
			}
		})
	}
}

// addCount is c with one more row of status st.
func addCount(c bulk.Counts, st bulk.Status) bulk.Counts {
	s := bulk.Summary{Counts: c}
	s.Add(bulk.Result{Status: st})
	return s.Counts
}
