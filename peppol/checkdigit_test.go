package peppol

import "testing"

// Valid and invalid numbers of each scheme's registry (real or published example numbers,
// their check digits recomputed), plus a few from the sources named in the comments;
// "constructed" vectors take a valid number and change its check digit.
func TestCheckDigit(t *testing.T) {
	type vec struct {
		icd, value string
		want       CheckResult
	}
	valid := func(icd string, values ...string) []vec {
		var out []vec
		for _, v := range values {
			out = append(out, vec{icd, v, CheckValid})
		}
		return out
	}
	var tests []vec
	add := func(v ...vec) { tests = append(tests, v...) }

	// BE enterprise number (0208, removed 9956) and BE VAT (9925).
	add(valid("0208", "0899965307", "0403019261", "0202239951", "0477472701", "0871221633", "0407214017", "0123456749", "0677424046")...)
	add(valid("9956", "0899965307")...)
	add(valid("9925", "BE0123456749", "be0677424046", "0677424046")...)
	add(vec{"0208", "0123456789", CheckInvalid}, vec{"0208", "0677424047", CheckInvalid},
		vec{"0208", "2123456749", CheckInvalid}, vec{"0208", "123456749", CheckInvalid},
		vec{"9925", "BE0123456789", CheckInvalid}, vec{"9925", "NL0123456749", CheckInvalid})

	// SIREN / SIRET (Luhn; La Poste SIRET by digit sum mod 5).
	add(valid("0002", "784301772", "78430177200025", "552081317", "542107651")...)
	add(valid("0009", "78430177200025")...)
	add(vec{"0002", "784301773", CheckInvalid}, vec{"0009", "78430177200026", CheckInvalid},
		vec{"0009", "784301772", CheckInvalid}, vec{"0002", "7843017720002", CheckInvalid})
	// La Poste: 35600000049837 fails Luhn but its digit sum (45) is divisible by 5.
	add(vec{"0009", "35600000049837", CheckValid}, vec{"0009", "35600000049838", CheckInvalid})

	// FR VAT: key of SIREN 784301772 is 93.
	add(valid("9957", "FR93784301772", "fr93784301772")...)
	add(vec{"9957", "FR94784301772", CheckInvalid}, vec{"9957", "FR93784301773", CheckInvalid},
		vec{"9957", "FRA1784301772", CheckNotDefined}, vec{"9957", "784301772", CheckInvalid})

	// SE organisation number (Luhn).
	add(valid("0007", "2120000787", "5590700299", "5560360793")...)
	add(vec{"0007", "5560360794", CheckInvalid})

	// NO organisation number (mod 11), also under 9908 and as NO…MVA under 9909.
	add(valid("0192", "745707327", "923609016", "991825827", "123456785", "976098897", "991618112", "923829644")...)
	add(valid("9908", "991825827")...)
	add(valid("9909", "NO923609016MVA", "no923609016mva", "990399123MVA")...)
	add(vec{"0192", "987654321", CheckInvalid}, vec{"0192", "123456784", CheckInvalid},
		vec{"0192", "323456780", CheckInvalid}, vec{"9909", "NO923609016", CheckInvalid})

	// DK CVR (soft mod 11), also as 9902 and with DK prefix under 0198 / 9904.
	add(valid("0184", "13585628", "34051178", "26769388")...)
	add(valid("9902", "13585628")...)
	add(valid("0198", "DK26769388", "dk26769388")...)
	add(valid("9904", "DK26769388")...)
	add(vec{"0184", "12345678", CheckSoftInvalid}, vec{"0198", "DK12345678", CheckSoftInvalid},
		vec{"0184", "01234567", CheckInvalid}, vec{"0198", "26769388", CheckInvalid})

	// GLN (GS1 mod 10).
	add(valid("0088", "1548079098355", "5033466000005", "5798009811578", "7300010000001", "5798000000001", "5790000435975")...)
	add(vec{"0088", "1234567890123", CheckInvalid}, vec{"0088", "5060210000007", CheckInvalid},
		vec{"0088", "548079098355", CheckInvalid})

	// CH UID (mod 11) under 0183, and as VAT under 9927 with an optional suffix.
	add(valid("0183", "CHE116281710", "CHE109322551", "che116281710")...)
	add(valid("9927", "CHE116281710", "CHE116281710MWST", "che109322551tva")...)
	add(vec{"0183", "CHE116281711", CheckInvalid}, vec{"0183", "116281710", CheckInvalid})

	// IT partita IVA (Luhn) under 0211 and removed 9906.
	add(valid("0211", "IT06363391001", "IT02252770066", "IT02551570308")...)
	add(valid("9906", "IT06363391001")...)
	add(vec{"0211", "IT06363391002", CheckInvalid}, vec{"0211", "06363391001", CheckInvalid})

	// AU ABN (mod 89): the code list's example.
	add(valid("0151", "51824753556")...)
	add(vec{"0151", "51824753557", CheckInvalid}, vec{"0151", "01824753556", CheckInvalid})

	// EE registry code and LT legal entity code: the code list's examples.
	add(valid("0191", "10137025")...)
	add(vec{"0191", "10137026", CheckInvalid})
	add(valid("0200", "111963319")...)
	add(vec{"0200", "111963318", CheckInvalid})

	// NL VAT: 11-proof (§4.3) or, for sole traders, mod 97 (NL002455799B11, the
	// python-stdnum nl.btw example, fails the 11-proof and passes mod 97).
	add(valid("9944", "NL851306469B01", "nl851306469b01", "NL002455799B11")...)
	add(vec{"9944", "NL851306468B01", CheckInvalid}, vec{"9944", "NL851306469", CheckInvalid})
	// The B suffix starts at 01: 00 is never issued, whatever the digits before it.
	add(vec{"9944", "NL851306469B00", CheckInvalid}, vec{"9944", "NL002455799B00", CheckInvalid})

	// LEI (ISO 7064 mod 97-10): published LEIs of GLEIF-registered funds.
	add(valid("0199", "001GPB6A9XPE8XJICC14", "004L5FPTUREIWK9T2N63", "21380014JAZAUFJRHC43")...)
	add(vec{"0199", "001GPB6A9XPE8XJICC15", CheckInvalid}, vec{"0199", "001GPB6A9XPE8XJICC1", CheckInvalid})

	// IS kennitala (soft since 2026): 6010100890 is a company, 3108962099 a person.
	add(valid("0196", "6010100890", "3108962099")...)
	add(valid("9917", "6010100890")...)
	add(vec{"0196", "8281249124", CheckSoftInvalid}, vec{"0196", "601010089", CheckInvalid})

	// SK IČO (mod 11): 35763469 (constructed to satisfy the code list's weights).
	add(valid("0158", "35763469")...)
	add(vec{"0158", "35763468", CheckInvalid})

	// Schemes without a check digit.
	add(vec{"0106", "54441587", CheckNotDefined}, vec{"9930", "de811152493", CheckNotDefined},
		vec{"0190", "00000001820029336000", CheckNotDefined}, vec{"1234", "x", CheckNotDefined})

	for _, tt := range tests {
		if got := CheckDigit(tt.icd, tt.value); got != tt.want {
			t.Errorf("CheckDigit(%q, %q) = %v, want %v", tt.icd, tt.value, got, tt.want)
		}
	}
}

func TestCheckDigitNeverPanicsOnOddInput(t *testing.T) {
	odd := []string{"", "x", "é", "DK", "NL", "CHE", "FR", "NOMVA", "IT", "BE", "\xff\xfe", "ЕЕ12345678"}
	for icd := range checkers {
		for _, v := range odd {
			if got := CheckDigit(icd, v); got == CheckValid {
				t.Errorf("CheckDigit(%q, %q) = valid", icd, v)
			}
		}
	}
}

func TestCheckResultString(t *testing.T) {
	for r, want := range map[CheckResult]string{CheckValid: "valid", CheckInvalid: "invalid", CheckSoftInvalid: "soft-invalid", CheckNotDefined: "not-defined"} {
		if r.String() != want {
			t.Errorf("%d.String() = %q, want %q", r, r.String(), want)
		}
	}
}

func TestFRVATKey(t *testing.T) {
	if got := frVATKey("784301772"); got != 93 {
		t.Errorf("frVATKey(784301772) = %d, want 93", got)
	}
}
