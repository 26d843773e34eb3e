package peppol

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// MaxCandidateInput is the longest input, in bytes, Candidates looks at; anything longer
// is not a number someone typed and yields no candidates.
const MaxCandidateInput = 200

// Candidate is one Peppol participant identifier that a typed national or VAT number
// may be registered under.
type Candidate struct {
	// ID is the participant identifier to look up, e.g. 0208:0677424046.
	ID ParticipantID
	// SchemeID is the code list's id of ID.ICD, e.g. "BE:EN"; empty for an ICD not in
	// the code list.
	SchemeID string
	// Description says what the number is, e.g. "Belgian enterprise number".
	Description string
	// Check is the check-digit result of ID (see CheckDigit).
	Check CheckResult
}

// kind is a set of national-number interpretations that labels, separators or a country
// prefix allow.
type kind uint16

const (
	kindBE kind = 1 << iota
	kindNL
	kindFR
	kindNO
	kindSE
	kindDK
	kindFI
	kindIT
	kindAU
	kindGLN
	kindLEI

	kindAny kind = 0 // no hint: every interpretation that fits the length
)

// labels are the words people put before a number, upper-case, longest first where one
// is a prefix of another. A label restricts which countries the number is tried for, or
// (vat) names the country whose VAT number it is: a number after it that has no
// two-letter prefix is read with that one ("NIP 526-000-12-46" as "PL5260001246").
// Country codes are not labels: "BE 0677.424.046" is read as the prefixed "BE0677424046".
// This is the one table of number names: the bulk check, REST and /ask all read
// through Candidates (docs/INTERFACE.md §4.3).
var labels = []struct {
	text string
	kind kind
	vat  string
}{
	{text: "ORGANISATIONSNUMMER", kind: kindSE},
	{text: "ORGANISASJONSNUMMER", kind: kindNO},
	{text: "ORGANISASJONSNR", kind: kindNO},
	{text: "FORETAKSNUMMER", kind: kindNO},
	{text: "CODICE FISCALE", kind: kindIT},
	{text: "CVR-NUMMER", kind: kindDK},
	{text: "ALV-NUMERO", kind: kindFI},
	{text: "ALV-NRO", kind: kindFI},
	{text: "ALV", kind: kindFI},
	{text: "C.F", kind: kindIT},
	{text: "CF", kind: kindIT},
	// Spain's NIF/CIF/NIE and Poland's NIP are their VAT numbers without the prefix.
	{text: "N.I.F", vat: "ES"},
	{text: "C.I.F", vat: "ES"},
	{text: "NIF", vat: "ES"},
	{text: "CIF", vat: "ES"},
	{text: "NIE", vat: "ES"},
	{text: "N.I.P", vat: "PL"},
	{text: "NIP", vat: "PL"},
	{text: "ENTERPRISE NUMBER", kind: kindBE},
	{text: "ONDERNEMINGSNUMMER", kind: kindBE},
	{text: "PARTITA IVA", kind: kindIT},
	{text: "KVK-NUMMER", kind: kindNL},
	{text: "KVK NUMMER", kind: kindNL},
	{text: "Y-TUNNUS", kind: kindFI},
	{text: "YTUNNUS", kind: kindFI},
	{text: "ORG.NR.", kind: kindSE | kindNO},
	{text: "ORG.NR", kind: kindSE | kindNO},
	{text: "ORG NR", kind: kindSE | kindNO},
	{text: "ORGNR", kind: kindSE | kindNO},
	{text: "CVR-NR", kind: kindDK},
	{text: "CVR NR", kind: kindDK},
	{text: "P. IVA", kind: kindIT},
	{text: "P.IVA", kind: kindIT},
	{text: "PIVA", kind: kindIT},
	{text: "SIREN", kind: kindFR},
	{text: "SIRET", kind: kindFR},
	{text: "KVK", kind: kindNL},
	{text: "KBO", kind: kindBE},
	{text: "BCE", kind: kindBE},
	{text: "CVR", kind: kindDK},
	{text: "MVA", kind: kindNO},
	{text: "BTW", kind: kindBE | kindNL},
	{text: "TVA", kind: kindBE | kindFR},
	{text: "ABN", kind: kindAU},
	{text: "GLN", kind: kindGLN},
	{text: "LEI", kind: kindLEI},
	{text: "UST-IDNR.", kind: kindAny},
	{text: "UST-IDNR", kind: kindAny},
	{text: "UST-ID", kind: kindAny},
	{text: "USTIDNR", kind: kindAny},
	{text: "USTID", kind: kindAny},
	{text: "UST", kind: kindAny},
	{text: "MOMS", kind: kindDK | kindSE},
	{text: "VAT", kind: kindAny},
	{text: "UID", kind: kindAny},
	{text: "IVA", kind: kindIT},
}

