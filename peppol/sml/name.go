// Package sml resolves a Peppol participant to the base URL of its SMP through the
// Service Metadata Locator: a DNS U-NAPTR lookup (Peppol SML 1.3.0, BDXL).
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
	sum := sha256.Sum256([]byte(strings.ToLower(id.String())))
	label := strings.ToLower(base32NoPad.EncodeToString(sum[:]))
	return label + "." + peppol.ParticipantScheme + "." + strings.ToLower(strings.TrimSuffix(zone, "."))
}

// LegacyCNAMEName returns the host name of the pre-2025 CNAME scheme:
// "b-" + hex(md5(lower("<icd>:<value>"))) + ".iso6523-actorid-upis." + zone. The Peppol
// SML stopped publishing these names on 2025-11-01; this helper exists only for callers
// that explicitly ask for the legacy name, and is never used as a fallback.
func LegacyCNAMEName(id peppol.ParticipantID, zone string) string {
	sum := md5.Sum([]byte(strings.ToLower(id.String())))
	return "b-" + hex.EncodeToString(sum[:]) + "." + peppol.ParticipantScheme + "." + strings.ToLower(strings.TrimSuffix(zone, "."))
}
