package nlq

// More words of the eleven languages for the rule planner, read with lang.go's and
// lang_eleven.go's tables (buildLexicon): Norwegian Nynorsk, the names of national
// e-invoice formats and networks (EHF, NemHandel, XRechnung, Svefaktura), the words
// for "at <company>" before a name ("bei der", "chez", "hos", "presso") and verbs of
// sending documents. Development questions: tongues2_test.go.

// lexGroupsMore are those phrases, by meaning, as lexGroups.
var lexGroupsMore = []lexGroup{
	// Norwegian Nynorsk question words and verbs.
	{role: lexStarter, side: lexLeft, flags: flagNoTypo, phrases: "kvifor|kvar|når"},
	{role: lexFiller, side: lexLeft, flags: flagWhich | flagNoTypo, phrases: "kva|kva for|kva for eit|kva for ein|kva slags|kven"},
	{role: lexIntent, side: lexLeft, flags: flagNoTypo, intent: IntentLookup, phrases: "kven er|kva er"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "brukar|nyttar|nytter|eg|dei|me|ikkje|ikkje sant|eller ikkje|" +
		"eller ikke|eg lurer på|lurer på|kan eg|kan de|kan me|kunne de"},
	{role: lexFiller, side: lexLeft, flags: flagNoTypo, phrases: "hvorledes|hvorledes kan jeg se om|hvorledes kan jeg sjekke om|" +
		"hvordan kan jeg sjekke om|korleis kan eg sjå om|korleis kan eg sjekke om|kan eg sjå om|sjå om|korleis"},
	// A verb split around the name: "Tar Nordlys Bygg imot fakturaer?", "Tar Umeå
	// Fastigheter emot fakturor?".
	{role: lexReceive, side: lexLeft, flags: flagArticle | flagNoTypo, phrases: "tar|tek|tager"},
	{role: lexReceive, side: lexRight, flags: flagLowerRight | flagNoTypo, phrases: "imot|i mot|emot|imod"},
	{role: lexIntent, side: lexBoth, flags: flagPossessive | flagNoTypo, intent: IntentAccessPoint, phrases: "endepunkt|endepunktet|" +
		"endepunkter|endpointet|endpointen|endpunkt|endpunktet|endepunktadresse|endepunkt-url|endpoint-url|endpoint-adresse|" +
		"tilgangspunkt|tilgangspunktet|" +
		"tilknytingspunkt|aksesspunktet sitt|tenesteleverandør|tenesteleverandøren"},
	{role: lexReceive, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "ta imot|tek imot|tar imot|ta i mot|motta|mottek|" +
		"einreichen|zustellen|schicken|übermitteln|zusenden|envoyer à|faire parvenir|inviare a|send til|sende til|skicka till|" +
		"facturer|facturer à|transmettre|i invoice|we invoice|invoice them|send an invoice to|fakturere|fakturera|fakturieren|factureren|fatturare|facturar|laskuttaa|fakturować"},
	{role: lexPresence, side: lexBoth, flags: flagNoTypo, phrases: "registrerte|registrert|tilknytt|tilkopla|kopla til|påkopla|" +
		"på peppol-nettet|i peppol-nettet|im peppol-netz|im peppolnetz|ans peppol-netz angeschlossen|angeschlossen|erreichbar|" +
		"über peppol erreichbar"},
	// A company named inside a longer sentence, as people write to a help desk: "our
	// customer X wants e-invoices – can they receive them?", "Wir beliefern die Firma X.
	// Können wir dort E-Rechnungen abgeben?".
	{role: lexFiller, side: lexLeft, flags: flagNoTypo, phrases: "our customer|our client|our supplier|my customer|my client|" +
		"we buy from|we sell to|we deliver to|we supply|unser kunde|unsere kundin|unser lieferant|wir beliefern|wir liefern an|" +
		"notre client|notre cliente|mon client|ma cliente|notre fournisseur|mon fournisseur|onze klant|onze leverancier|mijn klant|" +
		"vår kunde|vår leverandør|vores kunde|vores leverandør|vår kund|vår leverantör|asiakkaamme|asiakas|toimittajamme|" +
		"il nostro cliente|la nostra cliente|il nostro fornitore|nuestro cliente|nuestra clienta|nuestro proveedor|" +
		"nasz klient|nasza klientka|nasz dostawca|mój klient"},
	{role: lexReceive, side: lexRight, flags: flagLowerRight | flagNoTypo, phrases: "will|möchte|wünscht|verlangt|benötigt|braucht|" +
		"abgeben|senden|übersenden|haluaa|haluavat|quiere|quieren|vuole|vogliono|wil|willen|ønsker|vil have|vill ha|chce|chcą|" +
		"wants|would like|veut|souhaite"},
	{role: lexReceive, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "recibirlas|recibirla|recibirlos|aceptarlas|" +
		"riceverle|riceverla|riceverli|accettarle|recevoir celles-ci|les recevoir|ontvangen|entgegennehmen"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "geht das|ist das möglich|funktioniert das|dort|dorthin|" +
		"sille|heille|niille|dem|dem det|them|is that possible|possible|per peppol|über peppol"},
	// National formats of invoices and national networks named in a question.
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive | flagNoTypo, doc: DocInvoice, phrases: "ehf|ehf-faktura|ehf-fakturaer|" +
		"ehf-fakturaen|ehf faktura|ehf fakturaer|svefaktura|svefakturor|xrechnung|xrechnungen|zugferd|zugferd-rechnung{,en}|" +
		"e-rechnung|e-rechnungen|si-ubl|si-ubl-facturen|factur-x|e-faktura|e-fakturaer|e-fakturor|efaktura"},
	{role: lexFiller, side: lexRight, flags: flagNoTypo, phrases: "via nemhandel|gennem nemhandel|over nemhandel|i nemhandel|via elma|" +
		"via ehf|som ehf|i ehf-format|som ehf-faktura"},
	// "At <company>": before the name, next to a verb of sending.
	{role: lexFiller, side: lexLeft, flags: flagNeedReceive | flagNoTypo, phrases: "bei der|bei dem|beim|bei|an die|an den|an das|chez|auprès de|" +
		"hos|presso|presso la|presso il|presso lo|a la empresa|para la empresa|til firmaet|til selskapet|til virksomheden|" +
		"till företaget|aan|naar|to|at"},
	// Spanish and Italian "I want to send", "we would like to send".
	{role: lexFiller, side: lexLeft, flags: flagNoTypo, phrases: "quiero|queremos|quisiera|quisiéramos|voglio|vogliamo|vorrei|vorremmo|" +
		"ich möchte|wir möchten|ich will|wir wollen|je veux|nous voulons|je voudrais|nous voudrions|ik wil|wij willen|we willen|" +
		"jeg vil|vi vil|jag vill|vi vill|haluan|haluamme|chcę|chcemy|chciałbym|chciałabym"},
}

