package nlq

import "testing"

// TestOutOfScopeInflected: what peppolgate cannot know, asked with the word inflected as
// the Nordic languages and Finnish do (a definite or plural ending, a case ending), is
// still out of scope; a company whose name begins with such a word is not.
func TestOutOfScopeInflected(t *testing.T) {
	for _, c := range []struct {
		q      string
		intent Intent
	}{
		{"Vad är momssatsen för konsulttjänster?", IntentOutOfScope},
		{"Hur höga är avgifterna hos Pagero?", IntentOutOfScope},
		{"Hvad er priserne for en Peppol-adgang?", IntentOutOfScope},
		{"Hva er kostnadene ved å bruke EHF?", IntentOutOfScope},
		{"Paljonko Maventa veloittaa laskulta?", IntentOutOfScope},
		{"Mikä on Peppol-yhteyden kuukausimaksun suuruus?", IntentOutOfScope},
		{"Can Prisma Consulting AS receive invoices?", IntentCanReceive},
		{"Kan Kostnadsbolaget AB ta emot fakturor?", IntentCanReceive},
	} {
		if p := (RulePlanner{}).Plan(c.q); p.Intent != c.intent {
			t.Errorf("Plan(%q).Intent = %s, want %s", c.q, p.Intent, c.intent)
		}
	}
}
