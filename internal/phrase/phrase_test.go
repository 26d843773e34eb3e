package phrase

import (
	"strings"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "match", "0 matches"}, {1, "match", "1 match"}, {25, "Peppol Directory match", "25 Peppol Directory matches"},
		{1, "document type", "1 document type"}, {2, "document type", "2 document types"},
	} {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}

func TestShorten(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"äöüß", 2, "äö…"}, // runes, not bytes
		{"日本語", 3, "日本語"},
	} {
		if got := Shorten(tt.s, tt.n); got != tt.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tt := range []struct {
		s, want string
	}{
		{"", `""`},
		{"GET", `"GET"`},
		{`say "hi"`, `"say \"hi\""`},
		{"a\nb\r\x00", `"a\nb\r\x00"`},
		{"née", `"née"`},
		{strings.Repeat("x", 80), `"` + strings.Repeat("x", 80) + `"`},
		{long, `"` + long[:80] + `…"`},
	} {
		if got := Quote(tt.s); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.s, got, tt.want)
		}
	}
}

func TestGrouped(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		sep  string
		want string
	}{
		{0, ",", "0"}, {999, ",", "999"}, {1000, ",", "1,000"}, {1234567, ",", "1,234,567"},
		{-1234567, ",", "-1,234,567"}, {123456, "\u202f", "123\u202f456"},
	} {
		if got := Grouped(tt.n, tt.sep); got != tt.want {
			t.Errorf("Grouped(%d, %q) = %q, want %q", tt.n, tt.sep, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"cache-tl", "cache-ttl", 1}, {"kitten", "sitting", 3},
		{"détails", "details", 1}, {"über", "uber", 1}, {"abc", "", 3},
	} {
		if got := EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := EditDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
