package peppol

import (
	"slices"
	"strings"
	"testing"
)

func candidateIDs(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID.String()
	}
	return out
}

func TestCandidates(t *testing.T) {
	tests := []struct {
		in   string
		want []string // the whole ordered list
	}{
		// National number names read as labels (docs/INTERFACE.md §4.3: /ask reads the
		// ids the bulk check tries): Spain and Poland read with their VAT prefix.
		{"NIP 526-000-12-46", []string{"9945:pl5260001246"}},
		{"N.I.P.: 5260001246", []string{"9945:pl5260001246"}},
		{"NIP PL5260001246", []string{"9945:pl5260001246"}},
		{"NIF B15147895", []string{"9920:esb15147895"}},
		{"CIF: B-15147895", []string{"9920:esb15147895"}},
		{"N.I.F. ESB15147895", []string{"9920:esb15147895"}},
		{"NIE X1234567L", []string{"9920:esx1234567l"}},
		{"C.F. 06363391001", []string{"0211:it06363391001"}},
		{"CF 06363391001", []string{"0211:it06363391001"}},
		{"codice fiscale 06363391001", []string{"0211:it06363391001"}},
		{"Foretaksnummer 923609016", []string{"0192:923609016"}},
		{"organisasjonsnr. 923 609 016", []string{"0192:923609016"}},
		{"CVR-nummer 13585628", []string{"0184:13585628", "0198:dk13585628"}},
		{"ALV-numero FI12345678", []string{"0216:003712345678"}},
		{"ALV-nro 12345678", []string{"0216:003712345678"}},

		// Belgium: prefix, dotted shape, label, 9-digit old numbers.
		{"BE 0677.424.046", []string{"0208:0677424046", "9925:be0677424046"}},
		{"BE0677424046", []string{"0208:0677424046", "9925:be0677424046"}},
		{"be0677424046", []string{"0208:0677424046", "9925:be0677424046"}},
		{"0677.424.046", []string{"0208:0677424046", "9925:be0677424046"}},
		{"VAT: BE 0677.424.046", []string{"0208:0677424046", "9925:be0677424046"}},
		{"KBO 477.472.701", []string{"0208:0477472701", "9925:be0477472701"}},
		{"BE477472701", []string{"0208:0477472701", "9925:be0477472701"}},
		{"BE\u00a00677\u00a0424\u00a0046", []string{"0208:0677424046", "9925:be0677424046"}},
		// A wrong check digit still yields the candidates.
		{"BE0123456789", []string{"0208:0123456789", "9925:be0123456789"}},

		// Netherlands.
		{"NL851306469B01", []string{"9944:nl851306469b01"}},
		{"KvK 54441587", []string{"0106:54441587"}},
		{"kvk-nummer: 54441587", []string{"0106:54441587"}},
		{"BTW NL851306469B01", []string{"9944:nl851306469b01"}},

		// France: SIREN, SIRET, VAT.
		{"SIREN 784301772", []string{"0002:784301772", "0225:784301772", "9957:fr93784301772"}},
		{"siren: 784 301 772", []string{"0002:784301772", "0225:784301772", "9957:fr93784301772"}},
		{"78430177200025", []string{"0009:78430177200025", "0002:784301772", "0225:784301772", "9957:fr93784301772"}},
		{"SIRET 784 301 772 00025", []string{"0009:78430177200025", "0002:784301772", "0225:784301772", "9957:fr93784301772"}},
		{"FR93784301772", []string{"9957:fr93784301772", "0002:784301772", "0225:784301772"}},
		{"TVA FR 93 784 301 772", []string{"9957:fr93784301772", "0002:784301772", "0225:784301772"}},

		// Norway.
		{"923609016 MVA", []string{"0192:923609016"}},
		{"NO923609016MVA", []string{"0192:923609016"}},
		{"NO 923 609 016 MVA", []string{"0192:923609016"}},
		{"NO 923609016", []string{"0192:923609016"}},
		{"Org.nr. 923609016", []string{"0192:923609016"}},
		{"organisasjonsnummer 923609016", []string{"0192:923609016"}},

		// Germany.
		{"DE811152493", []string{"9930:de811152493", "0246:de811152493"}},
		{"USt-IdNr.: DE 811 152 493", []string{"9930:de811152493", "0246:de811152493"}},
		{"UST DE811152493", []string{"9930:de811152493", "0246:de811152493"}},
		{"USA 123456789", nil},

		// GLN.
		{"5790000435975", []string{"0088:5790000435975"}},
		{"GLN 5790000435975", []string{"0088:5790000435975"}},

		// Sweden.
		{"556036-0793", []string{"0007:5560360793"}},
		{"org.nr 556036-0793", []string{"0007:5560360793"}},
		{"SE556036079301", []string{"0007:5560360793"}},

		// Denmark.
		{"DK13585628", []string{"0184:13585628", "0198:dk13585628"}},
		{"CVR 13585628", []string{"0184:13585628", "0198:dk13585628"}},
		{"CVR-nr. 13 58 56 28", []string{"0184:13585628", "0198:dk13585628"}},

		// Finland.
		{"1234567-8", []string{"0216:003712345678"}},
		{"Y-tunnus 1234567-8", []string{"0216:003712345678"}},
		{"FI12345678", []string{"0216:003712345678"}},

		// Italy, Austria, Switzerland, United Kingdom.
		{"IT06363391001", []string{"0211:it06363391001"}},
		{"P.IVA 06363391001", []string{"0211:it06363391001"}},
		{"ATU12345678", []string{"9914:atu12345678"}},
		{"UID ATU12345678", []string{"9914:atu12345678"}},
		{"CHE-116.281.710", []string{"0183:che116281710", "9927:che116281710"}},
		{"CHE-116.281.710 MWST", []string{"0183:che116281710", "9927:che116281710"}},
		{"GB123456789", []string{"9932:gb123456789"}},
		{"GB 123 4567 89", []string{"9932:gb123456789"}},

		// Other EU VAT prefixes map to their 99xx scheme with the prefix kept.
		{"IE6388047V", []string{"9935:ie6388047v"}},
		{"PL5260250274", []string{"9945:pl5260250274"}},
		{"PT501964843", []string{"9946:pt501964843"}},
		{"EL094259216", []string{"9933:el094259216"}},
		{"GR094259216", []string{"9933:gr094259216"}},
		{"HR33392005961", []string{"9934:hr33392005961"}},
		{"HU12892312", []string{"9910:hu12892312"}},
		{"RO18547290", []string{"9947:ro18547290"}},
		{"SI50223054", []string{"9949:si50223054"}},
		{"SK2020317068", []string{"9950:sk2020317068", "0245:2020317068"}},
		{"CZ25123891", []string{"9929:cz25123891"}},
		{"ESB58378431", []string{"9920:esb58378431"}},
		{"LU26375245", []string{"9938:lu26375245"}},
		{"EE100931558", []string{"9931:ee100931558"}},
		{"LT100001919017", []string{"9937:lt100001919017"}},
		{"LV40003521600", []string{"9939:lv40003521600", "0218:40003521600"}},

		// Elsewhere.
		{"51 824 753 556", []string{"0151:51824753556", "0211:it51824753556"}},
		{"ABN 51 824 753 556", []string{"0151:51824753556"}},
		{"001GPB6A9XPE8XJICC14", []string{"0199:001gpb6a9xpe8xjicc14"}},
		{"OM1100003554", []string{"0248:om1100003554"}},
		{"00000001820029336000", []string{"0190:00000001820029336000"}},

		// Already-formed participant ids are returned as they are.
		{"0208:0677424046", []string{"0208:0677424046"}},
		{"iso6523-actorid-upis::0208:0677424046", []string{"0208:0677424046"}},
		{"9925:BE0677424046", []string{"9925:be0677424046"}},
		{"1234:unknown", []string{"1234:unknown"}},

		// Ambiguous bare digits: each plausible country, check-digit holders first.
		{"923609016", []string{"0192:923609016", "0002:923609016", "0225:923609016", "9957:fr41923609016"}},
		{"784301772", []string{"0002:784301772", "0225:784301772", "9957:fr93784301772", "0192:784301772"}},
		{"0677424046", []string{"0208:0677424046", "9925:be0677424046", "0007:0677424046"}},
		{"5560360793", []string{"0007:5560360793"}},
		{"13585628", []string{"0184:13585628", "0198:dk13585628", "0106:13585628"}},
		{"54441587", []string{"0106:54441587", "0184:54441587", "0198:dk54441587"}},

		// Junk.
		{"", nil},
		{"   ", nil},
		{"hello world", nil},
		{"Acme Corporation", nil},
		{"0208:abc;rm -rf /", nil},
		{"<script>alert(1)</script>", nil},
		{"12", nil},
		{"BE", nil},
		{"VAT", nil},
		{"ÄÖÜ 123456789", nil},
		{strings.Repeat("1", MaxCandidateInput+1), nil},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Candidates(tt.in)
			if got == nil {
				t.Fatal("Candidates returned nil")
			}
			if ids := candidateIDs(got); !slices.Equal(ids, tt.want) && !(len(ids) == 0 && len(tt.want) == 0) {
				t.Fatalf("Candidates(%q) = %q, want %q", tt.in, ids, tt.want)
			}
			for _, c := range got {
				if p, err := ParseParticipantID(c.ID.String()); err != nil || p != c.ID {
					t.Errorf("candidate %v does not parse back: %v", c.ID, err)
				}
				if c.Description == "" {
					t.Errorf("candidate %v has no description", c.ID)
				}
				if s, ok := LookupScheme(c.ID.ICD); ok != (c.SchemeID != "") || ok && s.ID != c.SchemeID {
					t.Errorf("candidate %v has scheme id %q", c.ID, c.SchemeID)
				}
				if c.Check != CheckDigit(c.ID.ICD, c.ID.Value) {
					t.Errorf("candidate %v check %v, CheckDigit says otherwise", c.ID, c.Check)
				}
			}
		})
	}
}

