package directory

import (
	"context"
	"testing"
)

// BenchmarkParseResult decodes a realistic 20-match page (the Directory's default size).
func BenchmarkParseResult(b *testing.B) {
	page := realisticPage(20)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseResult(page)
		if err != nil || len(r.Matches) != 20 {
			b.Fatalf("ParseResult: %v", err)
		}
	}
}

// BenchmarkSearchLoopback measures a whole search against a loopback Directory:
// encoding, HTTP round trip, bounded read and decoding of a 20-match page.
func BenchmarkSearchLoopback(b *testing.B) {
	page := realisticPage(20)
	_, c := newDirectory(b, serveJSON(page))
	ctx := context.Background()
	q := Query{Q: "bench", Country: "BE"}
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := c.Search(ctx, q)
		if err != nil || len(r.Matches) != 20 {
			b.Fatalf("Search: %v", err)
		}
	}
}
