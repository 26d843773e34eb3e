package nlq

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

// langCase is a development question of issue 29's five new languages and what its
// plan must say; the subject is not checked here (entity linking reads names).
type langCase struct {
	q, lang string
	intent  Intent
	doc     string
	country string
}

// elevenCases are questions written for issue 29 (other companies and phrasings than
// any evaluation set), as people ask them in Spanish, Italian, Danish, Finnish and
// Polish: forums, ERP help pages, an accountant's day.
var elevenCases = []langCase{
	// Spanish.
	{"¿Puede Ferretería Gómez S.L. recibir facturas electrónicas por Peppol?", LangSpanish, IntentCanReceive, DocInvoice, ""},
	{"¿Quién es 0208:0677424046?", LangSpanish, IntentLookup, "", ""},
	{"¿Qué punto de acceso usa Transportes Martínez?", LangSpanish, IntentAccessPoint, "", ""},
	{"¿Cuántas empresas españolas están registradas en Peppol?", LangSpanish, IntentCount, "", "ES"},
	{"Busca panaderías en Bélgica", LangSpanish, IntentSearch, "", "BE"},
	{"¿Está registrada en Peppol la empresa Construcciones Ruiz?", LangSpanish, IntentOnPeppol, "", ""},
	{"¿Cuándo caduca el certificado de 0192:923609016?", LangSpanish, IntentCertificate, "", ""},
	{"¿Qué tipos de documentos acepta 0007:5560360793?", LangSpanish, IntentDocumentTypes, "", ""},
	{"¿Puede Distribuciones Norte recibir notas de crédito?", LangSpanish, IntentCanReceive, DocCreditNote, ""},
	{"¿La empresa Almacenes Vega puede recibir pedidos por Peppol?", LangSpanish, IntentCanReceive, DocOrder, ""},
	{"¿Cuál es el proveedor de Peppol de Hermanos López S.A.?", LangSpanish, IntentAccessPoint, "", ""},
	{"Hola, ¿me podrías decir si Talleres Iglesias recibe facturas?", LangSpanish, IntentCanReceive, DocInvoice, ""},
	{"¿Cuántos participantes hay en Dinamarca?", LangSpanish, IntentCount, "", "DK"},
	{"necesito saber si 0088:5790000435975 puede recibir facturas", LangSpanish, IntentCanReceive, DocInvoice, ""},
	// Italian.
	{"Chi è 0208:0677424046?", LangItalian, IntentLookup, "", ""},
	{"La Ferramenta Rossi S.r.l. può ricevere fatture elettroniche tramite Peppol?", LangItalian, IntentCanReceive, DocInvoice, ""},
	{"Quale punto di accesso usa Trasporti Bianchi?", LangItalian, IntentAccessPoint, "", ""},
	{"Quante aziende italiane sono registrate su Peppol?", LangItalian, IntentCount, "", "IT"},
	{"Trova panetterie in Germania", LangItalian, IntentSearch, "", "DE"},
	{"L'azienda Edilizia Conti è registrata su Peppol?", LangItalian, IntentOnPeppol, "", ""},
	{"Quando scade il certificato di 0192:923609016?", LangItalian, IntentCertificate, "", ""},
	{"Quali tipi di documento supporta 0007:5560360793?", LangItalian, IntentDocumentTypes, "", ""},
	{"Mobilificio Ferrari può ricevere note di credito?", LangItalian, IntentCanReceive, DocCreditNote, ""},
	{"Posso inviare ordini a 0088:5790000435975 tramite Peppol?", LangItalian, IntentCanReceive, DocOrder, ""},
	{"Chi è il fornitore Peppol di Officine Marino S.p.A.?", LangItalian, IntentAccessPoint, "", ""},
	{"Ciao, mi puoi dire se Ceramiche Colombo riceve fatture?", LangItalian, IntentCanReceive, DocInvoice, ""},
	{"Quanti partecipanti ci sono in Norvegia?", LangItalian, IntentCount, "", "NO"},
	// Danish.
	{"Kan Tømrerfirma Jensen ApS modtage fakturaer via Peppol?", LangDanish, IntentCanReceive, DocInvoice, ""},
	{"Hvilket adgangspunkt bruger Vognmand Nielsen?", LangDanish, IntentAccessPoint, "", ""},
	{"Hvor mange danske virksomheder er registreret i Peppol?", LangDanish, IntentCount, "", "DK"},
	{"Find bagerier i Danmark", LangDanish, IntentSearch, "", "DK"},
	{"Er virksomheden Malerfirmaet Hansen registreret på Peppol?", LangDanish, IntentOnPeppol, "", ""},
	{"Hvornår udløber certifikatet for 0192:923609016?", LangDanish, IntentCertificate, "", ""},
	{"Hvilke dokumenttyper understøtter 0007:5560360793?", LangDanish, IntentDocumentTypes, "", ""},
	{"Kan Elektrikeren Søndergaard modtage kreditnotaer?", LangDanish, IntentCanReceive, DocCreditNote, ""},
	{"Kan vi sende ordrer til 0088:5790000435975 gennem Peppol?", LangDanish, IntentCanReceive, DocOrder, ""},
	{"Vis mig bagerier i Sverige", LangDanish, IntentSearch, "", "SE"},
	{"Hvad er 0208:0677424046?", LangDanish, IntentLookup, "", ""},
	{"Hvilken udbyder bruger Cykelhandler Poulsen til Peppol?", LangDanish, IntentAccessPoint, "", ""},
	{"Hej, kan I fortælle mig om Kontorhuset Lund kan modtage e-fakturaer?", LangDanish, IntentCanReceive, DocInvoice, ""},
	// Finnish.
	{"Voiko Rakennus Virtanen Oy vastaanottaa verkkolaskuja Peppolin kautta?", LangFinnish, IntentCanReceive, DocInvoice, ""},
	{"Kuka on 0208:0677424046?", LangFinnish, IntentLookup, "", ""},
	{"Mitä liityntäpistettä Kuljetus Korhonen käyttää?", LangFinnish, IntentAccessPoint, "", ""},
	{"Montako suomalaista yritystä on Peppolissa?", LangFinnish, IntentCount, "", "FI"},
	{"Etsi leipomoita Ruotsissa", LangFinnish, IntentSearch, "", "SE"},
	{"Onko Sähkö Mäkinen Oy rekisteröitynyt Peppoliin?", LangFinnish, IntentOnPeppol, "", ""},
	{"Milloin yrityksen 0192:923609016 varmenne vanhenee?", LangFinnish, IntentCertificate, "", ""},
	{"Mitä dokumenttityyppejä 0007:5560360793 tukee?", LangFinnish, IntentDocumentTypes, "", ""},
	{"Voiko Kauppa Nieminen vastaanottaa hyvityslaskuja?", LangFinnish, IntentCanReceive, DocCreditNote, ""},
	{"Voinko lähettää tilauksia yritykselle 0088:5790000435975?", LangFinnish, IntentCanReceive, DocOrder, ""},
	{"Näytä leipomot Norjassa", LangFinnish, IntentSearch, "", "NO"},
	{"Mikä on yrityksen Metsä Heikkinen Oy palveluntarjoaja?", LangFinnish, IntentAccessPoint, "", ""},
	{"Hei, voitko kertoa, voiko Konepaja Lehtonen vastaanottaa laskuja?", LangFinnish, IntentCanReceive, DocInvoice, ""},
	{"Kuinka monta yritystä Norjasta on Peppolissa?", LangFinnish, IntentCount, "", "NO"},
	// Polish.
	{"Czy firma Budowlanka Kowalski może odbierać faktury przez Peppol?", LangPolish, IntentCanReceive, DocInvoice, ""},
	{"Kim jest 0208:0677424046?", LangPolish, IntentLookup, "", ""},
	{"Jakiego punktu dostępowego używa Transport Nowak?", LangPolish, IntentAccessPoint, "", ""},
	{"Ile polskich firm jest zarejestrowanych w Peppol?", LangPolish, IntentCount, "", "PL"},
	{"Znajdź piekarnie w Niemczech", LangPolish, IntentSearch, "", "DE"},
	{"Czy firma Wiśniewski Meble jest zarejestrowana w Peppol?", LangPolish, IntentOnPeppol, "", ""},
	{"Kiedy wygasa certyfikat 0192:923609016?", LangPolish, IntentCertificate, "", ""},
	{"Jakie typy dokumentów obsługuje 0007:5560360793?", LangPolish, IntentDocumentTypes, "", ""},
	{"Czy Hurtownia Zielińska może odbierać faktury korygujące?", LangPolish, IntentCanReceive, DocCreditNote, ""},
	{"Czy mogę wysyłać zamówienia do 0088:5790000435975 przez Peppol?", LangPolish, IntentCanReceive, DocOrder, ""},
	{"Pokaż piekarnie w Szwecji", LangPolish, IntentSearch, "", "SE"},
	{"Kto jest dostawcą Peppol dla firmy Stolarnia Wójcik?", LangPolish, IntentAccessPoint, "", ""},
	{"Dzień dobry, czy Piekarnia Kamińska może odbierać e-faktury?", LangPolish, IntentCanReceive, DocInvoice, ""},
	{"Ile firm z Norwegii jest w Peppolu?", LangPolish, IntentCount, "", "NO"},
}

