// Package httpx holds small HTTP helpers shared by the server, the registry, the
// tools, the mirror and the Peppol clients: the Retry-After field in both directions
// and a watch that ends a download whose body stalls.
package httpx

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

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

// ParseRetryAfter reads a Retry-After field value (RFC 9110 §10.2.3), delay-seconds or
// an HTTP date, as a wait from now. A date in the past is no wait; a wait longer than
// limit is limit, so that absurd values neither overflow time.Duration nor stop a
// client for years; an absent, negative or unreadable value is def.
func ParseRetryAfter(v string, now time.Time, def, limit time.Duration) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return def
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return def
		}
		return time.Duration(min(secs, int64(limit/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), limit)
	}
	return def
}
