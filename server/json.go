package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
)

// writeJSON encodes v completely before writing anything, so that an encoding failure
// becomes a clean 500 instead of half a body after a 200.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := encodeJSON(v)
	s.writeBody(w, r, status, body, err)
}

// writeShared writes an answer the registry shares from its cache (a pointer that is
// never modified once returned), as answered by network ("" for unnamed): mark makes
// the copy that says so, called only when the encoding is not remembered. The
// encoding is remembered per answer and network, so a cached lookup costs a map read
// instead of a copy and a JSON encoding.
func (s *Server) writeShared(w http.ResponseWriter, r *http.Request, status int, v any, network string, mark func() any) {
	body, err := s.bodies.encode(memoKey{v: v, network: network}, mark)
	s.writeBody(w, r, status, body, err)
}

func (s *Server) writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte, err error) {
	if err != nil {
		s.log.LogAttrs(r.Context(), slog.LevelError, "encoding response",
			slog.String("request_id", RequestID(r.Context())), slog.String("error", err.Error()))
		status = http.StatusInternalServerError
		// A fixed body that cannot fail to encode.
		body = []byte(`{"error":{"code":"internal_error","message":"internal error; please retry later"}}` + "\n")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Del("Age")
		w.Header().Del("X-Cache")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	// net/http adds Content-Length itself to a body it buffered whole (up to 2 KiB),
	// without a header-map entry; a map entry costs on every request, so it is set here
	// only where net/http would not: longer bodies (else chunked) and HEAD.
	if len(body) > netHTTPBufferedBody || r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// encodeJSON encodes v followed by a newline. HTML is not escaped: the answers are JSON
// for programs, and "&" in a company name should stay "&".
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// netHTTPBufferedBody is how much of a body net/http buffers before it must choose
// between Content-Length and chunked encoding (bufferBeforeChunkingSize in net/http).
const netHTTPBufferedBody = 2048

// maxMemoBodies bounds bodyMemo; when it is full it starts afresh, which costs one
// encoding per answer still in use.
const maxMemoBodies = 4096

// memoKey is a shared answer (by pointer identity) and the network it is marked with.
type memoKey struct {
	v       any
	network string
}

// bodyMemo maps a shared answer and its network to its encoded JSON.
type bodyMemo struct {
	mu sync.Mutex
	m  map[memoKey][]byte
}

// encode returns the encoding of value() remembered under key, encoding it first when
// there is none.
func (m *bodyMemo) encode(key memoKey, value func() any) ([]byte, error) {
	m.mu.Lock()
	b, ok := m.m[key]
	m.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := encodeJSON(value())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.m == nil || len(m.m) >= maxMemoBodies {
		m.m = make(map[memoKey][]byte)
	}
	m.m[key] = b
	m.mu.Unlock()
	return b, nil
}
