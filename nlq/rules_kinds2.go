package nlq

import (
	"slices"
	"strings"
)

// Issue 29 point 3, second round: more of the words people use for issue 29's kinds
// of questions (docs/INTERFACE.md §5), in the eleven languages: the nouns counted and
// listed ("receivers", "Empfänger", "odbiorców"), more ways to ask for a count ("total
// number of", "nombre total de") or a list ("who are", "geef me"), and the verbs of a
// registration date and a certificate's issuer in each language.
var kindGroups2 = []lexGroup{
	// Who is counted or listed: receivers and endpoints are participants too.
	{role: lexNoun, side: lexBoth, flags: flagWeak | flagLowerRight, phrases: "receiver|receivers|recipient|recipients|endpoint ids|peppol participants|members|" +
		"destinataire|destinataires|récepteurs|adhérents|ontvanger|ontvangers|ontvangende partijen|leden|" +
		"mottaker|mottakere|mottakerne|mottagare|mottagarna|mottagere|modtager|modtagere|modtagerne|" +
		"destinatario|destinatarios|receptores|miembros|destinatari|riceventi|membri|" +
		"vastaanottaja|vastaanottajaa|vastaanottajat|vastaanottajia|jäsentä|jäseniä|" +
		"odbiorca|odbiorcy|odbiorców|odbiorcę|członków"},
	{role: lexNoun, side: lexBoth, phrases: "empfänger|teilnehmende|mitglieder|betriebe|firmen|unternehmen|teilnehmern|unternehmens"},
	// "… has been on Peppol": with a word for when, a registration date.
	{role: lexFiller, side: lexBoth, flags: flagWeak | flagNoTypo | flagLowerRight, aspect: aspectJoined, phrases: "al aangesloten bij|al aangesloten|aangesloten bij|al geregistreerd|al ingeschreven|al op|been on|been on peppol|been registered|been registered on|been part of|" +
		"été sur|été inscrite|été inscrit|été enregistrée|été enregistré|geweest|op peppol geweest|aangesloten|ingeschreven|gewesen|registriert gewesen|dabei|" +
		"vært på|vært i|vært med|vært registrert|varit på|varit med i|varit med|varit registrerad|ansluten|" +
		"estado en|estado registrado|estado registrada|dado de alta|dada de alta|stato su|stata su|stato registrato|stata registrata|iscritto|iscritta|" +
		"været|vært|varit|geweest|gewesen|været på|været i|været med i|været med|været registreret|tilmeldt|tilsluttet|ollut peppolissa|ollut mukana|ollut|rekisteröity|rekisteröitynyt|" +
		"był w|była w|było w|jest w peppol|obecny w|obecna w|zarejestrowano|zarejestrowana|zarejestrowany|zarejestrowała|zarejestrował|zarejestrowane"},
	{role: lexFiller, side: lexBoth, flags: flagNoTypo | flagLowerRight, aspect: aspectJoined, phrases: "when registered|registered when|register|registers|register on|register with|signed up|sign up|signed up to|sign up to|" +
		"eingetragen|eingetragen worden|angemeldet|registriert worden|funnits|funnits på|funnits med|ingeschreven|aangemeld|aangemeld op|" +
		"in the directory|in the peppol directory|im verzeichnis|im peppol-verzeichnis|dans l'annuaire|in de directory|i katalogen|en el directorio|nella directory|hakemistossa|w katalogu"},
	// "… – when?", "… registered when?": when asked at the end.
	{role: lexFiller, side: lexRight, flags: flagNoTypo | flagLowerRight, aspect: aspectWhen, phrases: "when|since when|when registered|registered when|wann|seit wann|quand|depuis quand|" +
		"wanneer|sinds wanneer|når|siden når|när|sedan när|cuándo|desde cuándo|quando|da quando|hvornår|siden hvornår|milloin|mistä lähtien|kiedy|od kiedy"},
	{role: lexFiller, side: lexLeft, flags: flagNoTypo, phrases: "hat sich|haben sich|sich|hat|ist"},
	// A certificate in more of its forms ("des Zertifikats von"), and where it comes
	// from.
	{role: lexIntent, side: lexBoth, flags: flagNoTypo | flagPossessive, intent: IntentCertificate, phrases: "des zertifikats|des zertifikats von|zertifikats|zertifikats von|" +
		"das zertifikat von|zertifikat von|des zertifikates von|certificate of|the certificate of|certificat de|le certificat de|certificaat van|het certificaat van"},
	{role: lexFiller, side: lexBoth, flags: flagWeak | flagNoTypo | flagLowerRight, phrases: "come from|comes from|come|stammt|stammt von|vient|provient|komt|komt van|kommer fra|kommer från|" +
		"viene|proviene|tulee|pochodzi"},
	// A count.
	{role: lexIntent, side: lexLeft, flags: flagWeak, intent: IntentCount, phrases: "total number of|the total number of|total count of|total count|number of all|count all|" +
		"total participants|total companies|total businesses|total endpoints|total receivers|participant count|total de participants|totaal deelnemers|teilnehmer insgesamt|" +
		"nombre total de|nombre total d'|le nombre total de|le nombre total d'|" +
		"totaal aantal|het totale aantal|totaal|gesamtzahl der|gesamtzahl an|gesamtzahl|gesamtanzahl|" +
		"totalt antall|det totale antallet|samlet antall|totala antalet|totalt antal|samlede antal|det samlede antal|" +
		"número total de|el número total de|número de|el número de|numero totale di|il numero totale di|numero di|il numero di|" +
		"kokonaismäärä|yhteensä kuinka monta|łączna liczba|ogólna liczba|liczba wszystkich"},
	{role: lexFiller, side: lexBoth, flags: flagWeak | flagNoTypo | flagLowerRight, phrases: "totalt|i alt|insgesamt|in totaal|au total|en tout|en total|in totale|yhteensä|" +
		"aller|sämtliche|sämtlicher|alle unsere|all of the|every|each|worldwide|in the world|globally|weltweit|dans le monde|wereldwijd|i verden|i världen|en el mundo|nel mondo|maailmanlaajuisesti|na świecie|" +
		"i hele nettverket|i hela nätverket|i hele netværket|im gesamten netzwerk|im ganzen netz|dans tout le réseau|in het hele netwerk|" +
		"en toda la red|in tutta la rete|koko verkossa|w całej sieci|there|are there|is there|exist|exists|registered in total"},
	// A list.
	{role: lexIntent, side: lexLeft, intent: IntentSearch, phrases: "name a few|name some|name a couple of|some examples of|a few examples of|examples of|give me some|give me a few|" +
		"quelques exemples de|donne-moi quelques|noem een paar|enkele voorbeelden van|nenne ein paar|nenne einige|einige beispiele für|nevn noen|nämn några|nævn nogle|" +
		"nombra algunas|nombra algunos|algunos ejemplos de|nomina alcune|nomina alcuni|alcuni esempi di|mainitse muutama|wymień kilka|podaj kilka|" +
		"who are|who are the|which are|which are the|give me|give me a list of|get me|" +
		"give me all|a list of|list of|qui sont|quels sont|quelles sont|donne-moi|donnez-moi|la liste des|" +
		"wie zijn|welke zijn|geef me|geef mij|geef|lijst van|een lijst van|wer sind|welche sind|gib mir|geben sie mir|eine liste der|liste der|" +
		"hvem er|hvilke er|gi meg|gi meg en liste over|en liste over|vilka är|ge mig|ge mig en lista över|en lista över|" +
		"quiénes son|cuáles son|dame|dame una lista de|una lista de|chi sono|quali sono|dammi|dammi un elenco di|un elenco di|elenco di|" +
		"hvem er|hvilke er|giv mig|giv mig en liste over|ketkä ovat|mitkä ovat|anna|anna lista|kto to są|którzy są|jakie są|podaj mi|daj mi|lista"},
}

