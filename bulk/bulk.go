// Package bulk checks a whole list of customers against Peppol: for each row of a ledger
// (a participant id, or a VAT or company number in any notation, with an optional
// country hint and the caller's reference) whether the participant can receive the
// document kinds asked about, under which id, through which access point. It is the one
// engine behind every front door (REST, the command line, MCP); it asks nothing itself
// but the registry, whose cache, request coalescing, per-SMP-host caps, SSRF guard and
// Directory limiter keep it polite: rows naming the same participant are resolved
// upstream once. Rows stream in and results stream out, so memory stays bounded
// whatever the list's length.
package bulk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Status is the answer for one row.
type Status string

// The statuses.
const (
	// Receives: registered, and its SMP lists every document kind asked about.
	Receives Status = "receives"
	// RegisteredWithoutDocument: registered, but its SMP lacks a document kind asked
	// about (Documents says which).
	RegisteredWithoutDocument Status = "registered_without_that_document"
	// NotRegistered: no identifier the input may mean is registered in the SML.
	NotRegistered Status = "not_registered"
	// Invalid: the input is no participant identifier and no number peppolgate can
	// read as one.
	Invalid Status = "invalid"
	// Failed: the network could not be asked (Error says why and whether a retry may
	// help).
	Failed Status = "failed"
)

// DefaultDocuments are the document kinds asked about when a check names none: the
// code list's categories of the invoice and the credit note.
func DefaultDocuments() []string { return []string{"Invoice", "Credit Note"} }

// codeUnreadable is the error code of a row the input's format does not allow.
const codeUnreadable = string(registry.CodeInvalidRequest)

// DefaultConcurrency is how many rows are checked at once unless Config says otherwise.
const DefaultConcurrency = 32

// Row is one line of the list.
type Row struct {
	// Index is the row's position in the input, echoed in its Result.
	Index int
	// Input is what the ledger holds: a participant id, or a VAT or company number in
	// any notation.
	Input string
	// Country, when given, keeps only the readings of Input in that ISO 3166 country.
	Country string
	// Reference is the caller's own key for the row (e.g. a customer number), echoed.
	Reference string
	// Record is the row's whole CSV record, echoed for a CSV answer; nil otherwise.
	Record []string
}

// Document says whether a participant can receive one document kind.
type Document struct {
	Kind     string `json:"kind" jsonschema:"the document kind, a category of the Peppol code list, e.g. Invoice or Credit Note"`
	Receives bool   `json:"receives" jsonschema:"whether the participant's SMP lists a document type of this kind"`
}

// RowError is why a row failed.
type RowError struct {
	Code      string `json:"code" jsonschema:"the error code, e.g. lookup_failed"`
	Message   string `json:"message" jsonschema:"what went wrong"`
	Retryable bool   `json:"retryable" jsonschema:"whether asking again later may help"`
}

// Result is the answer for one row.
type Result struct {
	Index         int                `json:"index" jsonschema:"the row's position in the input, from 0"`
	Input         string             `json:"input" jsonschema:"the row's input as given"`
	CountryHint   string             `json:"countryHint,omitempty" jsonschema:"the row's country hint as given"`
	Reference     string             `json:"reference,omitempty" jsonschema:"the row's reference as given"`
	Status        Status             `json:"status" jsonschema:"receives, registered_without_that_document, not_registered, invalid or failed"`
	ParticipantID string             `json:"participantId,omitempty" jsonschema:"the participant identifier that matched, <scheme>:<value>"`
	Tried         []string           `json:"tried,omitempty" jsonschema:"the participant identifiers the input was read as and looked up, in order"`
	Name          string             `json:"name,omitempty" jsonschema:"the name on the participant's Peppol Directory card"`
	Country       string             `json:"country,omitempty" jsonschema:"the country on the participant's Peppol Directory card"`
	Documents     []Document         `json:"documents,omitempty" jsonschema:"each document kind asked about, and whether the participant can receive it"`
	AccessPoint   string             `json:"accessPoint,omitempty" jsonschema:"the access point endpoint URL the SMP names"`
	Warnings      []registry.Warning `json:"warnings,omitempty" jsonschema:"the lookup's warnings"`
	Error         *RowError          `json:"error,omitempty" jsonschema:"for failed and invalid: why, and whether a retry may help"`
	// Record is the row's CSV record, echoed.
	Record []string `json:"-"`
}

