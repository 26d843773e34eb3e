package nlq

import "testing"

// TestCapitalisedNamesKeepTheirWords: the words of the second round's new phrases
// ("aller", "worldwide", "dabei", "vient", "totaal", "opening hours", "invoice",
// "owns", German nouns of what peppolgate cannot know) begin or make up real companies'
// names; written capitalised as a name's words, they stay the name's.
func TestCapitalisedNamesKeepTheirWords(t *testing.T) {
	for _, c := range []struct {
		q       string
		intent  Intent
		subject string
	}{
		{"Kan Aller Media AS motta faktura?", IntentCanReceive, "Aller Media AS"},
		{"Is Worldwide Freight AB on Peppol?", IntentOnPeppol, "Worldwide Freight AB"},
		{"Ist Dabei Reisen GmbH auf Peppol?", IntentOnPeppol, "Dabei Reisen GmbH"},
		{"Who issued the certificate of Vient Conseil SARL?", IntentCertificate, "Vient Conseil SARL"},
		{"Is Totaal Techniek BV op Peppol?", IntentOnPeppol, "Totaal Techniek BV"},
		{"Kan Totaal Installatie BV facturen ontvangen?", IntentCanReceive, "Totaal Installatie BV"},
		{"Is Opening Hours Ltd on Peppol?", IntentOnPeppol, "Opening Hours Ltd"},
		{"Is Bank Details Consulting Ltd on Peppol?", IntentOnPeppol, "Bank Details Consulting Ltd"},
		{"Is Daglig Leder AS on Peppol?", IntentOnPeppol, "Daglig Leder AS"},
		{"Invoice Ninja — is it on Peppol?", IntentOnPeppol, "Invoice Ninja"},
		{"Kann Gewinn Immobilien GmbH Rechnungen empfangen?", IntentCanReceive, "Gewinn Immobilien GmbH"},
		{"Ist Discountpreis GmbH auf Peppol?", IntentOnPeppol, "Discountpreis GmbH"},
		{"Who owns the Peppol ID 0192:987654321?", IntentLookup, "0192:987654321"},
	} {
		p := RulePlanner{}.Plan(c.q)
		if p.Intent != c.intent || p.Subject != c.subject {
			t.Errorf("Plan(%q) = %s %q; want %s %q", c.q, p.Intent, p.Subject, c.intent, c.subject)
		}
	}
}

// TestNameWordsVote: the words of a company's name that one of Danish and Norwegian
// writes break a tie between their question words by a vote, not by the first.
func TestNameWordsVote(t *testing.T) {
	for _, c := range []struct{ q, lang string }{
		{"Er Vestergaard Regnskap og Eiendom på Peppol?", LangNorwegian},
		{"Er Østergaard Byg og Regnskab på Peppol?", LangDanish},
	} {
		if p := (RulePlanner{}).Plan(c.q); p.Language != c.lang {
			t.Errorf("Plan(%q).Language = %s, want %s", c.q, p.Language, c.lang)
		}
	}
}
