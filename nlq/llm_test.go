package nlq

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	testKey   = "sk-test-5f2a9c0e7d"
	testModel = "fake-model"
	// Canned tool results, as the engine's ToolRunner renders them.
	searchText = `{"query":"acme","total":1,"results":[{"participantId":"0208:0677424046","name":"ACME NV","countryCode":"BE"}]}`
	lookupText = `{"participantId":"0208:0677424046","directory":{"name":"ACME NV","countryCode":"BE"},"smp":{"documentTypes":12}}`
	otherText  = `{"participantId":"0192:923609016","directory":{"name":"Acme AS","countryCode":"NO"}}`
)

func newTestLLM(t *testing.T, f *fakeOpenAI, rounds int) *LLM {
	t.Helper()
	l, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: testModel, APIKey: testKey, MaxRounds: rounds})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newFakeTools() *fakeTools {
	return &fakeTools{text: map[string]string{"search_directory": searchText, "lookup_participant": lookupText}}
}

// assertNoKey fails when err or anything it wraps shows the API key.
func assertNoKey(t *testing.T, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if strings.Contains(e.Error(), testKey) {
			t.Errorf("error shows the API key: %v", e)
		}
	}
}

func TestLLMAnswer(t *testing.T) {
	t.Parallel()
	const (
		invalidArgs = "invalid_request: arguments are not a JSON object"
		final       = "ACME NV (0208:0677424046, BE) is on Peppol and can receive 12 document types."
	)
	searchArgs := `{"q":"acme","country":"BE"}`
	lookupArgs := `{"participantId":"0208:0677424046"}`
	searchCall := Call{Tool: "search_directory", Arguments: map[string]any{"q": "acme", "country": "BE"}}
	lookupCall := Call{Tool: "lookup_participant", Arguments: map[string]any{"participantId": "0208:0677424046"}}
	capped := func(n int, req *fakeRequest) fakeReply {
		if req.toolChoice() == "none" {
			return answer(final)
		}
		return toolCalls(call("call_x", "search_directory", searchArgs))
	}
	noID := call("", "search_directory", searchArgs)
	noID.Type = ""

	tests := []struct {
		name      string
		rounds    int
		reply     func(int, *fakeRequest) fakeReply
		tools     map[string]string // nil: search and lookup results
		answer    string
		calls     []Call
		ran       []string // what the ToolRunner got, "tool args"
		requests  int
		feedback  []string // tool messages of the last request
		lastNone  bool     // the last request disables tools
		errSubstr string   // "" when Answer must succeed
	}{
		{
			name: "search, lookup, answer",
			reply: script(
				toolCalls(call("call_1", "search_directory", searchArgs)),
				toolCalls(call("call_2", "lookup_participant", lookupArgs)),
				answer(final)),
			answer: final, calls: []Call{searchCall, lookupCall},
			ran:      []string{"search_directory " + searchArgs, "lookup_participant " + lookupArgs},
			requests: 3, feedback: []string{searchText, lookupText},
		},
		{
			name: "parallel calls in one round",
			reply: script(
				toolCalls(call("call_1", "lookup_participant", lookupArgs), call("call_2", "lookup_participant", `{"participantId":"0192:923609016"}`)),
				answer("Two participants.")),
			tools:    map[string]string{"lookup_participant": otherText},
			answer:   "Two participants.",
			calls:    []Call{lookupCall, {Tool: "lookup_participant", Arguments: map[string]any{"participantId": "0192:923609016"}}},
			ran:      []string{"lookup_participant " + lookupArgs, `lookup_participant {"participantId":"0192:923609016"}`},
			requests: 2, feedback: []string{otherText, otherText},
		},
		{
			name: "malformed arguments are fed back, the model recovers",
			reply: script(
				toolCalls(call("call_1", "search_directory", `{"q":`), call("call_2", "search_directory", `["acme"]`),
					call("call_3", "search_directory", `null`), call("call_4", "search_directory", ``),
					call("call_5", "search_directory", `{"q":"acme"} {}`)),
				toolCalls(call("call_6", "search_directory", " "+searchArgs+"\n")),
				answer(final)),
			answer: final, calls: []Call{searchCall},
			ran:      []string{"search_directory  " + searchArgs + "\n"}, // passed on unchanged
			requests: 3, feedback: []string{invalidArgs, invalidArgs, invalidArgs, invalidArgs, invalidArgs, searchText},
		},
		{
			name: "unknown tool is fed back, the model recovers",
			reply: script(
				toolCalls(call("call_1", "delete_participant", lookupArgs)),
				toolCalls(call("call_2", "lookup_participant", lookupArgs)),
				answer(final)),
			answer: final, calls: []Call{lookupCall}, ran: []string{"lookup_participant " + lookupArgs},
			requests: 3,
			feedback: []string{`invalid_request: unknown tool "delete_participant"; the tools are lookup_participant, search_directory, get_participant_services, check_participants, network_statistics`, lookupText},
		},
		{
			name:   "tool error text is fed back",
			reply:  script(toolCalls(call("call_1", "lookup_participant", lookupArgs)), answer("0208:0677424046 is not on Peppol.")),
			tools:  map[string]string{},
			answer: "0208:0677424046 is not on Peppol.", calls: []Call{lookupCall}, ran: []string{"lookup_participant " + lookupArgs},
			requests: 2, feedback: []string{"not_found: no canned result for lookup_participant"},
		},
		{
			name: "text and tool calls in separate choices",
			reply: script(
				completion(textChoice("Let me search."), toolCallsChoice(call("call_1", "search_directory", searchArgs))),
				answer(final)),
			answer: final, calls: []Call{searchCall}, ran: []string{"search_directory " + searchArgs},
			requests: 2, feedback: []string{searchText},
		},
		{
			name:   "tool call without id or type",
			reply:  script(toolCalls(noID), answer(final)),
			answer: final, calls: []Call{searchCall}, ran: []string{"search_directory " + searchArgs},
			requests: 2, feedback: []string{searchText},
		},
		{
			name:   "endless tool calls are capped",
			rounds: 2,
			reply:  script(toolCalls(call("call_x", "search_directory", searchArgs))),
			calls:  []Call{searchCall, searchCall}, ran: []string{"search_directory " + searchArgs, "search_directory " + searchArgs},
			requests: 3, feedback: []string{searchText, searchText}, lastNone: true,
			errSubstr: "still calling tools after 2 rounds",
		},
		{
			name:   "after the last round the model answers with tools disabled",
			rounds: 1,
			reply:  capped,
			answer: final, calls: []Call{searchCall}, ran: []string{"search_directory " + searchArgs},
			requests: 2, feedback: []string{searchText}, lastNone: true,
		},
		{
			name:  "empty answer after the tools",
			reply: script(toolCalls(call("call_1", "search_directory", searchArgs)), answer(" \n")),
			calls: []Call{searchCall}, ran: []string{"search_directory " + searchArgs},
			requests: 2, feedback: []string{searchText},
			errSubstr: "neither text nor tool calls",
		},
		{
			name:  "null content",
			reply: script(completion(map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": nil}})),
			calls: []Call{}, requests: 1,
			errSubstr: "neither text nor tool calls",
		},
		{
			name:  "HTTP 500",
			reply: script(apiError(http.StatusInternalServerError, "The server had an error while processing your request.")),
			calls: []Call{}, requests: 1,
			errSubstr: "500: The server had an error",
		},
		{
			name:  "HTTP 401 echoing the key",
			reply: script(apiError(http.StatusUnauthorized, "Incorrect API key provided: "+testKey+". You can find your API key at https://platform.openai.com/account/api-keys.")),
			calls: []Call{}, requests: 1,
			errSubstr: "401: Incorrect API key provided: [redacted]",
		},
		{
			name:  "HTTP 502 with an HTML body",
			reply: script(raw(http.StatusBadGateway, "<html>bad gateway</html>")),
			calls: []Call{}, requests: 1,
			errSubstr: "502",
		},
		{
			name:  "error in the second round",
			reply: script(toolCalls(call("call_1", "search_directory", searchArgs)), apiError(http.StatusTooManyRequests, "Rate limit reached")),
			calls: []Call{searchCall}, ran: []string{"search_directory " + searchArgs}, requests: 2, feedback: []string{searchText},
			errSubstr: "round 2",
		},
		{
			name:  "body is not JSON",
			reply: script(raw(http.StatusOK, "not json")),
			calls: []Call{}, requests: 1,
			errSubstr: "the response is not a chat completion: invalid character",
		},
		{
			name:  "no choices",
			reply: script(completion()),
			calls: []Call{}, requests: 1,
			errSubstr: "empty response",
		},
		{
			name:  "function_call finish reason without a function call",
			reply: script(completion(map[string]any{"finish_reason": "function_call", "message": map[string]any{"role": "assistant", "content": nil}})),
			calls: []Call{}, requests: 1,
			errSubstr: "malformed chat completion response",
		},
		{
			name:  "null choice",
			reply: script(raw(http.StatusOK, `{"id":"x","object":"chat.completion","choices":[null]}`)),
			calls: []Call{}, requests: 1,
			errSubstr: "malformed chat completion response",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFakeOpenAI(t, testKey, testModel, tt.reply)
			l := newTestLLM(t, f, tt.rounds)
			ft := newFakeTools()
			if tt.tools != nil {
				ft.text = tt.tools
			}
			got, calls, err := l.Answer(t.Context(), "Can ACME in Belgium receive invoices?", ft.run)
			switch {
			case tt.errSubstr == "" && err != nil:
				t.Fatalf("Answer: %v", err)
			case tt.errSubstr != "" && (err == nil || !strings.Contains(err.Error(), tt.errSubstr)):
				t.Fatalf("Answer error = %v, want one containing %q", err, tt.errSubstr)
			case tt.errSubstr != "" && got != "":
				t.Errorf("Answer = %q with error %v, want no answer", got, err)
			}
			assertNoKey(t, err)
			if err != nil {
				t.Logf("error: %v", err)
			}
			if got != tt.answer {
				t.Errorf("answer = %q, want %q", got, tt.answer)
			}
			if !reflect.DeepEqual(calls, tt.calls) {
				t.Errorf("calls = %#v, want %#v", calls, tt.calls)
			}
			if ran := ft.ran(); !reflect.DeepEqual(ran, tt.ran) {
				t.Errorf("ToolRunner got %q, want %q", ran, tt.ran)
			}
			reqs := f.requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tt.requests)
			}
			last := reqs[len(reqs)-1]
			if fb := last.toolFeedback(); !reflect.DeepEqual(fb, tt.feedback) {
				t.Errorf("tool results fed back = %q, want %q", fb, tt.feedback)
			}
			for i, r := range reqs {
				want := ""
				if tt.lastNone && i == len(reqs)-1 {
					want = "none"
				}
				if c := r.toolChoice(); c != want {
					t.Errorf("request %d: tool_choice %q, want %q", i, c, want)
				}
			}
		})
	}
}