// elevenCasesInformal are a second batch, written after the first passed and before
// any change for them: lower case, accents left out, no question mark, other verbs.
var elevenCasesInformal = []langCase{
	{"hola, la empresa Electrodomésticos Pardo puede recibir facturas electronicas?", LangSpanish, IntentCanReceive, DocInvoice, ""},
	{"cual es el punto de acceso de Gráficas Alonso SL", LangSpanish, IntentAccessPoint, "", ""},
	{"cuantas empresas hay en Peppol en Italia", LangSpanish, IntentCount, "", "IT"},
	{"Buscar empresas llamadas Ortega en España", LangSpanish, IntentSearch, "", "ES"},
	{"¿Está dada de alta en Peppol la sociedad Hierros del Norte?", LangSpanish, IntentOnPeppol, "", ""},
	{"¿Cuándo vence el certificado de Logística Beltrán?", LangSpanish, IntentCertificate, "", ""},
	{"¿Acepta pedidos 0192:923609016?", LangSpanish, IntentCanReceive, DocOrder, ""},
	{"¿Qué proveedor Peppol tiene Suministros Ibáñez?", LangSpanish, IntentAccessPoint, "", ""},
	{"ciao, la ditta Bianchi Arredamenti riceve fatture elettroniche su Peppol?", LangItalian, IntentCanReceive, DocInvoice, ""},
	{"qual è il punto di accesso di Lavanderia Gallo", LangItalian, IntentAccessPoint, "", ""},
	{"quante aziende ci sono su Peppol in Spagna", LangItalian, IntentCount, "", "ES"},
	{"cerca aziende chiamate Esposito in Italia", LangItalian, IntentSearch, "", "IT"},
	{"Autotrasporti Ricci è iscritta a Peppol?", LangItalian, IntentOnPeppol, "", ""},
	{"quando scade il certificato di Distillerie Moretti?", LangItalian, IntentCertificate, "", ""},
	{"Si possono inviare note di credito a 0007:5560360793?", LangItalian, IntentCanReceive, DocCreditNote, ""},
	{"Che tipi di documento accetta Pasticceria Fontana?", LangItalian, IntentDocumentTypes, "", ""},
	{"kan Murerfirmaet Holm modtage elektroniske fakturaer", LangDanish, IntentCanReceive, DocInvoice, ""},
	{"hvilken udbyder har Tandlægerne Vestergaard?", LangDanish, IntentAccessPoint, "", ""},
	{"hvor mange virksomheder i Tyskland er på Peppol", LangDanish, IntentCount, "", "DE"},
	{"søg efter virksomheder der hedder Kristensen", LangDanish, IntentSearch, "", ""},
	{"Er Auto Centret Aalborg tilmeldt Peppol?", LangDanish, IntentOnPeppol, "", ""},
	{"hvornår udløber adgangspunktets certifikat for 0088:5790000435975", LangDanish, IntentCertificate, "", ""},
	// Word for word Norwegian too: Norwegian wins the tie (see tongues).
	{"Kan man sende kreditnotaer til 0007:5560360793?", LangNorwegian, IntentCanReceive, DocCreditNote, ""},
	{"Hvilke processer understøtter Gartneriet Skov?", LangDanish, IntentDocumentTypes, "", ""},
	{"voiko Tilitoimisto Salonen vastaanottaa e-laskuja", LangFinnish, IntentCanReceive, DocInvoice, ""},
	{"mikä on yrityksen Rautakauppa Hämäläinen Oy operaattori", LangFinnish, IntentAccessPoint, "", ""},
	{"montako yritystä Saksassa on Peppolissa", LangFinnish, IntentCount, "", "DE"},
	{"etsi yrityksiä nimeltä Koskinen", LangFinnish, IntentSearch, "", ""},
	{"onko Kiinteistöhuolto Järvinen Oy Peppolissa?", LangFinnish, IntentOnPeppol, "", ""},
	{"milloin yrityksen Lumi Design Oy sertifikaatti vanhenee", LangFinnish, IntentCertificate, "", ""},
	{"voiko yritykselle 0007:5560360793 lähettää tilauksia Peppolin kautta", LangFinnish, IntentCanReceive, DocOrder, ""},
	{"mitä asiakirjatyyppejä Painotalo Laaksonen Oy tukee", LangFinnish, IntentDocumentTypes, "", ""},
	{"czy firma Auto-Serwis Lis może otrzymywać e-faktury", LangPolish, IntentCanReceive, DocInvoice, ""},
	{"jaki jest punkt dostępowy firmy Kwiaciarnia Mazur", LangPolish, IntentAccessPoint, "", ""},
	{"ile firm w Hiszpanii jest w Peppol", LangPolish, IntentCount, "", "ES"},
	{"szukaj firm o nazwie Nowakowski", LangPolish, IntentSearch, "", ""},
	{"Czy Drukarnia Pawlak jest w Peppol?", LangPolish, IntentOnPeppol, "", ""},
	{"do kiedy jest ważny certyfikat firmy Zakład Stolarski Kaczmarek?", LangPolish, IntentCertificate, "", ""},
	{"czy można wysyłać faktury korygujące do 0007:5560360793", LangPolish, IntentCanReceive, DocCreditNote, ""},
	{"jakie procesy obsługuje Przetwórnia Ryb Bałtyk?", LangPolish, IntentDocumentTypes, "", ""},
}

