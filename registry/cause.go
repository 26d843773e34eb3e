package registry

// Cause is the kind of an upstream failure behind a CodeLookupFailed or
// CodeSearchFailed error, for adapters that say what went wrong in their own words
// (the /ask answers in eleven languages): the Registry's implementation classifies each
// failure from its cause chain (peppolnet's failureKind, the same words its logs use)
// into one of these. "" when it was not classified.
type Cause string

// Causes of upstream failures.
const (
	// CauseTimeout: the upstream (SML DNS, an SMP, the Directory) did not answer in time.
	CauseTimeout Cause = "timeout"
	// CauseHTTPError: an SMP or the Directory answered with an HTTP error status (500, 503, ...).
	CauseHTTPError Cause = "http_error"
	// CauseDNS: DNS gave no usable answer (SERVFAIL, REFUSED, an answer not from the SML
	// zone, an SMP host name that does not resolve).
	CauseDNS Cause = "dns_failure"
	// CauseRefused: the upstream refused the connection.
	CauseRefused Cause = "connection_refused"
	// CauseTLS: the TLS handshake or the server certificate's check failed.
	CauseTLS Cause = "tls"
	// CauseBusy: the call was not made: the upstream failed often just before (circuit
	// breaker open), or too many calls to it are in flight.
	CauseBusy Cause = "busy"
	// CauseRateLimited: the upstream rate-limits us (HTTP 429).
	CauseRateLimited Cause = "rate_limited"
	// CauseMalformed: the upstream answered something unreadable, too large, or cut
	// the connection short.
	CauseMalformed Cause = "malformed"
)

// ErrorCause returns the Cause of the first *Error in err's chain, "" when there is
// none or it was not classified.
func ErrorCause(err error) Cause {
	if e, ok := asError(err); ok {
		return e.Cause
	}
	return ""
}
