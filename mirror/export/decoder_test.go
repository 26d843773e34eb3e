package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/peppolgate/peppolgate/internal/fixtures"
)

const (
	v3Open = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<root xmlns="urn:peppol:schema:pd:businesscard-generic:2025:03" version="3" creationdt="2025-11-10T02:24:17.506Z" codeListSupported="9.4">`
	v2Open = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<root xmlns="http://www.peppol.eu/schema/pd/businesscard-generic/201907/" version="2" creationdt="2025-09-29T19:52:50.696Z">`
)

func v3(body string) string { return v3Open + body + "</root>\n" }

// card builds a card with one entity and one name, the common case.
func card(pid, country, name string) Card {
	scheme, value, _ := strings.Cut(pid, "::")
	return Card{Participant: ID{Scheme: scheme, Value: value}, Entities: []Entity{{Names: []Name{{Name: name}}, CountryCode: country}}}
}

func participant(v string) string {
	return `<participant scheme="iso6523-actorid-upis" value="` + v + `"/>`
}

var invoice = DocType{Scheme: "busdox-docid-qns", Value: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1", DisplayName: "Peppol BIS Billing UBL Invoice V3", State: "act"}

const invoiceTag = `<doctypeid scheme="busdox-docid-qns" value="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1" displayname="Peppol BIS Billing UBL Invoice V3" state="act"/>`

type decodeCase struct {
	name  string
	doc   string
	cards []Card
	recs  []RecordError // the record errors, in order (Reason compared by substring)
	fatal string        // substring of the fatal error; "" for a clean io.EOF
}

var xmlCases = []decodeCase{
	{
		// A card's strings are the card owner's words: cleaned of control and format
		// characters (bidi overrides, zero-width characters), one line except the
		// additional information, capped (docs/ARCHITECTURE.md §6).
		name: "third-party text cleaned and capped",
		doc: v3(`<businesscard>` + participant("0088:5798000000001") + `<entity countrycode="D&#x200B;K">
				<name name="Acme &#x202E;txt.exe&#x202C; Corp" language="d&#x200E;a"/><name name="&#x200B;&#x2066;"/><name name="` + strings.Repeat("N", 5000) + `"/>
				<geoinfo>Line&#10;two&#9;tab&#x2066;</geoinfo><id scheme="V&#x200F;AT" value="BE&#x202E;1"/><website>https://x.example/&#x202E;exe</website>
				<additionalinfo>One&#x202E; line.&#13;&#10;&#13;&#10;&#13;&#10;Two&#x7F; lines.</additionalinfo></entity>
				<doctypeid scheme="busdox-docid-qns" value="urn:x&#x202E;y" displayname="N&#x200B;ame" state="act"/></businesscard>` +
			`<businesscard>` + participant("0088:2") + `<entity countrycode="NO"><name name="&#x202E;&#x200B; "/></entity></businesscard>`),
		cards: []Card{{
			Participant: ID{"iso6523-actorid-upis", "0088:5798000000001"},
			Entities: []Entity{{Names: []Name{{"Acme txt.exe Corp", "da"}, {strings.Repeat("N", 999) + "…", ""}}, CountryCode: "DK", GeoInfo: "Line two tab",
				Identifiers: []ID{{"VAT", "BE1"}}, Websites: []string{"https://x.example/exe"}, AdditionalInfo: "One line.\n\nTwo lines."}},
			DocTypes: []DocType{{Scheme: "busdox-docid-qns", Value: "urn:xy", DisplayName: "Name", State: "act"}},
		}},
		recs: []RecordError{{Index: 1, Participant: "iso6523-actorid-upis::0088:2", Reason: "entity without a name"}},
	},
	{
		name: "all fields, contacts dropped",
		doc: v3(`<businesscard>` + participant("0088:5798000000001") + `
			<entity countrycode="DK">
				<name name="Nordic Bygg A/S" language="da"/>
				<geoinfo>Aarhus</geoinfo>
				<id scheme="DK:CVR" value="12345678"/>
				<website>https://nordic.example</website>
				<contact type="sales" name="Jens Jensen" phone="+45 1234" email="jens@example.dk"/>
				<additionalinfo>Builders</additionalinfo>
				<regdate>2021-01-04</regdate>
			</entity>` + invoiceTag + `
			<doctypeid scheme="peppol-doctype-wildcard" value="urn:peppol:pint:billing-1@jp-1::2.1" non-standard="true"/>
		</businesscard>`),
		cards: []Card{{
			Participant: ID{"iso6523-actorid-upis", "0088:5798000000001"},
			Entities: []Entity{{Names: []Name{{"Nordic Bygg A/S", "da"}}, CountryCode: "DK", GeoInfo: "Aarhus",
				Identifiers: []ID{{"DK:CVR", "12345678"}}, Websites: []string{"https://nordic.example"}, AdditionalInfo: "Builders", RegDate: "2021-01-04"}},
			DocTypes: []DocType{invoice, {Scheme: "peppol-doctype-wildcard", Value: "urn:peppol:pint:billing-1@jp-1::2.1", NonStandard: true}},
		}},
	},
	{
		name: "country codes UK XX 00 kept, lower case upper-cased",
		doc: v3(`<businesscard>` + participant("9932:1") + `<entity countrycode="UK"><name name="A"/></entity></businesscard>` +
			`<businesscard>` + participant("0106:2") + `<entity countrycode="XX"><name name="B"/></entity></businesscard>` +
			`<businesscard>` + participant("0106:3") + `<entity countrycode="00"><name name="C"/></entity></businesscard>` +
			`<businesscard>` + participant("0208:4") + `<entity countrycode=" be "><name name="D"/></entity></businesscard>`),
		cards: []Card{card("iso6523-actorid-upis::9932:1", "UK", "A"), card("iso6523-actorid-upis::0106:2", "XX", "B"),
			card("iso6523-actorid-upis::0106:3", "00", "C"), card("iso6523-actorid-upis::0208:4", "BE", "D")},
	},
	{
		name: "whitespace around values trimmed, runs inside made one space",
		doc: v3(`<businesscard><participant scheme=" iso6523-actorid-upis " value="  0208:0123456749 "/>
			<entity countrycode="BE"><name name="  Société   Générale "/>
			<id scheme="VAT" value=" BE 0123.456.749  "/><geoinfo>
			  Brussels
			</geoinfo></entity></businesscard>`),
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "0208:0123456749"},
			Entities: []Entity{{Names: []Name{{"Société Générale", ""}}, CountryCode: "BE", GeoInfo: "Brussels", Identifiers: []ID{{"VAT", "BE 0123.456.749"}}}}}},
	},
	{
		name: "empty attributes: empty id values dropped, empty contact ignored",
		doc: v3(`<businesscard>` + participant("9932:09353226") + `<entity countrycode="UK"><name name="NOVOGENE (UK) COMPANY LIMITED" language=""/>
			<id scheme="VAT" value=""/><id scheme="OrgNr" value="GB09353226"/><id scheme="X" value="   "/>
			<contact type="" name="" phone="" email=""/><website></website><geoinfo/></entity></businesscard>`),
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "9932:09353226"},
			Entities: []Entity{{Names: []Name{{"NOVOGENE (UK) COMPANY LIMITED", ""}}, CountryCode: "UK", Identifiers: []ID{{"OrgNr", "GB09353226"}}}}}},
	},
	{
		name: "several entities and names, empty names dropped",
		doc: v3(`<businesscard>` + participant("0192:1") + `
			<entity countrycode="NO"><name name="Fjellheim AS" language="no"/><name name="Fjellheim Ltd" language="en"/><name name=""/></entity>
			<entity countrycode="SE"><name name="Fjellheim AB"/><regdate>2020-02-02</regdate></entity>
		</businesscard>`),
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "0192:1"}, Entities: []Entity{
			{Names: []Name{{"Fjellheim AS", "no"}, {"Fjellheim Ltd", "en"}}, CountryCode: "NO"},
			{Names: []Name{{"Fjellheim AB", ""}}, CountryCode: "SE", RegDate: "2020-02-02"},
		}}},
	},
	{
		name: "references, CDATA, comments, PIs, CRLF",
		doc: "<?xml version=\"1.0\"?>\r\n<!-- export -->\r\n<!DOCTYPE root [ <!ELEMENT root ANY> ]>\r\n" +
			`<root xmlns="urn:peppol:schema:pd:businesscard-generic:2025:03">` + "\r\n" +
			`<businesscard><?pi x?><participant scheme="iso6523-actorid-upis" value="0088:&#x31;23"/>` + "\r\n" +
			`<entity countrycode="FR"><!-- c --><name name="Soci&#xE9;t&#233; B&amp;B &lt;SA&gt; &quot;x&quot; &apos;y&apos;"/>` + "\r\n" +
			`<geoinfo>Line 1` + "\r\n" + `Line 2 &amp; <![CDATA[<raw> & ]]>end<!-- gone --><?pi?></geoinfo>` +
			`<additionalinfo><![CDATA[]]></additionalinfo></entity></businesscard></root>` + "\r\n",
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "0088:123"}, Entities: []Entity{{
			Names: []Name{{`Société B&B <SA> "x" 'y'`, ""}}, CountryCode: "FR", GeoInfo: "Line 1 Line 2 & <raw> & end"}}}},
	},
	{
		name: "unknown elements and attributes ignored",
		doc: v3(`<extension><businesscard>` + participant("0088:nested") + `</businesscard></extension>
			<businesscard future="1"><participant scheme="iso6523-actorid-upis" value="0088:1" extra="x"/><logo><name name="not an entity"/></logo>
			<entity countrycode="DE" size="big"><name name="Müller GmbH" language="de" script="Latn"/><geoinfo>Berlin<sub>ignored</sub></geoinfo>
			<address><street>x</street></address></entity><signature/></businesscard>`),
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "0088:1"}, Entities: []Entity{{Names: []Name{{"Müller GmbH", "de"}}, CountryCode: "DE", GeoInfo: "Berlin"}}}},
	},
	{
		name: "namespace prefix and single quotes",
		doc: `<bc:root xmlns:bc='urn:peppol:schema:pd:businesscard-generic:2025:03'><bc:businesscard>` +
			`<bc:participant scheme='iso6523-actorid-upis' value='0088:1'/><bc:entity countrycode='NL'><bc:name name='De &apos;t "Hoek"'/></bc:entity>` +
			`</bc:businesscard></bc:root>`,
		cards: []Card{card("iso6523-actorid-upis::0088:1", "NL", `De 't "Hoek"`)},
	},
	{
		name:  "participant scheme missing, first participant wins",
		doc:   v3(`<businesscard><participant value="0088:1"/><participant scheme="x" value="0088:2"/><entity countrycode="NL"><name name="A"/></entity></businesscard>`),
		cards: []Card{{Participant: ID{Value: "0088:1"}, Entities: []Entity{{Names: []Name{{"A", ""}}, CountryCode: "NL"}}}},
	},
	{
		name: "doc type values with > and references, repeated",
		doc: v3(`<businesscard>` + participant("0088:1") + `<entity countrycode="NL"><name name="A"/></entity>` +
			`<doctypeid scheme="s" value="a>b"/><doctypeid scheme="s" value="a&gt;b"/><doctypeid scheme="s" value="c" state="act" displayname="C &amp; D"/></businesscard>` +
			`<businesscard>` + participant("0088:2") + `<entity countrycode="NL"><name name="B"/></entity>` +
			`<doctypeid scheme="s" value="a>b"/><doctypeid scheme="s" value="a&gt;b"/><doctypeid scheme="s" value="c" state="act" displayname="C &amp; D"/><doctypeid scheme="s" value=""/></businesscard>`),
		cards: []Card{
			{Participant: ID{"iso6523-actorid-upis", "0088:1"}, Entities: []Entity{{Names: []Name{{"A", ""}}, CountryCode: "NL"}},
				DocTypes: []DocType{{Scheme: "s", Value: "a>b"}, {Scheme: "s", Value: "a>b"}, {Scheme: "s", Value: "c", State: "act", DisplayName: "C & D"}}},
			{Participant: ID{"iso6523-actorid-upis", "0088:2"}, Entities: []Entity{{Names: []Name{{"B", ""}}, CountryCode: "NL"}},
				DocTypes: []DocType{{Scheme: "s", Value: "a>b"}, {Scheme: "s", Value: "a>b"}, {Scheme: "s", Value: "c", State: "act", DisplayName: "C & D"}}},
		},
	},
	{
		name:  "empty export",
		doc:   v3(""),
		cards: nil,
	},
	{
		name:  "self-closing root",
		doc:   `<root xmlns="urn:peppol:schema:pd:businesscard-generic:2025:03" version="3"/>`,
		cards: nil,
	},
	{
		name: "malformed cards are skipped and decoding goes on",
		doc: v3(`<businesscard><entity countrycode="NO"><name name="No participant"/></entity></businesscard>` +
			`<businesscard><participant scheme="iso6523-actorid-upis" value=" "/><entity countrycode="NO"><name name="Empty value"/></entity></businesscard>` +
			`<businesscard>` + participant("0192:3") + `</businesscard>` +
			`<businesscard>` + participant("0192:4") + `<entity countrycode="NO"><name name=" "/></entity></businesscard>` +
			`<businesscard>` + participant("0192:5") + `<entity countrycode="NO"><name name="A"/></entity><entity countrycode="NO"/></businesscard>` +
			`<businesscard>` + participant("0192:6") + `<entity countrycode="NO"><name name="Bad &nbsp; ref"/></entity></businesscard>` +
			`<businesscard>` + participant("0192:7") + `<entity countrycode="NO"><name name="Mismatch"/></wrong></entity></businesscard>` +
			`<businesscard/>` +
			`<businesscard>` + participant("0192:9") + `<entity countrycode="NO"><name name="Good"/></entity></businesscard>`),
		cards: []Card{card("iso6523-actorid-upis::0192:9", "NO", "Good")},
		recs: []RecordError{
			{Index: 0, Reason: "no participant"},
			{Index: 1, Participant: "iso6523-actorid-upis::", Reason: "participant without a value"},
			{Index: 2, Participant: "iso6523-actorid-upis::0192:3", Reason: "no entity"},
			{Index: 3, Participant: "iso6523-actorid-upis::0192:4", Reason: "entity without a name"},
			{Index: 4, Participant: "iso6523-actorid-upis::0192:5", Reason: "entity without a name"},
			{Index: 5, Participant: "iso6523-actorid-upis::0192:6", Reason: "invalid entity reference &nbsp;"},
			{Index: 6, Participant: "iso6523-actorid-upis::0192:7", Reason: "end tag </wrong> without start tag"},
			{Index: 7, Reason: "no participant"},
		},
	},
	{
		name: "XML v2: deprecated doc type, phonenumber contact",
		doc: v2Open + `<businesscard><participant scheme="iso6523-actorid-upis" value="0007:5590700299" />
			<entity countrycode="SE"><name name="Söderorts Bygg &amp; Betong AB" /><id scheme="0007" value="5590700299" />
			<contact type="" name="" phonenumber="" email="" /><regdate>2022-12-20</regdate></entity>
			<doctypeid scheme="busdox-docid-qns" value="urn:x" deprecated="true"/><doctypeid scheme="busdox-docid-qns" value="urn:y" deprecated="false"/>
			</businesscard></root>`,
		cards: []Card{{Participant: ID{"iso6523-actorid-upis", "0007:5590700299"}, Entities: []Entity{{
			Names: []Name{{"Söderorts Bygg & Betong AB", ""}}, CountryCode: "SE", Identifiers: []ID{{"0007", "5590700299"}}, RegDate: "2022-12-20"}},
			DocTypes: []DocType{{Scheme: "busdox-docid-qns", Value: "urn:x", State: "dep"}, {Scheme: "busdox-docid-qns", Value: "urn:y"}}}},
	},
	{
		name: "root closed inside a card",
		doc:  v3Open + `<businesscard>` + participant("0192:1") + `<entity countrycode="NO"><name name="A"/></root>`,
		recs: []RecordError{{Index: 0, Participant: "iso6523-actorid-upis::0192:1", Reason: "end tag </root> does not match <entity>"}},
	},
	{
		name:  "truncated inside a card",
		doc:   v3Open + `<businesscard>` + participant("0192:1") + `<entity countrycode="NO"><name name="A"/>`,
		fatal: "unexpected EOF",
	},
	{
		name:  "truncated inside a tag",
		doc:   v3Open + `<businesscard>` + participant("0192:1") + `<entity countrycode="N`,
		fatal: "unexpected EOF",
	},
	{
		name:  "root not closed",
		doc:   v3Open + `<businesscard>` + participant("0192:1") + `<entity countrycode="NO"><name name="A"/></entity></businesscard>`,
		cards: []Card{card("iso6523-actorid-upis::0192:1", "NO", "A")},
		fatal: "unexpected EOF",
	},
	{
		name:  "broken tag syntax is fatal",
		doc:   v3(`<businesscard>` + participant("0192:1") + `<entity countrycode=NO><name name="A"/></entity></businesscard>`),
		fatal: "unquoted attribute value",
	},
	{
		name:  "content after the root",
		doc:   v3("") + "<root/>",
		fatal: "content after the root element",
	},
}

