package nlq

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestAskCheck asks about lists of identifiers in the six languages through the rule
// planner and the real registry over netsim: one check_participants call, a summary
// count and a verdict line per identifier in the question's language, an item per
// participant found, once.
func TestAskCheck(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian)
	tests := []struct {
		q, lang string
		want    []string
		items   int
	}{
		{"Can these receive invoices: " + netsim.KnownCertValid + ", BE 0677.424.046, 0208:0000000097?", "en",
			[]string{"1 of 3 can receive invoices over Peppol.", "\n- " + netsim.KnownCertValid + ": yes, as " + netsim.KnownCertValid + " (“" + n.Name(netsim.KnownCertValid) + "”, BE)",
				"\n- BE 0677.424.046: not right now: on Peppol as 0208:0677424046 (“" + be + "”, BE), but sending to it fails (certificate_expired, service_expired)",
				"\n- 0208:0000000097: no, not on Peppol"}, 2},
		{"Which of these are on Peppol?\n" + netsim.KnownBelgian + "\n" + netsim.KnownNorwegian + "\n" + netsim.KnownDirectoryOnly, "en",
			[]string{"2 of 3 are on Peppol.", "\n- " + netsim.KnownDirectoryOnly + ": no, not on Peppol"}, 2},
		{"Can " + netsim.KnownBelgian + " and " + netsim.KnownNorwegian + " receive orders?", "en",
			[]string{"0 of 2 can receive orders over Peppol.", ": no: on Peppol as 0208:0677424046 (“" + be + "”, BE), but it does not receive orders"}, 2},
		{"Est-ce que ces entreprises peuvent recevoir des factures : 0208:0677424046, 0208:0000000097 ?", "fr",
			[]string{"0 sur 2 peuvent recevoir des factures via Peppol.", "\n- 0208:0677424046 : pas pour l'instant : sur Peppol en tant que 0208:0677424046 (“" + be, "\n- 0208:0000000097 : non, pas sur Peppol"}, 1},
		{"Können diese Firmen Rechnungen empfangen: 0208:0677424046, 0208:0000000097?", "de",
			[]string{"0 von 2 können Rechnungen über Peppol empfangen.", ": derzeit nicht: auf Peppol als 0208:0677424046 (“" + be, ": nein, nicht bei Peppol"}, 1},
		{"Welke van deze staan op Peppol: 0208:0677424046; 0208:0000000097", "nl",
			[]string{"1 van de 2 staan op Peppol.", ": ja, als 0208:0677424046 (“" + be, ": nee, niet op Peppol"}, 1},
		{"Kan disse motta fakturaer: 0208:0677424046, 0208:0000000097?", "no",
			[]string{"0 av 2 kan motta fakturaer via Peppol.", ": ikke akkurat nå: på Peppol som 0208:0677424046 (“" + be, ": nei, ikke på Peppol"}, 1},
		{"Vilka av dessa finns på Peppol: 0208:0677424046; 0208:0000000097", "sv",
			[]string{"1 av 2 finns på Peppol.", ": ja, som 0208:0677424046 (“" + be, ": nej, inte på Peppol"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.q, func(t *testing.T) {
			t.Parallel()
			var rec recorder
			a, err := e.Ask(t.Context(), tt.q, &rec)
			if err != nil {
				t.Fatal(err)
			}
			if a.Intent != IntentCheck || a.Meta.Language != tt.lang || len(a.Calls) != 1 || a.Calls[0].Tool != ruleToolCheck {
				t.Fatalf("intent %s language %s calls %v", a.Intent, a.Meta.Language, a.Calls)
			}
			for _, w := range tt.want {
				if !strings.Contains(a.Answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, a.Answer)
				}
			}
			rows, _ := a.Calls[0].Arguments["rows"].([]any)
			if got := strings.Count(a.Answer, "\n- "); got != len(rows) {
				t.Errorf("%d verdict lines for %d rows:\n%s", got, len(rows), a.Answer)
			}
			if len(a.Results) != tt.items || len(rec.result) != tt.items || rec.done.TotalItems != tt.items || rec.done.Answer != a.Answer {
				t.Errorf("%d items, %d result events, complete %+v; want %d", len(a.Results), len(rec.result), rec.done, tt.items)
			}
			for _, it := range a.Results {
				if it.Identifier == "" || !strings.HasSuffix(it.URL, "/api/v1/participant/"+it.Identifier) {
					t.Errorf("item %+v", it)
				}
			}
		})
	}
}

// TestAskCheckFailures: a row whose SMP fails is a failed call of its own and a line
// saying it could not be checked, while the other rows are answered; when every row
// fails, the question fails with ask_failed.
func TestAskCheckFailures(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	failing := n.DS.MustLookup(netsim.KnownNorwegian)
	if failing.SMPHost == n.DS.MustLookup(netsim.KnownBelgian).SMPHost {
		t.Fatal("the Belgian and the Norwegian participant share an SMP host; the test needs two")
	}
	n.Net.SetFault(netsim.SMPHostTarget(failing.SMPHost), netsim.Fault{HTTPStatus: http.StatusInternalServerError})
	e := newEngine(t, n, RulePlanner{})

	a, err := e.Ask(t.Context(), "Are these on Peppol: "+netsim.KnownBelgian+", "+netsim.KnownNorwegian+"?", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"1 of 2 are on Peppol. 1 could not be checked just now; asking again later may help.",
		"\n- " + netsim.KnownNorwegian + ": could not be checked just now"} {
		if !strings.Contains(a.Answer, w) {
			t.Errorf("answer lacks %q:\n%s", w, a.Answer)
		}
	}
	if len(a.Failed) != 1 || a.Failed[0].Code != registry.CodeLookupFailed || a.Failed[0].Tool != ruleToolCheck {
		t.Errorf("failed %+v", a.Failed)
	}

	_, err = e.Ask(t.Context(), "Are these on Peppol: "+netsim.KnownNorwegian+", "+netsim.KnownNorwegian+"?", nil)
	var re *registry.Error
	if !errors.As(err, &re) || re.Code != CodeAskFailed {
		t.Errorf("every row failed: %v, want %s", err, CodeAskFailed)
	}
}
