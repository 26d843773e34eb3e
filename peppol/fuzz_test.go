package peppol

import (
	"strings"
	"testing"
)

func FuzzParseParticipantID(f *testing.F) {
	for _, s := range []string{
		"0208:0677424046", "iso6523-actorid-upis::9915:test", "BE:123", "0208:", ":", "",
		"0208:abc;rm -rf", "0208:<script>", "0208:a%3Ab", "0208:a\nb", "0208:müller",
		"0208:" + strings.Repeat("a", 130), "ISO6523-ACTORID-UPIS::0088:ABC+1.2_3-4",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseParticipantID(s)
		if err != nil {
			if !p.IsZero() {
				t.Fatalf("error %v with a non-zero id %v", err, p)
			}
			if err.Error() == "" || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("bad error message %q", err)
			}
			return
		}
		if len(p.String()) > MaxParticipantIDLength {
			t.Fatalf("%q parsed into %d characters", s, len(p.String()))
		}
		if p.Value != strings.ToLower(p.Value) {
			t.Fatalf("value %q is not lower-case", p.Value)
		}
		again, err := ParseParticipantID(p.String())
		if err != nil || again != p {
			t.Fatalf("String() %q re-parses to %v, %v", p.String(), again, err)
		}
		if again, err := ParseParticipantID(p.URI()); err != nil || again != p {
			t.Fatalf("URI() %q re-parses to %v, %v", p.URI(), again, err)
		}
		// Only the colon and '+' need escaping in a participant value.
		if got, want := PathEscape(p.String()), p.ICD+"%3A"+strings.ReplaceAll(p.Value, "+", "%2B"); got != want {
			t.Fatalf("PathEscape(%q) = %q, want %q", p.String(), got, want)
		}
	})
}

func FuzzCandidates(f *testing.F) {
	for _, s := range []string{
		"BE 0677.424.046", "NL851306469B01", "KvK 54441587", "SIREN 784301772", "78430177200025",
		"923609016 MVA", "DE811152493", "5790000435975", "556036-0793", "CVR 13585628",
		"1234567-8", "CHE-116.281.710 MWST", "0208:0677424046", "VAT: ", "org.nr.", "EL1", "\u00a0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs := Candidates(s)
		if cs == nil {
			t.Fatal("nil result")
		}
		seen := map[ParticipantID]bool{}
		for _, c := range cs {
			p, err := ParseParticipantID(c.ID.String())
			if err != nil || p != c.ID {
				t.Fatalf("Candidates(%q) gave %v, which does not parse: %v", s, c.ID, err)
			}
			if seen[c.ID] {
				t.Fatalf("Candidates(%q) lists %v twice", s, c.ID)
			}
			seen[c.ID] = true
			_ = ValidateParticipantID(c.ID)
		}
	})
}

func FuzzCheckDigit(f *testing.F) {
	f.Add("0208", "0677424046")
	f.Add("0199", "001GPB6A9XPE8XJICC14")
	f.Add("9944", "NL851306469B01")
	f.Add("9957", "FR93784301772")
	f.Fuzz(func(t *testing.T, icd, value string) {
		r := CheckDigit(icd, value)
		if r == CheckValid && !strings.ContainsAny(value, "0123456789") {
			t.Fatalf("CheckDigit(%q, %q) is valid without digits", icd, value)
		}
	})
}
