package nlq

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// blindCase is a question of the blind sets (testdata/blind-*.jsonl), written by
// people who had not seen the planner, with what a right answer needs rather than an
// exact plan: the intent, the participant id looked up or the name (or, for a category,
// its singular) searched for, the country filter, the document and the language.
type blindCase struct {
	Lang, Query, Intent, ID, Number, Name, Country, Document string
}

// blindFiles are the blind sets, each scored once before any rule was changed for it.
// Set a was written after the first /ask v2 rules and scored 106/120 right and 97/100
// in the asker's language on first try; set b, written after fixes for what a showed,
// 95/119 and 99/100; set c, written after fixes for a and b, 108/120 and 100/100.
var blindFiles = []string{"testdata/blind-a.jsonl", "testdata/blind-b.jsonl", "testdata/blind-c.jsonl"}

// judgeBlind returns why the plan does not answer c ("" when it does). A name is
// found when every word of the search's q is inside a word of it, as the Directory's
// substring search matches.
func judgeBlind(c blindCase, p Plan) string {
	var why []string
	if string(p.Intent) != c.Intent {
		why = append(why, "intent "+string(p.Intent))
	}
	if p.Country != c.Country {
		why = append(why, "country "+p.Country)
	}
	if c.Intent == string(IntentCanReceive) && p.Document != c.Document {
		why = append(why, "document "+p.Document)
	}
	if p.Language != c.Lang {
		why = append(why, "language "+p.Language)
	}
	q := ""
	if len(p.Calls) > 0 {
		q, _ = p.Calls[0].Arguments["q"].(string)
	}
	switch {
	case c.Intent == string(IntentUnknown):
		if len(p.Calls) != 0 {
			why = append(why, "calls")
		}
	case c.ID != "":
		if len(p.Calls) == 0 || p.Calls[0].Arguments["participantId"] != c.ID {
			why = append(why, fmt.Sprint("calls ", p.Calls))
		}
	case c.Number != "":
		if !strings.Contains(q, c.Number) && !strings.Contains(c.Number, q) || q == "" {
			why = append(why, fmt.Sprintf("q %q", q))
		}
	case c.Name != "":
		ok := q != ""
		for _, qt := range strings.Fields(ruleFold(q)) {
			found := false
			for _, nt := range strings.Fields(ruleFold(c.Name)) {
				found = found || strings.Contains(nt, qt)
			}
			ok = ok && found
		}
		if !ok {
			why = append(why, fmt.Sprintf("q %q", q))
		}
	default:
		if len(p.Calls) == 0 || q != "" {
			why = append(why, fmt.Sprint("calls ", p.Calls))
		}
	}
	return strings.Join(why, "; ")
}

// TestEvalBlind scores the rule planner on the blind sets and fails below 95 % right
// or below 95 % of non-English questions answered in their language.
func TestEvalBlind(t *testing.T) {
	t.Parallel()
	total, right, nonEn, inLang := 0, 0, 0, 0
	for _, name := range blindFiles {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var c blindCase
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			total++
			p := RulePlanner{}.Plan(c.Query)
			if c.Lang != LangEnglish {
				nonEn++
				if p.Language == c.Lang {
					inLang++
				}
			}
			if why := judgeBlind(c, p); why != "" {
				t.Logf("miss [%s] %q: %s", c.Lang, c.Query, why)
			} else {
				right++
			}
		}
		f.Close()
	}
	t.Logf("blind sets: %d/%d right (%.1f %%); %d/%d non-English questions in their language", right, total, 100*float64(right)/float64(total), inLang, nonEn)
	if total < 200 || 100*right < 95*total || 100*inLang < 95*nonEn {
		t.Errorf("blind sets: %d/%d right, %d/%d in the asker's language; want at least 95 %% of each", right, total, inLang, nonEn)
	}
}
