package nlq

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ruleToken is one word or punctuation character of a question.
type ruleToken struct {
	// start and end are the token's byte offsets in the question.
	start, end int
	// key is the folded form phrases are matched on: lower case, diacritics removed,
	// typographic apostrophes and quotes made ASCII; a typo of a keyword is replaced by
	// the keyword (see ruleFuzzy).
	key string
	// word is false for a single punctuation character.
	word bool
	// capital: the token starts with an upper-case letter or a digit, as names do.
	capital bool
	// lower: the token has no upper-case letter.
	lower bool
	// digit: the token has a digit.
	digit bool
	// number: only ASCII letters, digits and the separators . - / — material for a
	// registration number.
	number bool
}

// ruleTokenize splits q into words and punctuation. A word is a run of letters, digits
// and marks, with '-', '.', apostrophes, '_', '+', '/', '&' and '@' kept inside it
// ("Coca-Cola", "S.A", "H&M", "0677.424.046"); a French elision ("d'accès",
// "qu'Acme", "l'entreprise") is split after its apostrophe.
func ruleTokenize(q string, toks []ruleToken) []ruleToken {
	for i := 0; i < len(q); {
		r, n := utf8.DecodeRuneInString(q[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		if !ruleWordRune(r) {
			toks = append(toks, ruleToken{start: i, end: i + n, key: rulePunctKey(r, q[i:i+n])})
			i += n
			continue
		}
		j := i + n
		for j < len(q) {
			r2, n2 := utf8.DecodeRuneInString(q[j:])
			if ruleWordRune(r2) {
				j += n2
				continue
			}
			if !ruleJoiner(r2) {
				break
			}
			if (r2 == '\'' || r2 == '’') && ruleElision(q[i:j]) {
				j += n2 // "d'", "qu'" end at their apostrophe
				break
			}
			if j+n2 >= len(q) {
				break
			}
			if r3, _ := utf8.DecodeRuneInString(q[j+n2:]); !ruleWordRune(r3) {
				break
			}
			j += n2
		}
		toks = append(toks, ruleNewWord(q, i, j))
		i = j
	}
	return toks
}

func ruleWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func ruleJoiner(r rune) bool {
	switch r {
	case '-', '.', '\'', '’', '_', '+', '/', '&', '@', '\u2010', '\u2011':
		return true
	}
	return false
}

// ruleElision reports whether w is a French elided word that an apostrophe ends.
func ruleElision(w string) bool {
	switch strings.ToLower(w) {
	case "l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu":
		return true
	}
	return false
}

// rulePunctKey is the key of a punctuation character: quotes and apostrophes of every
// kind become their ASCII forms.
func rulePunctKey(r rune, s string) string {
	switch r {
	case '“', '”', '„', '«', '»', '‟':
		return `"`
	case '‘', '’', '‚', '‛':
		return "'"
	}
	return s
}

func ruleNewWord(q string, i, j int) ruleToken {
	w := q[i:j]
	t := ruleToken{start: i, end: j, word: true, lower: true, number: true}
	first := true
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			t.lower = false
			if first {
				t.capital = true
			}
		case r >= '0' && r <= '9':
			t.digit = true
			if first {
				t.capital = true
			}
		}
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '/') {
			t.number = false
		}
		first = false
	}
	t.key = ruleFold(w)
	return t
}

// ruleFold lower-cases s and removes diacritics, so that "België", "BELGIE" and
// "belgie" are one key. ASCII lower-case input is returned as is, without allocating.
func ruleFold(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		r = unicode.ToLower(r)
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
			continue
		}
		if f := ruleFoldRune(r); f != "" {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ruleFoldRune is the ASCII spelling of a lower-case letter with a diacritic, "" for
// any other rune.
func ruleFoldRune(r rune) string {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā', 'ă', 'ą':
		return "a"
	case 'æ':
		return "ae"
	case 'ç', 'ć', 'č':
		return "c"
	case 'ď', 'đ', 'ð':
		return "d"
	case 'è', 'é', 'ê', 'ë', 'ē', 'ė', 'ę', 'ě':
		return "e"
	case 'ì', 'í', 'î', 'ï', 'ī', 'į', 'ı':
		return "i"
	case 'ł', 'ľ', 'ĺ':
		return "l"
	case 'ñ', 'ń', 'ň', 'ņ':
		return "n"
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō', 'ő':
		return "o"
	case 'œ':
		return "oe"
	case 'ř', 'ŕ':
		return "r"
	case 'ś', 'š', 'ş', 'ș':
		return "s"
	case 'ß':
		return "ss"
	case 'ť', 'ţ', 'ț':
		return "t"
	case 'þ':
		return "th"
	case 'ù', 'ú', 'û', 'ü', 'ū', 'ů', 'ű', 'ų':
		return "u"
	case 'ý', 'ÿ':
		return "y"
	case 'ź', 'ż', 'ž':
		return "z"
	case '’', '‘', 'ʼ':
		return "'"
	case '\u2010', '\u2011':
		return "-"
	}
	return ""
}

// ruleFuzzy returns the keyword a typed word is a typo of (see ruleOneEdit:
// "recieve", "Belguim", "invoce", "Norwey", "peppl") and whether there is exactly one.
// Only content words of the phrase tables are candidates (no articles or copulas), a
// typo keeps the keyword's first letter, and names are never corrected to anything
// but a keyword.
func ruleFuzzy(key string) (string, bool) {
	if len(key) < 4 || len(key) > ruleMaxFuzzyLen || key[0] < 'a' || key[0] > 'z' {
		return "", false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 'a' || key[i] > 'z' {
			return "", false
		}
	}
	found := ""
	byLen := &ruleLex.fuzzy[key[0]-'a']
	for n := len(key) - 1; n <= len(key)+1 && n <= ruleMaxFuzzyLen; n++ {
		for _, cand := range byLen[n] {
			if !ruleOneEdit(key, cand) {
				continue
			}
			if found != "" && found != cand {
				return "", false // ambiguous: leave the word alone
			}
			found = cand
		}
	}
	return found, found != ""
}

// ruleMaxFuzzyLen bounds the words ruleFuzzy looks at; longer ones are no keywords.
const ruleMaxFuzzyLen = 24

// ruleOneEdit reports whether typed is one typo away from keyword: an adjacent
// transposition; one letter left out or added where the longer word has six letters
// or more ("peppl"); one letter replaced in words of six letters or more ("Norwey").
// Shorter words are too often other words one letter away ("Stadt", "staat").
func ruleOneEdit(typed, keyword string) bool {
	long := max(len(typed), len(keyword)) >= 6
	i := 0
	for i < len(typed) && i < len(keyword) && typed[i] == keyword[i] {
		i++
	}
	switch len(typed) - len(keyword) {
	case 0:
		if i == len(typed) {
			return false // identical: not a typo
		}
		if i+1 < len(typed) && typed[i] == keyword[i+1] && typed[i+1] == keyword[i] && typed[i+2:] == keyword[i+2:] {
			return true
		}
		return long && typed[i+1:] == keyword[i+1:]
	case 1:
		return long && typed[i+1:] == keyword[i:]
	case -1:
		return long && typed[i:] == keyword[i+1:]
	}
	return false
}
