package nlq

// Word lists of the rule planner in the five languages issue 29 adds: Spanish,
// Italian, Danish, Finnish and Polish, in the form of lang.go's tables (phrases as
// people type them, "|" between alternatives, "{a,b}" expanded). buildLexicon reads
// them with lang.go's. Finnish and Polish decline nouns, so their phrases list the
// forms questions use (Finnish "Peppolissa", "Ruotsista", "yritykselle"; Polish
// "w Polsce", "z Niemiec", "faktur korygujących").

// lexGroupsEleven are the phrases of the five languages, by meaning, as lexGroups.
var lexGroupsEleven = []lexGroup{
	// Greetings, politeness and talk about the asking itself.
	{role: lexFiller, side: lexBoth, phrases: "por favor|gracias|muchas gracias|hola|buenos días|buenas tardes|buenas|dime|dígame|" +
		"me puedes decir|me podrías decir|me puede decir|me podría decir|puedes decirme|podrías decirme|quisiera saber|quiero saber|" +
		"me gustaría saber|necesito saber|sabes|sabe usted|me pregunto|para mí|saludos|una pregunta|ayúdame|necesito|quería saber|" +
		"per favore|per piacere|grazie|grazie mille|ciao|salve|buongiorno|buonasera|dimmi|mi dici|mi puoi dire|mi potresti dire|" +
		"mi può dire|puoi dirmi|potresti dirmi|vorrei sapere|voglio sapere|mi piacerebbe sapere|ho bisogno di sapere|devo sapere|" +
		"sai|mi chiedo|per me|una domanda|aiutami|cortesemente|gentilmente|" +
		"tak|mange tak|tusind tak|hej|goddag|godmorgen|venligst|vil du|kan du|kan i|kunne du|fortæl|fortæl mig|kan i fortælle mig|" +
		"kan du fortælle mig|ved du|jeg vil gerne vide|jeg vil vide|jeg spekulerer på|jeg undrer mig over|for mig|gerne|" +
		"kiitos|kiitti|paljon kiitos|hei|moi|terve|huomenta|hyvää päivää|päivää|voitko|voisitko|voitteko|voisitteko|kerro|" +
		"kerro minulle|kertoisitko|voitko kertoa|voisitko kertoa|tiedätkö|tiedättekö|haluaisin tietää|haluan tietää|" +
		"minun pitää tietää|mietin|minulle|ystävällisesti|" +
		"proszę|poproszę|dziękuję|dzięki|cześć|dzień dobry|witam|hej|powiedz|powiedz mi|proszę powiedzieć|czy możesz|" +
		"czy mógłbyś|czy mogłabyś|czy może pan|czy może pani|chciałbym wiedzieć|chciałabym wiedzieć|chcę wiedzieć|" +
		"muszę wiedzieć|zastanawiam się|wiesz|dla mnie|uprzejmie|sprawdź proszę"},
	// Hedges that sit anywhere in a question.
	{role: lexFiller, side: lexBoth, flags: flagNoTypo, phrases: "realmente|exactamente|en realidad|realmente|davvero|esattamente|" +
		"in realtà|egentlig|faktisk|oikeastaan|tarkalleen|właściwie|dokładnie|w ogóle|" +
		"comprobar si|comprueba si|verificar si|verifica si|controllare se|verificare se|controlla se|tjek om|tjekke om|" +
		"undersøge om|tarkistaa onko|tarkista onko|sprawdzić czy|sprawdź czy|sprawdzić|sprawdz"},
	// Pronouns, conjunctions and small words between the parts of a question; in lower
	// case only at the right edge ("Siemens SE", "Acme Y"), and kept when they start a
	// capitalised name ("Mi Casa SL").
	{role: lexFiller, side: lexBoth, flags: flagWeak | flagLowerRight, phrases: "yo|nosotros|nos|me|mi|mis|nuestro|nuestra|nuestros|nuestras|tú|usted|ustedes|también|si|que|" +
		"io|noi|ci|mio|mia|miei|nostro|nostra|nostri|tu|lei|voi|anche|se|che|" +
		"jeg|vi|mig|os|du|dig|han|hun|som|og|eller|også|om|min|mit|mine|vores|jer|hvis|" +
		"minä|me|mä|meidän|minun|sinä|te|se|ne|ja|tai|myös|että|jos|mun|meille|meiltä|" +
		"ja|my|mnie|mi|nas|nam|ty|oni|one|oraz|lub|albo|też|także|również|że|jeśli|jeżeli|mój|moja|moje|nasz|nasza|nasze|naszej|naszego"},
	// Finnish case endings after a colon ("Virtanen Oy:lle", "Oy:n"): the name is
	// before them.
	{role: lexFiller, side: lexRight, flags: flagLowerRight | flagNoTypo, phrases: ":n|:lle|:llä|:lla|:ltä|:lta|:ssa|:ssä|:sta|:stä|" +
		":na|:nä|:ta|:tä|:a|:ä|:ksi|:iin|:een|:aan|:hin|:hen"},
	// Ways of asking whether ("where can I see whether X ...").
	{role: lexFiller, side: lexLeft, flags: flagNoTypo, phrases: "dónde puedo ver si|puedo ver si|cómo puedo saber si|cómo saber si|" +
		"quiero ver si|ver si|come posso sapere se|posso vedere se|vedere se|dove posso vedere se|hvordan kan jeg se om|" +
		"hvor kan jeg se om|miten voin tarkistaa|mistä näen|jak sprawdzić czy|jak mogę sprawdzić czy|gdzie sprawdzić czy"},
	// Polish "czy" asks a yes/no question; capitalised as the first word it is no name.
	{role: lexFiller, side: lexBoth, flags: flagArticle, phrases: "czy"},
	// Polite requests.
	{role: lexFiller, side: lexLeft, phrases: "podría usted decirme|podría decirme|puede decirme|puede usted decirme|decirme|" +
		"potrebbe dirmi|può dirmi|mi sa dire|dirmi|czy mógłby pan|czy mogłaby pani|czy mogliby państwo|mógłby pan|mogłaby pani|" +
		"czy może pan sprawdzić|czy może pani sprawdzić|proszę sprawdzić|kunne du fortælle mig|voisitteko kertoa"},
	// "all companies", "todas las empresas".
	{role: lexFiller, side: lexLeft, phrases: "todas las|todos los|todas|todos|cada|tutte le|tutti i|tutti gli|tutte|tutti|ogni|hver|samtlige|" +
		"kaikki|jokainen|wszystkie|wszystkich|każda|każdy|każdą"},
	// Words that end a question without meaning anything for the plan.
	{role: lexFiller, side: lexRight, flags: flagLowerRight, phrases: "ya|todavía|aún|ahora|actualmente|hoy|en este momento|o no|ahora mismo|" +
		"hoy en día|già|ancora|adesso|ora|attualmente|oggi|al momento|o no|oppure no|o meno|in questo momento|allerede|endnu|nu|lige nu|i dag|stadig|" +
		"eller ej|eller ikke|for tiden|jo|vielä|nyt|tällä hetkellä|tänään|nykyään|vai ei|ylipäätään|ollenkaan|już|jeszcze|teraz|" +
		"obecnie|aktualnie|dzisiaj|dziś|w tej chwili|czy nie|nadal|wciąż"},
	// Modal verbs and "able to" around a capability question.
	{role: lexFiller, side: lexBoth, phrases: "puede|pueden|podría|podrían|puedo|podemos|se puede|es posible|es capaz de|está en condiciones de|posible|" +
		"può|possono|potrebbe|potrebbero|posso|possiamo|si può|è possibile|è in grado di|in grado di|possibile|" +
		"kan|kunne|er i stand til|muligt|er det muligt at|kan man|" +
		"voi|voiko|voivat|voivatko|voinko|voimmeko|voisiko|pystyykö|pystyy|onko mahdollista|mahdollista|voidaanko|voidaan|" +
		"może|mogą|mogę|możemy|czy może|czy mogą|czy mogę|czy można|można|jest w stanie|da się|potrafi|mógłby"},
	// Copulas.
	{role: lexCopula, side: lexBoth, phrases: "es|son|está|están|hay|existe|existen|tiene|tienen|se encuentra|figura|aparece|" +
		"è|sono|c'è|ci sono|esiste|esistono|ha|hanno|si trova|risulta|" +
		"er|findes|findes der|er der|eksisterer|har|står|" +
		"onko|ovatko|löytyy|löytyykö|löytyvätkö|löytyvät|kuuluuko|kuuluu|" +
		"jest|czy jest|istnieje|istnieją|ma|mają|znajduje się|figuruje|występuje"},
	{role: lexCopula, side: lexRight, flags: flagLowerRight, phrases: "on|ovat"},
	// Polish "są" folds to "sa", a legal form ("Dupont SA"): in lower case only.
	{role: lexCopula, side: lexBoth, flags: flagLowerRight, phrases: "są|czy są"},
	// Questions outside the domain start like this; an intent phrase overrules them.
	{role: lexStarter, side: lexLeft, phrases: "cómo|por qué|cuándo|dónde|come|perché|quando|dove|hvordan|hvorfor|hvornår|hvor|" +
		"miten|kuinka|miksi|milloin|missä|jak|dlaczego|kiedy|gdzie"},
	// Interrogatives before a noun.
	{role: lexFiller, side: lexLeft, flags: flagWhich, phrases: "qué|cuál|cuáles|a través de qué|mediante qué|quale|quali|qual|che|" +
		"tramite quale|attraverso quale|hvilken|hvilket|hvilke|via hvilket|gennem hvilket|mikä|mitkä|mitä|millä|minkä|" +
		"jaki|jaka|jakie|jakiego|jakiej|jakim|który|która|które|którego|których|przez jaki|przez który"},
	// Prepositions left over after other phrases, kept when they start a capitalised name.
	{role: lexFiller, side: lexLeft, flags: flagArticle, phrases: "de|del|para|sobre|a|al|con|en|por|acerca de|de la|de los|de las|" +
		"di|della|dello|dei|degli|delle|per|su|al|alla|con|da|dal|dalla|sul|sulla|riguardo a|" +
		"af|for|om|til|på|med|hos|fra|" +
		"dla|do|od|o|na|z|ze|w|we|przez|u"},
	// Articles and demonstratives.
	{role: lexFiller, side: lexBoth, flags: flagArticle, phrases: "el|la|los|las|un|una|unos|unas|lo|este|esta|esto|ese|esa|" +
		"il|lo|la|l'|i|gli|le|un|uno|una|un'|questo|questa|quest'|den|det|de|en|et|denne|dette|tämä|tuo|ten|ta|to|tej|tego|tę"},

	// lookup.
	{role: lexIntent, side: lexLeft, intent: IntentLookup, phrases: "quién es|quiénes son|qué es|quién está detrás de|información sobre|" +
		"información de|datos de|detalles de|dame|dame información sobre|consulta|consultar|comprueba|comprobar|verifica|verificar|" +
		"revisa|revisar|identifica|de qué país es|en qué país está|" +
		"chi è|chi sono|cos'è|che cos'è|cosa è|informazioni su|dati di|dettagli di|dammi|controlla|controllare|verifica|verificare|" +
		"identifica|di che paese è|in quale paese si trova|in che paese è|" +
		"hvem er|hvad er|giv mig|tjek|kontrollér|kontroller|slå op|opslag|peppol-opslag|i hvilket land er|hvilket land er|" +
		"kuka on|keitä ovat|mikä on|mitä tiedät|tarkista|tarkistaa|selvitä|missä maassa on|" +
		"kim jest|kto to jest|kto to|kto jest|czym jest|co to jest|co to za|podaj|sprawdź|zweryfikuj|informacje o|" +
		"w jakim kraju jest|z jakiego kraju jest"},
	{role: lexIntent, side: lexLeft, flags: flagWeak, intent: IntentLookup, phrases: "información|datos|detalles|ficha|perfil|informazioni|" +
		"dati|dettagli|scheda|profilo|oplysninger|oplysningerne|tiedot|tietoja|lisätietoja|informacje|informacji|dane|danych|szczegóły|szczegółów"},
	{role: lexIntent, side: lexRight, flags: flagLowerRight | flagPossessive, intent: IntentLookup, phrases: "información|datos|detalles|" +
		"informazioni|dati|dettagli|oplysninger|tiedot|informacje|dane|szczegóły"},
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentLookup, phrases: "{número,identificador,id} {de ,}peppol|" +
		"peppol-id'et|peppol-id'en|id'et|verkkolaskuosoite|verkkolaskuosoitteen|verkkolaskuosoitetta|e-laskuosoite|ovt-tunnus|" +
		"{identificativo,codice,id} peppol|peppol-id|peppol id|peppol-tunniste|peppol-tunnus|osallistujatunnus|" +
		"{identyfikator,numer} peppol|deltager-id|deltagernummer"},

	// search.
	{role: lexIntent, side: lexLeft, intent: IntentSearch, phrases: "busca|buscar|búscame|encuentra|encontrar|encuéntrame|muestra|muéstrame|" +
		"muestre|lista|listar|enumera|quiero encontrar|estoy buscando|busco|buscamos|hay alguna|hay algún|localiza|" +
		"cerca|cercare|cercami|trova|trovare|trovami|mostra|mostrami|mostrare|elenca|elencami|lista|sto cercando|cerco|cerchiamo|" +
		"find|finde|søg|søg efter|søge|søge efter|vis|vis mig|vis alle|list|liste|jeg leder efter|vi leder efter|leder efter|find mig|" +
		"etsi|etsin|etsimme|hae|löydä|näytä|listaa|luettele|näytä kaikki|etsi kaikki|hae kaikki|haluan löytää|" +
		"znajdź|szukaj|wyszukaj|pokaż|wyświetl|wylistuj|wymień|lista|szukam|szukamy|poszukuję|pokaż mi|znajdź mi|podaj listę"},
	{role: lexIntent, side: lexRight, intent: IntentSearch, phrases: "encontrar|trovare|finde|löytää|znaleźć"},

	// count.
	{role: lexIntent, side: lexLeft, intent: IntentCount, phrases: "cuántos|cuántas|cuántos hay|cuántas hay|" +
		"cantidad de|total de|cuenta|quanti|quante|quantità di|totale di|conta|" +
		"hvor mange|antal|antallet af|antal af|montako|kuinka monta|kuinka paljon|paljonko|lukumäärä|määrä|kuinka moni|" +
		"ile|ilu|liczba|liczbę|ilość"},
	{role: lexIntent, side: lexRight, intent: IntentCount, phrases: "cuántos|cuántas|quanti|quante|hvor mange|montako|ile"},

	// access_point.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentAccessPoint, phrases: "punto de acceso{, peppol}|puntos de acceso|" +
		"proveedor{, peppol, de servicios, de peppol}|proveedores|prestador de servicios|operador{, peppol}|plataforma|" +
		"punto di accesso{, peppol}|punti di accesso|punto d'accesso|fornitore{, peppol, di servizi}|fornitori|provider|" +
		"intermediario|operatore|piattaforma|service provider|" +
		"adgangspunkt|adgangspunktet|adgangspunkter|accesspunkt|udbyder|udbyderen|tjenesteudbyder|serviceudbyder|leverandør|" +
		"leverandøren|operatør|" +
		"liityntäpiste|liityntäpisteen|liityntäpistettä|liityntäpisteellä|liityntäpisteestä|yhteyspiste|palveluntarjoaja|" +
		"palveluntarjoajan|palveluntarjoajaa|palveluntarjoajana|operaattori|operaattorin|operaattoria|verkkolaskuoperaattori|" +
		"verkkolaskuoperaattorin|välittäjä|välittäjän|peppol-operaattori|" +
		"punkt dostępowy|punktu dostępowego|punktem dostępowym|punkt dostępu|punktu dostępu|dostawca{, usług, peppol}|dostawcy|" +
		"dostawcą|dostawcę|operator|operatora|operatorem|pośrednik|platforma"},
	{role: lexIntent, side: lexLeft, intent: IntentAccessPoint, phrases: "quién gestiona peppol para|quién da servicio a|chi gestisce peppol per|" +
		"chi serve|hvem betjener|hvem håndterer peppol for|kuka hoitaa peppolin|kto obsługuje"},
	// Verbs around an access point question.
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "usa|utiliza|usan|utilizan|emplea|gestiona|atiende|da servicio a|" +
		"utilizza|usano|utilizzano|serve|gestisce|si appoggia a|si avvale di|bruger|betjener|håndterer|anvender|benytter|" +
		"käyttää|käyttävät|palvelee|hoitaa|välittää|używa|korzysta z|korzysta|obsługuje|wykorzystuje|używają|korzystają"},

	// can_receive: capability verbs.
	{role: lexReceive, side: lexBoth, flags: flagLowerRight, phrases: "recibir|recibe|reciben|aceptar|acepta|aceptan|procesar|admite|" +
		"ricevere|riceve|ricevono|accettare|accetta|accettano|" +
		"modtage|modtager|modtages|acceptere|accepterer|tage imod|tager imod|tage i mod|at modtage|" +
		"vastaanottaa|vastaanottaako|vastaanottavat|ottaa vastaan|ottaako vastaan|vastaanottamaan|hyväksyy|hyväksyykö|" +
		"odbierać|odebrać|odbiera|odbierają|przyjmować|przyjąć|przyjmuje|przyjmują|otrzymywać|otrzymać|otrzymuje|akceptuje|akceptować"},
	{role: lexReceive, side: lexBoth, flags: flagLowerRight, phrases: "enviar|enviarle|mandar|inviare|mandare|spedire|sende|afsende|" +
		"lähettää|lähettämään|lähetän|wysyłać|wysłać|przesyłać|przesłać"},
	{role: lexFiller, side: lexLeft, flags: flagNeedReceive, phrases: "a|al|para|a la|ad|alla|all'|til|yritykselle|do|dla|do firmy"},
	// The verb of invoicing with the company as its object: "invoice X electronically",
	// "X elektronisch factureren", "fakturere X via EHF" ask whether X receives invoices.
	{role: lexReceive, side: lexBoth, flags: flagLowerRight, doc: DocInvoice, phrases: "invoice|e-invoice|bill|facturer|e-facturer|" +
		"factureren|e-factureren|fakturieren|e-fakturieren|abrechnen|fakturere|e-fakturere|fakturera|e-fakturera|facturar|facturarle|" +
		"fatturare|laskuttaa|laskuttamaan|fakturować|zafakturować|wystawić fakturę|wystawiać faktury"},
	{role: lexFiller, side: lexBoth, flags: flagNeedReceive | flagLowerRight, phrases: "electronically|elektronisch|électroniquement|" +
		"elektronisk|elektroniskt|electrónicamente|elettronicamente|sähköisesti|elektronicznie"},

	// Documents (only stripped next to a capability verb).
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocCreditNote, phrases: "nota de crédito|notas de crédito|factura rectificativa|" +
		"facturas rectificativas|abono{,s}|nota di credito|note di credito|nota credito|note credito|nota d'accredito|note d'accredito|" +
		"kreditnotaer|kreditnotaen|kreditfaktura|kreditfakturaer|" +
		"hyvityslasku|hyvityslaskuja|hyvityslaskut|hyvityslaskun|hyvityslaskuista|" +
		"faktura korygująca|faktury korygujące|faktur korygujących|fakturę korygującą|fakturami korygującymi|korekta|korekty|korekt|" +
		"nota kredytowa|noty kredytowe|not kredytowych|notę kredytową"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocOrder, phrases: "pedido{,s}|orden de compra|órdenes de compra|" +
		"ordine|ordini|ordine d'acquisto|ordini d'acquisto|ordinativo|ordinativi|bestilling{,er}|indkøbsordre{,r}|" +
		"tilaus|tilauksia|tilaukset|tilauksen|ostotilaus|ostotilauksia|tilauksista|" +
		"zamówienie|zamówienia|zamówień|zamówieniami"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive, doc: DocInvoice, phrases: "factura{,s}|factura{,s} electrónica{,s}|e-factura{,s}|" +
		"facturación electrónica|facturación|fattura|fatture|fattura elettronica|fatture elettroniche|e-fattura|e-fatture|" +
		"fatturazione elettronica|fatturazione|fakturaen|e-fakturaer|elektroniske fakturaer|e-fakturering|" +
		"lasku|laskuja|laskut|laskun|verkkolasku|verkkolaskuja|verkkolaskut|verkkolaskun|e-lasku|e-laskuja|sähköinen lasku|" +
		"sähköisiä laskuja|verkkolaskutus|laskuista|" +
		"faktury|faktur|fakturę|faktury elektroniczne|e-faktury|e-faktur|e-fakturę|fakturami|faktur elektronicznych|e-faktura|" +
		"fakturowanie elektroniczne|e-fakturowanie|" +
		// The national formats of invoices: Danish OIOUBL, Finnish Finvoice, Italian
		// FatturaPA, Spanish Facturae.
		"oioubl|oioubl-faktura{,er}|oioubl fakturaer|finvoice|finvoice-lasku{,ja}|finvoice-laskuja|fatturapa|facturae"},
	{role: lexFiller, side: lexBoth, flags: flagNeedReceive, phrases: "documentos|documento|documenti|dokumenter|dokumentit|asiakirjoja|" +
		"asiakirjat|dokumenty|dokumentów|y también|así como|e anche|sekä|oraz"},

	// on_peppol: presence on the network.
	{role: lexPresence, side: lexBoth, phrases: "{en,su,w,na,do} {la ,el ,}peppol|en la red peppol|por peppol|a través de peppol|mediante peppol|" +
		"sulla rete peppol|nella rete peppol|tramite peppol|attraverso peppol|mediante peppol|con peppol|gennem peppol|" +
		"på peppol-netværket|i peppol-netværket|" +
		"peppolissa|peppoliin|peppolin kautta|peppol-verkossa|peppol-verkkoon|peppol-verkon kautta|peppolia|" +
		"w peppolu|przez peppol|przez peppola|w sieci peppol|przez sieć peppol|za pośrednictwem peppol|na peppolu|do peppolu|w sieci peppolu|" +
		"registrada|registrado|registradas|registrados|inscrita|inscrito|dada de alta|dado de alta|conectada|conectado|" +
		"registrata|registrato|registrate|registrati|iscritta|iscritto|iscritte|iscritti|collegata|collegato|" +
		"registreret|registrerede|tilmeldt|tilsluttet|" +
		"rekisteröity|rekisteröitynyt|rekisteröityneet|rekisteröitynyt peppoliin|liittynyt|liittyneet|mukana peppolissa|" +
		"zarejestrowana|zarejestrowany|zarejestrowane|zarejestrowanych|zarejestrowani|zarejestrowanej|podłączona|podłączony|" +
		"{tiene,tienen,ha,hanno,har,ma,mają} peppol|usa peppol|utiliza peppol|utilizza peppol|bruger peppol|anvender peppol|käyttää peppolia|käyttävät peppolia|" +
		"korzysta z peppol|korzystają z peppol|używa peppol|en el directorio|nel directory|i kataloget|hakemistossa|w katalogu"},
	{role: lexPresence, side: lexBoth, flags: flagLowerRight, phrases: "activa|activo|attiva|attivo|aktiv|aktiivinen|aktywna|aktywny"},
	{role: lexPresence, side: lexRight, flags: flagNoTypo | flagRelative, phrases: "que están en peppol|que están registradas|que usan peppol|" +
		"que utilizan peppol|che sono su peppol|che sono registrate|che usano peppol|che utilizzano peppol|som er på peppol|" +
		"som bruger peppol|som er registreret|jotka ovat peppolissa|jotka käyttävät peppolia|jotka ovat rekisteröityneet|" +
		"które są w peppol|które są w peppolu|które korzystają z peppol|które są zarejestrowane|które używają peppol"},
	{role: lexIntent, side: lexRight, flags: flagNamed, intent: IntentSearch, phrases: "en su nombre|en el nombre|nel nome|nel loro nome|" +
		"i navnet|nimessä|nimessään|w nazwie"},
	{role: lexFiller, side: lexBoth, phrases: "{para,per,til,dla} {el ,}peppol"},

	// certificate.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentCertificate, phrases: "certificado|certificados|" +
		"certificado del punto de acceso|certificado peppol|fecha de caducidad|fecha de vencimiento|caducidad del certificado|" +
		"validez del certificado|certificato|certificati|certificato del punto di accesso|certificato peppol|data di scadenza|" +
		"scadenza del certificato|validità del certificato|certifikatet|certifikater|adgangspunktets certifikat|" +
		"adgangspunktcertifikat{,et}|udløbsdato|varmenne|varmenteen|varmennetta|sertifikaatti|sertifikaatin|sertifikaattia|" +
		"liityntäpisteen varmenne|voimassaoloaika|vanhenemispäivä|certyfikat|certyfikatu|certyfikaty|certyfikatem|" +
		"certyfikat punktu dostępowego|data ważności|ważność certyfikatu|termin ważności"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "caduca|vence|expira|caducado|vencido|expirado|sigue siendo válido|" +
		"sigue válido|es válido|válido|vigente|caducará|vencerá|scade|scaduto|scadrà|è ancora valido|ancora valido|valido|in scadenza|" +
		"udløber|udløbet|gyldigt|stadig gyldigt|stadig gyldig|vanhenee|vanhentunut|umpeutuu|päättyy|voimassa|vielä voimassa|" +
		"on voimassa|vanhentuu|wygasa|wygasł|wygaśnie|traci ważność|ważny|jest ważny|nadal ważny|jeszcze ważny|kończy się|upływa"},
	// document_types.
	{role: lexIntent, side: lexBoth, flags: flagPossessive, intent: IntentDocumentTypes, phrases: "tipos de documento{,s}|tipo de documento|" +
		"procesos|procesos de negocio|tipi di documento|tipi di documenti|tipo di documento|processi|dokumenttype{,r,rne}|" +
		"processer{,ne}|dokumenttityyppi|dokumenttityyppejä|dokumenttityypit|asiakirjatyyppi|asiakirjatyyppejä|asiakirjatyypit|" +
		"prosessit|prosesseja|sanomatyyppejä|sanomatyypit|typy dokumentów|rodzaje dokumentów|typ dokumentu|typów dokumentów|" +
		"procesy|procesów"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight, phrases: "admite|soporta|maneja|es compatible con|supporta|è compatibile con|" +
		"understøtter|tukee|tukeeko|käsittelee|obsługuje|wspiera|obsługują"},

	// Company nouns.
	{role: lexNoun, side: lexBoth, flags: flagWeak | flagLowerRight, phrases: "empresa|empresas|compañía|compañías|sociedad|sociedades|" +
		"negocio|negocios|entidad|entidades|organización|organizaciones|participante|participantes|cliente|la empresa|" +
		"azienda|aziende|società|impresa|imprese|ditta|ditte|ente|enti|organizzazione|partecipante|partecipanti|l'azienda|l'impresa|" +
		"virksomhed|virksomheder|virksomheden|firmaer|firmaet|selskab|selskaber|selskabet|deltager|deltagere|kunde|" +
		"yritys|yritykset|yrityksen|yritystä|yrityksiä|yritykselle|yritykseltä|yrityksestä|yrityksellä|yhtiö|yhtiön|yhtiötä|" +
		"yhtiöt|organisaatio|osallistuja|osallistujat|osallistujaa|osallistujia|osallistujan|toimija|toimijat|asiakas|" +
		"firmy|firm|firmą|firmę|firmie|firmach|przedsiębiorstwo|przedsiębiorstwa|przedsiębiorstw|spółka|spółki|spółek|spółkę|" +
		"podmiot|podmioty|podmiotów|podmiotu|uczestnik|uczestnicy|uczestników|organizacja|klient|kontrahent"},
	// "named X".
	{role: lexIntent, side: lexLeft, flags: flagNamed, intent: IntentSearch, phrases: "llamada|llamado|llamadas|llamados|que se llama|" +
		"que se llaman|con el nombre|con nombre|de nombre|denominada|denominado|cuyo nombre es|cuyo nombre contiene|nombre :|" +
		"razón social :|chiamata|chiamato|chiamate|chiamati|che si chiama|che si chiamano|di nome|con il nome|con nome|denominata|" +
		"denominato|il cui nome è|nome :|ragione sociale :|som hedder|der hedder|ved navn|med navnet|med navn|kaldet|hedder|" +
		"navn :|firmanavn :|nimeltä|jonka nimi on|joiden nimi on|nimellä|nimi :|o nazwie|pod nazwą|zwana|zwany|" +
		"która nazywa się|który nazywa się|nazywa się|nazwa :|nazwa firmy :"},
	// "Peppol-verkko", "Peppol-netværket": read as Peppol.
	{role: lexFiller, side: lexBoth, flags: flagAfterPeppol, phrases: lexPeppolSuffixesEleven},
}