func TestDecodeXML(t *testing.T) { runCases(t, xmlCases) }

const jsonOpen = `{"version":2,"creationdt":"2025-11-10T02:24:17.506Z","participantCount":3,"codeListSupported":"9.4","bc":[`

var jsonCases = []decodeCase{
	{
		name: "third-party text cleaned and capped",
		doc: jsonOpen + `{"pid":"iso6523-actorid-upis::0088:5798000000001","entities":[{"names":[{"name":"Acme \u202etxt.exe\u202c Corp","lang":"d\u200ea"},{"name":"\u200b\u2066"},{"name":"` + strings.Repeat("N", 5000) + `"}],
			"countryCode":"D\u200bK","geoinfo":"Line\ntwo\ttab\u2066","identifiers":[{"scheme":"V\u200fAT","value":"BE\u202e1"}],"websiteURIs":["https://x.example/\u202eexe"],
			"additionalInfo":"One\u202e line.\r\n\r\n\r\nTwo\u007f lines."}],"docTypes":[{"scheme":"busdox-docid-qns","value":"urn:x\u202ey","displayName":"N\u200bame","state":"act"}]},
			{"pid":"iso6523-actorid-upis::0088:2","entities":[{"names":[{"name":"\u202e\u200b "}],"countryCode":"NO"}]}]}`,
		cards: []Card{{
			Participant: ID{"iso6523-actorid-upis", "0088:5798000000001"},
			Entities: []Entity{{Names: []Name{{"Acme txt.exe Corp", "da"}, {strings.Repeat("N", 999) + "…", ""}}, CountryCode: "DK", GeoInfo: "Line two tab",
				Identifiers: []ID{{"VAT", "BE1"}}, Websites: []string{"https://x.example/exe"}, AdditionalInfo: "One line.\n\nTwo lines."}},
			DocTypes: []DocType{{Scheme: "busdox-docid-qns", Value: "urn:xy", DisplayName: "Name", State: "act"}},
		}},
		recs: []RecordError{{Index: 1, Participant: "iso6523-actorid-upis::0088:2", Reason: "entity without a name"}},
	},
	{
		name: "all fields, contacts dropped",
		doc: jsonOpen + `{"pid":"iso6523-actorid-upis::0088:5798000000001","entities":[{"names":[{"name":"Nordic Bygg A/S","lang":"da"}],"countryCode":"DK","geoinfo":"Aarhus",
			"identifiers":[{"scheme":"DK:CVR","value":"12345678"}],"websiteURIs":["https://nordic.example"],"contacts":[{"type":"sales","name":"Jens","phone":"1","email":"j@x"}],
			"additionalInfo":"Builders","regdate":"2021-01-04"}],
			"docTypes":[{"scheme":"busdox-docid-qns","value":"` + invoice.Value + `","displayName":"Peppol BIS Billing UBL Invoice V3","state":"act"},
			{"scheme":"peppol-doctype-wildcard","value":"urn:peppol:pint:billing-1@jp-1::2.1","nonStandard":true}]}]}`,
		cards: []Card{{
			Participant: ID{"iso6523-actorid-upis", "0088:5798000000001"},
			Entities: []Entity{{Names: []Name{{"Nordic Bygg A/S", "da"}}, CountryCode: "DK", GeoInfo: "Aarhus",
				Identifiers: []ID{{"DK:CVR", "12345678"}}, Websites: []string{"https://nordic.example"}, AdditionalInfo: "Builders", RegDate: "2021-01-04"}},
			DocTypes: []DocType{invoice, {Scheme: "peppol-doctype-wildcard", Value: "urn:peppol:pint:billing-1@jp-1::2.1", NonStandard: true}},
		}},
	},
	{
		name: "quirks: country codes, whitespace, empty values, several entities and names, missing fields",
		doc: jsonOpen + `{"pid":" iso6523-actorid-upis::0208:0123456749 ","entities":[{"names":[{"name":"  Société   Générale "},{"name":""}],"countryCode":"uk",
			"identifiers":[{"scheme":"VAT","value":""},{"scheme":"VAT","value":" BE 0123 "}],"contacts":[{"type":"","name":"","phone":"","email":""}]},
			{"names":[{"name":"B","lang":"fr"}],"countryCode":"00","geoinfo":null}]},
			{"pid":"iso6523-actorid-upis::0106:1","entities":[{"names":[{"name":"X"}],"countryCode":"XX"}],"docTypes":[]}]}`,
		cards: []Card{
			{Participant: ID{"iso6523-actorid-upis", "0208:0123456749"}, Entities: []Entity{
				{Names: []Name{{"Société Générale", ""}}, CountryCode: "UK", Identifiers: []ID{{"VAT", "BE 0123"}}},
				{Names: []Name{{"B", "fr"}}, CountryCode: "00"}}},
			card("iso6523-actorid-upis::0106:1", "XX", "X"),
		},
	},
	{
		name: "header after bc, unknown keys",
		doc: `{"bc":[{"pid":"a::1","entities":[{"names":[{"name":"N"}],"countryCode":"NO"}],"future":{"x":[1,2]}}],` +
			`"version":2,"participantCount":1,"extra":[1,{"a":2}]}`,
		cards: []Card{card("a::1", "NO", "N")},
	},
	{
		name: "pid without scheme",
		doc:  jsonOpen + `{"pid":"0088:1","entities":[{"names":[{"name":"N"}]}]}]}`,
		cards: []Card{{Participant: ID{Value: "0088:1"},
			Entities: []Entity{{Names: []Name{{"N", ""}}}}}},
	},
	{
		name: "repeated doc type arrays, null doc types",
		doc: jsonOpen + `{"pid":"a::1","entities":[{"names":[{"name":"N"}]}],"docTypes":[{"scheme":"s","value":" v ","state":"act"},{"scheme":"s","value":""}]},
			{"pid":"a::2","entities":[{"names":[{"name":"N"}]}],"docTypes":[{"scheme":"s","value":" v ","state":"act"},{"scheme":"s","value":""}]},
			{"pid":"a::3","entities":[{"names":[{"name":"N"}]}],"docTypes":null}]}`,
		cards: []Card{
			{Participant: ID{"a", "1"}, Entities: []Entity{{Names: []Name{{"N", ""}}}}, DocTypes: []DocType{{Scheme: "s", Value: "v", State: "act"}}},
			{Participant: ID{"a", "2"}, Entities: []Entity{{Names: []Name{{"N", ""}}}}, DocTypes: []DocType{{Scheme: "s", Value: "v", State: "act"}}},
			{Participant: ID{"a", "3"}, Entities: []Entity{{Names: []Name{{"N", ""}}}}},
		},
	},
	{
		name:  "no cards",
		doc:   `{"version":2,"bc":[]}`,
		cards: nil,
	},
	{
		name: "malformed cards are skipped and decoding goes on",
		doc: jsonOpen + `{"entities":[{"names":[{"name":"N"}]}]},
			{"pid":"iso6523-actorid-upis::","entities":[{"names":[{"name":"N"}]}]},
			{"pid":"a::3"},
			{"pid":"a::4","entities":[{"names":[{"name":" "}]}]},
			{"pid":"a::5","entities":"wrong"},
			{"pid":"a::6","entities":[{"names":[{"name":5}]}]},
			{"pid":"a::6b","entities":[{"names":[{"name":"N"}]}],"docTypes":"x"},
			{"pid":"a::6c","entities":[{"names":[{"name":"N"}]}],"docTypes":[{"value":1}]},
			"not a card", null, 7,
			{"pid":"a::10","entities":[{"names":[{"name":"Good"}]}]}]}`,
		cards: []Card{{Participant: ID{"a", "10"}, Entities: []Entity{{Names: []Name{{"Good", ""}}}}}},
		recs: []RecordError{
			{Index: 0, Reason: "no participant"},
			{Index: 1, Participant: "iso6523-actorid-upis::", Reason: "participant without a value"},
			{Index: 2, Participant: "a::3", Reason: "no entity"},
			{Index: 3, Participant: "a::4", Reason: "entity without a name"},
			{Index: 4, Participant: "a::5", Reason: "wrong JSON type"},
			{Index: 5, Participant: "a::6", Reason: "wrong JSON type"},
			{Index: 6, Participant: "a::6b", Reason: "wrong JSON type"},
			{Index: 7, Participant: "a::6c", Reason: "wrong JSON type"},
			{Index: 8, Reason: "wrong JSON type"},
			{Index: 9, Reason: "no participant"},
			{Index: 10, Reason: "wrong JSON type"},
		},
	},
	{
		name:  "truncated",
		doc:   jsonOpen + `{"pid":"a::1","entities":[{"names":[{"name":"N"}]}]},{"pid":"a::2","enti`,
		cards: []Card{card("a::1", "", "N")},
		fatal: "unexpected EOF",
	},
	{
		name:  "truncated after a card",
		doc:   jsonOpen + `{"pid":"a::1","entities":[{"names":[{"name":"N"}]}]}`,
		cards: []Card{card("a::1", "", "N")},
		fatal: "unexpected EOF",
	},
	{
		name:  "syntax error",
		doc:   jsonOpen + `{"pid":"a::1",,}]}`,
		fatal: "invalid character",
	},
	{
		name:  "version after bc is not 2",
		doc:   `{"bc":[],"version":3}`,
		fatal: "JSON export version 3",
	},
	{
		name:  "data after the object",
		doc:   `{"version":2,"bc":[]} {}`,
		fatal: "data after",
	},
}

