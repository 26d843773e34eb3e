// Package peppol holds the Peppol identifier rules: participant identifiers, the
// participant identifier scheme code list (ICD/EAS codes), check digits, national-number
// normalisation, and the exact percent-encoding Peppol SMPs expect.
package peppol

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
)

// ParticipantScheme is the only participant identifier scheme used on the Peppol network.
const ParticipantScheme = "iso6523-actorid-upis"

// MaxParticipantIDLength is the longest participant identifier value Peppol allows:
// 4 digits, a colon and at most 130 characters (Policy for use of Identifiers 4.4.0).
const MaxParticipantIDLength = 135

// ParticipantID is a Peppol participant identifier in the iso6523-actorid-upis scheme,
// e.g. 0208:0677424046. Value is stored lower-case, because Peppol participant
// identifiers are case-insensitive (POLICY 2).
type ParticipantID struct {
	// ICD is the 4-digit ISO 6523 code of the issuing agency, e.g. "0208".
	ICD string
	// Value is the local identifier issued under ICD, lower-case, e.g. "0677424046".
	Value string
}

// String returns the identifier in "<icd>:<value>" form, e.g. "0208:0677424046".
func (p ParticipantID) String() string { return p.ICD + ":" + p.Value }

// URI returns the identifier with its scheme, "iso6523-actorid-upis::0208:0677424046",
// as SMP URLs and the Directory's participant= parameter expect.
func (p ParticipantID) URI() string { return ParticipantScheme + "::" + p.String() }

// IsZero reports whether p is the zero ParticipantID.
func (p ParticipantID) IsZero() bool { return p.ICD == "" && p.Value == "" }

// IDError explains why a participant identifier could not be parsed. Its message says
// precisely what is wrong and is safe to show to an end user.
type IDError struct {
	Input  string
	Reason string
}

func (e *IDError) Error() string { return e.Reason }

// ParseParticipantID parses "<scheme>:<value>" (optionally prefixed with
// "iso6523-actorid-upis::", any case) into a ParticipantID with a lower-cased value.
// Surrounding white space is trimmed. The scheme must be exactly 4 digits; the value one
// or more letters, digits, '.', '_', '-' or '+' (the rule of docs/INTERFACE.md §2.1),
// and the whole at most 135 characters.
// It does not check the scheme against the code list (see LookupScheme) nor check digits.
// It returns an *IDError whose message says what is wrong.
func ParseParticipantID(s string) (ParticipantID, error) {
	in := strings.TrimSpace(s)
	if len(in) >= len(ParticipantScheme)+2 && strings.EqualFold(in[:len(ParticipantScheme)+2], ParticipantScheme+"::") {
		in = in[len(ParticipantScheme)+2:]
	}
	if in == "" {
		return ParticipantID{}, &IDError{s, "participant id is empty; expected <scheme>:<value>, e.g. 0208:0677424046"}
	}
	icd, value, ok := strings.Cut(in, ":")
	if !ok {
		return ParticipantID{}, &IDError{s, fmt.Sprintf("participant id %s has no ':'; expected <scheme>:<value>, e.g. 0208:0677424046", quote(in))}
	}
	if len(icd) != 4 || !allDigits(icd) {
		return ParticipantID{}, &IDError{s, fmt.Sprintf("scheme must be 4 digits, got %s; expected <scheme>:<value>, e.g. 0208:0677424046", quote(icd))}
	}
	if value == "" {
		return ParticipantID{}, &IDError{s, fmt.Sprintf("participant id value after '%s:' is empty", icd)}
	}
	if len(in) > MaxParticipantIDLength {
		return ParticipantID{}, &IDError{s, fmt.Sprintf("participant id is %d characters long; at most %d are allowed", len(in), MaxParticipantIDLength)}
	}
	for i, r := range value {
		if !isValueChar(r) {
			return ParticipantID{}, &IDError{s, fmt.Sprintf("participant id value may contain only letters, digits, '.', '_', '-' and '+'; found %s at position %d", quote(string(r)), len(icd)+1+i+1)}
		}
	}
	return ParticipantID{ICD: icd, Value: strings.ToLower(value)}, nil
}

func isValueChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-' || r == '+'
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// quote renders user input for an error message: single-quoted, with control and
// non-printable characters escaped and long input shortened, so that messages stay
// readable and cannot inject lines.
func quote(s string) string {
	q := strconv.Quote(phrase.Shorten(s, 40))
	return "'" + strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`) + "'"
}
