package peppol

import (
	"strconv"
	"strings"
)

// CheckResult is the outcome of a check-digit test.
type CheckResult int

// The zero CheckResult is CheckNotDefined, so that an unset result never reads as valid.
const (
	// CheckNotDefined means no check digit is known for the scheme (or for this form of
	// its values), so nothing was tested.
	CheckNotDefined CheckResult = iota
	// CheckValid means the value has the scheme's form and its check digit holds.
	CheckValid
	// CheckInvalid means the value does not have the form the check needs, or its check
	// digit is wrong.
	CheckInvalid
	// CheckSoftInvalid means the value fails a historical rule that numbers issued today
	// need not satisfy (Danish CVR mod 11; Icelandic kennitala, issued without a check
	// digit since February 2026): a hint of a typing error, not a proof.
	CheckSoftInvalid
)

// String returns "valid", "invalid", "soft-invalid" or "not-defined".
func (c CheckResult) String() string {
	switch c {
	case CheckValid:
		return "valid"
	case CheckInvalid:
		return "invalid"
	case CheckSoftInvalid:
		return "soft-invalid"
	}
	return "not-defined"
}

// checkers maps an ICD to its check-digit test. Each test gets the value upper-cased.
var checkers = map[string]func(string) CheckResult{
	"0002": checkSIRENE,
	"0009": checkSIRET,
	"0007": checkDigitsWith(10, luhn),
	"0088": checkDigitsWith(13, gln),
	"0151": checkDigitsWith(11, abn),
	"0158": checkDigitsWith(8, skICO),
	"0183": checkCHUID,
	"0184": checkDKCVR,
	"0191": checkDigitsWith(8, eeCode),
	"0192": checkDigitsWith(9, noOrgnr),
	"0196": checkKennitala,
	"0198": checkPrefixed("DK", checkDKCVR),
	"0199": checkLEI,
	"0200": checkDigitsWith(9, ltCode),
	"0208": checkBE,
	"0211": checkPrefixed("IT", checkDigitsWith(11, luhn)),
	"9902": checkDKCVR,
	"9904": checkPrefixed("DK", checkDKCVR),
	"9906": checkPrefixed("IT", checkDigitsWith(11, luhn)),
	"9908": checkDigitsWith(9, noOrgnr),
	"9909": checkNOVAT,
	"9917": checkKennitala,
	"9925": checkBEVAT,
	"9927": checkCHVAT,
	"9944": checkNLVAT,
	"9956": checkBE,
	"9957": checkFRVAT,
}

// CheckDigit tests the check digit of value (in any case, as stored in a participant id)
// under the scheme icd. It returns CheckNotDefined for schemes without a known check-digit
// rule, CheckInvalid when the value lacks the form the rule needs or the digit is wrong,
// and CheckSoftInvalid for a failed historical rule (DK CVR).
func CheckDigit(icd, value string) CheckResult {
	f, ok := checkers[icd]
	if !ok {
		return CheckNotDefined
	}
	return f(strings.ToUpper(value))
}

// checkDigitsWith tests that v is exactly n ASCII digits and then applies valid.
func checkDigitsWith(n int, valid func(string) bool) func(string) CheckResult {
	return func(v string) CheckResult {
		if len(v) != n || !allDigits(v) {
			return CheckInvalid
		}
		return result(valid(v))
	}
}

// checkPrefixed strips a mandatory country prefix before applying f.
func checkPrefixed(prefix string, f func(string) CheckResult) func(string) CheckResult {
	return func(v string) CheckResult {
		rest, ok := strings.CutPrefix(v, prefix)
		if !ok {
			return CheckInvalid
		}
		return f(rest)
	}
}

func result(ok bool) CheckResult {
	if ok {
		return CheckValid
	}
	return CheckInvalid
}

// digit returns the value of the ASCII digit c; callers have checked allDigits.
func digit(c byte) int { return int(c - '0') }

// weighted returns the sum of the digits of s multiplied by weights, position by position.
func weighted(s string, weights []int) int {
	sum := 0
	for i, w := range weights {
		sum += digit(s[i]) * w
	}
	return sum
}

// luhn reports whether the digit string s passes the Luhn (mod 10) test.
func luhn(s string) bool {
	sum := 0
	for i := 0; i < len(s); i++ {
		d := digit(s[len(s)-1-i])
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// mod97 returns the remainder of the decimal number s divided by 97, for digit strings
// of any length.
func mod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		r = (r*10 + digit(s[i])) % 97
	}
	return r
}

