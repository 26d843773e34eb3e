package netsim

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// country holds what the generator needs to invent plausible companies of one
// country: words for names (with the diacritics real names carry), legal forms,
// languages, places, and the identifier schemes companies there register under.
type country struct {
	code      string
	weight    int      // relative share of participants, roughly as on the real network
	langs     []string // languages of names; the first is the main one
	tld       string
	glnPrefix string // GS1 prefix of the country, for 0088 GLNs
	phone     string // international dialling prefix
	cities    []string
	streets   []string
	roots     []string
	sectors   []string
	forms     []string
	ids       func(r *rand.Rand, c *country) companyIDs
}

// companyIDs are the Peppol identifiers of one company (the first one is the main one)
// and the additional identifiers its business card lists.
type companyIDs struct {
	pids  []string
	extra []Identifier
}

// countries is the generator's country table. Order is part of the deterministic
// output: append only.
var countries = []country{
	{code: "BE", weight: 30, langs: []string{"nl", "fr"}, tld: "be", glnPrefix: "541", phone: "+32",
		cities:  []string{"Antwerpen", "Gent", "Brugge", "Liège", "Namur", "Leuven", "Charleroi", "Mechelen", "Hasselt", "Mons", "Bruxelles", "Kortrijk"},
		streets: []string{"Kerkstraat", "Rue de la Station", "Stationsstraat", "Chaussée de Louvain", "Nijverheidslaan", "Rue Haute"},
		roots:   []string{"Vandenberghe", "Peeters", "Janssens", "Dubois", "Lambert", "Lefèvre", "Gérard", "Maes", "Wouters", "Mertens", "Claes", "Goossens", "Dupont", "Fontaine", "Vercauteren", "Hénin"},
		sectors: []string{"Bouw", "Logistiek", "Techniek", "Services", "Électricité", "Transports", "Consultancy", "Énergie", "Medical", "Schrijnwerkerij"},
		forms:   []string{"NV", "BV", "SA", "SRL", "BVBA", "VZW", "CommV"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := beEnterprise(r)
			ids := companyIDs{pids: []string{"0208:" + n}, extra: []Identifier{{"VAT", "BE" + n}}}
			if r.IntN(10) < 6 {
				ids.pids = append(ids.pids, "9925:be"+n)
			}
			return ids
		}},
	{code: "AU", weight: 8, langs: []string{"en"}, tld: "com.au", glnPrefix: "93", phone: "+61",
		cities:  []string{"Sydney", "Melbourne", "Brisbane", "Perth", "Adelaide", "Hobart", "Wagga Wagga", "Geelong"},
		streets: []string{"George Street", "Collins Street", "Queen Street", "Hay Street", "King William Street"},
		roots:   []string{"Whitaker", "Nguyen", "Campbell", "O'Brien", "Kowalczyk", "Papadopoulos", "Thompson", "Macpherson", "Greenway", "Bluegum"},
		sectors: []string{"Holdings", "Trading", "Constructions", "Logistics", "Electrical Services", "Plumbing", "Health"},
		forms:   []string{"Pty Ltd", "Pty. Limited", "Ltd"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := auABN(r)
			return companyIDs{pids: []string{"0151:" + n}, extra: []Identifier{{"ABN", n[:2] + " " + n[2:5] + " " + n[5:8] + " " + n[8:]}}}
		}},
	{code: "NO", weight: 8, langs: []string{"nb"}, tld: "no", glnPrefix: "70", phone: "+47",
		cities:  []string{"Oslo", "Bergen", "Trondheim", "Tromsø", "Ålesund", "Bodø", "Stavanger", "Drammen"},
		streets: []string{"Storgata", "Kongens gate", "Strandveien", "Sjøgata", "Bryggen"},
		roots:   []string{"Bjørnstad", "Hågensen", "Fjellheim", "Nordlys", "Løvås", "Sæther", "Haugen", "Dahl", "Solberg", "Brække", "Fjord", "Vestland"},
		sectors: []string{"Bygg", "Transport", "Eiendom", "Regnskap", "Elektro", "Fisk", "Maskin", "Rørlegger"},
		forms:   []string{"AS", "ASA", "SA"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := noOrgNumber(r)
			ids := companyIDs{pids: []string{"0192:" + n}, extra: []Identifier{{"VAT", "NO" + n + "MVA"}}}
			if r.IntN(4) == 0 {
				// The removed 9908 scheme still lingers in old registrations.
				ids.pids = append(ids.pids, "9908:"+n)
			}
			return ids
		}},
	{code: "FR", weight: 8, langs: []string{"fr"}, tld: "fr", glnPrefix: "30", phone: "+33",
		cities:  []string{"Lyon", "Marseille", "Besançon", "Orléans", "Nîmes", "Grenoble", "Périgueux", "Saint-Étienne", "Nantes"},
		streets: []string{"Rue de la République", "Avenue Jean Jaurès", "Boulevard Voltaire", "Rue du Général Leclerc", "Place de l'Église"},
		roots:   []string{"Lefèvre", "Bérenger", "Moreau", "Girard", "Rousseau", "Faure", "Mercier", "Lemaître", "Côté", "Chévrier"},
		sectors: []string{"Transports", "Bâtiment", "Électricité", "Menuiserie", "Conseil", "Pâtisserie", "Ingénierie", "Fromagerie"},
		forms:   []string{"SAS", "SARL", "SA", "SASU", "EURL"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			siren := luhnNumber(r, 9, "3456789")
			nic := digits(r, 4, "0")
			siret := siren + string(nic) + string(luhnCheck(append([]byte(siren), nic...)))
			s, _ := strconv.Atoi(siren)
			key := twoDigits((12 + 3*(s%97)) % 97)
			return companyIDs{pids: []string{"0009:" + siret, "0002:" + siren},
				extra: []Identifier{{"SIRET", siret}, {"VAT", "FR" + key + siren}}}
		}},
	{code: "SE", weight: 6, langs: []string{"sv"}, tld: "se", glnPrefix: "73", phone: "+46",
		cities:  []string{"Göteborg", "Malmö", "Västerås", "Örebro", "Uppsala", "Linköping", "Umeå", "Jönköping", "Stockholm"},
		streets: []string{"Storgatan", "Drottninggatan", "Kungsgatan", "Järnvägsgatan", "Hamngatan"},
		roots:   []string{"Åkesson", "Öberg", "Lindqvist", "Sjöberg", "Ångström", "Nyström", "Bergström", "Hägg", "Ekström", "Älvdal"},
		sectors: []string{"Bygg", "Konsult", "Frakt", "Teknik", "Fastigheter", "Maskin", "Elektriska"},
		forms:   []string{"AB", "HB", "AB (publ)"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := luhnNumber(r, 10, "5")
			ids := companyIDs{pids: []string{"0007:" + n}, extra: []Identifier{{"VAT", "SE" + n + "01"}}}
			if r.IntN(5) == 0 {
				ids.pids = append(ids.pids, "0088:"+gln(r, c.glnPrefix))
			}
			return ids
		}},
	{code: "NL", weight: 6, langs: []string{"nl"}, tld: "nl", glnPrefix: "87", phone: "+31",
		cities:  []string{"Amsterdam", "Rotterdam", "Utrecht", "Eindhoven", "Groningen", "'s-Hertogenbosch", "Zwolle", "Tilburg"},
		streets: []string{"Hoofdstraat", "Dorpsstraat", "Industrieweg", "Kerkplein", "Havenkade"},
		roots:   []string{"de Vries", "van den Berg", "Bakker", "Visser", "Smit", "Meijer", "de Jong", "van Dijk", "Brouwer", "IJsselstein"},
		sectors: []string{"Bouw", "Installatietechniek", "Logistiek", "Advies", "Groothandel", "Zorg"},
		forms:   []string{"B.V.", "N.V.", "V.O.F."},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := string(digits(r, 8, "0123456789"))
			return companyIDs{pids: []string{"0106:" + n}, extra: []Identifier{{"KVK", n}}}
		}},
	{code: "DK", weight: 5, langs: []string{"da"}, tld: "dk", glnPrefix: "579", phone: "+45",
		cities:  []string{"København", "Århus", "Odense", "Aalborg", "Esbjerg", "Køge", "Randers"},
		streets: []string{"Vestergade", "Østergade", "Nørregade", "Søndergade", "Strandvejen"},
		roots:   []string{"Øresund", "Sørensen", "Mølgaard", "Kjær", "Bækgaard", "Nørgaard", "Holm", "Skov", "Østergaard"},
		sectors: []string{"Byg", "Transport", "Rådgivning", "Handel", "Elektrik", "Køleteknik"},
		forms:   []string{"A/S", "ApS", "I/S"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := dkCVR(r)
			ids := companyIDs{pids: []string{"0184:" + n}, extra: []Identifier{{"VAT", "DK" + n}}}
			if r.IntN(3) == 0 {
				ids.pids = append(ids.pids, "0088:"+gln(r, c.glnPrefix))
			}
			return ids
		}},
	{code: "SG", weight: 4, langs: []string{"en"}, tld: "com.sg", glnPrefix: "888", phone: "+65",
		cities:  []string{"Singapore"},
		streets: []string{"Orchard Road", "Raffles Place", "Jurong East Street", "Tampines Avenue", "Kallang Way"},
		roots:   []string{"Tan", "Lim", "Lee", "Ng", "Wong", "Goh", "Chua", "Raffles", "Kallang", "Merlion"},
		sectors: []string{"Trading", "Engineering", "Logistics", "Technologies", "Marine Services"},
		forms:   []string{"Pte. Ltd.", "Pte Ltd", "LLP"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			uen := strconv.Itoa(2005+r.IntN(20)) + string(digits(r, 5, "")) + string(rune('A'+r.IntN(26)))
			return companyIDs{pids: []string{"0195:sguen" + strings.ToLower(uen)}, extra: []Identifier{{"UEN", uen}}}
		}},
	{code: "IT", weight: 3, langs: []string{"it"}, tld: "it", glnPrefix: "80", phone: "+39",
		cities:  []string{"Milano", "Torino", "Napoli", "Bologna", "Forlì", "Cantù", "Firenze", "Genova"},
		streets: []string{"Via Roma", "Corso Italia", "Via Garibaldi", "Piazza del Duomo", "Via della Libertà"},
		roots:   []string{"Rossi", "Bianchi", "Ferrari", "Esposito", "Colombo", "Ricci", "Galli", "Conti", "De Luca", "Niccolò"},
		sectors: []string{"Costruzioni", "Trasporti", "Impianti", "Consulenza", "Alimentari", "Meccanica", "Caffè"},
		forms:   []string{"S.p.A.", "S.r.l.", "S.n.c.", "S.a.s."},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := luhnNumber(r, 11, "01")
			return companyIDs{pids: []string{"0211:it" + n}, extra: []Identifier{{"VAT", "IT" + n}}}
		}},
	{code: "PL", weight: 3, langs: []string{"pl"}, tld: "pl", glnPrefix: "590", phone: "+48",
		cities:  []string{"Warszawa", "Kraków", "Łódź", "Wrocław", "Poznań", "Gdańsk", "Szczecin", "Białystok", "Częstochowa"},
		streets: []string{"ul. Marszałkowska", "ul. Piotrkowska", "ul. Długa", "al. Jerozolimskie", "ul. Świętokrzyska"},
		roots:   []string{"Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kamiński", "Lewandowski", "Zieliński", "Dąbrowski", "Woźniak"},
		sectors: []string{"Meble", "Budownictwo", "Transport", "Usługi", "Handel", "Elektronika"},
		forms:   []string{"Sp. z o.o.", "S.A.", "Sp.j.", "Sp.k."},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := plNIP(r)
			return companyIDs{pids: []string{"9945:pl" + n}, extra: []Identifier{{"VAT", "PL" + n}}}
		}},
	{code: "GB", weight: 3, langs: []string{"en"}, tld: "co.uk", glnPrefix: "50", phone: "+44",
		cities:  []string{"London", "Manchester", "Leeds", "Bristol", "Glasgow", "Cardiff", "Newcastle upon Tyne", "Edinburgh"},
		streets: []string{"High Street", "Station Road", "Church Lane", "Victoria Road", "Mill Lane"},
		roots:   []string{"Smith", "Jones", "Taylor", "Williams", "Brown", "Davies", "O'Connor", "Whitfield", "Ashworth", "Pemberton"},
		sectors: []string{"Logistics", "Engineering", "Consulting", "Construction", "Supplies", "Healthcare", "Electrical"},
		forms:   []string{"Ltd", "Limited", "PLC", "LLP"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := gbVAT(r)
			ids := companyIDs{pids: []string{"9932:gb" + n}, extra: []Identifier{{"VAT", "GB" + n}}}
			if r.IntN(3) == 0 {
				ids.pids = append(ids.pids, "0088:"+gln(r, c.glnPrefix))
			}
			return ids
		}},
	{code: "DE", weight: 3, langs: []string{"de"}, tld: "de", glnPrefix: "40", phone: "+49",
		cities:  []string{"München", "Köln", "Düsseldorf", "Nürnberg", "Lübeck", "Mönchengladbach", "Osnabrück", "Würzburg", "Göttingen"},
		streets: []string{"Hauptstraße", "Bahnhofstraße", "Schloßallee", "Lindenweg", "Königstraße"},
		roots:   []string{"Müller", "Schäfer", "Groß", "Weiß", "Köhler", "Bäcker", "Schröder", "Krüger", "Hoffmann", "Fuchs"},
		sectors: []string{"Logistik", "Bau", "Elektrotechnik", "Maschinenbau", "Beratung", "Metallverarbeitung", "Sanitär"},
		forms:   []string{"GmbH", "AG", "GmbH & Co. KG", "KG", "e.K.", "UG (haftungsbeschränkt)"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := deVAT(r)
			ids := companyIDs{pids: []string{"9930:de" + n}, extra: []Identifier{{"VAT", "DE" + n}}}
			if r.IntN(5) == 0 {
				ids.pids = append(ids.pids, "0088:"+gln(r, c.glnPrefix))
			}
			return ids
		}},
	{code: "FI", weight: 3, langs: []string{"fi", "sv"}, tld: "fi", glnPrefix: "64", phone: "+358",
		cities:  []string{"Helsinki", "Espoo", "Tampere", "Turku", "Oulu", "Jyväskylä", "Hämeenlinna", "Seinäjoki"},
		streets: []string{"Mannerheimintie", "Hämeenkatu", "Aleksanterinkatu", "Kauppakatu", "Satamakatu"},
		roots:   []string{"Mäkinen", "Virtanen", "Järvinen", "Hämäläinen", "Kärkkäinen", "Lähde", "Pyykkö", "Öhman"},
		sectors: []string{"Rakennus", "Kuljetus", "Sähkö", "Konsultointi", "Kiinteistöt"},
		forms:   []string{"Oy", "Oyj", "Ky"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := fiBusinessID(r)
			return companyIDs{pids: []string{"0216:0037" + n}, extra: []Identifier{{"VAT", "FI" + n}, {"Y-tunnus", n[:7] + "-" + n[7:]}}}
		}},
	{code: "AT", weight: 2, langs: []string{"de"}, tld: "at", glnPrefix: "90", phone: "+43",
		cities:  []string{"Wien", "Graz", "Linz", "Salzburg", "Innsbruck", "Klagenfurt", "Wörgl", "Mödling"},
		streets: []string{"Hauptplatz", "Mariahilfer Straße", "Landstraße", "Herrengasse", "Bahnhofstraße"},
		roots:   []string{"Gruber", "Huber", "Wagner", "Pichler", "Moser", "Höller", "Österreicher", "Steiner", "Hölzl"},
		sectors: []string{"Bau", "Handel", "Technik", "Installationen", "Transporte"},
		forms:   []string{"GmbH", "AG", "KG", "OG", "e.U."},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := atUID(r)
			return companyIDs{pids: []string{"9914:atu" + n}, extra: []Identifier{{"VAT", "ATU" + n}}}
		}},
	{code: "IE", weight: 2, langs: []string{"en", "ga"}, tld: "ie", glnPrefix: "539", phone: "+353",
		cities:  []string{"Dublin", "Cork", "Galway", "Limerick", "Waterford", "Dún Laoghaire", "Sligo"},
		streets: []string{"Main Street", "O'Connell Street", "Bóthar na Trá", "Patrick Street", "Shop Street"},
		roots:   []string{"Ó Briain", "O'Sullivan", "Murphy", "Kelly", "Byrne", "Ó Súilleabháin", "Mac Giolla", "Ní Bhriain"},
		sectors: []string{"Engineering", "Distribution", "Services", "Foods", "Construction"},
		forms:   []string{"Ltd", "Teoranta", "DAC", "CLG"},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := ieVAT(r)
			return companyIDs{pids: []string{"9935:ie" + strings.ToLower(n)}, extra: []Identifier{{"VAT", "IE" + n}}}
		}},
	{code: "ES", weight: 2, langs: []string{"es"}, tld: "es", glnPrefix: "84", phone: "+34",
		cities:  []string{"Madrid", "Barcelona", "Valencia", "Sevilla", "Málaga", "A Coruña", "Córdoba", "Cádiz", "Logroño"},
		streets: []string{"Calle Mayor", "Avenida de la Constitución", "Calle de Alcalá", "Plaza de España", "Paseo de Gràcia"},
		roots:   []string{"Peña", "Muñoz", "Núñez", "García", "Fernández", "Martínez", "Ibáñez", "Castaño", "Ordóñez"},
		sectors: []string{"Construcciones", "Transportes", "Distribuciones", "Ingeniería", "Servicios", "Alimentación"},
		forms:   []string{"S.L.", "S.A.", "S.L.U.", "S.Coop."},
		ids: func(r *rand.Rand, c *country) companyIDs {
			n := esCIF(r)
			return companyIDs{pids: []string{"9920:es" + strings.ToLower(n)}, extra: []Identifier{{"VAT", "ES" + n}}}
		}},
}