func TestDecodeJSON(t *testing.T) { runCases(t, jsonCases) }

func runCases(t *testing.T, cases []decodeCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, variant := range []struct {
				name string
				doc  []byte
			}{
				{"plain", []byte(tc.doc)},
				{"gzip", gzipBytes(t, []byte(tc.doc))},
			} {
				d, err := NewDecoder(iotest.HalfReader(bytes.NewReader(variant.doc)))
				if err != nil {
					t.Fatalf("%s: NewDecoder: %v", variant.name, err)
				}
				if got := d.Header().Gzip; got != (variant.name == "gzip") {
					t.Errorf("%s: Header().Gzip = %v", variant.name, got)
				}
				var cards []Card
				var recs []RecordError
				var fatal error
				for range 1000 {
					c, err := d.Next()
					var re *RecordError
					if errors.As(err, &re) {
						recs = append(recs, *re)
						continue
					}
					if err != nil {
						if err != io.EOF {
							fatal = err
						}
						break
					}
					cards = append(cards, *c)
				}
				if !reflect.DeepEqual(cards, tc.cards) {
					t.Errorf("%s: cards\n got %s\nwant %s", variant.name, jsonOf(cards), jsonOf(tc.cards))
				}
				if len(recs) != len(tc.recs) {
					t.Errorf("%s: record errors\n got %+v\nwant %+v", variant.name, recs, tc.recs)
				} else {
					for i, want := range tc.recs {
						got := recs[i]
						if got.Index != want.Index || got.Participant != want.Participant || !strings.Contains(got.Reason, want.Reason) {
							t.Errorf("%s: record error %d = %+v, want %+v", variant.name, i, got, want)
						}
					}
				}
				switch {
				case tc.fatal == "" && fatal != nil:
					t.Errorf("%s: fatal error %v", variant.name, fatal)
				case tc.fatal != "" && (fatal == nil || !strings.Contains(fatal.Error(), tc.fatal)):
					t.Errorf("%s: fatal error %v, want one with %q", variant.name, fatal, tc.fatal)
				}
				if fatal != nil {
					if _, err := d.Next(); err != fatal {
						t.Errorf("%s: Next after a fatal error = %v, want it again", variant.name, err)
					}
				} else if _, err := d.Next(); err != io.EOF {
					t.Errorf("%s: Next after the end = %v, want io.EOF", variant.name, err)
				}
				if fatal == nil && d.BytesRead() != int64(len(variant.doc)) {
					t.Errorf("%s: BytesRead = %d, want %d", variant.name, d.BytesRead(), len(variant.doc))
				}
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestHeader(t *testing.T) {
	created := time.Date(2025, 11, 10, 2, 24, 17, 506e6, time.UTC)
	tests := []struct {
		name string
		doc  string
		want Header
	}{
		{"XML v3", v3(""), Header{Format: FormatXMLv3, Created: created, CodeList: "9.4"}},
		{"XML v2", v2Open + "</root>", Header{Format: FormatXMLv2, Created: time.Date(2025, 9, 29, 19, 52, 50, 696e6, time.UTC)}},
		{"XML with BOM and odd creationdt", "\xef\xbb\xbf\n" + `<root xmlns="` + NamespaceXMLv3 + `" creationdt="yesterday"/>`, Header{Format: FormatXMLv3}},
		{"JSON v2", jsonOpen + "]}", Header{Format: FormatJSONv2, Created: created, CodeList: "9.4", Count: 3}},
		{"JSON v2 header after bc", `{"bc":[],"version":2,"participantCount":3}`, Header{Format: FormatJSONv2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDecoder(strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Header(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Header() = %+v, want %+v", got, tc.want)
			}
		})
	}
	// Keys after "bc" are in the Header once Next has returned io.EOF.
	d, err := NewDecoder(strings.NewReader(`{"bc":[],"version":2,"participantCount":3,"codeListSupported":"9.5"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatal(err)
	}
	if got, want := d.Header(), (Header{Format: FormatJSONv2, Count: 3, CodeList: "9.5"}); got != want {
		t.Errorf("Header() after the end = %+v, want %+v", got, want)
	}
}

func TestUnknownFormat(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"empty", "", "empty"},
		{"whitespace", " \n\t ", "empty"},
		{"text", "Participant ID;Names\n", "neither XML nor JSON"},
		{"participants export", `<root xmlns="http://www.peppol.eu/schema/pd/participant-generic/201910/" version="1"/>`, "participant-generic"},
		{"XML v1", `<root xmlns="http://www.peppol.eu/schema/pd/businesscard-generic/201605/"/>`, "201605"},
		{"XML without namespace", `<root version="3"><businesscard/></root>`, "without a namespace"},
		{"XML namespace on a prefixed attribute", `<root a:xmlns="` + NamespaceXMLv3 + `" xmlns:a="urn:a"/>`, "without a namespace"},
		{"XML other prefix bound", `<a:root xmlns="` + NamespaceXMLv3 + `" xmlns:a="urn:other"/>`, "urn:other"},
		{"broken XML prolog", `<?xml version="1.0"?><!BOGUS>`, "not well-formed"},
		{"JSON v1", `{"version":1,"bc":[]}`, "version 1"},
		{"JSON participants", `{"version":"1","participants":[]}`, "version"},
		{"JSON array", `[{"pid":"a::b"}]`, "neither XML nor JSON"},
		{"JSON without version", `{"count":1}`, `without "version"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, doc := range [][]byte{[]byte(tc.doc), gzipBytes(t, []byte(tc.doc))} {
				_, err := NewDecoder(bytes.NewReader(doc))
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("NewDecoder = %v, want a *FormatError", err)
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "supported are XML v3") {
					t.Errorf("error %q does not say %q and the supported formats", err, tc.want)
				}
			}
		})
	}
}

// TestTruncated cuts exports of each format, plain and gzip, at every length: decoding must
// end in a fatal error (never io.EOF, a hang or a panic), except where nothing but trailing
// whitespace was cut.
func TestTruncated(t *testing.T) {
	cards := genCards(3, 2)
	for _, f := range []struct {
		name string
		doc  []byte
	}{
		{"xml", writeXML(cards, genStyle{indent: true, noDocTypes: true})},
		{"json", writeJSON(cards)},
	} {
		for _, gz := range []bool{false, true} {
			doc := f.doc
			if gz {
				doc = gzipBytes(t, doc)
			}
			full := len(bytes.TrimRight(f.doc, "\n"))
			for n := range len(doc) {
				if !gz && n >= full {
					break
				}
				cut := doc[:n]
				_, _, err := decodeAll(t, cut)
				if err == nil {
					t.Errorf("%s gzip=%v cut at %d of %d: no error", f.name, gz, n, len(doc))
				}
			}
		}
	}
}

func TestBrokenGzip(t *testing.T) {
	doc := gzipBytes(t, writeXML(genCards(4, 50), genStyle{indent: true}))
	for _, pos := range []int{len(doc) / 3, len(doc) / 2, len(doc) - 6, len(doc) - 2} {
		broken := bytes.Clone(doc)
		broken[pos] ^= 0x55
		if _, _, err := decodeAll(t, broken); err == nil {
			t.Errorf("byte %d flipped: no error", pos)
		}
	}
	// Garbage after the gzip member.
	if _, _, err := decodeAll(t, append(bytes.Clone(doc), "junk"...)); err == nil {
		t.Error("junk after the gzip member: no error")
	}
	// A broken gzip header is an error from NewDecoder.
	if _, err := NewDecoder(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0})); err == nil {
		t.Error("broken gzip header: no error")
	}
}