// kindIssuer2 are more phrases asking who issued a certificate, in the eleven
// languages ("door wie … uitgegeven", "chi ha rilasciato", "von wem ausgestellt").
const kindIssuer2 = "who issued|which ca issued|which certificate authority|what certificate authority|from a peppol ca|a peppol ca|by a peppol ca|" +
	"qui a émis|qui a délivré|délivré|délivré par|quelle autorité de certification|émis par quelle autorité|" +
	"door wie|door wie is|uitgegeven|afgegeven|afgegeven door|heeft afgegeven|welke certificaatautoriteit|certificeringsinstantie|" +
	"ausgestellt|ausgestellt von|hat ausgestellt|wer hat ausgestellt|von wem|aussteller|ausstellende|zertifizierungsstelle|welche ca|" +
	"utstedt|utstedt av|hvem utstedte|hvem har utstedt|utsteder|utstederen|sertifikatutsteder|" +
	"utfärdat|utfärdade|utfärdat av|vem har utfärdat|vem utfärdade|utfärdare|utfärdaren|certifikatutfärdare|" +
	"emitió|emitido|emitido por|quién emitió|quién ha emitido|ha emitido|emisor|autoridad de certificación|autoridad certificadora|qué ca|" +
	"rilasciato|rilasciato da|ha rilasciato|chi ha rilasciato|rilasciata|emesso da|emittente|" +
	"udstedt|udstedte|udstedt af|hvem udstedte|hvem har udstedt|udsteder|" +
	"myönsi|myöntänyt|myöntäjä|myöntäjän|kuka myönsi|kuka on myöntänyt|myöntämä|varmentaja|" +
	"wystawił|wystawiony|wystawiony przez|wystawca|kto wystawił|wydał|kto wydał|wydany przez|urząd certyfikacji|przez kogo|przez kogo został wystawiony|został wystawiony|" +
	"issued by openpeppol|by openpeppol|from openpeppol|openpeppol|signed by openpeppol|von openpeppol|par openpeppol|door openpeppol|" +
	"von welcher ca|welcher ca|von welcher zertifizierungsstelle|aussteller des|der aussteller|der aussteller des"

