package mirror

import (
	"context"
	"github.com/peppolgate/peppolgate/registry"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/mirror/export"
)

// semanticsCards is the index the search rules are tested on.
func semanticsCards() []*export.Card {
	multi := card("0088:5798000000001", "Nordisk Handel A/S", "DK")
	multi.Entities = append(multi.Entities, export.Entity{Names: []export.Name{{Name: "Nordisk Handel AB", Language: "sv"}}, CountryCode: "SE"})
	return []*export.Card{
		card("0208:0677424046", "Vandelanotte Installaties NV", "BE", "VAT=BE 0677.424.046"),
		card("9925:BE0677424046", "Vandelanotte Installaties NV", "BE"),
		card("0192:930219967", "ØRJAN HAUGSVÆR", "NO"),
		card("9930:de811152493", "Müller Maschinenbau GmbH", "DE", "VAT=DE811152493"),
		card("9957:fr12784301772", "Société Générale de Transport", "FR"),
		card("0007:5590700299", "Söderorts Bygg & Betong AB", "SE", "0007=5590700299"),
		card("0192:815344782", "Bygg og Hold AS", "NO"),
		card("0192:815344783", "Byggmester Holden Eiendom AS", "NO"),
		card("0192:815344784", "Bygg", "NO"),
		card("0192:815344785", "Straße und Łódź Đoković Œuvre", "PL"),
		card("0192:815344786", "Anderssen Consulting", "NO"),
		card("0192:815344787", "Kristiansand Entreprenørforretning AS", "NO"),
		card("0192:815344788", "Hansen Rør AS", "NO"),
		card("0192:815344789", "NOT OR AND NEAR", "NO"),
		card("0192:815344790", "Hanssen Bilforretning", "NO"),
		card(" 0106 : 54441587 ", "Spaced Id BV", "NL"),
		// Its value fails the Estonian check digit, so no candidate id is derived from it.
		card("0191:76460949", "Tallinna Näidis OÜ", "EE"),
		card("9915:test-peppolgate-invoice", "Test Receiver", "AT"),
		card("weird id without scheme", "Weird Card", "XX"),
		multi,
	}
}

