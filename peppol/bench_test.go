package peppol

import "testing"

func BenchmarkParseParticipantID(b *testing.B) {
	for b.Loop() {
		if _, err := ParseParticipantID("iso6523-actorid-upis::0208:0677424046"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPathEscape(b *testing.B) {
	const doctype = "busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1"
	for b.Loop() {
		_ = PathEscape(doctype)
	}
}

func BenchmarkCandidates(b *testing.B) {
	inputs := []string{"BE 0677.424.046", "923609016", "SIRET 784 301 772 00025", "CHE-116.281.710 MWST", "0208:0677424046"}
	for b.Loop() {
		for _, in := range inputs {
			if len(Candidates(in)) == 0 {
				b.Fatal(in)
			}
		}
	}
}

func BenchmarkCheckDigit(b *testing.B) {
	for b.Loop() {
		_ = CheckDigit("0208", "0677424046")
		_ = CheckDigit("0199", "001gpb6a9xpe8xjicc14")
		_ = CheckDigit("0088", "5790000435975")
	}
}

func BenchmarkValidateParticipantID(b *testing.B) {
	id := ParticipantID{ICD: "0208", Value: "0677424046"}
	for b.Loop() {
		if !ValidateParticipantID(id).OK() {
			b.Fatal("not ok")
		}
	}
}
