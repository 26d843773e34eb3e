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

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// Status is the answer for one row.
type Status string

// The statuses.
const (
	// Receives: registered, its SMP lists every document kind asked about, and nothing
	// blocks sending to its access point (registry.Judge).
	Receives Status = "receives"
	// Blocked: registered and its SMP lists every document kind asked about, but
	// sending to it fails right now (Result.Blocked says why: an expired, revoked or
	// foreign access point certificate, an SMP answer not validly signed, …).
	Blocked Status = "blocked"
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
	Kind string `json:"kind" jsonschema:"the document kind, a category of the Peppol code list, e.g. Invoice or Credit Note"`
	// Listed: its SMP lists a document type of this kind.
	Listed bool `json:"listed" jsonschema:"whether the participant's SMP lists a document type of this kind"`
	// Receives is the verdict's (registry.KindVerdict.Receives): listed, and an
	// endpoint of it can be sent to right now.
	Receives bool `json:"receives" jsonschema:"whether it can be sent this kind right now: listed, and an endpoint receiving it is not blocked (false for a blocked row)"`
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
	Status        Status             `json:"status" jsonschema:"receives (registered, lists every document kind asked about, nothing blocks sending), blocked (registered and lists them, but sending fails right now: see blocked), registered_without_that_document, not_registered, invalid or failed"`
	ParticipantID string             `json:"participantId,omitempty" jsonschema:"the participant identifier that matched, <scheme>:<value>"`
	Tried         []string           `json:"tried,omitempty" jsonschema:"the participant identifiers the input was read as and looked up, in order"`
	Name          string             `json:"name,omitempty" jsonschema:"the name on the participant's Peppol Directory card"`
	Country       string             `json:"country,omitempty" jsonschema:"the country on the participant's Peppol Directory card"`
	Documents     []Document         `json:"documents,omitempty" jsonschema:"each document kind asked about, and whether the participant can receive it"`
	AccessPoint   string             `json:"accessPoint,omitempty" jsonschema:"the access point endpoint URL the SMP names, only when the SMP answer it was read from is validly signed by the network's SMP CA; absent otherwise (an unverified URL is never shown)"`
	Blocked       []string           `json:"blocked,omitempty" jsonschema:"why sending to the participant fails right now although it is registered (status blocked, or registered_without_that_document when a kind it lists is blocked): the codes of the warnings that block its access point endpoint (certificate_expired, certificate_revoked, certificate_chain_invalid, service_not_yet_active, service_expired, transport_profile_removed, smp_signature_invalid, smp_signature_missing, smp_certificate_not_peppol)"`
	Warnings      []registry.Warning `json:"warnings,omitempty" jsonschema:"the lookup's warnings; for not_registered, an identifier warning for each reading whose scheme, syntax or check digit is wrong (the number may be mistyped)"`
	Error         *RowError          `json:"error,omitempty" jsonschema:"for failed and invalid: why, and whether a retry may help"`
	// Record is the row's CSV record, echoed.
	Record []string `json:"-"`
}

// Config configures Check.
type Config struct {
	// Registry answers the lookups. Required. When it is a registry.Locator, each row's
	// SMP host is found first (the SML alone) and rows wait in their host's lane, so
	// that a slow or failing host holds up only its own rows.
	Registry registry.Registry
	// Documents are the document kinds asked about (code-list categories, any case);
	// empty means DefaultDocuments.
	Documents []string
	// Concurrency is how many rows are located at once, and looked up at once when the
	// registry is no Locator; 0 means DefaultConcurrency.
	Concurrency int
	// PerHost is how many rows of one SMP host are looked up at once; 0 means
	// DefaultPerHost, the registry's own cap per SMP host.
	PerHost int
}

// maxLookups bounds the lookups in flight over every lane, so that a list spread over
// many SMP hosts does not ask them all at once: the lanes of 8 hosts at full speed.
const maxLookups = 64

// DefaultPerHost is Config.PerHost's default: peppolnet's requests in flight per SMP
// host, so that a lane keeps its host's slots busy and no more.
const DefaultPerHost = 8

// maxInFlight bounds the rows read and not yet answered.
const maxInFlight = 4096

// memoSize is how many answers Check remembers for later rows naming the same
// participants (the rows in flight are coalesced besides).
const memoSize = 4096