func TestSearchSemantics(t *testing.T) {
	t.Parallel()
	ix := buildIndex(t, semanticsCards()...)
	tests := []struct {
		name, q, country string
		want             []string // participant ids, in order; nil = none
		total            int      // -1 = len(want)
	}{
		{"case-insensitive", "vandelanotte", "", []string{"0208:0677424046", "9925:be0677424046"}, -1},
		{"diacritics ü", "Muller", "", []string{"9930:de811152493"}, -1},
		{"diacritics é", "societe generale", "", []string{"9957:fr12784301772"}, -1},
		{"Ø folds to o", "orjan", "", []string{"0192:930219967"}, -1},
		{"Æ folds to ae", "haugsvaer", "", []string{"0192:930219967"}, -1},
		{"ß, Ł, Đ, Œ", "strasse lodz dokovic oeuvre", "", []string{"0192:815344785"}, -1},
		{"query with diacritics finds plain", "SÖDERORTS", "", []string{"0007:5590700299"}, -1},
		{"all terms must match", "bygg betong", "", []string{"0007:5590700299"}, -1},
		{"all terms must match, none", "bygg hansen", "", nil, -1},
		{"last term is a prefix", "bygg hold", "", []string{"0192:815344782"}, -1},
		{"term order does not matter", "hold bygg", "", []string{"0192:815344782"}, -1},
		{"prefix of any name term", "byggmester holde", "", []string{"0192:815344783"}, -1},
		{"a typo in the last term", "bygg holde", "", []string{"0192:815344782"}, -1},
		{"earlier terms are not prefixes", "byg hold", "", nil, -1},
		// Ranked (rank.go): the word at a name's start before within it, and a whole word
		// before a longer one it begins, unless the name is otherwise rarer.
		{"exact name first, then by rank", "bygg", "", []string{"0192:815344784", "0192:815344782", "0192:815344783", "0007:5590700299"}, -1},
		{"one-letter last term is exact", "hold a", "", nil, -1},
		{"typo: substitution (5+ letters)", "vandelanitte", "", []string{"0208:0677424046", "9925:be0677424046"}, -1},
		{"typo: transposition", "anedrssen", "", []string{"0192:815344786"}, -1},
		{"typo: deletion", "andersen", "", []string{"0192:815344786"}, -1},
		{"typo: two edits from 9 letters", "kristiansnad entreprenorforetning", "", []string{"0192:815344787"}, -1},
		{"no typo below 5 letters", "bugg", "", nil, -1},
		{"two typos need 9 letters", "andrsen", "", nil, -1},
		{"exact before typo", "hansen", "", []string{"0192:815344788", "0192:815344790"}, -1},
		{"participant id", "0208:0677424046", "", []string{"0208:0677424046"}, -1},
		{"participant id with scheme", "iso6523-actorid-upis::0208:0677424046", "", []string{"0208:0677424046"}, -1},
		{"participant id upper case, and the card with that VAT number", "9925:BE0677424046", "", []string{"9925:be0677424046", "0208:0677424046"}, -1},
		{"VAT number via candidates and identifiers", "BE0677424046", "", []string{"0208:0677424046", "9925:be0677424046"}, -1},
		{"registration number with dots", "0677.424.046", "", []string{"0208:0677424046", "9925:be0677424046"}, -1},
		{"additional identifier", "DE 811 152 493", "", []string{"9930:de811152493"}, -1},
		{"additional identifier, org number", "5590700299", "", []string{"0007:5590700299"}, -1},
		{"id with whitespace in the export", "0106:54441587", "", []string{"0106:54441587"}, -1},
		{"bare participant value, check digit failing", "76460949", "EE", []string{"0191:76460949"}, -1},
		{"bare participant value, no country", "76460949", "", []string{"0191:76460949"}, -1},
		{"bare participant value with separators", "7646 0949", "", []string{"0191:76460949"}, -1},
		{"bare participant value without digits", "test-peppolgate-invoice", "", []string{"9915:test-peppolgate-invoice"}, -1},
		{"unparseable id kept raw", "weirdidwithoutscheme:", "", nil, -1},
		{"country filter", "bygg", "SE", []string{"0007:5590700299"}, -1},
		{"country filter with a two-letter prefix", "by", "SE", []string{"0007:5590700299"}, -1},
		{"country filter with a typo", "vandelanitte", "BE", []string{"0208:0677424046", "9925:be0677424046"}, -1},
		{"country filter, nothing there", "vandelanotte", "NO", nil, -1},
		{"country filter, any entity", "nordisk handel", "SE", []string{"0088:5798000000001"}, -1},
		{"country filter on ids", "BE0677424046", "NO", nil, -1},
		{"second entity's name", "handel ab", "", []string{"0088:5798000000001"}, -1},
		{"FTS syntax is text", "NOT OR AND NEAR", "", []string{"0192:815344789"}, -1},
		{"only syntax characters", `"*:()^-+"`, "", nil, -1},
		{"quotes", `"bygg" "hold"`, "", []string{"0192:815344782"}, -1},
		{"country codes as written, unparseable id without spaces", "weird card", "XX", []string{"weirdidwithoutscheme"}, -1},
		{"country token is not a name term", "se", "", nil, -1},
		{"country alone, export order", "", "NO", []string{"0192:930219967", "0192:815344782", "0192:815344783", "0192:815344784", "0192:815344786",
			"0192:815344787", "0192:815344788", "0192:815344789", "0192:815344790"}, -1},
		{"country alone, white-space text, lower case", " \t", "no", []string{"0192:930219967", "0192:815344782", "0192:815344783", "0192:815344784", "0192:815344786",
			"0192:815344787", "0192:815344788", "0192:815344789", "0192:815344790"}, -1},
		{"country alone, any entity", "", "SE", []string{"0007:5590700299", "0088:5798000000001"}, -1},
		{"country alone, as written", "", "XX", []string{"weirdidwithoutscheme"}, -1},
		{"country alone, nobody there", "", "US", nil, -1},
		{"no text and no country", "", "", nil, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ix.Search(context.Background(), tt.q, tt.country, 25)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, h.ParticipantID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Search(%q, %q) = %v, want %v", tt.q, tt.country, got, tt.want)
			}
			total := tt.total
			if total < 0 {
				total = len(tt.want)
			}
			if res.TotalCount != total {
				t.Errorf("TotalCount = %d, want %d", res.TotalCount, total)
			}
			if res.Results == nil {
				t.Error("Results is nil")
			}
		})
	}
}