// checkBE: Belgian enterprise number, 10 digits starting 0 or 1, last two digits are
// 97 - (first eight mod 97).
func checkBE(v string) CheckResult {
	if len(v) != 10 || !allDigits(v) || v[0] > '1' {
		return CheckInvalid
	}
	check, _ := strconv.Atoi(v[8:])
	return result(97-mod97(v[:8]) == check)
}

// checkBEVAT: 9925 values are "BE" + the enterprise number; some registrations omit the
// "BE", so both forms are tested.
func checkBEVAT(v string) CheckResult {
	return checkBE(strings.TrimPrefix(v, "BE"))
}

// laPosteSIREN is the SIREN of La Poste, whose establishments' SIRET numbers are
// numbered past what Luhn allows and are validated by digit sum mod 5 instead.
const laPosteSIREN = "356000000"

// checkSIRET: Luhn over 14 digits, with the La Poste exception.
func checkSIRET(v string) CheckResult {
	if len(v) != 14 || !allDigits(v) {
		return CheckInvalid
	}
	if strings.HasPrefix(v, laPosteSIREN) {
		sum := 0
		for i := 0; i < len(v); i++ {
			sum += digit(v[i])
		}
		return result(sum%5 == 0)
	}
	return result(luhn(v))
}

// checkSIRENE: 0002 accepts a SIREN (9 digits) or a SIRET (14 digits).
func checkSIRENE(v string) CheckResult {
	if len(v) == 14 {
		return checkSIRET(v)
	}
	return checkDigitsWith(9, luhn)(v)
}

// frVATKey returns the numeric key of the French VAT number of a 9-digit SIREN.
func frVATKey(siren string) int { return (12 + 3*mod97(siren)) % 97 }

// checkFRVAT: "FR" + 2-character key + SIREN. Only numeric keys have a published formula;
// for the newer alphanumeric keys only the SIREN's Luhn digit is tested.
func checkFRVAT(v string) CheckResult {
	rest, ok := strings.CutPrefix(v, "FR")
	if !ok || len(rest) != 11 || !allDigits(rest[2:]) || !isUpperAlnum(rest[:2]) {
		return CheckInvalid
	}
	siren := rest[2:]
	if !luhn(siren) {
		return CheckInvalid
	}
	if !allDigits(rest[:2]) {
		return CheckNotDefined
	}
	key, _ := strconv.Atoi(rest[:2])
	return result(key == frVATKey(siren))
}

// noOrgnr: Norwegian organisation number, weights 3,2,7,6,5,4,3,2; a remainder that
// would need check digit 10 is never issued.
func noOrgnr(s string) bool {
	r := weighted(s, []int{3, 2, 7, 6, 5, 4, 3, 2}) % 11
	check := 0
	if r != 0 {
		check = 11 - r
	}
	return check != 10 && check == digit(s[8])
}

// checkNOVAT: 9909 values are "NO" + orgnr + "MVA"; the code list's own example omits
// the "NO", so it is optional here.
func checkNOVAT(v string) CheckResult {
	rest, ok := strings.CutSuffix(strings.TrimPrefix(v, "NO"), "MVA")
	if !ok {
		return CheckInvalid
	}
	return checkDigitsWith(9, noOrgnr)(rest)
}

// checkDKCVR: the mod 11 rule (weights 2,7,6,5,4,3,2,1, sum divisible by 11) held for
// CVR numbers issued until 2013 and was then dropped, so a failure is only soft.
func checkDKCVR(v string) CheckResult {
	if len(v) != 8 || !allDigits(v) || v[0] == '0' {
		return CheckInvalid
	}
	if weighted(v, []int{2, 7, 6, 5, 4, 3, 2, 1})%11 != 0 {
		return CheckSoftInvalid
	}
	return CheckValid
}

// gln: GS1 mod 10, weights 3,1,3,... from the right, not counting the check digit.
func gln(s string) bool {
	sum := 0
	for i := len(s) - 2; i >= 0; i-- {
		w := 1
		if (len(s)-2-i)%2 == 0 {
			w = 3
		}
		sum += digit(s[i]) * w
	}
	return (10-sum%10)%10 == digit(s[len(s)-1])
}

// chUID reports whether the 9 digits of a Swiss UID have a valid check digit: weights
// 5,4,3,2,7,6,5,4; check = (11 - sum mod 11) mod 11, never 10.
func chUID(s string) bool {
	check := (11 - weighted(s, []int{5, 4, 3, 2, 7, 6, 5, 4})%11) % 11
	return check != 10 && check == digit(s[8])
}

