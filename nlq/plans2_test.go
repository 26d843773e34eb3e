package nlq

import "testing"

// planWant is what a plan must say; an empty field is not checked, and noSubject
// requires that the plan names no subject.
type planWant struct {
	intent                      Intent
	subject, country, doc, lang string
	noSubject                   bool
}

// checkPlans plans each question with the rule planner and reports every field that
// differs from its want.
func checkPlans(t *testing.T, cases []struct {
	q    string
	want planWant
}) {
	t.Helper()
	for _, c := range cases {
		p := RulePlanner{}.Plan(c.q)
		w := c.want
		if w.intent != "" && p.Intent != w.intent || w.subject != "" && p.Subject != w.subject ||
			w.noSubject && p.Subject != "" || w.country != "" && p.Country != w.country ||
			w.doc != "" && p.Document != w.doc || w.lang != "" && p.Language != w.lang {
			t.Errorf("Plan(%q) = intent %s, subject %q, country %q, document %q, language %s; want %+v",
				c.q, p.Intent, p.Subject, p.Country, p.Document, p.Language, w)
		}
	}
}

// TestPeppolCompoundNouns: "Peppol-Teilnehmer", "Peppol-deelnemers", "Peppol-deltagare" …
// are the company nouns with the network's name joined by a hyphen, as Germanic and
// Nordic languages write them; a list or count of them is never a search for a company
// of that name.
func TestPeppolCompoundNouns(t *testing.T) {
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Zeig mir die Peppol-Teilnehmer aus Österreich", planWant{intent: IntentSearch, country: "AT", lang: LangGerman, noSubject: true}},
		{"Welke Peppol-deelnemers zitten er in Luxemburg?", planWant{intent: IntentSearch, country: "LU", lang: LangDutch, noSubject: true}},
		{"Visa alla Peppol-deltagare i Norge", planWant{intent: IntentSearch, country: "NO", lang: LangSwedish, noSubject: true}},
		{"Vis meg Peppol-deltakere i Sverige", planWant{intent: IntentSearch, country: "SE", lang: LangNorwegian, noSubject: true}},
		{"Vis mig alle Peppol-deltagere i Tyskland", planWant{intent: IntentSearch, country: "DE", lang: LangDanish, noSubject: true}},
		{"Show me the Peppol-participants in Austria", planWant{intent: IntentSearch, country: "AT", lang: LangEnglish, noSubject: true}},
		{"Wie viele Peppol-Teilnehmer gibt es in Belgien?", planWant{intent: IntentCount, country: "BE", lang: LangGerman, noSubject: true}},
		{"Hur många Peppol-företag finns i Danmark?", planWant{intent: IntentCount, country: "DK", lang: LangSwedish, noSubject: true}},
	})
}

// TestOutOfScopeInflected: what peppolgate cannot know, asked with the word inflected as
// the Nordic languages and Finnish do (a definite or plural ending, a case ending), is
// still out of scope; a company whose name begins with such a word is not.
func TestOutOfScopeInflected(t *testing.T) {
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Vad är momssatsen för konsulttjänster?", planWant{intent: IntentOutOfScope}},
		{"Hur höga är avgifterna hos Pagero?", planWant{intent: IntentOutOfScope}},
		{"Hvad er priserne for en Peppol-adgang?", planWant{intent: IntentOutOfScope}},
		{"Hva er kostnadene ved å bruke EHF?", planWant{intent: IntentOutOfScope}},
		{"Paljonko Maventa veloittaa laskulta?", planWant{intent: IntentOutOfScope}},
		{"Mikä on Peppol-yhteyden kuukausimaksun suuruus?", planWant{intent: IntentOutOfScope}},
		{"Can Prisma Consulting AS receive invoices?", planWant{intent: IntentCanReceive}},
		{"Kan Kostnadsbolaget AB ta emot fakturor?", planWant{intent: IntentCanReceive}},
	})
}

