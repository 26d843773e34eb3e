package peppol

import (
	"fmt"
	"regexp"
	"slices"
)

// SchemeState is the life-cycle state of a participant identifier scheme in the code list.
type SchemeState int

// The zero SchemeState means the scheme is not in the code list at all.
const (
	SchemeUnknown    SchemeState = iota // not in the code list
	SchemeActive                        // may be used for new registrations
	SchemeDeprecated                    // still usable, but a successor should be used
	SchemeRemoved                       // no longer allowed on the network
)

// String returns "active", "deprecated", "removed" or "unknown", the spelling the code
// list uses.
func (s SchemeState) String() string {
	switch s {
	case SchemeActive:
		return "active"
	case SchemeDeprecated:
		return "deprecated"
	case SchemeRemoved:
		return "removed"
	}
	return "unknown"
}

// Scheme is one entry of the Peppol participant identifier scheme code list: an ISO 6523
// ICD (EAS) code and what the code list says about the identifiers issued under it.
type Scheme struct {
	// ICD is the 4-digit code, e.g. "0208".
	ICD string
	// ID is the code list's scheme id, e.g. "BE:EN" or "GLN".
	ID string
	// Country is the ISO 3166 alpha-2 code of the issuing country; empty for
	// international schemes (GLN, DUNS, LEI, ...).
	Country string
	// Name is the scheme's name as the code list gives it.
	Name string
	// Agency is the issuing agency; empty when the code list does not name one.
	Agency string
	// State says whether the scheme is active, deprecated or removed.
	State SchemeState
	// DeprecationRelease is the code list release that deprecated the scheme, e.g. "8.9";
	// empty for active schemes.
	DeprecationRelease string
	// RemovalDate is the date (YYYY-MM-DD) the scheme was or will be removed from the
	// network; empty when the code list gives none.
	RemovalDate string
	// Registrable reports whether participants may be registered in the SML under it.
	Registrable bool
	// Pattern is the syntax of a value, the code list's RegEx without anchors, applied
	// case-insensitively to the whole value; empty when the code list gives none. Where
	// the code list's RegEx is known to be wrong for real identifiers, it is the
	// project's correction (scheme_overrides.go) and PatternNote says why.
	Pattern string
	// PatternNote explains how Pattern differs from the code list's text, when it does.
	PatternNote string
	// Examples are the example values the code list gives, verbatim.
	Examples []string
	// ReplacedBy is the ICD to use instead of a deprecated or removed scheme, when known.
	ReplacedBy string

	syntax *regexp.Regexp
}

// Label returns "<icd> (<id>)", e.g. "9956 (BE:CBE)", the way messages name a scheme.
func (s Scheme) Label() string { return s.ICD + " (" + s.ID + ")" }

// MatchesSyntax reports whether value has the syntax the code list prescribes for the
// scheme, ignoring case. It returns true when the scheme defines no syntax.
func (s Scheme) MatchesSyntax(value string) bool {
	if s.syntax == nil {
		return true
	}
	return s.syntax.MatchString(value)
}

// schemes is schemeTable with the syntax regexps compiled; it is built once and never
// written afterwards.
var schemes = compileSchemes()

func compileSchemes() []Scheme {
	overrides := map[string]syntaxOverride{}
	for _, o := range syntaxOverrides() {
		overrides[o.ICD] = o
	}
	out := make([]Scheme, len(schemeTable))
	for i, s := range schemeTable {
		if o, ok := overrides[s.ICD]; ok {
			s.Pattern, s.PatternNote = o.Pattern, o.Why
		}
		if s.Pattern != "" {
			// The table is part of the source, so a pattern that does not compile is a
			// programming error that TestSchemePatternsCompile reports.
			s.syntax = regexp.MustCompile(`(?i)^(?:` + s.Pattern + `)$`)
		}
		out[i] = s
	}
	return out
}

// LookupScheme returns the code-list entry for the 4-digit ICD, and false when the code
// list (version CodeListVersion) has no such scheme.
func LookupScheme(icd string) (Scheme, bool) {
	i, ok := slices.BinarySearchFunc(schemes, icd, func(s Scheme, icd string) int {
		switch {
		case s.ICD < icd:
			return -1
		case s.ICD > icd:
			return 1
		}
		return 0
	})
	if !ok {
		return Scheme{}, false
	}
	return cloneScheme(schemes[i]), true
}

// Schemes returns a copy of the whole code list, ordered by ICD.
func Schemes() []Scheme {
	out := make([]Scheme, len(schemes))
	for i, s := range schemes {
		out[i] = cloneScheme(s)
	}
	return out
}

