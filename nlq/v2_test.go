package nlq

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// TestAskV2 asks questions of the new kinds through the rule planner and the real
// registry over netsim, and checks the answer, its language and its items.
func TestAskV2(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian)
	tests := []struct {
		name, q, lang string
		wantIntent    Intent
		wantIn        []string
		check         func(t *testing.T, a *Answer)
	}{
		{name: "certificate by id (English)", q: "When does the access point certificate of " + netsim.KnownCertExpiring + " expire?", lang: "en",
			wantIntent: IntentCertificate, wantIn: []string{"The access point certificate of ", "is valid until 2026-03-1", "days from now"}},
		{name: "expired certificate (French)", q: "Le certificat de " + netsim.KnownCertExpired + " est-il encore valide ?", lang: "fr",
			wantIntent: IntentCertificate, wantIn: []string{"Pas pour l'instant", "15/02/2026"}},
		{name: "document types (German)", q: "Welche Dokumenttypen unterstützt " + netsim.KnownBelgian + "?", lang: "de",
			wantIntent: IntentDocumentTypes, wantIn: []string{"Peppol BIS Billing UBL Invoice V3"},
			check: func(t *testing.T, a *Answer) {
				if len(a.Results) != 1 || a.Results[0].Peppol == nil || len(a.Results[0].Peppol.Documents) == 0 {
					t.Errorf("results %+v", a.Results)
				}
			}},
		{name: "which SMP (Norwegian)", q: "Hvilken SMP bruker " + netsim.KnownBelgian + "?", lang: "no",
			wantIntent: IntentAccessPoint, wantIn: []string{"SMP-en er ", "utstedt til "}},
		{name: "id with a space (Dutch)", q: "Wie is " + strings.Replace(netsim.KnownBelgian, ":", " ", 1) + "?", lang: "nl",
			wantIntent: IntentLookup, wantIn: []string{netsim.KnownBelgian, "geregistreerd"}},
		{name: "not right now (Swedish)", q: "Kan " + netsim.KnownCertExpired + " ta emot kreditfakturor?", lang: "sv",
			wantIntent: IntentCanReceive, wantIn: []string{"Inte just nu: "}},
		{name: "exact name first", q: "peppol lookup: " + be, lang: "en",
			wantIntent: IntentLookup, check: func(t *testing.T, a *Answer) {
				if len(a.Results) == 0 || a.Results[0].Name != be {
					t.Errorf("first result %+v, want %q", a.Results, be)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := e.Ask(t.Context(), tt.q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Intent != tt.wantIntent || a.Meta.Language != tt.lang {
				t.Errorf("intent %s language %s; want %s %s", a.Intent, a.Meta.Language, tt.wantIntent, tt.lang)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(a.Answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, a.Answer)
				}
			}
			if tt.check != nil {
				tt.check(t, a)
			}
		})
	}
}

// TestAskTypo finds a name typed with a letter missing by relaxing the search, says
// the match is approximate and ranks the closest name first.
func TestAskTypo(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian) // "Vandelanotte Installaties NV"
	words := strings.Fields(be)
	typo := strings.Replace(be, words[0], words[0][:len(words[0])-2]+words[0][len(words[0])-1:], 1) // one letter dropped
	a, err := e.Ask(t.Context(), "find "+typo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Approximate || len(a.Results) == 0 || a.Results[0].Name != be || !strings.Contains(a.Answer, "approximate") || len(a.Calls) < 2 {
		t.Errorf("typo %q: approximate %v, calls %v, results %+v, answer %s", typo, a.Approximate, a.Calls, a.Results, a.Answer)
	}
}

// TestAskPartialFailure: one participant's DNS answers SERVFAIL; the answer still
// says what the Directory found and which lookup could not be made, in JSON and in
// the stream, instead of failing as a whole.
func TestAskPartialFailure(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian)
	id, err := peppol.ParseParticipantID(netsim.KnownBelgian)
	if err != nil {
		t.Fatal(err)
	}
	n.Net.SetFault(netsim.ParticipantTarget(id), netsim.Fault{DNS: netsim.DNSServFail})
	defer n.Net.ClearFaults()
	for _, stream := range []bool{false, true} {
		var ev *recorder
		var evs Events
		if stream {
			ev = &recorder{}
			evs = ev
		}
		a, err := e.Ask(t.Context(), "Is "+be+" on Peppol?", evs)
		if err != nil {
			t.Fatalf("stream %v: %v, want an answer", stream, err)
		}
		if len(a.Failed) == 0 || a.Failed[0].Code != registry.CodeLookupFailed || !strings.Contains(a.Answer, "Not checked: ") ||
			!strings.Contains(a.Answer, netsim.KnownBelgian) || len(a.Results) == 0 {
			t.Errorf("stream %v: failed %+v, answer %s", stream, a.Failed, a.Answer)
		}
		if stream {
			failedEvent := false
			for _, r := range ev.result {
				if r.Failed != nil && r.Failed.Code == registry.CodeLookupFailed {
					failedEvent = true
				}
			}
			if !failedEvent || ev.done.Error != nil || len(ev.done.Failed) == 0 {
				t.Errorf("stream: results %+v, complete %+v", ev.result, ev.done)
			}
		}
	}
}

// TestAskLookupFailedServicesAnswered: the Directory fails (500), so the lookup of an
// id fails as a whole; its services call still says the SML does not know it, and
// that is the answer: "No", not ask_failed, with the business card left unchecked.
func TestAskLookupFailedServicesAnswered(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	n.Net.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	defer n.Net.ClearFaults()
	a, err := e.Ask(t.Context(), "Can 0208:0000000097 receive invoices?", nil)
	if err != nil {
		t.Fatalf("%v, want an answer", err)
	}
	if !strings.HasPrefix(a.Answer, "No: 0208:0000000097 is not registered in the SML") || !strings.Contains(a.Answer, "Not checked: business card") ||
		len(a.Failed) != 1 || a.Failed[0].Tool != "lookup_participant" {
		t.Errorf("answer %q, failed %+v", a.Answer, a.Failed)
	}
}
