package registry

import (
	"testing"
)

// TestWarningDocs: every warning code is documented once, with a meaning.
func TestWarningDocs(t *testing.T) {
	t.Parallel()
	codes := []string{WarnDirectoryUnavailable, WarnSMPNotFound, WarnEndpointUnavailable, WarnEndpointNotFound,
		WarnSMLNoSMPService, WarnIdentifier, WarnCertificateExpired, WarnCertificateExpiring, WarnCertificateChainInvalid,
		WarnSMPSignatureInvalid, WarnSMPSignatureMissing, WarnSMPCertificateNotPeppol, WarnSignatureAlgorithmWeak,
		WarnCertificateRevoked, WarnCertificateRevocationUnknown,
		WarnServiceNotYetActive, WarnServiceExpired, WarnEndpointNotHTTPS, WarnEndpointPort, WarnTransportProfileDeprecated,
		WarnTransportProfileRemoved, WarnTransportProfileUnknown, WarnDocumentTypeDeprecated, WarnDocumentTypeRemoved,
		WarnDocumentTypeNonStandard, WarnDirectoryCardMissing, WarnDirectoryDocTypesMismatch, WarnMirrorUnavailable, WarnMirrorStale}
	seen := map[string]int{}
	for _, d := range WarningDocs() {
		seen[d.Code]++
		if d.Meaning == "" {
			t.Errorf("%s has no meaning", d.Code)
		}
	}
	for _, c := range codes {
		if seen[c] != 1 {
			t.Errorf("%s is documented %d times", c, seen[c])
		}
	}
	if len(seen) != len(codes) {
		t.Errorf("%d codes documented, %d defined", len(seen), len(codes))
	}
}
