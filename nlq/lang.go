package nlq

// Word lists of the rule planner in English, French, Dutch, German, Norwegian and
// Swedish (lang_eleven.go has Spanish, Italian, Danish, Finnish and Polish). Phrases are written as people type them (diacritics, hyphens, elisions) and
// folded by the same tokeniser that reads questions, so "d'accès", "Österreich" and
// "heißt" match "d’acces", "osterreich" and "heisst". In a phrase, "|" separates
// alternatives and "{a,b}" expands in place ("invoice{,s}" is "invoice" and
// "invoices"). A hyphenated word also matches written apart and run together
// ("e-invoice", "e invoice", "einvoice").

// lexRole is what a phrase tells the planner when it is stripped from a question.
type lexRole uint8

const (
	lexFiller   lexRole = iota // nothing: politeness, pronouns, articles, punctuation words
	lexIntent                  // the entry's intent (lookup, search, count, access_point)
	lexReceive                 // a capability verb: the question is can_receive
	lexDoc                     // a document kind (only next to a capability verb)
	lexPresence                // "on Peppol", "registered": an on_peppol question
	lexCopula                  // "is", "est-ce que", "staat", "finns": on_peppol when with presence
	lexCountry                 // a country filter ("in Belgium", "belges", "(Norge)")
	lexNoun                    // "company", "société", "Firma": stripped, no meaning
	lexStarter                 // "how", "why", "où": a general question unless an intent follows
)

// lexSide says at which edge of the remaining subject a phrase may be stripped.
type lexSide uint8

const (
	lexLeft  lexSide = 1 << iota // before the company name
	lexRight                     // after the company name
	lexBoth  = lexLeft | lexRight
)

// lexFlag restricts when a phrase is stripped; the conditions are in ruleScan.allowed.
type lexFlag uint16

const (
	// flagWeak: at the left edge, kept as part of the name when written capitalised and
	// followed by a capitalised word that is not a keyword ("Deutsche Bahn",
	// "Société Générale", "Peppol Solutions"), stripped otherwise ("deutsche Firmen",
	// "Belgian companies", "la société Acme").
	flagWeak lexFlag = 1 << iota
	// flagArticle: like flagWeak, and additionally stripped whenever it is the question's
	// first word, because sentences start capitalised ("The Acme company ..."), while
	// "who is The Coca-Cola Company" and "wie is De Lijn" keep it.
	flagArticle
	// flagLowerRight: at the right edge only when written in lower case, so that
	// "The Coca-Cola Company" and "Acme Now" keep their last word.
	flagLowerRight
	// flagNeedReceive: only in a question with a capability verb, so that "Invoice
	// Solutions" stays a name in "find Invoice Solutions".
	flagNeedReceive
	// flagAdjective: a country adjective; at the right edge only next to a company noun
	// ("une société belge", "Acme, a Belgian company").
	flagAdjective
	// flagPossessive: a name right before it loses an English possessive "'s"
	// ("Acme's access point").
	flagPossessive
	// flagAfterPeppol: only right after the word Peppol ("the Peppol network").
	flagAfterPeppol
	// flagNamed: the phrase introduces a company's name ("named", "heißt"), which is
	// then searched as written, never reduced to a singular.
	flagNamed
	// flagNoTypo: the phrase's words are not targets of typo correction (rare words
	// a word of another meaning is one letter from: "sköter", "skoler").
	flagNoTypo
	// flagRelative: a relative clause after a noun ("that are on Peppol"): with a
	// category before it, the question asks for a list.
	flagRelative
	// flagWhich: an interrogative before a noun ("which", "welke", "vilka"): "which
	// bakeries are on Peppol" asks for a list, not whether one is registered.
	flagWhich
)

// lexGroup is one row of the phrase table.
type lexGroup struct {
	role   lexRole
	side   lexSide
	flags  lexFlag
	intent Intent
	doc    string
	// aspect is what the phrase narrows the question to (see rules_kinds.go).
	aspect  string
	phrases string
}

