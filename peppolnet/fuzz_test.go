package peppolnet

import (
	"testing"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// FuzzPlanSearch checks that any query yields at most maxExactCandidates distinct,
// valid participant ids and, for a number, a free text the Directory accepts.
func FuzzPlanSearch(f *testing.F) {
	for _, s := range []string{"BE 0677.424.046", "0208:0677424046 and 9915:x", "KvK 54441587", "", "::", "9915:" + string(rune(0x130))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := planSearch(q)
		got := p.candidates
		if p.numberOnly && len(p.freeText) < registry.MinQueryLength {
			t.Fatalf("number query %q gives free text %q", q, p.freeText)
		}
		if len(got) > maxExactCandidates {
			t.Fatalf("%d candidates", len(got))
		}
		seen := map[peppol.ParticipantID]bool{}
		for _, id := range got {
			if seen[id] {
				t.Fatalf("duplicate %v", id)
			}
			seen[id] = true
			if back, err := peppol.ParseParticipantID(id.String()); err != nil || back != id {
				t.Fatalf("candidate %v does not round-trip: %v", id, err)
			}
		}
	})
}
