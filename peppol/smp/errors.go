package smp

import (
	"errors"
	"fmt"
	"net/url"
)

// Sentinels for errors.Is on the errors Client returns.
var (
	// ErrNotFound means the SMP answered HTTP 404: it does not know the participant, or
	// not this document type for it. It is an answer, not a failure.
	ErrNotFound = errors.New("smp: not found")
	// ErrUnavailable means no usable answer was obtained (timeout, connection failure,
	// HTTP 5xx, other 4xx, 3xx, body too large, malformed document, redirect loop,
	// request refused before sending). The participant's status is unknown; the request
	// may be retried (a refusal by address or scheme policy gives the same answer until
	// the participant's registration changes).
	ErrUnavailable = errors.New("smp: unavailable")
)

// Kind classifies an *Error.
type Kind int

// The kinds of *Error. Only KindNotFound matches ErrNotFound; every other kind matches
// ErrUnavailable.
const (
	// KindNotFound: HTTP 404.
	KindNotFound Kind = iota + 1
	// KindTimeout: the deadline passed before the whole answer arrived.
	KindTimeout
	// KindTransport: DNS, connection, TLS or read failure, or the caller cancelled.
	KindTransport
	// KindStatus: an HTTP status other than 2xx and 404, including 3xx, which is never
	// followed.
	KindStatus
	// KindTooLarge: the body is larger than Client.MaxBody.
	KindTooLarge
	// KindMalformed: the body is not an SMP document of the expected kind or is about
	// another participant or document type than requested; or the base URL or a
	// Redirect href is not an absolute http(s) URL without user info, query and
	// fragment.
	KindMalformed
	// KindRedirectLoop: the SMP a Redirect pointed at redirected again.
	KindRedirectLoop
	// KindRefused: nothing was sent. The HTTP client's policy refused the address or
	// the scheme (Err wraps netguard.ErrForbiddenAddress or netguard.ErrPlainHTTP), or
	// the Client's Gate refused the request (Err is the Gate's error: circuit open,
	// too many requests to the host).
	KindRefused
)

// String names the kind for logs.
func (k Kind) String() string {
	switch k {
	case KindNotFound:
		return "not found"
	case KindTimeout:
		return "timeout"
	case KindTransport:
		return "transport error"
	case KindStatus:
		return "unexpected HTTP status"
	case KindTooLarge:
		return "response too large"
	case KindMalformed:
		return "malformed response"
	case KindRedirectLoop:
		return "redirect loop"
	case KindRefused:
		return "refused"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is the error Client returns. errors.Is(err, ErrNotFound) holds for KindNotFound
// and errors.Is(err, ErrUnavailable) for every other kind; Unwrap gives the cause.
type Error struct {
	Kind Kind
	// URL is the request URL, without user info.
	URL string
	// Status is the HTTP status code, 0 when no response was received.
	Status int
	Err    error
}

// Error reads e.g. "smp: GET https://smp.example/iso6523-actorid-upis%3A%3A0208%3A1:
// unexpected HTTP status: HTTP 503".
func (e *Error) Error() string {
	msg := "smp: GET " + e.URL + ": " + e.Kind.String()
	if e.Status != 0 {
		msg += fmt.Sprintf(": HTTP %d", e.Status)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause (a context error, a net error, a parse error), or nil.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is match ErrNotFound or ErrUnavailable by Kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Kind == KindNotFound
	case ErrUnavailable:
		return e.Kind != KindNotFound
	}
	return false
}

// redactURL drops user info and the query so that credentials someone put in a base
// URL do not end up in logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}