func TestSearchLimitAndCount(t *testing.T) {
	t.Parallel()
	var cards []*export.Card
	for i := range 60 {
		cards = append(cards, card("0192:9"+strings.Repeat("0", 7)+string(rune('0'+i/10))+string(rune('0'+i%10)), "Fjellheim Energi "+strings.Repeat("x", i%7), "NO"))
	}
	ix := buildIndex(t, cards...)
	res, err := ix.Search(context.Background(), "fjellheim energi", "", 25)
	if err != nil {
		t.Fatal(err)
	}
	if res.TotalCount != 60 || len(res.Results) != 25 {
		t.Fatalf("total %d, %d results", res.TotalCount, len(res.Results))
	}
	again, _ := ix.Search(context.Background(), "fjellheim energi", "", 25)
	if !slices.Equal(res.Results, again.Results) {
		t.Error("order is not stable")
	}
	res, _ = ix.Search(context.Background(), "fjellheim", "", 0)
	if res.TotalCount != 60 || len(res.Results) != 0 || res.Results == nil {
		t.Errorf("limit 0: %+v", res)
	}
}

// TestSearchPrefixExpansion: a prefix matches every term it starts, however many, with
// typo alternatives on top.
func TestSearchPrefixExpansion(t *testing.T) {
	t.Parallel()
	const maxPrefixTerms = 128
	var cards []*export.Card
	for i := range maxPrefixTerms + 10 {
		cards = append(cards, card("0192:8"+strconv.Itoa(100000+i), "Fjord"+strconv.Itoa(10000+i)+"x Holding", "NO"))
	}
	cards = append(cards, card("0192:9000001", "Fjordane Bygg", "NO"), card("0192:9000002", "Fjord Bygg", "NO"))
	ix := buildIndex(t, cards...)
	for _, tt := range []struct {
		q     string
		total int
	}{
		{"fjord", maxPrefixTerms + 12},   // many terms
		{"fjord10", maxPrefixTerms + 10}, // fjord10000x …
		{"fjord100", 100},                // fjord10000x … fjord10099x
		{"fjord1000", 20},                // fjord10000x … fjord10009x, and fjord1001?x two edits away
		{"fjordane", 1},                  // one term
		{"fjorda", 2},                    // fjordane, and fjord one edit away
		{"fjordz", 1},                    // fjord one edit away
		{"bygg fjord", 2},
	} {
		res, err := ix.Search(context.Background(), tt.q, "", 5)
		if err != nil {
			t.Fatal(err)
		}
		if res.TotalCount != tt.total || len(res.Results) != min(tt.total, 5) {
			t.Errorf("Search(%q): total %d, %d results; want %d", tt.q, res.TotalCount, len(res.Results), tt.total)
		}
	}
}

