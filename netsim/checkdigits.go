package netsim

import (
	"math/rand/v2"
	"strconv"
)

// The generators below produce national numbers that pass the check-digit rule of
// their scheme, so that a client validating check digits accepts every generated
// participant. They are written independently of package peppol on purpose: a test
// that checks both against each other catches a bug in either.

// digits returns n random decimal digits; the first one is drawn from first.
func digits(r *rand.Rand, n int, first string) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	if n > 0 && first != "" {
		b[0] = first[r.IntN(len(first))]
	}
	return b
}

// luhnCheck returns the Luhn check digit to append to payload.
func luhnCheck(payload []byte) byte {
	sum := 0
	double := true
	for i := len(payload) - 1; i >= 0; i-- {
		d := int(payload[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

// luhnNumber returns n digits (first from first) whose last digit is the Luhn check.
func luhnNumber(r *rand.Rand, n int, first string) string {
	b := digits(r, n-1, first)
	return string(append(b, luhnCheck(b)))
}

// beEnterprise returns a Belgian enterprise number: 10 digits starting with 0 or 1,
// the last two being 97 - (first eight mod 97).
func beEnterprise(r *rand.Rand) string {
	b := digits(r, 8, "01")
	n, _ := strconv.Atoi(string(b))
	return string(b) + twoDigits(97-n%97)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// weightedMod11 returns sum(d[i]*w[i]) mod 11.
func weightedMod11(d []byte, w []int) int {
	s := 0
	for i, x := range w {
		s += int(d[i]-'0') * x
	}
	return s % 11
}

// noOrgNumber returns a Norwegian organisation number (9 digits, mod 11 with weights
// 3,2,7,6,5,4,3,2; a remainder giving check 10 is invalid and redrawn).
func noOrgNumber(r *rand.Rand) string {
	for {
		b := digits(r, 8, "89")
		rem := weightedMod11(b, []int{3, 2, 7, 6, 5, 4, 3, 2})
		c := 0
		if rem != 0 {
			c = 11 - rem
		}
		if c == 10 {
			continue
		}
		return string(b) + strconv.Itoa(c)
	}
}

// dkCVR returns a Danish CVR number: 8 digits, weights 2,7,6,5,4,3,2,1, sum ≡ 0 mod 11.
func dkCVR(r *rand.Rand) string {
	for {
		b := digits(r, 7, "123456789")
		rem := weightedMod11(b, []int{2, 7, 6, 5, 4, 3, 2})
		c := (11 - rem) % 11
		if c == 10 {
			continue
		}
		return string(b) + strconv.Itoa(c)
	}
}

// fiBusinessID returns the 8 digits of a Finnish Y-tunnus (weights 7,9,10,5,8,4,2;
// remainder 1 is invalid).
func fiBusinessID(r *rand.Rand) string {
	for {
		b := digits(r, 7, "0123")
		rem := weightedMod11(b, []int{7, 9, 10, 5, 8, 4, 2})
		if rem == 1 {
			continue
		}
		c := 0
		if rem != 0 {
			c = 11 - rem
		}
		return string(b) + strconv.Itoa(c)
	}
}

// plNIP returns a Polish NIP (10 digits, weights 6,5,7,2,3,4,5,6,7, check = sum mod 11,
// 10 invalid).
func plNIP(r *rand.Rand) string {
	for {
		b := digits(r, 9, "123456789")
		c := weightedMod11(b, []int{6, 5, 7, 2, 3, 4, 5, 6, 7})
		if c == 10 {
			continue
		}
		return string(b) + strconv.Itoa(c)
	}
}

// gln returns a GS1 Global Location Number: 13 digits starting with prefix, check digit
// by the GS1 mod 10 rule (weights 3,1,3,… from the right, excluding the check digit).
func gln(r *rand.Rand, prefix string) string {
	b := append([]byte(prefix), digits(r, 12-len(prefix), "")...)
	return string(b) + string(gs1Check(b))
}

func gs1Check(payload []byte) byte {
	sum := 0
	for i := len(payload) - 1; i >= 0; i-- {
		w := 3
		if (len(payload)-1-i)%2 == 1 {
			w = 1
		}
		sum += int(payload[i]-'0') * w
	}
	return byte('0' + (10-sum%10)%10)
}

// auABN returns an Australian Business Number: 11 digits; subtract 1 from the first
// digit, weights 10,1,3,5,…,19, the sum is divisible by 89. The last nine digits are
// random; the first two are solved for.
func auABN(r *rand.Rand) string {
	tail := digits(r, 9, "")
	s := 0
	for i, d := range tail {
		s += int(d-'0') * (3 + 2*i)
	}
	t := (89 - s%89) % 89 // 10*(d1-1) + d2 must be ≡ -s (mod 89), and 0 <= t <= 88
	return strconv.Itoa(t/10+1) + strconv.Itoa(t%10) + string(tail)
}

// deVAT returns the 9 digits of a German USt-IdNr, whose last digit is the ISO 7064
// MOD 11,10 check over the first eight.
func deVAT(r *rand.Rand) string {
	b := digits(r, 8, "123456789")
	return string(b) + string(iso7064Mod1110(b))
}

func iso7064Mod1110(payload []byte) byte {
	product := 10
	for _, c := range payload {
		sum := (int(c-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = (2 * sum) % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return byte('0' + check)
}

// gbVAT returns a 9-digit UK VAT number: weights 8..2 on the first seven digits, and the
// last two make the total divisible by 97.
func gbVAT(r *rand.Rand) string {
	b := digits(r, 7, "123456789")
	s := 0
	for i, d := range b {
		s += int(d-'0') * (8 - i)
	}
	return string(b) + twoDigits((97-s%97)%97)
}

// ieVAT returns an Irish VAT number: 7 digits and a check letter (weights 8..2, mod 23,
// 0 → 'W').
func ieVAT(r *rand.Rand) string {
	b := digits(r, 7, "123456789")
	s := 0
	for i, d := range b {
		s += int(d-'0') * (8 - i)
	}
	const letters = "WABCDEFGHIJKLMNOPQRSTUV"
	return string(b) + string(letters[s%23])
}
