package nlq

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestPlanSeveralCompaniesReview: the review of issue 29's first round found
// companies dropped from questions naming several (my own questions, not from the
// evaluation sets): an empty part between ", and", a name beside a national number,
// "either … or …", and the words for "or" of Spanish, Italian, Dutch, Finnish, Polish.
func TestPlanSeveralCompaniesReview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		q        string
		subjects []string
	}{
		{"Can Vandelanotte, Meijer Zorg, and Colombo Impianti receive invoices?", []string{"Vandelanotte", "Meijer Zorg", "Colombo Impianti"}},
		{"Are Nordic Paper Oy; or Malmö Foto on Peppol?", []string{"Nordic Paper Oy", "Malmö Foto"}},
		{"Can Meijer Zorg and NO 999 170 730 MVA receive invoices?", []string{"NO 999 170 730 MVA", "Meijer Zorg"}},
		{"Can NO 999 170 730 MVA and Meijer Zorg receive invoices?", []string{"NO 999 170 730 MVA", "Meijer Zorg"}},
		{"Can either Vandelanotte or Meijer Zorg receive invoices?", []string{"Vandelanotte", "Meijer Zorg"}},
		{"Kann entweder Schmidt Elektro oder Müller Logistik GmbH Rechnungen empfangen?", []string{"Schmidt Elektro", "Müller Logistik GmbH"}},
		{"¿Puede Talleres García o Frutas Martínez recibir facturas?", []string{"Talleres García", "Frutas Martínez"}},
		{"Può Rossi Srl o Bianchi Spa ricevere fatture?", []string{"Rossi Srl", "Bianchi Spa"}},
		{"Kan Bakker Transport of Van Dijk Bouw facturen ontvangen?", []string{"Bakker Transport", "Van Dijk Bouw"}},
		{"Voiko Lahden Puu Oy tai Nordic Paper Oy vastaanottaa laskuja?", []string{"Lahden Puu Oy", "Nordic Paper Oy"}},
		{"Czy Kowalski Sp. z o.o. lub Nowak SA mogą odbierać faktury?", []string{"Kowalski Sp. z o.o.", "Nowak SA"}},
		// Dutch "of" is also "whether": no company before it, no split.
		{"Weet iemand of Van Dijk Bouw op Peppol staat?", nil},
	}
	for _, c := range cases {
		p := RulePlanner{}.Plan(c.q)
		if !slices.Equal(p.Subjects, c.subjects) {
			t.Errorf("%q: subjects %q, want %q", c.q, strings.Join(p.Subjects, "|"), strings.Join(c.subjects, "|"))
		}
	}
}

// TestMatchNamePrefixIsApproximate: a last word typed as the start of the name's word
// ("Ashworth Electric" for "ASHWORTH ELECTRICAL LIMITED") is matched, but as an
// approximate reading the answer says ("I read …"), never as the name itself; the
// whole word still beats it.
func TestMatchNamePrefixIsApproximate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typed, name string
		ok, approx  bool
	}{
		{"Ashworth Electric", "ASHWORTH ELECTRICAL LIMITED", true, true},
		{"Ashworth Electrical", "ASHWORTH ELECTRICAL LIMITED", true, false},
		{"Ashworth Electrical Ltd", "ASHWORTH ELECTRICAL LIMITED", true, false},
		{"Nordic Pap", "Nordic Paper Oy", true, true},
	}
	for _, c := range cases {
		m := matchName(cutName(c.typed, true), c.name)
		if m.ok != c.ok || m.approximate() != c.approx {
			t.Errorf("%q ~ %q: ok %v approximate %v, want %v %v", c.typed, c.name, m.ok, m.approximate(), c.ok, c.approx)
		}
	}
	whole := matchName(cutName("Ashworth Electric", true), "Ashworth Electric Ltd")
	prefix := matchName(cutName("Ashworth Electric", true), "Ashworth Electrical Limited")
	if !whole.better(prefix) || prefix.better(whole) {
		t.Errorf("the whole word %+v does not beat the prefix %+v", whole, prefix)
	}
}

// TestIssuerSaysExpired: the issuer answer of an expired certificate says it expired
// (in every tongue, each in its own words), never "valid until" a past date.
func TestIssuerSaysExpired(t *testing.T) {
	t.Parallel()
	past := time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)
	cert := &registry.CertificateInfo{Certificate: registry.Certificate{NotAfter: past}, Expired: true, DaysRemaining: -30, PeppolCAName: "PEPPOL ACCESS POINT CA - G2"}
	svc := &registry.ServicesResult{Services: []registry.Service{{Processes: []registry.ProcessInfo{{Endpoints: []registry.EndpointInfo{{Certificate: cert}}}}}}}
	info := &PeppolInfo{Registered: true, SMPHost: "smp.example"}
	plan := Plan{Intent: IntentCertificate, Aspect: AspectIssuer}
	for _, tg := range tongues {
		k := phrasesOf(tg)
		if tg != &english && (tg.kp.certExpiredBy == "" || tg.kp.certExpiredBy == english.kp.certExpiredBy) {
			t.Errorf("%s: no phrase of its own for an expired certificate's issuer", tg.code)
		}
		got := aspectSentence(tg, plan, "Acme", &registry.Participant{}, svc, info)
		if got == fmt.Sprintf(k.certIssuer, "Acme", untrusted.Quote(cert.PeppolCAName), tg.date(past)) {
			t.Errorf("%s: an expired certificate said valid: %s", tg.code, got)
		}
		if !strings.Contains(got, tg.date(past)) || !strings.Contains(got, "PEPPOL ACCESS POINT CA") {
			t.Errorf("%s: %s", tg.code, got)
		}
	}
}

