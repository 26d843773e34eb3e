package registry

import (
	"errors"
	"time"
)

// Code is a machine-readable error code. The server maps each code to an HTTP status in
// one table; MCP tools and /ask report the same codes.
type Code string

// Error codes of docs/INTERFACE.md §7, and the ones this project adds.
const (
	CodeInvalidParticipantID Code = "invalid_participant_id"
	CodeMissingQuery         Code = "missing_query"
	CodeQueryTooShort        Code = "query_too_short"
	CodeInvalidRequest       Code = "invalid_request"
	CodeNotFound             Code = "not_found"
	CodeLookupFailed         Code = "lookup_failed"
	CodeSearchFailed         Code = "search_failed"
)

// Error is the error type every Registry method returns: a code, a message that says
// what happened and what to do next (safe to show to anyone: no internal addresses), and
// for upstream rate limits how long to wait.
type Error struct {
	Code       Code
	Message    string
	RetryAfter time.Duration
	// Cause is the kind of upstream failure behind CodeLookupFailed and
	// CodeSearchFailed (timeout, HTTP error, DNS, refused, TLS, ...), set by the
	// Registry's implementation; "" when unclassified.
	Cause Cause
	// Err is the underlying cause, for logs; it is never shown to clients.
	Err error
}

// Error returns "code: message", followed by the cause when there is one, for logs
// (clients are shown Message only).
func (e *Error) Error() string {
	if e.Err == nil {
		return string(e.Code) + ": " + e.Message
	}
	return string(e.Code) + ": " + e.Message + " (cause: " + e.Err.Error() + ")"
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode returns the Code of the first *Error in err's chain, or "" when there is none.
func ErrorCode(err error) Code {
	if e, ok := asError(err); ok {
		return e.Code
	}
	return ""
}

// asError returns the first *Error in err's chain.
func asError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ErrMirrorUnavailable says the Directory mirror holds no data (not imported yet, or
// its file is missing).
var ErrMirrorUnavailable = mirrorError("the Directory mirror holds no data")

type mirrorError string

func (e mirrorError) Error() string { return string(e) }