// TestRuleElevenLanguages plans the development questions of the five new languages:
// intent, document, country and the language of the answer.
func TestRuleElevenLanguages(t *testing.T) {
	t.Parallel()
	right := map[string][2]int{}
	for _, c := range slices.Concat(elevenCases, elevenCasesInformal) {
		p := RulePlanner{}.Plan(c.q)
		doc := c.doc
		if doc == "" {
			doc = DocAny
		}
		r := right[c.lang]
		r[1]++
		if p.Language != c.lang || p.Intent != c.intent || p.Document != doc || p.Country != c.country {
			t.Errorf("Plan(%q) = %s; want language %s, intent %s, document %s, country %q", c.q, planString(p), c.lang, c.intent, doc, c.country)
		} else {
			r[0]++
		}
		right[c.lang] = r
		if err := checkCalls(p); err != nil {
			t.Errorf("Plan(%q): %v", c.q, err)
		}
	}
	t.Logf("right per language: %s", breakdown(right))
}

// TestRuleNearLanguagesEnglish: questions in languages close to one of the eleven
// (Portuguese, Czech, Slovak, Estonian, Hungarian, Romanian) are answered in English,
// never in the one of ours they share words with.
func TestRuleNearLanguagesEnglish(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		// Portuguese, not Spanish.
		"A empresa Padaria Lisboa pode receber faturas pelo Peppol?",
		"Quantas empresas portuguesas estão registadas no Peppol?",
		"Qual é o ponto de acesso de 0208:0677424046?",
		"Encontre padarias em Portugal",
		"Quem é 0192:923609016?",
		"Olá, a Construtora Silva está registrada na rede Peppol?",
		// Czech and Slovak, not Polish.
		"Může firma Stavby Novák přijímat faktury přes Peppol?",
		"Kolik českých firem je v Peppolu?",
		"Kdo je 0208:0677424046?",
		"Môže spoločnosť Pekáreň Horváth prijímať faktúry cez Peppol?",
		"Koľko slovenských firiem je v Peppole?",
		// Estonian, not Finnish.
		"Kas ettevõte Pagariäri Tamm saab Peppoli kaudu arveid vastu võtta?",
		"Mitu Eesti ettevõtet on Peppolis?",
		"Kes on 0208:0677424046?",
		// Hungarian and Romanian.
		"Tud a Pék Kft. e-számlát fogadni a Peppolon?",
		"Hány magyar cég van a Peppolon?",
		"Poate firma Brutăria Popescu să primească facturi prin Peppol?",
		"Câte companii românești sunt în Peppol?",
		"Quais tipos de documento a empresa Pedreira Costa aceita?",
		// Catalan, Lithuanian, Faroese, Slovak, Turkish: seen answered in French,
		// Swedish, Norwegian, Polish and Polish before they were read as foreign.
		"Pot l'empresa Forns Vila rebre factures?",
		"Quantes empreses catalanes hi ha a Peppol?",
		"Ar įmonė Maxima gali gauti sąskaitas?",
		"Kan Føroya Banki taka ímóti rokningum?",
		"Ktoré firmy na Slovensku sú v Peppole?",
		"Firma Arçelik fatura alabilir mi?",
		"A Sapataria Lopes pode receber notas de crédito?",
	} {
		if p := (RulePlanner{}).Plan(q); p.Language != LangEnglish {
			t.Errorf("Plan(%q) = %s; want the answer in English", q, planString(p))
		}
		if got := DetectLanguage(q); got != LangEnglish {
			t.Errorf("DetectLanguage(%q) = %s, want en", q, got)
		}
	}
}

