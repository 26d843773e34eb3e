package peppolnet

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// A found participant whose identifier the code list objects to carries the objection
// as an "identifier" warning; a clean one carries none.
func TestMergeIdentifierWarnings(t *testing.T) {
	t.Parallel()
	l := &Registry{cfg: Config{PositiveTTL: registry.DefaultPositiveTTL, WarningTTL: DefaultWarningTTL}}
	tests := []struct {
		id   string
		want string // substring of the warning, "" for none
	}{
		{"0208:0677424046", ""},
		{"0208:0999999999", "check-digit"},
		{"9956:0677424046", "removed on 2023-12-31; use 0208"},
		{"0193:abcd", "deprecated"},
		{"1234:abc", "not in the Peppol participant identifier scheme code list"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			id, err := peppol.ParseParticipantID(tt.id)
			if err != nil {
				t.Fatal(err)
			}
			res := l.merge(id, smpOutcome{rec: &registry.SMPRecord{}}, dirOutcome{})
			if res.p == nil {
				t.Fatalf("merge gave no participant: %v", res.err)
			}
			var got []string
			for _, w := range res.p.Warnings {
				if w.Code == registry.WarnIdentifier {
					got = append(got, w.Message)
				}
			}
			if tt.want == "" {
				if len(got) != 0 {
					t.Errorf("warnings %q, want none", got)
				}
				return
			}
			if !strings.Contains(strings.ToLower(strings.Join(got, " | ")), strings.ToLower(tt.want)) {
				t.Errorf("warnings %q, want one containing %q", got, tt.want)
			}
		})
	}
}