// TestGeneratedRoundTrip decodes generated exports of each format, plain and gzip, read in
// tiny pieces so that every token crosses buffer refills somewhere, and compares the cards
// with the generated ones.
func TestGeneratedRoundTrip(t *testing.T) {
	cards := genCards(5, 300)
	docs := map[string][]byte{
		"xml-v3":  writeXML(cards, genStyle{indent: true}),
		"xml-v2":  writeXML(cards, genStyle{v2: true}),
		"json-v2": writeJSON(cards),
	}
	for name, doc := range docs {
		for _, gz := range []bool{false, true} {
			p := doc
			if gz {
				p = gzipBytes(t, doc)
			}
			d, err := NewDecoder(&chunkReader{r: bytes.NewReader(p)})
			if err != nil {
				t.Fatal(err)
			}
			if string(d.Header().Format) != name || d.Header().Gzip != gz {
				t.Errorf("%s: Header() = %+v", name, d.Header())
			}
			for i := 0; ; i++ {
				c, err := d.Next()
				if err == io.EOF {
					if i != len(cards) {
						t.Errorf("%s gzip=%v: %d cards, want %d", name, gz, i, len(cards))
					}
					break
				}
				if err != nil {
					t.Fatalf("%s gzip=%v: card %d: %v", name, gz, i, err)
				}
				if !reflect.DeepEqual(*c, cards[i]) {
					t.Fatalf("%s gzip=%v: card %d\n got %s\nwant %s", name, gz, i, jsonOf(c), jsonOf(cards[i]))
				}
			}
			if got := d.BytesRead(); got != int64(len(p)) {
				t.Errorf("%s gzip=%v: BytesRead = %d, want %d", name, gz, got, len(p))
			}
		}
	}
}

