package nlq

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScratchStem(t *testing.T) {
	f, err := os.Open("/work/notes/snowball.txt")
	if err != nil {
		t.Skip(err)
	}
	out, _ := os.Create("/work/notes/stemcompare.txt")
	defer out.Close()
	sc := bufio.NewScanner(f)
	type score struct{ n, snow, ours int }
	per := map[string]*score{}
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		lang, plural, singular, snow := p[0], p[1], p[2], p[3]
		ours := reducePlural(tongueOf(lang), plural)
		_ = utf8.RuneCountInString
		finds := func(stem string) bool {
			s := strings.ToLower(stem)
			return stem != "-" && strings.Contains(strings.ToLower(singular), s) && strings.Contains(strings.ToLower(plural), s)
		}
		if per[lang] == nil {
			per[lang] = &score{}
		}
		per[lang].n++
		if finds(snow) {
			per[lang].snow++
		}
		if finds(ours) {
			per[lang].ours++
		}
		fmt.Fprintf(out, "%s %-20s %-18s snowball %-16s %-5v ours %-16s %v\n", lang, plural, singular, snow, finds(snow), ours, finds(ours))
	}
	for _, l := range []string{"en", "fr", "nl", "de", "no", "sv"} {
		s := per[l]
		fmt.Fprintf(out, "%s: %d words; snowball finds the singular for %d, ours for %d\n", l, s.n, s.snow, s.ours)
	}
}
