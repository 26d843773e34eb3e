package nlq

import (
	"slices"
	"testing"
)

// TestCountKeepsItsSubject: a count of a kind of company in a country ("how many
// bakeries in Sweden?") searches for that kind; a word some tongue uses to tell its
// language (Danish "bagerier", Spanish "panaderías") is still what is counted. A count
// of only question words ("Hoeveel Peppol-deelnemers zijn er in België?") has none.
func TestCountKeepsItsSubject(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q, lang, subject, country string
	}{
		{"Hur många bagerier i Sverige?", LangSwedish, "bagerier", "SE"},
		{"Hur många bagerier finns det i Norge?", LangSwedish, "bagerier", "NO"},
		{"Hvor mange bagerier er der i Danmark?", LangDanish, "bagerier", "DK"},
		{"¿Cuántas panaderías hay en España?", LangSpanish, "panaderías", "ES"},
		{"Quante panetterie ci sono in Italia?", LangItalian, "panetterie", "IT"},
		{"Paljonko leipomoita on Suomessa?", LangFinnish, "leipomoita", "FI"},
		{"Hoeveel Peppol-deelnemers zijn er in België?", LangDutch, "", "BE"},
		{"Hvor mange deltagere er der i Danmark?", LangDanish, "", "DK"},
	} {
		p := RulePlanner{}.Plan(tt.q)
		if p.Intent != IntentCount || p.Subject != tt.subject || p.Country != tt.country || p.Language != tt.lang {
			t.Errorf("%q: intent %s subject %q country %q language %s; want count %q %q %s",
				tt.q, p.Intent, p.Subject, p.Country, p.Language, tt.subject, tt.country, tt.lang)
		}
	}
}

// TestAndJoinsNamesInItsLanguage: a tongue's word for "and" that is another tongue's
// word for "in" (Polish "i", Dutch "en") joins two companies only in a question of its
// own tongue: "Fjordlys Bakeri i Stavanger" is one bakery in a town.
func TestAndJoinsNamesInItsLanguage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		q        string
		subjects []string
	}{
		{"Kan Fjordlys Bakeri i Stavanger motta faktura?", nil},
		{"Kan Bageri Lund i Malmö ta emot fakturor?", nil},
		{"Kan Bageriet Hansen i Odense modtage fakturaer?", nil},
		{"¿Puede Panadería López en Madrid recibir facturas?", nil},
		{"Czy Piekarnia Nowak i Hurtownia Kowalski mogą odbierać faktury?", []string{"Piekarnia Nowak", "Hurtownia Kowalski"}},
		{"Kunnen Bakkerij Jansen en Slagerij Peeters facturen ontvangen?", []string{"Bakkerij Jansen", "Slagerij Peeters"}},
		{"Panificio Rossi e Ferramenta Bianchi possono ricevere fatture?", []string{"Panificio Rossi", "Ferramenta Bianchi"}},
		{"Kan Fjordlys Bakeri og Stavanger Fisk motta faktura?", []string{"Fjordlys Bakeri", "Stavanger Fisk"}},
	} {
		p := RulePlanner{}.Plan(tt.q)
		if !slices.Equal(p.Subjects, tt.subjects) {
			t.Errorf("%q: subjects %q (subject %q, language %s); want %q", tt.q, p.Subjects, p.Subject, p.Language, tt.subjects)
		}
	}
}

// TestRuleElevenKinds: issue 29's kinds of questions about one participant, as people
// write them in the five new languages: its transport profile, its SMP, its
// registration date, since when it is on Peppol.
func TestRuleElevenKinds(t *testing.T) {
	t.Parallel()
	const id = "0192:923609016"
	for _, tt := range []struct {
		q, lang string
		intent  Intent
		aspect  string
	}{
		{"¿Qué perfil de transporte usa " + id + "?", LangSpanish, IntentAccessPoint, AspectTransport},
		{"¿Cuál es la fecha de registro de " + id + "?", LangSpanish, IntentLookup, AspectRegistered},
		{"¿Cuándo se dio de alta " + id + " en Peppol?", LangSpanish, IntentLookup, AspectRegistered},
		{"¿Quién emitió el certificado de " + id + "?", LangSpanish, IntentCertificate, AspectIssuer},
		{"Quale profilo di trasporto usa " + id + "?", LangItalian, IntentAccessPoint, AspectTransport},
		{"Qual è la data di registrazione di " + id + "?", LangItalian, IntentLookup, AspectRegistered},
		{"Da quando " + id + " è su Peppol?", LangItalian, IntentLookup, AspectRegistered},
		{"Hvilken transportprofil bruger " + id + "?", LangDanish, IntentAccessPoint, AspectTransport},
		{"Hvornår blev " + id + " registreret i Peppol?", LangDanish, IntentLookup, AspectRegistered},
		{"Hvem har udstedt certifikatet for " + id + "?", LangDanish, IntentCertificate, AspectIssuer},
		{"Mitä siirtoprotokollaa " + id + " käyttää?", LangFinnish, IntentAccessPoint, AspectTransport},
		{"Milloin " + id + " liittyi Peppoliin?", LangFinnish, IntentLookup, AspectRegistered},
		{"Mikä on tunnuksen " + id + " rekisteröintipäivä?", LangFinnish, IntentLookup, AspectRegistered},
		{"Jakiego protokołu transportowego używa " + id + "?", LangPolish, IntentAccessPoint, AspectTransport},
		{"Kiedy " + id + " dołączył do Peppol?", LangPolish, IntentLookup, AspectRegistered},
		{"Jaka jest data rejestracji " + id + "?", LangPolish, IntentLookup, AspectRegistered},
	} {
		p := RulePlanner{}.Plan(tt.q)
		if p.Intent != tt.intent || p.Aspect != tt.aspect || p.Language != tt.lang {
			t.Errorf("%q: intent %s aspect %q language %s; want %s %q %s", tt.q, p.Intent, p.Aspect, p.Language, tt.intent, tt.aspect, tt.lang)
		}
	}
}
