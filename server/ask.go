package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/discovery"
	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/nlq"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/tools"
)

// maxAskBody bounds a POST /ask body.
const maxAskBody = 8 << 10

// streamWriteTimeout bounds a whole /ask answer or event stream: the engine's own
// deadlines (the LLM's, at most nlq.MaxLLMTimeout, then the lookups') end before it.
const streamWriteTimeout = 2 * time.Minute

// askRequest is the body of POST /ask: {"query": "..."}, or NLWeb's
// {"query": {"text": "..."}, "prefer": {"streaming": true}}. Other members (NLWeb
// sends several) are ignored.
type askRequest struct {
	Query  json.RawMessage `json:"query"`
	Prefer struct {
		Streaming bool `json:"streaming"`
	} `json:"prefer"`
}

// ask serves POST /ask (docs/INTERFACE.md §4.3 and §6): a JSON answer, or a server-sent
// event stream when the client accepts text/event-stream or prefers streaming.
func (s *Server) ask(w http.ResponseWriter, r *http.Request) error {
	query, streaming, err := readAsk(w, r)
	if err != nil {
		return err
	}
	network, _, err := s.hot.queryValue(r.URL.RawQuery, "network")
	if err != nil {
		return err
	}
	eng, err := s.nlq.On(network)
	if err != nil {
		return err
	}
	// An answer may take the LLM's deadline plus the lookups': longer than the server's
	// write timeout for ordinary requests.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if !streaming {
		a, err := eng.Ask(r.Context(), query, nil)
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		s.writeJSON(w, r, http.StatusOK, a)
		return nil
	}
	sw := newSSE(w)
	_, err = eng.Ask(r.Context(), query, sw)
	if err != nil && !sw.started {
		return err
	}
	if err != nil {
		// The status is out (200); the failure went to the client in complete.error.
		s.log.LogAttrs(r.Context(), slog.LevelWarn, "ask failed in a stream",
			slog.String("request_id", RequestID(r.Context())),
			slog.String("code", string(registry.ErrorCode(err))),
			slog.String("error", err.Error()))
	}
	return nil
}

// readAsk reads and checks the request: its media type, size and JSON, and the query.
// It returns *registry.Error with CodeUnsupportedMediaType or CodeInvalidRequest.
func readAsk(w http.ResponseWriter, r *http.Request) (query string, streaming bool, err error) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !jsonBodyType(ct) {
		return "", false, apiError(CodeUnsupportedMediaType, fmt.Sprintf(
			"POST /ask takes a JSON body (Content-Type: application/json), not %s", phrase.Quote(ct)))
	}
	// The body is a few hundred bytes: compressing it gains nothing, and decompressing
	// would let a small body expand without bound.
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return "", false, apiError(CodeUnsupportedMediaType, fmt.Sprintf(
			"POST /ask takes an uncompressed body (at most %d bytes); send it without Content-Encoding, not %s", maxAskBody, phrase.Quote(ce)))
	}
	// Refused before reading, so that a client sending Expect: 100-continue is not told
	// to go on with a body that will not be read.
	if r.ContentLength > maxAskBody {
		return "", false, apiError(registry.CodeInvalidRequest, fmt.Sprintf("the request body is over %d bytes; send {\"query\": \"...\"} with at most %d characters", maxAskBody, nlq.MaxQueryLength))
	}
	body, rerr := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAskBody))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(rerr, &mbe):
		return "", false, apiError(registry.CodeInvalidRequest, fmt.Sprintf("the request body is over %d bytes; send {\"query\": \"...\"} with at most %d characters", maxAskBody, nlq.MaxQueryLength))
	case rerr != nil:
		return "", false, apiError(registry.CodeInvalidRequest, "the request body could not be read")
	case !utf8.Valid(body):
		// encoding/json would replace the bad bytes with U+FFFD and answer a question
		// nobody asked; JSON is UTF-8 (RFC 8259 §8.1), as search's q must be.
		return "", false, apiError(registry.CodeInvalidRequest, `the body is not valid UTF-8; send {"query": "…"} encoded as UTF-8`)
	}
	var req askRequest
	if err := json.Unmarshal(body, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return "", false, apiError(registry.CodeInvalidRequest, fmt.Sprintf(
				`member %s of the body has the wrong type (JSON %s); send {"query": "…", "prefer": {"streaming": true}}`, te.Field, te.Value))
		}
		return "", false, apiError(registry.CodeInvalidRequest, `the body is not a JSON object; send {"query": "Can Acme receive invoices?"}`)
	}
	query, ok := queryText(req.Query)
	if ok && strings.ContainsRune(query, utf8.RuneError) && !bytes.ContainsRune(body, utf8.RuneError) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) {
		// encoding/json turns a lone surrogate escape (\ud800) into U+FFFD, which the
		// body did not hold: a question nobody asked.
		return "", false, apiError(registry.CodeInvalidRequest, `the query holds an invalid \u escape (a lone UTF-16 surrogate such as \ud800); send the text as UTF-8 or as a valid surrogate pair`)
	}
	if !ok {
		return "", false, apiError(registry.CodeInvalidRequest, `the body needs a query string: {"query": "Can Acme receive invoices?"} (or NLWeb's {"query": {"text": "..."}})`)
	}
	if err := nlq.ValidateQuery(query); err != nil {
		return "", false, err
	}
	return query, req.Prefer.Streaming || acceptsEventStream(r), nil
}