// TestRuleDanishNorwegian tells Danish from Norwegian by the words that differ
// (modtage/motta, virksomheder/bedrifter, hvad/hva, registreret/registrert), not by
// the country a question names.
func TestRuleDanishNorwegian(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ q, lang string }{
		{"Kan Rørlegger Berg AS motta fakturaer?", LangNorwegian},
		{"Kan VVS Berg ApS modtage fakturaer?", LangDanish},
		{"Hvilke norske bedrifter er på Peppol?", LangNorwegian},
		{"Hvilke danske virksomheder er på Peppol?", LangDanish},
		{"Hva er aksesspunktet til Fjordfrakt AS?", LangNorwegian},
		{"Hvad er adgangspunktet for Fjordfragt ApS?", LangDanish},
		{"Når utløper sertifikatet til 0192:923609016?", LangNorwegian},
		{"Hvornår udløber certifikatet for 0192:923609016?", LangDanish},
		{"Er Bakeriet Olsen registrert i Peppol?", LangNorwegian},
		{"Er Bageriet Olsen registreret i Peppol?", LangDanish},
		{"Hvor mange bedrifter i Danmark er på Peppol?", LangNorwegian},
		{"Hvor mange virksomheder i Norge er på Peppol?", LangDanish},
		{"Kan Nordisk Bakeri AS ta imot ordrer?", LangNorwegian},
		{"Kan Nordisk Bageri A/S tage imod ordrer?", LangDanish},
		{"Hvem håndterer Peppol for Jensen ApS?", LangDanish},
		{"Hvem håndterer Peppol for Jensen AS?", LangNorwegian},
		// "et" is French too: "har" and "et" are Norwegian and Danish words.
		{"Har Kiwi Norge AS et aksesspunkt?", LangNorwegian},
		{"Har Netto A/S et adgangspunkt?", LangDanish},
		// The national number's name: CVR is Danish, MVA Norwegian.
		{"Er CVR 12345678 på Peppol?", LangDanish},
		{"Er 923609016 MVA på Peppol?", LangNorwegian},
		{"Hvordan kan jeg se om Tømrer Lund ApS kan modtage fakturaer?", LangDanish},
		{"Hvilket aksesspunkt bruker Snekker Lund AS?", LangNorwegian},
		{"Finnes Bakeri Hansen AS i Peppol?", LangNorwegian},
		{"Findes Bageri Hansen ApS i Peppol?", LangDanish},
	} {
		if p := (RulePlanner{}).Plan(tt.q); p.Language != tt.lang {
			t.Errorf("Plan(%q) = %s; want language %s", tt.q, planString(p), tt.lang)
		}
	}
}