// lexPeppolSuffixesMore are more words for the network after "Peppol" ("Peppol-Netz",
// "Peppol-nettet"), as lexPeppolSuffixes.
const lexPeppolSuffixesMore = "netz|netzes|nettet|nettverket|nätet|nettverk|tinklas|tinkle|síť|sieti|síti|hálózat|hálózaton|rețea|rețeaua|mreža|mreži|ağı"

// lexSaysPresence reports whether a word alone is a phrase saying "on Peppol"
// ("Peppol-verkossa", "Peppol-netværket"): it is read as that, not as the bare word
// Peppol.
func lexSaysPresence(key string) bool {
	if n := ruleLex.left.child(key); n != nil {
		for _, e := range n.entries {
			if e.role == lexPresence {
				return true
			}
		}
	}
	return false
}

// moreMarkers are more words typical of questions in a language, by code, read with
// its tongue's markers (buildLangMarkers): Nynorsk, the words Danish and Norwegian
// write differently, "bei", "chez", "hos", verbs of invoicing.
var moreMarkers = map[string]string{
	LangDanish: "vi|hos|fakturere|spørgsmål|nu|lige|tjek|tjekke|ud|finde|sige|fortælle|hjælpe|udstedt|udstedte|udsteder|blev|været|tilsluttet",
	LangGerman: "bei|beim|zugangspunkt|zugangspunktes",
	LangFrench: "peut-on|puis-je|pouvons-nous|facturer|chez|envoyer|auprès|transmettre",
	LangNorwegian: "vi|hos|fakturere|spørsmål|vennligst|ennå|nå|gjerne|finne|fortelle|hjelpe|utstedt|utstedte|utsteder|ble|vært|tilkoblet|" +
		"kva|korleis|kven|kvifor|ikkje|eg|dei|brukar|nyttar|tek|mottek|tilgangspunkt|tilgangspunktet|ehf|ehf-faktura|organisasjonsnummer|" +
		"orgnr|org.nr|mva|bokmål|nynorsk|nettet|sjekke|sjekk|tilknytt|hvorledes",
	LangSwedish: "vi|hos|fakturera|orgnr|org.nr",
}
