package sml

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// substitution is a parsed NAPTR regexp field (RFC 3402 §3.2):
// <delim> ERE <delim> REPLACEMENT <delim> [flags].
type substitution struct {
	re   *regexp.Regexp
	repl []replPart
}

// replPart is a literal run of the replacement, or (group > 0) a backreference \1..\9.
type replPart struct {
	lit   string
	group int
}

// applyRegexp applies the NAPTR substitution expression rule (wire form, not the
// dns.NAPTR presentation form) to name once and returns the result, which must be an
// absolute http or https URL. It returns an error when the rule is malformed, does not
// match name, or does not yield such a URL.
func applyRegexp(rule, name string) (string, error) {
	sub, err := parseSubstitution(rule)
	if err != nil {
		return "", err
	}
	out, err := sub.apply(name)
	if err != nil {
		return "", err
	}
	if err := checkBaseURL(out); err != nil {
		return "", err
	}
	return out, nil
}

func parseSubstitution(rule string) (*substitution, error) {
	if rule == "" {
		return nil, errors.New("regexp is empty")
	}
	d, size := utf8.DecodeRuneInString(rule)
	// RFC 3402: any character but a digit, a flag or a backslash may delimit.
	if d == utf8.RuneError || d == '\\' || d == 'i' || unicode.IsDigit(d) || unicode.IsSpace(d) || unicode.IsControl(d) {
		return nil, fmt.Errorf("regexp %q does not start with a valid delimiter", rule)
	}
	ere, rest, ok := splitField(rule[size:], d)
	if !ok {
		return nil, fmt.Errorf("regexp %q: no delimiter after the expression", rule)
	}
	repl, flags, ok := splitField(rest, d)
	if !ok {
		return nil, fmt.Errorf("regexp %q: no delimiter after the replacement", rule)
	}
	icase := false
	for _, f := range flags {
		if f != 'i' {
			return nil, fmt.Errorf("regexp %q: unknown flag %q (only \"i\" is defined)", rule, f)
		}
		icase = true
	}
	pattern := unescapeERE(ere, d)
	if icase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regexp %q: %w", rule, err)
	}
	// POSIX ERE picks the leftmost-longest match; RE2's default is leftmost-first.
	re.Longest()
	parts, err := parseReplacement(repl, re.NumSubexp())
	if err != nil {
		return nil, fmt.Errorf("regexp %q: %w", rule, err)
	}
	return &substitution{re: re, repl: parts}, nil
}

// splitField returns s up to the first d not escaped by a backslash (escapes kept as
// they are) and what follows that d; ok is false when there is no such d.
func splitField(s string, d rune) (field, rest string, ok bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\':
			if i+size >= len(s) {
				return "", "", false
			}
			_, next := utf8.DecodeRuneInString(s[i+size:])
			i += size + next
			continue
		case r == d:
			return s[:i], s[i+size:], true
		}
		i += size
	}
	return "", "", false
}

// unescapeERE turns an escaped delimiter into a literal one and keeps every other escape
// for the regexp engine.
func unescapeERE(ere string, d rune) string {
	if !strings.ContainsRune(ere, '\\') {
		return ere
	}
	var b strings.Builder
	for i := 0; i < len(ere); {
		r, size := utf8.DecodeRuneInString(ere[i:])
		if r == '\\' && i+size < len(ere) {
			next, nsize := utf8.DecodeRuneInString(ere[i+size:])
			if next == d {
				b.WriteString(regexp.QuoteMeta(string(d)))
			} else {
				b.WriteString(ere[i : i+size+nsize])
			}
			i += size + nsize
			continue
		}
		b.WriteString(ere[i : i+size])
		i += size
	}
	return b.String()
}

// parseReplacement splits repl into literals and backreferences \1..\9; any other
// escaped character (the delimiter, a backslash) stands for itself.
func parseReplacement(repl string, groups int) ([]replPart, error) {
	var parts []replPart
	var lit strings.Builder
	for i := 0; i < len(repl); {
		r, size := utf8.DecodeRuneInString(repl[i:])
		if r != '\\' || i+size >= len(repl) {
			lit.WriteString(repl[i : i+size])
			i += size
			continue
		}
		next, nsize := utf8.DecodeRuneInString(repl[i+size:])
		i += size + nsize
		if next >= '1' && next <= '9' {
			g := int(next - '0')
			if g > groups {
				return nil, fmt.Errorf("backreference \\%d but the expression has %d group(s)", g, groups)
			}
			if lit.Len() > 0 {
				parts = append(parts, replPart{lit: lit.String()})
				lit.Reset()
			}
			parts = append(parts, replPart{group: g})
			continue
		}
		lit.WriteRune(next)
	}
	if lit.Len() > 0 {
		parts = append(parts, replPart{lit: lit.String()})
	}
	return parts, nil
}

// apply substitutes the first match in name, sed-style (RFC 3402): the text around the
// match is kept, and the expression is applied once, never globally.
func (s *substitution) apply(name string) (string, error) {
	loc := s.re.FindStringSubmatchIndex(name)
	if loc == nil {
		return "", fmt.Errorf("expression %q does not match %q", s.re.String(), name)
	}
	var b strings.Builder
	b.WriteString(name[:loc[0]])
	for _, p := range s.repl {
		if p.group == 0 {
			b.WriteString(p.lit)
			continue
		}
		if start, end := loc[2*p.group], loc[2*p.group+1]; start >= 0 {
			b.WriteString(name[start:end])
		}
	}
	b.WriteString(name[loc[1]:])
	return b.String(), nil
}

// checkBaseURL accepts only what can serve as an SMP base URL: an absolute http or https
// URL with a host, without query, fragment or user info, and without white space or
// control characters.
func checkBaseURL(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return fmt.Errorf("result %q contains white space or control characters", s)
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("result %q is not a URL: %w", s, err)
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return fmt.Errorf("result %q is not an http or https URL", s)
	}
	if u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("result %q is not an absolute URL with a host", s)
	}
	// Clients append "/" + participant path to the base URL, which a query or fragment
	// would swallow; credentials in a published record would be sent to anyone.
	if strings.ContainsAny(s, "?#") {
		return fmt.Errorf("result %q has a query or fragment", s)
	}
	if u.User != nil {
		return fmt.Errorf("result %q carries user info", s)
	}
	return nil
}

// wireString undoes the presentation escaping miekg/dns applies to a
// <character-string> when unpacking (\" \\ and \DDD), giving back the bytes on the wire.
func wireString(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b = append(b, s[i])
			continue
		}
		i++
		if i+2 < len(s) && isDigit(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) {
			if v := int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0'); v <= 0xff {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
