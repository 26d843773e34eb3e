package smp

import (
	"errors"
	"fmt"
	"strings"
)

// Identifier schemes and values met in Peppol SMP data.
const (
	// DocTypeScheme is the scheme of exact Peppol document type identifiers.
	DocTypeScheme = "busdox-docid-qns"
	// WildcardDocTypeScheme is the scheme of Peppol PINT wildcard document type
	// identifiers, whose customization id ends in '*' (the value usually continues
	// with "::2.1", e.g. "...##urn:peppol:pint:billing-1@jp-1*::2.1").
	WildcardDocTypeScheme = "peppol-doctype-wildcard"
	// ProcessScheme is the scheme of Peppol process identifiers.
	ProcessScheme = "cenbii-procid-ubl"
	// NoProcess is the process identifier value meaning "no process" (busdox:noprocess).
	NoProcess = "busdox:noprocess"
	// TransportAS4 is the only active Peppol transport profile (AS4 v2).
	TransportAS4 = "peppol-transport-as4-v2_0"
)

// Identifier is a scheme-qualified identifier as SMPs publish it: a participant,
// document type or process id. Value is trimmed but otherwise kept exactly as published;
// document type and process values are case-sensitive.
type Identifier struct {
	Scheme string
	Value  string
}

// String returns "scheme::value", the form used in SMP URLs. When Scheme is empty (OASIS
// SMP 2.0 allows identifiers without a scheme) it returns Value alone.
func (id Identifier) String() string {
	if id.Scheme == "" {
		return id.Value
	}
	return id.Scheme + "::" + id.Value
}

// IsZero reports whether id has neither scheme nor value.
func (id Identifier) IsZero() bool { return id.Scheme == "" && id.Value == "" }

// IsWildcard reports whether id is a PINT wildcard document type, i.e. has the
// peppol-doctype-wildcard scheme. The scheme decides: the '*' sits at the end of the
// customization id, not of the value, so the value's last character says nothing.
func (id Identifier) IsWildcard() bool { return id.Scheme == WildcardDocTypeScheme }

// errBadIdentifier is wrapped by ParseIdentifier's errors.
var errBadIdentifier = errors.New("invalid identifier")

// ParseIdentifier splits "scheme::value" at the first "::" (schemes never contain "::";
// values often do). Surrounding white space is trimmed. It returns an error when there
// is no "::", the scheme is empty or has characters other than letters, digits, '-',
// '_', '.' and ':' (OASIS schemes can be URNs), or the value is empty or contains
// control characters.
func ParseIdentifier(s string) (Identifier, error) {
	s = strings.TrimSpace(s)
	scheme, value, ok := strings.Cut(s, "::")
	if !ok {
		return Identifier{}, fmt.Errorf("%w %q: expected scheme::value", errBadIdentifier, short(s))
	}
	if !validScheme(scheme) {
		return Identifier{}, fmt.Errorf("%w %q: scheme must be letters, digits, '-', '_', '.' or ':'", errBadIdentifier, short(s))
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return Identifier{}, fmt.Errorf("%w %q: value is empty", errBadIdentifier, short(s))
	}
	for _, r := range value {
		if r < 0x20 || r == 0x7f {
			return Identifier{}, fmt.Errorf("%w %q: value contains a control character", errBadIdentifier, short(s))
		}
	}
	return Identifier{Scheme: scheme, Value: value}, nil
}

func validScheme(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// short keeps upstream text in error messages readable: long values are cut.
func short(s string) string { return shortN(s, 120) }

// shortN cuts s to at most max bytes (plus an ellipsis) without splitting a UTF-8
// sequence.
func shortN(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
