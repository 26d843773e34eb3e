// Package httpx holds small HTTP helpers shared by the server, the registry, the
// tools, the mirror and the Peppol clients: the Retry-After field in both directions
// and a watch that ends a download whose body stalls.
package httpx

import "time"

// CeilSeconds is d in whole seconds, rounded up: 1.2 s is 2. d must not be negative.
func CeilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// RetryAfterSeconds is the Retry-After delta-seconds (RFC 9110 §10.2.3) for a wait of
// d: whole seconds, rounded up and at least 1, so that a client that obeys it never
// retries early.
func RetryAfterSeconds(d time.Duration) int64 {
	return max(CeilSeconds(max(d, 0)), 1)
}
