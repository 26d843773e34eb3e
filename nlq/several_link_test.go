package nlq

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
)

// severalLinkCases are questions naming several companies, or one name written with
// "and", over TestLinkQuestions' dataset: ids are the participants the answer may name
// (nil: none, every name is made up); several whether it answers company by company.
var severalLinkCases = []struct {
	q       string
	ids     []string
	several bool
}{
	// A made-up company beside a real one is not found, not answered with the other's
	// result nor with an unrelated company's found by a few of its letters.
	{q: "Can Qqzx Fiskeri AS and Vestland & Dahl SA receive invoices?", ids: []string{"0192:823446772"}, several: true},
	{q: "Compare Vestland & Dahl SA and Qqzx Fiskeri AS", ids: []string{"0192:823446772"}, several: true},
	{q: "Compare Vestland & Dahl SA, Hågensen & Dahl ASA and Qqzx Fiskeri AS", ids: []string{"0192:823446772", "0192:999170730"}, several: true},
	{q: "Kan Hågensen & Dahl ASA og Brekkestø Trelast AS motta faktura?", ids: []string{"0192:999170730"}, several: true},
	// A participant id no one has beside a made-up name: two things asked, each answered.
	{q: "Can Qqzx Fiskeri AS and 0192:999999999 receive invoices?", several: true},
	// One made-up name with "and" in it is one company not found, not two bogus ones.
	{q: "Is Fjordlys Bakeri and Sons on Peppol?"},
	{q: "Kan Brekkestø Trelast og Sønner motta faktura?"},
	// One real name written with "and" for its "&", and another legal form: one company.
	{q: "Is Vestland and Dahl AS on Peppol?", ids: []string{"0192:823446772"}},
	// Five made-up companies: still one budget, and (none found) one name not found.
	{q: "Can Qqzx Fiskeri AS, Zzqy Bakeri AS, Xxqv Trelast AS, Vvqz Rør AS and Wwqx Foto AS receive invoices?"},
}

// TestAskSeveralLinked: linking runs per company of a question naming several, a name
// that matches nothing is not found, and the whole is first tried as one name with the
// linking's matching (legal forms, transliterations, typos).
func TestAskSeveralLinked(t *testing.T) {
	t.Parallel()
	cfg := netsim.DatasetConfig{Seed: 5, Participants: 200, Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
	nets := []struct {
		name string
		n    *livenet.Net
	}{
		{"mirror", livenet.StartWithMirror(t, cfg)},
		{"directory", livenet.Start(t, cfg)},
	}
	for _, nt := range nets {
		e := newEngine(t, nt.n, RulePlanner{})
		for _, c := range severalLinkCases {
			t.Run(nt.name+"/"+c.q, func(t *testing.T) {
				a, err := e.Ask(t.Context(), c.q, nil)
				if err != nil {
					t.Fatal(err)
				}
				if nt.name == "directory" {
					// One budget for the whole question (docs/INTERFACE.md §4.3).
					n := len(RulePlanner{}.Plan(c.q).Subjects)
					if searches, most := countSearches(a.Calls), questionSearches(n); searches > most {
						t.Errorf("%d live Directory searches for %d companies, at most %d: %v", searches, n, most, a.Calls)
					}
				}
				ids := itemIDs(a.Results)
				for _, id := range ids {
					if !slices.Contains(c.ids, id) {
						t.Errorf("result %s, want only %v:\n%s", id, c.ids, a.Answer)
					}
				}
				for _, id := range c.ids {
					if !strings.Contains(a.Answer, id) {
						t.Errorf("the answer does not name %s:\n%s", id, a.Answer)
					}
				}
				if got := a.Answer != "" && strings.Contains(a.Answer, strings.SplitN(phrasesOf(tongueOf(a.Meta.Language)).several, "%", 2)[0]); got != c.several {
					t.Errorf("answered company by company: %v, want %v:\n%s", got, c.several, a.Answer)
				}
			})
		}
	}
}