// lexPeppolSuffixesEleven are the five languages' words for the network or directory
// after "Peppol" (see lexPeppolSuffixes).
const lexPeppolSuffixesEleven = "red|rete|netværk|netværket|netværkets|verkko|verkossa|verkkoon|verkon|verkosta|hakemisto|hakemistossa|" +
	"sieć|sieci|siecią|directorio|katalogu"

// lexCountryEleven are the country names and adjectives of the five languages, as
// lexCountryTable's rows (merged by code).
var lexCountryEleven = []lexCountryWords{
	{"BE", "bélgica|belgio|belgia|belgii|belgię", "belga{,s}|belgi|belghe|belgijsk" + lexPolishAdj + "|belgialai" + lexFinnishAdj},
	{"NL", "países bajos|los países bajos|holanda|paesi bassi|olanda|nederlandene|holland|holandia|holandii|niderlandy|niderlandach",
		"neerlandés|neerlandesa{,s}|neerlandeses|holandés|holandesa{,s}|holandeses|olandese|olandesi|hollandsk{,e}|nederlandsk{,e}|" +
			"hollantilai" + lexFinnishAdj + "|alankomaalai" + lexFinnishAdj + "|holendersk" + lexPolishAdj + "|holenderscy"},
	{"DE", "alemania|germania|tyskland|niemcy|niemiec|niemczech|niemczech",
		"alemán|alemana{,s}|alemanes|tedesco|tedesca|tedeschi|tedesche|tysk{,e}|saksalai" + lexFinnishAdj + "|niemieck" + lexPolishAdj + "|niemieccy"},
	{"FR", "francia|frankrig|francja|francji|francję",
		"francés|francesa{,s}|franceses|francese|francesi|fransk{,e}|ranskalai" + lexFinnishAdj + "|francusk" + lexPolishAdj + "|francuscy"},
	{"NO", "noruega|norvegia|norge|norwegia|norwegii|norwegię",
		"norueg{o,a,os,as}|norvegese|norvegesi|norsk{,e}|norjalai" + lexFinnishAdj + "|norwesk" + lexPolishAdj + "|norwescy"},
	{"SE", "suecia|svezia|sverige|szwecja|szwecji|szwecję",
		"suec{o,a,os,as}|svedese|svedesi|svensk{,e}|ruotsalai" + lexFinnishAdj + "|szwedzk" + lexPolishAdj + "|szwedzcy"},
	{"DK", "dinamarca|danimarca|danmark|dania|danii|danię",
		"danés|danesa{,s}|daneses|danese|danesi|dansk{,e}|tanskalai" + lexFinnishAdj + "|duńsk" + lexPolishAdj + "|duńscy"},
	{"FI", "finlandia|finland|finlandii|finlandię",
		"finlandés|finlandesa{,s}|finlandeses|finlandese|finlandesi|finsk{,e}|suomalai" + lexFinnishAdj + "|fińsk" + lexPolishAdj + "|fińscy"},
	{"IT", "italia|italien|włochy|włoch|włoszech",
		"italian{o,a,os,as,i,e}|italiensk{,e}|italialai" + lexFinnishAdj + "|włosk" + lexPolishAdj + "|włoscy"},
	{"ES", "españa|spagna|spanien|hiszpania|hiszpanii|hiszpanię",
		"español{,a,es,as}|spagnol{o,a,i,e}|spansk{,e}|espanjalai" + lexFinnishAdj + "|hiszpańsk" + lexPolishAdj + "|hiszpańscy"},
	{"AT", "austria|østrig|austrii",
		"austriac{o,a,os,as}|austriaci|austriache|østrigsk{,e}|itävaltalai" + lexFinnishAdj + "|austriack" + lexPolishAdj + "|austriaccy"},
	{"CH", "suiza|svizzera|schweiz|szwajcaria|szwajcarii",
		"suiz{o,a,os,as}|svizzer{o,a,i,e}|schweizisk{,e}|sveitsiläi" + lexFinnishAdj + "|szwajcarsk" + lexPolishAdj + "|szwajcarscy"},
	{"GB", "reino unido|el reino unido|gran bretaña|inglaterra|regno unito|gran bretagna|inghilterra|storbritannien|england|" +
		"iso-britannia|wielka brytania|wielkiej brytanii|anglia|anglii",
		"británic{o,a,os,as}|inglés|inglesa{,s}|ingleses|britannico|britannica|britannici|britanniche|inglese|inglesi|britisk{,e}|" +
			"engelsk{,e}|brittiläi" + lexFinnishAdj + "|englantilai" + lexFinnishAdj + "|brytyjsk" + lexPolishAdj + "|angielsk" + lexPolishAdj},
	{"IE", "irlanda|irland|irlandia|irlandii",
		"irlandés|irlandesa{,s}|irlandeses|irlandese|irlandesi|irsk{,e}|irlantilai" + lexFinnishAdj + "|irlandzk" + lexPolishAdj},
	{"PL", "polonia|polen|polska|polski|polsce|polskę",
		"polac{o,a,os,as}|polacco|polacca|polacchi|polacche|polsk{,e}|puolalai" + lexFinnishAdj + "|polsk" + lexPolishAdj + "|polscy"},
	{"PT", "portugal|portogallo|portugalia|portugalii",
		"portugués|portuguesa{,s}|portugueses|portoghese|portoghesi|portugisisk{,e}|portugalilai" + lexFinnishAdj + "|portugalsk" + lexPolishAdj},
	{"LU", "luxemburgo|lussemburgo|luxembourg|luxemburg|luksemburg|luksemburga|luksemburgu",
		"luxemburgués|luxemburguesa{,s}|lussemburghese|lussemburghesi|luxembourgsk{,e}|luxemburgilai" + lexFinnishAdj + "|luksembursk" + lexPolishAdj},
	{"EE", "estonia|estland|estonii",
		"estoni{o,a,os,as}|estone|estoni|estisk{,e}|virolai" + lexFinnishAdj + "|estońsk" + lexPolishAdj},
	{"IS", "islandia|islanda|island|islandii", "islandés|islandesa{,s}|islandese|islandesi|islandsk{,e}|islantilai" + lexFinnishAdj + "|islandzk" + lexPolishAdj},
	{"GR", "grecia|grækenland|grecja|grecji", "grieg{o,a,os,as}|greco|greca|greci|greche|græsk{,e}|kreikkalai" + lexFinnishAdj + "|greck" + lexPolishAdj},
	{"HR", "croacia|croazia|kroatien|chorwacja|chorwacji", "croata{,s}|croat{o,a,i,e}|kroatisk{,e}|kroatialai" + lexFinnishAdj + "|chorwack" + lexPolishAdj},
	{"CZ", "república checa|chequia|repubblica ceca|cechia|tjekkiet|czechy|czech|czechach",
		"chec{o,a,os,as}|ceco|ceca|cechi|ceche|tjekkisk{,e}|tšekkiläi" + lexFinnishAdj + "|czesk" + lexPolishAdj + "|czescy"},
	{"HU", "hungría|ungheria|ungarn|węgry|węgier|węgrzech", "húngar{o,a,os,as}|ungherese|ungheresi|ungarsk{,e}|unkarilai" + lexFinnishAdj + "|węgiersk" + lexPolishAdj},
	{"RO", "rumanía|rumania|romania|rumænien|romania|rumunia|rumunii", "ruman{o,a,os,as}|rumen{o,a,i,e}|rumænsk{,e}|romanialai" + lexFinnishAdj + "|rumuńsk" + lexPolishAdj},
	{"BG", "bulgaria|bulgarien|bułgaria|bułgarii", "búlgar{o,a,os,as}|bulgar{o,a,i,e}|bulgarsk{,e}|bulgarialai" + lexFinnishAdj + "|bułgarsk" + lexPolishAdj},
	{"LT", "lituania|litauen|litwa|litwie|litwy", "lituan{o,a,os,as,i,e}|litauisk{,e}|liettualai" + lexFinnishAdj + "|litewsk" + lexPolishAdj},
	{"LV", "letonia|lettonia|letland|latvia|łotwa|łotwie|łotwy", "letón|letona{,s}|lettone|lettoni|lettisk{,e}|latvialai" + lexFinnishAdj + "|łotewsk" + lexPolishAdj},
	{"SK", "eslovaquia|slovacchia|slovakiet|słowacja|słowacji", "eslovac{o,a,os,as}|slovacco|slovacca|slovacchi|slovacche|slovakisk{,e}|" +
		"slovakialai" + lexFinnishAdj + "|słowack" + lexPolishAdj},
	{"SI", "eslovenia|slovenia|slovenien|słowenia|słowenii", "esloven{o,a,os,as}|sloven{o,a,i,e}|slovensk{,e}|slovenialai" + lexFinnishAdj + "|słoweńsk" + lexPolishAdj},
	{"US", "estados unidos|los estados unidos|ee. uu.|eeuu|stati uniti|gli stati uniti|usa|stany zjednoczone|stanach zjednoczonych|stanów zjednoczonych",
		"estadounidense{,s}|american{o,a,os,as,i,e}|statunitense|statunitensi|amerikansk{,e}|amerikkalai" + lexFinnishAdj + "|yhdysvaltalai" + lexFinnishAdj + "|amerykańsk" + lexPolishAdj},
	{"JP", "japón|giappone|japan|japonia|japonii", "japonés|japonesa{,s}|japoneses|giapponese|giapponesi|japansk{,e}|japanilai" + lexFinnishAdj + "|japońsk" + lexPolishAdj},
	{"AU", "australia|australien|australii", "australian{o,a,os,as,i,e}|australsk{,e}|australialai" + lexFinnishAdj + "|australijsk" + lexPolishAdj},
	{"CA", "canadá|canada|kanada|kanadzie|kanady", "canadiense{,s}|canadese|canadesi|canadisk{,e}|kanadalai" + lexFinnishAdj + "|kanadyjsk" + lexPolishAdj},
	{"SG", "singapur|singapore|singaporze", "singapurense{,s}|singaporian{o,a,i,e}|singaporeansk{,e}|singaporelai" + lexFinnishAdj + "|singapursk" + lexPolishAdj},
	{"NZ", "nueva zelanda|nuova zelanda|new zealand|nowa zelandia|nowej zelandii", "neozelandés|neozelandese|newzealandsk{,e}|uusiseelantilai" + lexFinnishAdj + "|nowozelandzk" + lexPolishAdj},
	{"MY", "malasia|malesia|malaysia|malezja|malezji", "malasi{o,a,os,as}|malese|malesi|malaysisk{,e}|malesialai" + lexFinnishAdj + "|malezyjsk" + lexPolishAdj},
}

