package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
)

// writeJSON encodes v completely before writing anything, so that an encoding failure
// becomes a clean 500 instead of half a body after a 200. HTML is not escaped: the
// answers are JSON for programs, and "&" in a company name should stay "&".
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.log.LogAttrs(r.Context(), slog.LevelError, "encoding response",
			slog.String("request_id", RequestID(r.Context())), slog.String("error", err.Error()))
		status = http.StatusInternalServerError
		buf.Reset()
		// A fixed body that cannot fail to encode.
		buf.WriteString(`{"error":{"code":"internal_error","message":"internal error; please retry later"}}` + "\n")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Del("Age")
		w.Header().Del("X-Cache")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}
