package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/bulk"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// MaxCheckRows is the most rows check_participants takes in one call; longer lists go
// to POST /api/v1/check or the command peppolgate check.
const MaxCheckRows = 100

// maxReferenceLength is the longest reference a check row may carry, in characters.
const maxReferenceLength = 200

// CheckRow is one row of check_participants.
type CheckRow struct {
	Input     *string `json:"input"`
	Country   string  `json:"country"`
	Reference string  `json:"reference"`
}

// CheckArgs are the arguments of check_participants.
type CheckArgs struct {
	Rows      []CheckRow `json:"rows"`
	Documents []string   `json:"documents"`
	Network   string     `json:"network"`
}

// CheckResult is the answer of check_participants: every row's answer in input order,
// and a summary.
type CheckResult struct {
	Network   string        `json:"network,omitempty" jsonschema:"the Peppol network that answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	Documents []string      `json:"documents" jsonschema:"the document kinds asked about, as the Peppol code list spells its categories"`
	Results   []bulk.Result `json:"results" jsonschema:"one answer per row, in input order"`
	Summary   bulk.Summary  `json:"summary" jsonschema:"how many rows got each status, and how long the check took"`
}

func checkParticipants() Tool {
	return Tool{
		Name:  "check_participants",
		Title: "Check a list of customers against Peppol",
		Description: `Check up to ` + fmt.Sprint(MaxCheckRows) + ` customers at once: for each row (a Peppol participant identifier, or a VAT or company registration number in any notation) whether it is registered on Peppol, under which participant identifier, and whether its SMP lists the document kinds asked about (by default Invoice and Credit Note), with its name and country from the Peppol Directory and its access point endpoint.

Use it when you have several identifiers or numbers to check, e.g. "can these receive invoices: BE0677424046, 0192:923609016, NL859238567B01?", or a customer list. Numbers are read in every notation peppolgate knows (BE 0677.424.046, NO 923 609 016 MVA, NL859238567B01, SIREN/SIRET, GLN, KvK, Swedish organisation numbers) and each reading is looked up until one is registered; give a row's country (ISO 3166 alpha-2) when the number alone is ambiguous. Rows naming the same participant are looked up once.

Do not use it to find a company by name (use search_directory: rows must be identifiers or numbers), for one participant's full record (use lookup_participant) or for every document type and endpoint it lists (use get_participant_services). For more than ` + fmt.Sprint(MaxCheckRows) + ` rows use the REST API (POST /api/v1/check) or the command peppolgate check.

Each row's status is receives (registered, its SMP lists every document kind asked about, and nothing blocks sending to its access point), blocked (registered and listing them, but sending to it fails right now: blocked gives the warning codes, e.g. certificate_expired, or smp_signature_invalid when its SMP answer is not validly signed; accessPoint is then absent when the answer was not validly signed, as an unverified URL is never shown), registered_without_that_document (registered, but documents says which kind is missing: listed false). Each row's documents give, per kind asked about, listed (its SMP lists it) and receives (it can be sent right now: false for a blocked kind), not_registered (no reading of the input is registered in the SML: it cannot receive over Peppol), invalid (not an identifier or number peppolgate can read; fix the row) or failed (the Peppol network did not answer for it; error.retryable says whether checking it again later may help). Results come in input order, with the summary's counts per status.

documents, optional, are document kinds, categories of the Peppol code list such as Invoice, Credit Note, Order, Order Response, Despatch Advice (any case).

Errors: invalid_request (no rows, more than ` + fmt.Sprint(MaxCheckRows) + ` rows, a row without input, a country that is not two letters, or an unknown document kind: the message lists the known ones). A failing upstream fails only its rows (status failed), not the call.`,
		Input:       checkInput(),
		Output:      CheckResultSchema(),
		Annotations: readOnly(),
		Call:        callCheck,
	}
}

// CheckResultSchema returns the JSON Schema (draft 2020-12) of the answer of
// check_participants, derived from CheckResult. Each call returns a new schema.
func CheckResultSchema() *jsonschema.Schema {
	s := outputSchema[CheckResult]()
	s.Description = "The answer for every row of a list of participant identifiers and company or VAT numbers checked against Peppol, in input order, with counts per status."
	s.Properties["results"].MaxItems = ptr(MaxCheckRows)
	row := s.Properties["results"].Items
	row.Properties["status"].Enum = nil
	for _, st := range bulk.Statuses() {
		row.Properties["status"].Enum = append(row.Properties["status"].Enum, string(st))
	}
	row.Properties["participantId"].Pattern = canonicalIDPattern
	return s
}

// checkInput is the input schema of check_participants.
func checkInput() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"rows": {
				Type:        "array",
				Description: fmt.Sprintf("The rows to check, 1 to %d, each an object with input and optionally country and reference.", MaxCheckRows),
				MinItems:    ptr(1),
				MaxItems:    ptr(MaxCheckRows),
				Items: &jsonschema.Schema{
					Type: "object",
					Properties: map[string]*jsonschema.Schema{
						"input": {
							Type: "string",
							Description: "A Peppol participant identifier (0208:0677424046) or a VAT or company registration number in any notation " +
								"(BE 0677.424.046, BE0677424046, NO 923 609 016 MVA, NL859238567B01, 5790000435975).",
							MaxLength: ptr(max(peppol.MaxCandidateInput, maxParticipantIDArg)),
							Examples:  []any{"0208:0677424046", "BE 0677.424.046", "NO 923 609 016 MVA"},
						},
						"country": {
							Type:        "string",
							Description: "Optional: the ISO 3166 alpha-2 country of the number (BE, NO, ...), to keep only its readings in that country.",
							Pattern:     CountryPattern,
						},
						"reference": {
							Type:        "string",
							Description: "Optional: your own key for the row (e.g. a customer number), echoed in its answer.",
							MaxLength:   ptr(maxReferenceLength),
						},
					},
					Required:             []string{"input"},
					AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
				},
			},
			"documents": {
				Type: "array",
				Description: "Optional: the document kinds to ask about, categories of the Peppol code list; " +
					"default Invoice and Credit Note.",
				Items:    &jsonschema.Schema{Type: "string", Enum: Enum(bulk.Kinds())},
				MinItems: ptr(1),
				Examples: []any{[]any{"Invoice", "Credit Note"}, []any{"Order"}},
			},
		},
		Required:             []string{"rows"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// checkRows validates the rows argument and returns them as bulk rows. It returns a
// *registry.Error with CodeInvalidRequest for no rows, too many, a row without input,
// a bad country or a reference too long.
func checkRows(rows []CheckRow) ([]bulk.Row, error) {
	bad := func(format string, a ...any) error {
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: fmt.Sprintf(format, a...)}
	}
	switch {
	case len(rows) == 0:
		return nil, bad(`rows is required: 1 to %d rows, each {"input": "<participant id or VAT/company number>"}, e.g. {"rows": [{"input": "0208:0677424046"}, {"input": "NO 923 609 016 MVA"}]}`, MaxCheckRows)
	case len(rows) > MaxCheckRows:
		return nil, bad("check_participants takes at most %d rows per call; got %d. Split the list, or check it in one go with the REST API (POST /api/v1/check) or the command peppolgate check", MaxCheckRows, len(rows))
	}
	out := make([]bulk.Row, len(rows))
	for i, r := range rows {
		if r.Input == nil {
			return nil, bad("rows[%d].input is required: a participant identifier or a VAT or company number", i)
		}
		if utf8.RuneCountInString(r.Reference) > maxReferenceLength {
			return nil, bad("rows[%d].reference must have at most %d characters", i, maxReferenceLength)
		}
		country, err := registry.ParseCountry(r.Country)
		if err != nil {
			return nil, bad("rows[%d].country must be a two-letter ISO 3166 code such as BE or NO; got %q", i, r.Country)
		}
		out[i] = bulk.Row{Index: i, Input: *r.Input, Country: country, Reference: r.Reference}
	}
	return out, nil
}

func callCheck(ctx context.Context, nets *registry.Networks, raw json.RawMessage) (*Result, error) {
	start := time.Now()
	var a CheckArgs
	if err := decodeArgs("check_participants", raw, &a, "rows and optionally documents and network"); err != nil {
		return nil, err
	}
	rows, err := checkRows(a.Rows)
	if err != nil {
		return nil, err
	}
	docs, err := bulk.ParseDocuments(a.Documents)
	if err != nil {
		return nil, err
	}
	reg, network, err := nets.Select(a.Network)
	if err != nil {
		return nil, err
	}
	in, out := make(chan bulk.Row), make(chan bulk.Result)
	errc := make(chan error, 1)
	go func() {
		errc <- bulk.Check(ctx, bulk.Config{Registry: reg, Documents: docs}, in, out)
	}()
	go func() {
		defer close(in)
		for _, r := range rows {
			select {
			case in <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	res := &CheckResult{Network: network, Documents: docs, Results: make([]bulk.Result, len(rows)), Summary: bulk.Summary{}}
	for r := range out {
		res.Results[r.Index] = r
	}
	if err := <-errc; err != nil {
		return nil, err
	}
	for _, r := range res.Results {
		res.Summary.Add(r)
	}
	res.Summary.SetElapsed(time.Since(start))
	return &Result{Value: res, Text: checkText(res)}, nil
}

// checkText renders a check: the counts, then one line per row.
func checkText(r *CheckResult) string {
	var b strings.Builder
	c := r.Summary.Counts
	kinds := strings.Join(r.Documents, " and ")
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{c.Receives, "can receive them"}, {c.Blocked, "registered for them but cannot be sent to right now"},
		{c.RegisteredWithoutDocument, "registered without one of them"},
		{c.NotRegistered, "not registered"}, {c.Invalid, "invalid"}, {c.Failed, "failed"},
	} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	fmt.Fprintf(&b, "Checked %s for %s: %s.", phrase.Plural(r.Summary.Rows, "row"), kinds, strings.Join(parts, ", "))
	for _, row := range r.Results {
		if row.Input == "" {
			b.WriteString("\n- (empty)")
		} else {
			fmt.Fprintf(&b, "\n- %s", row.Input)
		}
		if row.Reference != "" {
			fmt.Fprintf(&b, " [%s]", row.Reference)
		}
		b.WriteString(": ")
		switch row.Status {
		case bulk.Receives, bulk.Blocked, bulk.RegisteredWithoutDocument:
			b.WriteString(row.ParticipantID)
			if row.Name != "" {
				fmt.Fprintf(&b, " %s", untrusted.Quote(row.Name))
			}
			if row.Country != "" {
				fmt.Fprintf(&b, " (%s)", untrusted.Short(row.Country))
			}
			switch row.Status {
			case bulk.Receives:
				fmt.Fprintf(&b, " receives %s", kinds)
			case bulk.Blocked:
				fmt.Fprintf(&b, " is registered for %s", kinds)
			default:
				var missing []string
				for _, d := range row.Documents {
					if !d.Listed {
						missing = append(missing, d.Kind)
					}
				}
				fmt.Fprintf(&b, " is registered but does not receive %s", strings.Join(missing, " or "))
			}
			if len(row.Blocked) > 0 {
				fmt.Fprintf(&b, ", but sending to it fails right now (%s)", strings.Join(row.Blocked, ", "))
			}
			if row.AccessPoint != "" {
				fmt.Fprintf(&b, "; access point %s", untrusted.Short(row.AccessPoint))
			}
		case bulk.NotRegistered:
			fmt.Fprintf(&b, "not registered on Peppol (tried %s)", strings.Join(row.Tried, ", "))
			for _, w := range row.Warnings {
				fmt.Fprintf(&b, "; note: %s", w.Message)
			}
		case bulk.Invalid:
			b.WriteString("invalid")
			if row.Error != nil {
				fmt.Fprintf(&b, ": %s", row.Error.Message)
			}
		case bulk.Failed:
			b.WriteString("failed")
			if row.Error != nil {
				fmt.Fprintf(&b, " (%s): %s", row.Error.Code, row.Error.Message)
			}
		}
	}
	return b.String()
}
