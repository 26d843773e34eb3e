package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC error codes of the MCP messages peppolgate answers itself, on HTTP and on
// stdio (docs/INTERFACE.md §4.5).
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
)

// MaxMessageSize is the largest MCP message peppolgate reads: a POST /mcp body, a line
// of `peppolgate mcp`. A message of these tools is a few hundred bytes.
const MaxMessageSize = 1 << 20

// MaxErrorMessage caps the message of a JSON-RPC error, in characters: the MCP library
// echoes method, tool and prompt names at any length.
const MaxErrorMessage = 200

// BatchMessage is the error message of a JSON-RPC batch. MCP removed batching in
// protocol revision 2025-06-18; the MCP library also negotiates 2025-03-26 and
// 2024-11-05, which allowed it, but answers a batch with a parse error, so peppolgate
// refuses batches in every revision, saying so (docs/INTERFACE.md §4.5).
const BatchMessage = "JSON-RPC batches are not supported in any protocol revision, 2024-11-05 and 2025-03-26 included (MCP removed them in 2025-06-18); send one message at a time"

// WireError is a JSON-RPC error peppolgate answers for an MCP message before (or
// instead of) its MCP library.
type WireError struct {
	// ID is the message's id when it could be read, else null.
	ID json.RawMessage
	// Code is the JSON-RPC error code: RPCParseError, RPCInvalidRequest or RPCInvalidParams.
	Code int
	// Message says what is wrong and how to fix it; it never echoes the input at length.
	Message string
}

// Error returns the message.
func (e *WireError) Error() string { return e.Message }

// Response renders e as a JSON-RPC error response, without a newline.
func (e *WireError) Response() []byte {
	id := e.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{Code: e.Code, Message: e.Message}})
	return b
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CheckMessage checks one MCP message the way the MCP library should but does not
// (it answers 202 to some invalid requests, parse errors to batches, and echoes
// arguments): one JSON object (RPCParseError otherwise), not a batch, an id that is a
// string or a number (MCP forbids null, except in an error response), a method that
// is a non-empty string, or else a response (result or error with an id); all
// RPCInvalidRequest. The arguments of prompts/get are checked as the prompt's handler
// checks them (RPCInvalidParams). It returns nil for a message the library may handle.
func CheckMessage(raw []byte) *WireError {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return &WireError{Code: RPCInvalidRequest, Message: BatchMessage}
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) || json.Unmarshal(trimmed, &msg) != nil {
		return &WireError{Code: RPCParseError, Message: "the message is not one JSON object"}
	}
	e := &WireError{Code: RPCInvalidRequest}
	if len(msg.ID) > 0 && scalarID(msg.ID) {
		e.ID = msg.ID
	}
	switch {
	case len(msg.ID) > 0 && !scalarID(msg.ID) && !(string(msg.ID) == "null" && len(msg.Method) == 0 && len(msg.Error) > 0):
		e.Message = "the id must be a string or a number (MCP does not allow null)"
	case len(msg.Method) > 0 && msg.Method[0] != '"':
		e.Message = "the method must be a string"
	case string(msg.Method) == `""`:
		e.Message = "the method must not be empty: name an MCP method such as initialize, tools/list or tools/call"
	case len(msg.Method) == 0 && (len(msg.ID) == 0 || len(msg.Result)+len(msg.Error) == 0):
		e.Message = "a message needs a method (a request or notification), or an id with a result or error (a response)"
	case string(msg.Method) == `"`+string(mcp.MethodPromptsGet)+`"`:
		var p struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if json.Unmarshal(msg.Params, &p) != nil || p.Name != RecipientPrompt {
			return nil // the library answers, CleanResponse cleans its words
		}
		if _, _, err := recipientArgs(p.Arguments); err != nil {
			e.Code, e.Message = RPCInvalidParams, "invalid params of prompts/get: "+err.Error()
		}
	}
	if e.Message == "" {
		return nil
	}
	return e
}

// scalarID reports whether a JSON-RPC id is a string or a number.
func scalarID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// goDecodeError matches the MCP library's error for a request its types cannot hold,
// e.g. "unparsable tools/list request: json: cannot unmarshal number into Go struct
// field PaginatedParams.PaginatedRequest.params.cursor of type mcp.Cursor".
var goDecodeError = regexp.MustCompile(`^unparsable (\S+) request: json: cannot unmarshal (\w+) into Go (?:struct field (\S+)|value) of type \S+$`)

// CleanResponse rewrites the error of a JSON-RPC response of the MCP library so that
// it shows no Go: a request whose params the library could not decode (its message
// names Go types and struct fields) becomes RPCInvalidParams naming the JSON field and
// the kind of value sent; any other message with Go's JSON wording becomes a fixed
// one; a message longer than MaxErrorMessage is cut. Anything else is returned as it
// is (b itself).
func CleanResponse(b []byte) []byte {
	if !bytes.Contains(b, []byte(`"error"`)) {
		return b
	}
	var m map[string]json.RawMessage
	var e rpcError
	if json.Unmarshal(b, &m) != nil || m["error"] == nil || json.Unmarshal(m["error"], &e) != nil {
		return b
	}
	code, msg := cleanError(e.Code, e.Message)
	if code == e.Code && msg == e.Message {
		return b
	}
	e.Code, e.Message = code, msg
	eb, err := json.Marshal(e)
	if err != nil {
		return b
	}
	m["error"] = eb
	nb, err := json.Marshal(m)
	if err != nil {
		return b
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		nb = append(nb, '\n')
	}
	return nb
}

// cleanError is CleanResponse's rewrite of one error.
func cleanError(code int, msg string) (int, string) {
	if sm := goDecodeError.FindStringSubmatch(msg); sm != nil {
		method, kind, field := sm[1], sm[2], "params"
		if path := sm[3]; path != "" {
			parts := strings.Split(path, ".")
			for i, p := range parts {
				if p == "params" {
					field = strings.Join(parts[i:], ".")
					break
				}
			}
			if !strings.HasPrefix(field, "params") {
				return RPCInvalidRequest, fmt.Sprintf("the %s request does not match the MCP specification of %s", shortName(method), shortName(method))
			}
		}
		return RPCInvalidParams, fmt.Sprintf("invalid params of %s: %s has the wrong type (%s %s was sent); see the MCP specification of %s",
			shortName(method), field, article(kind), kind, shortName(method))
	}
	if strings.Contains(msg, "json: ") || strings.Contains(msg, "Go struct") || strings.Contains(msg, "Go value") {
		return code, "the request does not match the MCP specification of its method"
	}
	if utf8.RuneCountInString(msg) > MaxErrorMessage {
		return code, string([]rune(msg)[:MaxErrorMessage]) + "…"
	}
	return code, msg
}

// shortName caps a method name taken from the library's message.
func shortName(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		return string([]rune(s)[:60]) + "…"
	}
	return s
}

func article(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}
