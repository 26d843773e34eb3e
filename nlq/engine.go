package nlq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/internal/telemetry"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// CodeAskFailed is the error code of a question whose tools failed upstream (502).
const CodeAskFailed registry.Code = "ask_failed"

// followUps is how many search hits a question about capability, access point or
// registration looks up in detail.
const followUps = 3

// Config configures an Engine.
type Config struct {
	// Registry answers the tools, as one unnamed network: answers carry no network
	// (a *registry.Networks answers from its default network). Required.
	Registry registry.Registry
	// Planner plans questions (RulePlanner{}), and answers them when there is no LLM
	// or it fails. Required.
	Planner Planner
	// LLM, when set, answers questions first; the Planner is the fallback.
	LLM *LLM
	// BaseURL is the service's public URL, for the items' url; no trailing slash.
	BaseURL string
	// Version is reported in _meta.
	Version string
	// Logger receives LLM fallbacks and tool failures; nil discards them.
	Logger *slog.Logger
	// TracerProvider gives the LLM's planning and each tool call a span
	// (docs/ARCHITECTURE.md §3); nil means none.
	TracerProvider trace.TracerProvider
}

// Engine answers questions with the tools. It is safe for concurrent use.
type Engine struct {
	// reg is Config.Registry as the tools take it: one unnamed network, so answers
	// carry no network and the planner offers none.
	reg *registry.Networks
	// nets are the networks On picks from: Config.Registry when it is a
	// *registry.Networks, else reg.
	nets *registry.Networks
	// itemQuery ends the items' url: "?network=…" for an engine On a network other
	// than the default, else "".
	itemQuery string
	// network is the name of the network the engine answers from, for _meta; ""
	// for one unnamed network.
	network string
	planner Planner
	llm     *LLM
	baseURL string
	version string
	log     *slog.Logger
	// tools are the tools by name, built once: a tool's schemas are derived by
	// reflection, far too slow to repeat per question.
	tools map[string]tools.Tool
	// tracer makes the spans of the LLM's planning and the tool calls; nil when
	// tracing is off, so that a cached answer costs no allocation more.
	tracer trace.Tracer
}

