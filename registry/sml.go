package registry

// SMLStatus says whether a network's SML zone resolves through the DNS servers it is
// asked through, as the live registry checks it and /readyz reports it
// (docs/INTERFACE.md §4.6). While it does not, no lookup of the network can tell a
// registered participant from an unregistered one: every one fails with
// CodeLookupFailed.
type SMLStatus struct {
	// Network names the network; "" for the one unnamed network of a server.
	Network string `json:"network,omitempty" jsonschema:"the Peppol network (production, test, demo); absent for a server of one unnamed network"`
	// Zone is the network's SML DNS zone.
	Zone string `json:"zone" jsonschema:"the network's SML DNS zone, e.g. participant.sml.prod.tech.peppol.org"`
	// OK is true while the zone's SOA resolves through one of the network's DNS servers.
	OK bool `json:"ok" jsonschema:"true while the SML zone resolves through the network's DNS servers; false while it does not (lookups of the network may then fail with lookup_failed; see noSuchZone)"`
	// NoSuchZone is true when OK is false because a DNS server answered that the zone's
	// name does not exist (NXDOMAIN, or the SOA of a zone the SML zone is not in), not
	// because of a failure that may pass (a timeout, SERVFAIL, an unfinished check).
	NoSuchZone bool `json:"noSuchZone,omitempty" jsonschema:"true when a DNS server answered that the SML zone does not exist (NXDOMAIN, or the SOA of another zone): a resolver that does not answer for the SML, and /readyz is 503 when it is the default network's; absent for a failure that may pass (a timeout, SERVFAIL, a check that did not finish), which keeps the service ready"`
	// Message says what went wrong, naming no server; empty when OK.
	Message string `json:"message,omitempty" jsonschema:"what the DNS servers answered when the zone does not resolve"`
}
