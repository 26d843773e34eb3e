package nlq

import (
	"regexp"
	"slices"
	"testing"
)

// tongue2Case is a development question of issue 29's points 1 and 4 and what its
// plan must say: the language of the answer (English for a language outside the
// eleven) and, when set, the intent and the subject (the company searched).
type tongue2Case struct {
	q, lang string
	intent  Intent
	subject string
}

// tongue2Cases were written before the code that reads them: Norwegian, Danish and
// Swedish told apart by the words that differ (bokmål and nynorsk, "hvordan" and
// "hvorledes", "ikke" and "ikkje", organisasjonsnummer and CVR-nummer), short
// questions, English loan words inside another language, questions that are mostly a
// name and a number, and languages outside the eleven that share words with one of
// ours (Portuguese and Spanish, Czech/Slovak and Polish, Estonian and Finnish,
// Romanian and Italian).
var tongue2Cases = []tongue2Case{
	// Norwegian (bokmål, nynorsk) and Danish.
	{"Hvorledes kan jeg se om Nordlys Bygg er registrert?", LangNorwegian, IntentOnPeppol, "Nordlys Bygg"},
	{"Korleis kan eg sjå om Nordlys Bygg er registrert i Peppol?", LangNorwegian, IntentOnPeppol, "Nordlys Bygg"},
	{"Kven er 0192:853367249?", LangNorwegian, IntentLookup, ""},
	{"Kan Haugen Maskin ikkje ta imot faktura?", LangNorwegian, IntentCanReceive, "Haugen Maskin"},
	{"Kan dei ta imot EHF-faktura, Nordlys Bygg AS?", LangNorwegian, IntentCanReceive, ""},
	{"Hvilket tilgangspunkt nyttar Haugen Maskin AS?", LangNorwegian, IntentAccessPoint, "Haugen Maskin AS"},
	{"Er organisasjonsnummer 892638012 registrert i Peppol?", LangNorwegian, IntentOnPeppol, ""},
	{"Er CVR-nummer 13978557 registreret i Peppol?", LangDanish, IntentOnPeppol, ""},
	{"Hvordan finder jeg ud af, om Randers Elektrik kan modtage fakturaer?", LangDanish, IntentCanReceive, "Randers Elektrik"},
	{"Kan vi sende faktura til Kjær Handel ApS?", LangDanish, IntentCanReceive, "Kjær Handel ApS"},
	{"Kan vi sende faktura til Haugen Maskin AS?", LangNorwegian, IntentCanReceive, "Haugen Maskin AS"},
	{"Hvilket access point benytter Kjær Handel?", LangDanish, IntentAccessPoint, "Kjær Handel"},
	{"Hvilket access point bruker Haugen Maskin?", LangNorwegian, IntentAccessPoint, "Haugen Maskin"},
	{"Hva er endepunktet til Nordlys Bygg?", LangNorwegian, IntentAccessPoint, "Nordlys Bygg"},
	{"Kan Haugen Maskin motta e-invoice?", LangNorwegian, IntentCanReceive, "Haugen Maskin"},
	{"Haugen Maskin AS, organisasjonsnummer 892638012 – er de på Peppol?", LangNorwegian, IntentOnPeppol, ""},
	{"Kjær Handel I/S, CVR-nr. 13978557: er de på Peppol?", LangDanish, IntentOnPeppol, ""},
	{"Modtager Kjær Handel e-fakturaer?", LangDanish, IntentCanReceive, "Kjær Handel"},
	{"Tar Nordlys Bygg imot fakturaer?", LangNorwegian, IntentCanReceive, "Nordlys Bygg"},
	{"Kan Umeå Fastigheter ta emot e-fakturor?", LangSwedish, IntentCanReceive, "Umeå Fastigheter"},
	{"Hur kan vi skicka faktura till Lindqvist Bygg AB?", LangSwedish, IntentCanReceive, "Lindqvist Bygg AB"},
	{"Vilken accesspunkt har Uppsala Bygg?", LangSwedish, IntentAccessPoint, "Uppsala Bygg"},
	// Word for word Danish and Norwegian: the participant id or VAT number decides.
	{"Hvem er 0184:13978557?", LangDanish, IntentLookup, ""},
	{"Hvem er 0192:853367249?", LangNorwegian, IntentLookup, ""},
	{"Hvem er DK13978557?", LangDanish, IntentLookup, ""},
	{"Kan vi sende faktura til 0184:13978557?", LangDanish, IntentCanReceive, ""},
	{"Kan vi sende faktura til NO892638012MVA?", LangNorwegian, IntentCanReceive, ""},
	{"Er 0184:13978557 på Peppol?", LangDanish, IntentOnPeppol, ""},
	{"Er 0192:853367249 på Peppol?", LangNorwegian, IntentOnPeppol, ""},
	{"Er CVR-nummer 13978557 på Peppol?", LangDanish, IntentOnPeppol, ""},
	{"Hvem har CVR-nummer 13978557?", LangDanish, IntentLookup, ""},
	{"Hvem har organisasjonsnummer 892638012?", LangNorwegian, IntentLookup, ""},
	{"Hvem har udstedt certifikatet til Kjær Handel?", LangDanish, IntentCertificate, ""},
	{"Hvem har utstedt sertifikatet til Haugen Maskin?", LangNorwegian, IntentCertificate, ""},
	{"Kan du hjælpe mig med at finde ud af, om Kjær Handel kan modtage fakturaer?", LangDanish, IntentCanReceive, ""},
	{"Kan du hjelpe meg å finne ut om Haugen Maskin kan motta faktura?", LangNorwegian, IntentCanReceive, ""},
	{"Hvornår blev Kjær Handel tilsluttet Peppol?", LangDanish, "", ""},
	{"Når ble Haugen Maskin tilkoblet Peppol?", LangNorwegian, "", ""},
	// Word for word both: the company's name decides.
	{"Kan vi sende faktura til Nørgaard Byg?", LangDanish, IntentCanReceive, ""},
	{"Kan vi sende faktura til Nordlys Bygg?", LangNorwegian, IntentCanReceive, ""},
	{"Kan vi skicka faktura till Uppsala Bygg?", LangSwedish, IntentCanReceive, ""},
	{"Hvem er Dahl Regnskap?", LangNorwegian, IntentLookup, ""},
	{"Hvem er Sørensen Regnskab?", LangDanish, IntentLookup, ""},
	{"Er Randers Elektrik på Peppol?", LangDanish, IntentOnPeppol, ""},
	{"Hvem er Kjær Handel?", LangDanish, IntentLookup, "Kjær Handel"},
	{"Hvilket access point har Mølgaard Transport?", LangDanish, IntentAccessPoint, "Mølgaard Transport"},
	{"Hvilket access point har Løvås Fisk?", LangNorwegian, IntentAccessPoint, "Løvås Fisk"},
	// Italian "Qual è", Spanish with the words Portuguese shares: still theirs.
	{"Qual è l'id Peppol di Torino Caffè?", LangItalian, IntentLookup, "Torino Caffè"},
	{"Qual è il provider di Torino Caffè?", LangItalian, IntentAccessPoint, "Torino Caffè"},
	{"È registrata su Peppol la Torino Caffè?", LangItalian, IntentOnPeppol, "Torino Caffè"},
	{"¿Puedo enviar notas de crédito a Madrid Transportes?", LangSpanish, IntentCanReceive, "Madrid Transportes"},
	{"¿Cuándo caduca el certificado de Castaño Servicios?", LangSpanish, IntentCertificate, "Castaño Servicios"},
	{"¿Es posible enviar una factura a Castaño Servicios por Peppol?", LangSpanish, IntentCanReceive, "Castaño Servicios"},
	// Words of other languages that fold to words of ours count for ours.
	{"Czy Nowak Handel może odbierać faktury przez Peppola?", LangPolish, IntentCanReceive, "Nowak Handel"},
	{"Może Nowak Handel odbierać faktury?", LangPolish, IntentCanReceive, "Nowak Handel"},
	{"Certifikat Kjær Handel?", LangDanish, IntentCertificate, "Kjær Handel"},
	// Words of other languages that are names in ours stay names.
	{"Can Saab receive invoices?", LangEnglish, IntentCanReceive, "Saab"},
	{"Can Ali Baba Ltd receive invoices?", LangEnglish, IntentCanReceive, "Ali Baba Ltd"},
	{"Can Prima Logistics receive invoices?", LangEnglish, IntentCanReceive, "Prima Logistics"},
	{"Mostra i primi 5 partecipanti in Italia", LangItalian, IntentSearch, ""},
	{"Can Li Ning receive invoices?", LangEnglish, IntentCanReceive, "Li Ning"},
	{"Ik wil weten of Zwolle Logistiek op Peppol zit", LangDutch, IntentOnPeppol, "Zwolle Logistiek"},
	{"I would like to know whether Smith Engineering is registered", LangEnglish, IntentOnPeppol, "Smith Engineering"},
	// Short questions: a name and a word or two.
	{"Umeå Fastigheter i Peppol?", LangSwedish, IntentOnPeppol, "Umeå Fastigheter"},
	{"Torino Caffè su Peppol?", LangItalian, IntentOnPeppol, "Torino Caffè"},
	{"Peña Distribuciones en Peppol?", LangSpanish, IntentOnPeppol, "Peña Distribuciones"},
	{"Hoffmann Elektrotechnik bei Peppol?", LangGerman, IntentOnPeppol, "Hoffmann Elektrotechnik"},
	{"Zugangspunkt Hoffmann Elektrotechnik?", LangGerman, IntentAccessPoint, "Hoffmann Elektrotechnik"},
	{"Haugen Maskin AS på Peppol?", LangNorwegian, IntentOnPeppol, "Haugen Maskin AS"},
	{"Adgangspunkt Kjær Handel?", LangDanish, IntentAccessPoint, "Kjær Handel"},
	{"Kim jest Nowak Handel?", LangPolish, IntentLookup, "Nowak Handel"},
	// Loan words in the other languages.
	{"Welchen Access Point hat Weiß & Fuchs?", LangGerman, IntentAccessPoint, "Weiß & Fuchs"},
	{"Was ist der Endpoint von Zwolle Logistiek?", LangGerman, IntentAccessPoint, "Zwolle Logistiek"},
	{"Kann Hoffmann Elektrotechnik E-Invoices über Peppol empfangen?", LangGerman, IntentCanReceive, "Hoffmann Elektrotechnik"},
	{"Quel access point utilise Grenoble Fromagerie ?", LangFrench, IntentAccessPoint, "Grenoble Fromagerie"},
	{"Welk access point heeft Zwolle Logistiek?", LangDutch, IntentAccessPoint, "Zwolle Logistiek"},
	{"Kan Zwolle Logistiek e-invoices ontvangen?", LangDutch, IntentCanReceive, "Zwolle Logistiek"},
	{"Che access point usa Torino Caffè?", LangItalian, IntentAccessPoint, "Torino Caffè"},
	{"¿Qué access point usa Castaño Servicios?", LangSpanish, IntentAccessPoint, "Castaño Servicios"},
	{"Jaki access point ma Nowak Handel?", LangPolish, IntentAccessPoint, "Nowak Handel"},
	{"Mikä on Espoo Rakennus Oy:n access point?", LangFinnish, IntentAccessPoint, "Espoo Rakennus Oy"},
	// The words around a name.
	{"Kann ich bei der Weiss & Fuchs GmbH E-Rechnungen einreichen?", LangGerman, IntentCanReceive, "Weiss & Fuchs GmbH"},
	{"Peut-on facturer chez Grenoble Fromagerie via Peppol ?", LangFrench, IntentCanReceive, "Grenoble Fromagerie"},
	{"Si possono mandare fatture presso Napoli Alimentari?", LangItalian, IntentCanReceive, "Napoli Alimentari"},
	{"Kan vi sende faktura til Kjær Køleteknik ApS via NemHandel?", LangDanish, IntentCanReceive, "Kjær Køleteknik ApS"},
	{"Quiero enviar una factura a Valencia Distribuciones, ¿la pueden recibir por Peppol?", LangSpanish, IntentCanReceive, "Valencia Distribuciones"},
	{"Ist die Moenchengladbach Metallverarbeitung im Peppol-Netz?", LangGerman, IntentOnPeppol, "Moenchengladbach Metallverarbeitung"},
	{"Onko Espoo Rakennus Oy Peppol-verkossa?", LangFinnish, IntentOnPeppol, "Espoo Rakennus Oy"},
	// Outside the eleven: English, and still what was asked.
	{"A empresa Madrid Transportes pode receber faturas pelo Peppol?", LangEnglish, IntentCanReceive, "Madrid Transportes"},
	{"Qual é o ponto de acesso da Torino Caffè?", LangEnglish, IntentAccessPoint, "Torino Caffè"},
	{"A Peña Distribuciones está no Peppol?", LangEnglish, IntentOnPeppol, "Peña Distribuciones"},
	{"Může Częstochowa Meble přijímat faktury přes Peppol?", LangEnglish, IntentCanReceive, "Częstochowa Meble"},
	{"Je firma Nowak Handel registrována v Peppolu?", LangEnglish, IntentOnPeppol, "Nowak Handel"},
	{"Je Weiss & Fuchs v Peppolu?", LangEnglish, IntentOnPeppol, "Weiss & Fuchs"},
	{"Môže Klagenfurt Handel prijímať faktúry?", LangEnglish, IntentCanReceive, "Klagenfurt Handel"},
	{"Je spoločnosť Cardiff Engineering zaregistrovaná v Peppole?", LangEnglish, IntentOnPeppol, "Cardiff Engineering"},
	{"Kas Espoo Rakennus saab Peppoli kaudu arveid vastu võtta?", LangEnglish, IntentCanReceive, "Espoo Rakennus"},
	{"Millist juurdepääsupunkti kasutab Espoo Rakennus?", LangEnglish, IntentAccessPoint, "Espoo Rakennus"},
	{"Tud a Hoffmann Elektrotechnik számlát fogadni Peppolon?", LangEnglish, IntentCanReceive, "Hoffmann Elektrotechnik"},
	{"Melyik hozzáférési pontot használja a Smith Engineering?", LangEnglish, IntentAccessPoint, "Smith Engineering"},
	{"Poate Valencia Distribuciones să primească facturi prin Peppol?", LangEnglish, IntentCanReceive, "Valencia Distribuciones"},
	{"Care este punctul de acces al Smith Engineering?", LangEnglish, IntentAccessPoint, "Smith Engineering"},
	{"Este Pemberton Healthcare înregistrată în Peppol?", LangEnglish, IntentOnPeppol, "Pemberton Healthcare"},
	{"Ar Dahl Regnskap gali gauti sąskaitas per Peppol?", LangEnglish, IntentCanReceive, "Dahl Regnskap"},
	{"Vai Kjær Handel var saņemt rēķinus caur Peppol?", LangEnglish, IntentCanReceive, "Kjær Handel"},
	{"Može li Cardiff Engineering primati račune putem Peppola?", LangEnglish, IntentCanReceive, "Cardiff Engineering"},
	{"Ali lahko Umeå Fastigheter prejema račune prek Peppola?", LangEnglish, IntentCanReceive, "Umeå Fastigheter"},
	{"Galway Distribution Peppol üzerinden fatura alabilir mi?", LangEnglish, IntentCanReceive, "Galway Distribution"},
	{"Μπορεί η Smith Engineering να λαμβάνει τιμολόγια μέσω Peppol;", LangEnglish, IntentCanReceive, "Smith Engineering"},
	{"Kdo je 9945:pl7689040698?", LangEnglish, IntentLookup, ""},
	{"Kes on 0216:003713623565?", LangEnglish, IntentLookup, ""},
	{"Cine este 9930:de419851414?", LangEnglish, IntentLookup, ""},
	{"Quem é 9920:esb35841048?", LangEnglish, IntentLookup, ""},
}