// TestScannerMatchesEncodingXML decodes generated exports written in many XML styles with the
// Decoder and with encoding/xml (refDecodeXML) and requires the same cards.
func TestScannerMatchesEncodingXML(t *testing.T) {
	cards := genCards(6, 200)
	styles := []genStyle{
		{},
		{indent: true},
		{indent: true, crlf: true, comments: true},
		{prefix: "bc", singleQuote: true},
		{charRefs: true, cdata: true},
		{prefix: "p", crlf: true, charRefs: true, cdata: true, comments: true, indent: true, singleQuote: true},
		{v2: true, indent: true, noDocTypes: true},
	}
	for i, st := range styles {
		doc := writeXML(cards, st)
		want, bad, err := refDecodeXML(doc)
		if err != nil || len(bad) != 0 {
			t.Fatalf("style %d: encoding/xml: %v, bad cards %v", i, err, bad)
		}
		got, recs, err := decodeAll(t, doc)
		if err != nil || len(recs) != 0 {
			t.Fatalf("style %d: Decoder: %v, record errors %v", i, err, recs)
		}
		if len(got) != len(want) {
			t.Fatalf("style %d: %d cards, encoding/xml has %d", i, len(got), len(want))
		}
		for k := range got {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Fatalf("style %d card %d\n got %s\nwant %s", i, k, jsonOf(got[k]), jsonOf(want[k]))
			}
		}
	}
}