// Check checks every row read from rows, sending each Result to results as it is done
// (not in input order: Result.Index says which row), until rows is closed and every
// row is answered, or ctx is done. Rows that read as the same participant
// identifiers are resolved once, and share the slices of their answers: callers must
// not modify a Result's slices. It closes results when it returns. It returns ctx's
// error when cut short, and an error when cfg has no Registry.
func Check(ctx context.Context, cfg Config, rows <-chan Row, results chan<- Result) error {
	defer close(results)
	if cfg.Registry == nil {
		return errors.New("bulk: Config.Registry is nil")
	}
	ctx = registry.WithBulk(ctx) // rows yield to interactive requests (docs/ARCHITECTURE.md §3)
	e := newEngine(ctx, cfg, results)
	var wg sync.WaitGroup
	for range e.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case e.slots <- struct{}{}:
				}
				var row Row
				var ok bool
				select {
				case <-ctx.Done():
					<-e.slots
					return
				case row, ok = <-rows:
					if !ok {
						<-e.slots
						return
					}
				}
				e.admit(row)
			}
		}()
	}
	wg.Wait()
	e.lanesDone.Wait()
	return ctx.Err()
}

// engine is one Check's state: the rows in flight by key, the answers remembered, and
// a lane per SMP host.
type engine struct {
	ctx         context.Context
	reg         registry.Registry
	loc         registry.Locator // nil when the registry cannot locate
	docs        []string
	concurrency int
	perHost     int
	results     chan<- Result
	// slots bounds the rows admitted and not yet answered; lookups the lookups in
	// flight.
	slots   chan struct{}
	lookups chan struct{}

	mu      sync.Mutex
	flights map[string]*flight
	memo    map[string]Result
	memoQ   []string // memo's keys, oldest first
	lanes   map[string]*lane

	lanesDone sync.WaitGroup
}

// flight is the rows in flight that read as the same identifiers: the first is looked
// up, the others wait for its answer.
type flight struct {
	rows []Row
}

// lane is one SMP host's queue of rows and the count of its workers.
type lane struct {
	queue   []job
	workers int
}

// job is a located row: its identifiers, which of them the SML names, and what was
// tried and failed before it.
type job struct {
	key     string
	cands   []peppol.ParticipantID
	at      int
	failure error
}

func newEngine(ctx context.Context, cfg Config, results chan<- Result) *engine {
	e := &engine{ctx: ctx, reg: cfg.Registry, docs: cfg.Documents, concurrency: cfg.Concurrency, perHost: cfg.PerHost,
		results: results, flights: map[string]*flight{}, memo: map[string]Result{}, lanes: map[string]*lane{}}
	e.loc, _ = cfg.Registry.(registry.Locator)
	if len(e.docs) == 0 {
		e.docs = DefaultDocuments()
	}
	if e.concurrency <= 0 {
		e.concurrency = DefaultConcurrency
	}
	if e.perHost <= 0 {
		e.perHost = DefaultPerHost
	}
	if e.loc == nil {
		// One lane for every row, as wide as the pool.
		e.perHost = e.concurrency
	}
	e.slots = make(chan struct{}, max(maxInFlight, e.concurrency))
	e.lookups = make(chan struct{}, maxLookups)
	return e
}

// admit answers row at once when it is invalid or answered before, joins it to the
// flight of its identifiers when one is on, and else locates it and queues it in its
// host's lane. It runs on a locating worker, which holds the row's slot.
func (e *engine) admit(row Row) {
	if c := strings.TrimSpace(row.Country); c != "" {
		if _, err := registry.ParseCountry(c); err != nil {
			res := rowResult(row)
			res.Status = Invalid
			res.Error = &RowError{Code: string(registry.CodeInvalidRequest), Message: fmt.Sprintf("the country %s is no two-letter ISO 3166 code such as BE or NO; fix it or leave it empty", phrase.Quote(row.Country))}
			e.send(res)
			return
		}
	}
	cands := Candidates(row.Input, row.Country)
	if len(cands) == 0 {
		res := rowResult(row)
		res.Status = Invalid
		res.Error = &RowError{Code: string(registry.CodeInvalidParticipantID), Message: invalidMessage(row)}
		e.send(res)
		return
	}
	key := keyOf(cands)
	e.mu.Lock()
	if r, ok := e.memo[key]; ok {
		e.mu.Unlock()
		e.send(answerFor(row, r))
		return
	}
	if f, ok := e.flights[key]; ok {
		f.rows = append(f.rows, row)
		e.mu.Unlock()
		return
	}
	e.flights[key] = &flight{rows: []Row{row}}
	e.mu.Unlock()

	j := job{key: key, cands: cands}
	host := ""
	if e.loc != nil {
		j.at = -1
	locate:
		for i, id := range cands {
			h, err := e.loc.SMPHost(e.ctx, id)
			switch {
			case registry.ErrorCode(err) == registry.CodeNotFound:
				continue
			case err != nil:
				if j.failure == nil {
					j.failure = err
				}
				continue
			}
			j.at, host = i, h
			break locate
		}
		if j.at < 0 {
			// No identifier is in the SML: the answer needs no SMP.
			e.finish(j.key, unregistered(names(cands), j.failure))
			return
		}
	}
	e.enqueue(host, j)
}

