package registry

import (
	"strconv"
	"time"
)

// WarningDoc documents a warning code: what it tells a caller.
type WarningDoc struct {
	// Code is the warning's machine code, e.g. certificate_expired.
	Code string
	// Meaning says what the warning means for a caller.
	Meaning string
}

// WarningDocs returns every warning code a lookup, a services listing or a search may
// carry, with its meaning, in a fixed order. The README's warning table is generated
// from it.
func WarningDocs() []WarningDoc {
	return []WarningDoc{
		{WarnCertificateExpired, "an endpoint's access point certificate has expired: senders refuse it"},
		{WarnCertificateExpiring, "an endpoint's certificate expires within " + strconv.Itoa(int(ExpiringWithin/(24*time.Hour))) + " days"},
		{WarnCertificateChainInvalid, "an endpoint's certificate does not chain to the OpenPeppol access point CA of the network asked: senders refuse it"},
		{WarnSMPSignatureInvalid, "the SMP answer's signature does not verify, cannot be verified, or its signer's certificate was not valid: senders refuse the answer"},
		{WarnSMPSignatureMissing, "the SMP answer is not signed: senders refuse it"},
		{WarnSMPCertificateNotPeppol, "the SMP signed with a certificate that does not chain to the OpenPeppol SMP CA of the network asked"},
		{WarnCertificateRevoked, "an endpoint's certificate is revoked, its CA's OCSP responder says: senders refuse it"},
		{WarnCertificateRevocationUnknown, "whether an endpoint's certificate is revoked is unknown: its CA's OCSP responder could not be asked or does not know it"},
		{WarnSignatureAlgorithmWeak, "the SMP signature or a certificate chain uses SHA-1, no longer considered safe"},
		{WarnServiceNotYetActive, "an endpoint's activation date is in the future"},
		{WarnServiceExpired, "an endpoint's expiration date has passed"},
		{WarnEndpointNotHTTPS, "an endpoint address is not an https URL"},
		{WarnEndpointPort, "an endpoint address names a port other than 443"},
		{WarnTransportProfileDeprecated, "an endpoint's transport profile is deprecated in the Peppol code list"},
		{WarnTransportProfileRemoved, "an endpoint's transport profile has been removed from the Peppol code list (e.g. AS2): no access point sends over it"},
		{WarnTransportProfileUnknown, "an endpoint's transport profile is not in the Peppol code list"},
		{WarnDocumentTypeDeprecated, "a document type is deprecated in the Peppol code list"},
		{WarnDocumentTypeRemoved, "a document type has been removed from the Peppol code list"},
		{WarnDocumentTypeNonStandard, "a document type is not in the Peppol code list"},
		{WarnEndpointUnavailable, "a ServiceMetadata could not be fetched, so an endpoint may be missing"},
		{WarnEndpointNotFound, "the SMP lists a document type whose ServiceMetadata it answers 404 for"},
		{WarnSMPNotFound, "the SML points to an SMP that does not know the participant: it cannot receive until its registration is fixed"},
		{WarnSMLNoSMPService, "the SML has records for the participant but none points to a usable SMP"},
		{WarnDirectoryUnavailable, "the Peppol Directory could not be asked, so the business card may be missing"},
		{WarnDirectoryCardMissing, "the SML and SMP know the participant but the Directory has no business card for it"},
		{WarnDirectoryDocTypesMismatch, "the Directory card's document types differ from those the SMP lists"},
		{WarnIdentifier, "the identifier's scheme is unknown, removed or deprecated, its value does not fit the scheme's syntax, or its check digit fails"},
		{WarnMirrorUnavailable, "a Directory mirror is configured but could not answer; the live Directory did"},
		{WarnMirrorStale, "the Directory mirror's data is old: the live Directory answered, or, when it failed, the mirror with the age of its data"},
	}
}

