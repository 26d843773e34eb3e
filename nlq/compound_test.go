package nlq

import "testing"

// TestPeppolCompoundNouns: "Peppol-Teilnehmer", "Peppol-deelnemers", "Peppol-deltagare" …
// are the company nouns with the network's name joined by a hyphen, as Germanic and
// Nordic languages write them; a list or count of them is never a search for a company
// of that name.
func TestPeppolCompoundNouns(t *testing.T) {
	for _, c := range []struct {
		q       string
		intent  Intent
		country string
		lang    string
	}{
		{"Zeig mir die Peppol-Teilnehmer aus Österreich", IntentSearch, "AT", LangGerman},
		{"Welke Peppol-deelnemers zitten er in Luxemburg?", IntentSearch, "LU", LangDutch},
		{"Visa alla Peppol-deltagare i Norge", IntentSearch, "NO", LangSwedish},
		{"Vis meg Peppol-deltakere i Sverige", IntentSearch, "SE", LangNorwegian},
		{"Vis mig alle Peppol-deltagere i Tyskland", IntentSearch, "DE", LangDanish},
		{"Show me the Peppol-participants in Austria", IntentSearch, "AT", LangEnglish},
		{"Wie viele Peppol-Teilnehmer gibt es in Belgien?", IntentCount, "BE", LangGerman},
		{"Hur många Peppol-företag finns i Danmark?", IntentCount, "DK", LangSwedish},
	} {
		p := RulePlanner{}.Plan(c.q)
		if p.Intent != c.intent || p.Country != c.country || p.Language != c.lang || p.Subject != "" {
			t.Errorf("Plan(%q) = intent %s, subject %q, country %q, language %s; want %s, no subject, %q, %s",
				c.q, p.Intent, p.Subject, p.Country, p.Language, c.intent, c.country, c.lang)
		}
	}
}