// lexGroups are the phrases stripped from questions, by meaning.
var lexGroups = []lexGroup{
	// Greetings, politeness and talk about the asking itself.
	{role: lexFiller, side: lexBoth, phrases: "please|pls|plz|kindly|thanks|thank you|thx|cheers|hi|hello|hey|dear|good morning|good afternoon|" +
		"ok|okay|so|now then|quickly|asap|for me|i want to know|i'd like to know|i would like to know|i wonder|i was wondering|" +
		"do you know|can you tell me|could you tell me|would you tell me|can you|could you|would you|will you|tell me|let me know|" +
		"help me|i need to know|i need|i want|we need|we want|need|want|" +
		"many thanks|thank you very much|thanks a lot|merci beaucoup|merci bien|dank je wel|hartelijk dank|vielen dank|danke sehr|mange takk|" +
		"raconte-moi|racontez-moi|vertel|erzähl mir|erzähle mir|erzählen sie mir|fortell|" +
		"s'il vous plaît|s'il te plaît|svp|stp|merci|bonjour|salut|coucou|bonsoir|dis-moi|dites-moi|pouvez-vous|peux-tu|pourriez-vous|" +
		"je voudrais savoir|je veux savoir|j'aimerais savoir|savez-vous|sais-tu|je me demande|pour moi|" +
		"alsjeblieft|alstublieft|aub|a.u.b|graag|dank je|dank u|bedankt|hoi|hallo|goedemorgen|goedendag|dag|kun je|kunt u|kan je|" +
		"wil je|wilt u|vertel me|weet je|weet u|ik wil weten|ik zou graag willen weten|ik zou graag weten|ik vraag me af|voor mij|" +
		"bitte|danke|danke schön|guten tag|guten morgen|moin|servus|grüß gott|kannst du|können sie|könnten sie|sag mir|sagen sie mir|" +
		"weißt du|wissen sie|ich möchte wissen|ich will wissen|ich frage mich|für mich|" +
		"takk|tusen takk|hei|hallo|god dag|god morgen|kan du|kan dere|fortell meg|vet du|jeg vil vite|jeg lurer på|jeg lurte på|for meg|" +
		"tack|tack så mycket|hej|hejsan|god morgon|kan ni|berätta|berätta för mig|jag vill veta|jag undrar|för mig|snälla|vänligen|" +
		"how are you|how are you doing|ça va|comment ça va|comment allez-vous|hoe gaat het|hoe gaat het met je|wie geht's|wie gehts|" +
		"wie geht es dir|wie geht es ihnen|hvordan går det|hvordan har du det|hur mår du|hur är läget"},
	// "... eigentlich Peppol?": the network named at the end.
	{role: lexFiller, side: lexRight, phrases: "peppol|via peppol|über peppol"},
	// Hedges and politeness that sit anywhere in a question.
	{role: lexFiller, side: lexBoth, flags: flagNoTypo, phrases: "au juste|eigenlijk|eigentlich|egentlig|egentligen|actually|exactly|really|mal|loopt|" +
		"a few|some|a couple of|quelques|enkele|einige|noen|några|some of them|show me some|could you show me some|" +
		"goedemiddag|goedenavond|bonsoir|guten abend|god kveld|god kväll|god eftermiddag|good evening|" +
		"zou u kunnen|zou je kunnen|skulle du kunna|skulle ni kunna|kunne du|könnten sie|könntest du|would you mind|" +
		"nagaan|nagaan of|na te gaan|kunt u nagaan of|kontrollera om|sjekke|sjekke om|sjekk om|prüfen ob|prüfen sie ob|vérifier si|" +
		"voir si|regarder si|kijken of|nachsehen ob|se om|se efter om"},
	// Pronouns, conjunctions and small words that sit between the parts of a question.
	{role: lexFiller, side: lexBoth, phrases: "i|we|me|us|you|it|they|its|their|he|she|that|which|who|whom|and|or|also|too|then|if|whether|" +
		"my|our|ma|mon|mes|notre|nos|peux|puis-je|je peux|mijn|onze|ons|meine|meinen|unsere|unseren|min|mi|mine|vår|vårt|våre|mitt|mina|våra|" +
		"je|j'|nous|moi|vous|tu|il|elle|ils|elles|qui|que|qu'|ou|aussi|si|" +
		"ik|wij|we|mij|me|u|jij|hij|zij|ze|ook|" +
		"ich|wir|mich|mir|du|sie|er|es|und|oder|auch|ob|" +
		"jeg|vi|meg|dere|han|hun|som|og|eller|også|" +
		"jag|mig|ni|hon|och|eller|också"},
	// "all companies", "alle bedrijven".
	{role: lexFiller, side: lexLeft, phrases: "all|all the|all of the|every|each|tous les|toutes les|chaque|alle|elk|elke|sämtliche|jede|jeden|samtlige|hver|alla|varje"},
	// Words that end a question without meaning anything for the plan.
	{role: lexFiller, side: lexRight, flags: flagLowerRight, phrases: "yet|already|currently|at the moment|right now|now|today|still|at all|" +
		"these days|nowadays|de nos jours|tegenwoordig|heutzutage|nuförtiden|for tiden|fortsatt|fortfarande|nog|noch|encore|toujours|" +
		"loopt|läuft|går|eigenlijk|eigentlich|egentlig|egentligen|au juste|" +
		"there|here|do|does|work|déjà|actuellement|maintenant|aujourd'hui|al|nu|momenteel|vandaag|schon|bereits|jetzt|aktuell|derzeit|heute|" +
		"allerede|nå|i dag|redan|nu|idag|just nu|or not|ou pas|of niet|oder nicht|eller ikke|eller inte|right|correct|op|in|located|based|" +
		"from us|from me|from them|from you|from our company|de nous|de notre part|de ma part|van ons|van mij|von uns|von mir|fra oss|fra meg|" +
		"från oss|från mig"},
	// Modal verbs and "able to" around a capability question.
	{role: lexFiller, side: lexBoth, phrases: "can|could|may|is able to|are able to|able to|is it possible to|is it possible for|possible|" +
		"peut|peut-il|peut-elle|peut-on|on peut|peuvent|peuvent-ils|peuvent-elles|pourrait|est-il possible de|est-il capable de|capable de|en mesure de|" +
		"kan|kunnen|is in staat om|in staat om|kann|können|ist in der lage|in der lage|möglich|mulig|er i stand til|i stand til|möjligt|kan man"},
	// Copulas: with a presence phrase they make an on_peppol question.
	{role: lexCopula, side: lexBoth, phrases: "is|are|was|is there|are there|there is|there are|exists|exist|does|do|has|have|" +
		"est|sont|est-ce que|est-ce qu'|est-ce|est-il|est-elle|est-il bien|est-elle bien|y a-t-il|il y a|existe|existe-t-il|a-t-il|a-t-elle|" +
		"staat|staan|zit|zitten|is er|zijn er|zijn|bestaat|heeft|" +
		"ist|sind|gibt es|es gibt|existiert|hat|" +
		"er|finnes|fins|finnes det|fins det|er det|har|" +
		"är|finns|finns det|är det|har"},
	// Questions outside the domain start like this; an intent phrase overrules them.
	{role: lexStarter, side: lexLeft, phrases: "how|why|when|where|how do|how does|how can|how to|comment|pourquoi|quand|" +
		"hoe|waarom|wanneer|waar|wie|warum|wann|wo|hvordan|hvorfor|når|hvor|hur|varför|när|var"},
	// Interrogatives before a noun ("which access point", "welk bedrijf").
	{role: lexFiller, side: lexLeft, flags: flagWhich, phrases: "which|what|whose|welk|welke|welcher|welche|welches|welchen|quel|quelle|quels|quelles|lequel|" +
		"laquelle|hvilket|hvilken|hvilke|vilken|vilket|vilka|via which|through which|by which|via quel|par quel|via welk|via welke|" +
		"über welchen|über welches|via welchen|gjennom hvilket|via hvilket|genom vilken|via vilken"},
	// Prepositions left over after other phrases ("details of", "le point d'accès de"),
	// kept when they start a capitalised name ("De Lijn", "Van Oord", "Von Roll").
	{role: lexFiller, side: lexLeft, flags: flagArticle, phrases: "of|for|about|on|to|by|with|at|de|du|des|d'|sur|pour|à|van|voor|over|naar|met|von|für|über|zu|zur|zum|an|mit|" +
		"bei|av|til|for|om|på|med|för|till|hos|vom|beim|ut för|ut for"},
	// Articles.
	{role: lexFiller, side: lexBoth, flags: flagArticle, phrases: "the|a|an|le|la|les|un|une|l'|de|des|du|de la|d'|het|een|der|die|das|den|dem|ein|eine|einen|einem|einer|eines|en|ett|et|ei|this|cette|ce|deze|dit|diese|dieser|dieses|denne|dette|detta"},

	// lookup: who is / look up / details.
	{role: lexIntent, side: lexLeft, intent: IntentLookup, phrases: "peppol lookup|peppol-oppslag|oppslag|peppol-uppslag|uppslag|" +
		"peppol-opzoeking|opzoeking|peppol-abfrage|abfrage|recherche peppol|" +
		"who is|who's|whos|who are|what is|what's|whats|what are|look up|lookup|look-up|" +
		"which country is|what country is|in which country is|welk land is|in welk land is|" +
		"dans quel pays est|quel pays est|welches land ist|in welchem land ist|hvilket land er|i hvilket land er|" +
		"vilket land är|i vilket land är|" +
		"tell me about|tell me who is|tell me more about|give me|get|describe|identify|resolve|check|verify|confirm|" +
		"see if|check if|check whether|" +
		"qui est|c'est qui|qu'est-ce que|qu'est-ce qu'|quel est|quelle est|donne-moi|donnez-moi|vérifie|vérifiez|vérifier|" +
		"contrôle|" +
		"wie is|wat is|wie zijn|wat zijn|geef me|geef|controleer|controleren|check of|" +
		"wer ist|was ist|wer sind|gib mir|prüfe|prüfen|überprüfe|überprüfen|schau nach|schlag nach|nachschlagen|" +
		"hvem er|hva er|gi meg|sjekk|kontroller|slå opp|" +
		"vem är|vad är|ge mig|kolla|kontrollera|slå upp"},
	{role: lexIntent, side: lexLeft, flags: flagWeak, intent: IntentLookup, phrases: "information|info|infos|details|data|profile|" +
		"informations|renseignements|détails|données|fiche|informatie|gegevens|informationen|angaben|daten|opplysninger|informasjon|" +
		"detaljer|uppgifter|uppgifterna|detaljerna|opplysningene|detaljene|informasjonen|informationen om|gegevens van"},
	{role: lexIntent, side: lexRight, flags: flagLowerRight | flagPossessive, intent: IntentLookup, phrases: "details|info|information|data|profile|record|" +
		"détails|informations|infos|données|gegevens|informatie|details|daten|informationen|angaben|detaljer|opplysninger|informasjon|uppgifter"},
	{role: lexIntent, side: lexRight, intent: IntentLookup, phrases: "who is that|who is it|c'est qui|qui est-ce|wie is dat|wer ist das|hvem er det|vem är det|" +
		"nachschlagen|opzoeken"},
	// Participant ids asked for by name count as lookups.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentLookup, phrases: "{peppol ,participant ,}{id,ids,identifier,identifiers,identification}|peppol participant id|participant identifier|" +
		"{l'identifiant,identifiant,id,numéro,le numéro,numéro d'identification} peppol|numéro de participant|" +
		"peppol nummer|deelnemersnummer|teilnehmernummer|deltakernummer|deltagarnummer|{peppol-id,peppol id,peppol-identifier,deelnemer-id}|{peppol-kennung,peppol-id,kennung,teilnehmer-id}|" +
		"{peppol-id,peppol id,deltaker-id}|{peppol-id,peppol id,deltagar-id}"},

	// search: find / search / list.
	{role: lexIntent, side: lexLeft, intent: IntentSearch, phrases: "find|find me|finds|search|search for|search the directory for|search peppol for|look for|looking for|" +
		"i am looking for|i'm looking for|we are looking for|list|list all|show|show me|show all|show me all|any|are there any|is there any|seek|query|browse|" +
		"montre-moi|montrez-moi|affiche|toon|toon me|laat zien|zeig mir|zeige mir|zeige|zeig|vis meg|vis|visa mig|visa|" +
		"trouve|trouver|trouvez|trouve-moi|cherche|chercher|cherchez|recherche|rechercher|recherchez|je cherche|liste|lister|listez|" +
		"zoek|zoek naar|zoeken|zoeken naar|vind|vinden|ik zoek|ik ben op zoek naar|op zoek naar|lijst|toon alle|" +
		"suche|suche nach|suchen|suchen nach|such|such nach|finde|finden|ich suche|liste alle|zeige alle|" +
		"finn|søk|søk etter|let etter|jeg leter etter|list opp|liste opp|vis alle|finne|søke|søke etter|ser etter|jeg ser etter|vi ser etter|" +
		"söka|söka efter|leta|vi letar efter|" +
		"sök|sök efter|hitta|leta efter|jag letar efter|lista|visa alla"},
	{role: lexIntent, side: lexRight, intent: IntentSearch, phrases: "finden|suchen|vinden|zoeken|trouver|finne|hitta"},

	// count: how many.
	{role: lexIntent, side: lexLeft, intent: IntentCount, phrases: "how many|how much|number of|the number of|count|count of|count the|total number of|" +
		"combien|combien de|combien d'|combien y a-t-il de|combien y a-t-il d'|le nombre de|nombre de|nombre d'|" +
		"hoeveel|het aantal|aantal|" +
		"wie viele|wieviele|wie viel|die anzahl der|die anzahl an|anzahl der|anzahl an|anzahl von|anzahl|" +
		"hvor mange|antall|antallet|" +
		"hur många|antal|antalet"},

	// access_point: which access point / SMP / service provider.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentAccessPoint, phrases: "{peppol ,}access point{,s}|{peppol ,}access-point{,s}|" +
		"{peppol ,}{smp,smp host,smp server,smp provider}|{peppol ,e-invoicing ,einvoicing ,}{service provider,provider,providers}|" +
		"endpoint|endpoints|point d'accès{, peppol}|points d'accès|fournisseur{, peppol, de services}|prestataire{, peppol, de services}|opérateur{, peppol}|plateforme|" +
		"operator|opérateur|toegangspunt|toegangspunten|dienstverlener|serviceprovider|leverancier|" +
		"zugangspunkt|zugangspunkte|dienstleister|anbieter|peppol-anbieter|" +
		"tilgangspunkt|aksesspunkt|tjenesteleverandør|leverandør|" +
		"åtkomstpunkt|accesspunkt|tjänsteleverantör|leverantör|operatör|operatør"},
	{role: lexIntent, side: lexLeft, intent: IntentAccessPoint, phrases: "{which,what,whose,welk,welke,welcher,welchen,quel,hvilket,hvilken,vilken,vilket} ap|" +
		"ap {of,for,van,de,du,von,für,for,til,för}|{ap,access point,access points,smp,provider,service provider} {of,for,used by,serving,van,von,für,de,du,til,för}|" +
		"point d'accès {de,du}|fournisseur {de,du}|toegangspunt van|zugangspunkt {von,der,des}|dienstleister {von,der,des}|" +
		"tilgangspunkt {for,til}|aksesspunkt {for,til}|åtkomstpunkt för|accesspunkt för|" +
		"who serves|who hosts|who handles|who provides|who runs|who operates|qui sert|qui gère|wie bedient|wer bedient|hvem betjener|vem betjänar"},
	{role: lexIntent, side: lexLeft, flags: flagNoTypo, intent: IntentAccessPoint, phrases: "{who is,who's,who} handling peppol for|who handles peppol for|who does peppol for|qui gère peppol pour|qui s'occupe de peppol pour|" +
		"wie regelt peppol voor|wie doet peppol voor|wer macht peppol für|wer betreut peppol für|hvem håndterer peppol for|hvem tar seg av peppol for|" +
		"vem sköter peppol åt|vem sköter peppol för|vem sköter|vem hanterar peppol för"},
	{role: lexIntent, side: lexBoth, flags: flagPossessive | flagNoTypo, intent: IntentAccessPoint, phrases: "peppol-provider|peppol provider|peppol-providers|" +
		"peppol-leverandør{,en}|peppol-leverantör{,en}|peppol-dienstleister|peppol-dienstverlener|leverandøren|leverantören|dienstverlener|" +
		"aksesspunktet|accesspunkten|accesspunktet|åtkomstpunkten|tilgangspunktet|het toegangspunt|der zugangspunkt"},
	{role: lexIntent, side: lexRight, intent: IntentAccessPoint, phrases: "which provider|which access point|which smp|quel prestataire|quel fournisseur|" +
		"welke provider|welke dienstverlener|welcher anbieter|welcher dienstleister|hvilken leverandør|vilken leverantör"},
	// Verbs around an access point question.
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "serves|serve|serving|hosts|host|hosting|handles|uses|use|using|is used by|used by|" +
		"provides|provide|runs|operates|fournit|exploite|levert|beheert|stellt|liefert|betreibt|betreiben|leverer|driver|levererar|" +
		"tillhandahåller|handles e-invoicing for|does e-invoicing for|handles peppol for|does peppol for|{e-invoicing,invoicing} for|" +
		"sert|héberge|utilise|gère|hostet|hosten|bedient|gebruikt|host|nutzt|verwendet|benutzt|betjener|bruker|betjänar|använder"},

	// can_receive: capability verbs.
	{role: lexReceive, side: lexBoth, flags: flagLowerRight, phrases: "receive|receives|receiving|accept|accepts|accepting|process|take|takes|support|supports|" +
		"recevoir|reçoit|reçoivent|reçoit-il|reçoit-elle|reçoivent-ils|reçoivent-elles|accepter|accepte|acceptent|traiter|" +
		"ready for|ready to receive|set up to receive|set up for|configured to receive|equipped to receive|" +
		"prêt pour|prête pour|prêt à recevoir|prête à recevoir|klaar voor|bereit für|klar for|klar för|klar til|" +
		"ontvangen|ontvangt|ontvang|accepteren|accepteert|verwerken|" +
		"empfangen|empfängt|annehmen|erhalten|erhält|akzeptieren|akzeptiert|verarbeiten|entgegennehmen|" +
		"motta|mottar|ta imot|ta i mot|tar imot|tar i mot|akseptere|aksepterer|å motta|" +
		"te ontvangen|zu empfangen|att ta emot|à recevoir|accepte-t-il|accepte-t-elle|acceptent-ils|" +
		"ta emot|tar emot|mottaga|acceptera|accepterar"},
	{role: lexReceive, side: lexBoth, flags: flagLowerRight, phrases: "send|send an|send a|sending|envoyer|envoyer des|envoie|sturen|versturen|zenden|senden|schicken|versenden|sende|skicka"},
	{role: lexReceive, side: lexRight, flags: flagLowerRight, phrases: "get|gets|obtain|krijgen|bekommen|få|ta imot"},
	{role: lexFiller, side: lexLeft, flags: flagNeedReceive, phrases: "to|à|naar|an|til|till"},

	// Documents (only stripped next to a capability verb).
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocCreditNote, phrases: "credit note{,s}|credit-note{,s}|creditnote{,s}|credit memo{,s}|credit invoice{,s}|" +
		"avoir{,s}|note{,s} de crédit|facture{,s} d'avoir|" +
		"creditnota|creditnota's|creditnotas|creditfactuur|creditfacturen|" +
		"gutschrift{,en}|gutschriftsrechnung{,en}|" +
		"kreditnota|kreditnotaer|kreditnotor|kreditfaktura{,er,or}"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocOrder, phrases: "order{,s}|purchase order{,s}|" +
		"commande{,s}|bon{,s} de commande|" +
		"bestelling{,en}|inkooporder{,s}|" +
		"bestellung{,en}|auftrag|aufträge|" +
		"ordre|ordrer|bestilling{,er}|innkjøpsordre{,r}|" +
		"beställning{,ar}|ordrar|inköpsorder"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocInvoice, phrases: "invoice{,s}|e-invoice{,s}|electronic invoice{,s}|bill{,s}|e-invoicing|invoicing|peppol invoice{,s}|" +
		"ubl invoice{,s}|peppol bis billing|bis billing|" +
		"facture{,s}|e-facture{,s}|facture{,s} électronique{,s}|facturation électronique|facturation|" +
		"factuur|facturen|e-factuur|e-facturen|elektronische factuur|elektronische facturen|e-facturatie|" +
		"rechnung{,en}|e-rechnung{,en}|xrechnung{,en}|elektronische rechnung{,en}|" +
		"faktura|fakturaer|fakturaen|e-faktura|e-fakturaer|elektroniske fakturaer|elektronisk faktura|" +
		"fakturor|fakturan|e-fakturor|elektroniska fakturor|elektronisk faktura"},
	{role: lexFiller, side: lexBoth, flags: flagNeedReceive, phrases: "documents|document|documenten|dokumente|dokumenter|dokument|messages|" +
		"{document,doc,message} type{,s}|types of document{,s}|kinds of document{,s}|formats|type{,s} de document{,s}|documenttype{,n,s}|" +
		"soorten documenten|dokumenttyp{,en,er}|dokumentarten|dokumentart|formate|formaten|" +
		"business documents|peppol documents|e-documents|all|alle|toutes|tous|both|and also|as well as|ainsi que|sowie|samt"},

	// on_peppol: presence on the network.
	// "Peppol-Netzwerk" and "peppolnettverket" are read as "peppol" (see
	// lexPeppolSuffixes), and "network" after "Peppol" is stripped on its own.
	{role: lexPresence, side: lexBoth, phrases: "{on,in,op,bij,sur,dans,bei,auf,im,på,i,med i,med på,within,into,to,till,an,aan,au,à} {the ,le ,het ,das ,}peppol|" +
		"{via,through,over,per,par,über,med,met,using,with,gjennom,genom} {the ,le ,het ,das ,this ,ce ,dit ,dieses ,dette ,detta ,den här ,}peppol|" +
		"{sur,dans,au} le réseau peppol|{sur,dans} l'annuaire peppol|{par,via,avec} ce {truc,système,machin} peppol|" +
		"in the directory|dans l'annuaire|" +
		"registered|registered on|registred|enrolled|connected|connected to|" +
		"enregistré|enregistrée|enregistrés|enregistrées|inscrit|inscrite|inscrits|inscrites|présent|présente|raccordé|raccordée|connecté|connectée|joignable|" +
		"geregistreerd|aangesloten|aangemeld|bekend|bereikbaar|" +
		"registriert|angemeldet|angeschlossen|angebunden|erreichbar|verfügbar|" +
		"registrert|registrert i|tilkoblet|tilknyttet|koblet til|nåbar|" +
		"registrerad|registrerat|registrerade|ansluten|anslutet|anslutna|nåbar|registrerte|registreerd|" +
		"use peppol|uses peppol|using peppol|on peppol yet|part of peppol|a peppol participant|peppol participant|a participant|" +
		"peppol-registered|peppol registered|registered on peppol|registered in peppol|registered with peppol|" +
		"utilise peppol|utilisent peppol|gebruikt peppol|gebruiken peppol|nutzt peppol|nutzen peppol|verwenden peppol|benutzen peppol|" +
		"bruker peppol|använder peppol|reachable|reachable on peppol"},
	{role: lexPresence, side: lexBoth, flags: flagLowerRight, phrases: "live|active|actif|active|actief|aktiv|aktivt"},
	// "Werkt X met Peppol?", "Arbeitet X mit Peppol?": the verb before a presence question.
	{role: lexFiller, side: lexLeft, flags: flagArticle, phrases: "werkt|werken|arbeitet|arbeiten|works|work"},
	{role: lexPresence, side: lexRight, flags: flagNoTypo | flagRelative, phrases: "{that,which,who} {are,is} on peppol|{that,which,who} use peppol|{that,which,who} are registered|" +
		"qui sont {sur,dans} peppol|qui sont inscrits sur peppol|qui sont inscrites sur peppol|qui utilisent peppol|" +
		"die op peppol {zitten,staan}|die peppol gebruiken|die bij peppol zijn aangesloten|" +
		"die peppol {nutzen,verwenden,benutzen}|die bei peppol sind|die im peppol-netzwerk sind|" +
		"som er på peppol|som bruker peppol|som er registrert|som finns på peppol|som använder peppol|som är registrerade|" +
		"die op peppol {zitten,staan} aangesloten|die bij peppol {zitten,staan}|die op peppol {zit,staat}|die peppol gebruikt"},
	{role: lexIntent, side: lexRight, flags: flagNamed, intent: IntentSearch, phrases: "in {their,its,the} name{,s}|dans {leur,son,le} nom|" +
		"in {de,hun,zijn} naam|im {namen,firmennamen}|i {navnet,namnet,firmanavnet}"},
	{role: lexFiller, side: lexBoth, phrases: "{for,für,voor,pour,för,til} {the ,}peppol"},
	{role: lexFiller, side: lexBoth, flags: flagAfterPeppol, phrases: lexPeppolSuffixes},
	// The word Peppol itself, before a name.
	{role: lexFiller, side: lexLeft, flags: flagWeak, phrases: "peppol|the peppol directory|peppol directory|the directory|directory|annuaire|verzeichnis|register|katalog"},

	// certificate: when the access point certificate expires, whether it is valid.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentCertificate, phrases: "certificate|certificates|cert|certs|" +
		"{ap,access point,access-point,peppol,endpoint,x.509,tls,signing} certificate{,s}|ap-certificate{,s}|ap-certificat|ap-certificaat|" +
		"ap-zertifikat|ap-sertifikat{,et}|ap-certifikat{,et}|certificate expiry|certificate expiration|" +
		"expiry of the certificate|expiry date of the certificate|validity of the certificate|" +
		"certificat|certificats|certificat du point d'accès|certificat peppol|date d'expiration du certificat|date d'expiration|" +
		"validité du certificat|expiration du certificat|" +
		"certificaat|certificaten|access point certificaat|access point-certificaat|peppol-certificaat|vervaldatum van het certificaat|" +
		"zertifikat|zertifikate|access-point-zertifikat|peppol-zertifikat|ablaufdatum des zertifikats|" +
		"sertifikat|sertifikatet|sertifikater|aksesspunktsertifikat|aksesspunktsertifikatet|aksesspunktets sertifikat|" +
		"certifikat|certifikatet|certifikaten|accesspunktscertifikat|accesspunktscertifikatet|accesspunktens certifikat"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "expire|expires|expired|expiring|expiry|expiration|run out|runs out|still valid|valid|" +
		"valid until|up to date|expire-t-il|expire-t-elle|expiré|expirée|encore valide|valide|toujours valide|" +
		"verloopt|verlopen|vervalt|nog geldig|geldig|läuft|abgelaufen|noch gültig|gültig|ablaufen|" +
		"utløper|utløpt|går|fortsatt gyldig|gyldig|går ut|löper|löper ut|fortfarande giltigt|fortfarande giltig|giltigt|giltig|" +
		"utgånget|gått ut"},
	// document_types: which document types and processes a participant's SMP lists.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentDocumentTypes, phrases: "{document,doc,message} type{,s}|" +
		"types of document{,s}|kinds of document{,s}|document formats|{business ,}process{,es}|document types and processes|" +
		"type{,s} de document{,s}|processus|types de documents et processus|" +
		"documenttype{,n,s}|documentsoorten|soorten documenten|processen|" +
		"dokumenttyp{,en}|dokumentarten|prozesse|geschäftsprozesse|" +
		"dokumenttype{,r,ne}|prosess{,er,ene}|" +
		"dokumenttyp{,er,erna}|process{,er,erna}"},
	// Verbs of support, for document type questions ("which processes does X support").
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "prend-il en charge|prend-elle en charge|prennent-ils en charge|" +
		"accepte-t-elle|accepte-t-il|supporte|supportent|supporte-t-il|supporte-t-elle|" +
		"prend en charge|ondersteunt|ondersteunen|unterstützt|unterstützen|støtter|støtte|stöder|stödjer|zuständig|ist zuständig|" +
		"ist für|er ansvarlig for|ansvarar för|ansvarlig|offers|offer"},
	{role: lexFiller, side: lexRight, flags: flagLowerRight, phrases: "ab|ut"},
	// Which SMP hosts a participant.
	{role: lexIntent, side: lexLeft, intent: IntentAccessPoint, phrases: "{which,what} smp{, server, host, provider}|quel smp|welke smp|welcher smp|" +
		"hvilken smp|hvilket smp|vilken smp|vilket smp|le smp|het smp|den smp|the smp{, for, of}"},
	// "... combien ?": a count asked at the end.
	{role: lexIntent, side: lexRight, intent: IntentCount, phrases: "combien|how many|hoeveel|wie viele|hvor mange|hur många"},

	// Company nouns.
	{role: lexNoun, side: lexBoth, flags: flagWeak | flagLowerRight, phrases: "company|companies|business|businesses|firm|firms|organisation|organisations|organization|organizations|" +
		"participant|participants|entity|entities|party|parties|enterprise|enterprises|supplier|suppliers|customer|client|corporation|" +
		"société|sociétés|entreprise|entreprises|l'entreprise|l'organisation|l'entité|compagnie|firme|firmes|organisme|" +
		"bedrijf|bedrijven|het bedrijf|onderneming|ondernemingen|organisatie|organisaties|firma's|klant|deelnemer|deelnemers|" +
		"selskap|selskaper|selskapet|bedrift|bedrifter|bedriften|foretak|foretaket|virksomhet|virksomheter|virksomheten|deltaker|deltakere|" +
		"företag|företaget|företagen|bolag|bolaget|bolagen|organisationen|deltagare|kund"},
	// German nouns are capitalised in every sentence, so they are never kept as names.
	{role: lexNoun, side: lexBoth, phrases: "firma|firmen|unternehmen|gesellschaft|betrieb|teilnehmer|lieferant|kunde"},
	// "named X": a search unless another intent says more.
	{role: lexIntent, side: lexLeft, flags: flagNamed, intent: IntentSearch, phrases: "named|called|with the name|by the name|by the name of|with name|whose name is|whose name contains|" +
		"with a name like|containing|is called|are called|is named|are named|known as|" +
		"nommé|nommée|nommés|nommées|appelé|appelée|appelés|appelées|s'appelle|s'appellent|qui s'appelle|qui s'appellent|du nom de|" +
		"avec le nom|dont le nom est|dont le nom contient|au nom de|" +
		"genaamd|met de naam|met naam|die heet|die heten|heet|heten|met als naam|onder de naam|" +
		"namens|mit dem namen|mit namen|die heißt|die heißen|heißt|heißen|genannt|" +
		"som heter|med navn|med navnet|kalt|heter|ved navn|" +
		"name :|name =|company name :|company :|nom :|raison sociale :|naam :|bedrijfsnaam :|firma :|firmenname :|navn :|firmanavn :|" +
		"namn :|företagsnamn :|" +
		"med namnet|med namn|kallad|kallade|kallat|vid namn"},
}

