package server

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Issue 29 point 3, second round: the kinds of questions /ask understood least (counts,
// country lists, registration dates, certificate issuers and what peppolgate cannot
// know), asked as people ask them in the eleven languages, end to end through POST
// /ask over the demo network with its mirror, and judged as TestEvalIssue29 judges
// (eval29World.judge) with the answer in the asker's language. These are development
// questions of our own, written before the code: other companies and countries than
// the evaluation set's, other phrasings.
var kinds2Cases = []eval29Case{
	// count: the whole network, a country (its name, adjective or code), a document
	// kind, or both, from the statistics.
	{Lang: "en", Kind: "count", Query: "How many participants are there on the Peppol network in total?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "en", Kind: "count", Query: "Number of Austrian businesses registered on Peppol", Expect: eval29Expect{CountFrom: "stats", Country: "AT"}},
	{Lang: "en", Kind: "count", Query: "how many IE endpoints are there", Expect: eval29Expect{CountFrom: "stats", Country: "IE"}},
	{Lang: "en", Kind: "count", Query: "Total number of receivers that accept credit notes?", Expect: eval29Expect{CountFrom: "stats", Document: "Credit Note"}},
	{Lang: "fr", Kind: "count", Query: "Combien d'entreprises irlandaises sont inscrites sur Peppol ?", Expect: eval29Expect{CountFrom: "stats", Country: "IE"}},
	{Lang: "fr", Kind: "count", Query: "Nombre total de participants dans le réseau Peppol", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "nl", Kind: "count", Query: "Hoeveel deelnemers kunnen bestellingen ontvangen?", Expect: eval29Expect{CountFrom: "stats", Document: "Order"}},
	{Lang: "nl", Kind: "count", Query: "Aantal Italiaanse bedrijven op Peppol", Expect: eval29Expect{CountFrom: "stats", Country: "IT"}},
	{Lang: "de", Kind: "count", Query: "Wie viele Teilnehmer gibt es in Dänemark?", Expect: eval29Expect{CountFrom: "stats", Country: "DK"}},
	{Lang: "de", Kind: "count", Query: "Anzahl der Empfänger, die Gutschriften empfangen können", Expect: eval29Expect{CountFrom: "stats", Document: "Credit Note"}},
	{Lang: "no", Kind: "count", Query: "Hvor mange finske selskaper er registrert i Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "FI"}},
	{Lang: "no", Kind: "count", Query: "Hvor mange bedrifter kan motta ordrer?", Expect: eval29Expect{CountFrom: "stats", Document: "Order"}},
	{Lang: "sv", Kind: "count", Query: "Hur många deltagare finns det totalt i nätverket?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "sv", Kind: "count", Query: "Antal mottagare i Spanien", Expect: eval29Expect{CountFrom: "stats", Country: "ES"}},
	{Lang: "es", Kind: "count", Query: "¿Cuántas empresas de Singapur están en Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "SG"}},
	{Lang: "es", Kind: "count", Query: "Número total de participantes en Peppol", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "it", Kind: "count", Query: "Quanti partecipanti possono ricevere fatture?", Expect: eval29Expect{CountFrom: "stats", Document: "Invoice"}},
	{Lang: "it", Kind: "count", Query: "Quante aziende australiane sono registrate su Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "AU"}},
	{Lang: "da", Kind: "count", Query: "Hvor mange polske virksomheder er tilsluttet Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "PL"}},
	{Lang: "da", Kind: "count", Query: "Antal deltagere i Tyskland", Expect: eval29Expect{CountFrom: "stats", Country: "DE"}},
	{Lang: "fi", Kind: "count", Query: "Kuinka monta osallistujaa Peppol-verkossa on yhteensä?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "fi", Kind: "count", Query: "Montako ruotsalaista yritystä on Peppolissa?", Expect: eval29Expect{CountFrom: "stats", Country: "SE"}},
	{Lang: "pl", Kind: "count", Query: "Ile firm z Austrii jest w sieci Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "AT"}},
	{Lang: "pl", Kind: "count", Query: "Ile podmiotów może odbierać zamówienia?", Expect: eval29Expect{CountFrom: "stats", Document: "Order"}},

	// list: the participants of a country, with a document kind too.
	{Lang: "en", Kind: "list", Query: "List the participants in Ireland", Expect: eval29Expect{ListCountry: "IE"}},
	{Lang: "en", Kind: "list", Query: "Which companies in Finland can receive orders?", Expect: eval29Expect{ListCountry: "FI", ListDocument: "Order"}},
	{Lang: "en", Kind: "list", Query: "Who are the Peppol participants in Singapore?", Expect: eval29Expect{ListCountry: "SG"}},
	{Lang: "fr", Kind: "list", Query: "Montre-moi les entreprises autrichiennes sur Peppol", Expect: eval29Expect{ListCountry: "AT"}},
	{Lang: "nl", Kind: "list", Query: "Geef me de deelnemers in Denemarken", Expect: eval29Expect{ListCountry: "DK"}},
	{Lang: "de", Kind: "list", Query: "Welche Unternehmen in Polen sind bei Peppol registriert?", Expect: eval29Expect{ListCountry: "PL"}},
	{Lang: "de", Kind: "list", Query: "Zeig mir Teilnehmer aus Österreich, die Bestellungen empfangen können", Expect: eval29Expect{ListCountry: "AT", ListDocument: "Order"}},
	{Lang: "no", Kind: "list", Query: "Vis deltakerne i Sverige som kan motta kreditnotaer", Expect: eval29Expect{ListCountry: "SE", ListDocument: "Credit Note"}},
	{Lang: "sv", Kind: "list", Query: "Lista företag i Italien", Expect: eval29Expect{ListCountry: "IT"}},
	{Lang: "es", Kind: "list", Query: "Muéstrame los participantes en Austria", Expect: eval29Expect{ListCountry: "AT"}},
	{Lang: "it", Kind: "list", Query: "Elenca le aziende spagnole su Peppol", Expect: eval29Expect{ListCountry: "ES"}},
	{Lang: "da", Kind: "list", Query: "Hvilke virksomheder i Irland kan modtage ordrer?", Expect: eval29Expect{ListCountry: "IE", ListDocument: "Order"}},
	{Lang: "fi", Kind: "list", Query: "Listaa osallistujat Tanskassa", Expect: eval29Expect{ListCountry: "DK"}},
	{Lang: "pl", Kind: "list", Query: "Pokaż uczestników z Singapuru", Expect: eval29Expect{ListCountry: "SG"}},

	// reg-date: the Directory card's registration date.
	{Lang: "en", Kind: "reg-date", Query: "When was Kelly Services DAC registered?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "en", Kind: "reg-date", Query: "Since when is Höller Installationen KG on Peppol?", Expect: eval29Expect{Participant: []string{"9914:atu31827271"}, RegDate: "2017-11-07"}},
	{Lang: "fr", Kind: "reg-date", Query: "Depuis quand Conti Alimentari S.a.s. est-elle sur Peppol ?", Expect: eval29Expect{Participant: []string{"0211:it03688200280"}, RegDate: "2023-03-18"}},
	{Lang: "nl", Kind: "reg-date", Query: "Wanneer is Visser & Brouwer N.V. geregistreerd?", Expect: eval29Expect{Participant: []string{"0106:96306131"}, RegDate: "2022-11-14"}},
	{Lang: "de", Kind: "reg-date", Query: "Seit wann ist die Würzburg Bau KG bei Peppol?", Expect: eval29Expect{Participant: []string{"9930:de335486410"}, RegDate: "2025-08-29"}},
	{Lang: "no", Kind: "reg-date", Query: "Når ble Nørgaard ApS registrert i Peppol?", Expect: eval29Expect{Participant: []string{"0184:36546611"}, RegDate: "2023-03-22"}},
	{Lang: "sv", Kind: "reg-date", Query: "När registrerades ÖBERG FASTIGHETER HB?", Expect: eval29Expect{Participant: []string{"0007:5074670018"}, RegDate: "2019-10-21"}},
	{Lang: "es", Kind: "reg-date", Query: "¿Desde cuándo está García & Núñez S.A. en Peppol?", Expect: eval29Expect{Participant: []string{"9920:esb12211389"}, RegDate: "2019-10-15"}},
	{Lang: "it", Kind: "reg-date", Query: "Da quando Bianchi Trasporti S.a.s. è registrata su Peppol?", Expect: eval29Expect{Participant: []string{"0211:it15790794422"}, RegDate: "2024-01-12"}},
	{Lang: "da", Kind: "reg-date", Query: "Siden hvornår har KØGE KØLETEKNIK A/S været på Peppol?", Expect: eval29Expect{Participant: []string{"0184:66734129"}, RegDate: "2024-08-01"}},
	{Lang: "fi", Kind: "reg-date", Query: "Milloin Järvinen Kuljetus Ky rekisteröitiin Peppoliin?", Expect: eval29Expect{Participant: []string{"0216:003738422815"}, RegDate: "2017-11-19"}},
	{Lang: "pl", Kind: "reg-date", Query: "Od kiedy BIAŁYSTOK MEBLE S.A. jest w Peppol?", Expect: eval29Expect{Participant: []string{"9945:pl2579100592"}, RegDate: "2017-02-10"}},

	// issuer: who issued the access point certificate.
	{Lang: "en", Kind: "issuer", Query: "Who issued the certificate of Castaño Transportes S.Coop.'s access point?", Expect: eval29Expect{Participant: []string{"9920:esb54986666"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "en", Kind: "issuer", Query: "Is the AP certificate of 0088:5400000000041 from a Peppol CA?", Expect: eval29Expect{Participant: []string{"0088:5400000000041"}, Issuer: "Example Corp"}},
	{Lang: "fr", Kind: "issuer", Query: "Quelle autorité de certification a émis le certificat de De Luca Consulenza S.a.s. ?", Expect: eval29Expect{Participant: []string{"0211:it14834850308"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "nl", Kind: "issuer", Query: "Door wie is het certificaat van Lähde Sähkö Ky uitgegeven?", Expect: eval29Expect{Participant: []string{"0216:003731175276"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "de", Kind: "issuer", Query: "Wer hat das Zertifikat von Mödling Installationen KG ausgestellt?", Expect: eval29Expect{Participant: []string{"9914:atu98814890"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "sv", Kind: "issuer", Query: "Vem har utfärdat certifikatet för Linköping Fastigheter HB?", Expect: eval29Expect{Participant: []string{"0007:5047766166"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "es", Kind: "issuer", Query: "¿Quién emitió el certificado de García Ingeniería S.Coop.?", Expect: eval29Expect{Participant: []string{"9920:esb71366330"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "it", Kind: "issuer", Query: "Chi ha rilasciato il certificato di Ferrari & Niccolò S.r.l.?", Expect: eval29Expect{Participant: []string{"0211:it03156902565"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "fi", Kind: "issuer", Query: "Kuka myönsi Kärkkäinen Sähkö Oy:n varmenteen?", Expect: eval29Expect{Participant: []string{"0216:003714647585"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "pl", Kind: "issuer", Query: "Kto wystawił certyfikat dla Kowalski Elektronika Sp. z o.o.?", Expect: eval29Expect{Participant: []string{"9945:pl9673568707"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},

	// cannot: what peppolgate cannot know, answered honestly without a lookup.
	{Lang: "en", Kind: "cannot", Query: "What does a Peppol access point subscription cost per month?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "What is the phone number of the CEO of Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fr", Kind: "cannot", Query: "Quel est le chiffre d'affaires de Conti Alimentari ?", Expect: eval29Expect{Cannot: true}},
	{Lang: "nl", Kind: "cannot", Query: "Wat is het rekeningnummer van Visser & Brouwer?", Expect: eval29Expect{Cannot: true}},
	{Lang: "de", Kind: "cannot", Query: "Ab wann ist die E-Rechnung in Deutschland Pflicht?", Expect: eval29Expect{Cannot: true}},
	{Lang: "no", Kind: "cannot", Query: "Hva blir været i Bergen i morgen?", Expect: eval29Expect{Cannot: true}},
	{Lang: "sv", Kind: "cannot", Query: "Vad kostar det att ansluta sig till Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "es", Kind: "cannot", Query: "¿Cuál es la fecha límite para la factura electrónica obligatoria en España?", Expect: eval29Expect{Cannot: true}},
	{Lang: "it", Kind: "cannot", Query: "Qual è l'IBAN di Bianchi Trasporti?", Expect: eval29Expect{Cannot: true}},
	{Lang: "da", Kind: "cannot", Query: "Hvad er omsætningen for Nørgaard ApS?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fi", Kind: "cannot", Query: "Paljonko Peppol-liittymä maksaa?", Expect: eval29Expect{Cannot: true}},
	{Lang: "pl", Kind: "cannot", Query: "Jaki jest numer telefonu do firmy Nowak Sp.k.?", Expect: eval29Expect{Cannot: true}},
	// Real questions that merely contain such words are answered, not refused.
	{Lang: "en", Kind: "not-cannot", Query: "E-invoicing is mandatory for us next year: can Kelly Services DAC receive invoices via Peppol?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}}},
	{Lang: "de", Kind: "not-cannot", Query: "Die E-Rechnung ist bald Pflicht – kann Würzburg Bau KG Rechnungen empfangen?", Expect: eval29Expect{Participant: []string{"9930:de335486410"}}},
	{Lang: "fr", Kind: "not-cannot", Query: "Sans frais supplémentaires, combien de participants y a-t-il en Irlande ?", Expect: eval29Expect{CountFrom: "stats", Country: "IE"}},
}

// kinds2More are a second round of development questions, written after the first
// passed and before the code for them.
var kinds2More = []eval29Case{
	{Lang: "en", Kind: "count", Query: "What's the total number of Peppol participants?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "en", Kind: "count", Query: "In total, how many businesses are on Peppol?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "en", Kind: "count", Query: "Count of SE participants", Expect: eval29Expect{CountFrom: "stats", Country: "SE"}},
	{Lang: "en", Kind: "count", Query: "How many Belgian companies can receive orders?", Expect: eval29Expect{CountFrom: "stats", Country: "BE"}},
	{Lang: "fr", Kind: "count", Query: "Combien de destinataires acceptent les avoirs ?", Expect: eval29Expect{CountFrom: "stats", Document: "Credit Note"}},
	{Lang: "de", Kind: "count", Query: "Wie viele österreichische Firmen sind im Peppol-Netzwerk?", Expect: eval29Expect{CountFrom: "stats", Country: "AT"}},
	{Lang: "da", Kind: "count", Query: "Hvor mange danske virksomheder kan modtage fakturaer?", Expect: eval29Expect{CountFrom: "stats", Country: "DK"}},
	{Lang: "sv", Kind: "count", Query: "Hur många företag i Norge kan ta emot order?", Expect: eval29Expect{CountFrom: "stats", Country: "NO"}},
	{Lang: "sv", Kind: "count", Query: "antal deltagare totalt", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "es", Kind: "count", Query: "¿Cuántos participantes hay en Francia?", Expect: eval29Expect{CountFrom: "stats", Country: "FR"}},
	{Lang: "it", Kind: "count", Query: "Quanti destinatari ci sono in Germania?", Expect: eval29Expect{CountFrom: "stats", Country: "DE"}},
	{Lang: "fi", Kind: "count", Query: "Kuinka monta yritystä Suomessa on Peppolissa?", Expect: eval29Expect{CountFrom: "stats", Country: "FI"}},
	{Lang: "pl", Kind: "count", Query: "Ile jest polskich firm w Peppolu?", Expect: eval29Expect{CountFrom: "stats", Country: "PL"}},
	{Lang: "nl", Kind: "count", Query: "Aantal deelnemers in het Verenigd Koninkrijk", Expect: eval29Expect{CountFrom: "stats", Country: "GB"}},
	{Lang: "no", Kind: "count", Query: "Totalt antall deltakere i Peppol?", Expect: eval29Expect{CountFrom: "stats"}},

	{Lang: "en", Kind: "list", Query: "Show me all Norwegian companies that accept credit notes", Expect: eval29Expect{ListCountry: "NO", ListDocument: "Credit Note"}},
	{Lang: "fr", Kind: "list", Query: "Liste des participants en Allemagne", Expect: eval29Expect{ListCountry: "DE"}},
	{Lang: "nl", Kind: "list", Query: "Welke bedrijven in Oostenrijk staan op Peppol?", Expect: eval29Expect{ListCountry: "AT"}},
	{Lang: "de", Kind: "list", Query: "Liste alle Teilnehmer in Irland auf", Expect: eval29Expect{ListCountry: "IE"}},
	{Lang: "no", Kind: "list", Query: "Hvilke selskaper i Danmark kan motta bestillinger?", Expect: eval29Expect{ListCountry: "DK", ListDocument: "Order"}},
	{Lang: "sv", Kind: "list", Query: "Vilka företag i Finland finns på Peppol?", Expect: eval29Expect{ListCountry: "FI"}},
	{Lang: "es", Kind: "list", Query: "¿Qué empresas de Italia pueden recibir pedidos?", Expect: eval29Expect{ListCountry: "IT", ListDocument: "Order"}},
	{Lang: "it", Kind: "list", Query: "Quali aziende in Polonia sono su Peppol?", Expect: eval29Expect{ListCountry: "PL"}},
	{Lang: "da", Kind: "list", Query: "Vis mig virksomheder i Sverige", Expect: eval29Expect{ListCountry: "SE"}},
	{Lang: "fi", Kind: "list", Query: "Näytä suomalaiset yritykset", Expect: eval29Expect{ListCountry: "FI"}},
	{Lang: "pl", Kind: "list", Query: "Wymień firmy z Irlandii, które mogą odbierać faktury", Expect: eval29Expect{ListCountry: "IE", ListDocument: "Invoice"}},

	{Lang: "en", Kind: "reg-date", Query: "When did MURPHY SERVICES DAC join Peppol?", Expect: eval29Expect{Participant: []string{"9935:ie2423684l"}, RegDate: "2025-12-22"}},
	{Lang: "en", Kind: "reg-date", Query: "registration date of O'Sullivan Construction DAC", Expect: eval29Expect{Participant: []string{"9935:ie4664268k"}, RegDate: "2017-03-04"}},
	{Lang: "fr", Kind: "reg-date", Query: "Quelle est la date d'inscription de Hölzl Handel Graz GmbH ?", Expect: eval29Expect{Participant: []string{"9914:atu96936370"}, RegDate: "2023-09-08"}},
	{Lang: "nl", Kind: "reg-date", Query: "Sinds wanneer staat DE JONG & VAN DEN BERG B.V. op Peppol?", Expect: eval29Expect{Participant: []string{"0106:60441156"}, RegDate: "2024-04-29"}},
	{Lang: "de", Kind: "reg-date", Query: "Wann wurde SCHÄFER METALLVERARBEITUNG AG registriert?", Expect: eval29Expect{Participant: []string{"9930:de196192548"}, RegDate: "2023-09-22"}},
	{Lang: "no", Kind: "reg-date", Query: "Hvor lenge har Mølgaard Rådgivning ApS vært registrert?", Expect: eval29Expect{Participant: []string{"0184:13585628"}, RegDate: "2023-02-17"}},
	{Lang: "sv", Kind: "reg-date", Query: "Sedan när finns Linköping Fastigheter AB (publ) på Peppol?", Expect: eval29Expect{Participant: []string{"0007:5981457855"}, RegDate: "2021-08-07"}},
	{Lang: "es", Kind: "reg-date", Query: "¿Cuándo se registró García & Martínez S.L.?", Expect: eval29Expect{Participant: []string{"9920:esb12926424"}, RegDate: "2022-01-24"}},
	{Lang: "it", Kind: "reg-date", Query: "Quando è stata registrata Österreicher Technik e.U.?", Expect: eval29Expect{Participant: []string{"9914:atu75258025"}, RegDate: "2017-02-25"}},
	{Lang: "da", Kind: "reg-date", Query: "Hvornår blev Øresund & Nørgaard I/S tilmeldt Peppol?", Expect: eval29Expect{Participant: []string{"0184:96637446"}, RegDate: "2023-11-14"}},
	{Lang: "fi", Kind: "reg-date", Query: "Mistä lähtien Öhman & Mäkinen Oyj on ollut Peppolissa?", Expect: eval29Expect{Participant: []string{"0216:003703104059"}, RegDate: "2018-09-01"}},
	{Lang: "pl", Kind: "reg-date", Query: "Kiedy zarejestrowano WIŚNIEWSKI HANDEL SP.J.?", Expect: eval29Expect{Participant: []string{"9945:pl8410051751"}, RegDate: "2021-02-17"}},

	{Lang: "en", Kind: "issuer", Query: "Which CA signed the access point certificate of Groß Bau München e.K.?", Expect: eval29Expect{Participant: []string{"9930:de232580295"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "no", Kind: "issuer", Query: "Hvem har utstedt sertifikatet til KØGE KØLETEKNIK A/S?", Expect: eval29Expect{Participant: []string{"0184:66734129"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "da", Kind: "issuer", Query: "Hvem har udstedt certifikatet for DE JONG & VAN DEN BERG B.V.?", Expect: eval29Expect{Participant: []string{"0106:60441156"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "de", Kind: "issuer", Query: "Ist das Zertifikat von 0088:5400000000041 von einer Peppol-CA ausgestellt?", Expect: eval29Expect{Participant: []string{"0088:5400000000041"}, Issuer: "Example Corp"}},
	{Lang: "fr", Kind: "issuer", Query: "Le certificat du point d'accès de MURPHY SERVICES DAC est-il émis par une AC Peppol ?", Expect: eval29Expect{Participant: []string{"9935:ie2423684l"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "es", Kind: "issuer", Query: "¿Qué autoridad de certificación firmó el certificado de Hölzl Handel Graz GmbH?", Expect: eval29Expect{Participant: []string{"9914:atu96936370"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "pl", Kind: "issuer", Query: "Kto jest wystawcą certyfikatu Öhman & Mäkinen Oyj?", Expect: eval29Expect{Participant: []string{"0216:003703104059"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},

	{Lang: "en", Kind: "cannot", Query: "What's the weather like in Oslo?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "What are the Peppol fees in Belgium?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "How many employees does Kelly Services DAC have?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fr", Kind: "cannot", Query: "Quelle est la date limite pour la facturation électronique en France ?", Expect: eval29Expect{Cannot: true}},
	{Lang: "nl", Kind: "cannot", Query: "Wanneer wordt e-facturatie verplicht in België?", Expect: eval29Expect{Cannot: true}},
	{Lang: "de", Kind: "cannot", Query: "Wie hoch ist der Umsatz der Müller Logistik GmbH?", Expect: eval29Expect{Cannot: true}},
	{Lang: "sv", Kind: "cannot", Query: "Vad är telefonnumret till Linköping Fastigheter AB?", Expect: eval29Expect{Cannot: true}},
	{Lang: "no", Kind: "cannot", Query: "Hva koster det å bli med i Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "es", Kind: "cannot", Query: "¿Cuánto cuesta enviar una factura por Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "it", Kind: "cannot", Query: "Quanto costa un access point Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "da", Kind: "cannot", Query: "Hvad er IBAN-nummeret for Nørgaard ApS?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fi", Kind: "cannot", Query: "Mikä on Lähde Sähkö Ky:n liikevaihto?", Expect: eval29Expect{Cannot: true}},
	{Lang: "pl", Kind: "cannot", Query: "Od kiedy e-faktura jest obowiązkowa w Polsce?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "not-cannot", Query: "Can Hölzl Handel Graz GmbH receive invoices? We need it for the mandatory rollout.", Expect: eval29Expect{Participant: []string{"9914:atu96936370"}}},
	{Lang: "no", Kind: "not-cannot", Query: "Kan Mølgaard Rådgivning ApS motta fakturaer? Det er obligatorisk fra neste år.", Expect: eval29Expect{Participant: []string{"0184:13585628"}}},
	{Lang: "es", Kind: "not-cannot", Query: "Es obligatorio desde 2026: ¿puede García & Martínez S.L. recibir facturas?", Expect: eval29Expect{Participant: []string{"9920:esb12926424"}}},
	{Lang: "en", Kind: "count", Query: "How many participants can receive despatch advice?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "de", Kind: "count", Query: "Wie viele Teilnehmer können Lieferavise empfangen?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "fr", Kind: "count", Query: "Combien d'entreprises acceptent les avis d'expédition ?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "nl", Kind: "count", Query: "Hoeveel deelnemers kunnen verzendberichten ontvangen?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "sv", Kind: "count", Query: "Hur många företag kan ta emot orderbekräftelser?", Expect: eval29Expect{CountFrom: "stats", Document: "Order Response"}},
	{Lang: "it", Kind: "count", Query: "Quanti partecipanti possono ricevere cataloghi?", Expect: eval29Expect{CountFrom: "stats", Document: "Catalogue"}},
	{Lang: "es", Kind: "count", Query: "¿Cuántas empresas aceptan respuestas a pedidos?", Expect: eval29Expect{CountFrom: "stats", Document: "Order Response"}},
	{Lang: "pl", Kind: "count", Query: "Ile firm może odbierać awiza wysyłki?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "fi", Kind: "count", Query: "Kuinka moni voi vastaanottaa lähetysilmoituksia?", Expect: eval29Expect{CountFrom: "stats", Document: "Despatch Advice"}},
	{Lang: "en", Kind: "list", Query: "Which companies in Belgium can receive despatch advice?", Expect: eval29Expect{ListCountry: "BE", ListDocument: "Despatch Advice"}},
	{Lang: "en", Kind: "can-receive", Query: "Can Kelly Services DAC receive despatch advice?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Verdict: "no_doc", Document: "Despatch Advice"}},
	{Lang: "da", Kind: "can-receive", Query: "Kan 0208:1146547522 modtage ordrebekræftelser?", Expect: eval29Expect{Participant: []string{"0208:1146547522"}, Verdict: "receives", Document: "Order Response"}},
	{Lang: "da", Kind: "list", Query: "Hvilke virksomheder i Belgien kan modtage ordrebekræftelser?", Expect: eval29Expect{ListCountry: "BE", ListDocument: "Order Response"}},
}

// kinds2Third are a third round, written after the second passed and before the code
// for them.
var kinds2Third = []eval29Case{
	{Lang: "en", Kind: "count", Query: "how many companies are registered on peppol", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "en", Kind: "count", Query: "Number of Peppol endpoints worldwide", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "en", Kind: "count", Query: "How many Danish receivers are there?", Expect: eval29Expect{CountFrom: "stats", Country: "DK"}},
	{Lang: "fr", Kind: "count", Query: "Il y a combien de participants Peppol en Belgique ?", Expect: eval29Expect{CountFrom: "stats", Country: "BE"}},
	{Lang: "nl", Kind: "count", Query: "Hoeveel Belgische bedrijven zitten er op Peppol?", Expect: eval29Expect{CountFrom: "stats", Country: "BE"}},
	{Lang: "de", Kind: "count", Query: "Wie viele Unternehmen sind insgesamt bei Peppol registriert?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "de", Kind: "count", Query: "Anzahl Peppol-Teilnehmer in Schweden", Expect: eval29Expect{CountFrom: "stats", Country: "SE"}},
	{Lang: "no", Kind: "count", Query: "Hvor mange norske bedrifter er registrert?", Expect: eval29Expect{CountFrom: "stats", Country: "NO"}},
	{Lang: "sv", Kind: "count", Query: "Hur många svenska företag kan ta emot fakturor?", Expect: eval29Expect{CountFrom: "stats", Country: "SE"}},
	{Lang: "es", Kind: "count", Query: "¿Cuántos participantes belgas hay?", Expect: eval29Expect{CountFrom: "stats", Country: "BE"}},
	{Lang: "it", Kind: "count", Query: "Numero di partecipanti in Francia", Expect: eval29Expect{CountFrom: "stats", Country: "FR"}},
	{Lang: "da", Kind: "count", Query: "Hvor mange modtagere er der i alt?", Expect: eval29Expect{CountFrom: "stats"}},
	{Lang: "fi", Kind: "count", Query: "Montako vastaanottajaa Norjassa on?", Expect: eval29Expect{CountFrom: "stats", Country: "NO"}},
	{Lang: "pl", Kind: "count", Query: "Liczba uczestników w Niemczech", Expect: eval29Expect{CountFrom: "stats", Country: "DE"}},
	{Lang: "pl", Kind: "count", Query: "Ile jest wszystkich uczestników sieci Peppol?", Expect: eval29Expect{CountFrom: "stats"}},

	{Lang: "en", Kind: "list", Query: "Give me a list of Peppol participants in Austria", Expect: eval29Expect{ListCountry: "AT"}},
	{Lang: "en", Kind: "list", Query: "show Spanish companies", Expect: eval29Expect{ListCountry: "ES"}},
	{Lang: "fr", Kind: "list", Query: "Quelles entreprises en Irlande peuvent recevoir des commandes ?", Expect: eval29Expect{ListCountry: "IE", ListDocument: "Order"}},
	{Lang: "nl", Kind: "list", Query: "Toon alle deelnemers uit Finland", Expect: eval29Expect{ListCountry: "FI"}},
	{Lang: "de", Kind: "list", Query: "Welche dänischen Firmen können Bestellungen empfangen?", Expect: eval29Expect{ListCountry: "DK", ListDocument: "Order"}},
	{Lang: "sv", Kind: "list", Query: "Visa deltagare i Polen", Expect: eval29Expect{ListCountry: "PL"}},
	{Lang: "no", Kind: "list", Query: "List opp selskaper i Italia", Expect: eval29Expect{ListCountry: "IT"}},
	{Lang: "es", Kind: "list", Query: "Lista de empresas en Irlanda", Expect: eval29Expect{ListCountry: "IE"}},
	{Lang: "it", Kind: "list", Query: "Mostrami le aziende in Austria che possono ricevere ordini", Expect: eval29Expect{ListCountry: "AT", ListDocument: "Order"}},
	{Lang: "da", Kind: "list", Query: "Hvem er deltagerne i Finland?", Expect: eval29Expect{ListCountry: "FI"}},
	{Lang: "fi", Kind: "list", Query: "Mitkä yritykset Itävallassa voivat vastaanottaa tilauksia?", Expect: eval29Expect{ListCountry: "AT", ListDocument: "Order"}},
	{Lang: "pl", Kind: "list", Query: "Jakie firmy z Danii są w Peppol?", Expect: eval29Expect{ListCountry: "DK"}},

	{Lang: "en", Kind: "reg-date", Query: "Kelly Services DAC registration date?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "de", Kind: "reg-date", Query: "Registrierungsdatum von Groß Bau München e.K.", Expect: eval29Expect{Participant: []string{"9930:de232580295"}, RegDate: "2021-12-11"}},
	{Lang: "fr", Kind: "reg-date", Query: "Depuis quand MURPHY SERVICES DAC est inscrite sur Peppol ?", Expect: eval29Expect{Participant: []string{"9935:ie2423684l"}, RegDate: "2025-12-22"}},
	{Lang: "it", Kind: "reg-date", Query: "Qual è la data di registrazione di García Ingeniería S.Coop.?", Expect: eval29Expect{Participant: []string{"9920:esb71366330"}, RegDate: "2017-06-21"}},
	{Lang: "sv", Kind: "reg-date", Query: "När anslöt sig Linköping Fastigheter HB till Peppol?", Expect: eval29Expect{Participant: []string{"0007:5047766166"}, RegDate: "2025-08-19"}},
	{Lang: "de", Kind: "reg-date", Query: "Wann wurde die Würzburg Bau KG bei Peppol registriert? Wir brauchen das für die Pflicht-Umstellung.", Expect: eval29Expect{Participant: []string{"9930:de335486410"}, RegDate: "2025-08-29"}},

	{Lang: "en", Kind: "issuer", Query: "Who is the CA for Kelly Services DAC's certificate?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "sv", Kind: "issuer", Query: "Vilken CA har utfärdat certifikatet för ÖBERG FASTIGHETER HB?", Expect: eval29Expect{Participant: []string{"0007:5074670018"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "it", Kind: "issuer", Query: "Da chi è stato emesso il certificato di Bianchi Trasporti S.a.s.?", Expect: eval29Expect{Participant: []string{"0211:it15790794422"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "nl", Kind: "issuer", Query: "Welke CA heeft het certificaat van Visser & Brouwer N.V. uitgegeven?", Expect: eval29Expect{Participant: []string{"0106:96306131"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},

	{Lang: "en", Kind: "cannot", Query: "How much does it cost to send an invoice through Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "When does e-invoicing become mandatory in Belgium?", Expect: eval29Expect{Cannot: true}},
	{Lang: "de", Kind: "cannot", Query: "Welche Bankverbindung hat die Hölzl Handel Graz GmbH?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fr", Kind: "cannot", Query: "Quelle est la météo à Bruxelles ?", Expect: eval29Expect{Cannot: true}},
	{Lang: "nl", Kind: "cannot", Query: "Wat kost een Peppol-aansluiting?", Expect: eval29Expect{Cannot: true}},
	{Lang: "it", Kind: "cannot", Query: "Qual è il fatturato di Conti Alimentari S.a.s.?", Expect: eval29Expect{Cannot: true}},
	{Lang: "es", Kind: "cannot", Query: "¿Cuál es el número de teléfono de García & Núñez S.A.?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fi", Kind: "cannot", Query: "Milloin verkkolasku tulee pakolliseksi Suomessa?", Expect: eval29Expect{Cannot: true}},
	{Lang: "sv", Kind: "cannot", Query: "Vilka avgifter tar en Peppol-operatör?", Expect: eval29Expect{Cannot: true}},
	{Lang: "da", Kind: "cannot", Query: "Hvornår bliver e-fakturering lovpligtig i Danmark?", Expect: eval29Expect{Cannot: true}},
	{Lang: "no", Kind: "cannot", Query: "Hvem er daglig leder i Vestland AS?", Expect: eval29Expect{Cannot: true}},
	{Lang: "pl", Kind: "cannot", Query: "Ile kosztuje wysłanie faktury przez Peppol?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "list", Query: "Which companies in Finland can receive despatch advice?", Expect: eval29Expect{ListCountry: "FI", ListDocument: "Despatch Advice"}},
	{Lang: "en", Kind: "list", Query: "Can Belgian companies receive invoices?", Expect: eval29Expect{ListCountry: "BE", ListDocument: "Invoice"}},
	{Lang: "en", Kind: "list", Query: "Peppol participants in Singapore", Expect: eval29Expect{ListCountry: "SG"}},
	{Lang: "de", Kind: "list", Query: "Liste aller Teilnehmer in Deutschland", Expect: eval29Expect{ListCountry: "DE"}},
	{Lang: "en", Kind: "reg-date", Query: "When did Kelly Services DAC register on Peppol?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "en", Kind: "reg-date", Query: "Kelly Services DAC - when registered?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "de", Kind: "reg-date", Query: "Seit wann ist Kelly Services DAC im Peppol-Verzeichnis eingetragen?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "de", Kind: "reg-date", Query: "Wann hat sich Kelly Services DAC bei Peppol registriert?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "sv", Kind: "reg-date", Query: "Hur länge har Kelly Services DAC funnits på Peppol?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "da", Kind: "reg-date", Query: "Hvor længe har Kelly Services DAC været tilmeldt Peppol?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, RegDate: "2021-12-23"}},
	{Lang: "en", Kind: "issuer", Query: "What CA does Kelly Services DAC's certificate come from?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "en", Kind: "issuer", Query: "Is Kelly Services DAC's certificate issued by OpenPeppol?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "de", Kind: "issuer", Query: "Wer ist der Aussteller des Zertifikats von Kelly Services DAC?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "de", Kind: "issuer", Query: "Von welcher CA stammt das Zertifikat von Kelly Services DAC?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "pl", Kind: "issuer", Query: "Przez kogo został wystawiony certyfikat Kelly Services DAC?", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}, Issuer: "PEPPOL ACCESS POINT TEST CA"}},
	{Lang: "en", Kind: "cannot", Query: "Who is the contact person at Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "What is the VAT rate in Belgium?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "How much is a Peppol access point?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "cannot", Query: "What are the opening hours of Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fr", Kind: "cannot", Query: "Qui est le gérant de Kelly Services DAC ?", Expect: eval29Expect{Cannot: true}},
	{Lang: "de", Kind: "cannot", Query: "Wie ist die E-Mail-Adresse von Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "de", Kind: "cannot", Query: "Ab wann gilt die E-Rechnungspflicht?", Expect: eval29Expect{Cannot: true}},
	{Lang: "no", Kind: "cannot", Query: "Hva er e-postadressen til Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "es", Kind: "cannot", Query: "¿Cuál es el correo electrónico de Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "it", Kind: "cannot", Query: "Qual è l'indirizzo email di Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "da", Kind: "cannot", Query: "Hvad er e-mailadressen på Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "fi", Kind: "cannot", Query: "Mikä on Kelly Services DAC:n sähköpostiosoite?", Expect: eval29Expect{Cannot: true}},
	{Lang: "pl", Kind: "cannot", Query: "Jaki jest adres e-mail Kelly Services DAC?", Expect: eval29Expect{Cannot: true}},
	{Lang: "en", Kind: "not-cannot", Query: "Is there a fee? Anyway, how many participants are in Ireland?", Expect: eval29Expect{CountFrom: "stats", Country: "IE"}},
	{Lang: "fr", Kind: "not-cannot", Query: "Kelly Services DAC peut-elle recevoir des factures ? C'est obligatoire pour nous.", Expect: eval29Expect{Participant: []string{"9935:ie6889579c"}}},
}

// TestAskKinds2 asks kinds2Cases through POST /ask and fails on every wrong answer, or
// one not in the asker's language.
func TestAskKinds2(t *testing.T) {
	base, world := startEval29(t)
	cases := slices.Concat(kinds2Cases, kinds2More, kinds2Third)
	queries := make([]string, len(cases))
	for i, c := range cases {
		queries[i] = c.Query
	}
	answers, errs := eval29AskAll(t.Context(), base, queries)
	for i, c := range cases {
		a := answers[i]
		if errs[i] != nil {
			t.Errorf("[%s %s] %q: %v", c.Lang, c.Kind, c.Query, errs[i])
			continue
		}
		if right, why := world.judge(c, a); !right {
			t.Errorf("[%s %s] %q: %s\n  intent %s, answer: %s", c.Lang, c.Kind, c.Query, why, a.Intent, firstLine(a.Answer))
		}
		if c.Kind == "cannot" && a.Intent != "out_of_scope" {
			t.Errorf("[%s %s] %q: intent %s, not out_of_scope", c.Lang, c.Kind, c.Query, a.Intent)
		}
		if a.Meta.Language != c.wantLanguage() {
			t.Errorf("[%s %s] %q: answered in %q", c.Lang, c.Kind, c.Query, a.Meta.Language)
		}
	}
}

// firstLine returns s up to its first line break, for a short report.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// TestAskKinds2Show prints the answers to ASK_QS (one question a line); a tool for
// development, skipped without it.
func TestAskKinds2Show(t *testing.T) {
	qs := os.Getenv("ASK_QS")
	if qs == "" {
		t.Skip("ASK_QS not set")
	}
	base, _ := startEval29(t)
	for _, q := range strings.Split(qs, "\n") {
		a, err := eval29Ask(t.Context(), base, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s\n%s [%s, %d results]", q, a.Answer, a.Intent, len(a.Results))
	}
}

// TestAskKinds2Answers checks what the answers of these kinds say besides their facts:
// whether the certificate's issuer is a Peppol CA, and how to see more of a country's
// participants than a list shows.
func TestAskKinds2Answers(t *testing.T) {
	base, _ := startEval29(t)
	for _, c := range []struct{ q, want, not string }{
		{"Is the AP certificate of 0088:5400000000041 from a Peppol CA?", "not an OpenPeppol CA", ""},
		{"Who issued the access point certificate of Kelly Services DAC?", "is an OpenPeppol CA", "not an OpenPeppol CA"},
		{"Wer hat das Zertifikat von 0088:5400000000041 ausgestellt?", "keine OpenPeppol-CA", ""},
		{"Qui a émis le certificat de Hölzl Handel Graz GmbH ?", "une AC OpenPeppol", "pas une AC OpenPeppol"},
		{"Kto wystawił certyfikat dla 0088:5400000000041?", "nie jest urzędem certyfikacji OpenPeppol", ""},
		{"List the participants in Ireland", "add a name, a trade or a town", ""},
		{"Elenca le aziende spagnole su Peppol", "aggiunga alla domanda", ""},
		{"Näytä suomalaiset yritykset", "lisää kysymykseen", ""},
	} {
		a, err := eval29Ask(t.Context(), base, c.q)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(a.Answer, c.want) || c.not != "" && strings.Contains(a.Answer, c.not) {
			t.Errorf("%q: want %q (not %q) in the answer:\n%s", c.q, c.want, c.not, a.Answer)
		}
	}
}
