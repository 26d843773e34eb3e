package nlq

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/peppolgate/peppolgate/tools"
)

// fakeOpenAI is an OpenAI-compatible chat-completions server on loopback. It speaks
// the non-streaming wire format of POST /v1/chat/completions, checks every request
// the way OpenAI does (bearer key, tools, tool results paired with the calls they
// answer) and records what it got. reply decides each response from the request
// number (0-based) and the request.
type fakeOpenAI struct {
	t     *testing.T
	srv   *httptest.Server
	key   string
	model string
	reply func(n int, req *fakeRequest) fakeReply
	// cancelled receives one value per request whose context ended while reply
	// was blocking (see blockReply).
	cancelled chan struct{}

	mu   sync.Mutex
	reqs []*fakeRequest
}

// fakeRequest is a decoded chat-completions request.
type fakeRequest struct {
	Model       string          `json:"model"`
	Messages    []fakeMessage   `json:"messages"`
	Temperature *float64        `json:"temperature"`
	Stream      bool            `json:"stream"`
	ToolChoice  json.RawMessage `json:"tool_choice"`
	Tools       []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`

	authorization string
	organization  string
}

// fakeMessage is one message of a request.
type fakeMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []fakeToolCall `json:"tool_calls"`
	ToolCallID string         `json:"tool_call_id"`
}

// fakeToolCall is a tool call, in requests and in replies.
type fakeToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// fakeReply is a response: a status and a raw body; block makes the handler wait
// until the client gives up instead.
type fakeReply struct {
	status int
	body   string
	block  bool
}

// startFakeOpenAI starts the server; requests must carry key and name model.
func startFakeOpenAI(t *testing.T, key, model string, reply func(n int, req *fakeRequest) fakeReply) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{t: t, key: key, model: model, reply: reply, cancelled: make(chan struct{}, 16)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// baseURL is what LLMConfig.BaseURL must be.
func (f *fakeOpenAI) baseURL() string { return f.srv.URL + "/v1" }

// requests returns the requests received so far.
func (f *fakeOpenAI) requests() []*fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*fakeRequest(nil), f.reqs...)
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.fail(w, http.StatusNotFound, "unexpected %s %s", r.Method, r.URL.Path)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		f.fail(w, http.StatusUnsupportedMediaType, "Content-Type %q", ct)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.fail(w, http.StatusBadRequest, "reading body: %v", err)
		return
	}
	req := &fakeRequest{authorization: r.Header.Get("Authorization"), organization: r.Header.Get("OpenAI-Organization")}
	if err := json.Unmarshal(body, req); err != nil {
		f.fail(w, http.StatusBadRequest, "body is not a chat request: %v: %s", err, body)
		return
	}
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if problem := f.check(req); problem != "" {
		f.fail(w, http.StatusBadRequest, "request %d: %s", n, problem)
		return
	}
	rep := f.reply(n, req)
	if rep.block {
		select {
		case <-r.Context().Done():
			f.cancelled <- struct{}{}
		case <-f.t.Context().Done():
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

// fail answers with an OpenAI error body and fails the test: the client sent
// something a real server would reject.
func (f *fakeOpenAI) fail(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	f.t.Errorf("fake OpenAI: %s", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// check returns what is wrong with req, or "".
func (f *fakeOpenAI) check(req *fakeRequest) string {
	if req.authorization != "Bearer "+f.key {
		return fmt.Sprintf("Authorization %q, want the bearer key", req.authorization)
	}
	if req.Model != f.model {
		return fmt.Sprintf("model %q, want %q", req.Model, f.model)
	}
	if req.Stream {
		return "stream is true"
	}
	if problem := checkTools(req); problem != "" {
		return problem
	}
	return checkMessages(req.Messages)
}

// checkTools checks that req offers exactly the tools of package tools, with their
// descriptions and input schemas.
func checkTools(req *fakeRequest) string {
	all := tools.All()
	if len(req.Tools) != len(all) {
		return fmt.Sprintf("%d tools, want %d", len(req.Tools), len(all))
	}
	for i, want := range all {
		got := req.Tools[i]
		if got.Type != "function" || got.Function.Name != want.Name || got.Function.Description != want.Description {
			return fmt.Sprintf("tool %d is %s %q, want function %q with its description", i, got.Type, got.Function.Name, want.Name)
		}
		var gotSchema, wantSchema any
		b, _ := json.Marshal(want.Input)
		if json.Unmarshal(got.Function.Parameters, &gotSchema) != nil || json.Unmarshal(b, &wantSchema) != nil || !reflect.DeepEqual(gotSchema, wantSchema) {
			return fmt.Sprintf("tool %s parameters %s, want %s", want.Name, got.Function.Parameters, b)
		}
	}
	return ""
}

// checkMessages checks the conversation as OpenAI does: system, user, then
// assistant turns whose tool calls are each answered by one tool message, in order.
func checkMessages(msgs []fakeMessage) string {
	if len(msgs) < 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
		return "the conversation does not start with a system and a user message"
	}
	for i := 2; i < len(msgs); {
		m := msgs[i]
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			return fmt.Sprintf("message %d is %s without tool calls, want an assistant's tool calls", i, m.Role)
		}
		for j, tc := range m.ToolCalls {
			if tc.ID == "" || tc.Type != "function" || tc.Function.Name == "" {
				return fmt.Sprintf("message %d: tool call %d has id %q, type %q, name %q", i, j, tc.ID, tc.Type, tc.Function.Name)
			}
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != "tool" || msgs[k].ToolCallID != tc.ID || msgs[k].Content == nil {
				return fmt.Sprintf("tool call %s of message %d is not answered by message %d", tc.ID, i, k)
			}
		}
		i += 1 + len(m.ToolCalls)
	}
	return ""
}

// toolFeedback returns the contents of req's tool messages, in order.
func (req *fakeRequest) toolFeedback() []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" && m.Content != nil {
			out = append(out, *m.Content)
		}
	}
	return out
}

// toolChoice returns req's tool_choice as a string ("" when absent).
func (req *fakeRequest) toolChoice() string {
	var s string
	_ = json.Unmarshal(req.ToolChoice, &s)
	return s
}

// call is a tool call of a reply.
func call(id, name, args string) fakeToolCall {
	tc := fakeToolCall{ID: id, Type: "function"}
	tc.Function.Name, tc.Function.Arguments = name, args
	return tc
}

// completion is a 200 chat.completion body with the given choices.
func completion(choices ...map[string]any) fakeReply {
	for i, c := range choices {
		c["index"] = i
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
		"choices": choices,
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
	return fakeReply{status: http.StatusOK, body: string(b)}
}

// toolCallsChoice is a choice calling tools, with content null as OpenAI sends it.
func toolCallsChoice(calls ...fakeToolCall) map[string]any {
	return map[string]any{"finish_reason": "tool_calls",
		"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}}
}

// textChoice is a choice answering with text.
func textChoice(text string) map[string]any {
	return map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}
}

// toolCalls is a reply calling tools.
func toolCalls(calls ...fakeToolCall) fakeReply { return completion(toolCallsChoice(calls...)) }

// answer is a reply answering with text.
func answer(text string) fakeReply { return completion(textChoice(text)) }

// apiError is an error reply in OpenAI's format.
func apiError(status int, message string) fakeReply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "invalid_request_error", "code": nil}})
	return fakeReply{status: status, body: string(b)}
}

// raw is a reply with any body.
func raw(status int, body string) fakeReply { return fakeReply{status: status, body: body} }

// script replies with replies in turn, repeating the last one.
func script(replies ...fakeReply) func(int, *fakeRequest) fakeReply {
	return func(n int, _ *fakeRequest) fakeReply {
		return replies[min(n, len(replies)-1)]
	}
}

// fakeTools is a ToolRunner returning canned text per tool and recording the calls.
type fakeTools struct {
	mu    sync.Mutex
	text  map[string]string
	calls []string // "tool args"
}

func (ft *fakeTools) run(_ context.Context, tool string, args json.RawMessage) (string, any, error) {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	ft.calls = append(ft.calls, tool+" "+string(args))
	text, ok := ft.text[tool]
	if !ok {
		text = "not_found: no canned result for " + tool
	}
	return text, nil, nil
}

func (ft *fakeTools) ran() []string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return append([]string(nil), ft.calls...)
}
