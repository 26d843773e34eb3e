package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/peppolgate/peppolgate/tools"
)

// JSON-RPC error codes /mcp answers itself (the table of tools/mcpwire.go, which stdio
// shares).
const (
	jsonrpcParseError     = tools.RPCParseError
	jsonrpcInvalidRequest = tools.RPCInvalidRequest
	jsonrpcInternalError  = tools.RPCInternalError
)

// writeJSONRPCError answers an MCP request with a JSON-RPC error of fixed wording (no
// Go error text, addresses or type names).
func (s *Server) writeJSONRPCError(w http.ResponseWriter, status, code int, msg string) {
	s.writeWireError(w, status, &tools.WireError{Code: code, Message: msg})
}

// writeWireError answers e with status.
func (s *Server) writeWireError(w http.ResponseWriter, status int, e *tools.WireError) {
	b := append(e.Response(), '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	s.hot.setLength(h, len(b), false)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// readMCPBody reads a POST /mcp body and checks it the way mcp-go should
// (tools.CheckMessage): one JSON-RPC message (a batch is not supported since protocol
// 2025-06-18), valid JSON, an id that is a string or a number, a non-empty method or
// else a response, a prompt's arguments as its handler wants them. A body announced
// larger than maxMCPBody is refused before a byte of it is read, so that a client
// waiting on Expect: 100-continue never gets 100 Continue. It answers the error itself
// and returns ok false when the body is refused: 413 for its size, 400 for a message
// the transport cannot take, 200 with the JSON-RPC error for invalid params.
func (s *Server) readMCPBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	tooBig := func() {
		s.writeJSONRPCError(w, http.StatusRequestEntityTooLarge, jsonrpcInvalidRequest,
			"the request body is larger than "+spelledSize(maxMCPBody)+", the most one MCP message may have; send a smaller one")
	}
	if r.ContentLength > maxMCPBody {
		tooBig()
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMCPBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooBig()
		} else {
			s.writeJSONRPCError(w, http.StatusBadRequest, jsonrpcInvalidRequest, "the request body could not be read in time; send it again")
		}
		return nil, false
	}
	if e := tools.CheckMessage(body); e != nil {
		status := http.StatusBadRequest
		if e.Code == tools.RPCInvalidParams {
			status = http.StatusOK
		}
		s.writeWireError(w, status, e)
		return nil, false
	}
	return body, true
}

// mcpErrorWriter passes mcp-go's answers through, except errors, which it holds and
// rewrites when the handler returns (finish): a plain-text error (mcp-go writes Go
// error text there, with addresses) becomes a JSON-RPC error of fixed wording for its
// status, and a JSON-RPC error is cleaned by tools.CleanResponse (no Go types, cut
// short). Event
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
	body = tools.CleanResponse(body)
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