// TestLLMRequest checks what the first request says besides the tools (which the
// fake checks on every request): the prompt, the question, the temperature, and
// that langchaingo's environment fallbacks are overridden.
func TestLLMRequest(t *testing.T) {
	t.Setenv("OPENAI_ORGANIZATION", "org-from-env")
	t.Setenv("OPENAI_MODEL", "model-from-env")
	t.Setenv("OPENAI_API_KEY", "key-from-env")
	const query = "Welke Belgische bedrijven heten ACME?"
	f := startFakeOpenAI(t, "none", testModel, script(answer("Geen resultaten.")))
	l, err := NewLLM(LLMConfig{BaseURL: f.baseURL() + "/", Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if l.Name() != "llm:"+testModel {
		t.Errorf("Name() = %q", l.Name())
	}
	got, calls, err := l.Answer(t.Context(), query, newFakeTools().run)
	if err != nil || got != "Geen resultaten." || len(calls) != 0 {
		t.Fatalf("Answer = %q, %v, %v", got, calls, err)
	}
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.organization != "" {
		t.Errorf("OpenAI-Organization %q sent", r.organization)
	}
	if r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("temperature %v, want 0", r.Temperature)
	}
	if len(r.Messages) != 2 || r.Messages[1].Content == nil || *r.Messages[1].Content != query {
		t.Fatalf("messages %+v, want the system prompt and the question", r.Messages)
	}
	system := *r.Messages[0].Content
	for _, want := range []string{"peppolgate", "only source of truth", "language of the question", "nothing was found", "search_directory", "lookup_participant", "get_participant_services"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
}

func TestLLMTimeout(t *testing.T) {
	t.Parallel()
	f := startFakeOpenAI(t, testKey, testModel, script(fakeReply{block: true}))
	l, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: testModel, APIKey: testKey, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ft := newFakeTools()
	_, calls, err := l.Answer(t.Context(), "who is 0208:0677424046", ft.run)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Answer error = %v, want a deadline", err)
	}
	assertNoKey(t, err)
	t.Logf("error: %v", err)
	if len(calls) != 0 || len(ft.ran()) != 0 {
		t.Errorf("calls %v, ran %v", calls, ft.ran())
	}
	// The request was abandoned, not left running: a request that reached the
	// server is seen cancelled there. On a busy machine the deadline can pass
	// before the request arrives at all; then nothing was left running, and the
	// wait must end rather than hang the test.
	select {
	case <-f.cancelled:
	case <-time.After(30 * time.Second):
		if len(f.requests()) > 0 {
			t.Fatal("the server never saw the request cancelled")
		}
		t.Log("the deadline passed before the request reached the server")
	}
}

func TestLLMToolRunnerStops(t *testing.T) {
	t.Parallel()
	reply := script(toolCalls(call("call_1", "search_directory", `{"q":"acme"}`)), answer("unreachable"))
	tests := []struct {
		name    string
		timeout time.Duration
		run     func(cancel context.CancelFunc) ToolRunner
		want    error
	}{
		{
			// Long enough for the model's first answer to arrive on a busy
			// machine, so the deadline passes while the tool runs.
			name:    "deadline passes while a tool runs",
			timeout: 2 * time.Second,
			run: func(context.CancelFunc) ToolRunner {
				return func(ctx context.Context, _ string, _ json.RawMessage) (string, any, error) {
					<-ctx.Done()
					return "", nil, ctx.Err()
				}
			},
			want: context.DeadlineExceeded,
		},
		{
			name:    "caller cancels",
			timeout: time.Minute,
			run: func(cancel context.CancelFunc) ToolRunner {
				return func(ctx context.Context, _ string, _ json.RawMessage) (string, any, error) {
					cancel()
					<-ctx.Done()
					return "", nil, ctx.Err()
				}
			},
			want: context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFakeOpenAI(t, testKey, testModel, reply)
			l, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: testModel, APIKey: testKey, Timeout: tt.timeout})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			got, calls, err := l.Answer(ctx, "find acme", tt.run(cancel))
			if !errors.Is(err, tt.want) || got != "" || len(calls) != 0 {
				t.Fatalf("Answer = %q, %v, %v; want error %v", got, calls, err, tt.want)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("%d requests after the tool failed, want 1", n)
			}
		})
	}
}

