package mirror

import (
	"context"
	"os"
	"testing"
)

// BenchmarkSearchEvalSlow runs searches of two common words, the slowest kind at 4M
// cards (every match counted, most ranked), on the index MIRROR_EVAL_DB names (built by
// `peppolgate mirror import`, see TestRankEval); skipped without it. The per-op time
// is one search.
func BenchmarkSearchEvalSlow(b *testing.B) {
	db := os.Getenv("MIRROR_EVAL_DB")
	if db == "" {
		b.Skip("MIRROR_EVAL_DB not set")
	}
	ix, err := OpenIndex(db)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, q := range []struct{ name, text, country string }{
		{"TransportsNV", "TRANSPORTS NV", ""},
		{"PlumbingPty", "Plumbing Pty", ""},
		{"PlumbingPtyAU", "Plumbing Pty", "AU"},
		{"TrustLtd", "Trust Ltd", ""},
		{"AntwerpenCons", "Antwerpen Cons", ""},
		{"BrugeSA", "BRGUGE SA", ""},
		{"Transports", "Transports", ""},
		{"CabinetSA", "Cabinet SA", ""},
		{"SolutionsSA", "Solutions SA", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ix.Search(context.Background(), q.text, q.country, 25); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
