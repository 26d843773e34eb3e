package nlq

import "testing"

// TestSchemeWordsArePeppols: a number after a scheme word is read with the country
// package peppol's table of number names gives the word (peppol.LabelCountry), the one
// table the bulk check and REST read too.
func TestSchemeWordsArePeppols(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q, subject, country, first string
	}{
		{"Is NIF B15147895 on Peppol?", "NIF B15147895", "ES", "9920:esb15147895"},
		{"¿Puede recibir facturas la empresa con N.I.F. B15147895?", "N.I.F. B15147895", "ES", "9920:esb15147895"},
		{"Czy firma o NIP 526-000-12-46 odbiera e-faktury?", "NIP 526-000-12-46", "PL", "9945:pl5260001246"},
		{"La ditta con codice fiscale 06363391001 è su Peppol?", "codice fiscale 06363391001", "IT", "0211:it06363391001"},
		{"Kan foretaksnummer 923 609 016 motta faktura?", "foretaksnummer 923 609 016", "NO", "0192:923609016"},
		{"Modtager CVR-nummer 54441587 fakturaer?", "CVR-nummer 54441587", "DK", "0184:54441587"},
		// ALV is in peppol's table and was missing from nlq's own copy.
		{"Onko ALV 1234567-8 Peppolissa?", "ALV 1234567-8", "FI", "0216:003712345678"},
		// Labels findNumber reads, or that end in a question word, are left to it.
		{"Is KvK 54441587 on Peppol?", "KvK 54441587", "", "0106:54441587"},
		{"Who is enterprise number 923 609 016?", "923 609 016", "", "0192:923609016"},
	}
	for _, tt := range tests {
		p := RulePlanner{}.Plan(tt.q)
		ids := numberCandidates(p.Subject, p.Country)
		first := ""
		if len(ids) > 0 {
			first = ids[0].String()
		}
		if p.Subject != tt.subject || p.Country != tt.country || first != tt.first {
			t.Errorf("%q: subject %q, country %q, first id %q; want %q, %q, %q", tt.q, p.Subject, p.Country, first, tt.subject, tt.country, tt.first)
		}
	}
}