// TestUpstreamSamples decodes the real export excerpts in the shared upstream fixtures
// beside the checkout, when present (see internal/fixtures).
func TestUpstreamSamples(t *testing.T) {
	dir := fixtures.Upstream(t, "directory-export")
	files, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	if len(files) == 0 {
		t.Skip("no upstream samples in", dir)
	}
	want := map[string]struct {
		format    Format
		cards     int
		firstPID  string
		countries string
	}{
		"export-businesscards-no-doctypes-v2-excerpt.xml": {FormatXMLv2, 3, "0192:815344782", "NO"},
		"export-v3-excerpt-country-UK.xml":                {FormatXMLv3, 4, "9932:09353226", "UK"},
		"export-v3-excerpt-country-XX.xml":                {FormatXMLv3, 1, "0106:99999995", "XX"},
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewDecoder(bytes.NewReader(p))
			if err != nil {
				t.Fatal(err)
			}
			cards, recs, err := decodeAll(t, p)
			if err != nil || len(recs) != 0 {
				t.Fatalf("err %v, record errors %v", err, recs)
			}
			ref, _, err := refDecodeXML(p)
			if err != nil || !reflect.DeepEqual(cards, ref) {
				t.Errorf("cards differ from encoding/xml's (%v)\n got %s\nwant %s", err, jsonOf(cards), jsonOf(ref))
			}
			w, ok := want[filepath.Base(f)]
			if !ok {
				return
			}
			if d.Header().Format != w.format || len(cards) != w.cards || cards[0].Participant.Value != w.firstPID || cards[0].Entities[0].CountryCode != w.countries {
				t.Errorf("format %s, %d cards, first %+v", d.Header().Format, len(cards), cards[0])
			}
			for _, c := range cards {
				for _, e := range c.Entities {
					for _, id := range e.Identifiers {
						if id.Value == "" {
							t.Errorf("%s: empty identifier kept", c.Participant.Value)
						}
					}
				}
			}
		})
	}
}