// TestInvoiceVerb: "invoice X electronically", "X elektronisch factureren", "fakturere X
// via EHF" ask whether X can receive invoices: the verb of invoicing with the company as
// its object, in the eleven languages. Written capitalised as a name's word, it is the
// name's.
func TestInvoiceVerb(t *testing.T) {
	recv := func(subject, lang string) planWant {
		return planWant{intent: IntentCanReceive, subject: subject, doc: DocInvoice, lang: lang}
	}
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Is it possible to invoice Harbour Tools Ltd electronically via Peppol?", recv("Harbour Tools Ltd", LangEnglish)},
		{"Can we e-invoice Harbour Tools Ltd?", recv("Harbour Tools Ltd", LangEnglish)},
		{"Can we bill Harbour Tools Ltd through Peppol?", recv("Harbour Tools Ltd", LangEnglish)},
		{"Kunnen we Jansen Installatie BV elektronisch factureren?", recv("Jansen Installatie BV", LangDutch)},
		{"Kan vi fakturere Nordlys Elektro AS via EHF?", recv("Nordlys Elektro AS", LangNorwegian)},
		{"Kan vi fakturera Lindqvist Bygg AB elektroniskt?", recv("Lindqvist Bygg AB", LangSwedish)},
		{"Können wir die Bergmann Elektro GmbH elektronisch fakturieren?", recv("Bergmann Elektro GmbH", LangGerman)},
		{"Peut-on facturer Dupont Services SARL électroniquement ?", recv("Dupont Services SARL", LangFrench)},
		{"¿Podemos facturar electrónicamente a García Transportes S.L.?", recv("García Transportes S.L.", LangSpanish)},
		{"Possiamo fatturare elettronicamente Rossi Impianti S.r.l.?", recv("Rossi Impianti S.r.l.", LangItalian)},
		{"Voimmeko laskuttaa Virtanen Oy:tä sähköisesti?", recv("Virtanen Oy", LangFinnish)},
		{"Kan vi fakturere Jensen Byg ApS elektronisk via NemHandel?", recv("Jensen Byg ApS", LangDanish)},
		{"Is Bill Hansen Consulting AS on Peppol?", planWant{intent: IntentOnPeppol, subject: "Bill Hansen Consulting AS"}},
		{"Who is Invoice Partners GmbH?", planWant{intent: IntentLookup, subject: "Invoice Partners GmbH"}},
	})
}

// TestPresencePrepositions: "bij Peppol", "med i Peppol", "met Peppol" say "on Peppol"
// as "bei Peppol" does; they are never the end of the company's name.
func TestPresencePrepositions(t *testing.T) {
	on := func(subject, lang string) planWant {
		return planWant{intent: IntentOnPeppol, subject: subject, lang: lang}
	}
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Is Vandermeulen Transport bij Peppol geregistreerd?", on("Vandermeulen Transport", LangDutch)},
		{"Er Kristiansen Bygg AS med i Peppol?", on("Kristiansen Bygg AS", LangNorwegian)},
		{"Är Lundgren Måleri AB med i Peppol?", on("Lundgren Måleri AB", LangSwedish)},
		{"Werkt De Smet Logistiek NV met Peppol?", on("De Smet Logistiek NV", LangDutch)},
	})
}

// TestReceivePhrasings: more ways people ask whether a company receives a document
// ("ready for e-invoicing", "set up to receive", "reçoit-elle").
func TestReceivePhrasings(t *testing.T) {
	recv := func(subject, lang string) planWant {
		return planWant{intent: IntentCanReceive, subject: subject, doc: DocInvoice, lang: lang}
	}
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Is Wexford Marine Supplies Ltd ready for e-invoicing?", recv("Wexford Marine Supplies Ltd", LangEnglish)},
		{"Is Wexford Marine Supplies Ltd set up to receive Peppol invoices?", recv("Wexford Marine Supplies Ltd", LangEnglish)},
		{"Lefèvre Menuiserie SARL reçoit-elle les factures Peppol ?", recv("Lefèvre Menuiserie SARL", LangFrench)},
		{"Est-ce que Lefèvre Menuiserie SARL est prête pour la facturation électronique ?", recv("Lefèvre Menuiserie SARL", LangFrench)},
		{"Is Peeters Bouw BV klaar voor e-facturatie?", recv("Peeters Bouw BV", LangDutch)},
		{"Ist Hoffmann Logistik GmbH bereit für E-Rechnungen?", recv("Hoffmann Logistik GmbH", LangGerman)},
		{"Er Strand Rør AS klar for EHF-faktura?", recv("Strand Rør AS", LangNorwegian)},
	})
}

