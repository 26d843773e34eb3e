package server

import (
	"context"
	"log/slog"
)

// WithRequestIDs wraps h so that a record logged with a request's context carries the
// request's id as request_id, unless it names one itself. The registry logs its
// upstream failures with the context of the request that caused them, so an operator
// can follow one request from the access log to the DNS rcode or HTTP status behind
// its 502.
func WithRequestIDs(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ next slog.Handler }

func (h requestIDHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		named := false
		r.Attrs(func(a slog.Attr) bool {
			named = a.Key == "request_id"
			return !named
		})
		if !named {
			r = r.Clone()
			r.AddAttrs(slog.String("request_id", id))
		}
	}
	return h.next.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.next.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.next.WithGroup(name)}
}
