package export

import (
	"strings"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/internal/untrusted"
)

// maxInterned bounds each interning table, so that an export full of distinct values cannot
// grow it without limit; values beyond it are simply not shared.
const maxInterned = 1 << 16

// maxCacheBytes bounds the bytes of the keys of the doc type caches (XML tags, JSON arrays).
const maxCacheBytes = 16 << 20

// interner shares the strings that repeat across the cards of an export: every card lists
// the same few dozen document types, schemes, country codes and dates.
type interner struct {
	m map[string]string
	// recent is a small direct-mapped cache in front of m: most lookups repeat a value seen
	// a moment ago, and comparing is cheaper than hashing.
	recent [256]string
}

func newInterner() interner {
	return interner{m: make(map[string]string, 1024)}
}

// get returns b as a string, shared with earlier equal values; invalid UTF-8 is replaced
// and the value cleaned and capped (untrusted.Field), once per distinct value.
func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &in.recent[(len(b)*13+int(b[0])*7+int(b[len(b)-1]))&255]
	if *slot == string(b) {
		return *slot
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = untrusted.Field(toValidUTF8(string(b)))
		if len(in.m) < maxInterned && len(b) <= 512 {
			in.m[string(b)] = s
		}
	}
	if s == string(b) {
		*slot = s
	}
	return s
}

// getString is get for a string.
func (in *interner) getString(v string) string {
	if v == "" {
		return ""
	}
	if s, ok := in.m[v]; ok {
		return s
	}
	s := untrusted.Field(toValidUTF8(v))
	if len(in.m) < maxInterned && len(v) <= 512 {
		in.m[v] = s
	}
	return s
}

// toValidUTF8 replaces invalid UTF-8 with U+FFFD.
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
