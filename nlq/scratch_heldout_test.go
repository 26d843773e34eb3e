package nlq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestScratchHeldout(t *testing.T) {
	f, err := os.Open(os.Getenv("HELDOUT"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	total, right, nonEn, inLang := 0, 0, 0, 0
	for sc.Scan() {
		var c struct{ Lang, Query, Intent, ID, Name, Country, Document string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		total++
		p := RulePlanner{}.Plan(c.Query)
		if c.Lang != "en" {
			nonEn++
			if p.Language == c.Lang {
				inLang++
			}
		}
		var why []string
		if string(p.Intent) != c.Intent {
			why = append(why, "intent "+string(p.Intent))
		}
		if p.Country != c.Country {
			why = append(why, "country "+p.Country)
		}
		if p.Document != c.Document && c.Intent == "can_receive" {
			why = append(why, "document "+p.Document)
		}
		if p.Language != c.Lang {
			why = append(why, "language "+p.Language)
		}
		switch {
		case c.Intent == "unknown":
			if len(p.Calls) != 0 {
				why = append(why, "calls")
			}
		case c.ID != "":
			if len(p.Calls) == 0 || p.Calls[0].Arguments["participantId"] != c.ID {
				why = append(why, fmt.Sprint("calls ", p.Calls))
			}
		case c.Name != "":
			q := ""
			if len(p.Calls) > 0 {
				q, _ = p.Calls[0].Arguments["q"].(string)
			}
			// As the Directory matches: every term of q in some term of the name.
			ok := q != ""
			for _, qt := range strings.Fields(ruleFold(q)) {
				found := false
				for _, nt := range strings.Fields(ruleFold(c.Name)) {
					if strings.Contains(nt, qt) {
						found = true
					}
				}
				ok = ok && found
			}
			if !ok {
				why = append(why, fmt.Sprintf("q %q", q))
			}
		default:
			if len(p.Calls) == 0 || p.Calls[0].Arguments["q"] != nil {
				why = append(why, fmt.Sprint("calls ", p.Calls))
			}
		}
		if len(why) == 0 {
			right++
		} else {
			t.Logf("[%s] %q want %s %s%s%s: %s", c.Lang, c.Query, c.Intent, c.ID, c.Name, c.Country, strings.Join(why, "; "))
		}
	}
	t.Logf("held-out: %d/%d right (%.1f %%); non-English in the asker's language: %d/%d", right, total, 100*float64(right)/float64(total), inLang, nonEn)
}