// kindCountries are the countries of the kinds that are one country's numbers.
var kindCountries = map[kind]string{
	kindBE: "BE", kindNL: "NL", kindFR: "FR", kindNO: "NO", kindSE: "SE",
	kindDK: "DK", kindFI: "FI", kindIT: "IT", kindAU: "AU",
}

// LabelCountry reports whether label (any case, without the colon or full stop after
// it: "NIF", "codice fiscale", "CVR-nummer") is one of the words Candidates reads before
// a number, and the one country whose number it names: the country of a VAT label
// ("NIP" is Poland's) or of the one national scheme it restricts to ("KvK" is the
// Netherlands'). The country is "" for a label of several countries or of none ("VAT",
// "org.nr", "GLN"). This is how other packages ask the table of number names
// (docs/INTERFACE.md §4.3) rather than keep their own.
func LabelCountry(label string) (country string, ok bool) {
	for _, l := range labels {
		if len(l.text) != len(label) || !strings.EqualFold(l.text, label) {
			continue
		}
		if l.vat != "" {
			return l.vat, true
		}
		return kindCountries[l.kind], true
	}
	return "", false
}

// Shapes of the way numbers are usually written, which tell the country even without a
// prefix.
var (
	shapeBE = regexp.MustCompile(`^[01][0-9]{3}\.[0-9]{3}\.[0-9]{3}$`) // 0677.424.046
	shapeSE = regexp.MustCompile(`^[0-9]{6}-[0-9]{4}$`)                // 556036-0793
	shapeFI = regexp.MustCompile(`^[0-9]{7}-[0-9]$`)                   // 1234567-8
	nlVAT   = regexp.MustCompile(`^[0-9]{9}B[0-9]{2}$`)
	gbVAT   = regexp.MustCompile(`^([0-9]{9}|[0-9]{12}|(GD|HA)[0-9]{3})$`)
	frVAT   = regexp.MustCompile(`^[0-9A-Z]{2}[0-9]{9}$`)
	lei     = regexp.MustCompile(`^[0-9A-Z]{18}[0-9]{2}$`)
)