func TestNewLLM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       LLMConfig
		errSubstr string // "" when valid
	}{
		{name: "OpenAI", cfg: LLMConfig{Model: "gpt-4o-mini", APIKey: "sk-1"}},
		{name: "Ollama without key", cfg: LLMConfig{BaseURL: "http://localhost:11434/v1", Model: "llama3.1"}},
		{name: "limits", cfg: LLMConfig{BaseURL: "https://llm.example/v1/", Model: "m", Timeout: time.Second, MaxRounds: MaxLLMRounds}},
		{name: "no model", cfg: LLMConfig{APIKey: "sk-1"}, errSubstr: "model is required"},
		{name: "model with a space", cfg: LLMConfig{Model: "gpt 4", APIKey: "sk-1"}, errSubstr: "must not contain spaces"},
		{name: "OpenAI without key", cfg: LLMConfig{Model: "gpt-4o-mini"}, errSubstr: "OPENAI_API_KEY"},
		{name: "explicit OpenAI URL without key", cfg: LLMConfig{BaseURL: "https://API.openai.com/v1", Model: "gpt-4o-mini"}, errSubstr: "OPENAI_API_KEY"},
		{name: "relative URL", cfg: LLMConfig{BaseURL: "localhost:11434/v1", Model: "m"}, errSubstr: "absolute http(s) URL"},
		{name: "other scheme", cfg: LLMConfig{BaseURL: "ftp://host/v1", Model: "m"}, errSubstr: "absolute http(s) URL"},
		{name: "query", cfg: LLMConfig{BaseURL: "http://host/v1?x=1", Model: "m"}, errSubstr: "without query"},
		{name: "password hidden", cfg: LLMConfig{BaseURL: "http://u:secret@host/v1?x=1", Model: "m"}, errSubstr: "u:REDACTED@host"},
		{name: "password hidden without a scheme", cfg: LLMConfig{BaseURL: "u:secret@host:11434/v1", Model: "m"}, errSubstr: "u:REDACTED@host"},
		{name: "password hidden in an unparseable URL", cfg: LLMConfig{BaseURL: "http://u:secret@ho st/v1", Model: "m"}, errSubstr: "absolute http(s) URL"},
		{name: "negative timeout", cfg: LLMConfig{Model: "m", APIKey: "k", Timeout: -time.Second}, errSubstr: "timeout must be positive"},
		{name: "negative rounds", cfg: LLMConfig{Model: "m", APIKey: "k", MaxRounds: -1}, errSubstr: "rounds must be 1 to"},
		{name: "too many rounds", cfg: LLMConfig{Model: "m", APIKey: "k", MaxRounds: MaxLLMRounds + 1}, errSubstr: "rounds must be 1 to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLLM(tt.cfg)
			switch {
			case tt.errSubstr == "" && (err != nil || l == nil):
				t.Fatalf("NewLLM: %v", err)
			case tt.errSubstr != "" && (err == nil || !strings.Contains(err.Error(), tt.errSubstr)):
				t.Fatalf("NewLLM error = %v, want one containing %q", err, tt.errSubstr)
			case err != nil && strings.Contains(err.Error(), "secret"):
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

func TestLLMUnreachable(t *testing.T) {
	t.Parallel()
	f := startFakeOpenAI(t, testKey, testModel, script(answer("unreachable")))
	base := f.baseURL()
	f.srv.Close()
	l, err := NewLLM(LLMConfig{BaseURL: base, Model: testModel, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = l.Answer(t.Context(), "find acme", newFakeTools().run)
	// The cause reaches the operator, not langchaingo's "failed to reach API server".
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Answer error = %v, want the connection refused", err)
	}
	t.Logf("error: %v", err)
	assertNoKey(t, err)
}
