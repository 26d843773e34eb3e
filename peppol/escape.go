package peppol

import "strings"

// PathEscape percent-encodes s the way Peppol SMPs expect an identifier in a URL path
// segment: it keeps the RFC 3986 unreserved characters [A-Za-z0-9._~-] and turns every
// other byte of the UTF-8 encoding into %XX with upper-case hex, so ':' becomes %3A,
// '#' %23, '+' %2B and '/' %2F. Go's url.PathEscape is not suitable: it leaves ':', '+'
// and '@' as they are.
func PathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
