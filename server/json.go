package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
)

// writeJSON encodes v completely before writing anything, so that an encoding failure
// becomes a clean 500 instead of half a body after a 200.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := encodeJSON(v)
	s.writeBody(w, r, status, body, err)
}

// writeShared writes an answer the registry shares from its cache (a pointer that is
// never modified once returned), as answered by network ("" for unnamed): mark makes
// the copy that says so, shaped by variant (hotPath.sharedBody). Its encoding is
// remembered per answer, network and variant.
func (s *Server) writeShared(w http.ResponseWriter, r *http.Request, status int, v any, network, variant string, mark func() any) {
	body, err := s.hot.sharedBody(v, network, variant, mark)
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
	s.hot.setLength(h, len(body), r.Method == http.MethodHead)
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