// TestTonguesComplete: every tongue fills every phrase English fills, with the same
// arguments, names every document kind, category and warning the others name.
func TestTonguesComplete(t *testing.T) {
	t.Parallel()
	verbs := regexp.MustCompile(`%(\[\d+\])?[a-z]`)
	args := func(s string) []string {
		var out []string
		next := 1
		for _, m := range verbs.FindAllStringSubmatch(s, -1) {
			i := next
			if m[1] != "" {
				i = int(m[1][1] - '0')
			}
			for len(out) < i {
				out = append(out, "")
			}
			out[i-1] = m[0][len(m[0])-1:]
			next = i + 1
		}
		return out
	}
	for _, code := range []string{LangSpanish, LangItalian, LangDanish, LangFinnish, LangPolish} {
		if tongueOf(code).code != code {
			t.Errorf("no tongue for %s", code)
		}
	}
	en := reflect.ValueOf(english)
	for _, tg := range tongues {
		v := reflect.ValueOf(*tg)
		for i := 0; i < v.NumField(); i++ {
			f, ef := v.Field(i), en.Field(i)
			name := v.Type().Field(i).Name
			if f.Kind() == reflect.String && ef.String() != "" {
				if f.String() == "" && name != "hints" && name != "letters" {
					t.Errorf("%s: %s is empty", tg.code, name)
				} else if a, b := args(f.String()), args(ef.String()); !slices.Equal(a, b) {
					t.Errorf("%s: %s takes %v, English %v: %q", tg.code, name, a, b, f.String())
				}
			}
		}
		// The words and phrases of issue 29's kinds of questions (kw, kp) are nested:
		// each string, and each cause, must be there with English's verbs.
		for _, nest := range []string{"kw", "kp"} {
			f, ef := v.FieldByName(nest), en.FieldByName(nest)
			for j := 0; j < f.NumField(); j++ {
				name := nest + "." + f.Type().Field(j).Name
				switch g, eg := f.Field(j), ef.Field(j); g.Kind() {
				case reflect.String:
					if g.String() == "" && eg.String() != "" {
						t.Errorf("%s: %s is empty", tg.code, name)
					} else if a, b := args(g.String()), args(eg.String()); !slices.Equal(a, b) {
						t.Errorf("%s: %s takes %v, English %v: %q", tg.code, name, a, b, g.String())
					}
				case reflect.Map:
					for _, key := range eg.MapKeys() {
						w := g.MapIndex(key)
						if !w.IsValid() || w.String() == "" {
							t.Errorf("%s: %s[%q] is missing", tg.code, name, key.String())
						} else if a, b := args(w.String()), args(eg.MapIndex(key).String()); !slices.Equal(a, b) {
							t.Errorf("%s: %s[%q] takes %v, English %v", tg.code, name, key.String(), a, b)
						}
					}
				default:
					t.Errorf("%s: %s is a %s, which this test does not check yet", tg.code, name, g.Kind())
				}
			}
		}
		for _, d := range []string{DocInvoice, DocCreditNote, DocOrder, DocAny} {
			if tg.docs[d] == "" {
				t.Errorf("%s: no name for documents %q", tg.code, d)
			}
		}
		if tg.code == LangEnglish {
			continue
		}
		for k := range french.kinds {
			if tg.kinds[k] == "" {
				t.Errorf("%s: no name for the kind %q", tg.code, k)
			}
		}
		for k := range norwegian.gists {
			if tg.gists[k] == "" {
				t.Errorf("%s: no gist of %s", tg.code, k)
			}
		}
		if tg.docType[0] == "" || tg.card[1] == "" || tg.day[1] == "" || tg.match[1] == "" || tg.entry[1] == "" || tg.certificate[1] == "" {
			t.Errorf("%s: a counted noun is missing", tg.code)
		}
	}
}

