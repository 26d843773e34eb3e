package nlq

// Word lists of the rule planner for languages answers are not phrased in
// (docs/INTERFACE.md §4.3): Portuguese, Czech, Slovak, Estonian, Hungarian, Romanian,
// Lithuanian, Latvian, Croatian/Serbian/Bosnian, Slovene, Turkish and Greek. Such a
// question is answered in English (foreignMarkers), but what it asks is still read:
// a small vocabulary per language for "can X receive invoices", "is X on Peppol",
// "who is <id>" and "which access point does X use", so that these words are question
// words and never part of a company's name (linkStop reads ruleLex.vocab). They are
// no targets of typo correction (flagNoTypo): a word of one of the eleven one letter
// from one of these stays what it is.

// lexGroupsForeign are the phrases of those languages, by meaning, as lexGroups.
var lexGroupsForeign = []lexGroup{
	// Greetings, politeness, question particles.
	{role: lexFiller, side: lexBoth, flags: flagNoTypo, phrases: "olá|obrigado|obrigada|bom dia|boa tarde|pode me dizer|poderia me dizer|" +
		"gostaria de saber|quero saber|preciso saber|diga-me|me diga|você sabe|" +
		"dobrý den|dobrý deň|děkuji|ďakujem|prosím|chci vědět|chcem vedieť|víte|viete|zda|jestli|" +
		"tere|aitäh|palun|" +
		"szia|jó napot|köszönöm|kérem|szeretném tudni|vajon|" +
		"bună ziua|bună|mulțumesc|vă rog|te rog|aș vrea să știu|vreau să știu|dacă|" +
		"labas|laba diena|ačiū|prašau|labdien|paldies|lūdzu|" +
		"dobar dan|hvala|molim|molim vas|dober dan|prosim|" +
		"merhaba|teşekkürler|lütfen|acaba|" +
		"γεια|γεια σας|ευχαριστώ|παρακαλώ"},
	// Modal verbs ("can", "is able to") around a capability question.
	{role: lexFiller, side: lexBoth, flags: flagNoTypo, phrases: "pode|podem|consegue|conseguem|é possível|" +
		"může|mohou|můžou|lze|môže|môžu|võib|tud|tudja|tudnak|képes|poate|poate să|" +
		"gali|galima|var|vai var|može|mogu|može li|moze|moze li|lahko|μπορεί|μπορούν|να"},
	// Question particles ("Kas", "Ar", "Vai", "Ali" open a yes/no question), stripped as the
	// first word and kept when they start a capitalised name ("Ali Baba Ltd").
	{role: lexFiller, side: lexBoth, flags: flagArticle | flagNoTypo, phrases: "kas|ar|vai|ali|ali lahko|li|da li|mı|mi|mu|mü"},
	// Estonian "saab" (can) only after the name in lower case: Saab is a company.
	{role: lexFiller, side: lexRight, flags: flagLowerRight | flagNoTypo, phrases: "saab|saavad"},
	// Capability verbs: receive, accept, send to.
	{role: lexReceive, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "receber|recebe|recebem|aceitar|aceita|aceitam|" +
		"enviar|mandar|" +
		"přijímat|přijímá|přijmout|přijímají|dostávat|posílat|poslat|zaslat|prijímať|prijíma|prijať|posielať|poslať|" +
		"vastu võtta|vastu võtma|võtta vastu|võtab vastu|vastu|saata|" +
		"fogadni|fogad|fogadja|fogadhat|befogadni|küldeni|kapni|" +
		"primească|să primească|primi facturi|primi facturile|primi factura|primi e-facturi|primește|accepta|acceptă|trimite|" +
		"gauti|priimti|gauna|siųsti|saņemt|pieņemt|saņem|sūtīt|" +
		"primati|primiti|prima račune|prima e-račune|slati|poslati|prejemati|prejema|prejeti|sprejemati|pošiljati|" +
		"alabilir|alır|almak|kabul edebilir|gönderebilir|" +
		"λαμβάνει|λαμβάνουν|δέχεται|παραλαμβάνει"},
	{role: lexFiller, side: lexLeft, flags: flagNeedReceive | flagNoTypo, phrases: "para|à|ao|pro|pre|la|pentru|kam|" +
		"prema|za|στην|στο|στη|σε"},
	// Documents (only stripped next to a capability verb).
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive | flagNoTypo, doc: DocInvoice, phrases: "fatura|faturas|fatura eletrônica|" +
		"faturas eletrônicas|fatura eletrónica|faturas eletrónicas|e-fatura|e-faturas|" +
		"faktury|fakturu|faktura|e-faktury|elektronické faktury|faktúry|faktúru|faktúra|elektronické faktúry|" +
		"arveid|arve|arved|e-arveid|e-arve|e-arved|" +
		"számlát|számla|számlákat|e-számlát|e-számla|e-számlákat|elektronikus számlát|" +
		"facturi|facturile|factură|e-facturi|facturi electronice|" +
		"sąskaitas|sąskaitą|sąskaitas faktūras|e-sąskaitas|rēķinus|rēķinu|e-rēķinus|e-rēķinu|" +
		"račune|račun|e-račune|e-račun|računa|eračune|fakture|e-fakture|" +
		"faturayı|faturaları|e-faturayı|e-faturaları|" +
		"τιμολόγια|τιμολόγιο|ηλεκτρονικά τιμολόγια"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive | flagNoTypo, doc: DocCreditNote, phrases: "notas de crédito|nota de crédito|" +
		"dobropisy|dobropis|krediitarveid|kreeditarveid|jóváíró számlát|jóváírást|note de credit|kreditines sąskaitas|" +
		"kredītrēķinus|odobrenja|knjižna odobrenja|dobropise|alacak dekontu|πιστωτικά τιμολόγια"},
	{role: lexDoc, side: lexBoth, flags: flagNeedReceive | flagNoTypo, doc: DocOrder, phrases: "encomendas|encomenda|" +
		"objednávky|objednávku|tellimusi|tellimused|rendelést|rendeléseket|megrendeléseket|comenzi|comanda|užsakymus|" +
		"pasūtījumus|narudžbe|narudžbenice|naročila|siparişleri|sipariş|παραγγελίες"},
	// on_peppol: presence on the network.
	{role: lexPresence, side: lexBoth, flags: flagNoTypo, phrases: "no peppol|na rede peppol|pelo peppol|através do peppol|" +
		"registrada|registrado|registada|registado|inscrita|inscrito|cadastrada|cadastrado|" +
		"v peppolu|v síti peppol|přes peppol|přes síť peppol|registrována|registrovaná|registrovaný|zaregistrována|zaregistrovaná|" +
		"v peppole|cez peppol|v sieti peppol|registrovaná|zaregistrovaná|" +
		"peppolis|peppoli kaudu|peppoli võrgus|registreeritud|" +
		"peppolon|a peppolon|peppolban|a peppol hálózaton|peppolon keresztül|regisztrálva|regisztrált|" +
		"în peppol|pe peppol|prin peppol|în rețeaua peppol|înregistrată|înregistrat|" +
		"per peppol|peppol tinkle|registruota|užregistruota|peppole|caur peppol|peppol tīklā|reģistrēts|reģistrēta|peppolā|" +
		"putem peppola|preko peppola|u peppolu|registrirana|registriran|registrirano|prek peppola|v peppolu|" +
		"peppol üzerinden|peppolde|peppol'de|kayıtlı|" +
		"μέσω peppol|στο peppol|εγγεγραμμένη|εγγεγραμμένος"},
	// Copulas.
	{role: lexCopula, side: lexBoth, flags: flagNoTypo, phrases: "é|está|são|estão|existe|" +
		"jsou|existuje|sú|on|kas on|este|sunt|există|yra|ir|jest|postoji|είναι|υπάρχει"},
	{role: lexCopula, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "je|li je|ali je"},
	// lookup: "who is".
	{role: lexIntent, side: lexLeft, flags: flagNoTypo, intent: IntentLookup, phrases: "quem é|o que é|quem são|informações sobre|" +
		"kdo je|co je|kdo to je|informace o|kto je|čo je|kes on|mis on|kes see on|ki az|mi az|kicsoda|cine este|ce este|cine e|" +
		"kas yra|kas ir|tko je|ko je|što je|kdo je|kaj je|kimdir|nedir|ποιος είναι|ποια είναι|τι είναι"},
	// access_point.
	{role: lexIntent, side: lexBoth, flags: flagPossessive | flagNoTypo, intent: IntentAccessPoint, phrases: "ponto de acesso|" +
		"pontos de acesso|provedor|provedor peppol|fornecedor peppol|prestador de serviços|" +
		"přístupový bod|přístupového bodu|přístupový bod peppol|poskytovatel|poskytovatele|poskytovatele služeb|" +
		"prístupový bod|prístupového bodu|poskytovateľ|poskytovateľa|" +
		"juurdepääsupunkt|juurdepääsupunkti|pääsupunkt|pääsupunkti|teenusepakkuja|teenusepakkujat|" +
		"hozzáférési pont|hozzáférési pontot|hozzáférési pontja|szolgáltató|szolgáltatót|szolgáltatója|" +
		"punct de acces|punctul de acces|furnizorul|furnizorul de servicii|" +
		"prieigos taškas|prieigos tašką|paslaugų teikėjas|teikėjas|piekļuves punkts|piekļuves punktu|pakalpojumu sniedzējs|" +
		"pristupna točka|pristupnu točku|pristupna tačka|pristupnu tačku|davatelj usluga|pružatelj usluga|pružatelj|" +
		"dostopna točka|dostopno točko|ponudnik|erişim noktası|erişim noktasını|hizmet sağlayıcı|" +
		"σημείο πρόσβασης|πάροχος|πάροχο"},
	// Verbs around an access point question.
	{role: lexFiller, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "utiliza|usa|usam|používá|využívá|používa|kasutab|" +
		"használja|használ|folosește|utilizează|naudoja|izmanto|koristi|uporablja|kullanıyor|kullanır|χρησιμοποιεί"},
	// Interrogatives before a noun ("qual", "který", "melyik").
	{role: lexFiller, side: lexLeft, flags: flagWhich | flagNoTypo, phrases: "qual|quais|jaký|jaké|který|kterou|které|jakou|" +
		"care este|care e|care sunt|aký|aké|ktorý|ktorú|milline|millist|melyik|milyen|kokį|kuris|kokia|kuru|kāds|kādu|koju|koja|koji|katero|kateri|hangi|" +
		"ποιο|ποια|ποιον"},
	// certificate: the access point certificate and when it expires.
	{role: lexIntent, side: lexBoth, flags: flagPossessive | flagNoTypo, intent: IntentCertificate, phrases: "certificado|o certificado|" +
		"validade do certificado|certifikát|platnost certifikátu|sertifikaat|sertifikaadi|tanúsítvány|tanúsítványa|tanúsítványát|" +
		"certificatul|certificatului|sertifikatas|sertifikato|sertifikāts|sertifikāta|certifikat|certifikata|sertifika|sertifikası|" +
		"πιστοποιητικό"},
	{role: lexFiller, side: lexBoth, flags: flagLowerRight | flagNoTypo, phrases: "expira|vence|vyprší|platí|aegub|kehtib|lejár|jár le|" +
		"expiră|baigiasi|galioja|beidzas|istječe|ističe|poteče|sona eriyor|biter|λήγει"},
	{role: lexStarter, side: lexLeft, flags: flagNoTypo, phrases: "quando|kdy|kedy|millal|mikor|când|kada|kad|kdaj|ne zaman|πότε"},
	// More ways of asking who serves a company and whether it is on the network.
	{role: lexFiller, side: lexLeft, flags: flagWhich | flagNoTypo, phrases: "ki a|ki az|ki az a"},
	{role: lexIntent, side: lexBoth, flags: flagPossessive | flagNoTypo, intent: IntentAccessPoint, phrases: "peppol szolgáltatója|" +
		"peppol-szolgáltatója|szolgáltatója|furnizorul peppol|fornecedor|fornecedora|provedora|poskytovatel peppol"},
	{role: lexPresence, side: lexBoth, flags: flagNoTypo, phrases: "benne van|a peppol hálózatban|peppol hálózatban|hálózatban|" +
		"peppol tinkle|yra peppol|ir reģistrēts|ir reģistrēta|registrirana u peppolu|u peppolu"},
	{role: lexNoun, side: lexBoth, flags: flagWeak | flagLowerRight | flagNoTypo, phrases: "cégnek|cégnél|a cégnek|a cégnél|cégtől"},
	{role: lexFiller, side: lexRight, flags: flagLowerRight | flagNoTypo, phrases: "usado|usada|usado pela|usado pelo|usada pela"},
	// Articles and prepositions between the parts of a question; kept when they start
	// a capitalised name.
	{role: lexFiller, side: lexLeft, flags: flagArticle | flagNoTypo, phrases: "da|do|das|dos|o|os|as|na|no|pela|pelo|" +
		"přes|cez|od|a|az|al|prin|de la|per|caur|putem|preko|prek|ve|v|η|ο|το|της|του|την|τη|μέσω|από|για"},
	// Company nouns.
	{role: lexNoun, side: lexBoth, flags: flagWeak | flagLowerRight | flagNoTypo, phrases: "empresa|a empresa|companhia|sociedade|" +
		"firma|společnost|společnosti|spoločnosť|ettevõte|ettevõtte|cég|a cég|vállalat|társaság|compania|societatea|firmei|" +
		"įmonė|bendrovė|uzņēmums|uzņēmumam|tvrtka|tvrtku|poduzeće|podjetje|družba|şirket|şirketi|firması|εταιρεία"},
}
