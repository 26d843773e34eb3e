package directory

import (
	"fmt"
	"strings"
)

func fmtGoSyntax(v any) string { return fmt.Sprintf("%#v", v) }

// realisticPage builds a Directory answer with n matches shaped like production data:
// multilingual names, five doc types, identifiers, websites, a contact and CRLF text.
func realisticPage(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `{"version":"1.0","total-result-count":%d,"used-result-count":%d,"result-page-index":0,"result-page-count":%d,"first-result-index":0,"last-result-index":%d,"query-terms":"q=bench","creation-dt":"2026-09-08T20:53:31.064151933Z","matches":[`, n*3, n, n, n-1)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"participantID":{"scheme":"iso6523-actorid-upis","value":"0208:%010d"},"docTypes":[`, 100000000+i)
		for j := range 5 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"scheme":"busdox-docid-qns","value":"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0:variant%d::2.1"}`, j)
		}
		fmt.Fprintf(&b, `],"entities":[{"name":[{"name":"Bench Company %d NV","language":"nl"},{"name":"Bench Société %d SA","language":"fr"}],"countryCode":"BE","geoInfo":"Rue de l'Exemple %d, 1000 Bruxelles","identifiers":[{"scheme":"VAT","value":"BE%010d"}],"websites":["https://bench%d.example"],"contacts":[{"type":"Support","name":"Person %d","phone":"+32 2 000 00 %02d","email":"person%d@bench.example"}],"additionalInfo":"Line one.\r\nLine two.","regDate":"2020-01-%02d"}]}`,
			i, i, i, 100000000+i, i, i, i%100, i, i%28+1)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}
