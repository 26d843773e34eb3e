package tools

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestVerdictTextMixed: the verdict's sentence names as unknown only the kinds whose
// endpoints could not be read, and says the endpoint's SMP answer is not validly signed
// only when no verified access point is shown.
func TestVerdictTextMixed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		v         registry.Verdict
		want, not []string
	}{
		{name: "credit note unknown", v: registry.Verdict{Reach: registry.Unknown, AccessPoint: "https://ap.example/as4", Kinds: []registry.KindVerdict{
			{Kind: "Invoice", Listed: true, Receives: true},
			{Kind: "Credit Note", Listed: true, Unknown: true},
		}}, want: []string{"the endpoints of Credit Note could not be read"}, not: []string{"Invoice and Credit Note, but their"}},
		{name: "both unknown", v: registry.Verdict{Reach: registry.Unknown, Kinds: []registry.KindVerdict{
			{Kind: "Invoice", Listed: true, Unknown: true},
			{Kind: "Credit Note", Listed: true, Unknown: true},
		}}, want: []string{"the endpoints of Invoice and Credit Note could not be read"}},
		{name: "credit note unsigned, invoice verified", v: registry.Verdict{Reach: registry.Blocked, AccessPoint: "https://ap.example/as4",
			Blocked: []string{registry.WarnSMPSignatureInvalid}, Kinds: []registry.KindVerdict{
				{Kind: "Invoice", Listed: true, Receives: true},
				{Kind: "Credit Note", Listed: true, Blocked: []string{registry.WarnSMPSignatureInvalid}},
			}}, not: []string{"not validly signed: that URL"}},
		{name: "unsigned, no access point", v: registry.Verdict{Reach: registry.Blocked,
			Blocked: []string{registry.WarnSMPSignatureInvalid}, Kinds: []registry.KindVerdict{
				{Kind: "Invoice", Listed: true, Blocked: []string{registry.WarnSMPSignatureInvalid}},
			}}, want: []string{"not validly signed: that URL is not its verified access point"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := verdictText(&tt.v)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q does not say %q", got, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("%q says %q", got, n)
				}
			}
		})
	}
}