// chunkReader returns reads of 1 to 61 bytes, so that tokens cross every kind of boundary.
type chunkReader struct {
	r *bytes.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	c.n = c.n%61 + 1
	return c.r.Read(p[:min(len(p), c.n)])
}

// TestCardsAreIndependent checks that cards share no mutable memory: changing one card's
// slices must not change a later card with the same doc types.
func TestCardsAreIndependent(t *testing.T) {
	cards := genCards(9, 20)
	for name, doc := range map[string][]byte{"xml": writeXML(cards, genStyle{}), "json": writeJSON(cards)} {
		d, err := NewDecoder(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			c, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*c, cards[i]) {
				t.Fatalf("%s card %d changed by a mutation of an earlier card\n got %s\nwant %s", name, i, jsonOf(c), jsonOf(cards[i]))
			}
			for k := range c.DocTypes {
				c.DocTypes[k] = DocType{Value: "mutated"}
			}
			c.Entities[0].Names[0].Name = "mutated"
		}
	}
}

// TestCardTooLarge: a card beyond the size limit is a record error, and the next card is read.
func TestCardTooLarge(t *testing.T) {
	big := strings.Repeat(`<name name="a long name that fills the card"/><id scheme="s" value="v"/>`, 2000)
	doc := v3(`<businesscard>` + participant("0088:1") + `<entity countrycode="NL">` + big + `</entity>` + strings.Repeat(invoiceTag, 1000) + `</businesscard>` +
		`<businesscard>` + participant("0088:2") + `<entity countrycode="NL"><name name="B"/></entity></businesscard>`)
	d, err := NewDecoder(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	d.xml.maxCard = 10_000
	var re *RecordError
	if _, err := d.Next(); !errors.As(err, &re) || re.Reason != "card larger than 64 MiB" || re.Participant != "iso6523-actorid-upis::0088:1" {
		t.Fatalf("Next = %v, want a record error for the large card", err)
	}
	if len(d.xml.arena) > 20_000 || len(d.xml.docs) > 1000 {
		t.Errorf("the large card still took %d bytes of arena, %d doc types", len(d.xml.arena), len(d.xml.docs))
	}
	if c, err := d.Next(); err != nil || c.Participant.Value != "0088:2" {
		t.Fatalf("Next = %v, %v, want the second card", c, err)
	}
}