// New returns an Engine for cfg. It returns an error when cfg.Registry or cfg.Planner
// is nil.
func New(cfg Config) (*Engine, error) {
	if cfg.Registry == nil || cfg.Planner == nil {
		return nil, errors.New("nlq: Config.Registry and Config.Planner are required")
	}
	e := &Engine{reg: registry.One(cfg.Registry), planner: cfg.Planner, llm: cfg.LLM,
		baseURL: strings.TrimSuffix(cfg.BaseURL, "/"), version: cfg.Version, log: cfg.Logger,
	}
	if telemetry.On(cfg.TracerProvider) {
		e.tracer = cfg.TracerProvider.Tracer("github.com/peppolgate/peppolgate/nlq")
	}
	e.nets = e.reg
	if n, ok := cfg.Registry.(*registry.Networks); ok {
		e.nets = n
	}
	e.network = e.nets.Default()
	e.tools = map[string]tools.Tool{}
	for _, t := range tools.All() {
		e.tools[t.Name] = t
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.version == "" {
		e.version = "dev"
	}
	return e, nil
}

// On returns the engine that answers from network, one of Config.Registry's networks
// when it is a *registry.Networks ("" or the default network: e itself); _meta.network
// and the items' url then name that network. It returns a *registry.Error with
// CodeInvalidRequest, naming the networks offered, for a network that is not one of
// them.
func (e *Engine) On(network string) (*Engine, error) {
	reg, name, err := e.nets.Select(network)
	if err != nil {
		return nil, err
	}
	if name == e.nets.Default() {
		return e, nil
	}
	on := *e
	on.reg, on.itemQuery, on.network = registry.One(reg), "?network="+url.QueryEscape(name), name
	return &on, nil
}

// Meta is the _meta member of an answer and of the start event.
type Meta struct {
	ResponseType string `json:"response_type" jsonschema:"always 'answer' (NLWeb)"`
	Version      string `json:"version" jsonschema:"peppolgate version"`
	// Network is the network that answered; absent when the engine has one
	// unnamed network.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network that answered: production, test or demo (the one the request named, else the server's default); absent when the server names none"`
	// Planner is "rules" or "llm:<model>".
	Planner string `json:"planner" jsonschema:"what planned the tool calls: 'rules' or 'llm:<model>'"`
	// Fallback says why a configured LLM was not used for this answer.
	Fallback string `json:"fallback,omitempty" jsonschema:"why a configured LLM was not used for this answer; absent when it was, or when none is configured"`
	// Language is the language of the answer: the question's, as the rule planner
	// reads it (en, fr, nl, de, no or sv; English for any other). An LLM is asked to
	// answer in it.
	Language         string `json:"language" jsonschema:"language of the answer, that of the question: en, fr, nl, de, no or sv (English for any other); an LLM is asked to answer in it"`
	ProcessingTimeMS int64  `json:"processing_time_ms" jsonschema:"time taken to answer, in milliseconds"`
}

// Answer is the JSON answer to a question.
type Answer struct {
	Meta  Meta   `json:"_meta" jsonschema:"how the answer was made"`
	Query string `json:"query" jsonschema:"the question as received, trimmed"`
	// Intent is what the rule planner understood; absent for LLM answers.
	Intent  Intent `json:"intent,omitempty" jsonschema:"what the rule planner understood: lookup, search, can_receive, access_point, count, certificate, document_types, on_peppol, check (a list of identifiers), out_of_scope (what peppolgate cannot know: no calls) or unknown; absent for LLM answers"`
	Answer  string `json:"answer" jsonschema:"the answer in plain language, with participant ids, names and countries"`
	Calls   []Call `json:"calls" jsonschema:"the tool calls made, in order"`
	Results []Item `json:"results" jsonschema:"the participants found, as schema.org Organizations"`
	// Approximate says that nothing matched the name as asked and the results are
	// the closest matches of a relaxed search (the last search call).
	Approximate bool `json:"approximate,omitempty" jsonschema:"true when nothing matched the name as asked and the results are approximate matches of a relaxed search (the last search call), closest first"`
	// Failed are the calls that failed upstream; the answer says what they leave
	// unchecked.
	Failed []FailedCall `json:"failed,omitempty" jsonschema:"calls that failed upstream: the answer is given from the others and says what could not be checked; retrying later may help"`
}

// FailedCall is a tool call that failed upstream while the others answered.
type FailedCall struct {
	Call
	// Code is the call's error code (lookup_failed, search_failed, ...).
	Code registry.Code `json:"code" jsonschema:"error code, e.g. lookup_failed"`
	// Message is the call's error message, as a client of the tool would get it.
	Message string `json:"message" jsonschema:"what went wrong"`
	// Cause is the kind of upstream failure, when known (registry.Cause).
	Cause registry.Cause `json:"cause,omitempty" jsonschema:"the kind of upstream failure when known: timeout, http_error (an SMP or the Directory answered with an HTTP error such as 500), dns_failure (e.g. SERVFAIL), connection_refused, tls, busy (the upstream was failing or overloaded and was not asked), rate_limited or malformed; absent when unclassified"`
}

// Events receives an answer's progress, for streaming. Start comes first, then one
// Result per item in index order, then Complete; each is called once the data is
// ready. Implementations write the event and flush it.
type Events interface {
	Start(StartEvent)
	Result(ResultEvent)
	Complete(CompleteEvent)
}

// StartEvent opens a stream: what the planner made of the question.
type StartEvent struct {
	Meta   Meta   `json:"_meta" jsonschema:"how the answer was made"`
	Query  string `json:"query" jsonschema:"the question as received, trimmed"`
	Intent Intent `json:"intent,omitempty" jsonschema:"what the rule planner understood: lookup, search, can_receive, access_point, count, certificate, document_types, on_peppol, check (a list of identifiers), out_of_scope (what peppolgate cannot know: no calls) or unknown; absent for LLM answers"`
	Calls  []Call `json:"calls" jsonschema:"the tool calls made, in order"`
}

// ResultEvent carries one item.
type ResultEvent struct {
	Index int  `json:"index" jsonschema:"position of the item, from 0"`
	Item  Item `json:"item" jsonschema:"the participant found"`
	// Failed is the call about this item that failed upstream, when one did.
	Failed *FailedCall `json:"failed,omitempty" jsonschema:"the call about this item that failed upstream (the item is then the search hit only); absent when none did"`
}

// CompleteEvent closes a stream.
type CompleteEvent struct {
	Answer           string       `json:"answer" jsonschema:"the answer in plain language, with participant ids, names and countries"`
	Calls            []Call       `json:"calls" jsonschema:"the tool calls made, in order"`
	TotalItems       int          `json:"total_items" jsonschema:"number of result events sent"`
	ProcessingTimeMS int64        `json:"processing_time_ms" jsonschema:"time taken to answer, in milliseconds"`
	Error            *EventError  `json:"error,omitempty" jsonschema:"present when the tools failed upstream and nothing could be answered"`
	Approximate      bool         `json:"approximate,omitempty" jsonschema:"true when the results are approximate matches of a relaxed search"`
	Failed           []FailedCall `json:"failed,omitempty" jsonschema:"calls that failed upstream while the others answered"`
}

// EventError is a failure reported inside a stream.
type EventError struct {
	Code    registry.Code `json:"code" jsonschema:"error code, e.g. ask_failed"`
	Message string        `json:"message" jsonschema:"what went wrong and what to do"`
}

// ValidateQuery checks a question's length: 1 to MaxQueryLength characters once
// trimmed. It returns a *registry.Error with CodeInvalidRequest.
func ValidateQuery(q string) error {
	n := utf8.RuneCountInString(strings.TrimSpace(q))
	switch {
	case !utf8.ValidString(q):
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: "query is not valid UTF-8"}
	case strings.ContainsFunc(q, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }):
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: "query contains a control character; remove it"}
	case n == 0:
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: `query is empty; ask e.g. {"query": "Can Acme in Belgium receive invoices?"}`}
	case n > MaxQueryLength:
		return &registry.Error{Code: registry.CodeInvalidRequest, Message: fmt.Sprintf("query must have at most %d characters; got %d", MaxQueryLength, n)}
	}
	return nil
}

