package peppol

// syntaxOverride is the project's correction of a code-list syntax that is known to be
// wrong for the identifiers really issued under a scheme: a check that warns on every
// real participant teaches users to ignore warnings. Pattern replaces the code list's
// RegEx ("" means no syntax check); Why says what is wrong with the code list's and
// where the real rule comes from, and becomes Scheme.PatternNote.
type syntaxOverride struct {
	ICD, Pattern, Why string
}

// syntaxOverrides returns the overrides, one per scheme. It builds a new slice on every
// call, so nothing can change them.
func syntaxOverrides() []syntaxOverride {
	return []syntaxOverride{
		{ICD: "0106", Pattern: `[0-9]{8}|[0-9]{17}`,
			Why: "the Dutch Chamber of Commerce (KvK) issues 8-digit KvK numbers, and Dutch participants register those (e.g. 0106:54441587); " +
				"the code list's [0-9]{17} is the old 17-digit EDI form, kept as the alternative, and its own usage note says real numbers seem to be 8 characters"},
		{ICD: "9915", Pattern: "",
			Why: "9915 is the scheme of free-form test participants on the Peppol test network (9915:test, 9915:digit_test, 9915:test-peppolgate-invoice); " +
				"the code list's [A-Z][A-Z0-9]* describes Austrian government codes and would warn on nearly all of them, so any valid participant value is accepted"},
	}
}