// atUID returns the 8 digits after "ATU" of an Austrian VAT number; the last is the
// check digit (Luhn-like over seven digits, plus 4).
func atUID(r *rand.Rand) string {
	b := digits(r, 7, "123456789")
	s := 0
	for i, d := range b {
		x := int(d - '0')
		if i%2 == 1 {
			x *= 2
			x = x/10 + x%10
		}
		s += x
	}
	return string(b) + strconv.Itoa((10-(s+4)%10)%10)
}

// esCIF returns a Spanish CIF for a limited company: 'B', seven digits and a numeric
// control digit.
func esCIF(r *rand.Rand) string {
	b := digits(r, 7, "0123456789")
	s := 0
	for i, d := range b {
		x := int(d - '0')
		if i%2 == 0 {
			x *= 2
			x = x/10 + x%10
		}
		s += x
	}
	return "B" + string(b) + strconv.Itoa((10-s%10)%10)
}

// firstNames are given names for synthetic contacts; contacts exist only to prove that
// clients drop them.
var firstNames = []string{"Anna", "Lars", "Sofie", "Jean", "Émilie", "Jürgen", "Åsa", "Mikko", "Giulia", "Paweł", "Siobhán", "José", "Olivia", "Wei", "Noah", "Ingrid"}

// asciiFold maps letters with diacritics to ASCII for host names and e-mail addresses.
var asciiFold = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "å", "aa", "ø", "oe", "æ", "ae",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "à", "a", "â", "a", "á", "a", "ç", "c",
	"î", "i", "ï", "i", "í", "i", "ô", "o", "ó", "o", "ò", "o", "û", "u", "ù", "u", "ú", "u",
	"ñ", "n", "ł", "l", "ś", "s", "ź", "z", "ż", "z", "ń", "n", "ą", "a", "ę", "e", "ć", "c",
	"Ä", "ae", "Ö", "oe", "Ü", "ue", "Å", "aa", "Ø", "oe", "Æ", "ae", "É", "e", "Ó", "o", "Ł", "l", "Ś", "s", "Ż", "z",
)

// slug turns a company name root into a host-name label.
func slug(s string) string {
	s = asciiFold.Replace(strings.ToLower(s))
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return "company"
	}
	return b.String()
}
