package registry

import (
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
)

// TestWarningDocs: every warning code is documented once, with a meaning.
func TestWarningDocs(t *testing.T) {
	t.Parallel()
	codes := []string{WarnDirectoryUnavailable, WarnSMPNotFound, WarnEndpointUnavailable, WarnEndpointNotFound,
		WarnSMLNoSMPService, WarnIdentifier, WarnCertificateExpired, WarnCertificateExpiring, WarnCertificateNotPeppol,
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

// TestCachePolicy: a live registry reports the cache durations and Directory rate it
// was configured with, defaults where none was given.
func TestCachePolicy(t *testing.T) {
	l, err := NewLive(Config{Resolver: &sml.Resolver{}, SMP: &smp.Client{}, Directory: &directory.Client{}, PositiveTTL: 2 * time.Hour, DirectoryRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := CachePolicy{Found: 2 * time.Hour, NotFound: DefaultNegativeTTL, Search: DefaultSearchTTL, Stale: DefaultStaleFor, DirectoryRate: 100}
	if got := l.CachePolicy(); got != want {
		t.Errorf("CachePolicy() = %+v, want %+v", got, want)
	}
}
