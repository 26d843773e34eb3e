package nlq

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestSearchAnswerQuotesTheQuery: the client's search is shown in a search answer as
// third-party text is: between the language's own quotation marks, cleaned of control
// characters and capped, its letters as typed, never with Go's escapes (\" \u00e9); a
// quotation mark inside it cannot close the quotation.
func TestSearchAnswerQuotesTheQuery(t *testing.T) {
	t.Parallel()
	marks := map[string][2]string{
		LangEnglish: {"“", "”"}, LangFrench: {"« ", " »"}, LangDutch: {"“", "”"}, LangGerman: {"„", "“"},
		LangNorwegian: {"«", "»"}, LangSwedish: {"”", "”"}, LangSpanish: {"«", "»"}, LangItalian: {"«", "»"},
		LangDanish: {"»", "«"}, LangFinnish: {"”", "”"}, LangPolish: {"„", "”"},
	}
	const typed = "Café \"Zoé\" »Bar« \x07Ltd\u200e"
	const shown = `Café "Zoé" "Bar" Ltd`
	long := strings.Repeat("Åsa Bygg ", 60)
	for _, tg := range tongues {
		m, ok := marks[tg.code]
		if !ok {
			t.Errorf("%s: no quotation marks in the test", tg.code)
			continue
		}
		answers := map[string]string{
			"no match":    searchAnswer(tg, Plan{Intent: IntentSearch, Country: "FR"}, &registry.SearchResult{Query: typed}, ""),
			"list":        searchAnswer(tg, Plan{Intent: IntentSearch}, &registry.SearchResult{Query: typed, TotalCount: 1, Results: []registry.SearchHit{{Name: "Café Zoé", ParticipantID: "0009:1"}}}, ""),
			"list first":  searchAnswer(tg, Plan{Intent: IntentSearch}, &registry.SearchResult{Query: typed, TotalCount: 9, Results: []registry.SearchHit{{Name: "Café Zoé", ParticipantID: "0009:1"}}}, ""),
			"count":       searchAnswer(tg, Plan{Intent: IntentCount, Subject: typed}, &registry.SearchResult{Query: typed, TotalCount: 3, Results: []registry.SearchHit{{Name: "Café Zoé", ParticipantID: "0009:1"}}}, ""),
			"approximate": searchAnswer(tg, Plan{Intent: IntentSearch}, &registry.SearchResult{Query: "x", TotalCount: 1, Results: []registry.SearchHit{{Name: "Café Zoé", ParticipantID: "0009:1"}}}, typed),
			"detail":      followUpAnswer(tg, Plan{Intent: IntentLookup}, &registry.SearchResult{Query: typed, TotalCount: 2}, nil, nil, nil, nil, nil, typed),
		}
		for name, a := range answers {
			if !strings.Contains(a, m[0]+shown+m[1]) {
				t.Errorf("%s %s: the query is not shown as %s:\n%s", tg.code, name, m[0]+shown+m[1], a)
			}
			if strings.ContainsAny(a, "\\\x07\u200e") {
				t.Errorf("%s %s: escapes or control characters in the answer:\n%q", tg.code, name, a)
			}
		}
		a := searchAnswer(tg, Plan{Intent: IntentSearch}, &registry.SearchResult{Query: long}, "")
		if strings.Count(a, "Åsa") > 30 || !strings.Contains(a, "…"+m[1]) {
			t.Errorf("%s: a long query is not capped:\n%s", tg.code, a)
		}
	}
}

// TestTonguesQuoteNoGoEscapes: no answer text of any tongue quotes with Go's %q, whose
// escapes (\" \a) are not human text.
func TestTonguesQuoteNoGoEscapes(t *testing.T) {
	t.Parallel()
	goQuote := regexp.MustCompile(`%(\[[0-9]+\])?[-+# 0]*q`)
	var walk func(code, path string, v reflect.Value)
	walk = func(code, path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			if goQuote.MatchString(v.String()) {
				t.Errorf("%s%s quotes with Go's %%q: %s", code, path, v.String())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(code, path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Array, reflect.Slice:
			for i := range v.Len() {
				walk(code, path, v.Index(i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(code, path, v.MapIndex(k))
			}
		}
	}
	for _, tg := range tongues {
		walk(tg.code, "", reflect.ValueOf(*tg))
	}
}
