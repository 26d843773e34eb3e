package nlq

import "testing"

// TestInvoiceVerb: "invoice X electronically", "X elektronisch factureren", "fakturere X
// via EHF" ask whether X can receive invoices: the verb of invoicing with the company as
// its object, in the eleven languages.
func TestInvoiceVerb(t *testing.T) {
	for _, c := range []struct {
		q, subject, lang string
	}{
		{"Is it possible to invoice Harbour Tools Ltd electronically via Peppol?", "Harbour Tools Ltd", LangEnglish},
		{"Can we e-invoice Harbour Tools Ltd?", "Harbour Tools Ltd", LangEnglish},
		{"Can we bill Harbour Tools Ltd through Peppol?", "Harbour Tools Ltd", LangEnglish},
		{"Kunnen we Jansen Installatie BV elektronisch factureren?", "Jansen Installatie BV", LangDutch},
		{"Kan vi fakturere Nordlys Elektro AS via EHF?", "Nordlys Elektro AS", LangNorwegian},
		{"Kan vi fakturera Lindqvist Bygg AB elektroniskt?", "Lindqvist Bygg AB", LangSwedish},
		{"Können wir die Bergmann Elektro GmbH elektronisch fakturieren?", "Bergmann Elektro GmbH", LangGerman},
		{"Peut-on facturer Dupont Services SARL électroniquement ?", "Dupont Services SARL", LangFrench},
		{"¿Podemos facturar electrónicamente a García Transportes S.L.?", "García Transportes S.L.", LangSpanish},
		{"Possiamo fatturare elettronicamente Rossi Impianti S.r.l.?", "Rossi Impianti S.r.l.", LangItalian},
		{"Voimmeko laskuttaa Virtanen Oy:tä sähköisesti?", "Virtanen Oy", LangFinnish},
		{"Kan vi fakturere Jensen Byg ApS elektronisk via NemHandel?", "Jensen Byg ApS", LangDanish},
	} {
		p := RulePlanner{}.Plan(c.q)
		if p.Intent != IntentCanReceive || p.Subject != c.subject || p.Document != DocInvoice || p.Language != c.lang {
			t.Errorf("Plan(%q) = %s %q %q %s; want can_receive %q invoice %s", c.q, p.Intent, p.Subject, p.Document, p.Language, c.subject, c.lang)
		}
	}
	// Written capitalised inside a question, the verb is a word of a name.
	for _, c := range []struct{ q, subject string }{
		{"Is Bill Hansen Consulting AS on Peppol?", "Bill Hansen Consulting AS"},
		{"Who is Invoice Partners GmbH?", "Invoice Partners GmbH"},
	} {
		if p := (RulePlanner{}).Plan(c.q); p.Subject != c.subject || p.Intent == IntentCanReceive {
			t.Errorf("Plan(%q) = %s %q; want the subject %q, no can_receive", c.q, p.Intent, p.Subject, c.subject)
		}
	}
}