// checkCHUID: 0183 values are "CHE" + 9 digits.
func checkCHUID(v string) CheckResult {
	return checkPrefixed("CHE", checkDigitsWith(9, chUID))(v)
}

// checkCHVAT: 9927 values are the UID, optionally followed by the VAT suffix in one of
// the national languages.
func checkCHVAT(v string) CheckResult {
	for _, suffix := range []string{"MWST", "TVA", "IVA"} {
		if rest, ok := strings.CutSuffix(v, suffix); ok {
			v = rest
			break
		}
	}
	return checkCHUID(v)
}

// checkLEI: 18 alphanumerics + 2 digits, ISO 7064 MOD 97-10 over the letters expanded
// to 10..35, which must leave 1.
func checkLEI(v string) CheckResult {
	if len(v) != 20 || !isUpperAlnum(v) || !allDigits(v[18:]) {
		return CheckInvalid
	}
	r := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'A' {
			n := int(c-'A') + 10
			r = (r*100 + n) % 97
			continue
		}
		r = (r*10 + digit(c)) % 97
	}
	return result(r == 1)
}

// abn: Australian Business Number, subtract 1 from the first digit, weights
// 10,1,3,5,...,19, sum divisible by 89.
func abn(s string) bool {
	if s[0] == '0' {
		return false
	}
	weights := []int{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19}
	return (weighted(s, weights)-weights[0])%89 == 0
}

// checkKennitala: the kennitala check digit is soft, because Registers Iceland issues
// numbers without a computed check digit since 2026-02-18.
func checkKennitala(v string) CheckResult {
	if len(v) != 10 || !allDigits(v) {
		return CheckInvalid
	}
	if !isKennitala(v) {
		return CheckSoftInvalid
	}
	return CheckValid
}

// isKennitala: Icelandic kennitala, weights 3,2,7,6,5,4,3,2 on the first eight digits;
// the ninth is 11 - sum mod 11 (0 for 11, never 10).
func isKennitala(s string) bool {
	check := (11 - weighted(s, []int{3, 2, 7, 6, 5, 4, 3, 2})%11) % 11
	return check != 10 && check == digit(s[8])
}

// eeCode: Estonian registry code, the algorithm the code list quotes: weights 1..7,
// falling back to 3..9 when the first sum leaves 10; a final 10 becomes 0.
func eeCode(s string) bool {
	return estonianLithuanian(s, []int{1, 2, 3, 4, 5, 6, 7}, []int{3, 4, 5, 6, 7, 8, 9})
}

// ltCode: Lithuanian legal entity code, weights 1..8; the code list says the remainder
// must be below 10, and the Lithuanian standard then retries with weights 3..9,1 and
// uses 0 when that too leaves 10 (the same rule as Estonia's).
func ltCode(s string) bool {
	return estonianLithuanian(s, []int{1, 2, 3, 4, 5, 6, 7, 8}, []int{3, 4, 5, 6, 7, 8, 9, 1})
}

func estonianLithuanian(s string, first, second []int) bool {
	check := weighted(s, first) % 11
	if check == 10 {
		check = weighted(s, second) % 11
	}
	return check%10 == digit(s[len(first)])
}

// skICO: Slovak IČO, weights 8..2 on the first seven digits; check = (11 - sum mod 11)
// mod 10.
func skICO(s string) bool {
	return (11-weighted(s, []int{8, 7, 6, 5, 4, 3, 2})%11)%10 == digit(s[7])
}

// checkNLVAT: "NL" + 9 digits + "B" + 2 digits. Numbers issued to companies pass the
// 11-proof on the 9 digits (weights 9..2, sum mod 11 equals the ninth digit); numbers
// issued to sole traders since 2020 instead pass ISO 7064 mod 97-10 over the whole id
// with letters expanded (N=23, L=21, B=11). Either suffices. The two digits after B
// number the fiscal unit's branches from 01: "00" is never issued (ph-masterdata and
// python-stdnum reject it too).
func checkNLVAT(v string) CheckResult {
	rest, ok := strings.CutPrefix(v, "NL")
	if !ok || len(rest) != 12 || rest[9] != 'B' || !allDigits(rest[:9]) || !allDigits(rest[10:]) || rest[10:] == "00" {
		return CheckInvalid
	}
	if weighted(rest, []int{9, 8, 7, 6, 5, 4, 3, 2})%11 == digit(rest[8]) {
		return CheckValid
	}
	return result(mod97("2321"+rest[:9]+"11"+rest[10:]) == 1)
}

func isUpperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
