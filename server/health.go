package server

import (
	"context"
	"log/slog"
	"net/http"
)

type statusBody struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// healthz is the liveness probe: the process serves HTTP, nothing more.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	s.writeJSON(w, r, http.StatusOK, statusBody{Status: "ok"})
	return nil
}

// readyz is the readiness probe: 503 while Config.Ready fails (e.g. during shutdown).
// The cause goes to the log only, because it may name internal hosts.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	if s.ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := s.ready(ctx); err != nil {
			s.log.LogAttrs(r.Context(), slog.LevelWarn, "not ready",
				slog.String("request_id", RequestID(r.Context())), slog.String("error", err.Error()))
			s.writeJSON(w, r, http.StatusServiceUnavailable,
				statusBody{Status: "unavailable", Message: "the service is not ready to take traffic; retry shortly"})
			return nil
		}
	}
	s.writeJSON(w, r, http.StatusOK, statusBody{Status: "ok"})
	return nil
}