// TestTransportProfileQuoted: a transport profile the code list does not have is the
// SMP's text: quoted and capped as third-party text, never our words.
func TestTransportProfileQuoted(t *testing.T) {
	t.Parallel()
	raw := "peppol-x\u202e; it is safe to send here " + strings.Repeat("x", 300)
	info := &PeppolInfo{Registered: true, SMPHost: "smp.example", Endpoint: &EndpointInfo{URL: "https://ap.example/as4", TransportProfile: raw}}
	plan := Plan{Intent: IntentAccessPoint, Aspect: AspectTransport}
	got := aspectSentence(&english, plan, "Acme", &registry.Participant{}, nil, info)
	if strings.Contains(got, "\u202e") || strings.Contains(got, strings.Repeat("x", 200)) || !strings.Contains(got, "“") {
		t.Errorf("the SMP's transport profile not quoted and capped: %q", got)
	}
}

// TestReadAsQuotesAsLabels: "I read …" quotes what was typed as label() quotes names
// (untrusted.Quote), not with Go's %q escapes.
func TestReadAsQuotesAsLabels(t *testing.T) {
	t.Parallel()
	for _, tg := range tongues {
		for _, f := range []string{tg.readAs, tg.numberAs} {
			if strings.Contains(f, "q") && strings.Contains(f, "%[1]q") {
				t.Errorf("%s: %q quotes with Go's %%q", tg.code, f)
			}
		}
	}
}

// TestAskNumberSMLFailing: when the SML fails for every id a number reads as, the
// answer says the check failed and why (failed calls listed), not that no card
// matches (netsim: every DNS answer SERVFAIL).
func TestAskNumberSMLFailing(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	n.Net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	for _, q := range []string{"Can NO 987 654 321 MVA receive invoices?", "Kan NO 987 654 321 MVA motta faktura?"} {
		a := askOK(t, e, q)
		if len(a.Failed) == 0 || a.Failed[0].Cause != registry.CauseDNS || !strings.Contains(a.Answer, "SERVFAIL") {
			t.Errorf("%q: failed %+v, answer:\n%s", q, a.Failed, a.Answer)
		}
	}
}

// TestNotFoundNamesTheReading: a company not found is named as read from the
// question ("Qqzx Supplies Ltd"), not with the question's words around it.
func TestNotFoundNamesTheReading(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	for _, q := range []string{
		"What is the AS4 endpoint URL for sending invoices to Qqzx Supplies Ltd?",
		"URL for sending invoices to Qqzx Supplies Ltd",
	} {
		a := askOK(t, e, q)
		if strings.Contains(a.Answer, "sending invoices") || !strings.Contains(a.Answer, "Qqzx Supplies Ltd") {
			t.Errorf("%q: answer:\n%s", q, a.Answer)
		}
	}
}

// TestShortItalianQuestions: "è" (a word of its own, capitalised at the start or
// not) tells Italian in a short question, not Spanish.
func TestShortItalianQuestions(t *testing.T) {
	t.Parallel()
	cases := []struct{ q, lang string }{
		{"È Acme su Peppol?", LangItalian},
		{"è Acme su Peppol?", LangItalian},
		{"Acme è su Peppol?", LangItalian},
		{"È Ferramenta Bianchi registrata su Peppol?", LangItalian},
		{"¿Está Acme en Peppol?", LangSpanish},
		{"Acme está en Peppol?", LangSpanish},
	}
	for _, c := range cases {
		if got := (RulePlanner{}).Plan(c.q).Language; got != c.lang {
			t.Errorf("%q: language %s, want %s", c.q, got, c.lang)
		}
	}
}

// TestKindCountsAsWritten: the counts of issue 29's answers are written as each
// language writes numbers (tongue.number: "12 345", "12.345"), never as raw %d.
func TestKindCountsAsWritten(t *testing.T) {
	t.Parallel()
	for _, tg := range tongues {
		k := phrasesOf(tg)
		for _, f := range []string{k.stats, k.statsKind, k.statsCountry, k.statsKindWhole, k.listCountry, k.listOutside, k.listKind, k.listKindNone, k.several, k.severalCap} {
			if strings.Contains(f, "d") && (strings.Contains(f, "%d") || strings.Contains(f, "]d")) {
				t.Errorf("%s: %q writes a count with %%d", tg.code, f)
			}
		}
	}
}
