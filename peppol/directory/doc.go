// Package directory is a client for the Peppol Directory REST search API
// (GET {base}/search/1.0/json, phax/phoss-directory).
//
// The Directory is an opt-in index of business cards that lags the SMPs, so a miss here
// never means "not registered on Peppol". The client decodes only what a public service may
// republish: contact details (names, phone numbers, e-mail addresses of people) are personal
// data under the Directory's privacy policy and are never decoded into the model.
//
// Failures are classified into three kinds that callers test with errors.Is:
// ErrBadQuery (the query is invalid, locally or according to the Directory),
// ErrRateLimited (HTTP 429; see RateLimitError for the wait) and ErrUnavailable (anything
// that says nothing about the query: network errors, timeouts, 5xx, unexpected statuses,
// malformed or oversized answers). An empty result is not an error.
package directory
