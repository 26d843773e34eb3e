package registry

// States of a Directory mirror, as the live registry judges its data's age and /readyz
// reports it.
const (
	// MirrorOK: the mirror answers first.
	MirrorOK = "ok"
	// MirrorStale: its data is older than the live registry's mirror max age; the live
	// Directory answers first, the mirror only when it fails.
	MirrorStale = "stale"
	// MirrorExpired: its data is older than the hard max age; it is not used.
	MirrorExpired = "expired"
	// MirrorEmpty: it holds no data yet.
	MirrorEmpty = "empty"
)