// Ask answers query. With ev non-nil it reports progress as it goes (ev.Start is
// called before any tool runs). It returns the answer, and a *registry.Error with
// CodeInvalidRequest for a bad query (before any event) or CodeAskFailed when the
// tools failed upstream and nothing could be answered (then, when streaming, Complete
// carries the error). Cancelling ctx (the client went away) stops the upstream work.
func (e *Engine) Ask(ctx context.Context, query string, ev Events) (*Answer, error) {
	start := time.Now()
	if err := ValidateQuery(query); err != nil {
		return nil, err
	}
	query = strings.TrimSpace(query)
	meta := Meta{ResponseType: "answer", Version: e.version, Network: e.network, Planner: "rules"}
	if e.llm != nil {
		a, err := e.askLLM(ctx, query, meta, start, ev)
		if err == nil {
			return a, nil
		}
		if ctx.Err() != nil {
			return nil, &registry.Error{Code: CodeAskFailed, Message: "the question was cancelled", Err: ctx.Err()}
		}
		meta.Fallback = e.llm.Name() + " failed (" + fallbackReason(err) + "); answered by the rule planner"
		e.log.LogAttrs(ctx, slog.LevelWarn, "llm fallback", slog.String("error", err.Error()))
	}
	return e.askRules(ctx, query, meta, start, ev)
}

func fallbackReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "error"
}