// jsonBodyType reports whether a request Content-Type may carry the JSON body of
// /ask: JSON itself, and the types clients send by default without meaning anything
// (curl -d sends application/x-www-form-urlencoded, fetch with a string text/plain).
// The body must parse as JSON either way.
func jsonBodyType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch mt {
	case "application/json", "application/x-www-form-urlencoded", "text/plain":
		return true
	}
	return strings.HasSuffix(mt, "+json")
}

// queryText reads the query: a string, or an object with a text string.
func queryText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil && len(raw) > 0 && raw[0] == '"' {
		return s, true
	}
	var o struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Text != nil {
		return *o.Text, true
	}
	return "", false
}

// acceptsEventStream reports whether the Accept header asks for text/event-stream.
func acceptsEventStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/event-stream" {
			continue
		}
		if q, ok := params["q"]; ok {
			if w, err := strconv.ParseFloat(q, 64); err != nil || w <= 0 {
				continue
			}
		}
		return true
	}
	return false
}

// sse writes nlq events as server-sent events, each flushed as soon as it is written.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	failed  bool
}

func newSSE(w http.ResponseWriter) *sse {
	return &sse{w: w, rc: http.NewResponseController(w)}
}

func (s *sse) event(name string, v any) {
	if s.failed {
		return
	}
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	b, err := json.Marshal(v)
	if err != nil {
		s.failed = true
		return
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		s.failed = true // the client went away; the request context ends the work
		return
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = true
	}
}

// Start writes the start event.
func (s *sse) Start(e nlq.StartEvent) { s.event("start", e) }

// Result writes one result event.
func (s *sse) Result(e nlq.ResultEvent) { s.event("result", e) }

// Complete writes the complete event.
func (s *sse) Complete(e nlq.CompleteEvent) { s.event("complete", e) }

// askRoutes describes and serves POST /ask (docs/INTERFACE.md §4).
func (s *Server) askRoutes(k docKit) []route {
	return []route{
		{Endpoint: discovery.Endpoint{
			Method: http.MethodPost, Path: "/ask", OperationID: "ask", Tag: "ask",
			Summary: "Ask in plain language",
			Params:  k.networkNamed(registry.NetworkDescriptionNamed(k.networks, "The tools ask that network; `_meta.network` and the results' url name it.")),
			Description: "Answers a question about Peppol participants (English, French, Dutch, German, Norwegian, Swedish, Spanish, Italian, Danish, Finnish, Polish) by calling the tools, " +
				"in the question's language (`_meta.language`): JSON by default, or server-sent events with `Accept: text/event-stream` or `prefer.streaming`: " +
				"`start` (how it was planned), one `result` per item (with `failed` when a call about it failed upstream), `complete` (the answer; " +
				"`failed` lists the calls that failed while others answered; `error` only when nothing could be answered). " +
				"A client that disconnects cancels the upstream work.",
			Body: &discovery.Body{Required: true, Description: fmt.Sprintf(`{"query": "…"}, or NLWeb's {"query": {"text": "…"}, "prefer": {"streaming": true}}; at most %s, the query 1–%d characters.`, spelledSize(maxAskBody), nlq.MaxQueryLength),
				MediaTypes: []string{"application/json"}, Schema: askRequestSchema(),
				Examples: map[string]any{
					"plain": map[string]any{"query": "Can Vandelanotte receive credit notes?"},
					"nlweb": map[string]any{"query": map[string]any{"text": "Welk access point bedient BE0677424046?"}, "prefer": map[string]any{"streaming": true}},
				}},
			Responses: []discovery.Response{
				{Status: http.StatusOK, Description: "The answer.", MediaType: "application/json", Schema: tools.Schema[nlq.Answer]()},
				{Status: http.StatusOK, Description: "The answer as server-sent events: start, result (one per item), complete.", MediaType: "text/event-stream", Schema: &jsonschema.Schema{Type: "string"},
					Events: []discovery.Event{
						{Name: "start", Description: "First, once the question is planned: how, and the first tool calls.", Schema: tools.Schema[nlq.StartEvent]()},
						{Name: "result", Description: "One per item, in index order, each as soon as it is ready.", Schema: tools.Schema[nlq.ResultEvent]()},
						{Name: "complete", Description: "Last: the answer, every call made, the item count, the calls that failed upstream; error when nothing could be answered.", Schema: tools.Schema[nlq.CompleteEvent]()},
					}},
			},
			Errors: append([]registry.Code{registry.CodeInvalidRequest, CodeUnsupportedMediaType, nlq.CodeAskFailed}, commonErrors()...),
		}, handler: s.ask, class: classAsk},
	}
}