// tongue2Foreign are questions in languages outside the eleven, a second batch written
// after tongue2Cases passed and before the change that reads them (12 were answered in
// Italian, Spanish, Polish or Swedish, or their company not found): certificates,
// access points and presence in Portuguese, Czech, Slovak, Estonian, Hungarian,
// Romanian, Lithuanian, Latvian, Croatian, Turkish and Greek, each answered in English.
var tongue2Foreign = []tongue2Case{
	{"Olá, gostaria de saber se a Peña Distribuciones consegue receber faturas eletrónicas via Peppol.", LangEnglish, IntentCanReceive, "Peña Distribuciones"},
	{"Qual é o ponto de acesso usado pela empresa Torino Caffè?", LangEnglish, IntentAccessPoint, "Torino Caffè"},
	{"Quando expira o certificado da Smith Engineering?", LangEnglish, IntentCertificate, "Smith Engineering"},
	{"A Cardiff Engineering aceita notas de crédito?", LangEnglish, IntentCanReceive, "Cardiff Engineering"},
	{"A empresa Nowak Handel está registrada na rede Peppol?", LangEnglish, IntentOnPeppol, "Nowak Handel"},
	{"Dobrý den, může firma Klagenfurt Handel přijímat elektronické faktury?", LangEnglish, IntentCanReceive, "Klagenfurt Handel"},
	{"Jaký je přístupový bod společnosti Smith Engineering?", LangEnglish, IntentAccessPoint, "Smith Engineering"},
	{"Kdy vyprší certifikát Cardiff Engineering?", LangEnglish, IntentCertificate, "Cardiff Engineering"},
	{"Je Galway Distribution zaregistrována v síti Peppol?", LangEnglish, IntentOnPeppol, "Galway Distribution"},
	{"Kas Smith Engineering on Peppolis registreeritud?", LangEnglish, IntentOnPeppol, "Smith Engineering"},
	{"Milline on Cardiff Engineeringu teenusepakkuja?", LangEnglish, IntentAccessPoint, ""},
	{"Millal aegub Smith Engineering sertifikaat?", LangEnglish, IntentCertificate, "Smith Engineering"},
	{"Fogadhat a Torino Caffè elektronikus számlát?", LangEnglish, IntentCanReceive, "Torino Caffè"},
	{"Ki a Peppol szolgáltatója a Galway Distribution cégnek?", LangEnglish, IntentAccessPoint, "Galway Distribution"},
	{"Mikor jár le a Smith Engineering tanúsítványa?", LangEnglish, IntentCertificate, "Smith Engineering"},
	{"Benne van a Cardiff Engineering a Peppol hálózatban?", LangEnglish, IntentOnPeppol, "Cardiff Engineering"},
	{"Poate compania Smith Engineering să primească facturi electronice?", LangEnglish, IntentCanReceive, "Smith Engineering"},
	{"Care este furnizorul Peppol al firmei Torino Caffè?", LangEnglish, IntentAccessPoint, "Torino Caffè"},
	{"Când expiră certificatul Cardiff Engineering?", LangEnglish, IntentCertificate, "Cardiff Engineering"},
	{"Este firma Galway Distribution înregistrată în rețeaua Peppol?", LangEnglish, IntentOnPeppol, "Galway Distribution"},
	{"Ar įmonė Smith Engineering gali gauti elektronines sąskaitas?", LangEnglish, IntentCanReceive, "Smith Engineering"},
	{"Ar Cardiff Engineering yra Peppol tinkle?", LangEnglish, IntentOnPeppol, "Cardiff Engineering"},
	{"Vai uzņēmums Smith Engineering ir reģistrēts Peppol?", LangEnglish, IntentOnPeppol, "Smith Engineering"},
	{"Može li tvrtka Torino Caffè primati e-račune?", LangEnglish, IntentCanReceive, "Torino Caffè"},
	{"Je li Cardiff Engineering registrirana u Peppolu?", LangEnglish, IntentOnPeppol, "Cardiff Engineering"},
	{"Galway Distribution Peppol'de kayıtlı mı?", LangEnglish, IntentOnPeppol, "Galway Distribution"},
	{"Smith Engineering e-fatura alabilir mi?", LangEnglish, IntentCanReceive, "Smith Engineering"},
	{"Η Cardiff Engineering είναι στο Peppol;", LangEnglish, IntentOnPeppol, "Cardiff Engineering"},
	{"Ποιο είναι το σημείο πρόσβασης της Smith Engineering;", LangEnglish, IntentAccessPoint, "Smith Engineering"},
	{"Môže spoločnosť Torino Caffè prijímať elektronické faktúry cez Peppol?", LangEnglish, IntentCanReceive, "Torino Caffè"},
	{"Kto je 9932:gb452763733?", LangEnglish, IntentLookup, ""},
	{"Ki az a 9932:gb452763733?", LangEnglish, IntentLookup, ""},
	{"O que é 9932:gb452763733?", LangEnglish, IntentLookup, ""},
	{"Podem enviar faturas para 9932:gb452763733?", LangEnglish, IntentCanReceive, ""},
	{"Smith Engineering ltd - pode receber faturas?", LangEnglish, IntentCanReceive, "Smith Engineering ltd"},
}

