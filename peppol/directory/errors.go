package directory

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors matched with errors.Is against any error returned by Client.Search
// (and, for ErrBadQuery, by Query.Validate and Query.Values).
var (
	// ErrBadQuery means the query cannot be run: it was rejected locally before sending
	// (Error.Status 0) or the Directory answered 400 with a message (Error.Status 400).
	// Retrying the same query is pointless.
	ErrBadQuery = errors.New("peppol directory: bad query")
	// ErrRateLimited means the Directory answered 429 (it allows about 2 requests per
	// second per client IP). errors.As with *RateLimitError gives the wait.
	ErrRateLimited = errors.New("peppol directory: rate limited")
	// ErrUnavailable means the Directory could not give an answer: network error,
	// timeout, cancelled context, 5xx or other unexpected status, malformed JSON or a
	// body larger than Client.MaxBody. It says nothing about the participant; retrying
	// later may succeed.
	ErrUnavailable = errors.New("peppol directory: unavailable")
)

// ErrTooLarge is in the chain of an ErrUnavailable-kind *Error whose answer was larger
// than Client.MaxBody: the Directory answered, but too much to read.
var ErrTooLarge = errors.New("too large")

// Kind classifies an *Error.
type Kind int

// The kinds of *Error; each matches one sentinel error with errors.Is.
const (
	// KindUnavailable matches ErrUnavailable.
	KindUnavailable Kind = iota + 1
	// KindRateLimited matches ErrRateLimited.
	KindRateLimited
	// KindBadQuery matches ErrBadQuery.
	KindBadQuery
)

// String returns a short lower-case name of k, e.g. "rate limited".
func (k Kind) String() string {
	switch k {
	case KindUnavailable:
		return "unavailable"
	case KindRateLimited:
		return "rate limited"
	case KindBadQuery:
		return "bad query"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is the error type returned by this package. errors.Is(err, ErrBadQuery /
// ErrRateLimited / ErrUnavailable) follows Kind; errors.Is and errors.As also see through
// to Err (e.g. context.DeadlineExceeded, *RateLimitError, *peppol.IDError).
type Error struct {
	// Kind says which sentinel the error matches.
	Kind Kind
	// Status is the HTTP status of the Directory's answer, or 0 when there was none
	// (local validation, network failure, timeout).
	Status int
	// Err is the cause; for KindBadQuery from a 400 its text is the Directory's message.
	Err error
}

// Error returns e.g. "peppol directory: bad query (HTTP 400): No valid query term provided!".
func (e *Error) Error() string {
	s := "peppol directory: " + e.Kind.String()
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel matching e.Kind.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrBadQuery:
		return e.Kind == KindBadQuery
	case ErrRateLimited:
		return e.Kind == KindRateLimited
	case ErrUnavailable:
		return e.Kind == KindUnavailable
	}
	return false
}

// DefaultRetryAfter is the wait assumed when a 429 carries no usable Retry-After header;
// it is what the Directory itself sends.
const DefaultRetryAfter = 2 * time.Second

// RateLimitError is the cause inside an *Error of KindRateLimited. RetryAfter comes from
// the Retry-After header (delay in seconds or an HTTP date; a date in the past gives 0)
// and is DefaultRetryAfter when the header is absent or unparsable.
type RateLimitError struct {
	RetryAfter time.Duration
}

// Error returns e.g. "retry after 2s".
func (e *RateLimitError) Error() string { return "retry after " + e.RetryAfter.String() }

func badQuery(status int, err error) *Error {
	return &Error{Kind: KindBadQuery, Status: status, Err: err}
}

func unavailable(status int, err error) *Error {
	return &Error{Kind: KindUnavailable, Status: status, Err: err}
}
