package smp

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DocumentTypeFromHref reads the document type out of a ServiceMetadataReference href.
// It percent-decodes %XX sequences (either hex case; '+' stays '+', it is not a space),
// finds "/services" after the participant segment, and parses the rest as
// scheme::value. Because the whole href is decoded first, an encoded "%2fservices%2f"
// works too, and the phoss-smp 8.1.0 bug that drops the '/' after "services"
// (".../servicesbusdox-docid-qns::...") is tolerated. Host, port and scheme of the href
// are ignored. It returns an error when the href has a broken %-escape, is not UTF-8,
// has no "/services" segment or the remainder is not scheme::value.
func DocumentTypeFromHref(href string) (Identifier, error) {
	href = strings.TrimSpace(href)
	if href == "" {
		return Identifier{}, errors.New("href is empty")
	}
	dec, err := percentDecode(href)
	if err != nil {
		return Identifier{}, err
	}
	if !utf8.ValidString(dec) {
		return Identifier{}, errors.New("href does not decode to UTF-8")
	}
	path := dec
	if i := strings.Index(path, "://"); i >= 0 {
		rest := path[i+3:]
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return Identifier{}, errors.New("href has no path")
		}
		path = rest[j:]
	}
	// A base path could itself contain "/services"; the participant segment
	// (scheme::value) always precedes the one we want, so search after its "::".
	from := 0
	if k := strings.Index(path, "::"); k >= 0 {
		from = k
	}
	k := indexFold(path[from:], "/services")
	if k < 0 {
		return Identifier{}, errors.New("href has no /services/ segment")
	}
	rest := path[from+k+len("/services"):]
	rest = strings.TrimPrefix(rest, "/")
	id, err := ParseIdentifier(rest)
	if err != nil {
		return Identifier{}, fmt.Errorf("href document type: %w", err)
	}
	return id, nil
}

// percentDecode turns every %XX into its byte and leaves everything else, including
// '+', as it is (url.PathUnescape would reject some real hrefs, url.QueryUnescape would
// turn '+' into a space and break pdf+xml document types).
func percentDecode(s string) (string, error) {
	n := strings.Count(s, "%")
	if n == 0 {
		return s, nil
	}
	// len(s) bounds the result; len(s)-2n would go negative for a lone '%'.
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			end := min(i+3, len(s))
			return "", fmt.Errorf("href has a broken percent-escape %q at byte %d", s[i:end], i)
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// indexFold is strings.Index with ASCII case folding of s; sub must be lower-case.
// strings.ToLower cannot be used because it may change byte offsets of non-ASCII text.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		match := true
		for j := 0; j < len(sub); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}