// TestRuleTongues2 plans tongue2Cases and tongue2Foreign: language, intent and subject.
func TestRuleTongues2(t *testing.T) {
	t.Parallel()
	for _, c := range slices.Concat(tongue2Cases, tongue2Foreign) {
		p := RulePlanner{}.Plan(c.q)
		if p.Language != c.lang || c.intent != "" && p.Intent != c.intent || c.subject != "" && p.Subject != c.subject {
			t.Errorf("Plan(%q) = %s; want language %s, intent %s, subject %q", c.q, planString(p), c.lang, c.intent, c.subject)
		}
		if got := DetectLanguage(c.q); got != c.lang {
			t.Errorf("DetectLanguage(%q) = %s, want %s", c.q, got, c.lang)
		}
	}
}

// TestLinkRelaxedQueries: the searches linking adds when the subject's own finds no
// name matching it: transliterations reduced as the index folds them (two in one word
// are more than its typo tolerance), and the longer words alone when a short one may
// be mistyped; matchName then still compares every word typed, and says how.
func TestLinkRelaxedQueries(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ subject, translit, long string }{
		{"Loevaas Bygg", "lovas bygg", "loevaas"},
		{"Gross Sanitaer AG", "gross sanitar ag", ""},
		{"Torino Cafe", "", "torino"},
		{"Haugen Maskin AS", "", ""},
		{"Kjaer Bar", "kjar bar", "kjaer"},
		{"Ab", "", ""},
	} {
		if got := translitQuery(tt.subject); got != tt.translit {
			t.Errorf("translitQuery(%q) = %q, want %q", tt.subject, got, tt.translit)
		}
		if got := longWordsQuery(tt.subject); got != tt.long {
			t.Errorf("longWordsQuery(%q) = %q, want %q", tt.subject, got, tt.long)
		}
	}
	for _, tt := range []struct {
		typed, name  string
		ok, approx   bool
		typos, trans int
	}{
		{"Loevaas Bygg", "LØVÅS BYGG AS", true, true, 0, 1},
		{"Torino Cafe", "Torino Caffè S.n.c.", true, true, 1, 0},
		{"Torino Bar", "Torino Caffè S.n.c.", false, false, 0, 0},
		{"Torino Cafe", "Torino Consulenza S.a.s.", false, false, 0, 0},
		{"Nowak Hnadel", "Nowak Handel S.A.", true, true, 1, 0},
		{"Bold Tech", "Bolt Tech AS", true, true, 1, 0},
		{"Bold Tech", "Gold Tech AS", false, false, 0, 0},
	} {
		m := matchName(cutName(tt.typed, true), tt.name)
		if m.ok != tt.ok || m.ok && (m.approximate() != tt.approx || m.typos != tt.typos || m.translit != tt.trans) {
			t.Errorf("matchName(%q, %q) = %+v; want ok %v, approximate %v, %d typos, %d transliterated", tt.typed, tt.name, m, tt.ok, tt.approx, tt.typos, tt.trans)
		}
	}
}

