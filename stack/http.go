package stack

import (
	"log/slog"
	"net/http"
	"time"
)

// Timeouts and limits of the HTTP server that serves peppolgate.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 60 * time.Second
	IdleTimeout       = 120 * time.Second
	// MaxHeaderBytes bounds a request's header block (net/http's default is 1 MiB);
	// more is answered 431 by net/http itself.
	MaxHeaderBytes = 64 << 10
)

// HTTPServer returns the HTTP server that serves h with peppolgate's timeouts and
// limits, logging its own errors (TLS handshakes, bad requests) to log as warnings.
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
