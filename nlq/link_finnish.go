package nlq

import (
	"strings"

	"github.com/peppolgate/peppolgate/registry"
)

// Finnish declines names ("Voinko lähettää laskun Espoo Rakennukselle?", "Kärkkäisen
// varmenne"): the case ending and the stem's change are on the name's last word. When
// the name as typed finds nothing, linking searches it with that word cut to a stem the
// index matches as a prefix ("Espoo rakennu" for Espoo Rakennus); matchName then reads
// the stem as the start of the name's word, an approximate reading the answer states.

// finnishCases are the case endings of the last word of a Finnish name, longest first.
var finnishCases = []string{"lle", "lta", "ltä", "lla", "llä", "ssa", "ssä", "sta", "stä", "ksi", "na", "nä", "n"}

// finnishStemQuery returns subject with its last word cut to a stem: a case ending off,
// then the stem's change ("kse" of -us words, "se" of -nen words, a final vowel of an
// inflected plural or a doubled consonant); "" when the word has no case ending or
// the stem would be shorter than five letters.
func finnishStemQuery(subject string) string {
	words := strings.Fields(subject)
	if len(words) == 0 {
		return ""
	}
	last := []rune(strings.ToLower(words[len(words)-1]))
	w := string(last)
	cut := ""
	for _, c := range finnishCases {
		if strings.HasSuffix(w, c) && len([]rune(w))-len([]rune(c)) >= 5 {
			cut = strings.TrimSuffix(w, c)
			break
		}
	}
	if cut == "" {
		return ""
	}
	switch {
	case strings.HasSuffix(cut, "kse"):
		cut = strings.TrimSuffix(cut, "kse") // rakennukse(lle) → rakennu(s)
	case strings.HasSuffix(cut, "se"):
		cut = strings.TrimSuffix(cut, "se") // kärkkäise(n) → kärkkäi(nen)
	case strings.HasSuffix(cut, "i") || strings.HasSuffix(cut, "e"):
		cut = cut[:len(cut)-1] // kiinteistöi(lle) → kiinteistö(t)
	}
	if r := []rune(cut); len(r) >= 2 && r[len(r)-1] == r[len(r)-2] && !strings.ContainsRune("aeiouyäö", r[len(r)-1]) {
		cut = string(r[:len(r)-1]) // konsultoinn(ille) → konsultoin(ti)
	}
	if len([]rune(cut)) < 5 {
		return ""
	}
	words[len(words)-1] = cut
	q := strings.Join(words, " ")
	if len([]rune(q)) < registry.MinQueryLength {
		return ""
	}
	return q
}