// askRules plans with the rule planner, runs the calls and phrases the answer.
func (e *Engine) askRules(ctx context.Context, query string, meta Meta, start time.Time, ev Events) (*Answer, error) {
	plan := e.planner.Plan(query)
	meta.Language = plan.Language
	if meta.Language == "" {
		meta.Language = LangEnglish
	}
	a := &Answer{Meta: meta, Query: query, Intent: plan.Intent, Calls: append([]Call{}, plan.Calls...), Results: []Item{}}
	if ev != nil {
		m := meta
		m.ProcessingTimeMS = time.Since(start).Milliseconds()
		ev.Start(StartEvent{Meta: m, Query: query, Intent: plan.Intent, Calls: plan.Calls})
	}
	add := func(it Item, failed *FailedCall) {
		a.Results = append(a.Results, it)
		if ev != nil {
			ev.Result(ResultEvent{Index: len(a.Results) - 1, Item: it, Failed: failed})
		}
	}
	extra := maxLiveSearches - 1
	r := &run{e: e, t: tongueOf(plan.Language), plan: plan, a: a, add: add, relaxBudget: -1, extra: &extra}
	err := r.run(ctx)
	a.Meta.ProcessingTimeMS = time.Since(start).Milliseconds()
	if err != nil {
		if a.Answer == "" {
			reason := r.t.upstreamDown
			var re *registry.Error
			if errors.As(err, &re) && r.t.quotesMessages {
				reason = re.Message
			} else if c := registry.ErrorCause(err); c != "" {
				reason = causeClause(r.t, c) // in the asker's words, the cause the registry found
			}
			a.Answer = fmt.Sprintf(r.t.askFailed, reason)
		}
	}
	if ev != nil {
		c := CompleteEvent{Answer: a.Answer, Calls: a.Calls, TotalItems: len(a.Results), ProcessingTimeMS: a.Meta.ProcessingTimeMS,
			Approximate: a.Approximate, Failed: a.Failed}
		var re *registry.Error
		if errors.As(err, &re) {
			c.Error = &EventError{Code: re.Code, Message: re.Message}
		}
		ev.Complete(c)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// run is the work of answering one question by the rules.
type run struct {
	e    *Engine
	t    *tongue
	plan Plan
	a    *Answer
	add  func(Item, *FailedCall)
	// first is the plan's search result when linking already ran it (link.go).
	first *registry.SearchResult
	// relaxBudget bounds the relaxed searches of a name that found nothing; -1: no
	// bound beyond RelaxedQueries'.
	relaxBudget int
	// readName is the first other reading of the subject linking searched (link.go):
	// when nothing is found, the answer names it rather than the question's words.
	readName string
	// extra is what is left of the question's live Directory searches beyond each
	// company's own one (questionSearches), shared by every run of the question.
	extra *int
	// part: the run answers one company of several (run.several); a name no hit
	// matches is not found, never answered with approximate hits.
	part bool
}

// run executes the plan's calls and the follow-up calls its intent needs, hands each
// item to add as soon as it and those before it are ready, and writes the answer
// text into a. It returns an error only when nothing at all could be answered.
func (r *run) run(ctx context.Context) error {
	plan, a, t := r.plan, r.a, r.t
	if ok, err := r.kinds(ctx); ok {
		return err
	}
	if len(plan.Calls) == 0 {
		a.Answer = notUnderstood(t, plan)
		return nil
	}
	c := plan.Calls[0]
	if c.Tool == ruleToolCheck {
		return r.check(ctx, c)
	}
	if c.Tool != ruleToolSearch {
		// Calls about one participant (its lookup and maybe its services) run
		// together.
		d := r.e.detail(ctx, plan.Calls)
		if d.p == nil {
			if d.err == nil {
				// No lookup among the calls: nothing to phrase an answer from.
				a.Answer = notUnderstood(t, Plan{Intent: IntentUnknown})
				return nil
			}
			if p := fromServices(d); p != nil {
				// The lookup failed upstream but its services answered: answer from
				// them, and say the business card could not be checked.
				f := failedCall(c, d.err)
				a.Failed = append(a.Failed, f)
				it := r.e.participantItem(p, d.svc, nil, plan.Document, plan.needsServices())
				r.add(it, &f)
				a.Answer = participantAnswer(t, plan, p, d.svc, it) + " " + partialText(t, t.card[0], a.Failed)
				return nil
			}
			return r.callFailed(c, d.err)
		}
		f := r.noteServices(d)
		it := r.e.participantItem(d.p, d.svc, d.svcErr, plan.Document, plan.needsServices())
		r.add(it, f)
		a.Answer = participantAnswer(t, plan, d.p, d.svc, it)
		return nil
	}
	if handled, err := r.resolveNumber(ctx, c); handled {
		return err
	}
	if handled, err := r.link(ctx, c); handled {
		return err
	}
	plan = r.plan
	sr, approx, err := r.search(ctx, c)
	if err != nil {
		return r.callFailed(c, err)
	}
	if len(sr.Results) == 0 || plan.Intent == IntentSearch || plan.Intent == IntentCount {
		for _, h := range sr.Results {
			r.add(r.e.hitItem(h), nil)
		}
		shown := sr
		if len(sr.Results) == 0 && r.readName != "" && plan.Intent != IntentCount {
			named := *sr
			named.Query = r.readName
			shown = &named
		}
		a.Answer = searchAnswer(t, plan, shown, approx)
		if len(a.Failed) > 0 {
			// The search as asked answered; a relaxed one for a typo did not.
			a.Answer += " " + partialText(t, fmt.Sprintf("%q", a.Failed[0].Arguments["q"]), a.Failed)
		}
		return nil
	}
	r.followUp(ctx, sr, approx)
	return nil
}

// fromServices returns the participant as its services call saw it when its lookup
// failed upstream: registered with the SMP the services were read from, or, when the
// services call found it unknown to the SML, not registered. It returns nil when the
// services call was not made or failed too.
func fromServices(d participantDetail) *registry.Participant {
	if registry.ErrorCode(d.err) != registry.CodeLookupFailed {
		return nil
	}
	switch {
	case d.svc != nil:
		return &registry.Participant{ParticipantID: d.svc.ParticipantID, SMP: &registry.SMPRecord{Hostname: d.svc.SMP.Hostname,
			ServiceCount: d.svc.ServiceCount, DocumentTypes: listedTypes(nil, d.svc)}}
	case registry.ErrorCode(d.svcErr) == registry.CodeNotFound && d.svcID != "":
		return &registry.Participant{ParticipantID: d.svcID}
	}
	return nil
}

// noteServices records a failed services call of a participant that was looked up
// and returns it for the participant's result event (nil when the call did not
// fail): the answer is then judged from the lookup and says what it could not check.
// A services not_found of a participant its lookup found registered is an upstream
// failure (registry.ServicesFailed); of one its SMP does not know, the expected answer.
func (r *run) noteServices(d participantDetail) *FailedCall {
	if d.svcErr == nil || d.p == nil || registry.ErrorCode(d.svcErr) == registry.CodeNotFound && (d.p.SMP == nil || d.p.Has(registry.WarnSMPNotFound)) {
		return nil
	}
	f := failedCall(Call{Tool: ruleToolServices, Arguments: map[string]any{"participantId": d.p.ParticipantID}}, registry.ServicesFailed(d.svcErr))
	r.a.Failed = append(r.a.Failed, f)
	return &f
}

// failedCall describes call c that failed with err, with err's client-safe message.
func failedCall(c Call, err error) FailedCall {
	f := FailedCall{Call: c, Code: registry.ErrorCode(err), Cause: registry.ErrorCause(err), Message: "the call failed"}
	var re *registry.Error
	if errors.As(err, &re) {
		f.Message = re.Message
	}
	return f
}

// search runs the plan's search call. When it finds nothing for a company name, it
// relaxes the name (each word cut to its first letters, then the longest word alone),
// each a call of its own in a.Calls, and ranks what that finds by closeness to what was
// typed; approx is then the query that found it. An exact (folded) name match always
// ranks first.
func (r *run) search(ctx context.Context, c Call) (sr *registry.SearchResult, approx string, err error) {
	if sr = r.first; sr == nil {
		res, err := r.e.call(ctx, c)
		if err != nil {
			return nil, "", err
		}
		sr, _ = res.Value.(*registry.SearchResult)
	}
	if sr == nil {
		return nil, "", &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: errors.New("search_directory returned no search result")}
	}
	typed := r.plan.Subject
	q, _ := c.Arguments["q"].(string)
	if r.plan.Intent == IntentCount {
		// A count is what the search says, nothing matching included.
		return sr, "", nil
	}
	if r.part && typed != "" && q != "" && !anyNameHas(sr, q) {
		// One company of several: hits without its name are not it, and a relaxed
		// search would find another (run.several).
		none := *sr
		none.Results, none.TotalCount, none.NextPage = nil, 0, 0
		return &none, "", nil
	}
	if len(sr.Results) > 0 && typed != "" && q != "" && sr.Source == registry.SourceMirror && !anyNameHas(sr, q) {
		// The mirror forgives typos itself: when no name has the words searched for,
		// its hits are approximate.
		r.a.Approximate = true
		return RankByCloseness(sr, typed), q, nil
	}
	// Nothing found for a name gets a second chance at a typo.
	if len(sr.Results) > 0 || typed == "" {
		return rankExactFirst(sr, typed), "", nil
	}
	for i, relaxed := range RelaxedQueries(q) {
		if r.relaxBudget >= 0 && i >= r.relaxBudget {
			break
		}
		if r.relaxBudget >= 0 {
			*r.extra-- // the question's one budget (link.go)
		}
		rc := Call{Tool: ruleToolSearch, Arguments: map[string]any{"q": relaxed}}
		if cc, ok := c.Arguments["country"]; ok {
			rc.Arguments["country"] = cc
		}
		r.a.Calls = append(r.a.Calls, rc)
		res, err := r.e.call(ctx, rc)
		if err != nil {
			// The search as asked did answer: nothing matches.
			r.a.Failed = append(r.a.Failed, failedCall(rc, err))
			return sr, "", nil
		}
		if rs, _ := res.Value.(*registry.SearchResult); rs != nil && len(rs.Results) > 0 {
			r.a.Approximate = true
			return RankByCloseness(rs, typed), relaxed, nil
		}
	}
	return sr, "", nil
}

// followUp looks up the first search hits in detail (with their services when the
// question needs them), concurrently, for questions about capability, access point,
// certificate, document types or registration. Items go to add in rank order, each
// as soon as its calls and those of the hits ranked before it are done. A hit whose
// lookup failed upstream is answered as the hit alone, and the answer says it could
// not be checked.
func (r *run) followUp(ctx context.Context, sr *registry.SearchResult, approx string) {
	plan, a := r.plan, r.a
	n := min(followUps, len(sr.Results))
	if plan.Intent == IntentLookup {
		n = min(1, n)
	}
	out := make([]participantDetail, n)
	done := make(chan int, n)
	calls := make([][]Call, n)
	for i := range n {
		calls[i] = detailCalls(plan, sr.Results[i].ParticipantID)
		a.Calls = append(a.Calls, calls[i]...)
		go func() {
			out[i] = r.e.detail(ctx, calls[i])
			done <- i
		}()
	}
	var found []participantDetail
	var failed []string
	gone := map[string]bool{}
	ready := make([]bool, n)
	next := 0
	for range n {
		ready[<-done] = true
		for ; next < n && ready[next]; next++ {
			switch o := out[next]; {
			case o.p != nil:
				f := r.noteServices(o)
				r.add(r.e.participantItem(o.p, o.svc, o.svcErr, plan.Document, plan.needsServices()), f)
				found = append(found, o)
			case registry.ErrorCode(o.err) == registry.CodeNotFound:
				// A Directory hit that neither the SML nor the Directory knows any
				// more (the card went away meanwhile).
				gone[sr.Results[next].ParticipantID] = true
				r.add(r.e.hitItem(sr.Results[next]), nil)
			default:
				f := failedCall(calls[next][0], o.err)
				a.Failed = append(a.Failed, f)
				it := r.e.hitItem(sr.Results[next])
				failed = append(failed, itemLabel(it))
				r.add(it, &f)
			}
		}
	}
	a.Answer = followUpAnswer(r.t, plan, sr, found, gone, a.Results, failed, a.Failed, approx)
}

// call runs one tool call.
func (e *Engine) call(ctx context.Context, c Call) (*tools.Result, error) {
	t, ok := e.tools[c.Tool]
	if !ok {
		return nil, &registry.Error{Code: registry.CodeInvalidRequest, Message: "unknown tool " + c.Tool}
	}
	args, err := json.Marshal(c.Arguments)
	if err != nil {
		return nil, err
	}
	return e.callTool(ctx, t, args)
}

// callTool runs one tool call in a span of its own, named by the tool ("ask tool
// lookup_participant"; the arguments, which hold what the client asked, stay out of
// it), with the failure recorded on it.
func (e *Engine) callTool(ctx context.Context, t tools.Tool, args json.RawMessage) (*tools.Result, error) {
	if e.tracer == nil {
		return t.Call(ctx, e.reg, args)
	}
	ctx, span := e.tracer.Start(ctx, "ask tool "+t.Name, trace.WithAttributes(attribute.String("peppolgate.tool", t.Name)))
	defer span.End()
	res, err := t.Call(ctx, e.reg, args)
	failSpan(span, err)
	return res, err
}

// failSpan records err on span by its error code alone (peppolgate.error_code), never
// its message, which quotes what the client asked: an input error or a participant
// not found is an answer; an upstream failure, or an error with no code, has status
// Error described by the code ("lookup_failed"), or "timeout" or "error".
func failSpan(span trace.Span, err error) {
	if err == nil {
		return
	}
	code := string(registry.ErrorCode(err))
	switch {
	case code == "" && errors.Is(err, context.DeadlineExceeded):
		code = "timeout"
	case code == "":
		code = "error"
	}
	span.SetAttributes(attribute.String("peppolgate.error_code", code))
	switch registry.Code(code) {
	case registry.CodeLookupFailed, registry.CodeSearchFailed, CodeAskFailed, "timeout", "error":
		span.SetStatus(codes.Error, code)
	}
}

// callFailed turns a failed call into the answer or the error: an input error or a
// participant that does not exist is an answer; an upstream failure is ask_failed.
func (r *run) callFailed(c Call, err error) error {
	var re *registry.Error
	if !errors.As(err, &re) {
		return &registry.Error{Code: CodeAskFailed, Message: "the question could not be answered; retry later", Err: err}
	}
	switch re.Code {
	case registry.CodeNotFound:
		r.a.Answer = notFoundAnswer(r.t, r.plan, c)
		return nil
	case registry.CodeLookupFailed, registry.CodeSearchFailed:
		return &registry.Error{Code: CodeAskFailed, Message: causeClause(&english, re.Cause) + " (" + re.Message + ")", RetryAfter: re.RetryAfter, Cause: re.Cause, Err: err}
	default:
		r.a.Answer = fmt.Sprintf(r.t.couldNotRun, re.Message) + " " + r.t.examples
		return nil
	}
}

// participantDetail is what the calls about one participant found: its lookup, and its
// services when they were listed.
type participantDetail struct {
	p      *registry.Participant
	err    error // the lookup's
	svc    *registry.ServicesResult
	svcErr error
	// svcID is the participant id the services call asked for ("" when none was made).
	svcID string
}

// detail runs calls (lookup_participant and get_participant_services of one
// participant; others are ignored) concurrently. A failed services call leaves svc
// nil: the answer is then judged from the lookup's record.
func (e *Engine) detail(ctx context.Context, calls []Call) participantDetail {
	var d participantDetail
	var wg sync.WaitGroup
	for _, c := range calls {
		switch c.Tool {
		case ruleToolLookup:
			wg.Go(func() {
				res, err := e.call(ctx, c)
				if err == nil {
					d.p, _ = res.Value.(*registry.Participant)
				}
				d.err = err
			})
		case ruleToolServices:
			d.svcID, _ = c.Arguments["participantId"].(string)
			wg.Go(func() {
				res, err := e.call(ctx, c)
				if err == nil {
					d.svc, _ = res.Value.(*registry.ServicesResult)
				}
				d.svcErr = err
			})
		}
	}
	wg.Wait()
	if d.svcErr != nil && d.p != nil && registry.ErrorCode(d.svcErr) != registry.CodeNotFound {
		e.log.LogAttrs(ctx, slog.LevelWarn, "services call failed; judging from the lookup", slog.String("participant", d.p.ParticipantID), slog.String("error", d.svcErr.Error()))
	}
	return d
}

// detailCalls are the calls that look up the participant id in detail for plan: its
// lookup, and its services when the plan needs them.
func detailCalls(plan Plan, id string) []Call {
	calls := []Call{{Tool: ruleToolLookup, Arguments: map[string]any{"participantId": id}}}
	if plan.needsServices() {
		calls = append(calls, Call{Tool: ruleToolServices, Arguments: map[string]any{"participantId": id}})
	}
	return calls
}
