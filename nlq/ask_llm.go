package nlq

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// maxItems bounds the items of one answer.
const maxItems = registry.MaxSearchResults

// askLLM lets the LLM answer with the tools. Items are what the tools returned: a
// looked-up participant replaces its search hit, and a participant's listed services
// add its document types to its item. Tool failures are fed back to the
// model, which says so in its answer; only a failure of the LLM itself is an error
// (the caller falls back to the rules).
func (e *Engine) askLLM(ctx context.Context, query string, meta Meta, start time.Time, ev Events) (*Answer, error) {
	meta.Planner = e.llm.Name()
	meta.Language = DetectLanguage(query) // the model is asked to answer in it
	var mu sync.Mutex
	var items []Item
	at := map[string]int{}
	// services are what get_participant_services returned, by participant: added
	// to the items at the end, whatever the order of the calls.
	services := map[string]*registry.ServicesResult{}
	var serviceOrder []string
	add := func(it Item) {
		mu.Lock()
		defer mu.Unlock()
		if i, ok := at[it.Identifier]; ok {
			if it.Peppol != nil {
				items[i] = it
			}
			return
		}
		if len(items) < maxItems {
			at[it.Identifier] = len(items)
			items = append(items, it)
		}
	}
	run := func(ctx context.Context, tool string, args json.RawMessage) (string, any, error) {
		t, ok := e.tools[tool]
		if !ok {
			return "invalid_request: unknown tool " + tool, nil, nil
		}
		res, err := e.callTool(ctx, t, args)
		if err != nil {
			if ctx.Err() != nil {
				return "", nil, ctx.Err()
			}
			return tools.ErrorText(err), nil, nil
		}
		switch v := res.Value.(type) {
		case *registry.Participant:
			add(e.participantItem(v, nil, nil, DocAny, false))
		case *registry.ServicesResult:
			mu.Lock()
			if _, ok := services[v.ParticipantID]; !ok {
				serviceOrder = append(serviceOrder, v.ParticipantID)
			}
			services[v.ParticipantID] = v
			mu.Unlock()
		case *registry.SearchResult:
			for _, h := range v.Results {
				add(e.hitItem(h))
			}
		case *tools.CheckResult:
			for _, row := range v.Results {
				if row.ParticipantID != "" {
					add(e.newItem(row.ParticipantID, row.Name, row.Country))
				}
			}
		}
		b, err := json.Marshal(res.Value)
		if err != nil {
			return "", nil, err
		}
		return string(b), res.Value, nil
	}
	// The LLM's requests are spans of their own ("LLM POST", the HTTP client's); this
	// one holds them and the tool calls they asked for.
	span := trace.SpanFromContext(ctx)
	if e.tracer != nil {
		ctx, span = e.tracer.Start(ctx, "ask LLM", trace.WithAttributes(attribute.String("peppolgate.planner", meta.Planner)))
	}
	answer, calls, err := e.llm.Answer(ctx, query, run)
	if e.tracer != nil {
		span.SetAttributes(attribute.Int("peppolgate.tool_calls", len(calls)))
		failSpan(span, err)
		span.End()
	}
	if err != nil {
		return nil, err
	}
	if calls == nil {
		calls = []Call{}
	}
	for _, id := range serviceOrder {
		if i, ok := at[id]; ok {
			items[i] = e.servicesItem(&items[i], services[id])
		} else if len(items) < maxItems {
			at[id] = len(items)
			items = append(items, e.servicesItem(nil, services[id]))
		}
	}
	if items == nil {
		items = []Item{}
	}
	meta.ProcessingTimeMS = time.Since(start).Milliseconds()
	a := &Answer{Meta: meta, Query: query, Answer: answer, Calls: calls, Results: items}
	if ev != nil {
		ev.Start(StartEvent{Meta: meta, Query: query, Calls: calls})
		for i, it := range items {
			ev.Result(ResultEvent{Index: i, Item: it})
		}
		ev.Complete(CompleteEvent{Answer: answer, Calls: calls, TotalItems: len(items), ProcessingTimeMS: meta.ProcessingTimeMS})
	}
	return a, nil
}