// TestSearchCountryAlone: a country without text gives the first limit cards having an
// entity in that country in export order (not rank order), and the exact count.
func TestSearchCountryAlone(t *testing.T) {
	t.Parallel()
	var cards []*export.Card
	want := map[string][]string{} // country → participant ids in export order
	countries := []string{"NO", "SE", "BE"}
	for i := range 100 {
		cc := countries[i%3]
		id := "0192:" + strconv.Itoa(800000000+i)
		// Names get shorter along the export, so rank order is the reverse of export order.
		c := card(id, strings.Repeat("x", 120-i)+" AS", cc)
		if i%10 == 0 { // a second entity in DK
			c.Entities = append(c.Entities, export.Entity{Names: []export.Name{{Name: "Filial"}}, CountryCode: "DK"})
			want["DK"] = append(want["DK"], id)
		}
		want[cc] = append(want[cc], id)
		cards = append(cards, c)
	}
	// A participant published twice: its last card counts, once.
	cards = append(cards, card("0192:800000001", "Moved", "DK"))
	want["SE"] = slices.DeleteFunc(want["SE"], func(id string) bool { return id == "0192:800000001" })
	want["DK"] = append(want["DK"], "0192:800000001")
	ix := buildIndex(t, cards...)
	tests := []struct {
		country string
		limit   int
	}{
		{"NO", 25}, {"SE", 25}, {"BE", 10}, {"DK", 25}, {"be", 0}, {"FI", 25},
	}
	for _, tt := range tests {
		t.Run(tt.country+"/"+strconv.Itoa(tt.limit), func(t *testing.T) {
			res, err := ix.Search(context.Background(), "", tt.country, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			all := want[strings.ToUpper(tt.country)]
			var got []string
			for _, h := range res.Results {
				got = append(got, h.ParticipantID)
			}
			if first := all[:min(tt.limit, len(all))]; !slices.Equal(got, first) && len(first)+len(got) > 0 {
				t.Errorf("results %v, want %v", got, first)
			}
			if res.TotalCount != len(all) || res.Results == nil {
				t.Errorf("TotalCount %d, want %d (results nil: %v)", res.TotalCount, len(all), res.Results == nil)
			}
		})
	}
}

// TestSearchPage: the pages of a search, one after the other, are the first results of
// one search with a larger limit, in the same order and each card once, with the same
// total; past the end a page is empty. Over ids, names in several tiers and a country.
func TestSearchPage(t *testing.T) {
	t.Parallel()
	var cards []*export.Card
	for i := range 70 {
		name := "Fjellheim Energi " + strings.Repeat("x", i%7)
		if i%5 == 0 {
			name = "Fjellhiem Energi" // a typo: the fuzzy tier
		}
		cards = append(cards, card("0192:9"+strconv.Itoa(10000000+i), name, []string{"NO", "SE"}[i%2]))
	}
	ix := buildIndex(t, cards...)
	for _, tt := range []struct{ q, country string }{
		{"fjellheim energi", ""}, {"fjellheim", "NO"}, {"", "NO"}, {"0192:910000003", ""},
	} {
		whole, err := ix.Search(context.Background(), tt.q, tt.country, 70)
		if err != nil {
			t.Fatal(err)
		}
		var paged []registry.SearchHit
		for offset := 0; offset < whole.TotalCount+10; offset += 10 {
			res, err := ix.SearchPage(context.Background(), tt.q, tt.country, offset, 10)
			if err != nil {
				t.Fatal(err)
			}
			if res.TotalCount != whole.TotalCount {
				t.Errorf("%q %s offset %d: total %d, want %d", tt.q, tt.country, offset, res.TotalCount, whole.TotalCount)
			}
			if want := min(10, max(0, whole.TotalCount-offset)); len(res.Results) != want {
				t.Errorf("%q %s offset %d: %d results, want %d", tt.q, tt.country, offset, len(res.Results), want)
			}
			paged = append(paged, res.Results...)
		}
		if !slices.Equal(paged, whole.Results) {
			t.Errorf("%q %s: the pages give\n%v\none search gives\n%v", tt.q, tt.country, paged, whole.Results)
		}
	}
}
