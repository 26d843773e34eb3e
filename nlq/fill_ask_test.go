package nlq

import (
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestAskElevenNewKinds asks the five new languages issue 29's kinds of questions end
// to end: who issued a certificate, a count of the whole network from the statistics
// (a mirror), what peppolgate cannot know, and a lookup an SMP answers with HTTP 500;
// each answer is in the asker's language, with its dates as that language writes them.
func TestAskElevenNewKinds(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	mirrored := startMirrored(t, n)
	st, err := registry.NetworkStats(t.Context(), mirrored, "")
	if err != nil || st.Participants == 0 {
		t.Fatalf("statistics %+v, %v; the test proves nothing", st, err)
	}
	me, err := New(Config{Registry: mirrored, Planner: RulePlanner{}, BaseURL: "https://peppolgate.test", Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	certID := netsim.KnownCertValid
	svc, _, err := n.Reg.Services(t.Context(), mustID(t, certID), "")
	if err != nil {
		t.Fatal(err)
	}
	c := firstExpiring(svc)
	if c == nil {
		t.Fatal("the dataset's participant with a valid certificate has none; the test proves nothing")
	}
	ca := c.PeppolCAName
	if ca == "" {
		ca = subjectOrganisation(c.Issuer)
	}
	total := strconv.Itoa(st.Participants) + " "
	for _, tt := range []struct {
		lang                   string
		issuer, count, outside string
		// what each answer says: the issuer's verb, the count's source, the refusal
		issued, counted, refused string
	}{
		{LangSpanish, "¿Quién emitió el certificado del punto de acceso de " + certID + "?",
			"¿Cuántos participantes hay en Peppol en total?", "¿Cuánto cuesta conectarse a Peppol?",
			"lo emitió", "El Directorio Peppol cuenta", "No puedo responder a eso"},
		{LangItalian, "Chi ha emesso il certificato del punto di accesso di " + certID + "?",
			"Quanti partecipanti ci sono su Peppol in totale?", "Quanto costa un punto di accesso Peppol?",
			"è stato emesso da", "Il Peppol Directory elenca", "Non posso rispondere"},
		{LangDanish, "Hvem har udstedt certifikatet for " + certID + "?",
			"Hvor mange deltagere er der i alt på Peppol?", "Hvad koster det at sende en faktura via Peppol?",
			"er udstedt af", "Peppol-kataloget har", "Det kan jeg ikke svare på"},
		{LangFinnish, "Kuka on myöntänyt osallistujan " + certID + " varmenteen?",
			"Montako osallistujaa Peppolissa on yhteensä?", "Paljonko Peppol-liityntäpiste maksaa?",
			"varmenteen on myöntänyt", "Peppol-hakemistossa on käyntikortti", "En voi vastata tähän"},
		{LangPolish, "Kto wystawił certyfikat podmiotu " + certID + "?",
			"Ilu uczestników jest łącznie w Peppol?", "Ile kosztuje punkt dostępowy Peppol?",
			"Wystawca certyfikatu", "Katalog Peppol – uczestnicy z wizytówką", "Na to nie mogę odpowiedzieć"},
	} {
		tg := tongueOf(tt.lang)
		a := askOK(t, e, tt.issuer)
		if a.Meta.Language != tt.lang || a.Intent != IntentCertificate || !strings.Contains(a.Answer, tt.issued) ||
			!strings.Contains(a.Answer, ca) || !strings.Contains(a.Answer, tg.date(c.NotAfter)) {
			t.Errorf("%q: language %s intent %s; want %q, %q and %s in:\n%s", tt.issuer, a.Meta.Language, a.Intent, tt.issued, ca, tg.date(c.NotAfter), a.Answer)
		}
		a = askOK(t, me, tt.count)
		if a.Meta.Language != tt.lang || a.Intent != IntentCount || len(a.Calls) != 1 || a.Calls[0].Tool != ruleToolStats ||
			!strings.Contains(a.Answer, tt.counted) || !strings.Contains(a.Answer, total) || !strings.Contains(a.Answer, tg.date(st.DataAsOf)) {
			t.Errorf("%q: language %s intent %s calls %v; want %q, %d and %s in:\n%s", tt.count, a.Meta.Language, a.Intent, a.Calls, tt.counted, st.Participants, tg.date(st.DataAsOf), a.Answer)
		}
		a = askOK(t, e, tt.outside)
		if a.Meta.Language != tt.lang || a.Intent != IntentOutOfScope || len(a.Calls) != 0 || !strings.HasPrefix(a.Answer, tt.refused) {
			t.Errorf("%q: language %s intent %s calls %v answer:\n%s", tt.outside, a.Meta.Language, a.Intent, a.Calls, a.Answer)
		}
	}
}

// TestAskElevenHonestCause: an SMP answering HTTP 500 is said to be one, in each new
// language, and never called a timeout.
func TestAskElevenHonestCause(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	id := mustID(t, netsim.KnownNorwegian)
	n.Net.SetFault(netsim.SMPHostTarget(n.DS.MustLookup(id.String()).SMPHost), netsim.Fault{HTTPStatus: 500})
	name := n.Name(netsim.KnownNorwegian)
	for _, tt := range []struct{ q, lang string }{
		{"¿Está " + name + " en Peppol?", LangSpanish},
		{name + " è su Peppol?", LangItalian},
		{"Er " + name + " registreret i Peppol?", LangDanish},
		{"Onko " + name + " Peppolissa?", LangFinnish},
		{"Czy " + name + " jest w Peppol?", LangPolish},
	} {
		a := askOK(t, e, tt.q)
		want := tongueOf(tt.lang).kp.causes[registry.CauseHTTPError]
		if a.Meta.Language != tt.lang || len(a.Failed) == 0 || a.Failed[0].Cause != registry.CauseHTTPError ||
			want == "" || !strings.Contains(a.Answer, want) || strings.Contains(a.Answer, tongueOf(tt.lang).kp.causes[registry.CauseTimeout]) {
			t.Errorf("%q: language %s failed %+v; want %q in:\n%s", tt.q, a.Meta.Language, a.Failed, want, a.Answer)
		}
	}
}