func TestCandidatesDetails(t *testing.T) {
	got := Candidates("BE 0677.424.046")
	want := []Candidate{
		{ID: ParticipantID{"0208", "0677424046"}, SchemeID: "BE:EN", Description: "Belgian enterprise number", Check: CheckValid},
		{ID: ParticipantID{"9925", "be0677424046"}, SchemeID: "BE:VAT", Description: "Belgian VAT number", Check: CheckValid},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Candidates = %+v, want %+v", got, want)
	}
	if c := Candidates("BE0123456789"); len(c) == 0 || c[0].Check != CheckInvalid {
		t.Errorf("a wrong Belgian check digit should be reported, got %+v", c)
	}
	if c := Candidates("54441587"); len(c) < 2 || c[1].Check != CheckSoftInvalid {
		t.Errorf("a failed DK CVR check should be soft, got %+v", c)
	}
}

func TestCandidatesAreDeduplicated(t *testing.T) {
	for _, in := range []string{"0677424046", "923609016", "78430177200025", "13585628", "LEI 00000001820029336000"} {
		seen := map[ParticipantID]bool{}
		for _, c := range Candidates(in) {
			if seen[c.ID] {
				t.Errorf("Candidates(%q) lists %v twice", in, c.ID)
			}
			seen[c.ID] = true
		}
	}
}