// kindOutOfScope2 are more words of what peppolgate cannot know, in the eleven
// languages, read as kindWords.outOfScope is (one word each, folded).
const kindOutOfScope2 = "revenues|profit|profits|earnings|weather|temperature|account number|phone|" +
	"prix|coût|coûts|tarif|tarifs|frais|abonnement|obligatoire|échéance|météo|salaire|bénéfice|téléphone|iban|" +
	"omzet|winst|rekeningnummer|telefoon|mobiel|" +
	"preis|preise|kosten|kostet|gebühr|gebühren|pflicht|verpflichtend|frist|fristen|wetter|umsatz|gewinn|telefonnummer|kontonummer|" +
	"koster|kostnad|kostnader|pris|priser|gebyr|gebyrer|obligatorisk|frist|værmelding|omsetning|telefonnummer|kontonummer|" +
	"kostar|kostnad|avgift|avgifter|obligatoriskt|väder|vädret|omsättning|telefonnummer|telefonnumret|telefonnumren|kontonummer|" +
	"cuesta|cuestan|coste|costes|precio|precios|tarifa|tarifas|obligatoria|obligatorio|plazo|fecha límite|clima|teléfono|cuenta bancaria|" +
	"costa|costano|prezzo|obbligatoria|scadenza|meteo|fatturato|telefono|" +
	"koster|pris|gebyr|obligatorisk|vejret|omsætning|omsætningen|telefonnummer|kontonummer|" +
	"maksaa|hinta|hinnat|maksu|maksut|kuukausimaksu|pakollinen|määräaika|säätiedote|liikevaihto|puhelinnumero|tilinumero|" +
	"kosztuje|koszt|cena|opłata|obowiązkowy|pogoda|obroty|telefonu|numer konta|" +
	"pakolliseksi|pakollista|pakollisia|toimitusjohtaja|geschäftsführer|geschäftsführerin|prezes|prezesa|vd:n|" +
	"email|e-mail|emails|courriel|e-mailadres|mailadres|e-mail-adresse|e-mailadresse|e-mailadressen|e-postadresse|e-postadressen|e-postadress|e-postadressen|" +
	"sähköposti|sähköpostiosoite|sähköpostiosoitteen|contactpersoon|kontaktperson|kontaktpersonen|ansprechpartner|ansprechpartnerin|yhteyshenkilö|gérant|gérante|gerente|" +
	"propriétaire|eigenaar|eigentümer|ägare|ägaren|dueño|propietario|proprietario|ejer|omistaja|właściciel|" +
	"mehrwertsteuersatz|steuersatz|momssats|btw-tarief|alv-kanta|creditworthy|creditworthiness|solvency|solvabilité|kredietwaardigheid|bonität|" +
	"kredittverdighet|kreditvärdighet|solvencia|solvibilità|kreditværdighed|luottokelpoisuus|horaires|openingstijden|öffnungszeiten|åpningstider|" +
	"öppettider|orari|åbningstider|aukioloajat|veloittaa|veloittavat|veloittaako|veloitus|veloitukset|hinnoittelu"

