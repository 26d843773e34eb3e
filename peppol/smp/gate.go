package smp

import (
	"context"
	"errors"
	"net/http"

	"github.com/peppolgate/peppolgate/internal/netguard"
)

// Gate decides whether a request to a host may be sent now, and hears how each one it
// let through went: the registry uses it to cap concurrent requests per SMP host and
// to keep a circuit breaker per host. Implementations must be safe for concurrent use.
type Gate interface {
	// Enter blocks until a request to host (the URL's host[:port], lower-case) may be
	// sent and returns the function the Client calls exactly once with the request's
	// HostOutcome. A non-nil error means the request must not be sent: the Client
	// sends nothing and returns a KindRefused *Error wrapping it. Enter must return
	// when ctx ends.
	Enter(ctx context.Context, host string) (done func(HostOutcome), err error)
}

// HostOutcome is what one request says about the health of its host.
type HostOutcome int

// The outcomes a Gate hears.
const (
	// HostUp: the host answered, whatever the answer (2xx, 3xx, 404, another 4xx, a
	// malformed or oversized body).
	HostUp HostOutcome = iota + 1
	// HostDown: a timeout, a connection, TLS or read failure, or a 5xx.
	HostDown
	// HostUnknown: the request says nothing about the host: the caller cancelled it
	// (with or without a cause),
	// the client's policy refused it before sending, or the host answered 429 (it is
	// up, and protecting itself).
	HostUnknown
)

// String names the outcome for logs.
func (o HostOutcome) String() string {
	switch o {
	case HostUp:
		return "up"
	case HostDown:
		return "down"
	case HostUnknown:
		return "unknown"
	}
	return "HostOutcome(?)"
}

// hostOutcome classifies the result of one request: err is nil or the *Error get
// returned.
func hostOutcome(err error) HostOutcome {
	var e *Error
	if err == nil || !errors.As(err, &e) {
		return HostUp
	}
	switch e.Kind {
	case KindTimeout:
		return HostDown
	case KindTransport:
		if errors.Is(e.Err, context.Canceled) {
			return HostUnknown
		}
		return HostDown
	case KindStatus:
		switch {
		case e.Status == http.StatusTooManyRequests:
			return HostUnknown
		case e.Status >= 500:
			return HostDown
		}
		return HostUp
	case KindRefused:
		return HostUnknown
	}
	return HostUp
}

// refusedByPolicy reports whether a transport error is the HTTP client's SSRF policy
// refusing the request before anything was sent.
func refusedByPolicy(err error) bool {
	return errors.Is(err, netguard.ErrForbiddenAddress) || errors.Is(err, netguard.ErrPlainHTTP)
}