// TestLabelCountry: the words Candidates reads before a number are asked of one table,
// with the one country each names (nlq reads numbers in questions through it).
func TestLabelCountry(t *testing.T) {
	tests := []struct {
		label, country string
		ok             bool
	}{
		{"NIF", "ES", true},
		{"n.i.f", "ES", true},
		{"cif", "ES", true},
		{"NIE", "ES", true},
		{"nip", "PL", true},
		{"N.I.P", "PL", true},
		{"codice fiscale", "IT", true},
		{"Codice Fiscale", "IT", true},
		{"c.f", "IT", true},
		{"CF", "IT", true},
		{"foretaksnummer", "NO", true},
		{"organisasjonsnr", "NO", true},
		{"CVR-nummer", "DK", true},
		{"alv-numero", "FI", true},
		{"ALV-nro", "FI", true},
		{"KvK", "NL", true},
		{"siren", "FR", true},
		{"MVA", "NO", true},
		{"ABN", "AU", true},
		// Labels of several countries or of none name no one country.
		{"VAT", "", true},
		{"org.nr", "", true},
		{"BTW", "", true},
		{"GLN", "", true},
		// Not labels: other words, a label's prefix or a longer word.
		{"", "", false},
		{"codice", "", false},
		{"NIFF", "", false},
		{"company", "", false},
		{"BE", "", false},
	}
	for _, tt := range tests {
		cc, ok := LabelCountry(tt.label)
		if cc != tt.country || ok != tt.ok {
			t.Errorf("LabelCountry(%q) = %q, %v; want %q, %v", tt.label, cc, ok, tt.country, tt.ok)
		}
	}
}
