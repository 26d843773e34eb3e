package nlq

import "testing"

// TestRuleKinds2Plans checks the plans of issue 29's weakest kinds as people ask them
// (rules_kinds2.go); each of these was planned otherwise before (unknown, a search for
// question words, or out of scope). server/ask_kinds2_test.go asks them end to end.
func TestRuleKinds2Plans(t *testing.T) {
	for _, c := range []struct {
		q                                   string
		intent                              Intent
		subject, country, doc, aspect, lang string
		tool                                string
	}{
		{"how many IE endpoints are there", IntentCount, "", "IE", "", "", LangEnglish, ruleToolSearch},
		{"Count of SE participants", IntentCount, "", "SE", "", "", LangEnglish, ruleToolSearch},
		{"Nombre total de participants dans le réseau Peppol", IntentCount, "", "", "", "", LangFrench, ruleToolStats},
		{"Número total de participantes en Peppol", IntentCount, "", "", "", "", LangSpanish, ruleToolStats},
		{"Antal mottagare i Spanien", IntentCount, "", "ES", "", "", LangSwedish, ruleToolSearch},
		{"Number of Peppol endpoints worldwide", IntentCount, "", "", "", "", LangEnglish, ruleToolStats},
		{"Total participants?", IntentCount, "", "", "", "", LangEnglish, ruleToolStats},
		{"How many participants can receive despatch advice?", IntentCount, "", "", DocDespatchAdvice, "", LangEnglish, ruleToolStats},
		{"Ile firm może odbierać awiza wysyłki?", IntentCount, "", "", DocDespatchAdvice, "", LangPolish, ruleToolStats},
		{"Geef me de deelnemers in Denemarken", IntentSearch, "", "DK", "", "", LangDutch, ruleToolSearch},
		{"Who are the Peppol participants in Singapore?", IntentSearch, "", "SG", "", "", LangEnglish, ruleToolSearch},
		{"Peppol participants in Singapore", IntentSearch, "", "SG", "", "", LangEnglish, ruleToolSearch},
		{"¿Qué empresas de Italia pueden recibir pedidos?", IntentSearch, "", "IT", DocOrder, "", LangSpanish, ruleToolSearch},
		{"Welche dänischen Firmen können Bestellungen empfangen?", IntentSearch, "", "DK", DocOrder, "", LangGerman, ruleToolSearch},
		{"Give me some examples of Swedish companies on Peppol", IntentSearch, "", "SE", "", "", LangEnglish, ruleToolSearch},
		{"Name a few Italian companies on Peppol", IntentSearch, "", "IT", "", "", LangEnglish, ruleToolSearch},
		{"Liste aller Teilnehmer in Deutschland", IntentSearch, "", "DE", "", "", LangGerman, ruleToolSearch},
		{"Siden hvornår har Nørgaard ApS været på Peppol?", IntentLookup, "Nørgaard ApS", "", "", AspectRegistered, LangDanish, ruleToolSearch},
		{"¿Cuándo se registró García & Martínez S.L.?", IntentLookup, "García & Martínez S.L.", "", "", AspectRegistered, LangSpanish, ruleToolSearch},
		{"Kiedy zarejestrowano WIŚNIEWSKI HANDEL SP.J.?", IntentLookup, "WIŚNIEWSKI HANDEL SP.J.", "", "", AspectRegistered, LangPolish, ruleToolSearch},
		{"When did Kelly Services DAC register on Peppol?", IntentLookup, "Kelly Services DAC", "", "", AspectRegistered, LangEnglish, ruleToolSearch},
		{"Wann hat sich Kelly Services DAC bei Peppol registriert?", IntentLookup, "Kelly Services DAC", "", "", AspectRegistered, LangGerman, ruleToolSearch},
		{"Door wie is het certificaat van Lähde Sähkö Ky uitgegeven?", IntentCertificate, "Lähde Sähkö Ky", "", "", AspectIssuer, LangDutch, ruleToolSearch},
		{"Chi ha rilasciato il certificato di Ferrari & Niccolò S.r.l.?", IntentCertificate, "Ferrari & Niccolò S.r.l.", "", "", AspectIssuer, LangItalian, ruleToolSearch},
		{"Von welcher CA stammt das Zertifikat von Kelly Services DAC?", IntentCertificate, "Kelly Services DAC", "", "", AspectIssuer, LangGerman, ruleToolSearch},
		{"Can Kelly Services DAC receive despatch advice?", IntentCanReceive, "Kelly Services DAC", "", DocDespatchAdvice, "", LangEnglish, ruleToolSearch},
		{"E-invoicing is mandatory for us next year: can Kelly Services DAC receive invoices via Peppol?", IntentCanReceive, "Kelly Services DAC", "", DocInvoice, "", LangEnglish, ruleToolSearch},
		{"Die E-Rechnung ist bald Pflicht – kann Würzburg Bau KG Rechnungen empfangen?", IntentCanReceive, "Würzburg Bau KG", "", DocInvoice, "", LangGerman, ruleToolSearch},
		{"Quel est le chiffre d'affaires de Conti Alimentari ?", IntentOutOfScope, "", "", "", "", LangFrench, ""},
		{"Hvad er omsætningen for Nørgaard ApS?", IntentOutOfScope, "", "", "", "", LangDanish, ""},
		{"Vad är telefonnumret till Linköping Fastigheter AB?", IntentOutOfScope, "", "", "", "", LangSwedish, ""},
		{"How much is a Peppol access point?", IntentOutOfScope, "", "", "", "", LangEnglish, ""},
		{"Ab wann gilt die E-Rechnungspflicht?", IntentOutOfScope, "", "", "", "", LangGerman, ""},
		{"Hva blir været i Bergen i morgen?", IntentOutOfScope, "", "", "", "", LangNorwegian, ""},
	} {
		p := RulePlanner{}.Plan(c.q)
		tool := ""
		if len(p.Calls) > 0 {
			tool = p.Calls[0].Tool
		}
		if p.Intent != c.intent || p.Subject != c.subject || p.Country != c.country || p.Document != c.doc ||
			p.Aspect != c.aspect || p.Language != c.lang || tool != c.tool {
			t.Errorf("Plan(%q) = intent %s, subject %q, country %q, document %q, aspect %q, language %s, first call %q;\n"+
				"want %s, %q, %q, %q, %q, %s, %q", c.q, p.Intent, p.Subject, p.Country, p.Document, p.Aspect, p.Language, tool,
				c.intent, c.subject, c.country, c.doc, c.aspect, c.lang, c.tool)
		}
	}
}
