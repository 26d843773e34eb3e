package netsim

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	a := Generate(DatasetConfig{Seed: 7, Participants: 500, Now: testNow})
	b := Generate(DatasetConfig{Seed: 7, Participants: 500, Now: testNow})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same config gave different datasets")
	}
	c := Generate(DatasetConfig{Seed: 8, Participants: 500, Now: testNow})
	if reflect.DeepEqual(a.Participants[20:], c.Participants[20:]) {
		t.Fatal("different seeds gave the same generated participants")
	}
}

func TestGenerateDefaults(t *testing.T) {
	t.Parallel()
	d := Generate(DatasetConfig{Seed: 1, Now: testNow})
	if len(d.Participants) != 200+len(showcaseIDs) || len(d.SMPHosts) != 4 {
		t.Fatalf("defaults: %d participants, %d hosts; want 200 + %d showcase, 4", len(d.Participants), len(d.SMPHosts), len(showcaseIDs))
	}
	if !d.Now.Equal(testNow) {
		t.Errorf("Now = %v", d.Now)
	}
	small := Generate(DatasetConfig{Seed: 1, Participants: 3, SMPHosts: 1, Now: testNow})
	if len(small.Participants) < 14+len(showcaseIDs) {
		t.Errorf("tiny config: %d participants; the well-known ones must all be present", len(small.Participants))
	}
	for _, p := range small.Participants {
		if p.InSML && p.SMPHost != 0 || p.RedirectHost != -1 {
			t.Errorf("%s: host %d redirect %d with a single SMP host", p.ID, p.SMPHost, p.RedirectHost)
		}
	}
}

func TestGenerateShape(t *testing.T) {
	t.Parallel()
	d := Generate(DatasetConfig{Seed: 3, Participants: 2000, Now: testNow})
	if got := len(d.Participants); got != 2000+len(showcaseIDs) {
		t.Fatalf("participants = %d", got)
	}
	if c := d.Countries(); len(c) < 12 {
		t.Errorf("only %d countries: %v", len(c), c)
	}
	seen := map[string]bool{}
	var sml, dir, dirOnly, smlOnly, notFound, multiEntity, as2, wildcard, facturx, withLang, nonASCII int
	companies := map[int][]string{}
	for _, p := range d.Participants {
		k := p.ID.String()
		if seen[k] {
			t.Fatalf("duplicate participant %s", k)
		}
		seen[k] = true
		if p.ID.Value != strings.ToLower(p.ID.Value) {
			t.Errorf("%s: value not lower-case", k)
		}
		if _, err := peppol.ParseParticipantID(k); err != nil {
			t.Errorf("%s does not parse: %v", k, err)
		}
		companies[p.Company] = append(companies[p.Company], p.ID.ICD)
		if p.InSML {
			sml++
			if p.SMPHost < 0 || p.SMPHost >= len(d.SMPHosts) {
				t.Errorf("%s: SMP host %d out of range", k, p.SMPHost)
			}
		} else if p.SMPHost != -1 {
			t.Errorf("%s: not in SML but host %d", k, p.SMPHost)
		}
		if p.Card != nil {
			dir++
			if len(p.Card.Entities) > 1 {
				multiEntity++
			}
			for _, e := range p.Card.Entities {
				if e.CountryCode == "" || len(e.Names) == 0 {
					t.Errorf("%s: entity without country or name", k)
				}
				for _, n := range e.Names {
					if n.Language != "" {
						withLang++
					}
					if !isASCII(n.Name) {
						nonASCII++
					}
				}
			}
		}
		switch {
		case p.InSML && p.Card == nil:
			smlOnly++
		case !p.InSML && p.Card != nil:
			dirOnly++
		}
		if p.SMPNotFound {
			notFound++
		}
		if len(p.Services) == 0 {
			t.Errorf("%s: no services", k)
		}
		for _, s := range p.Services {
			if s.DocumentType.Scheme == DocTypeSchemeWildcard {
				wildcard++
			}
			if strings.Contains(s.DocumentType.Value, "+") {
				facturx++
			}
			for _, pr := range s.Processes {
				if len(pr.Endpoints) == 0 {
					t.Errorf("%s: process without endpoint", k)
				}
				for _, e := range pr.Endpoints {
					if e.TransportProfile == TransportAS2 {
						as2++
					}
					if e.AccessPoint < 0 || e.AccessPoint >= len(d.AccessPoints) {
						t.Errorf("%s: access point %d out of range", k, e.AccessPoint)
					}
				}
			}
		}
	}
	for name, n := range map[string]int{"in SML": sml, "in Directory": dir, "Directory only": dirOnly, "SML only": smlOnly,
		"SMP 404": notFound, "multi-entity cards": multiEntity, "AS2 endpoints": as2, "wildcard doc types": wildcard,
		"Factur-X doc types": facturx, "names with language": withLang, "names with diacritics": nonASCII} {
		if n == 0 {
			t.Errorf("no participants %s", name)
		}
	}
	multiScheme := 0
	for _, icds := range companies {
		if len(icds) > 1 {
			multiScheme++
		}
	}
	if multiScheme < 50 {
		t.Errorf("only %d companies with several identifiers", multiScheme)
	}
	// Certificate validity: one expired, one expiring within 30 days, others valid.
	if !d.AccessPoints[0].NotAfter.Before(testNow) || d.AccessPoints[1].NotAfter.Sub(testNow).Hours() > 30*24 || d.AccessPoints[1].NotAfter.Before(testNow) {
		t.Errorf("access point validity: %v, %v", d.AccessPoints[0].NotAfter, d.AccessPoints[1].NotAfter)
	}
}

