package nlq

import "testing"

// TestPresencePrepositions: "bij Peppol", "med i Peppol", "met Peppol" say "on Peppol"
// as "bei Peppol" does; they are never the end of the company's name.
func TestPresencePrepositions(t *testing.T) {
	for _, c := range []struct{ q, subject, lang string }{
		{"Is Vandermeulen Transport bij Peppol geregistreerd?", "Vandermeulen Transport", LangDutch},
		{"Er Kristiansen Bygg AS med i Peppol?", "Kristiansen Bygg AS", LangNorwegian},
		{"Är Lundgren Måleri AB med i Peppol?", "Lundgren Måleri AB", LangSwedish},
		{"Werkt De Smet Logistiek NV met Peppol?", "De Smet Logistiek NV", LangDutch},
	} {
		p := RulePlanner{}.Plan(c.q)
		if p.Intent != IntentOnPeppol || p.Subject != c.subject || p.Language != c.lang {
			t.Errorf("Plan(%q) = %s %q %s; want on_peppol %q %s", c.q, p.Intent, p.Subject, p.Language, c.subject, c.lang)
		}
	}
}
