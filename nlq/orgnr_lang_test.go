package nlq

import "testing"

// TestOrgNumberLanguage: "orgnr" and "org.nr" are written in Swedish and Norwegian
// alike; a short question about a number is in the language its other words or the
// number's own form say.
func TestOrgNumberLanguage(t *testing.T) {
	for _, c := range []struct{ q, lang string }{
		{"Finns orgnr 559012-3456 i Peppol?", LangSwedish},
		{"orgnr 559012-3456 – på Peppol?", LangSwedish},
		{"Vem har orgnr 559012-3456?", LangSwedish},
		{"Vem är org.nr 559012-3456?", LangSwedish},
		{"Hvem har orgnr 923 609 016?", LangNorwegian},
		{"Er orgnr 923609016 registrert i Peppol?", LangNorwegian},
		{"Hva er Peppol-ID-en til org.nr 923 609 016?", LangNorwegian},
	} {
		if p := (RulePlanner{}).Plan(c.q); p.Language != c.lang {
			t.Errorf("Plan(%q).Language = %s, want %s", c.q, p.Language, c.lang)
		}
	}
}