// lexPeppolSuffixes are the words that follow "Peppol" to name the network or its
// directory; stripped after "Peppol", and "Peppol-<suffix>" reads as "Peppol".
const lexPeppolSuffixes = "network|networks|netwerk|netzwerk|réseau|nettverk|nettverket|nätverk|nätverket|directory|verzeichnis|" +
	"thing|truc|ding|greie|greiene|greia|grej|grejen|grejer|sache|system|systeem|système|systemet|" +
	"register|registry|annuaire|katalog|katalogen"

// lexCountry lists a country's names (written after a preposition, in brackets or
// after "country:") and adjectives (on their own, before or after a company noun).
type lexCountryWords struct {
	code       string
	names      string
	adjectives string
}

// lexGermanAdj are the endings of a German adjective.
const lexGermanAdj = "{,e,en,er,es,em}"

// lexCountryTable holds the countries a question may name, in the first six languages
// (lang_eleven.go adds the other five).
var lexCountryTable = []lexCountryWords{
	{"BE", "belgium|belgique|la belgique|belgië|belgien|belgia",
		"belgian{,s}|belge{,s}|belgisch{,e}|belgisch" + lexGermanAdj + "|belgisk{,e,a}"},
	{"NL", "netherlands|the netherlands|holland|pays-bas|les pays-bas|hollande|nederland|niederlande|den niederlanden|der niederlande|nederländerna",
		"dutch|néerlandais{,e,es}|hollandais{,e,es}|nederlands{,e}|niederländisch" + lexGermanAdj + "|nederlandsk{,e}|nederländsk{,a}|hollandsk{,e,a}"},
	{"DE", "germany|allemagne|l'allemagne|duitsland|deutschland|tyskland",
		"german{,s}|allemand{,e,s,es}|duits{,e}|deutsch" + lexGermanAdj + "|tysk{,e,a}"},
	{"FR", "france|la france|frankrijk|frankreich|frankrike",
		"french|français|française{,s}|frans{,e}|französisch" + lexGermanAdj + "|fransk{,e,a}"},
	{"NO", "norway|norvège|la norvège|noorwegen|norwegen|norge|noreg",
		"norwegian{,s}|norvégien{,ne,s,nes}|noors{,e}|norwegisch" + lexGermanAdj + "|norsk{,e,a}"},
	{"SE", "sweden|suède|la suède|zweden|schweden|sverige",
		"swedish|suédois{,e,es}|zweeds{,e}|schwedisch" + lexGermanAdj + "|svensk{,e,a}"},
	{"DK", "denmark|danemark|le danemark|denemarken|dänemark|danmark",
		"danish|danois{,e,es}|deens{,e}|dänisch" + lexGermanAdj + "|dansk{,e,a}"},
	{"FI", "finland|finlande|la finlande|finnland|suomi",
		"finnish|finlandais{,e,es}|finse|finnisch" + lexGermanAdj + "|finsk{,e,a}"},
	{"IT", "italy|italie|l'italie|italië|italien|italia",
		"italian{,s}|italien{,ne,s,nes}|italiaans{,e}|italienisch" + lexGermanAdj + "|italiensk{,e,a}"},
	{"ES", "spain|espagne|l'espagne|spanje|spanien|spania|españa",
		"spanish|espagnol{,e,s,es}|spaans{,e}|spanisch" + lexGermanAdj + "|spansk{,e,a}"},
	{"AT", "austria|autriche|l'autriche|oostenrijk|österreich|østerrike|österrike",
		"austrian{,s}|autrichien{,ne,s,nes}|oostenrijks{,e}|österreichisch" + lexGermanAdj + "|østerriksk{,e}|österrikisk{,a}"},
	{"CH", "switzerland|suisse|la suisse|zwitserland|schweiz|der schweiz|sveits",
		"swiss|suisse{,s}|zwitsers{,e}|schweizer|schweizerisch" + lexGermanAdj + "|sveitsisk{,e}|schweizisk{,a}"},
	{"GB", "united kingdom|the united kingdom|uk|the uk|great britain|britain|england|royaume-uni|le royaume-uni|angleterre|l'angleterre|" +
		"grande-bretagne|la grande-bretagne|verenigd koninkrijk|het verenigd koninkrijk|engeland|groot-brittannië|vereinigtes königreich|" +
		"vereinigten königreich|dem vereinigten königreich|großbritannien|storbritannia|storbritannien",
		"british|english|britannique{,s}|anglais{,e,es}|brits{,e}|engelse|britisch" + lexGermanAdj + "|englisch" + lexGermanAdj + "|" +
			"britisk{,e}|brittisk{,a}|engelsk{,e,a}"},
	{"IE", "ireland|irlande|l'irlande|ierland|irland",
		"irish|irlandais{,e,es}|ierse|irisch" + lexGermanAdj + "|irsk{,e,a}"},
	{"PL", "poland|pologne|la pologne|polen",
		"polish|polonais{,e,es}|poolse|polnisch" + lexGermanAdj + "|polsk{,e,a}"},
	{"PT", "portugal|le portugal",
		"portuguese|portugais{,e,es}|portugees|portugese|portugiesisch" + lexGermanAdj + "|portugisisk{,e,a}"},
	{"LU", "luxembourg|le luxembourg|luxemburg",
		"luxembourgish|luxembourgeois{,e,es}|luxemburgs{,e}|luxemburgisch" + lexGermanAdj + "|luxemburgsk{,e,a}"},
	{"EE", "estonia|estonie|l'estonie|estland|eesti",
		"estonian{,s}|estonien{,ne,s,nes}|estlands{,e}|estisch{,e}|estnisch" + lexGermanAdj + "|estisk{,e,a}|estländsk{,a}"},
	{"IS", "iceland|islande|l'islande|ijsland|island",
		"icelandic|islandais{,e,es}|ijslands{,e}|isländisch" + lexGermanAdj + "|islandsk{,e}|isländsk{,a}"},
	{"AU", "australia|australie|l'australie|australië|australien",
		"australian{,s}|australien{,ne,s,nes}|australisch" + lexGermanAdj + "|australsk{,e,a}|australiensk{,e,a}"},
	{"NZ", "new zealand|nouvelle-zélande|la nouvelle-zélande|nieuw-zeeland|neuseeland|nya zeeland",
		"new zealander{,s}|néo-zélandais{,e,es}|nieuw-zeelands{,e}|neuseeländisch" + lexGermanAdj + "|newzealandsk{,e}|nyzeeländsk{,a}"},
	{"SG", "singapore|singapour|singapur",
		"singaporean{,s}|singapourien{,ne,s,nes}|singaporees|singaporese|singapurisch" + lexGermanAdj + "|singaporsk{,e,a}"},
	{"JP", "japan|japon|le japon",
		"japanese|japonais{,e,es}|japans{,e}|japanisch" + lexGermanAdj + "|japansk{,e,a}"},
	{"US", "united states|the united states|usa|the usa|the us|america|états-unis|les états-unis|verenigde staten|de verenigde staten|" +
		"vereinigte staaten|den vereinigten staaten|den usa|amerika|forente stater|usa|förenta staterna",
		"american{,s}|américain{,e,s,es}|amerikaans{,e}|amerikanisch" + lexGermanAdj + "|amerikansk{,e,a}"},
	{"GR", "greece|grèce|la grèce|griekenland|griechenland|hellas|grekland",
		"greek|grec{,s}|grecque{,s}|grieks{,e}|griechisch" + lexGermanAdj + "|gresk{,e}|grekisk{,a}"},
	{"HR", "croatia|croatie|la croatie|kroatië|kroatien|kroatia",
		"croatian{,s}|croate{,s}|kroatisch{,e}|kroatisch" + lexGermanAdj + "|kroatisk{,e,a}"},
	{"CZ", "czech republic|czechia|tchéquie|la tchéquie|république tchèque|tsjechië|tschechien|tsjekkia|tjeckien",
		"czech|tchèque{,s}|tsjechisch{,e}|tschechisch" + lexGermanAdj + "|tsjekkisk{,e}|tjeckisk{,a}"},
	{"HU", "hungary|hongrie|la hongrie|hongarije|ungarn|ungern",
		"hungarian{,s}|hongrois{,e,es}|hongaars{,e}|ungarisch" + lexGermanAdj + "|ungarsk{,e}|ungersk{,a}"},
	{"RO", "romania|roumanie|la roumanie|roemenië|rumänien|romania",
		"romanian{,s}|roumain{,e,s,es}|roemeens{,e}|rumänisch" + lexGermanAdj + "|rumensk{,e}|rumänsk{,a}"},
	{"BG", "bulgaria|bulgarie|la bulgarie|bulgarije|bulgarien",
		"bulgarian{,s}|bulgare{,s}|bulgaars{,e}|bulgarisch" + lexGermanAdj + "|bulgarsk{,e,a}"},
	{"LT", "lithuania|lituanie|la lituanie|litouwen|litauen",
		"lithuanian{,s}|lituanien{,ne,s,nes}|litouws{,e}|litauisch" + lexGermanAdj + "|litauisk{,e,a}"},
	{"LV", "latvia|lettonie|la lettonie|letland|lettland",
		"latvian{,s}|letton{,ne,s,nes}|letse|lettisch" + lexGermanAdj + "|latvisk{,e}|lettisk{,a}"},
	{"SK", "slovakia|slovaquie|la slovaquie|slowakije|slowakei|der slowakei|slovakien",
		"slovak{,s}|slovakian|slovaque{,s}|slowaaks{,e}|slowakisch" + lexGermanAdj + "|slovakisk{,e,a}"},
	{"SI", "slovenia|slovénie|la slovénie|slovenië|slowenien|slovenien",
		"slovenian{,s}|slovene|slovène{,s}|sloveens{,e}|slowenisch" + lexGermanAdj + "|slovensk{,e,a}"},
	{"LI", "liechtenstein|le liechtenstein", "liechtensteinisch" + lexGermanAdj},
	{"CA", "canada|le canada|kanada",
		"canadian{,s}|canadien{,ne,s,nes}|canadees|canadese|kanadisch" + lexGermanAdj + "|kanadisk{,e,a}"},
	{"MY", "malaysia|malaisie|la malaisie|maleisië|malaysien",
		"malaysian{,s}|malaisien{,ne,s,nes}|maleisisch{,e}|malaysisch" + lexGermanAdj + "|malaysisk{,e,a}"},
}