func isASCII(s string) bool { return utf8.RuneCountInString(s) == len(s) }

func TestWellKnownParticipants(t *testing.T) {
	t.Parallel()
	d := testDataset()
	tests := []struct {
		id       string
		index    int
		inSML    bool
		inDir    bool
		notFound bool
		country  string
	}{
		{KnownBelgian, 0, true, true, false, "BE"},
		{KnownBelgianVAT, 1, true, true, false, "BE"},
		{KnownNorwegian, 2, true, true, false, "NO"},
		{KnownGLN, 3, true, true, false, "DK"},
		{KnownDutch, 4, true, true, false, "NL"},
		{KnownSwedish, 5, true, true, false, "SE"},
		{KnownGerman, 6, true, true, false, "DE"},
		{KnownFrenchSIREN, 7, true, true, false, "FR"},
		{KnownFrenchSIRET, 8, true, true, false, "FR"},
		{KnownDirectoryOnly, 9, false, true, false, "BE"},
		{KnownSMLOnly, 10, true, false, false, "SE"},
		{KnownSMPNotFound, 11, true, true, true, "DK"},
		{KnownRedirect, 12, true, true, false, "NO"},
		{KnownAustralian, 13, true, true, false, "AU"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			p := d.MustLookup(tt.id)
			if p == nil {
				t.Fatal("not in dataset")
			}
			if got := d.Participants[tt.index].ID.String(); got != tt.id {
				t.Errorf("Participants[%d] = %s", tt.index, got)
			}
			if p.InSML != tt.inSML || (p.Card != nil) != tt.inDir || p.SMPNotFound != tt.notFound || p.Country != tt.country {
				t.Errorf("got inSML=%v inDir=%v notFound=%v country=%s", p.InSML, p.Card != nil, p.SMPNotFound, p.Country)
			}
		})
	}
	be, vat := d.MustLookup(KnownBelgian), d.MustLookup(KnownBelgianVAT)
	if be.Company != vat.Company || be.Card != vat.Card {
		t.Error("0208 and 9925 Belgian ids are not the same company")
	}
	if be.SMPHost != 0 || d.SMPHosts[0].BasePath == "" || d.SMPHosts[0].NAPTRTrailingSlash {
		t.Error("KnownBelgian must be on host 0, which has a base path and no trailing slash")
	}
	if r := d.MustLookup(KnownRedirect); r.RedirectHost != 2 || r.SMPHost != 1 {
		t.Errorf("redirect: host %d → %d", r.SMPHost, r.RedirectHost)
	}
	if p, ok := d.Lookup(peppol.ParticipantID{ICD: "0208", Value: "0677424046"}); !ok || p.ID.String() != KnownBelgian {
		t.Error("Lookup failed")
	}
	if _, ok := d.Lookup(peppol.ParticipantID{ICD: "9930", Value: "DE811152493"}); !ok {
		t.Error("Lookup is not case-insensitive")
	}
	if d.MustLookup("not an id") != nil || d.MustLookup("0208:0000000000") != nil {
		t.Error("MustLookup found a missing id")
	}
}

