package registry

import "time"

// Upstream kinds an Observer hears about.
const (
	UpstreamSML       = "sml"
	UpstreamSMP       = "smp"
	UpstreamDirectory = "directory"
	// UpstreamMirror is the local Directory mirror (peppolnet.Config.Mirror).
	UpstreamMirror = "mirror"
)

// Upstream call outcomes.
const (
	OutcomeOK       = "ok"        // an answer (found or not found)
	OutcomeError    = "error"     // failed: status, transport, malformed answer
	OutcomeTimeout  = "timeout"   // the deadline passed
	OutcomeRejected = "rejected"  // not attempted: circuit open, queue full, address refused
	OutcomeLimited  = "ratelimit" // the upstream rate-limited us
	OutcomeCanceled = "canceled"  // cut short because every caller waiting for it left
)

// Cache results an Observer hears about.
const (
	CacheHit   = "hit"
	CacheMiss  = "miss"
	CacheStale = "stale"
)

// Cache kinds an Observer hears about: one decision per Lookup or Search call that
// passed input validation.
const (
	CacheLookup = "lookup"
	CacheSearch = "search"
	// CacheServices is the kind of Services calls.
	CacheServices = "services"
)

// Observer is told what the registry does, for metrics. Implementations must be safe
// for concurrent use and fast (they are called on every request); nil in
// peppolnet.Config means nobody listens.
type Observer interface {
	// Upstream reports one upstream call: kind is UpstreamSML, UpstreamSMP or
	// UpstreamDirectory, outcome one of the Outcome constants, d its duration.
	Upstream(kind, outcome string, d time.Duration)
	// Cache reports one cache decision: kind is "lookup" or "search", result one of
	// CacheHit, CacheMiss, CacheStale.
	Cache(kind, result string)
}
