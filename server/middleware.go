package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"
)

type ctxKey int

const requestIDKey ctxKey = 0

// RequestID returns the request id the server gave the request in ctx, or "" when ctx
// is not a request's context.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// maxRequestIDLength bounds an incoming X-Request-Id that is reused.
const maxRequestIDLength = 64

// requestID gives every request an id, sent back as X-Request-Id and put in every log
// line. A proxy's incoming id is kept when it is short and made of safe characters, so
// one id follows a request through the chain; anything else is replaced, because it is
// echoed into headers and logs.
func (s *Server) requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// securityHeaders sets the headers every JSON answer should carry: no MIME sniffing, no
// framing, no referrer, and a CSP that lets a browser run nothing from the answer.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}

// cors allows any origin to read the answers: the API is public, read-only and needs
// no credentials, so there is nothing a foreign page could abuse.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-Request-Id, X-Cache, Age, Retry-After")
		next.ServeHTTP(w, r)
	})
}

// preflight answers a CORS preflight for a read endpoint.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Allow", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Accept, Content-Type, X-Request-Id")
	h.Set("Access-Control-Max-Age", "86400")
	h.Set("Cache-Control", "public, max-age=86400")
	w.WriteHeader(http.StatusNoContent)
}

// accessLog writes one structured line per request after it is served.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelWarn
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Int64("bytes", rec.bytes),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", RequestID(r.Context())),
			slog.String("cache", w.Header().Get("X-Cache")),
		)
	})
}

// recoverPanic turns a panic in a handler into a 500 internal_error (when nothing was
// written yet) and a log line with the stack, so one bad request cannot take the
// process down or leak a stack trace to the client. http.ErrAbortHandler is re-raised:
// it is net/http's way to abort a response on purpose.
func (s *Server) recoverPanic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec, ok := w.(*recorder)
		if !ok {
			rec = &recorder{ResponseWriter: w}
		}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
			s.log.LogAttrs(r.Context(), slog.LevelError, "panic",
				slog.String("request_id", RequestID(r.Context())),
				slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
			if rec.status != 0 {
				// Headers are out; the client sees a truncated answer. Abort the
				// connection so it cannot mistake it for a whole one.
				panic(http.ErrAbortHandler)
			}
			h := rec.Header()
			for _, k := range []string{"Age", "X-Cache", "Retry-After", "Allow"} {
				h.Del(k)
			}
			s.writeError(rec, r, errors.New("panic"))
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder remembers the status and body size for the access log and whether the
// headers are out for panic recovery.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer (Flush, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