// Warning codes a lookup may attach to a Participant.
const (
	// WarnDirectoryUnavailable: the Directory could not be asked, so Directory is nil
	// although the participant may have a card.
	WarnDirectoryUnavailable = "directory_unavailable"
	// WarnSMPNotFound: the SML points to an SMP that answers 404 for the participant.
	WarnSMPNotFound = "smp_not_found"
	// WarnEndpointUnavailable: the ServiceMetadata could not be fetched, so
	// SMP.Endpoint is nil although the participant may have one.
	WarnEndpointUnavailable = "endpoint_unavailable"
	// WarnEndpointNotFound: the SMP lists a document type whose ServiceMetadata it
	// answers 404 for.
	WarnEndpointNotFound = "endpoint_not_found"
	// WarnSMLNoSMPService: the SML has NAPTR records for the participant but none points
	// to a usable SMP, so SMP is nil; only given when the Directory has a card.
	WarnSMLNoSMPService = "sml_no_smp_service"
	// WarnIdentifier: the identifier's scheme is unknown, removed or deprecated in the
	// Peppol code list, its value does not fit the scheme's syntax, or its check digit
	// fails. The message says which, and what to use instead when the list says.
	WarnIdentifier = "identifier"

	// WarnCertificateExpired: an endpoint's access point certificate has expired.
	WarnCertificateExpired = "certificate_expired"
	// WarnCertificateExpiring: an endpoint's certificate expires within 30 days.
	WarnCertificateExpiring = "certificate_expiring"
	// WarnCertificateChainInvalid: an endpoint's certificate does not chain to the
	// OpenPeppol access point CA of the network asked (another CA, or the other
	// network's).
	WarnCertificateChainInvalid = "certificate_chain_invalid"
	// WarnSMPSignatureInvalid: the SMP answer's signature does not verify (the answer
	// was changed after signing, or signed with another key), cannot be verified, or its
	// signer's certificate was not valid at the time.
	WarnSMPSignatureInvalid = "smp_signature_invalid"
	// WarnSMPSignatureMissing: the SMP answer is not signed.
	WarnSMPSignatureMissing = "smp_signature_missing"
	// WarnSMPCertificateNotPeppol: the SMP signed with a certificate that does not
	// chain to the OpenPeppol SMP CA of the network asked.
	WarnSMPCertificateNotPeppol = "smp_certificate_not_peppol"
	// WarnCertificateRevoked: an endpoint's certificate is revoked, its CA's OCSP
	// responder says.
	WarnCertificateRevoked = "certificate_revoked"
	// WarnCertificateRevocationUnknown: the OCSP responder of an endpoint
	// certificate's CA could not be asked, or does not know the certificate.
	WarnCertificateRevocationUnknown = "certificate_revocation_unknown"
	// WarnSignatureAlgorithmWeak: the SMP signature, or a certificate chain, uses SHA-1.
	WarnSignatureAlgorithmWeak = "signature_algorithm_weak"
	// WarnServiceNotYetActive: an endpoint's activation date is in the future.
	WarnServiceNotYetActive = "service_not_yet_active"
	// WarnServiceExpired: an endpoint's expiration date has passed.
	WarnServiceExpired = "service_expired"
	// WarnEndpointNotHTTPS: an endpoint address is not an https URL.
	WarnEndpointNotHTTPS = "endpoint_not_https"
	// WarnEndpointPort: an endpoint address names a port other than 443.
	WarnEndpointPort = "endpoint_port"
	// WarnTransportProfileDeprecated: an endpoint's transport profile is deprecated in
	// the Peppol code list.
	WarnTransportProfileDeprecated = "transport_profile_deprecated"
	// WarnTransportProfileRemoved: an endpoint's transport profile has been removed from
	// the Peppol code list (e.g. AS2).
	WarnTransportProfileRemoved = "transport_profile_removed"
	// WarnTransportProfileUnknown: an endpoint's transport profile is not in the Peppol
	// code list.
	WarnTransportProfileUnknown = "transport_profile_unknown"
	// WarnDocumentTypeDeprecated: a document type is deprecated in the Peppol code list.
	WarnDocumentTypeDeprecated = "document_type_deprecated"
	// WarnDocumentTypeRemoved: a document type has been removed from the Peppol code list.
	WarnDocumentTypeRemoved = "document_type_removed"
	// WarnDocumentTypeNonStandard: a document type is not in the Peppol code list.
	WarnDocumentTypeNonStandard = "document_type_nonstandard"
	// WarnDirectoryCardMissing: the SML and SMP know the participant but the Directory
	// has no business card for it (lookups only).
	WarnDirectoryCardMissing = "directory_card_missing"
	// WarnDirectoryDocTypesMismatch: the Directory card's document types differ from
	// those of the SMP's ServiceGroup (lookups only).
	WarnDirectoryDocTypesMismatch = "directory_doctypes_mismatch"
)

// Warning codes of answers the mirror could not give as usual.
const (
	// WarnMirrorUnavailable: the mirror holds no data or could not be read; the live
	// Directory answered.
	WarnMirrorUnavailable = "mirror_unavailable"
	// WarnMirrorStale: the mirror's data is older than peppolnet.Config.MirrorMaxAge. Either the
	// live Directory answered, or it failed and the stale mirror answered instead (then
	// the message says how old the data is); data older than peppolnet.Config.MirrorHardMaxAge is
	// never used.
	WarnMirrorStale = "mirror_stale"
)

// ExpiringWithin is how close to its end a certificate's validity draws a
// WarnCertificateExpiring warning.
const ExpiringWithin = 30 * 24 * time.Hour

// Blocking reports whether a warning with code makes sending to the endpoint it is
// about fail right now: its certificate expired, revoked or not issued by the
// network's access point CA, its service not active yet or expired, its transport
// profile removed from the network, or the SMP answer it was read from not validly
// signed, or signed by a certificate not of the network's SMP CA (senders' access
// points refuse it), or the SMP lists the document type but answers 404 for its
// metadata (the participant cannot receive it).
func Blocking(code string) bool {
	switch code {
	case WarnCertificateExpired, WarnServiceNotYetActive, WarnServiceExpired, WarnTransportProfileRemoved,
		WarnCertificateChainInvalid, WarnSMPSignatureInvalid, WarnSMPSignatureMissing, WarnCertificateRevoked,
		WarnSMPCertificateNotPeppol, WarnEndpointNotFound:
		return true
	}
	return false
}
