package mirror

import "time"

// States of Status.State.
const (
	StateOK      = "ok"
	StateStale   = "stale"
	StateExpired = "expired"
	StateEmpty   = "empty"
)

// Status is a mirror's state as /readyz reports it. No state makes the service
// unready: the live Directory answers instead.
type Status struct {
	State         string     `json:"state" jsonschema:"ok: searches and Directory cards come from the mirror; stale: its data is older than maxAgeSeconds, the live Directory answers and the mirror only when the live Directory fails (with a mirror_stale warning); expired: its data is older than hardMaxAgeSeconds and is not used; empty: it holds no data yet and the live Directory answers"`
	DataAsOf      *time.Time `json:"dataAsOf" jsonschema:"when the Peppol Directory exported the mirrored data (RFC 3339); null when empty"`
	AgeSeconds    int64      `json:"ageSeconds" jsonschema:"age of the mirrored data in seconds; 0 when empty"`
	MaxAgeSeconds int64      `json:"maxAgeSeconds" jsonschema:"the age beyond which the live Directory answers first"`
	// HardMaxAgeSeconds is additive: the age beyond which the mirror is never used.
	HardMaxAgeSeconds int64      `json:"hardMaxAgeSeconds" jsonschema:"the age beyond which the mirror is not used even when the live Directory fails"`
	Cards             int        `json:"cards" jsonschema:"number of business cards in the mirror"`
	ImportedAt        *time.Time `json:"importedAt" jsonschema:"when the mirror was built from the export (RFC 3339); null when empty"`
}

// Status returns the state of s's data at now: ok while it is at most maxAge old,
// stale up to hardMaxAge, expired beyond, empty before the first import.
func (s *Store) Status(maxAge, hardMaxAge time.Duration, now time.Time) Status {
	st := Status{State: StateEmpty, MaxAgeSeconds: int64(maxAge / time.Second), HardMaxAgeSeconds: int64(hardMaxAge / time.Second)}
	m, ok := s.Meta()
	if !ok {
		return st
	}
	asOf, imported := m.DataAsOf.UTC(), m.ImportedAt.UTC()
	age := max(now.Sub(asOf), 0)
	st.DataAsOf, st.ImportedAt, st.Cards, st.AgeSeconds = &asOf, &imported, m.Cards, int64(age/time.Second)
	switch {
	case age > hardMaxAge:
		st.State = StateExpired
	case age > maxAge:
		st.State = StateStale
	default:
		st.State = StateOK
	}
	return st
}