// TestCheckDigits verifies every generated identifier with verifiers written
// independently of the generators (verification, not generation).
func TestCheckDigits(t *testing.T) {
	t.Parallel()
	vectors := []struct {
		id   string
		want bool
	}{
		{"0208:0677424046", true}, {"0208:0123456749", true}, {"0208:0123456789", false},
		{"9925:be0677424046", true}, {"0192:923609016", true}, {"0192:987654321", false},
		{"0088:5790000435975", true}, {"0088:5798009811578", true}, {"0088:1234567890123", false},
		{"0007:5560360793", true}, {"0007:2120000787", true}, {"0184:13585628", true}, {"0184:12345678", false},
		{"0002:784301772", true}, {"0009:78430177200025", true}, {"9930:de811152493", true},
		{"0151:51824753556", true}, {"0211:it06363391001", true}, {"0106:54441587", true},
		{"9914:atu13585627", true}, {"9932:gb980780684", true}, {"9945:pl5260250274", true},
	}
	for _, v := range vectors {
		if got := verifyID(v.id) == ""; got != v.want {
			t.Errorf("verify(%s) = %v, want %v (%s)", v.id, got, v.want, verifyID(v.id))
		}
	}
	d := Generate(DatasetConfig{Seed: 11, Participants: 5000, Now: testNow})
	schemes := map[string]int{}
	for _, p := range d.Participants {
		schemes[p.ID.ICD]++
		if msg := verifyID(p.ID.String()); msg != "" {
			t.Errorf("%s: %s", p.ID, msg)
		}
	}
	for _, icd := range []string{"0208", "9925", "0192", "9908", "0007", "0184", "0088", "0216", "0106", "0009", "0002", "9930", "0211", "9914", "9932", "9935", "9920", "9945", "0151", "0195"} {
		if schemes[icd] == 0 {
			t.Errorf("no participant with scheme %s", icd)
		}
	}
}

func num(s string) []int {
	out := make([]int, len(s))
	for i, c := range s {
		if c < '0' || c > '9' {
			return nil
		}
		out[i] = int(c - '0')
	}
	return out
}

