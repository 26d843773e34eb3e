// Package sml resolves a Peppol participant to the base URL of its SMP through the
// Service Metadata Locator: a DNS U-NAPTR lookup (Peppol SML 1.3.0, BDXL).
//
// Resolver.Lookup keeps the three outcomes apart that callers must never conflate:
// ErrNotRegistered (NXDOMAIN or no NAPTR records, proven to come from the SML zone: a
// definite "no"), ErrNoSMPService (records, but no usable Meta:SMP one; the participant
// is in the SML) and ErrDNSFailure (SERVFAIL, REFUSED, timeouts, network errors, and a
// "does not exist" that does not come from the SML zone (ErrNotFromZone): unknown,
// retryable, never to be reported as "not registered"). Resolver.CheckZone says whether
// the zone resolves at all.
package sml

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"

	"github.com/peppolgate/peppolgate/peppol"
)

// Zones of the Peppol SML, operated by OpenPeppol since 2026.
const (
	// ZoneProduction is the DNS zone of the production Peppol SML.
	ZoneProduction = "participant.sml.prod.tech.peppol.org"
	// ZoneTest is the DNS zone of the Peppol test SML (SMK).
	ZoneTest = "participant.sml.test.tech.peppol.org"
)

var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// NAPTRName returns the DNS name to query for NAPTR records of id in zone:
// lower(base32_nopad(sha256(lower("<icd>:<value>")))) + ".iso6523-actorid-upis." + zone.
// The hash covers the ICD and value, never the "iso6523-actorid-upis::" prefix. A
// trailing dot on zone is dropped.
func NAPTRName(id peppol.ParticipantID, zone string) string {
	return inZone(naptrLabel(id.String()), zone)
}

// inZone joins label, the participant scheme and zone into a host name; an empty zone
// gives "<label>.iso6523-actorid-upis", without a trailing dot, as the reference
// implementation (phax/peppol-commons) does.
func inZone(label, zone string) string {
	name := label + "." + peppol.ParticipantScheme
	if z := normalizeZone(zone); z != "" {
		name += "." + z
	}
	return name
}

// naptrLabel hashes a raw identifier value; it is separate from NAPTRName so that the
// published vectors for values a ParticipantID cannot hold (no ICD, empty) stay testable.
func naptrLabel(value string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(value)))
	return strings.ToLower(base32NoPad.EncodeToString(sum[:]))
}

// LegacyCNAMEName returns the host name of the pre-2025 CNAME scheme:
// "b-" + hex(md5(lower("<icd>:<value>"))) + ".iso6523-actorid-upis." + zone. The Peppol
// SML stopped publishing these names on 2025-11-01; this helper exists only for callers
// that explicitly ask for the legacy name, and is never used as a fallback.
func LegacyCNAMEName(id peppol.ParticipantID, zone string) string {
	return inZone(legacyCNAMELabel(id.String()), zone)
}

// legacyCNAMELabel is the raw-value form of LegacyCNAMEName, for the same reason as naptrLabel.
func legacyCNAMELabel(value string) string {
	sum := md5.Sum([]byte(strings.ToLower(value)))
	return "b-" + hex.EncodeToString(sum[:])
}

// normalizeZone lower-cases zone and drops one trailing dot, so that "Zone." and "zone"
// give the same names.
func normalizeZone(zone string) string {
	return strings.ToLower(strings.TrimSuffix(zone, "."))
}
