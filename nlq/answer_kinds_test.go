package nlq

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// askOK asks q and fails the test on an error.
func askOK(t *testing.T, e *Engine, q string) *Answer {
	t.Helper()
	a, err := e.Ask(t.Context(), q, nil)
	if err != nil {
		t.Fatalf("%q: %v", q, err)
	}
	return a
}

func mustID(t *testing.T, s string) peppol.ParticipantID {
	t.Helper()
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAskParticipantFacts: the certificate's issuer (its CA), the SMP host, the
// transport profile and the registration date, asked in several languages, answered
// with the facts the registry itself gives (end to end over netsim).
func TestAskParticipantFacts(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	ctx := t.Context()
	certID := netsim.KnownCertValid
	svc, _, err := n.Reg.Services(ctx, mustID(t, certID), "")
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
	p, _, err := n.Reg.Lookup(ctx, mustID(t, netsim.KnownNorwegian))
	if err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
		t.Fatalf("lookup %v: %+v", err, p)
	}
	be, _, err := n.Reg.Lookup(ctx, mustID(t, netsim.KnownBelgian))
	if err != nil || be.Directory == nil || be.Directory.RegistrationDate == nil {
		t.Fatalf("the known Belgian has no card with a registration date (%v); the test proves nothing", err)
	}
	beName := n.Name(netsim.KnownBelgian)
	beDate, err := time.Parse(time.DateOnly, *be.Directory.RegistrationDate)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		q, lang string
		want    []string
	}{
		{"Who issued the access point certificate of " + certID + "?", LangEnglish, []string{ca, "issued by", c.NotAfter.UTC().Format(time.DateOnly)}},
		{"Qui a émis le certificat du point d'accès de " + certID + " ?", LangFrench, []string{ca, "émis par"}},
		{"Wer hat das Zertifikat von " + certID + " ausgestellt?", LangGerman, []string{ca, "ausgestellt"}},
		{"Which SMP is " + netsim.KnownNorwegian + " registered with?", LangEnglish, []string{p.SMP.Hostname}},
		{"Hvilken SMP er " + netsim.KnownNorwegian + " registrert hos?", LangNorwegian, []string{p.SMP.Hostname}},
		{"What transport profile does " + netsim.KnownNorwegian + " use, AS4 or AS2?", LangEnglish, []string{p.SMP.Endpoint.TransportProfile, "transport profile"}},
		{"Vilket transportprotokoll använder " + netsim.KnownNorwegian + "?", LangSwedish, []string{p.SMP.Endpoint.TransportProfile, "transportprofilen"}},
		{"When was " + beName + " registered on Peppol?", LangEnglish, []string{*be.Directory.RegistrationDate, "registered on"}},
		{"Sinds wanneer staat " + netsim.KnownBelgian + " op Peppol?", LangDutch, []string{dutch.date(beDate), "geregistreerd op"}},
	} {
		a := askOK(t, e, tt.q)
		if a.Meta.Language != tt.lang {
			t.Errorf("%q: language %s", tt.q, a.Meta.Language)
		}
		for _, w := range tt.want {
			if !strings.Contains(a.Answer, w) {
				t.Errorf("%q: answer lacks %q:\n%s", tt.q, w, a.Answer)
			}
		}
	}
}

