package mirror

import "time"

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