// TestTongueCounts: Polish counts take three forms (1 faktura, 2–4 faktury, 5+
// faktur, but 12–14 like 5), Finnish two (1 lasku, 2 laskua); large numbers are
// grouped as each language writes them.
func TestTongueCounts(t *testing.T) {
	t.Parallel()
	pl, fi := tongueOf(LangPolish), tongueOf(LangFinnish)
	for _, tt := range []struct {
		t    *tongue
		n    int
		noun [2]string
		want string
	}{
		{pl, 1, pl.docType, "1 typ dokumentu"},
		{pl, 3, pl.docType, "3 typy dokumentów"},
		{pl, 5, pl.docType, "5 typów dokumentów"},
		{pl, 12, pl.docType, "12 typów dokumentów"},
		{pl, 22, pl.docType, "22 typy dokumentów"},
		{pl, 1, pl.day, "1 dzień"},
		{pl, 4, pl.day, "4 dni"},
		{pl, 12345, pl.card, "12\u00a0345 wizytówek"},
		{fi, 1, fi.docType, "1 dokumenttityyppi"},
		{fi, 7, fi.docType, "7 dokumenttityyppiä"},
		{fi, 12345, fi.card, "12\u00a0345 käyntikorttia"},
		{tongueOf(LangSpanish), 12345, tongueOf(LangSpanish).card, "12.345 fichas"},
		{tongueOf(LangItalian), 2345, tongueOf(LangItalian).card, "2.345 schede"},
		{tongueOf(LangDanish), 2345, tongueOf(LangDanish).card, "2.345 visitkort"},
		{tongueOf(LangEnglish), 3, tongueOf(LangEnglish).docType, "3 document types"},
	} {
		if got := tt.t.count(tt.n, tt.noun); got != tt.want {
			t.Errorf("%s count(%d) = %q, want %q", tt.t.code, tt.n, got, tt.want)
		}
	}
}

