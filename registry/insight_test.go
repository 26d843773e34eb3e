package registry

// insightCodes are the warning codes of the checks in insight.go: they depend on the
// data's dates and contents rather than on upstream behaviour.
var insightCodes = map[string]bool{
	WarnCertificateExpired: true, WarnCertificateExpiring: true, WarnCertificateNotPeppol: true,
	WarnServiceNotYetActive: true, WarnServiceExpired: true,
	WarnEndpointNotHTTPS: true, WarnEndpointPort: true,
	WarnTransportProfileDeprecated: true, WarnTransportProfileRemoved: true, WarnTransportProfileUnknown: true,
	WarnDocumentTypeDeprecated: true, WarnDocumentTypeRemoved: true, WarnDocumentTypeNonStandard: true,
	WarnDirectoryCardMissing: true, WarnDirectoryDocTypesMismatch: true,
}

// withoutInsight returns ws without the insight warnings, for tests about upstream
// behaviour that must not depend on the dataset's certificate dates.
func withoutInsight(ws []Warning) []Warning {
	var out []Warning
	for _, w := range ws {
		if !insightCodes[w.Code] {
			out = append(out, w)
		}
	}
	return out
}