// TestOrgNumberLanguage: "orgnr" and "org.nr" are written in Swedish and Norwegian
// alike; a short question about a number is in the language its other words or the
// number's own form say.
func TestOrgNumberLanguage(t *testing.T) {
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Finns orgnr 559012-3456 i Peppol?", planWant{lang: LangSwedish}},
		{"orgnr 559012-3456 – på Peppol?", planWant{lang: LangSwedish}},
		{"Vem har orgnr 559012-3456?", planWant{lang: LangSwedish}},
		{"Vem är org.nr 559012-3456?", planWant{lang: LangSwedish}},
		{"Hvem har orgnr 923 609 016?", planWant{lang: LangNorwegian}},
		{"Er orgnr 923609016 registrert i Peppol?", planWant{lang: LangNorwegian}},
		{"Hva er Peppol-ID-en til org.nr 923 609 016?", planWant{lang: LangNorwegian}},
	})
}

// TestCapitalisedNamesKeepTheirWords: the words of the second round's new phrases
// ("aller", "worldwide", "dabei", "vient", "totaal", "opening hours", "invoice",
// "owns", German nouns of what peppolgate cannot know) begin or make up real companies'
// names; written capitalised as a name's words, they stay the name's.
func TestCapitalisedNamesKeepTheirWords(t *testing.T) {
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Kan Aller Media AS motta faktura?", planWant{intent: IntentCanReceive, subject: "Aller Media AS"}},
		{"Is Worldwide Freight AB on Peppol?", planWant{intent: IntentOnPeppol, subject: "Worldwide Freight AB"}},
		{"Ist Dabei Reisen GmbH auf Peppol?", planWant{intent: IntentOnPeppol, subject: "Dabei Reisen GmbH"}},
		{"Who issued the certificate of Vient Conseil SARL?", planWant{intent: IntentCertificate, subject: "Vient Conseil SARL"}},
		{"Is Totaal Techniek BV op Peppol?", planWant{intent: IntentOnPeppol, subject: "Totaal Techniek BV"}},
		{"Kan Totaal Installatie BV facturen ontvangen?", planWant{intent: IntentCanReceive, subject: "Totaal Installatie BV"}},
		{"Is Opening Hours Ltd on Peppol?", planWant{intent: IntentOnPeppol, subject: "Opening Hours Ltd"}},
		{"Is Bank Details Consulting Ltd on Peppol?", planWant{intent: IntentOnPeppol, subject: "Bank Details Consulting Ltd"}},
		{"Is Daglig Leder AS on Peppol?", planWant{intent: IntentOnPeppol, subject: "Daglig Leder AS"}},
		{"Invoice Ninja — is it on Peppol?", planWant{intent: IntentOnPeppol, subject: "Invoice Ninja"}},
		{"Kann Gewinn Immobilien GmbH Rechnungen empfangen?", planWant{intent: IntentCanReceive, subject: "Gewinn Immobilien GmbH"}},
		{"Ist Discountpreis GmbH auf Peppol?", planWant{intent: IntentOnPeppol, subject: "Discountpreis GmbH"}},
		{"Who owns the Peppol ID 0192:987654321?", planWant{intent: IntentLookup, subject: "0192:987654321"}},
		{"Is Work Solutions Ltd on Peppol?", planWant{intent: IntentOnPeppol, subject: "Work Solutions Ltd"}},
	})
}

// TestNameWordsVote: the words of a company's name that one of Danish and Norwegian
// writes break a tie between their question words by a vote, not by the first.
func TestNameWordsVote(t *testing.T) {
	checkPlans(t, []struct {
		q    string
		want planWant
	}{
		{"Er Vestergaard Regnskap og Eiendom på Peppol?", planWant{lang: LangNorwegian}},
		{"Er Østergaard Byg og Regnskab på Peppol?", planWant{lang: LangDanish}},
	})
}