// kindOutOfScopePhrases are what peppolgate cannot know said in several words
// ("chiffre d'affaires", "daglig leder"), each as the tokenizer reads it, by its first
// word.
var kindOutOfScopePhrases = func() map[string][][]string {
	out := map[string][][]string{}
	for _, p := range strings.Split("chiffre d'affaires|numéro de téléphone|numero di telefono|número de teléfono|numer telefonu|"+
		"fecha límite|date limite|account number|bank details|bank account|numéro de compte|coordonnées bancaires|"+
		"daglig leder|administrerende direktør|verkställande direktör|managing director|directeur général|director general|"+
		"amministratore delegato|bankverbindung|bankgegevens|bankoplysninger|bankuppgifter|dati bancari|datos bancarios|dane bankowe|"+
		"email address|adresse e-mail|adresse mail|correo electrónico|indirizzo email|indirizzo e-mail|adres e-mail|adres email|contact person|persona de contacto|"+
		"persona di contatto|osoba kontaktowa|vat rate|tax rate|taux de tva|tipo de iva|aliquota iva|stawka vat|credit rating|opening hours|heures d'ouverture|"+
		"godziny otwarcia|how much is|how much are|how much does|how much for|how much would|zdolność kredytowa", "|") {
		var buf [8]ruleToken
		var keys []string
		for _, t := range ruleTokenize(p, buf[:0]) {
			keys = append(keys, t.key)
		}
		out[keys[0]] = append(out[keys[0]], keys)
	}
	return out
}()

// kindOutOfScopeAfter are words of what peppolgate cannot know that are other words
// after an auxiliary: Norwegian "været" is the weather, Danish and Norwegian "har
// været" is "has been".
var kindOutOfScopeAfter = map[string][]string{
	"vaeret": {"har", "have", "hadde", "havde", "er", "ikke"},
}

// kindOutOfScopeSuffixes end German compounds of what peppolgate cannot know
// ("E-Rechnungspflicht", "Jahresgebühr"), folded.
var kindOutOfScopeSuffixes = func() []string {
	var out []string
	for _, w := range strings.Split("pflicht|gebühr|gebühren|kosten|preis|preise|frist|fristen|umsatz", "|") {
		out = append(out, ruleFold(w))
	}
	return out
}()

// outOfScopeWord reports whether token i is a word of what peppolgate cannot know in
// this question.
func (s *ruleScan) outOfScopeWord(i int) bool {
	t := s.toks[i]
	hit := kindOutOfScope[t.key]
	if !hit {
		if head, _, ok := strings.Cut(t.key, "-"); ok {
			hit = kindOutOfScope[head] // "IBAN-nummer"
		}
	}
	if !hit {
		hit = outOfScopeInflected(t.key) // "momssatsen", "avgifterna", "kuukausimaksun"
	}
	if !hit && len(t.key) > 9 {
		for _, suf := range kindOutOfScopeSuffixes {
			if strings.HasSuffix(t.key, suf) {
				hit = true // "E-Rechnungspflicht", "Jahresgebühr"
				break
			}
		}
	}
	if !hit {
		return false
	}
	if aux, ok := kindOutOfScopeAfter[t.key]; ok {
		for j := range i {
			if slices.Contains(aux, s.toks[j].key) {
				return false
			}
		}
	}
	return true
}

// kindInflections are the endings the Nordic languages and Finnish add to a noun (the
// definite article, the plural, a case), folded; the longest first.
var kindInflections = []string{"erne", "erna", "ene", "ssa", "sta", "lla", "lta", "lle", "en", "et", "na", "ne", "er", "ar", "n", "a", "t"}

// outOfScopeInflected reports whether key is a word of what peppolgate cannot know of at
// least five letters with one of kindInflections after it ("priserne" is "priser",
// "kuukausimaksun" is "kuukausimaksu").
func outOfScopeInflected(key string) bool {
	if len(key) < 6 {
		return false
	}
	for _, end := range kindInflections {
		if stem, ok := strings.CutSuffix(key, end); ok && len(stem) >= 5 && kindOutOfScope[stem] {
			return true
		}
	}
	return false
}

