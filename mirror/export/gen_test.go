package export

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// This file writes synthetic exports for the tests and benchmarks: cards from a seeded
// generator, written as XML v3, XML v2 or JSON v2 the way the Directory writes them, or with
// the syntax variations a conforming XML writer may use (genStyle).

var genDocTypes = []DocType{
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", DisplayName: "Peppol BIS Billing UBL Invoice V3", State: "act"},
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", DisplayName: "Peppol BIS Billing UBL Credit Note V3", State: "act"},
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:fdc:peppol.eu:poacc:trns:mlr:3::2.1", DisplayName: "Peppol Message Level Response transaction 3.0", State: "act"},
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1", DisplayName: "Peppol Order transaction 3.0", State: "act"},
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:aunz:3.0::2.1", DisplayName: "AU-NZ Peppol BIS Billing 3.0 Invoice", State: "dep"},
	{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1", DisplayName: "XRechnung UBL Invoice V3.0", State: "act"},
	{Scheme: "busdox-docid-qns", Value: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100::CrossIndustryInvoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::D16B", DisplayName: "XRechnung UN/CEFACT Cross Industry Invoice V3.0", State: "act"},
	{Scheme: "peppol-doctype-wildcard", Value: "urn:peppol:pint:billing-1@jp-1::2.1", NonStandard: true},
}

var genWords = []string{"Nordic", "Bygg", "Société", "Générale", "Müller", "Consulting", "Holding", "Services", "Transport", "Ørsted", "Øst", "Data", "Group", "Solutions", "Technik", "Straße", "& Co", "Limited", "Pty", "Ltd", "AS", "AB", "GmbH", "BV", "Sàrl", "Ελλάδα", "日本", "<Test>", "\"Quoted\"", "O'Brien"}

var genCountries = []string{"BE", "NO", "AU", "FR", "SE", "NL", "SG", "DK", "NZ", "IT", "UK", "XX", "00", "DE", "GB"}

// genCards returns n cards from seed. Like the real export most cards have one entity with one
// name; some have more, and optional fields vary.
func genCards(seed uint64, n int) []Card {
	r := rand.New(rand.NewPCG(seed, 8))
	cards := make([]Card, n)
	for i := range cards {
		c := &cards[i]
		schemes := []string{"0208", "0192", "0088", "0007", "9925", "0151", "9932"}
		c.Participant = ID{Scheme: "iso6523-actorid-upis", Value: fmt.Sprintf("%s:%010d", schemes[r.IntN(len(schemes))], r.Uint64()%1e10)}
		ne := 1
		if r.IntN(20) == 0 {
			ne = 2 + r.IntN(2)
		}
		for range ne {
			var e Entity
			nn := 1
			if r.IntN(10) == 0 {
				nn = 2
			}
			for k := range nn {
				var name []string
				for range 1 + r.IntN(4) {
					name = append(name, genWords[r.IntN(len(genWords))])
				}
				lang := ""
				if k > 0 || r.IntN(4) == 0 {
					lang = []string{"en", "nl", "fr", "de", "no"}[r.IntN(5)]
				}
				e.Names = append(e.Names, Name{Name: strings.Join(name, " "), Language: lang})
			}
			e.CountryCode = genCountries[r.IntN(len(genCountries))]
			if r.IntN(3) == 0 {
				e.GeoInfo = genWords[r.IntN(len(genWords))] + " " + fmt.Sprint(1000+r.IntN(9000))
			}
			for range r.IntN(3) {
				e.Identifiers = append(e.Identifiers, ID{Scheme: []string{"VAT", "OrgNr", "0208", "LEI"}[r.IntN(4)], Value: fmt.Sprintf("%s%09d", e.CountryCode, r.IntN(1e9))})
			}
			if r.IntN(5) == 0 {
				e.Websites = append(e.Websites, fmt.Sprintf("https://www.example-%d.com", r.IntN(1e6)))
			}
			if r.IntN(6) == 0 {
				e.AdditionalInfo = "Additional information about " + e.Names[0].Name
			}
			if r.IntN(4) != 0 {
				e.RegDate = fmt.Sprintf("20%02d-%02d-%02d", 15+r.IntN(11), 1+r.IntN(12), 1+r.IntN(28))
			}
			c.Entities = append(c.Entities, e)
		}
		for k, dt := range genDocTypes {
			if k < 2 || r.IntN(3) == 0 {
				c.DocTypes = append(c.DocTypes, dt)
			}
		}
	}
	return cards
}

// genStyle varies how an XML export is written without changing its cards.
type genStyle struct {
	prefix      string // element prefix, e.g. "bc" for <bc:entity>
	singleQuote bool
	crlf        bool
	charRefs    bool // write non-ASCII letters as &#x…; references
	cdata       bool // text elements as CDATA
	comments    bool // comments and processing instructions between elements
	indent      bool
	noDocTypes  bool
	v2          bool
}

// writeXML writes cards as an XML export.
func writeXML(cards []Card, st genStyle) []byte {
	var b bytes.Buffer
	nl := "\n"
	if st.crlf {
		nl = "\r\n"
	}
	ind := func(n int) {
		if st.indent {
			b.WriteString(nl)
			b.WriteString(strings.Repeat("  ", n))
		}
	}
	q := `"`
	if st.singleQuote {
		q = "'"
	}
	el := func(name string) string {
		if st.prefix != "" {
			return st.prefix + ":" + name
		}
		return name
	}
	esc := func(s string) string {
		var o strings.Builder
		for _, r := range s {
			switch {
			case r == '&':
				o.WriteString("&amp;")
			case r == '<':
				o.WriteString("&lt;")
			case r == '>':
				o.WriteString("&gt;")
			case r == '"':
				o.WriteString("&quot;")
			case r == '\'':
				o.WriteString("&apos;")
			case st.charRefs && r > 127:
				fmt.Fprintf(&o, "&#x%X;", r)
			default:
				o.WriteRune(r)
			}
		}
		return o.String()
	}
	attr := func(name, v string) {
		fmt.Fprintf(&b, " %s=%s%s%s", name, q, esc(v), q)
	}
	text := func(name, v string, depth int) {
		if v == "" {
			return
		}
		ind(depth)
		b.WriteString("<" + el(name) + ">")
		if st.cdata && !strings.Contains(v, "]]>") {
			b.WriteString("<![CDATA[" + v + "]]>")
		} else {
			b.WriteString(esc(v))
		}
		b.WriteString("</" + el(name) + ">")
	}
	ns, version := NamespaceXMLv3, "3"
	if st.v2 {
		ns, version = NamespaceXMLv2, "2"
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + nl)
	b.WriteString("<" + el("root"))
	if st.prefix != "" {
		attr("xmlns:"+st.prefix, ns)
	} else {
		attr("xmlns", ns)
	}
	attr("version", version)
	attr("creationdt", "2026-05-01T02:00:00.123Z")
	if !st.v2 {
		attr("codeListSupported", "9.4")
	}
	b.WriteString(">")
	for _, c := range cards {
		if st.comments {
			ind(1)
			b.WriteString("<!-- card " + c.Participant.Value + " -->")
		}
		ind(1)
		b.WriteString("<" + el("businesscard") + ">")
		ind(2)
		b.WriteString("<" + el("participant"))
		attr("scheme", c.Participant.Scheme)
		attr("value", c.Participant.Value)
		b.WriteString("/>")
		for _, e := range c.Entities {
			ind(2)
			b.WriteString("<" + el("entity"))
			attr("countrycode", e.CountryCode)
			b.WriteString(">")
			for _, n := range e.Names {
				ind(3)
				b.WriteString("<" + el("name"))
				attr("name", n.Name)
				if n.Language != "" {
					attr("language", n.Language)
				}
				b.WriteString("/>")
			}
			text("geoinfo", e.GeoInfo, 3)
			for _, id := range e.Identifiers {
				ind(3)
				b.WriteString("<" + el("id"))
				attr("scheme", id.Scheme)
				attr("value", id.Value)
				b.WriteString("/>")
			}
			for _, w := range e.Websites {
				text("website", w, 3)
			}
			if st.comments {
				ind(3)
				b.WriteString("<?pi data?>")
			}
			text("additionalinfo", e.AdditionalInfo, 3)
			text("regdate", e.RegDate, 3)
			ind(2)
			b.WriteString("</" + el("entity") + ">")
		}
		if !st.noDocTypes {
			for _, dt := range c.DocTypes {
				ind(2)
				b.WriteString("<" + el("doctypeid"))
				attr("scheme", dt.Scheme)
				attr("value", dt.Value)
				if dt.NonStandard {
					attr("non-standard", "true")
				} else {
					attr("displayname", dt.DisplayName)
					attr("state", dt.State)
				}
				b.WriteString("/>")
			}
		}
		ind(1)
		b.WriteString("</" + el("businesscard") + ">")
	}
	ind(0)
	b.WriteString("</" + el("root") + ">" + nl)
	return b.Bytes()
}

// writeJSON writes cards as a JSON v2 export.
func writeJSON(cards []Card) []byte {
	type name struct {
		Name string `json:"name"`
		Lang string `json:"lang,omitempty"`
	}
	type entity struct {
		Names          []name   `json:"names"`
		CountryCode    string   `json:"countryCode"`
		GeoInfo        string   `json:"geoinfo,omitempty"`
		Identifiers    []ID     `json:"identifiers,omitempty"`
		WebsiteURIs    []string `json:"websiteURIs,omitempty"`
		AdditionalInfo string   `json:"additionalInfo,omitempty"`
		RegDate        string   `json:"regdate,omitempty"`
	}
	type docType struct {
		Scheme      string `json:"scheme"`
		Value       string `json:"value"`
		DisplayName string `json:"displayName,omitempty"`
		State       string `json:"state,omitempty"`
		NonStandard bool   `json:"nonStandard,omitempty"`
	}
	type card struct {
		PID      string    `json:"pid"`
		Entities []entity  `json:"entities"`
		DocTypes []docType `json:"docTypes,omitempty"`
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":2,"creationdt":"2026-05-01T02:00:00.123Z","participantCount":%d,"codeListSupported":"9.4","bc":[`, len(cards))
	for i, c := range cards {
		jc := card{PID: c.Participant.Scheme + "::" + c.Participant.Value}
		for _, e := range c.Entities {
			je := entity{CountryCode: e.CountryCode, GeoInfo: e.GeoInfo, Identifiers: e.Identifiers, WebsiteURIs: e.Websites, AdditionalInfo: e.AdditionalInfo, RegDate: e.RegDate}
			for _, n := range e.Names {
				je.Names = append(je.Names, name{Name: n.Name, Lang: n.Language})
			}
			jc.Entities = append(jc.Entities, je)
		}
		for _, dt := range c.DocTypes {
			jc.DocTypes = append(jc.DocTypes, docType(dt))
		}
		if i > 0 {
			b.WriteByte(',')
		}
		buf, err := json.Marshal(jc)
		if err != nil {
			panic(err)
		}
		b.Write(buf)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}

func gzipBytes(tb testing.TB, p []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(p); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