// Candidates turns what a person typed – a national company number, a VAT number, a
// GLN, possibly with a label ("KvK 54441587"), a country prefix ("BE0677.424.046") or
// separators – into the participant identifiers it may be registered under, best first.
// An input that already is a participant identifier ("0208:0677424046",
// "iso6523-actorid-upis::0208:0677424046") yields itself. Bare numbers that fit several
// countries (9, 10 or 8 digits) yield candidates for each, those whose check digit holds
// first. The result is deduplicated, never nil, and empty for input that is not
// recognisable or longer than MaxCandidateInput; every candidate's ID is a valid
// ParticipantID.
func Candidates(input string) []Candidate {
	out := []Candidate{}
	if len(input) > 4*MaxCandidateInput {
		return out // do not even trim megabytes of padding
	}
	s := strings.TrimSpace(input)
	if s == "" || len(s) > MaxCandidateInput {
		return out
	}
	if id, err := ParseParticipantID(s); err == nil {
		return append(out, newCandidate(id, ""))
	}
	groups := interpret(s)
	// Stable, so that among equally plausible readings the order of interpret (the
	// country the shape suggests most) is kept.
	slices.SortStableFunc(groups, func(a, b group) int { return checkRank(a.check) - checkRank(b.check) })
	seen := make(map[ParticipantID]bool)
	for _, g := range groups {
		for _, c := range g.cands {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// checkRank orders check results: a holding check digit makes a reading most likely, a
// failing one least.
func checkRank(c CheckResult) int {
	switch c {
	case CheckValid:
		return 0
	case CheckNotDefined:
		return 1
	case CheckSoftInvalid:
		return 2
	}
	return 3
}

// group is one reading of the input (e.g. "a Belgian enterprise number") with the ids it
// may be registered under; check is the check result of the national number itself.
type group struct {
	check CheckResult
	cands []Candidate
}

// builder collects groups while interpret tries readings.
type builder struct{ groups []group }

// add starts a new reading; its first id decides the reading's check result.
func (b *builder) add(ids ...[2]string) {
	var g group
	for i, pair := range ids {
		id, err := ParseParticipantID(pair[0] + ":" + pair[1])
		if err != nil {
			continue // e.g. a value that is too long; never offer an unparsable id
		}
		c := newCandidate(id, "")
		if i == 0 {
			g.check = c.Check
		}
		g.cands = append(g.cands, c)
	}
	if len(g.cands) > 0 {
		b.groups = append(b.groups, g)
	}
}

func pid(icd, value string) [2]string { return [2]string{icd, strings.ToLower(value)} }

func newCandidate(id ParticipantID, desc string) Candidate {
	c := Candidate{ID: id, Check: CheckDigit(id.ICD, id.Value), Description: desc}
	if s, ok := LookupScheme(id.ICD); ok {
		c.SchemeID = s.ID
		if c.Description == "" {
			c.Description = descriptions[id.ICD]
		}
		if c.Description == "" {
			c.Description = s.Name
		}
	}
	if c.Description == "" {
		c.Description = "identifier under scheme " + id.ICD + ", which is not in the Peppol code list"
	}
	return c
}

// descriptions name what the common schemes hold in plain words; other schemes are
// described by their code-list name.
var descriptions = map[string]string{
	"0002": "French SIREN (company) number",
	"0007": "Swedish organisation number",
	"0009": "French SIRET (establishment) number",
	"0088": "GS1 Global Location Number (GLN)",
	"0106": "Dutch Chamber of Commerce (KvK) number",
	"0151": "Australian Business Number (ABN)",
	"0183": "Swiss business identification number (UID)",
	"0184": "Danish CVR number",
	"0190": "Dutch government organisation number (OIN)",
	"0192": "Norwegian organisation number",
	"0198": "Danish SE number",
	"0199": "Legal Entity Identifier (LEI)",
	"0208": "Belgian enterprise number",
	"0211": "Italian VAT number (partita IVA)",
	"0216": "Finnish OVT code (0037 + Y-tunnus)",
	"0218": "Latvian registration number",
	"0225": "French e-invoicing directory address (SIREN)",
	"0245": "Slovak tax identification number (DIČ)",
	"0246": "German electronic business address (GEBA)",
	"0248": "Omani VAT number",
	"9914": "Austrian VAT number (UID)",
	"9925": "Belgian VAT number",
	"9927": "Swiss VAT number",
	"9930": "German VAT number",
	"9932": "United Kingdom VAT number",
	"9944": "Dutch VAT number",
	"9957": "French VAT number",
}

// pastedSpaces turns the look-alike spaces and dashes that numbers copied from web pages
// and PDFs carry into their ASCII forms.
var pastedSpaces = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2009", " ", "\u2007", " ", "\u2010", "-", "\u2011", "-", "\u2013", "-")

// interpret strips labels and separators from s and returns every reading that fits.
func interpret(s string) []group {
	up := strings.ToUpper(pastedSpaces.Replace(s))
	hint := kindAny
	vat := "" // the country a label says the number is a VAT number of
	// Leading labels, each followed by punctuation, a space or the number itself.
	for stripped := true; stripped; {
		stripped = false
		up = strings.TrimLeft(up, " \t:#.-")
		for _, l := range labels {
			rest, ok := strings.CutPrefix(up, l.text)
			if !ok || rest == "" || isLetter(rest[0]) {
				continue
			}
			hint |= l.kind
			if l.vat != "" {
				vat = l.vat
			}
			up, stripped = rest, true
			break
		}
	}
	body := strings.TrimSpace(up)
	switch {
	case shapeBE.MatchString(body):
		hint |= kindBE
	case shapeSE.MatchString(body):
		hint |= kindSE
	case shapeFI.MatchString(body):
		hint |= kindFI
	}
	c, ok := compact(body)
	if !ok {
		return nil
	}
	// Trailing VAT suffixes: Norwegian "MVA"; Swiss "MWST/TVA/IVA" after a UID.
	if rest, ok := strings.CutSuffix(c, "MVA"); ok && rest != "" && isDigit(rest[len(rest)-1]) {
		c, hint = rest, hint|kindNO
	}
	if strings.HasPrefix(c, "CHE") {
		for _, suffix := range []string{"MWST", "TVA", "IVA"} {
			if rest, ok := strings.CutSuffix(c, suffix); ok {
				c = rest
				break
			}
		}
	}
	if vat != "" && !(len(c) > 2 && isLetter(c[0]) && isLetter(c[1])) {
		c = vat + c
	}
	var b builder
	if lei.MatchString(c) && (hint&kindLEI != 0 || checkLEI(c) == CheckValid) {
		b.add(pid("0199", c))
	}
	if allDigits(c) {
		digitsOnly(&b, c, hint)
	} else if len(c) > 2 && isLetter(c[0]) && isLetter(c[1]) {
		prefixed(&b, c[:2], c[2:])
	}
	return b.groups
}

// compact removes the separators people write inside numbers and reports false when
// anything but ASCII letters and digits is left.
func compact(s string) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '.' || c == '-' || c == '/' || c == '\t':
		case isDigit(c) || c >= 'A' && c <= 'Z':
			sb.WriteByte(c)
		default:
			return "", false
		}
	}
	return sb.String(), sb.Len() > 0
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// allows reports whether a hint permits the reading k: no hint permits everything.
func allows(hint, k kind) bool { return hint == kindAny || hint&k != 0 }

// digitsOnly adds the readings of a bare digit string.
func digitsOnly(b *builder, d string, hint kind) {
	switch len(d) {
	case 8:
		if hint&kindFI != 0 {
			b.add(pid("0216", "0037"+d))
		}
		if allows(hint, kindDK) && d[0] != '0' {
			danish(b, d)
		}
		if allows(hint, kindNL) {
			b.add(pid("0106", d))
		}
	case 9:
		if allows(hint, kindNO) {
			b.add(pid("0192", d))
		}
		if allows(hint, kindFR) {
			french(b, d, "")
		}
		if hint&kindBE != 0 {
			belgian(b, "0"+d) // enterprise numbers issued before 2005 were 9 digits
		}
	case 10:
		if allows(hint, kindBE) && (d[0] == '0' || d[0] == '1') {
			belgian(b, d)
		}
		if allows(hint, kindSE) {
			b.add(pid("0007", d))
		}
	case 11:
		if allows(hint, kindAU) {
			b.add(pid("0151", d))
		}
		if allows(hint, kindIT) {
			b.add(pid("0211", "IT"+d))
		}
	case 13:
		if allows(hint, kindGLN) {
			b.add(pid("0088", d))
		}
	case 14:
		if allows(hint, kindFR) {
			french(b, d[:9], d)
		}
	case 20:
		if hint == kindAny {
			b.add(pid("0190", d))
		}
	}
}

func belgian(b *builder, d string) { b.add(pid("0208", d), pid("9925", "BE"+d)) }

func danish(b *builder, d string) { b.add(pid("0184", d), pid("0198", "DK"+d)) }

// french adds a SIREN (and SIRET, when given) reading: the SIRET scheme, then the SIREN
// schemes and the VAT number derived from the SIREN.
func french(b *builder, siren, siret string) {
	var ids [][2]string
	if siret != "" {
		ids = append(ids, pid("0009", siret))
	}
	ids = append(ids, pid("0002", siren), pid("0225", siren), pid("9957", fmt.Sprintf("FR%02d%s", frVATKey(siren), siren)))
	b.add(ids...)
}

// vatScheme returns the Peppol VAT scheme of a VAT country prefix, for the prefixes with
// no national reading of their own in prefixed. Greece writes EL in VAT numbers.
func vatScheme(cc string) (Scheme, bool) {
	if cc == "EL" {
		cc = "GR"
	}
	for _, s := range schemes {
		if s.ID == cc+":VAT" && s.State != SchemeRemoved {
			return s, true
		}
	}
	return Scheme{}, false
}

// prefixed adds the readings of a number with a two-letter country prefix cc.
func prefixed(b *builder, cc, r string) {
	digits := allDigits(r)
	switch {
	case cc == "BE" && digits && len(r) == 10 && (r[0] == '0' || r[0] == '1'):
		belgian(b, r)
	case cc == "BE" && digits && len(r) == 9:
		belgian(b, "0"+r)
	case cc == "NL" && nlVAT.MatchString(r):
		b.add(pid("9944", cc+r))
	case cc == "NL" && digits && len(r) == 8:
		b.add(pid("0106", r))
	case cc == "FR" && digits && len(r) == 9:
		french(b, r, "")
	case cc == "FR" && digits && len(r) == 14:
		french(b, r[:9], r)
	case cc == "FR" && frVAT.MatchString(r):
		b.add(pid("9957", cc+r), pid("0002", r[2:]), pid("0225", r[2:]))
	case cc == "DE" && digits && len(r) == 9:
		b.add(pid("9930", cc+r), pid("0246", cc+r))
	case cc == "NO" && digits && len(r) == 9:
		b.add(pid("0192", r))
	case cc == "SE" && digits && (len(r) == 10 || len(r) == 12 && strings.HasSuffix(r, "01")):
		b.add(pid("0007", r[:10]))
	case cc == "DK" && digits && len(r) == 8 && r[0] != '0':
		danish(b, r)
	case cc == "FI" && digits && len(r) == 8:
		b.add(pid("0216", "0037"+r))
	case cc == "IT" && digits && len(r) == 11:
		b.add(pid("0211", cc+r))
	case cc == "AT" && len(r) == 9 && r[0] == 'U' && allDigits(r[1:]):
		b.add(pid("9914", cc+r))
	case cc == "CH" && len(r) == 10 && r[0] == 'E' && allDigits(r[1:]):
		b.add(pid("0183", cc+r), pid("9927", cc+r))
	case (cc == "GB" || cc == "XI") && gbVAT.MatchString(r):
		b.add(pid("9932", cc+r))
	case cc == "SK" && digits && len(r) == 10:
		b.add(pid("9950", cc+r), pid("0245", r))
	case cc == "LV" && digits && len(r) == 11:
		b.add(pid("9939", cc+r), pid("0218", r))
	case cc == "OM" && digits && len(r) == 10:
		b.add(pid("0248", cc+r))
	default:
		// Any other VAT number: the country's VAT scheme with the prefix kept, as the
		// 99xx schemes are registered. Require a digit so words are not taken for ids.
		if s, ok := vatScheme(cc); ok && strings.ContainsAny(r, "0123456789") && len(r) <= 16 {
			b.add(pid(s.ICD, cc+r))
		}
	}
}
