package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

type statusBody struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Mirror is the Directory mirror's state, on /readyz when one is configured.
	Mirror *MirrorStatus `json:"mirror,omitempty" jsonschema:"the local copy of the Peppol Directory, when the service runs with one (readiness only)"`
}

// Mirror states of MirrorStatus.State.
const (
	MirrorOK      = "ok"
	MirrorStale   = "stale"
	MirrorExpired = "expired"
	MirrorEmpty   = "empty"
)

// MirrorStatus is what /readyz says about the Directory mirror. No state makes the
// service unready: the live Directory answers instead.
type MirrorStatus struct {
	State         string     `json:"state" jsonschema:"ok: searches and Directory cards come from the mirror; stale: its data is older than maxAgeSeconds, the live Directory answers and the mirror only when the live Directory fails (with a mirror_stale warning); expired: its data is older than hardMaxAgeSeconds and is not used; empty: it holds no data yet and the live Directory answers"`
	DataAsOf      *time.Time `json:"dataAsOf" jsonschema:"when the Peppol Directory exported the mirrored data (RFC 3339); null when empty"`
	AgeSeconds    int64      `json:"ageSeconds" jsonschema:"age of the mirrored data in seconds; 0 when empty"`
	MaxAgeSeconds int64      `json:"maxAgeSeconds" jsonschema:"the age beyond which the live Directory answers first"`
	// HardMaxAgeSeconds is additive: the age beyond which the mirror is never used.
	HardMaxAgeSeconds int64      `json:"hardMaxAgeSeconds" jsonschema:"the age beyond which the mirror is not used even when the live Directory fails"`
	Cards             int        `json:"cards" jsonschema:"number of business cards in the mirror"`
	ImportedAt        *time.Time `json:"importedAt" jsonschema:"when the mirror was built from the export (RFC 3339); null when empty"`
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
	body := statusBody{Status: "ok"}
	if s.mirror != nil {
		m := s.mirror()
		body.Mirror = &m
	}
	s.writeJSON(w, r, http.StatusOK, body)
	return nil
}