// enqueue puts j in host's lane, starting a worker when the lane has fewer than
// perHost.
func (e *engine) enqueue(host string, j job) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.lanes[host]
	if l == nil {
		l = &lane{}
		e.lanes[host] = l
	}
	l.queue = append(l.queue, j)
	if l.workers < e.perHost {
		l.workers++
		e.lanesDone.Add(1)
		go e.work(host, l)
	}
}

// work looks up the jobs of host's lane until it is empty.
func (e *engine) work(host string, l *lane) {
	defer e.lanesDone.Done()
	for {
		e.mu.Lock()
		if len(l.queue) == 0 {
			l.workers--
			if l.workers == 0 {
				delete(e.lanes, host)
			}
			e.mu.Unlock()
			return
		}
		j := l.queue[0]
		l.queue[0] = job{}
		l.queue = l.queue[1:]
		e.mu.Unlock()
		e.lookups <- struct{}{}
		r := e.lookup(j)
		<-e.lookups
		e.finish(j.key, r)
	}
}

// finish sends r to every row of key's flight and remembers it.
func (e *engine) finish(key string, r Result) {
	e.mu.Lock()
	f := e.flights[key]
	delete(e.flights, key)
	if len(e.memoQ) >= memoSize {
		delete(e.memo, e.memoQ[0])
		e.memoQ[0] = ""
		e.memoQ = e.memoQ[1:]
	}
	e.memo[key] = r
	e.memoQ = append(e.memoQ, key)
	e.mu.Unlock()
	for _, row := range f.rows {
		e.send(answerFor(row, r))
	}
}

// send delivers r and frees its row's slot. It drops r when the check is cut short,
// so that a row whose lookup the cancellation broke off is never reported failed.
func (e *engine) send(r Result) {
	defer func() { <-e.slots }()
	if e.ctx.Err() != nil {
		return
	}
	select {
	case e.results <- r:
	case <-e.ctx.Done():
	}
}

// keyOf is the flight and memo key of a row's identifiers.
func keyOf(cands []peppol.ParticipantID) string {
	var b strings.Builder
	for i, id := range cands {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToLower(id.String()))
	}
	return b.String()
}

// rowResult is a Result echoing row, not yet answered.
func rowResult(row Row) Result {
	return Result{Index: row.Index, Input: row.Input, CountryHint: row.Country, Reference: row.Reference, Record: row.Record}
}

// answerFor is the answer r, found for another row of the same identifiers, as the
// answer for row.
func answerFor(row Row, r Result) Result {
	r.Index, r.Input, r.CountryHint, r.Reference, r.Record = row.Index, row.Input, row.Country, row.Reference, row.Record
	return r
}