// TestFinnishStemQuery: a Finnish name's last word in a case is cut to a stem the
// index matches as a prefix of the name's word.
func TestFinnishStemQuery(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ subject, want string }{
		{"Espoo Rakennukselle", "Espoo rakennu"},
		{"Jyväskylä Konsultoinnille", "Jyväskylä konsultoin"},
		{"Lähde Kiinteistöillä", "Lähde kiinteistö"},
		{"Kärkkäisen", "kärkkäi"},
		{"Espoo Rakennus", ""},
		{"Virtanen Oy", ""},
		{"Pyykön", "pyykö"}, // a gradation it does not undo: the search finds nothing
	} {
		if got := finnishStemQuery(tt.subject); got != tt.want {
			t.Errorf("finnishStemQuery(%q) = %q, want %q", tt.subject, got, tt.want)
		}
		name := map[string]string{"Espoo rakennu": "Espoo Rakennus Oy", "Jyväskylä konsultoin": "Jyväskylä Konsultointi Ky",
			"Lähde kiinteistö": "LÄHDE KIINTEISTÖT OY", "kärkkäi": "Kärkkäinen Oy"}[tt.want]
		if name != "" && !matchName(cutName(tt.want, true), name).ok {
			t.Errorf("the stem %q does not match its name", tt.want)
		}
	}
}

