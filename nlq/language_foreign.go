package nlq

import "strings"

// foreignMarkers are words typical of questions in languages answers are not phrased
// in, folded: Portuguese (next to Spanish), Czech and Slovak (next to Polish), Estonian
// (next to Finnish), Hungarian, Romanian, Catalan, the Baltic languages, Icelandic and
// Faroese (next to Danish), Turkish; foreignLetters are letters only they use.
// Such a question is answered in English, as docs/INTERFACE.md §4.3 promises, rather
// than in the one of the eleven it shares most words with (Portuguese "faturas" is one
// letter from Spanish "facturas", Czech "faktury" is Polish too). Words that are also
// markers of one of ours count once, the others twice, as in detectLanguageOutside.
// Short words every language of the region has ("de", "la", "si", "a", "na") are left
// out: they would count against our own.
var foreignMarkers = buildForeignMarkers(
	// Portuguese.
	"não|pode|podem|receber|recebe|recebem|fatura|faturas|faturação|encomenda|encomendas|empresa|empresas|quem|qual|quais|" +
		"quantas|quantos|onde|estão|são|registada|registadas|registado|registados|registrada|registrado|pelo|pela|pelos|pelas|" +
		"em|uma|ao|aos|olá|obrigado|obrigada|ponto|acesso|fornecedor|expira|aceita|aceitam|encontre|encontrar|" +
		"mostre|mostrar|procure|procurar|rede|portuguesas|portugueses|portuguesa|português|padarias|você|vocês|diga|dizer|" +
		"gostaria|preciso|também|ainda|isso|essa|esse|crédito|usa|utiliza|válido|até|quando|como|está|portugal|brasil|" +
		"tipos|documento|documentos|" +
		// Czech.
		"může|mohou|přijímat|přijímá|fakturu|firem|společnost|společnosti|kolik|českých|český|česká|české|" +
		"kdo|jaký|jaké|který|která|které|přes|pomocí|registrována|registrovaná|registrovaný|zaregistrována|přístupový|bod|" +
		"poskytovatel|certifikát|platnost|vyprší|najdi|najít|hledej|ukaž|zobraz|dobrý|děkuji|prosím|dodavatel|objednávky|" +
		"dobropisy|dobropis|jsou|nebo|pro|ve|česko|čechách|" +
		// Slovak.
		"môže|môžu|prijímať|prijíma|faktúry|faktúru|spoločnosť|koľko|slovenských|slovenské|firiem|cez|aký|aké|" +
		"zaregistrovaná|poskytovateľ|platnosť|nájdi|hľadaj|ukáž|ďakujem|sú|alebo|pre|slovensku|ktoré|v|peppole|firmy|" +
		// Estonian.
		"kas|ettevõte|ettevõtted|ettevõtet|ettevõtteid|ettevõtte|saab|saavad|arveid|arve|arved|vastu|võtta|mitu|eesti|kes|mis|" +
		"millised|milline|kus|millal|peppolis|peppoli|kaudu|registreeritud|juurdepääsupunkt|pääsupunkt|teenusepakkuja|sertifikaat|" +
		"aegub|kehtib|leia|otsi|näita|tere|aitäh|palun|krediitarve|krediitarveid|tellimusi|tellimused|eestis|" +
		// Hungarian.
		"tud|tudja|tudnak|fogadni|fogad|fogadja|számlát|számla|számlákat|e-számlát|cég|cégek|céget|hány|vannak|magyar|" +
		"magyarországi|peppolon|peppolban|az|melyik|milyen|hol|mikor|regisztrálva|regisztrált|hozzáférési|pont|szolgáltató|" +
		"tanúsítvány|lejár|érvényes|keress|keresd|mutasd|szia|köszönöm|kérem|rendelés|rendeléseket|vagy|nem|kft|zrt|" +
		// Romanian.
		"poate|pot|primească|primi|primește|facturi|facturile|firme|firmei|compania|companii|companiile|câte|câți|sunt|este|" +
		"prin|care|cine|unde|când|înregistrată|înregistrat|punct|furnizor|furnizorul|certificatul|expiră|valabil|caută|" +
		"găsește|arată|bună|mulțumesc|comenzi|comenzile|sau|românești|românia|pe|" +
		// Catalan (next to Spanish, French and Italian).
		"pot|poden|rebre|empreses|quantes|quants|quina|quines|dels|xarxa|catalanes|catalans|catalunya|hi|amb|" +
		// Lithuanian, Latvian, Icelandic and Faroese (next to Polish and Danish), Turkish.
		"įmonė|įmonės|įmonių|gali|gauti|sąskaitas|sąskaitų|kiek|uzņēmums|saņemt|rēķinus|cik|" +
		"getur|fyrirtækið|tekið|móti|reikninga|reikningum|taka|ímóti|rokningar|rokningum|fyritøkan|" +
		"alabilir|faturaları|şirket|şirketi|kaç|nedir|mı|" +
		// Words of lang_foreign.go's questions (issue 29's languages outside the eleven),
		// none folding to a word of ours of another meaning (Croatian "može" is Polish
		// "może" folded, Romanian "să" Polish "są", Czech "certifikát" Danish "certifikat").
		"millist|milline|juurdepääsupunkti|pääsupunkti|kasutab|teenusepakkujat|registreeritud|võtab|peppolu|" +
		"používá|využívá|přístupového|registrována|zaregistrovaná|používa|prístupového|" +
		"használja|hozzáférési|pontot|szolgáltatót|regisztrálva|kérem|" +
		"punctul|folosește|utilizează|primească|înregistrată|rețeaua|firmei|" +
		"yra|naudoja|prieigos|taškas|sąskaitą|saņemt|rēķinus|rēķinu|caur|izmanto|piekļuves|" +
		"li|primati|račune|račun|putem|preko|koristi|pristupna|pristupnu|točku|registrirana|tko|" +
		"ali|lahko|prejema|prejemati|prek|uporablja|dostopna|" +
		"üzerinden|hangi|erişim|noktasını|kullanıyor|kayıtlı|" +
		"pode|receber|faturas|eletrônicas|eletrónicas|registada|cadastrada|ponto|quem|tinkle|tinklo|" +
		"aegub|sertifikaat|sertifikaadi|tanúsítvány|tanúsítványa|jár|benne|hálózatban|cégnek|szolgáltatója|certificatul|expiră|când|" +
		"vyprší|sertifikatas|baigiasi|sertifikāts|istječe|ističe|poteče|kdaj|sertifika|sertifikası|aceita|aceitam|usado|usada|" +
		// Words Portuguese shares with Spanish or Italian: they count for both.
		"enviar|para|que|quando|certificado|notas|crédito|pedidos|tipo|acesso")