// TestTongueDates: each language writes a date its usual way.
func TestTongueDates(t *testing.T) {
	t.Parallel()
	d := time.Date(2027, 3, 5, 13, 0, 0, 0, time.UTC)
	for code, want := range map[string]string{
		LangEnglish: "2027-03-05", LangSwedish: "2027-03-05", LangFrench: "05/03/2027", LangDutch: "05-03-2027",
		LangGerman: "05.03.2027", LangNorwegian: "05.03.2027", LangSpanish: "05/03/2027", LangItalian: "05/03/2027",
		LangDanish: "05.03.2027", LangFinnish: "5.3.2027", LangPolish: "05.03.2027",
	} {
		if got := tongueOf(code).date(d); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
}

// TestAskElevenLanguages asks questions in the five new languages through the rule
// planner and the real registry over netsim, and checks that the answer is in the
// asker's language, with its words and its form of dates.
func TestAskElevenLanguages(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	for _, tt := range []struct {
		q, lang string
		intent  Intent
		wantIn  []string
		date    string // a regexp the answer's date matches
	}{
		{"¿Cuándo caduca el certificado del punto de acceso de " + netsim.KnownCertExpiring + "?", LangSpanish, IntentCertificate,
			[]string{"El certificado del punto de acceso de", "es válido hasta el", "días"}, `\b1\d/03/2026\b`},
		{"¿Puede " + netsim.KnownCertExpired + " recibir notas de crédito?", LangSpanish, IntentCanReceive, []string{"Ahora no: "}, ""},
		{"¿Quién es " + netsim.KnownBelgian + "?", LangSpanish, IntentLookup, []string{"está registrado en Peppol", "punto de acceso"}, ""},
		{"Quando scade il certificato di " + netsim.KnownCertExpiring + "?", LangItalian, IntentCertificate,
			[]string{"Il certificato del punto di accesso di", "è valido fino al", "giorni"}, `\b1\d/03/2026\b`},
		{"" + netsim.KnownCertExpired + " può ricevere note di credito?", LangItalian, IntentCanReceive, []string{"Non al momento: "}, ""},
		{"Chi è " + netsim.KnownBelgian + "?", LangItalian, IntentLookup, []string{"è registrato su Peppol", "punto di accesso"}, ""},
		{"Hvornår udløber certifikatet for " + netsim.KnownCertExpiring + "?", LangDanish, IntentCertificate,
			[]string{"Adgangspunktcertifikatet for", "er gyldigt til", "dage"}, `\b1\d\.03\.2026\b`},
		{"Kan " + netsim.KnownCertExpired + " modtage kreditnotaer?", LangDanish, IntentCanReceive, []string{"Ikke lige nu: "}, ""},
		{"Hvad er " + netsim.KnownBelgian + "?", LangDanish, IntentLookup, []string{"er registreret i Peppol", "adgangspunkt"}, ""},
		{"Milloin yrityksen " + netsim.KnownCertExpiring + " varmenne vanhenee?", LangFinnish, IntentCertificate,
			[]string{"liityntäpisteen varmenne", "on voimassa", "päivää"}, `\b1\d\.3\.2026\b`},
		{"Voiko " + netsim.KnownCertExpired + " vastaanottaa hyvityslaskuja?", LangFinnish, IntentCanReceive, []string{"Ei juuri nyt: "}, ""},
		{"Kuka on " + netsim.KnownBelgian + "?", LangFinnish, IntentLookup, []string{"on rekisteröity Peppoliin", "liityntäpiste"}, ""},
		{"Kiedy wygasa certyfikat " + netsim.KnownCertExpiring + "?", LangPolish, IntentCertificate,
			[]string{"Certyfikat punktu dostępowego", "jest ważny do", "dni"}, `\b1\d\.03\.2026\b`},
		{"Czy " + netsim.KnownCertExpired + " może odbierać faktury korygujące?", LangPolish, IntentCanReceive, []string{"Nie w tej chwili: "}, ""},
		{"Kim jest " + netsim.KnownBelgian + "?", LangPolish, IntentLookup, []string{"jest zarejestrowany w Peppol", "punktu dostępowego"}, ""},
		{"Ile norweskich firm jest w Peppolu?", LangPolish, IntentCount, []string{"Katalog Peppol", "NO"}, ""},
		{"Quante aziende norvegesi sono su Peppol?", LangItalian, IntentCount, []string{"Il Peppol Directory", "NO"}, ""},
	} {
		t.Run(tt.lang+" "+string(tt.intent), func(t *testing.T) {
			a, err := e.Ask(t.Context(), tt.q, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Intent != tt.intent || a.Meta.Language != tt.lang {
				t.Errorf("%q: intent %s language %s; want %s %s", tt.q, a.Intent, a.Meta.Language, tt.intent, tt.lang)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(a.Answer, w) {
					t.Errorf("%q: answer lacks %q:\n%s", tt.q, w, a.Answer)
				}
			}
			if tt.date != "" && !regexp.MustCompile(tt.date).MatchString(a.Answer) {
				t.Errorf("%q: answer has no date like %s:\n%s", tt.q, tt.date, a.Answer)
			}
		})
	}
}

// TestAskElevenEveryAnswer asks each new language the questions that reach the other
// phrases of an answer (a participant only in the SML or only in the Directory, one
// that does not exist, a search, a count, document types, an access point) and checks
// that every answer is whole: in the asker's language, with no unfilled verb.
func TestAskElevenEveryAnswer(t *testing.T) {
	t.Parallel()
	n := startEngineNet(t)
	e := newEngine(t, n, RulePlanner{})
	be := n.Name(netsim.KnownBelgian)
	questions := map[string][]string{
		LangSpanish: {"¿Quién es " + netsim.KnownSMLOnly + "?", "¿Puede " + netsim.KnownDirectoryOnly + " recibir facturas?",
			"¿Quién es 0208:0000000097?", "Busca " + be, "¿Cuántas empresas noruegas hay en Peppol?",
			"¿Qué tipos de documentos acepta " + netsim.KnownBelgian + "?", "¿Qué punto de acceso usa " + netsim.KnownNorwegian + "?",
			"¿Puede " + netsim.KnownNorwegian + " recibir pedidos?"},
		LangItalian: {"Chi è " + netsim.KnownSMLOnly + "?", netsim.KnownDirectoryOnly + " può ricevere fatture?",
			"Chi è 0208:0000000097?", "Cerca " + be, "Quante aziende norvegesi ci sono su Peppol?",
			"Quali tipi di documento accetta " + netsim.KnownBelgian + "?", "Quale punto di accesso usa " + netsim.KnownNorwegian + "?",
			netsim.KnownNorwegian + " può ricevere ordini?"},
		LangDanish: {"Hvad er " + netsim.KnownSMLOnly + "?", "Kan " + netsim.KnownDirectoryOnly + " modtage fakturaer?",
			"Hvad er 0208:0000000097?", "Søg efter " + be, "Hvor mange norske virksomheder er registreret i Peppol?",
			"Hvilke dokumenttyper understøtter " + netsim.KnownBelgian + "?", "Hvilket adgangspunkt bruger " + netsim.KnownNorwegian + "?",
			"Kan " + netsim.KnownNorwegian + " modtage ordrer?"},
		LangFinnish: {"Kuka on " + netsim.KnownSMLOnly + "?", "Voiko " + netsim.KnownDirectoryOnly + " vastaanottaa laskuja?",
			"Kuka on 0208:0000000097?", "Etsi " + be, "Montako norjalaista yritystä on Peppolissa?",
			"Mitä dokumenttityyppejä " + netsim.KnownBelgian + " tukee?", "Mitä liityntäpistettä " + netsim.KnownNorwegian + " käyttää?",
			"Voiko " + netsim.KnownNorwegian + " vastaanottaa tilauksia?"},
		LangPolish: {"Kim jest " + netsim.KnownSMLOnly + "?", "Czy " + netsim.KnownDirectoryOnly + " może odbierać faktury?",
			"Kim jest 0208:0000000097?", "Znajdź " + be, "Ile norweskich firm jest w Peppol?",
			"Jakie typy dokumentów obsługuje " + netsim.KnownBelgian + "?", "Jakiego punktu dostępowego używa " + netsim.KnownNorwegian + "?",
			"Czy " + netsim.KnownNorwegian + " może odbierać zamówienia?"},
	}
	for lang, qs := range questions {
		for _, q := range qs {
			a, err := e.Ask(t.Context(), q, nil)
			if err != nil {
				t.Errorf("%q: %v", q, err)
				continue
			}
			if a.Meta.Language != lang || a.Intent == IntentUnknown || strings.Contains(a.Answer, "%!") || strings.Contains(a.Answer, "%[") {
				t.Errorf("%q: language %s intent %s, answer:\n%s", q, a.Meta.Language, a.Intent, a.Answer)
			}
			t.Logf("%s %q:\n%s", lang, q, a.Answer)
		}
	}
}

// TestRuleElevenForms is a third batch, seen failing before the change that reads
// them: Finnish case endings after a colon ("Oy:n", "Oy:lle"), Polish "sp. z o.o.",
// "has Peppol", "where can I see whether", a Danish question only its legal form tells
// from Norwegian (a tie between Danish and Norwegian words is broken by it). The
// subject is checked too: it is what is searched.
func TestRuleElevenForms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		langCase
		subject string
	}{
		{langCase{"Voiko Virtanen Oy:lle lähettää laskuja?", LangFinnish, IntentCanReceive, DocInvoice, ""}, "Virtanen Oy"},
		{langCase{"Mikä on Virtanen Oy:n Peppol-tunnus?", LangFinnish, IntentLookup, "", ""}, "Virtanen Oy"},
		{langCase{"Mikä on Virtanen Oy:n verkkolaskuosoite?", LangFinnish, IntentLookup, "", ""}, "Virtanen Oy"},
		{langCase{"Czy do firmy Nowak sp. z o.o. można wysłać fakturę przez Peppol?", LangPolish, IntentCanReceive, DocInvoice, ""}, "Nowak sp. z o.o."},
		{langCase{"Odbiera Nowak sp. z o.o. e-faktury?", LangPolish, IntentCanReceive, DocInvoice, ""}, "Nowak sp. z o.o."},
		{langCase{"¿Talleres Ruiz tiene Peppol?", LangSpanish, IntentOnPeppol, "", ""}, "Talleres Ruiz"},
		{langCase{"Ferramenta Rossi ha Peppol?", LangItalian, IntentOnPeppol, "", ""}, "Ferramenta Rossi"},
		{langCase{"¿Dónde puedo ver si Ruiz SL recibe facturas electrónicas?", LangSpanish, IntentCanReceive, DocInvoice, ""}, "Ruiz SL"},
		{langCase{"Kan jeg sende en faktura til Jensen ApS?", LangDanish, IntentCanReceive, DocInvoice, ""}, "Jensen ApS"},
		{langCase{"Hvad er Peppol-id'et for Jensen ApS?", LangDanish, IntentLookup, "", ""}, "Jensen ApS"},
		{langCase{"Hvem er Novo Nordisk A/S?", LangDanish, IntentLookup, "", ""}, "Novo Nordisk A/S"},
		{langCase{"Czy Nowak może odbierac fakture?", LangPolish, IntentCanReceive, DocInvoice, ""}, "Nowak"},
		{langCase{"Czy mógłby Pan sprawdzić, czy firma Nowak jest w Peppol?", LangPolish, IntentOnPeppol, "", ""}, "Nowak"},
		{langCase{"Podría usted decirme si Talleres Ruiz está en Peppol?", LangSpanish, IntentOnPeppol, "", ""}, "Talleres Ruiz"},
		{langCase{"Potrebbe dirmi se Rossi SpA è su Peppol?", LangItalian, IntentOnPeppol, "", ""}, "Rossi SpA"},
		{langCase{"Rossi SpA è registrata su Peppol oppure no?", LangItalian, IntentOnPeppol, "", ""}, "Rossi SpA"},
		{langCase{"kan Novo Nordisk modtage OIOUBL fakturaer?", LangDanish, IntentCanReceive, DocInvoice, ""}, "Novo Nordisk"},
		{langCase{"Voiko Virtanen Oy vastaanottaa Finvoice-laskuja?", LangFinnish, IntentCanReceive, DocInvoice, ""}, "Virtanen Oy"},
	} {
		p := RulePlanner{}.Plan(c.q)
		doc := c.doc
		if doc == "" {
			doc = DocAny
		}
		if p.Language != c.lang || p.Intent != c.intent || p.Document != doc || p.Subject != c.subject {
			t.Errorf("Plan(%q) = %s; want language %s, intent %s, document %s, subject %q", c.q, planString(p), c.lang, c.intent, doc, c.subject)
		}
	}
}

// TestReducePluralEleven: the plural (and Finnish partitive) nouns of the five
// languages are reduced to the part they share with their singular, as a substring
// search needs.
func TestReducePluralEleven(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, plural, want string }{
		{LangSpanish, "panaderías", "panadería"}, {LangSpanish, "talleres", "taller"}, {LangSpanish, "farmacias", "farmacia"},
		{LangItalian, "panetterie", "panetteri"}, {LangItalian, "alberghi", "alberg"}, {LangItalian, "ristoranti", "ristorant"},
		{LangDanish, "bagerier", "bageri"}, {LangDanish, "bagerierne", "bageri"}, {LangDanish, "virksomheder", "virksomhed"},
		{LangFinnish, "leipomoita", "leipom"}, {LangFinnish, "leipomoa", "leipomo"}, {LangFinnish, "hammaslääkäriä", "hammaslääkäri"},
		{LangPolish, "piekarnie", "piekarni"}, {LangPolish, "apteki", "aptek"}, {LangPolish, "hurtownie", "hurtowni"},
	} {
		if got := reducePlural(tongueOf(tt.lang), tt.plural); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.lang, tt.plural, got, tt.want)
		}
	}
}
