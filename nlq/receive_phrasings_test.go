package nlq

import "testing"

// TestReceivePhrasings: more ways people ask whether a company receives a document
// ("ready for e-invoicing", "set up to receive", "reçoit-elle").
func TestReceivePhrasings(t *testing.T) {
	for _, c := range []struct{ q, subject, lang string }{
		{"Is Wexford Marine Supplies Ltd ready for e-invoicing?", "Wexford Marine Supplies Ltd", LangEnglish},
		{"Is Wexford Marine Supplies Ltd set up to receive Peppol invoices?", "Wexford Marine Supplies Ltd", LangEnglish},
		{"Lefèvre Menuiserie SARL reçoit-elle les factures Peppol ?", "Lefèvre Menuiserie SARL", LangFrench},
		{"Est-ce que Lefèvre Menuiserie SARL est prête pour la facturation électronique ?", "Lefèvre Menuiserie SARL", LangFrench},
		{"Is Peeters Bouw BV klaar voor e-facturatie?", "Peeters Bouw BV", LangDutch},
		{"Ist Hoffmann Logistik GmbH bereit für E-Rechnungen?", "Hoffmann Logistik GmbH", LangGerman},
		{"Er Strand Rør AS klar for EHF-faktura?", "Strand Rør AS", LangNorwegian},
	} {
		p := RulePlanner{}.Plan(c.q)
		if p.Intent != IntentCanReceive || p.Subject != c.subject || p.Document != DocInvoice || p.Language != c.lang {
			t.Errorf("Plan(%q) = %s %q %q %s; want can_receive %q invoice %s", c.q, p.Intent, p.Subject, p.Document, p.Language, c.subject, c.lang)
		}
	}
}
