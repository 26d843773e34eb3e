package nlq

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkRulePlanner plans every question of the evaluation set in turn; ns/op is
// the mean per question.
func BenchmarkRulePlanner(b *testing.B) {
	qs := evalQueries(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		RulePlanner{}.Plan(qs[i%len(qs)])
	}
}

// BenchmarkRulePlannerPercentiles times each question of the evaluation set on its
// own and reports the median and 99th percentile per question (p50-ns, p99-ns).
func BenchmarkRulePlannerPercentiles(b *testing.B) {
	qs := evalQueries(b)
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		start := time.Now()
		RulePlanner{}.Plan(q)
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
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

func evalQueries(b *testing.B) []string {
	cases := loadEval(b)
	qs := make([]string, len(cases))
	for i, c := range cases {
		qs[i] = c.Query
	}
	return qs
}