// lexCountryPrepositions introduce a country name or code ("in Belgium", "aus
// Deutschland", "i Norge", "in BE").
const lexCountryPrepositions = "in|from|based in|located in|in the country|en|au|aux|à|dans|de la|uit|in het|uit het|" +
	"aus|im|in der|aus der|in den|aus den|i|fra|från|within"

// lexCountryLabels introduce a country name or code in any case ("country: no",
// "land: Sverige", "pays = FR").
const lexCountryLabels = "country|country code|countrycode|land|landcode|landkode|landskod|pays|code pays|landet"

// lexISOCodes are the ISO 3166-1 alpha-2 codes; a code is a country filter only where
// it is clearly one (see ruleScan.countryCodeAt).
const lexISOCodes = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ " +
	"CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD " +
	"GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM " +
	"KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA " +
	"NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ " +
	"SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU " +
	"WF WS YE YT ZA ZM ZW"

// lexCodeAliases are codes people write that are not ISO 3166 alpha-2 codes of the
// country they mean.
var lexCodeAliases = map[string]string{"UK": "GB", "EL": "GR"}

// lexOfftopic are words that make a question about something other than a company
// when written in lower case ("what is the weather", "tell me a joke").
const lexOfftopic = "weather|forecast|temperature|time|date|day|news|joke|jokes|meaning|life|recipe|capital|president|population|" +
	"score|song|music|movie|film|age|birthday|météo|temps|heure|blague|recette|sens|vie|zin|leven|sinn|leben|lebens|bedeutung|mening|" +
	"meningen|livet|weer|tijd|grap|mop|recept|wetter|uhr|zeit|witz|rezept|" +
	"vær|været|tid|vits|oppskrift|klokka|väder|vädret|skämt|klockan|stock|price|prices|bitcoin|football|soccer"