// foreignLetters are letters of those languages that none of the eleven writes.
const foreignLetters = "ãõěřůčšžďťňľĺŕőűășțşţýėįųūāēīģķļņðþığ"

func buildForeignMarkers(words string) map[string]bool {
	m := make(map[string]bool, 512)
	for _, w := range strings.Split(words, "|") {
		m[ruleFold(w)] = true
	}
	return m
}

// foreignPairs are two words in a row typical of a language outside the eleven whose
// words alone are also ours: Portuguese "o que", "o certificado" (Spanish "el",
// Italian "il"), Slovak "kto je" (Polish "kto jest"), folded, the second word "" for
// any capitalised word (Portuguese "A Cardiff Engineering aceita …?" starts with the
// article before a name, as Spanish and Italian do not).
var foreignPairs = map[[2]string]bool{
	{"o", "que"}: true, {"o", "certificado"}: true, {"o", "ponto"}: true, {"o", "fornecedor"}: true, {"o", "provedor"}: true,
	{"a", "empresa"}: true, {"da", "empresa"}: true, {"do", "certificado"}: true, {"quem", "e"}: true,
	{"e", "o"}: true, {"na", "rede"}: true, {"no", "peppol"}: true,
	{"kto", "je"}: true, {"co", "je"}: true, {"je", "v"}: true, {"je", "firma"}: true, {"je", "spolocnost"}: true,
	{"a", ""}: true, {"o", ""}: true, {"az", ""}: true,
}

// foreignPairWeight is what foreignPairs found outside tokens [lo, hi) count for a
// language outside the eleven: 6 a pair (more than a word of one of ours alone), 4 an
// article before a name.
func (s *ruleScan) foreignPairWeight(lo, hi int) int {
	w := 0
	prev := -1
	for i, t := range s.toks {
		if !t.word {
			continue
		}
		if prev >= 0 && (prev < lo || prev >= hi) {
			p := s.toks[prev]
			a, b := p.key, t.key
			switch {
			case foreignPairs[[2]string{a, b}]:
				w += 6
			case prev == s.firstWord && p.capital && t.capital && !t.digit && foreignPairs[[2]string{a, ""}]:
				w += 4
			}
		}
		prev = i
	}
	return w
}