// cloneScheme copies the Examples slice so callers cannot change the shared table.
func cloneScheme(s Scheme) Scheme {
	s.Examples = slices.Clone(s.Examples)
	return s
}

// Validation is what ValidateParticipantID found out about a participant identifier.
type Validation struct {
	// ID is the identifier that was validated.
	ID ParticipantID
	// Known reports whether the ICD is in the code list; Scheme is its entry.
	Known  bool
	Scheme Scheme
	// State is the scheme's state, SchemeUnknown when the ICD is not in the code list.
	State SchemeState
	// SyntaxDefined reports whether the code list gives a syntax for the scheme, and
	// SyntaxValid whether the value matches it (true when no syntax is defined).
	SyntaxDefined bool
	SyntaxValid   bool
	// Check is the check-digit result (see CheckDigit).
	Check CheckResult
	// Problems are reasons the identifier cannot be a valid Peppol participant: unknown
	// or removed scheme, a scheme that cannot be registered, wrong syntax, wrong check
	// digit. Each is a sentence fit for an end user.
	Problems []string
	// Warnings are facts worth telling that do not make the identifier invalid: a
	// deprecated scheme, a failed historical (soft) check digit.
	Warnings []string
}

// OK reports whether no problem was found.
func (v Validation) OK() bool { return len(v.Problems) == 0 }

// Notes returns what ValidateParticipantID found wrong or questionable with id: its
// problems, then its warnings; none for a well-formed id of an active scheme. A lookup
// that finds id unregistered says them, as does the bulk check's not_registered row
// (docs/INTERFACE.md §4.7), so that a mistyped number is told apart from an
// unregistered one.
func Notes(id ParticipantID) []string {
	v := ValidateParticipantID(id)
	return append(v.Problems, v.Warnings...)
}

// ValidateParticipantID checks id against the code list: whether its scheme is known and
// in which state, whether the value matches the scheme's syntax, and its check digit.
// It never returns an error; everything found is in the Validation's Problems and
// Warnings, so that unknown or removed schemes are reported rather than passed as valid.
func ValidateParticipantID(id ParticipantID) Validation {
	v := Validation{ID: id, SyntaxValid: true, Check: CheckDigit(id.ICD, id.Value)}
	s, ok := LookupScheme(id.ICD)
	if !ok {
		v.Problems = append(v.Problems, fmt.Sprintf("scheme %s is not in the Peppol participant identifier scheme code list %s", quote(id.ICD), CodeListVersion))
		return v
	}
	v.Known, v.Scheme, v.State = true, s, s.State
	use := ""
	if s.ReplacedBy != "" {
		use = "; use " + s.ReplacedBy
	}
	switch s.State {
	case SchemeRemoved:
		when := "was removed from the code list in release " + s.DeprecationRelease
		if s.RemovalDate != "" {
			when = "was removed on " + s.RemovalDate
		}
		v.Problems = append(v.Problems, fmt.Sprintf("scheme %s %s%s", s.Label(), when, use))
	case SchemeDeprecated:
		msg := fmt.Sprintf("scheme %s is deprecated since code list release %s", s.Label(), s.DeprecationRelease)
		if s.RemovalDate != "" {
			msg += " and is to be removed on " + s.RemovalDate
		}
		v.Warnings = append(v.Warnings, msg+use)
	}
	if !s.Registrable && s.State != SchemeRemoved {
		v.Problems = append(v.Problems, fmt.Sprintf("scheme %s cannot be registered on the Peppol network", s.Label()))
	}
	if s.syntax != nil {
		v.SyntaxDefined = true
		v.SyntaxValid = s.syntax.MatchString(id.Value)
		if !v.SyntaxValid {
			v.Problems = append(v.Problems, fmt.Sprintf("value %s does not have the syntax of scheme %s: %s", quote(id.Value), s.Label(), s.Pattern))
		}
	}
	switch {
	case !v.SyntaxValid:
		// The syntax problem already says what is wrong; a check digit of a malformed
		// value means nothing.
	case v.Check == CheckInvalid:
		v.Problems = append(v.Problems, fmt.Sprintf("value %s fails the check-digit test of scheme %s", quote(id.Value), s.Label()))
	case v.Check == CheckSoftInvalid:
		v.Warnings = append(v.Warnings, fmt.Sprintf("value %s fails the historical check-digit test of scheme %s; numbers issued today need not pass it", quote(id.Value), s.Label()))
	}
	return v
}
