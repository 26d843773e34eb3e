package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"unicode/utf8"
)

// JSON-RPC error codes /mcp answers itself.
const (
	jsonrpcParseError     = -32700
	jsonrpcInvalidRequest = -32600
	jsonrpcInternalError  = -32603
)

// maxMCPErrorMessage caps the message of a JSON-RPC error: mcp-go echoes tool names and
// prompt arguments, at any length.
const maxMCPErrorMessage = 200

// writeJSONRPCError answers an MCP request with a JSON-RPC error of fixed wording (no
// Go error text, addresses or type names).
func (s *Server) writeJSONRPCError(w http.ResponseWriter, status, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	s.hot.setLength(h, len(b)+1, false)
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// readMCPBody reads a POST /mcp body and checks it the way mcp-go should: one JSON-RPC
// message (a batch is not supported since protocol 2025-06-18), valid JSON, an id that
// is a string, a number or null, a method that is a string. It answers the error itself
// and returns ok false when the body is refused.
func (s *Server) readMCPBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeJSONRPCError(w, http.StatusRequestEntityTooLarge, jsonrpcInvalidRequest, "the request body is larger than "+spelledSize(maxMCPBody))
		} else {
			s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "the request body could not be read in time; send it again")
		}
		return nil, false
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "JSON-RPC batches are not supported; send one message per request")
		return nil, false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if !json.Valid(trimmed) || json.Unmarshal(trimmed, &msg) != nil {
		s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcParseError, "the request body is not one JSON object")
		return nil, false
	}
	if len(msg.ID) > 0 && !jsonScalarID(msg.ID) {
		s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "the id must be a string, a number or null")
		return nil, false
	}
	if len(msg.Method) > 0 && msg.Method[0] != '"' {
		s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "the method must be a string")
		return nil, false
	}
	return body, true
}

// jsonScalarID reports whether a JSON-RPC id is a string, a number or null.
func jsonScalarID(raw json.RawMessage) bool {
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return string(raw) == "null"
}

// mcpErrorWriter passes mcp-go's answers through, except errors, which it holds and
// rewrites when the handler returns (finish): a plain-text error (mcp-go writes Go
// error text there, with addresses) becomes a JSON-RPC error of fixed wording for its
// status, and a JSON-RPC error message longer than maxMCPErrorMessage is cut. Event
// streams and results pass straight through, flushes included.
type mcpErrorWriter struct {
	http.ResponseWriter
	s      *Server
	status int
	held   bool // an error answer is being held
	buf    bytes.Buffer
}

func (w *mcpErrorWriter) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	ct := w.Header().Get("Content-Type")
	if status >= 400 || (ct == "application/json" && status == http.StatusOK) {
		w.held = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *mcpErrorWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.held {
		if w.buf.Len()+len(p) > maxMCPBody {
			return 0, errors.New("mcp answer too large")
		}
		return w.buf.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush through (event streams), unless an answer is held.
func (w *mcpErrorWriter) Flush() {
	if !w.held {
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *mcpErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes a held answer, rewritten.
func (w *mcpErrorWriter) finish() {
	if !w.held {
		return
	}
	body := w.buf.Bytes()
	if w.status >= 400 && !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		w.s.writeJSONRPCError(w.ResponseWriter, w.status, statusRPCCode(w.status), statusMessage(w.status))
		return
	}
	var m map[string]json.RawMessage
	var e struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	if json.Unmarshal(body, &m) == nil && m["error"] != nil && json.Unmarshal(m["error"], &e) == nil && utf8.RuneCountInString(e.Message) > maxMCPErrorMessage {
		e.Message = string([]rune(e.Message)[:maxMCPErrorMessage]) + "…"
		if b, err := json.Marshal(e); err == nil {
			m["error"] = b
			if nb, err := json.Marshal(m); err == nil {
				body = append(nb, '\n')
			}
		}
	}
	w.s.hot.setLength(w.Header(), len(body), false)
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(body)
}

// statusRPCCode is the JSON-RPC code of a transport error of mcp-go's by HTTP status.
func statusRPCCode(status int) int {
	if status >= 500 {
		return jsonrpcInternalError
	}
	return jsonrpcInvalidRequest
}

// statusMessage is the fixed wording of a transport error of mcp-go's by HTTP status.
func statusMessage(status int) string {
	switch status {
	case http.StatusNotFound:
		return "unknown or ended MCP session: send initialize without Mcp-Session-Id to start a new one"
	case http.StatusBadRequest:
		return "bad MCP request: check Content-Type (application/json), Accept (application/json, text/event-stream), Mcp-Session-Id and MCP-Protocol-Version"
	case http.StatusNotAcceptable:
		return "Accept must list application/json and text/event-stream"
	case http.StatusUnsupportedMediaType:
		return "Content-Type must be application/json"
	case http.StatusMethodNotAllowed:
		return "method not allowed on /mcp"
	}
	if status >= 500 {
		return "internal error; retry later"
	}
	return "the MCP request was refused"
}
