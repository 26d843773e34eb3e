package nlq

// polishLegalForm are the Polish legal forms written in lower case after a name
// ("Nowak sp. z o.o.", "spółka z o.o.", "sp. j."), by their tokens without full
// stops.
var polishLegalForm = [][]string{
	{"sp", "z", "o.o"}, {"sp", "z", "o", "o"}, {"spolka", "z", "o.o"}, {"spolka", "z", "o", "o"},
	{"sp", "j"}, {"sp", "k"}, {"spolka", "akcyjna"}, {"spolka", "jawna"}, {"spolka", "komandytowa"},
}

// inLegalForm reports whether token i is part of a Polish legal form written in lower
// case, which makes no name a sentence ("Nowak sp. z o.o." is a name of one word and
// its form, not four words mostly in lower case).
func (s *ruleScan) inLegalForm(i int) bool {
	switch s.toks[i].key {
	case "sp", "spolka", "z", "o", "o.o", "j", "k", "akcyjna", "jawna", "komandytowa":
	default:
		return false // not a word of any of them
	}
	for _, form := range polishLegalForm {
		for start := i - 2*len(form); start <= i; start++ {
			if start >= 0 && s.legalFormAt(start, form) > i {
				return true
			}
		}
	}
	return false
}

// legalFormAt returns the end of form when its tokens start at token k (full stops
// between them skipped), or -1.
func (s *ruleScan) legalFormAt(k int, form []string) int {
	for _, w := range form {
		for k < len(s.toks) && s.toks[k].key == "." {
			k++
		}
		if k >= len(s.toks) || s.toks[k].key != w {
			return -1
		}
		k++
	}
	return k
}

// legalFormLanguages are legal forms of one language's companies and the names of its
// national numbers, by token key: a question whose words tie between two languages is
// in the one its company's form or number belongs to ("Kan jeg sende en faktura til
// Jensen ApS?" is Danish, word for word Norwegian too; Norwegian writes "AS", Danish
// "A/S"; "CVR" is Danish, "MVA" Norwegian).
var legalFormLanguages = map[string]string{
	"aps": LangDanish, "a/s": LangDanish, "i/s": LangDanish, "oy": LangFinnish, "oyj": LangFinnish, "asa": LangNorwegian, "ab": LangSwedish,
	"srl": LangItalian, "s.r.l": LangItalian, "spa": LangItalian, "s.p.a": LangItalian, "sl": LangSpanish, "s.l": LangSpanish,
	"slu": LangSpanish, "gmbh": LangGerman, "bv": LangDutch, "b.v": LangDutch, "sarl": LangFrench, "sas": LangFrench, "sp": LangPolish,
	"cvr": LangDanish, "cvr-nr": LangDanish, "mva": LangNorwegian, "y-tunnus": LangFinnish, "ytunnus": LangFinnish,
	"nip": LangPolish, "nif": LangSpanish, "cif": LangSpanish, "p.iva": LangItalian, "piva": LangItalian, "kvk": LangDutch,
	"siren": LangFrench, "siret": LangFrench,
}

// legalFormLanguage returns the language of the first legal form among the question's
// words, "" when none.
func (s *ruleScan) legalFormLanguage() string {
	for _, t := range s.toks {
		if l, ok := legalFormLanguages[t.key]; ok && t.word {
			return l
		}
	}
	return ""
}