// lexFinnishAdj are the endings of a Finnish adjective of nationality after its stem
// ("suomalai" + "nen", "set", "sta", "sia", ...).
const lexFinnishAdj = "{nen,set,sta,sia,sen,sten,siin,sissa,sista,silla}"

// lexPolishAdj are the endings of a Polish adjective after its stem ("polsk" + "i",
// "a", "ie", "ich", ...); the masculine personal plural ("polscy") is listed apart.
const lexPolishAdj = "{i,a,ie,ich,iej,im,imi,iego,ą}"

// lexCountryCases are Finnish country names in the cases that say "in", "from", "to"
// or "of" by themselves ("Suomessa", "Ruotsista", "Norjaan", "Saksan"), read as a
// country filter without a preposition; capitalised before a capitalised word they
// stay part of a name ("Suomen Posti").
var lexCountryCases = []lexCountryWords{
	{"FI", "suome{ssa,sta,en,n,a}|suomi", ""},
	{"SE", "ruotsi{,ssa,sta,in,n}", ""},
	{"NO", "norja{,ssa,sta,an,n}", ""},
	{"DK", "tanska{,ssa,sta,an,n}", ""},
	{"DE", "saksa{,ssa,sta,an,n}", ""},
	{"FR", "ranska{,ssa,sta,an,n}", ""},
	{"BE", "belgia{ssa,sta,an}", ""},
	{"NL", "alankomaat|alankomai{ssa,sta,hin,den}|hollanti|hollanni{ssa,sta,n}|hollantiin", ""},
	{"IT", "italia{ssa,sta,an}", ""},
	{"ES", "espanja{,ssa,sta,an,n}", ""},
	{"PL", "puola{,ssa,sta,an,n}", ""},
	{"EE", "viro{,ssa,sta,on,n}", ""},
	{"AT", "itävalta|itävalla{ssa,sta,n}|itävaltaan", ""},
	{"CH", "sveitsi{,ssä,stä,in,n}", ""},
	{"GB", "iso-britannia{,ssa,sta,an,n}|britannia{,ssa,sta,an,n}|englanti|englanni{ssa,sta,n}|englantiin", ""},
	{"IE", "irlanti|irlanni{ssa,sta,n}|irlantiin", ""},
	{"PT", "portugali{,ssa,sta,in,n}", ""},
	{"LU", "luxemburgi{ssa,sta,in,n}", ""},
	{"IS", "islanti|islanni{ssa,sta,n}|islantiin", ""},
	{"GR", "kreikka|kreika{ssa,sta,n}|kreikkaan", ""},
	{"US", "yhdysvallat|yhdysvallo{issa,ista}|yhdysvaltoihin|yhdysvaltojen", ""},
	{"JP", "japani{,ssa,sta,in,n}", ""},
	{"AU", "australia{ssa,sta,an}", ""},
	{"HR", "kroatia{ssa,sta,an}", ""},
	{"CZ", "tšeki{ssä,stä,n}|tšekkiin|tšekki", ""},
	{"HU", "unkari{,ssa,sta,in,n}", ""},
	{"LT", "liettua{,ssa,sta,an,n}", ""},
	{"SK", "slovakia{ssa,sta,an}", ""},
	{"EE", "eesti", ""},
}

// lexCountryPrepositionsEleven introduce a country name in the five languages ("en
// Bélgica", "in Germania", "dalla Francia", "i Danmark", "w Polsce", "z Niemiec").
// Spanish and Italian "de", "di" are left out: "Banco de España" is a name.
const lexCountryPrepositionsEleven = "desde|con sede en|ubicada en|situada en|da|dal|dalla|dall'|nel|nella|nei|negli|con sede in|" +
	"w|we|z|ze|na|z siedzibą w|fra"

// lexCountryLabelsEleven name a country label ("país: ES", "maa: FI").
const lexCountryLabelsEleven = "país|código de país|paese|nazione|codice paese|landekode|maa|maakoodi|kraj|kod kraju"
