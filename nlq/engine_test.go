package nlq

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// startEngineNet starts the real registry over a simulated network of 200 participants.
func startEngineNet(t *testing.T) *livenet.Net {
	t.Helper()
	return livenet.Start(t, netsim.DatasetConfig{Seed: 5, Participants: 200, Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
}

// fixedPlanner returns the same plan for every question.
type fixedPlanner Plan

func (f fixedPlanner) Plan(string) Plan { return Plan(f) }

// recorder records events in order.
type recorder struct {
	mu     sync.Mutex
	kinds  []string
	start  StartEvent
	result []ResultEvent
	done   CompleteEvent
}

func (r *recorder) Start(e StartEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds, r.start = append(r.kinds, "start"), e
}

func (r *recorder) Result(e ResultEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds, r.result = append(r.kinds, "result"), append(r.result, e)
}

func (r *recorder) Complete(e CompleteEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kinds, r.done = append(r.kinds, "complete"), e
}

func lookupCall(id string) Call {
	return Call{Tool: "lookup_participant", Arguments: map[string]any{"participantId": id}}
}

func searchCall(q, country string) Call {
	args := map[string]any{"q": q}
	if country != "" {
		args["country"] = country
	}
	return Call{Tool: "search_directory", Arguments: args}
}

func newEngine(t *testing.T, n *livenet.Net, p Planner) *Engine {
	t.Helper()
	e, err := New(Config{Registry: n.Reg, Planner: p, BaseURL: "https://peppolgate.test/", Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEngineAnswers(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	be := n.Name(netsim.KnownBelgian)
	tests := []struct {
		name      string
		plan      Plan
		wantCalls []string // tool:argument
		wantItems int
		wantIn    []string // substrings of the answer
		check     func(t *testing.T, a *Answer)
	}{
		{
			name:      "lookup by id",
			plan:      Plan{Intent: IntentLookup, Subject: netsim.KnownBelgian, Calls: []Call{lookupCall(netsim.KnownBelgian)}},
			wantCalls: []string{"lookup_participant:" + netsim.KnownBelgian},
			wantItems: 1,
			wantIn:    []string{be, netsim.KnownBelgian, "is registered on Peppol", "access point endpoint"},
			check: func(t *testing.T, a *Answer) {
				it := a.Results[0]
				if it.Type != "Organization" || it.Context != "https://schema.org" || it.Identifier != netsim.KnownBelgian ||
					it.URL != "https://peppolgate.test/api/v1/participant/"+netsim.KnownBelgian || it.Address == nil || it.Address.AddressCountry != "BE" {
					t.Errorf("item %+v", it)
				}
				if it.Peppol == nil || !it.Peppol.Registered || !it.Peppol.DirectoryCard || it.Peppol.Endpoint == nil || it.Peppol.CanReceive != nil {
					t.Errorf("peppol %+v", it.Peppol)
				}
			},
		},
		{
			// Its invoice endpoints' certificate and service period ended on
			// 2026-02-10, before the engine's clock: registered, but not right now.
			name:      "can receive invoices, by name: not right now",
			plan:      Plan{Intent: IntentCanReceive, Subject: be, Document: DocInvoice, Calls: []Call{searchCall(be, "BE")}},
			wantCalls: []string{"search_directory:" + be, "lookup_participant:" + netsim.KnownBelgian},
			wantIn:    []string{"Not right now: " + netsim.KnownBelgian + " and " + netsim.KnownBelgianVAT + " (“" + be + "”, BE) is registered for invoices, but sending them fails right now: the access point certificate expired on 2026-02-10"},
			check: func(t *testing.T, a *Answer) {
				if len(a.Results) == 0 || a.Results[0].Peppol == nil || a.Results[0].Peppol.CanReceive == nil || *a.Results[0].Peppol.CanReceive ||
					!slices.Contains(a.Results[0].Peppol.Blocked, registry.WarnCertificateExpired) {
					t.Errorf("first item %+v", a.Results)
				}
			},
		},
		{
			name:      "SML-only participant cannot be asked about documents it lists, but is registered",
			plan:      Plan{Intent: IntentOnPeppol, Subject: netsim.KnownSMLOnly, Calls: []Call{lookupCall(netsim.KnownSMLOnly)}},
			wantCalls: []string{"lookup_participant:" + netsim.KnownSMLOnly},
			wantItems: 1,
			wantIn:    []string{netsim.KnownSMLOnly + " is registered on Peppol", "no Peppol Directory business card"},
		},
		{
			name:      "Directory-only participant cannot receive",
			plan:      Plan{Intent: IntentCanReceive, Document: DocCreditNote, Calls: []Call{lookupCall(netsim.KnownDirectoryOnly)}},
			wantCalls: []string{"lookup_participant:" + netsim.KnownDirectoryOnly},
			wantItems: 1,
			wantIn:    []string{"No: ", "is not registered in the SML, so it cannot receive credit notes over Peppol"},
		},
		{
			name:      "SML points to an SMP that does not know the participant",
			plan:      Plan{Intent: IntentCanReceive, Document: DocInvoice, Calls: []Call{lookupCall(netsim.KnownSMPNotFound)}},
			wantCalls: []string{"lookup_participant:" + netsim.KnownSMPNotFound},
			wantItems: 1,
			wantIn:    []string{"No: ", "is in the SML, but its SMP", "does not know it, so it cannot receive invoices"},
			check: func(t *testing.T, a *Answer) {
				info := a.Results[0].Peppol
				if info == nil || info.Registered || !info.StaleSML || info.CanReceive == nil || *info.CanReceive {
					t.Errorf("peppol %+v", info)
				}
			},
		},
		{
			name:      "access point",
			plan:      Plan{Intent: IntentAccessPoint, Calls: []Call{lookupCall(netsim.KnownNorwegian)}},
			wantCalls: []string{"lookup_participant:" + netsim.KnownNorwegian},
			wantItems: 1,
			wantIn:    []string{"is served by the access point at https://"},
		},
		{
			name:      "not on the network",
			plan:      Plan{Intent: IntentOnPeppol, Calls: []Call{lookupCall("0208:0999999999")}},
			wantCalls: []string{"lookup_participant:0208:0999999999"},
			wantItems: 0,
			wantIn:    []string{"0208:0999999999 is not on Peppol"},
		},
		{
			name:      "search lists the hits",
			plan:      Plan{Intent: IntentSearch, Subject: be, Calls: []Call{searchCall(be, "")}},
			wantCalls: []string{"search_directory:" + be},
			wantIn:    []string{"Peppol Directory match", netsim.KnownBelgian},
			check: func(t *testing.T, a *Answer) {
				for _, it := range a.Results {
					if it.Peppol != nil {
						t.Errorf("a plain search looked %s up", it.Identifier)
					}
				}
			},
		},
		{
			name:      "count",
			plan:      Plan{Intent: IntentCount, Subject: be, Country: "BE", Calls: []Call{searchCall(be, "BE")}},
			wantCalls: []string{"search_directory:" + be},
			wantIn:    []string{"The Peppol Directory has ", " in BE."},
		},
		{
			name:      "no match",
			plan:      Plan{Intent: IntentCanReceive, Subject: "zzqx nothing", Calls: []Call{searchCall("zzqx nothing", "")}},
			wantCalls: []string{"search_directory:zzqx nothing"},
			wantItems: 0,
			wantIn:    []string{`No Peppol Directory business card matches “zzqx nothing”`},
		},
		{
			name:      "not understood",
			plan:      Plan{Intent: IntentUnknown},
			wantItems: 0,
			wantIn:    []string{"I did not understand the question", "0208:0677424046"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, n, fixedPlanner(tt.plan))
			var ev recorder
			a, err := e.Ask(t.Context(), "  a question  ", &ev)
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range a.Calls {
				for _, v := range c.Arguments {
					if s, ok := v.(string); ok && (c.Tool == "lookup_participant" || v == c.Arguments["q"]) {
						calls = append(calls, c.Tool+":"+s)
					}
				}
			}
			if len(calls) < len(tt.wantCalls) {
				t.Errorf("calls %v, want %v first", calls, tt.wantCalls)
			} else {
				for i, w := range tt.wantCalls {
					if calls[i] != w {
						t.Errorf("call %d = %s, want %s", i, calls[i], w)
					}
				}
			}
			if tt.wantItems >= 0 && tt.check == nil && len(a.Results) != tt.wantItems && tt.plan.Intent != IntentSearch && tt.plan.Intent != IntentCount {
				t.Errorf("%d items, want %d", len(a.Results), tt.wantItems)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(a.Answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, a.Answer)
				}
			}
			if a.Query != "a question" || a.Meta.Planner != "rules" || a.Meta.ResponseType != "answer" || a.Meta.Version != "t" || a.Results == nil || a.Calls == nil {
				t.Errorf("answer frame %+v", a)
			}
			// The events tell the same story, in order.
			if len(ev.kinds) != len(a.Results)+2 || ev.kinds[0] != "start" || ev.kinds[len(ev.kinds)-1] != "complete" {
				t.Errorf("events %v", ev.kinds)
			}
			for i, r := range ev.result {
				if r.Index != i || r.Item.Identifier != a.Results[i].Identifier {
					t.Errorf("result event %d: %+v", i, r)
				}
			}
			if ev.done.Answer != a.Answer || ev.done.TotalItems != len(a.Results) || ev.done.Error != nil || len(ev.start.Calls) != len(tt.plan.Calls) {
				t.Errorf("start %+v complete %+v", ev.start, ev.done)
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

func TestEngineUpstreamFailure(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, fixedPlanner(Plan{Intent: IntentSearch, Subject: "acme", Calls: []Call{searchCall("acme", "")}}))
	n.Net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	defer n.Net.ClearFaults()

	_, err := e.Ask(t.Context(), "find acme", nil)
	if registry.ErrorCode(err) != CodeAskFailed || strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("error %v, want ask_failed", err)
	}
	var ev recorder
	if _, err := e.Ask(t.Context(), "find acme", &ev); registry.ErrorCode(err) != CodeAskFailed {
		t.Fatalf("streaming: %v", err)
	}
	if strings.Join(ev.kinds, ",") != "start,complete" || ev.done.Error == nil || ev.done.Error.Code != CodeAskFailed ||
		!strings.HasPrefix(ev.done.Answer, "The question could not be answered: a Peppol server (an SMP or the Peppol Directory) answered with an HTTP error") {
		t.Errorf("events %v, complete %+v", ev.kinds, ev.done)
	}
}

func TestEngineQueryLimits(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, fixedPlanner(Plan{Intent: IntentUnknown}))
	for _, q := range []string{"", "   ", strings.Repeat("é", MaxQueryLength+1), "a\xff", "who is ac\x00me"} {
		var ev recorder
		if _, err := e.Ask(t.Context(), q, &ev); registry.ErrorCode(err) != registry.CodeInvalidRequest || len(ev.kinds) != 0 {
			t.Errorf("%q: %v, events %v", q, err, ev.kinds)
		}
	}
	if _, err := e.Ask(t.Context(), strings.Repeat("é", MaxQueryLength), nil); err != nil {
		t.Errorf("query of the maximum length: %v", err)
	}
}

// TestEngineLLM runs the LLM path against the fake chat-completions server with the
// real tools and registry: the model searches, looks up and answers; the items are what
// the tools returned. When the model fails, the rule planner answers and _meta says so.
func TestEngineLLM(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	be := n.Name(netsim.KnownBelgian)
	plan := fixedPlanner(Plan{Intent: IntentLookup, Calls: []Call{lookupCall(netsim.KnownBelgian)}})

	f := startFakeOpenAI(t, "k", "m", script(
		toolCalls(call("c1", "search_directory", `{"q":"`+be+`"}`)),
		toolCalls(call("c2", "lookup_participant", `{"participantId":"`+netsim.KnownBelgian+`"}`)),
		answer("Ja, "+be+" ("+netsim.KnownBelgian+") kan facturen ontvangen."),
	))
	llm, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Registry: n.Reg, Planner: plan, LLM: llm, BaseURL: "https://peppolgate.test"})
	if err != nil {
		t.Fatal(err)
	}
	var ev recorder
	a, err := e.Ask(t.Context(), "Kan "+be+" facturen ontvangen?", &ev)
	if err != nil {
		t.Fatal(err)
	}
	if a.Meta.Planner != "llm:m" || a.Meta.Fallback != "" || !strings.HasPrefix(a.Answer, "Ja, ") || len(a.Calls) != 2 {
		t.Fatalf("answer %+v", a)
	}
	var looked *Item
	for i := range a.Results {
		if a.Results[i].Identifier == netsim.KnownBelgian {
			looked = &a.Results[i]
		}
	}
	if looked == nil || looked.Peppol == nil || !looked.Peppol.Registered {
		t.Errorf("the looked-up participant is not an enriched item: %+v", a.Results)
	}
	// The model saw the real tool results.
	reqs := f.requests()
	if fb := reqs[len(reqs)-1].toolFeedback(); len(fb) != 2 || !strings.Contains(fb[1], `"participantId":"`+netsim.KnownBelgian+`"`) {
		t.Errorf("tool feedback %v", fb)
	}
	if strings.Join(ev.kinds[:1], "") != "start" || ev.kinds[len(ev.kinds)-1] != "complete" || ev.start.Meta.Planner != "llm:m" {
		t.Errorf("events %v %+v", ev.kinds, ev.start)
	}

	// The model's API fails: the rules answer, and say why.
	bad := startFakeOpenAI(t, "k", "m", script(apiError(500, "boom")))
	llm, err = NewLLM(LLMConfig{BaseURL: bad.baseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	e, _ = New(Config{Registry: n.Reg, Planner: plan, LLM: llm})
	a, err = e.Ask(t.Context(), "who is it", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Meta.Planner != "rules" || !strings.Contains(a.Meta.Fallback, "llm:m failed") || len(a.Results) != 1 {
		t.Errorf("fallback answer %+v", a)
	}
}

// TestEngineLLMTimeout: a model that does not answer within the LLM's deadline leaves
// the question to the rules, and _meta says it timed out.
func TestEngineLLMTimeout(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	f := startFakeOpenAI(t, "k", "m", script(fakeReply{block: true}))
	llm, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: "m", APIKey: "k", Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Registry: n.Reg, Planner: fixedPlanner(Plan{Intent: IntentLookup, Calls: []Call{lookupCall(netsim.KnownBelgian)}}), LLM: llm})
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Ask(t.Context(), "who is it", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Meta.Planner != "rules" || a.Meta.Fallback != "llm:m failed (timeout); answered by the rule planner" || len(a.Results) != 1 {
		t.Errorf("answer %+v", a)
	}
}

func TestEngineCancelled(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, fixedPlanner(Plan{Intent: IntentSearch, Calls: []Call{searchCall("acme", "")}}))
	n.Net.SetFault(netsim.DirectoryTarget(), netsim.Fault{Hang: true})
	defer n.Net.ClearFaults()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		// Cancel once the search has reached the Directory.
		for n.Net.Hits().Directory.Search == 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := e.Ask(ctx, "find acme", nil); registry.ErrorCode(err) != CodeAskFailed {
		t.Errorf("cancelled question: %v", err)
	}
	// The Directory request itself was abandoned, not left running for the cache.
	deadline := time.Now().Add(5 * time.Second)
	for n.Net.Hits().Abandoned == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n.Net.Hits().Abandoned == 0 {
		t.Error("the upstream request went on after the question was cancelled")
	}
}
