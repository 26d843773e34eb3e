package nlq

import (
	"context"
	"strings"
	"testing"

	otelcodes "go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/peppolgate/peppolgate/netsim"
)

// TestEngineSpans checks /ask's spans with the LLM planner over the fake model and the
// real tools: "ask LLM" holds the tool calls it asked for (peppolgate.tool_calls), each
// an "ask tool <name>" span; an upstream failure is recorded by its error code, never
// with the client's input (which the error's message quotes) in it.
func TestEngineSpans(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	const secret = "0208:secretinput42"
	f := startFakeOpenAI(t, "k", "m", script(
		toolCalls(call("c1", "lookup_participant", `{"participantId":"`+secret+`"}`),
			call("c2", "search_directory", `{"q":"secretquery"}`)),
		answer("Nothing found."),
	))
	llm, err := NewLLM(LLMConfig{BaseURL: f.baseURL(), Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	e, err := New(Config{Registry: n.Reg, Planner: fixedPlanner(Plan{Intent: IntentUnknown}), LLM: llm, BaseURL: "https://peppolgate.test", TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	n.Net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	defer n.Net.ClearFaults()
	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	_, _ = e.Ask(ctx, "who is "+secret+"?", nil)
	parent.End()

	byName := map[string]sdktrace.ReadOnlySpan{}
	var names []string
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
		names = append(names, s.Name())
		text := s.Status().Description
		for _, a := range s.Attributes() {
			text += " " + a.Value.String()
		}
		for _, ev := range s.Events() {
			for _, a := range ev.Attributes {
				text += " " + a.Value.String()
			}
		}
		if s.Name() != "request" && (strings.Contains(text, "secretinput42") || strings.Contains(text, "secretquery")) {
			t.Errorf("span %q carries the client's input: %s", s.Name(), text)
		}
	}
	llmSpan, ok := byName["ask LLM"]
	if !ok {
		t.Fatalf("no ask LLM span among %v", names)
	}
	if llmSpan.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("ask LLM is not under the request")
	}
	for _, a := range llmSpan.Attributes() {
		if a.Key == "peppolgate.tool_calls" && a.Value.AsInt64() != 2 {
			t.Errorf("peppolgate.tool_calls = %d, want 2", a.Value.AsInt64())
		}
	}
	for _, tt := range []struct {
		name, code string
		err        bool
	}{
		{"ask tool lookup_participant", "lookup_failed", true},
		{"ask tool search_directory", "search_failed", true},
	} {
		s, ok := byName[tt.name]
		if !ok {
			t.Errorf("no span %q among %v", tt.name, names)
			continue
		}
		if s.Parent().SpanID() != llmSpan.SpanContext().SpanID() {
			t.Errorf("%s is not under ask LLM", tt.name)
		}
		code := ""
		for _, a := range s.Attributes() {
			if a.Key == "peppolgate.error_code" {
				code = a.Value.AsString()
			}
		}
		if code != tt.code || (s.Status().Code == otelcodes.Error) != tt.err || (tt.err && s.Status().Description != tt.code) {
			t.Errorf("%s: error code %q, status %v; want %q, error %v", tt.name, code, s.Status(), tt.code, tt.err)
		}
	}
}