// Config configures Check.
type Config struct {
	// Registry answers the lookups. Required.
	Registry registry.Registry
	// Documents are the document kinds asked about (code-list categories, any case);
	// empty means DefaultDocuments.
	Documents []string
	// Concurrency is how many rows are checked at once; 0 means DefaultConcurrency.
	Concurrency int
}

// Check checks every row read from rows, sending each Result to results as it is done
// (not in input order: Result.Index says which row), until rows is closed and every
// row is answered, or ctx is done. It closes results when it returns. It returns
// ctx's error when cut short, and an error when cfg has no Registry.
func Check(ctx context.Context, cfg Config, rows <-chan Row, results chan<- Result) error {
	defer close(results)
	if cfg.Registry == nil {
		return errors.New("bulk: Config.Registry is nil")
	}
	docs := cfg.Documents
	if len(docs) == 0 {
		docs = DefaultDocuments()
	}
	n := cfg.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var row Row
				var ok bool
				select {
				case <-ctx.Done():
					return
				case row, ok = <-rows:
					if !ok {
						return
					}
				}
				r := checkRow(ctx, cfg.Registry, docs, row)
				select {
				case <-ctx.Done():
					return
				case results <- r:
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// checkRow answers one row: it reads the input as participant identifiers and looks
// them up in order until one is registered.
func checkRow(ctx context.Context, reg registry.Registry, docs []string, row Row) Result {
	res := Result{Index: row.Index, Input: row.Input, CountryHint: row.Country, Reference: row.Reference, Record: row.Record}
	cands := candidates(row.Input, row.Country)
	if len(cands) == 0 {
		res.Status = Invalid
		res.Error = &RowError{Code: string(registry.CodeInvalidParticipantID), Message: invalidMessage(row)}
		return res
	}
	var failure error
	for _, id := range cands {
		res.Tried = append(res.Tried, id.String())
		p, _, err := reg.Lookup(ctx, id)
		switch {
		case registry.ErrorCode(err) == registry.CodeNotFound:
			continue
		case err != nil:
			if failure == nil {
				failure = err
			}
			continue
		case p.SMP == nil:
			// A Directory card without an SML registration cannot receive.
			continue
		}
		res.ParticipantID = id.String()
		if d := p.Directory; d != nil {
			res.Name, res.Country = d.Name, d.CountryCode
		}
		if e := p.SMP.Endpoint; e != nil {
			res.AccessPoint = e.URL
		}
		res.Warnings = p.Warnings
		res.Status = Receives
		for _, kind := range docs {
			d := Document{Kind: kind, Receives: lists(p.SMP.DocumentTypes, kind)}
			if !d.Receives {
				res.Status = RegisteredWithoutDocument
			}
			res.Documents = append(res.Documents, d)
		}
		return res
	}
	if failure != nil {
		res.Status = Failed
		var re *registry.Error
		res.Error = &RowError{Code: string(registry.CodeLookupFailed), Message: failure.Error(), Retryable: true}
		if errors.As(failure, &re) {
			res.Error.Code, res.Error.Message = string(re.Code), re.Message
		}
		return res
	}
	res.Status = NotRegistered
	return res
}

// candidates are the participant identifiers input may mean, in the order to try
// them, those of country only when it is given.
func candidates(input, country string) []peppol.ParticipantID {
	var out []peppol.ParticipantID
	country = strings.ToUpper(strings.TrimSpace(country))
	for _, c := range peppol.Candidates(input) {
		if country != "" && c.SchemeID != "" && !strings.HasPrefix(c.SchemeID, country+":") {
			continue
		}
		out = append(out, c.ID)
	}
	return out
}

// invalidMessage says why a row's input cannot be checked.
func invalidMessage(row Row) string {
	if strings.TrimSpace(row.Input) == "" {
		return "the row has no identifier or number"
	}
	if row.Country != "" {
		return fmt.Sprintf("%q is no participant identifier and no company or VAT number of %s peppolgate can read", row.Input, strings.ToUpper(row.Country))
	}
	return fmt.Sprintf("%q is no participant identifier and no company or VAT number peppolgate can read; give it as <scheme>:<value>, e.g. 0208:0677424046", row.Input)
}

// lists reports whether types holds a document type of kind (a code-list category,
// compared without regard to case).
func lists(types []registry.CodeInfo, kind string) bool {
	for _, t := range types {
		if strings.EqualFold(t.Category, kind) {
			return true
		}
	}
	return false
}
