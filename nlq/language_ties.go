package nlq

import "strings"

// Ties between languages (docs/INTERFACE.md §4.3): Danish and Norwegian share most
// question words ("Hvem er …?", "Kan vi sende faktura til …?"). When a question's
// words say as much for two languages, what it names decides: the company's legal form
// (legalFormLanguage: "ApS" is Danish), else the country of the participant id or VAT
// number it asks about ("0184:…" and "DK…" are Danish, "0192:…" and "NO…MVA"
// Norwegian), else a word of its name one of the two writes and the other does not
// ("Byg", "Regnskab" are Danish, "Regnskap" Norwegian, "Fastigheter" Swedish).

// icdLanguages are the participant id schemes (ICD) of one country whose language is
// one of the eleven.
var icdLanguages = map[string]string{
	"0184": LangDanish, "0096": LangDanish, "0198": LangDanish,
	"0192": LangNorwegian, "9908": LangNorwegian,
	"0007": LangSwedish, "9955": LangSwedish,
	"0216": LangFinnish, "0213": LangFinnish, "0037": LangFinnish,
	"0106": LangDutch, "0190": LangDutch, "9944": LangDutch,
	"0002": LangFrench, "0009": LangFrench, "9957": LangFrench,
	"9930": LangGerman, "0204": LangGerman,
	"0211": LangItalian, "0210": LangItalian, "0201": LangItalian, "9906": LangItalian, "9907": LangItalian,
	"9920": LangSpanish,
}

// vatLanguages are VAT number prefixes of countries with one of the eleven languages
// (Belgium and Switzerland have several and decide nothing).
var vatLanguages = map[string]string{
	"dk": LangDanish, "no": LangNorwegian, "se": LangSwedish, "fi": LangFinnish, "nl": LangDutch, "fr": LangFrench,
	"de": LangGerman, "at": LangGerman, "it": LangItalian, "es": LangSpanish, "pl": LangPolish,
}

// tieLanguage returns the language that breaks a tie between two languages' words: the
// legal form's, else the participant id's or VAT number's; "" when none says.
func (s *ruleScan) tieLanguage() string {
	if l := s.legalFormLanguage(); l != "" {
		return l
	}
	for i, t := range s.toks {
		if !t.digit || !t.word {
			continue
		}
		if len(t.key) == 4 && i+2 < len(s.toks) && s.toks[i+1].key == ":" && s.toks[i+2].word {
			// "0184:13978557"; "9945:pl…" by its value's VAT prefix.
			if l := icdLanguages[t.key]; l != "" {
				return l
			}
			if l := vatPrefixLanguage(s.toks[i+2].key); l != "" {
				return l
			}
			continue
		}
		if l := vatPrefixLanguage(t.key); l != "" {
			return l
		}
		if swedishOrgNumber(t.key) {
			return LangSwedish // "556036-0793": Norway and Denmark write no hyphen there
		}
	}
	// The words of names vote, each once: "Vestergaard Regnskap" is as Norwegian as
	// Danish, and then the first says.
	var votes [4]struct {
		lang string
		n    int
	}
	first := ""
	for _, t := range s.toks {
		if !t.word {
			continue
		}
		if l := numberWordLanguages[t.key]; l != "" {
			return l
		}
		l := nameWordLanguages[t.key]
		if l == "" && len(t.key) > 6 && strings.HasSuffix(t.key, "gaard") {
			l = LangDanish // "Nørgaard", "Østergaard": Norwegian writes "-gård"
		}
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		}
		for k := range votes {
			if votes[k].lang == l || votes[k].lang == "" {
				votes[k].lang = l
				votes[k].n++
				break
			}
		}
	}
	best, n, tie := first, 0, false
	for _, v := range votes {
		switch {
		case v.n > n:
			best, n, tie = v.lang, v.n, false
		case v.n == n && v.n > 0:
			tie = true
		}
	}
	if tie {
		return first
	}
	return best
}

// numberWordLanguages are names of national numbers written in one language only
// ("CVR-nummer" is Danish, "organisasjonsnummer" Norwegian, "organisationsnummer"
// Swedish); legalFormLanguages has the short ones (CVR, MVA). "orgnr" and "org.nr" are
// written in Swedish and Norwegian alike.
var numberWordLanguages = map[string]string{
	"cvr-nummer": LangDanish, "cvrnummer": LangDanish, "cvr-nummeret": LangDanish, "se-nummer": LangDanish,
	"organisasjonsnummer": LangNorwegian, "organisasjonsnummeret": LangNorwegian, "foretaksnummer": LangNorwegian,
	"organisationsnummer": LangSwedish, "organisationsnumret": LangSwedish,
}

