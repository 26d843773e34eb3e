package nlq

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// maxItems bounds the items of one answer.
const maxItems = registry.MaxSearchResults

// askLLM lets the LLM answer with the tools. Items are what the tools returned: a
// looked-up participant replaces its search hit. Tool failures are fed back to the
// model, which says so in its answer; only a failure of the LLM itself is an error
// (the caller falls back to the rules).
func (e *Engine) askLLM(ctx context.Context, query string, meta Meta, start time.Time, ev Events) (*Answer, error) {
	meta.Planner = e.llm.Name()
	var mu sync.Mutex
	var items []Item
	at := map[string]int{}
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
		res, err := t.Call(ctx, e.reg, args)
		if err != nil {
			if ctx.Err() != nil {
				return "", nil, ctx.Err()
			}
			return tools.ErrorText(err), nil, nil
		}
		switch v := res.Value.(type) {
		case *registry.Participant:
			add(e.participantItem(v, DocAny, false))
		case *registry.SearchResult:
			for _, h := range v.Results {
				add(e.hitItem(h))
			}
		}
		b, err := json.Marshal(res.Value)
		if err != nil {
			return "", nil, err
		}
		return string(b), res.Value, nil
	}
	answer, calls, err := e.llm.Answer(ctx, query, run)
	if err != nil {
		return nil, err
	}
	if calls == nil {
		calls = []Call{}
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