// TestAskNetworkCounts: counts of the whole network and per document kind come from
// the statistics (a mirror), equal to them, with the date of the Directory export; a
// server without a mirror says it cannot count the whole network.
func TestAskNetworkCounts(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	mirrored := startMirrored(t, n)
	st, err := registry.NetworkStats(t.Context(), mirrored, "")
	if err != nil {
		t.Fatal(err)
	}
	kind := func(k string) int {
		for _, kc := range st.DocumentKinds {
			if kc.Kind == k {
				return kc.Count
			}
		}
		return 0
	}
	if st.Participants == 0 || kind("Order") == 0 || kind("Invoice") == 0 {
		t.Fatalf("statistics %+v; the test proves nothing", st)
	}
	e, err := New(Config{Registry: mirrored, Planner: RulePlanner{}, BaseURL: "https://peppolgate.test", Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		q    string
		want int
	}{
		{"How many participants are on Peppol?", st.Participants},
		{"Hoeveel deelnemers zijn er in totaal op Peppol?", st.Participants},
		{"Hvor mange deltakere er det i Peppol-nettverket?", st.Participants},
		{"How many companies can receive orders on Peppol?", kind("Order")},
		{"Wie viele Unternehmen können Bestellungen über Peppol empfangen?", kind("Order")},
		{"Hur många företag kan ta emot fakturor via Peppol?", kind("Invoice")},
		{"Combien d'entreprises peuvent recevoir des avoirs via Peppol ?", kind("Credit Note")},
		{"How many participants are there in " + countryName[st.Countries[0].Country] + "?", st.Countries[0].Count},
		{"Hur många företag finns det i " + countryName[st.Countries[1].Country] + "?", st.Countries[1].Count},
		// A country and a kind: the country's count, and the kind's over the network.
		{"How many companies in " + countryName[st.Countries[0].Country] + " can receive orders?", kind("Order")},
	} {
		a := askOK(t, e, tt.q)
		date := tongueOf(a.Meta.Language).date(st.DataAsOf) // as the asker's language writes dates
		if a.Intent != IntentCount || len(a.Calls) != 1 || a.Calls[0].Tool != ruleToolStats ||
			!strings.Contains(a.Answer, strconv.Itoa(tt.want)+" ") || !strings.Contains(a.Answer, date) {
			t.Errorf("%q: intent %s calls %v answer %q; want %d and %s", tt.q, a.Intent, a.Calls, a.Answer, tt.want, date)
		}
	}
	// Without a mirror there are no statistics: said so, not as a failure.
	live := newEngine(t, n, RulePlanner{})
	a := askOK(t, live, "How many participants are on Peppol?")
	if !strings.Contains(a.Answer, "cannot count the whole network") {
		t.Errorf("without a mirror: %q", a.Answer)
	}
}

// TestAskCountryList: "list participants in <country>" lists cards of that country
// only; with a document kind, only those a check finds can receive it.
func TestAskCountryList(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	for _, tt := range []struct {
		q, country, doc string
	}{
		{"List participants in Norway", "NO", ""},
		{"Zeige alle Teilnehmer in Belgien", "BE", ""},
		{"Visa alla svenska företag på Peppol", "SE", ""},
		{"List opp norske bedrifter som kan motta fakturaer", "NO", "Invoice"},
	} {
		a := askOK(t, e, tt.q)
		if a.Intent != IntentSearch || len(a.Results) == 0 {
			t.Errorf("%q: intent %s, %d results: %s", tt.q, a.Intent, len(a.Results), a.Answer)
			continue
		}
		for _, it := range a.Results {
			if it.Address == nil || it.Address.AddressCountry != tt.country || !strings.Contains(a.Answer, it.Identifier) {
				t.Errorf("%q: item %s of another country or not in the answer", tt.q, it.Identifier)
			}
		}
		checked := slices.ContainsFunc(a.Calls, func(c Call) bool { return c.Tool == ruleToolCheck })
		if checked != (tt.doc != "") {
			t.Errorf("%q: calls %v", tt.q, a.Calls)
		}
		if tt.doc != "" {
			for _, it := range a.Results {
				v := verdictOf(t, n, it.Identifier, tt.doc)
				if !v {
					t.Errorf("%q: %s is listed but cannot receive %s", tt.q, it.Identifier, tt.doc)
				}
			}
		}
	}
}

// verdictOf reports whether the registry judges that id can receive kind.
func verdictOf(t *testing.T, n *livenet.Net, id, kind string) bool {
	t.Helper()
	p, _, err := n.Reg.Lookup(t.Context(), mustID(t, id))
	if err != nil {
		t.Fatal(err)
	}
	svc, _, _ := n.Reg.Services(t.Context(), mustID(t, id), "")
	v := registry.Judge(registry.Evidence{Participant: p, Services: svc}, []string{kind})
	return string(v.Reach) == "receives"
}

// TestAskSeveralCompanies: each company of a question is answered, none dropped.
func TestAskSeveralCompanies(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	no, se := n.Name(netsim.KnownNorwegian), n.Name(netsim.KnownSwedish)
	for _, q := range []string{
		"Can " + no + " and " + se + " receive invoices?",
		"Kan " + no + " och " + se + " ta emot fakturor?",
		"Compare " + no + ", " + se + " and Zzqx Nonexistent Widgets",
		"Can " + netsim.KnownNorwegian + " and " + se + " receive invoices?",
		"Can " + no + " and " + netsim.KnownSwedish + " receive invoices?",
	} {
		a := askOK(t, e, q)
		var ids []string
		for _, it := range a.Results {
			ids = append(ids, it.Identifier)
		}
		if !slices.Contains(ids, netsim.KnownNorwegian) || !slices.Contains(ids, netsim.KnownSwedish) ||
			!strings.Contains(a.Answer, netsim.KnownNorwegian) || !strings.Contains(a.Answer, netsim.KnownSwedish) {
			t.Errorf("%q: results %v, answer:\n%s", q, ids, a.Answer)
		}
		if strings.Contains(q, "Zzqx") && !strings.Contains(a.Answer, "Zzqx Nonexistent Widgets") {
			t.Errorf("%q: the third company is dropped:\n%s", q, a.Answer)
		}
	}
	// One name with "&" asked with "and" is one company ("Vandenberghe & Mertens SA").
	for _, q := range []string{"Can Vandenberghe and Mertens receive invoices?", "Er Løvås og Hågensen på Peppol?"} {
		a := askOK(t, e, q)
		if strings.Contains(a.Answer, "companies") || strings.Contains(a.Answer, "selskaper") || !slices.ContainsFunc(a.Results, func(it Item) bool { return strings.Contains(it.Name, "&") }) {
			t.Errorf("%q: split a name:\n%s", q, a.Answer)
		}
	}
}

// TestAskOutOfScope: what peppolgate cannot know is said so, in the asker's language,
// without asking the network, and differently from "I did not understand".
func TestAskOutOfScope(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	for _, tt := range []struct{ q, lang, want string }{
		{"What is the IBAN of " + n.Name(netsim.KnownBelgian) + "?", LangEnglish, "I can't answer that"},
		{"Combien coûte un point d'accès Peppol ?", LangFrench, "Je ne peux pas répondre"},
		{"Was kostet die Anbindung an Peppol?", LangGerman, "Darauf kann ich nicht antworten"},
		{"Vad kostar det att skicka en faktura via Peppol?", LangSwedish, "Det kan jag inte svara på"},
	} {
		a := askOK(t, e, tt.q)
		if a.Intent != IntentOutOfScope || len(a.Calls) != 0 || len(a.Results) != 0 || a.Meta.Language != tt.lang ||
			!strings.HasPrefix(a.Answer, tt.want) || strings.Contains(a.Answer, english.notUnderstood) {
			t.Errorf("%q: intent %s calls %v language %s answer %q", tt.q, a.Intent, a.Calls, a.Meta.Language, a.Answer)
		}
	}
}

// TestAskHonestCauses: a lookup that fails says why, in the asker's language: "did not
// answer in time" only for a timeout; an SMP's HTTP 500, a DNS SERVFAIL and a refused
// connection each have their own words (netsim faults, a closed port).
func TestAskHonestCauses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		fault func(n *livenet.Net, id peppol.ParticipantID)
		cause registry.Cause
		en    string
		fr    string
	}{
		{"SERVFAIL", func(n *livenet.Net, id peppol.ParticipantID) {
			n.Net.SetFault(netsim.ParticipantTarget(id), netsim.Fault{DNS: netsim.DNSServFail})
		}, registry.CauseDNS, "SERVFAIL", "SERVFAIL"},
		{"DNS timeout", func(n *livenet.Net, id peppol.ParticipantID) {
			n.Net.SetFault(netsim.ParticipantTarget(id), netsim.Fault{DNS: netsim.DNSTimeout})
		}, registry.CauseTimeout, "did not answer in time", "n'a pas répondu à temps"},
		{"SMP 500", func(n *livenet.Net, id peppol.ParticipantID) {
			n.Net.SetFault(netsim.SMPHostTarget(n.DS.MustLookup(id.String()).SMPHost), netsim.Fault{HTTPStatus: 500})
		}, registry.CauseHTTPError, "answered with an HTTP error", "a répondu par une erreur HTTP"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := startEngineNet(t)
			e := newEngine(t, n, RulePlanner{})
			id := mustID(t, netsim.KnownNorwegian)
			tt.fault(n, id)
			name := n.Name(netsim.KnownNorwegian)
			for _, q := range []struct{ q, want string }{
				{"Is " + name + " on Peppol?", tt.en},
				{"Est-ce que " + name + " est sur Peppol ?", tt.fr},
			} {
				a := askOK(t, e, q.q)
				if len(a.Failed) == 0 || a.Failed[0].Cause != tt.cause || !strings.Contains(a.Answer, q.want) {
					t.Errorf("%q: failed %+v, answer:\n%s", q.q, a.Failed, a.Answer)
				}
				if tt.cause != registry.CauseTimeout && (strings.Contains(a.Answer, "in time") || strings.Contains(a.Answer, "à temps")) {
					t.Errorf("%q: a %s is said to be a timeout:\n%s", q.q, tt.name, a.Answer)
				}
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		n := startEngineNet(t)
		st, err := stack.Build(stack.Config{
			Networks:    []stack.Network{{Sim: n.Net, DirectoryURL: "http://127.0.0.1:1", DirectoryRate: 1000, DirectoryBurst: 1000}},
			SMLTimeout:  time.Second,
			SMLAttempts: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		e, err := New(Config{Registry: st.Default(), Planner: RulePlanner{}, Version: "t"})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct{ q, want string }{
			{"Is Acme Widgets on Peppol?", "refused the connection"},
			{"Est-ce que Acme Widgets est sur Peppol ?", "a refusé la connexion"},
		} {
			var ev recorder
			_, err := e.Ask(context.WithoutCancel(t.Context()), q.q, &ev)
			if registry.ErrorCode(err) != CodeAskFailed || registry.ErrorCause(err) != registry.CauseRefused ||
				!strings.Contains(ev.done.Answer, q.want) || strings.Contains(ev.done.Answer, "in time") {
				t.Errorf("%q: error %v, answer %q", q.q, err, ev.done.Answer)
			}
		}
	})
}

// countryName names the dataset's countries in English, as questions write them.
var countryName = map[string]string{"BE": "Belgium", "NO": "Norway", "SE": "Sweden", "NL": "the Netherlands", "DE": "Germany",
	"FR": "France", "DK": "Denmark", "FI": "Finland", "AT": "Austria", "IT": "Italy", "ES": "Spain", "GB": "the United Kingdom",
	"PL": "Poland", "IE": "Ireland", "LU": "Luxembourg", "EE": "Estonia", "AU": "Australia", "SG": "Singapore", "JP": "Japan", "NZ": "New Zealand"}