// nameWordLanguages are words of company names, folded, that one of two languages
// whose question words are much alike writes and the other does not (Danish and
// Norwegian, Norwegian and Swedish, Spanish and Italian or French): trades ("Byg",
// "Regnskap", "Fastigheter", "Costruzioni", "Distribuciones") and cities.
var nameWordLanguages = map[string]string{
	"fastigheter": LangSwedish, "fastighet": LangSwedish, "elektriska": LangSwedish, "akeri": LangSwedish,
	"redovisning": LangSwedish, "verkstad": LangSwedish, "umea": LangSwedish, "orebro": LangSwedish, "vasteras": LangSwedish,
	"uppsala": LangSwedish, "goteborg": LangSwedish, "malmo": LangSwedish, "linkoping": LangSwedish, "stockholm": LangSwedish,
	"oslo": LangNorwegian, "bergen": LangNorwegian, "stavanger": LangNorwegian, "odense": LangDanish, "aalborg": LangDanish,
	"randers": LangDanish, "esbjerg": LangDanish, "kolding": LangDanish, "vejle": LangDanish, "roskilde": LangDanish,
	"kjaer": LangDanish, "oresund": LangDanish, "skov": LangDanish,
	"lovas": LangNorwegian, "saether": LangNorwegian, "braekke": LangNorwegian, "vestland": LangNorwegian, "nordlys": LangNorwegian,
	"hagensen": LangNorwegian, "haugen": LangNorwegian, "fjellheim": LangNorwegian, "bjornstad": LangNorwegian,
	"drammen": LangNorwegian, "kristiansand": LangNorwegian, "alesund": LangNorwegian,
	"costruzioni": LangItalian, "alimentari": LangItalian, "impianti": LangItalian, "consulenza": LangItalian,
	"meccanica": LangItalian, "caffe": LangItalian, "torino": LangItalian, "milano": LangItalian, "napoli": LangItalian,
	"genova": LangItalian, "firenze": LangItalian, "bologna": LangItalian, "roma": LangItalian,
	"distribuciones": LangSpanish, "transportes": LangSpanish, "servicios": LangSpanish, "construcciones": LangSpanish,
	"alimentacion": LangSpanish, "ingenieria": LangSpanish, "madrid": LangSpanish, "barcelona": LangSpanish,
	"sevilla": LangSpanish, "valencia": LangSpanish,
	"byg": LangDanish, "regnskab": LangDanish, "ejendom": LangDanish, "ejendomme": LangDanish, "teknik": LangDanish,
	"koleteknik": LangDanish, "fragt": LangDanish, "bageri": LangDanish, "vaerksted": LangDanish, "revision": LangDanish,
	"logistik": LangDanish, "snedker": LangDanish, "elektrik": LangDanish, "rengoring": LangDanish, "vognmand": LangDanish,
	"tandlaege": LangDanish, "kobenhavn": LangDanish, "arhus": LangDanish, "aarhus": LangDanish,
	"regnskap": LangNorwegian, "eiendom": LangNorwegian, "teknikk": LangNorwegian,
	"rorlegger": LangNorwegian, "snekker": LangNorwegian, "bakeri": LangNorwegian, "verksted": LangNorwegian,
	"revisjon": LangNorwegian, "logistikk": LangNorwegian, "elektro": LangNorwegian, "rengjoring": LangNorwegian,
	"tannlege": LangNorwegian, "trondheim": LangNorwegian, "tromso": LangNorwegian,
}

// vatPrefixLanguage returns the language of a VAT number's country prefix ("dk13978557",
// "no923609016mva"), "" for another word.
func vatPrefixLanguage(key string) string {
	if len(key) < 8 || key[0] < 'a' || key[0] > 'z' || key[1] < 'a' || key[1] > 'z' || key[2] < '0' || key[2] > '9' {
		return ""
	}
	if strings.IndexFunc(key[2:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 && !strings.HasSuffix(key, "mva") {
		return ""
	}
	return vatLanguages[key[:2]]
}

// swedishOrgNumber reports whether key is written as a Swedish organisation number:
// six digits, a hyphen and four digits ("556036-0793").
func swedishOrgNumber(key string) bool {
	if len(key) != 11 || key[6] != '-' {
		return false
	}
	for i := 0; i < len(key); i++ {
		if i != 6 && (key[i] < '0' || key[i] > '9') {
			return false
		}
	}
	return true
}