// lexGeneral are words that alone are no company name ("what is this", "help").
const lexGeneral = "this|that|these|those|it|something|anything|everything|nothing|one|all|some|here|there|more|less|yes|no|" +
	"help|aide|hulp|hilfe|hjelp|hjälp|ja|nee|nein|oui|non|nei|test|testing|peppol|lorem|ipsum|dolor|sit|amet|foo|bar|baz|asdf|" +
	"qwerty|xyz|abc|blah|bla|hmm|lol|ceci|cela|ça|dit|dat|das|dies|dette|det|detta|going|up|doing|you|your|yourself|mean|means|works|" +
	"like|love|hate|weird|cool|nice|good|bad|great|fine|wrong|right|sure|well|very|much|many|really"

// lexAbbreviations keep their full stop at the end of a name ("Acme Inc.").
const lexAbbreviations = "inc|ltd|co|corp|bros|cie|ste|intl|mfg|jr|sr|st|assn|dept|int|soc|gen|nat"

// lexNumberLabels are the words peppol.Candidates reads before a number; a number's
// subject includes them because they narrow the number's reading ("KvK 54441587").
const lexNumberLabels = "organisationsnummer|organisasjonsnummer|ondernemingsnummer|kvk-nummer|kvk|y-tunnus|ytunnus|org.nr|orgnr|" +
	"cvr-nr|cvr|p.iva|piva|siren|siret|kbo|bce|mva|btw|tva|abn|gln|lei|ust-idnr|ust-id|ustidnr|ustid|ust|moms|vat|uid|iva"

// lexNumberSuffixes are the words peppol.Candidates reads after a number ("923 609 016 MVA").
const lexNumberSuffixes = "mva|mwst|tva|iva"
