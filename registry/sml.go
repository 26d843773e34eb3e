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
	OK bool `json:"ok" jsonschema:"true while the SML zone resolves through the network's DNS servers; false while it does not (every lookup of the network then fails with lookup_failed)"`
	// Message says what went wrong, naming no server; empty when OK.
	Message string `json:"message,omitempty" jsonschema:"what the DNS servers answered when the zone does not resolve"`
}
