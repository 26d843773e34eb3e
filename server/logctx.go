package server

import (
	"context"
	"log/slog"

	"github.com/peppolgate/peppolgate/internal/telemetry"
)

// WithRequestIDs wraps h (telemetry.WithContextAttrs) so that a record logged with a
// request's context carries the request's id as request_id, unless it names one
// itself. The registry logs its upstream failures with the context of the request that
// caused them, so an operator can follow one request from the access log to the DNS
// rcode or HTTP status behind its 502.
func WithRequestIDs(h slog.Handler) slog.Handler {
	return telemetry.WithContextAttrs(h, requestIDAttr)
}

// requestIDAttr is the request id of ctx as request_id, nil without one.
func requestIDAttr(ctx context.Context) []slog.Attr {
	if id := RequestID(ctx); id != "" {
		return []slog.Attr{slog.String("request_id", id)}
	}
	return nil
}