func luhnOK(s string) bool {
	d := num(s)
	if d == nil {
		return false
	}
	sum := 0
	for i := range d {
		x := d[len(d)-1-i]
		if i%2 == 1 {
			x = x * 2 % 9
			if x == 0 && d[len(d)-1-i] == 9 {
				x = 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

func weighted(d []int, w ...int) int {
	s := 0
	for i, x := range w {
		s += d[i] * x
	}
	return s
}

// verifyID returns "" when id passes its scheme's check, else the reason.
func verifyID(id string) string {
	icd, v, _ := strings.Cut(id, ":")
	fail := func(why string) string { return why }
	switch icd {
	case "0208", "9925":
		if icd == "9925" {
			if !strings.HasPrefix(v, "be") {
				return fail("no be prefix")
			}
			v = v[2:]
		}
		d := num(v)
		if len(d) != 10 {
			return fail("not 10 digits")
		}
		base, _ := strconv.Atoi(v[:8])
		check, _ := strconv.Atoi(v[8:])
		if 97-base%97 != check {
			return fail("mod 97")
		}
	case "0192", "9908":
		d := num(v)
		if len(d) != 9 {
			return fail("not 9 digits")
		}
		r := weighted(d, 3, 2, 7, 6, 5, 4, 3, 2) % 11
		c := (11 - r) % 11
		if c == 10 || c != d[8] {
			return fail("mod 11")
		}
	case "0007":
		if len(v) != 10 || !luhnOK(v) {
			return fail("luhn")
		}
	case "0184":
		d := num(v)
		if len(d) != 8 || weighted(d, 2, 7, 6, 5, 4, 3, 2, 1)%11 != 0 {
			return fail("mod 11")
		}
	case "0088":
		d := num(v)
		if len(d) != 13 {
			return fail("not 13 digits")
		}
		s := 0
		for i, x := range d {
			if i%2 == 1 {
				s += 3 * x
			} else {
				s += x
			}
		}
		if s%10 != 0 {
			return fail("gs1")
		}
	case "0002":
		if len(v) != 9 || !luhnOK(v) {
			return fail("luhn")
		}
	case "0009":
		if len(v) != 14 || !luhnOK(v) || !luhnOK(v[:9]) {
			return fail("luhn")
		}
	case "0211":
		if !strings.HasPrefix(v, "it") || len(v) != 13 || !luhnOK(v[2:]) {
			return fail("luhn")
		}
	case "0106":
		if len(num(v)) != 8 {
			return fail("not 8 digits")
		}
	case "9930":
		d := num(strings.TrimPrefix(v, "de"))
		if !strings.HasPrefix(v, "de") || len(d) != 9 {
			return fail("not de + 9 digits")
		}
		p := 10
		for _, x := range d[:8] {
			s := (x + p) % 10
			if s == 0 {
				s = 10
			}
			p = 2 * s % 11
		}
		if (11-p)%10 != d[8] {
			return fail("iso 7064")
		}
	case "0151":
		d := num(v)
		if len(d) != 11 {
			return fail("not 11 digits")
		}
		d[0]--
		if weighted(d, 10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19)%89 != 0 {
			return fail("mod 89")
		}
	case "0216":
		d := num(strings.TrimPrefix(v, "0037"))
		if !strings.HasPrefix(v, "0037") || len(d) != 8 {
			return fail("not 0037 + 8 digits")
		}
		r := weighted(d, 7, 9, 10, 5, 8, 4, 2) % 11
		if r == 1 || (11-r)%11 != d[7] {
			return fail("mod 11")
		}
	case "9945":
		d := num(strings.TrimPrefix(v, "pl"))
		if len(d) != 10 || weighted(d, 6, 5, 7, 2, 3, 4, 5, 6, 7)%11 != d[9] {
			return fail("nip")
		}
	case "9932":
		d := num(strings.TrimPrefix(v, "gb"))
		if len(d) != 9 || (weighted(d, 8, 7, 6, 5, 4, 3, 2)+10*d[7]+d[8])%97 != 0 {
			return fail("mod 97")
		}
	case "9935":
		b := strings.TrimPrefix(v, "ie")
		d := num(b[:min(7, len(b))])
		if len(b) != 8 || len(d) != 7 || "wabcdefghijklmnopqrstuv"[weighted(d, 8, 7, 6, 5, 4, 3, 2)%23] != b[7] {
			return fail("mod 23")
		}
	case "9914":
		d := num(strings.TrimPrefix(v, "atu"))
		if len(d) != 8 {
			return fail("not atu + 8 digits")
		}
		s := 0
		for i, x := range d[:7] {
			if i%2 == 1 {
				x = x*2/10 + x*2%10
			}
			s += x
		}
		if (10-(s+4)%10)%10 != d[7] {
			return fail("uid check")
		}
	case "9920":
		d := num(strings.TrimPrefix(v, "esb"))
		if len(d) != 8 || !luhnOK(strings.TrimPrefix(v, "esb")) {
			return fail("cif")
		}
	case "0195":
		if !strings.HasPrefix(v, "sguen") || len(v) != 15 || num(v[5:14]) == nil {
			return fail("uen")
		}
	default:
		return fail("unknown scheme")
	}
	return ""
}