// lookup answers j: it looks up its identifiers in order from the one located, until
// one is registered. The Result's row fields are left for answerFor.
func (e *engine) lookup(j job) Result {
	res := Result{}
	for _, id := range j.cands[:max(j.at, 0)] {
		res.Tried = append(res.Tried, id.String())
	}
	failure := j.failure
	for _, id := range j.cands[max(j.at, 0):] {
		res.Tried = append(res.Tried, id.String())
		p, _, err := e.reg.Lookup(e.ctx, id)
		// The services, when the verdict needs them, are read here, inside the row's
		// lookup and so in its host's lane (docs/INTERFACE.md §2.5).
		jm := registry.JudgeParticipant(e.ctx, e.reg, id, p, err, e.docs)
		v := jm.Verdict
		switch v.Reach {
		case registry.NotRegistered:
			// Also a Directory card without an SML registration, and a participant
			// whose SMP does not know it (a stale SML record): neither can receive.
			continue
		case registry.Unknown:
			if failure == nil {
				failure = err
			}
			if failure == nil {
				failure = jm.Err
			}
			if failure == nil {
				// Registered, but no endpoint of a kind asked about could be read:
				// whether it receives is not known, and may be on a retry.
				failure = &registry.Error{Code: registry.CodeLookupFailed, Message: id.String() + ": its SMP lists the document kinds asked about, but their service metadata could not be read; retry later"}
			}
			continue
		}
		res.ParticipantID = id.String()
		if d := p.Directory; d != nil {
			res.Name, res.Country = d.Name, d.CountryCode
		}
		// Only a URL read from a validly signed answer is shown (docs/INTERFACE.md §4.7).
		res.AccessPoint = v.AccessPoint
		// Each blocking code the services add comes with its warning (docs/INTERFACE.md §2.5).
		res.Warnings = jm.Warnings(p.Warnings)
		res.Blocked = v.Blocked
		res.Status = statusOf(v.Reach)
		for _, k := range v.Kinds {
			res.Documents = append(res.Documents, Document{Kind: k.Kind, Listed: k.Listed, Receives: k.Receives})
		}
		return res
	}
	return unregistered(res.Tried, failure)
}

// statusOf is a row's status for the verdict r on a registered participant.
func statusOf(r registry.Reach) Status {
	switch r {
	case registry.Receives:
		return Receives
	case registry.Blocked:
		return Blocked
	}
	return RegisteredWithoutDocument
}

// unregistered is the answer when no identifier tried is registered: failed when
// asking one failed, else not registered, with an identifier warning for each tried
// whose scheme, syntax or check digit is wrong, as a lookup's not_found says
// (docs/INTERFACE.md §4.7): a mistyped number is told apart from an unregistered one.
func unregistered(tried []string, failure error) Result {
	res := Result{Tried: tried}
	if failure != nil {
		res.Status = Failed
		res.Error = &RowError{Code: string(registry.CodeLookupFailed), Message: failure.Error()}
		var re *registry.Error
		if errors.As(failure, &re) {
			res.Error.Code, res.Error.Message = string(re.Code), re.Message
		}
		// Only an upstream failure may go away; anything else is the row's own.
		res.Error.Retryable = res.Error.Code == string(registry.CodeLookupFailed)
		return res
	}
	res.Status = NotRegistered
	for _, t := range tried {
		id, err := peppol.ParseParticipantID(t)
		if err != nil {
			continue
		}
		for _, note := range peppol.Notes(id) {
			res.Warnings = append(res.Warnings, registry.Warning{Code: registry.WarnIdentifier, Message: t + ": " + note})
		}
	}
	return res
}

// names are ids as strings.
func names(ids []peppol.ParticipantID) []string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return out
}

// Candidates are the participant identifiers a row's input may mean, in the order a
// check tries them (peppol.Candidates). A country hint keeps only the readings of
// national schemes of that country: an input that is a participant identifier is
// never narrowed, nor are readings in schemes of no country (GLN, DUNS, EU ones).
func Candidates(input, country string) []peppol.ParticipantID {
	var out []peppol.ParticipantID
	country = strings.ToUpper(strings.TrimSpace(country))
	_, err := peppol.ParseParticipantID(strings.TrimSpace(input))
	explicit := err == nil
	for _, c := range peppol.Candidates(input) {
		if country != "" && !explicit && !inCountry(c.ID.ICD, country) {
			continue
		}
		out = append(out, c.ID)
	}
	return out
}

// inCountry reports whether the scheme icd may hold numbers of country: it is that
// country's, or no country's (GLN, EU VAT, a scheme the code list does not have).
func inCountry(icd, country string) bool {
	s, ok := peppol.LookupScheme(icd)
	return !ok || s.Country == "" || s.Country == country
}

// invalidMessage says why a row's input cannot be checked.
func invalidMessage(row Row) string {
	if strings.TrimSpace(row.Input) == "" {
		return "the row has no identifier or number"
	}
	if row.Country != "" {
		return fmt.Sprintf("%s is no participant identifier and no company or VAT number of %s peppolgate can read", phrase.Quote(row.Input), strings.ToUpper(row.Country))
	}
	return fmt.Sprintf("%s is no participant identifier and no company or VAT number peppolgate can read; give it as <scheme>:<value>, e.g. 0208:0677424046", phrase.Quote(row.Input))
}