// outOfScopePhrase reports whether a phrase of kindOutOfScopePhrases starts at token
// i.
func (s *ruleScan) outOfScopePhrase(i int) bool {
	for _, p := range kindOutOfScopePhrases[s.toks[i].key] {
		if i+len(p) > len(s.toks) {
			continue
		}
		ok := true
		for k, w := range p {
			if s.toks[i+k].key != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// kindClauseBreaks end a clause of a question: a question about a participant may
// follow or precede a clause that only says why it is asked ("E-invoicing is
// mandatory for us: can Acme receive invoices?").
var kindClauseBreaks = map[string]bool{":": true, ";": true, "–": true, "—": true, ".": true, ",": true, "?": true, "!": true, "-": true}

// inScopeClause plans the clauses of a question with a word of what peppolgate cannot
// know that hold none (docs/INTERFACE.md §5): when one of them alone is a question
// peppolgate answers (a capability, count, access point, certificate, or a
// participant id), that is the plan, in the question's language; the clause with the
// word only said why it was asked. It reports false when there is no such clause.
func (s *ruleScan) inScopeClause() (Plan, bool) {
	start := 0
	for i := 0; i <= len(s.toks); i++ {
		if i < len(s.toks) {
			t := s.toks[i]
			if t.word || !kindClauseBreaks[t.key] {
				continue
			}
			if t.key == "." && i > 0 && s.toks[i-1].end == t.start && (strings.Contains(s.toks[i-1].key, ".") || ruleLex.abbreviations[s.toks[i-1].key]) {
				continue // "Acme Inc."
			}
			if t.key == "-" && (i == 0 || s.toks[i-1].end == t.start) {
				continue // "E-Rechnung"
			}
		}
		lo, hi := start, i
		start = i + 1
		if lo >= hi || lo == 0 && hi == len(s.toks) {
			continue
		}
		clean := true
		for j := lo; j < hi && clean; j++ {
			clean = !s.toks[j].word || !s.outOfScopeWord(j) && !s.outOfScopePhrase(j)
		}
		if !clean {
			continue
		}
		end := len(s.q)
		if i < len(s.toks) {
			end = s.toks[i].end // the clause with its question mark
		}
		p := RulePlanner{}.Plan(s.q[s.toks[lo].start:end])
		if answersClause(p) {
			p.Language = s.lang
			return p, true
		}
	}
	return Plan{}, false
}

// answersClause reports whether p, a clause's plan, is a question of its own: one
// that looks a participant or the statistics up for a fact, not a mere name.
func answersClause(p Plan) bool {
	switch p.Intent {
	case IntentCanReceive, IntentAccessPoint, IntentCertificate, IntentDocumentTypes, IntentCheck:
		return len(p.Calls) > 0
	case IntentCount:
		return len(p.Calls) > 0 && p.Subject == ""
	case IntentLookup:
		if p.Aspect != "" {
			return len(p.Calls) > 0 // "when was X registered?"
		}
	}
	return len(p.Calls) > 0 && p.Calls[0].Tool == ruleToolLookup
}

// countrySubject returns the country of a subject that is only a country, a code in
// capitals or a name ("how many IE endpoints", "¿qué empresas de Italia …?"), in a
// question about companies (a company noun, or an access point word): countryAt reads
// neither without its own preposition.
func (s *ruleScan) countrySubject(lo, hi int) (string, bool) {
	if lo >= hi || !s.sig.kinds.noun && !s.sig.accessPoint {
		return "", false
	}
	if hi-lo == 1 {
		if cc, ok := s.codeAt(lo, false); ok {
			return cc, true
		}
	}
	if !s.sig.kinds.noun {
		return "", false
	}
	for i := lo; i < hi; i++ {
		if t := s.toks[i]; t.word && ruleFold(s.q[t.start:t.end]) != t.key {
			return "", false // a name typo-corrected into a country ("Scania")
		}
	}
	cc := ""
	s.countryCore(lo, hi, false, func(end int, code string) {
		if end == hi {
			cc = code
		}
	})
	return cc, cc != ""
}

// countryCodeBeforeNoun returns the country of a code in capitals right before a
// company noun anywhere in the question ("count of SE participants"), where a short
// word of another language ("se") was stripped as a filler.
func (s *ruleScan) countryCodeBeforeNoun() (string, bool) {
	for i := 0; i+1 < len(s.toks); i++ {
		if !s.toks[i+1].word || !s.hasRole(i+1, lexNoun) {
			continue
		}
		if cc, ok := s.codeAt(i, false); ok {
			return cc, true
		}
	}
	return "", false
}

// registrationDate plans "when was X registered", "¿cuándo se registró X?": a
// question word for when and a word for registering or joining, with a name and no
// other intent, asks for its registration date (even when the question word alone
// would leave it unknown).
func (s *ruleScan) registrationDate(subject string, kind ruleKind) (Plan, bool) {
	sg := s.sig
	if subject == "" || kind != ruleName && kind != ruleQuoted || !sg.kinds.when || !sg.kinds.joined && !sg.presence ||
		sg.count || sg.certificate || sg.accessPoint || sg.documentTypes || sg.receive || sg.kinds.aspect != "" && sg.kinds.aspect != AspectRegistered {
		return Plan{}, false
	}
	args := map[string]any{"q": subject}
	if sg.country != "" {
		args["country"] = sg.country
	}
	return Plan{Intent: IntentLookup, Subject: subject, Country: sg.country, Language: s.lang, Aspect: AspectRegistered,
		Calls: []Call{{Tool: ruleToolSearch, Arguments: args}}}, true
}

// Document kinds of the code list beyond DocInvoice, DocCreditNote and DocOrder that a
// count or a country's list may name (Plan.Document); a question of another intent
// naming one asks about any document.
const (
	DocDespatchAdvice = "despatch_advice"
	DocOrderResponse  = "order_response"
	DocCatalogue      = "catalogue"
)

// aspectDoc marks the phrases of kindDocs: the document kind follows it.
const aspectDoc = "doc:"

// kindDocs are the words for the document kinds counted and listed beyond the three
// every question knows, in the eleven languages, with the code list's category of
// each.
var kindDocs = []struct{ doc, category, phrases string }{
	{DocDespatchAdvice, "Despatch Advice", "despatch advice|despatch advices|dispatch advice|dispatch advices|despatch advice messages|delivery notes|delivery note|shipping notices|advance shipping notices|" +
		"avis d'expédition|bons de livraison|bon de livraison|avis de livraison|" +
		"verzendberichten|verzendbericht|pakbonnen|pakbon|leveringsberichten|verzendadviezen|" +
		"lieferavis|lieferavise|lieferavisen|lieferscheine|lieferschein|versandanzeigen|versandanzeige|versandavis|versandavise|" +
		"pakksedler|pakkseddel|forsendelsesmeldinger|forsendelsesmelding|leveringsmeldinger|" +
		"följesedlar|följesedel|leveransaviseringar|leveransavisering|leveransbesked|" +
		"avisos de expedición|aviso de expedición|avisos de envío|aviso de envío|albaranes|albarán|" +
		"avvisi di spedizione|avviso di spedizione|documenti di trasporto|bolle di consegna|" +
		"følgesedler|følgeseddel|forsendelsesadviser|forsendelsesadvis|leveringsadviser|" +
		"lähetysluettelot|lähetysluetteloita|lähetysluettelo|lähetysilmoitukset|lähetysilmoituksia|lähetysilmoitus|toimitusilmoituksia|" +
		"awizo wysyłki|awiza wysyłki|awizo dostawy|awiza dostawy|awiza"},
	{DocOrderResponse, "Order Response", "order responses|order response|order confirmations|order confirmation|" +
		"réponses aux commandes|réponse à la commande|confirmations de commande|" +
		"orderbevestigingen|orderbevestiging|auftragsbestätigungen|auftragsbestätigung|bestellbestätigungen|bestellantworten|" +
		"ordrebekreftelser|ordrebekreftelse|ordresvar|orderbekräftelser|orderbekräftelse|ordersvar|" +
		"respuestas a pedidos|respuesta a pedido|respuestas de pedido|confirmaciones de pedido|" +
		"risposte agli ordini|risposta all'ordine|conferme d'ordine|conferme di ordine|" +
		"ordrebekræftelser|ordrebekræftelse|tilausvahvistukset|tilausvahvistuksia|tilausvahvistus|tilausvastaukset|" +
		"potwierdzenia zamówień|potwierdzenie zamówienia|odpowiedzi na zamówienia"},
	{DocCatalogue, "Catalogue", "catalogues|catalogs|catalogi|kataloge|kataloger|catálogos|cataloghi|tuoteluettelot|tuoteluetteloita|katalogit|katalogeja|katalogi"},
}

// docCategory returns the code list's category of document kind doc, "" for DocAny.
func docCategory(doc string) string {
	if c, ok := docCategories[doc]; ok {
		return c
	}
	for _, d := range kindDocs {
		if d.doc == doc {
			return d.category
		}
	}
	return ""
}

// docName names document kind doc in t's words: its docs, else its name of the code
// list's category (kinds), in lower case as in a sentence.
func docName(t *tongue, doc string) string {
	if s, ok := t.docs[doc]; ok {
		return s
	}
	c := docCategory(doc)
	if s, ok := t.kinds[c]; ok {
		if t.code == LangGerman {
			return s // German nouns are capitalised
		}
		return strings.ToLower(s)
	}
	return strings.ToLower(c)
}
