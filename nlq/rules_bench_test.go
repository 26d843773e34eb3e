package nlq

import "testing"

// BenchmarkRulePlanner plans every question of the evaluation set; ns/op is per
// question.
func BenchmarkRulePlanner(b *testing.B) {
	cases := loadEval(b)
	qs := make([]string, len(cases))
	for i, c := range cases {
		qs[i] = c.Query
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		RulePlanner{}.Plan(qs[i%len(qs)])
	}
}

// BenchmarkRulePlannerKinds plans one question of each kind of subject.
func BenchmarkRulePlannerKinds(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"id", "Can iso6523-actorid-upis::0208:0677424046 receive credit notes?"},
		{"number", "Hvem er NO 923 609 016 MVA?"},
		{"name", "Hoeveel Nederlandse bedrijven met de naam Jansen zijn er in Nederland?"},
		{"typos", "Can Acme recieve invoces in Belguim?"},
		{"unknown", "What is the weather like in Oslo today?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				RulePlanner{}.Plan(bc.q)
			}
		})
	}
}