// TestShortTypo: a four-letter word one edit from a name's word, with its first letter.
func TestShortTypo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		typed, term string
		want        bool
	}{
		{"cafe", "caffe", true}, {"cafe", "cafe", true}, {"cfae", "cafe", true}, {"kafe", "caffe", false},
		{"bold", "bolt", true}, {"caf", "caffe", false}, {"cafes", "caffe", false}, {"nord", "nordisk", false},
		{"byg", "bygg", false}, {"bygg", "byg", true}, {"lund", "land", true},
	} {
		if got := shortTypo(tt.typed, tt.term); got != tt.want {
			t.Errorf("shortTypo(%q, %q) = %v, want %v", tt.typed, tt.term, got, tt.want)
		}
	}
	// Every pair of short words over a small alphabet: no panic, and symmetric in
	// what it forgives between two words of four letters.
	var words []string
	var grow func(w string)
	grow = func(w string) {
		if w != "" {
			words = append(words, w)
		}
		if len([]rune(w)) < 5 {
			for _, r := range "abé" {
				grow(w + string(r))
			}
		}
	}
	grow("")
	for _, a := range words {
		for _, b := range words {
			if shortTypo(a, b) && len([]rune(a)) == 4 && len([]rune(b)) == 4 && !shortTypo(b, a) {
				t.Fatalf("shortTypo(%q, %q) but not (%q, %q)", a, b, b, a)
			}
		}
	}
}

// TestNumberNamePhrases: every tongue says both sentences of a number and a name
// (numbers_name.go), with English's arguments.
func TestNumberNamePhrases(t *testing.T) {
	t.Parallel()
	verbs := regexp.MustCompile(`%\[\d\]s`)
	en := numberNamePhrases[LangEnglish]
	for _, tg := range tongues {
		p, ok := numberNamePhrases[tg.code]
		if !ok {
			t.Errorf("%s: no phrases for a number and a name", tg.code)
			continue
		}
		for i := range p {
			got, want := verbs.FindAllString(p[i], -1), verbs.FindAllString(en[i], -1)
			slices.Sort(got)
			slices.Sort(want)
			if p[i] == "" || !slices.Equal(got, want) {
				t.Errorf("%s: phrase %d %q takes %v, English %v", tg.code, i, p[i], got, want)
			}
		}
	}
}
