package netsim

import (
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/peppolgate/peppolgate/peppol"
)

// Export XML v3, the format of the Directory's /export/businesscards.
const (
	// ExportNamespace is the namespace of the XML v3 business card export.
	ExportNamespace = "urn:peppol:schema:pd:businesscard-generic:2025:03"
	// ExportCodeList is the codeListSupported attribute netsim's exports carry.
	ExportCodeList = "9.4"
)

// ExportConfig parameterises a synthetic Directory export (ExportCards, ExportCard,
// WriteExportXML).
type ExportConfig struct {
	// Seed makes the export reproducible: the same Seed gives the same cards.
	Seed int64
	// Cards is the number of business cards; values below zero count as zero.
	Cards int
	// Created is the export's creationdt; zero means 2026-11-21T02:00:00Z. Registration
	// dates are drawn before it.
	Created time.Time
	// NoDocTypes leaves the document types out, like
	// /export/businesscards-xml-no-doc-types. The other fields of every card are the
	// same as with document types.
	NoDocTypes bool
}

// CreatedAt is the export's creationdt: Created, or its default when zero.
func (cfg ExportConfig) CreatedAt() time.Time { return cfg.created() }

func (cfg ExportConfig) created() time.Time {
	if cfg.Created.IsZero() {
		return time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	}
	return cfg.Created.UTC()
}

// ExportCards calls fn for cards 0 … cfg.Cards-1 in order. Card i depends only on
// cfg.Seed, cfg.Created, cfg.NoDocTypes and i, so ExportCard(cfg, i) returns the same
// card; memory use does not grow with cfg.Cards. The id is the participant identifier
// an importer should derive (scheme iso6523-actorid-upis, value lower-case, trimmed);
// the export may write it with surrounding white space or in upper case, as the real
// one sometimes does. Participant ids are unique but for a few per million cards
// (schemes whose check digit rules out some numbers redraw them). Each card is freshly allocated, except that
// cards may share the backing arrays of their DocTypes (treat them as read-only). An
// error from fn stops the iteration and is returned as is; otherwise the result is nil.
func ExportCards(cfg ExportConfig, fn func(i int, id peppol.ParticipantID, card *BusinessCard) error) error {
	g := newCardGen(cfg)
	for i := range max(cfg.Cards, 0) {
		id, _, card := g.card(i)
		if err := fn(i, id, card); err != nil {
			return err
		}
	}
	return nil
}

// ExportCard returns card i of cfg's export (also for i beyond cfg.Cards) in constant
// time: the same id and card ExportCards passes for i.
func ExportCard(cfg ExportConfig, i int) (peppol.ParticipantID, *BusinessCard) {
	id, _, card := newCardGen(cfg).card(i)
	return id, card
}

// WriteExportXML writes cfg's cards as a Directory XML v3 export (namespace
// ExportNamespace, root version="3" with creationdt and codeListSupported) to w, in
// constant memory. It returns the first error of w.
func WriteExportXML(w io.Writer, cfg ExportConfig) error {
	x := newExportWriter(w)
	x.header(cfg.created())
	g := newCardGen(cfg)
	for i := range max(cfg.Cards, 0) {
		_, raw, card := g.card(i)
		x.card(raw, card, cfg.NoDocTypes)
		if x.err != nil {
			return x.err
		}
	}
	return x.finish()
}

// writeDatasetExport writes the business cards of ds (participants with a card, in
// dataset order) as an XML v3 export created at created.
func writeDatasetExport(w io.Writer, ds *Dataset, created time.Time) error {
	x := newExportWriter(w)
	x.header(created)
	for i := range ds.Participants {
		p := &ds.Participants[i]
		if p.Card == nil {
			continue
		}
		x.card(p.ID.String(), p.Card, false)
		if x.err != nil {
			return x.err
		}
	}
	return x.finish()
}

// ---------------------------------------------------------------------------------
// XML writing

// exportWriter appends the XML to a buffer and hands it to w in 64 KiB pieces.
type exportWriter struct {
	w   io.Writer
	buf []byte
	err error
}

const exportFlushAt = 64 << 10

func newExportWriter(w io.Writer) *exportWriter {
	return &exportWriter{w: w, buf: make([]byte, 0, exportFlushAt+8<<10)}
}

func (x *exportWriter) header(created time.Time) {
	x.buf = append(x.buf, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<root xmlns="`+ExportNamespace+`" version="3" creationdt="`...)
	x.buf = created.UTC().AppendFormat(x.buf, "2006-01-02T15:04:05.000Z")
	x.buf = append(x.buf, `" codeListSupported="`+ExportCodeList+`">`+"\n"...)
}

func (x *exportWriter) flush() {
	if x.err == nil && len(x.buf) > 0 {
		_, x.err = x.w.Write(x.buf)
	}
	x.buf = x.buf[:0]
}

func (x *exportWriter) finish() error {
	x.buf = append(x.buf, "</root>\n"...)
	x.flush()
	return x.err
}

// card appends one businesscard element; pid is the participant value as written.
func (x *exportWriter) card(pid string, c *BusinessCard, noDocTypes bool) {
	b := x.buf
	b = append(b, "    <businesscard>\n      <participant scheme=\"iso6523-actorid-upis\" value=\""...)
	b = appendEscaped(b, pid, true)
	b = append(b, "\"/>\n"...)
	for i := range c.Entities {
		b = appendEntity(b, &c.Entities[i])
	}
	if !noDocTypes {
		for _, d := range c.DocTypes {
			if m, ok := exportDocIndex[d.Value]; ok && exportDocTypes[m].dt == d {
				b = append(b, exportDocLines[m]...)
				continue
			}
			b = appendDocType(b, d, "", "", true)
		}
	}
	b = append(b, "    </businesscard>\n"...)
	x.buf = b
	if len(b) >= exportFlushAt {
		x.flush()
	}
}

// appendDocType appends a doctypeid element: with display name and state, or marked
// non-standard.
func appendDocType(b []byte, d DocumentType, display, state string, nonStandard bool) []byte {
	b = append(b, "      <doctypeid scheme=\""...)
	b = appendEscaped(b, d.Scheme, true)
	b = append(b, "\" value=\""...)
	b = appendEscaped(b, d.Value, true)
	if nonStandard {
		return append(b, "\" non-standard=\"true\"/>\n"...)
	}
	b = append(b, "\" displayname=\""...)
	b = appendEscaped(b, display, true)
	b = append(b, "\" state=\""...)
	b = appendEscaped(b, state, true)
	return append(b, "\"/>\n"...)
}

func appendEntity(b []byte, e *Entity) []byte {
	b = append(b, "      <entity countrycode=\""...)
	b = appendEscaped(b, e.CountryCode, true)
	b = append(b, "\">\n"...)
	for _, n := range e.Names {
		b = append(b, "        <name name=\""...)
		b = appendEscaped(b, n.Name, true)
		if n.Language != "" {
			b = append(b, "\" language=\""...)
			b = appendEscaped(b, n.Language, true)
		}
		b = append(b, "\"/>\n"...)
	}
	if e.GeoInfo != "" {
		b = append(b, "        <geoinfo>"...)
		b = appendEscaped(b, e.GeoInfo, false)
		b = append(b, "</geoinfo>\n"...)
	}
	for _, id := range e.Identifiers {
		b = append(b, "        <id scheme=\""...)
		b = appendEscaped(b, id.Scheme, true)
		b = append(b, "\" value=\""...)
		b = appendEscaped(b, id.Value, true)
		b = append(b, "\"/>\n"...)
	}
	for _, w := range e.Websites {
		b = append(b, "        <website>"...)
		b = appendEscaped(b, w, false)
		b = append(b, "</website>\n"...)
	}
	for _, c := range e.Contacts {
		b = append(b, "        <contact"...)
		all := c == Contact{}
		if all || c.Type != "" {
			b = append(b, " type=\""...)
			b = appendEscaped(b, c.Type, true)
			b = append(b, '"')
		}
		if all || c.Name != "" {
			b = append(b, " name=\""...)
			b = appendEscaped(b, c.Name, true)
			b = append(b, '"')
		}
		if all || c.Phone != "" {
			b = append(b, " phone=\""...)
			b = appendEscaped(b, c.Phone, true)
			b = append(b, '"')
		}
		if all || c.Email != "" {
			b = append(b, " email=\""...)
			b = appendEscaped(b, c.Email, true)
			b = append(b, '"')
		}
		b = append(b, "/>\n"...)
	}
	if e.AdditionalInfo != "" {
		b = append(b, "        <additionalinfo>"...)
		b = appendEscaped(b, e.AdditionalInfo, false)
		b = append(b, "</additionalinfo>\n"...)
	}
	if e.RegDate != "" {
		b = append(b, "        <regdate>"...)
		b = appendEscaped(b, e.RegDate, false)
		b = append(b, "</regdate>\n"...)
	}
	return append(b, "      </entity>\n"...)
}

// appendEscaped appends s escaped for XML character data (attr false) or a
// double-quoted attribute value (attr true, where tab, line feed and carriage return
// become character references so that attribute normalisation keeps them). Invalid
// UTF-8 and characters XML 1.0 forbids become U+FFFD.
func appendEscaped(b []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainXML[c] {
			i++
			continue
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		var esc string
		switch {
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '"' && attr:
			esc = "&quot;"
		case c == '\n' && attr:
			esc = "&#10;"
		case c == '\t' && attr:
			esc = "&#9;"
		case c == '\r':
			esc = "&#13;"
		case c == '\n' || c == '\t' || c >= 0x20:
			i++
			continue
		default:
			esc = "\uFFFD"
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		i++
		start = i
	}
	return append(b, s[start:]...)
}

// plainXML marks the bytes appendEscaped copies as they are in both contexts.
var plainXML = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '&' && c != '<' && c != '>' && c != '"'
	}
	return t
}()

// ---------------------------------------------------------------------------------
// Card generation

// cardGen derives cards from (seed, index); it reuses its random source between cards.
type cardGen struct {
	cfg     ExportConfig
	created time.Time
	key     uint64 // seed-derived key of the identifier permutations
	pcg     rand.PCG
	r       *rand.Rand
	word    []byte // scratch for synthetic words
}

func newCardGen(cfg ExportConfig) *cardGen {
	g := &cardGen{cfg: cfg, created: cfg.created(), key: splitmix64(uint64(cfg.Seed) ^ 0x6a09e667f3bcc908)}
	g.r = rand.New(&g.pcg)
	return g
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// permute maps x (taken modulo domain) to [0, domain) by a seed-keyed bijection, so
// that distinct indexes below domain give distinct numbers (cycle walking over an
// invertible mix on the next power of two).
func permute(x, domain, key uint64) uint64 {
	if domain <= 1 {
		return 0
	}
	x %= domain
	b := uint(bits.Len64(domain - 1))
	mask := uint64(1)<<b - 1
	for {
		x ^= key & mask
		x = (x * 0x9e3779b97f4a7c15) & mask
		x ^= x >> (b/2 + 1)
		x = (x * 0xbf58476d1ce4e5b9) & mask
		x ^= x >> (b/3 + 1)
		if x < domain {
			return x
		}
	}
}

// padNum formats x with at least width digits.
func padNum(x uint64, width int) string {
	var a [24]byte
	s := strconv.AppendUint(a[:0], x, 10)
	if len(s) >= width {
		return string(s)
	}
	out := make([]byte, width)
	for i := range width - len(s) {
		out[i] = '0'
	}
	copy(out[width-len(s):], s)
	return string(out)
}

// card returns card i: the normalised id, the participant value as the export writes
// it, and the card.
func (g *cardGen) card(i int) (peppol.ParticipantID, string, *BusinessCard) {
	s := splitmix64(g.key ^ uint64(i)*0xd1b54a32d192ed03)
	g.pcg.Seed(s, splitmix64(s^uint64(i)))
	r := g.r
	ec := pickExportCountry(r.IntN(exportWeightTotal))
	icd, value, extra := g.ids(ec, uint64(i))
	id := peppol.ParticipantID{ICD: icd, Value: strings.ToLower(value)}
	raw := icd + ":" + id.Value
	switch q := r.IntN(2000); {
	case q < 2:
		raw = raw + " "
	case q < 3:
		raw = "\n  " + raw + "\n"
	case q < 5:
		raw = icd + ":" + strings.ToUpper(value)
	}
	card := &BusinessCard{}
	n := 1
	if q := r.IntN(100); q >= 98 {
		n = 3
	} else if q >= 93 {
		n = 2
	}
	card.Entities = make([]Entity, n)
	for k := range card.Entities {
		e := &card.Entities[k]
		g.entity(e, ec, k)
		if k == 0 {
			e.Identifiers = g.identifiers(extra)
		}
	}
	docs := g.docTypes(ec)
	if !g.cfg.NoDocTypes {
		card.DocTypes = docs
	}
	return id, raw, card
}

func (g *cardGen) entity(e *Entity, ec *exportCountry, k int) {
	r := g.r
	c := ec.c
	code := c.code
	if code == "GB" && r.IntN(10) < 7 {
		code = "UK" // the real export writes UK for most 9932 cards
	}
	switch q := r.IntN(10000); {
	case q < 5:
		code = "XX"
	case q < 7:
		code = "00"
	case q < 8:
		code = "ZZ"
	}
	e.CountryCode = code
	name := g.companyName(ec)
	e.Names = make([]Name, 1, 2)
	e.Names[0].Name = name
	switch {
	case (c.code == "BE" || c.code == "FI") && r.IntN(10) < 4:
		e.Names[0].Language = c.langs[0]
		// The other language's spelling often differs in the legal form only.
		alt := name
		for _, f := range formPairs {
			if base, ok := strings.CutSuffix(name, " "+f[0]); ok {
				alt = base + " " + f[1]
				break
			}
		}
		e.Names = append(e.Names, Name{alt, c.langs[1]})
	case r.IntN(10) == 0:
		e.Names[0].Language = c.langs[r.IntN(len(c.langs))]
	case r.IntN(40) == 0:
		e.Names = append(e.Names, Name{Name: g.companyName(ec)})
	}
	city := c.cities[zipfIndex(r, len(c.cities))]
	switch q := r.IntN(100); {
	case q < 30:
		e.GeoInfo = c.streets[r.IntN(len(c.streets))] + " " + strconv.Itoa(1+r.IntN(180)) + ", " + padNum(uint64(1000+r.IntN(9000)), 4) + " " + city
	case q < 40:
		e.GeoInfo = c.streets[r.IntN(len(c.streets))] + " " + strconv.Itoa(1+r.IntN(180)) + "\n" + padNum(uint64(1000+r.IntN(9000)), 4) + " " + city
	case q < 52:
		e.GeoInfo = city + " + " + code
	case q < 58:
		e.GeoInfo = strings.ToUpper(city)
	}
	if r.IntN(4) == 0 {
		w := "www." + slugWord(name) + "." + c.tld
		if r.IntN(3) == 0 {
			w = "https://" + w
		}
		e.Websites = []string{w}
	}
	if r.IntN(5) == 0 {
		var ct Contact
		if r.IntN(15) != 0 {
			first := ec.firstNames[r.IntN(len(ec.firstNames))]
			ct.Name = first + " " + g.brand(ec)
			if r.IntN(2) == 0 {
				ct.Type = contactTypes[r.IntN(len(contactTypes))]
			}
			if r.IntN(3) == 0 {
				ct.Phone = c.phone + " " + padNum(uint64(r.IntN(100000000)), 8)
			}
			if r.IntN(4) != 0 {
				ct.Email = slugWord(first) + "@" + slugWord(name) + "." + c.tld
			}
		}
		e.Contacts = []Contact{ct}
	}
	if r.IntN(100) < 6 {
		e.AdditionalInfo = additionalInfos[r.IntN(len(additionalInfos))]
	}
	if r.IntN(100) < 85 {
		days := r.IntN(3650)
		if k > 0 {
			days = r.IntN(365)
		}
		e.RegDate = g.created.AddDate(0, 0, -days).Format(time.DateOnly)
	}
}

// formPairs are legal forms with their equivalent in a country's other language.
var formPairs = [][2]string{
	{"NV", "SA"}, {"BV", "SRL"}, {"BVBA", "SPRL"}, {"VZW", "ASBL"}, {"CommV", "SComm"},
	{"SA", "NV"}, {"SRL", "BV"}, {"Oy", "Ab"}, {"Oyj", "Abp"}, {"Ky", "Kb"},
}

var contactTypes = []string{"Accounting", "Support", "Invoicing", "Sales", "Finance", "Technical", "Primary"}

var additionalInfos = []string{
	"Please send invoices via Peppol only.",
	"Bitte Rechnungen ausschließlich über Peppol senden.",
	"Merci d'indiquer le numéro de commande sur chaque facture.",
	"Vi tar imot faktura og kreditnota via Peppol.\r\nOrdrenummer må oppgis.",
	"Inkoopordernummer verplicht vermelden.",
	"Faktura skal merkes med bestillers referanse & prosjektnummer.",
	"Invoices < EUR 50 are paid monthly.",
	"Mottar e-faktura (EHF) fra 01.01.2019.",
}

// identifiers returns the entity's additional identifiers: mostly as the registry
// writes them, some empty or with spaces, some absent.
func (g *cardGen) identifiers(extra []Identifier) []Identifier {
	r := g.r
	if r.IntN(100) < 35 || len(extra) == 0 {
		return nil
	}
	out := make([]Identifier, 0, len(extra))
	for _, id := range extra {
		switch q := r.IntN(100); {
		case q < 3:
			id.Value = ""
		case q < 6:
			id.Value = spaced(id.Value)
		case q < 8:
			id.Scheme = strings.ToLower(id.Scheme)
		case q < 25 && len(out) > 0:
			continue
		}
		out = append(out, id)
	}
	return out
}

// spaced inserts spaces into an identifier: "BE0123456749" → "BE 0123 456 749".
func spaced(s string) string {
	b := make([]byte, 0, len(s)+4)
	for i := 0; i < len(s); i++ {
		if i > 0 && (i == 2 || (i > 2 && (len(s)-i)%3 == 0)) {
			b = append(b, ' ')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// slugWord is slug for the first word of s, as host and mailbox names are built.
func slugWord(s string) string {
	f, _, _ := strings.Cut(s, " ")
	return slug(f)
}

// zipfIndex returns an index below n with probability falling like 1/(rank+1).
func zipfIndex(r *rand.Rand, n int) int {
	if n <= 1 {
		return 0
	}
	k := int(math.Exp(r.Float64()*math.Log(float64(n+1)))) - 1
	return min(max(k, 0), n-1)
}

// brandRanks is the size of each country's ranked vocabulary of name words; ranks are
// drawn log-uniformly (Zipf's law with exponent 1), so a few words are very common
// and most are rare.
const brandRanks = 4_000_000

// brand returns a name word: a frequent real word for the first ranks, a synthetic
// word built from the country's syllables for the rest.
func (g *cardGen) brand(ec *exportCountry) string {
	k := zipfIndex(g.r, brandRanks)
	if k < len(ec.words) {
		return ec.words[k]
	}
	return g.synthWord(ec, uint64(k))
}

// synthWord returns the capitalised synthetic word of rank k: 2–4 syllables chosen by
// a hash of k, so a rank always gives the same word.
func (g *cardGen) synthWord(ec *exportCountry, k uint64) string {
	h := splitmix64(k*0x9e3779b97f4a7c15 ^ ec.salt)
	n := 2
	switch x := h & 15; {
	case x >= 13:
		n = 4
	case x >= 6:
		n = 3
	}
	h >>= 4
	b := g.word[:0]
	syl := ec.syllables
	for j := range n {
		s := syl[h%uint64(len(syl))]
		h /= uint64(len(syl))
		if j == 0 {
			r, size := utf8.DecodeRuneInString(s)
			b = utf8.AppendRune(b, upperRune(r))
			s = s[size:]
		}
		b = append(b, s...)
	}
	g.word = b
	return string(b)
}

func upperRune(r rune) rune {
	if r >= 'a' && r <= 'z' {
		return r - 'a' + 'A'
	}
	if u, ok := upperMap[r]; ok {
		return u
	}
	return r
}

var upperMap = map[rune]rune{'å': 'Å', 'ä': 'Ä', 'ö': 'Ö', 'ø': 'Ø', 'æ': 'Æ', 'é': 'É', 'ü': 'Ü', 'ł': 'Ł', 'ś': 'Ś', 'ż': 'Ż', 'ó': 'Ó', 'č': 'Č'}

func (g *cardGen) companyName(ec *exportCountry) string {
	r := g.r
	c := ec.c
	form := c.forms[zipfIndex(r, len(c.forms))]
	sector := ec.sectors[zipfIndex(r, len(ec.sectors))]
	var name string
	switch q := r.IntN(100); {
	case q < 30:
		name = g.brand(ec) + " " + sector + " " + form
	case q < 50:
		name = g.brand(ec) + " " + form
	case q < 60:
		name = g.brand(ec) + " " + g.brand(ec) + " " + sector + " " + form
	case q < 70:
		// A sole proprietorship: a person's name, often without a legal form.
		name = ec.firstNames[r.IntN(len(ec.firstNames))] + " " + g.brand(ec)
		if r.IntN(3) == 0 {
			name += " " + form
		}
	case q < 80:
		name = c.cities[zipfIndex(r, len(c.cities))] + " " + sector + " " + form
	case q < 88:
		name = g.brand(ec) + " & " + g.brand(ec) + " " + form
	case q < 94:
		name = sector + " " + g.brand(ec) + " " + form
	default:
		name = g.brand(ec) + " " + sector + " " + g.brand(ec) + " " + form
	}
	if c.code == "GB" && r.IntN(20) == 0 {
		name = strings.TrimSuffix(name, " "+form) + " (UK) " + form
	}
	switch q := r.IntN(2000); {
	case q < 2:
		name = "\"" + name + "\""
	case q < 3:
		name = "<" + name + ">"
	case q < 5:
		name = " " + name + "  "
	}
	if r.IntN(100) < ec.upper {
		name = strings.ToUpper(name)
	}
	return name
}

// ids returns the participant identifier (icd and value) of card i in country ec and
// the additional identifiers its first entity may list. The numbers come from a keyed
// permutation of i, so they are unique per scheme, and pass their check digits.
func (g *cardGen) ids(ec *exportCountry, i uint64) (string, string, []Identifier) {
	r := g.r
	key := g.key
	c := ec.c
	if r.IntN(100) < ec.gln {
		v := c.glnPrefix + padNum(permute(i, pow10(12-len(c.glnPrefix)), key^0x88), 12-len(c.glnPrefix))
		v += string(gs1Check([]byte(v)))
		return "0088", v, []Identifier{{"GLN", v}}
	}
	switch c.code {
	case "BE":
		// Enterprise numbers 0200.000.000–0999.999.999, then 1000.000.000 onwards.
		base := padNum(2_000_000+permute(i, 18_000_000, key^0x208), 8)
		n, _ := strconv.Atoi(base)
		v := base + twoDigits(97-n%97)
		if r.IntN(100) < 15 {
			return "9925", "be" + v, []Identifier{{"VAT", "BE" + v}}
		}
		return "0208", v, []Identifier{{"VAT", "BE" + v}, {"KBO-BCE", v}}
	case "NO":
		v := modNumber(i, key^0x192, 8, 80_000_000, 20_000_000, []int{3, 2, 7, 6, 5, 4, 3, 2}, false)
		return "0192", v, []Identifier{{"VAT", "NO" + v + "MVA"}, {"0192", v}}
	case "DK":
		v := modNumber(i, key^0x184, 7, 1_000_000, 9_000_000, []int{2, 7, 6, 5, 4, 3, 2}, true)
		return "0184", v, []Identifier{{"VAT", "DK" + v}, {"CVR", v}}
	case "FI":
		v := fiNumber(i, key^0x37)
		ids := []Identifier{{"VAT", "FI" + v}, {"Y-tunnus", v[:7] + "-" + v[7:]}}
		if r.IntN(2) == 0 {
			return "0037", v, ids
		}
		return "0216", "0037" + v, ids
	case "SE":
		b := []byte(padNum(500_000_000+permute(i, 100_000_000, key^0x7), 9))
		v := string(append(b, luhnCheck(b)))
		return "0007", v, []Identifier{{"VAT", "SE" + v + "01"}, {"0007", v}}
	case "NL":
		v := padNum(permute(i, 100_000_000, key^0x106), 8)
		if r.IntN(10) < 2 {
			return "0190", "0000000" + v + "0000", []Identifier{{"KVK", v}}
		}
		return "0106", v, []Identifier{{"KVK", v}, {"VAT", "NL" + padNum(uint64(r.IntN(1_000_000_000)), 9) + "B01"}}
	case "AU":
		t := []byte(padNum(permute(i, 1_000_000_000, key^0x151), 9))
		s := 0
		for j, d := range t {
			s += int(d-'0') * (3 + 2*j)
		}
		x := (89 - s%89) % 89
		v := strconv.Itoa(x/10+1) + strconv.Itoa(x%10) + string(t)
		return "0151", v, []Identifier{{"ABN", v[:2] + " " + v[2:5] + " " + v[5:8] + " " + v[8:]}}
	case "FR":
		sb := []byte(padNum(30_000_000+permute(i, 70_000_000, key^0x2), 8))
		siren := string(append(sb, luhnCheck(sb)))
		nic := []byte("0001")
		nic[3] = byte('1' + r.IntN(5))
		siret := siren + string(nic) + string(luhnCheck(append([]byte(siren), nic...)))
		n, _ := strconv.Atoi(siren)
		vat := "FR" + twoDigits((12+3*(n%97))%97) + siren
		if r.IntN(2) == 0 {
			return "0009", siret, []Identifier{{"SIRET", siret}, {"VAT", vat}}
		}
		return "0002", siren, []Identifier{{"SIREN", siren}, {"VAT", vat}}
	case "SG":
		x := permute(i, 20*100_000*26, key^0x195)
		uen := strconv.Itoa(2005+int(x%20)) + padNum(x/20%100_000, 5) + string(rune('A'+x/2_000_000))
		return "0195", "sguen" + strings.ToLower(uen), []Identifier{{"UEN", uen}}
	case "IT":
		b := []byte(padNum(permute(i, 2_000_000_000, key^0x211), 10))
		v := string(append(b, luhnCheck(b)))
		return "0211", "it" + v, []Identifier{{"VAT", "IT" + v}}
	case "PL":
		v := modNumber(i, key^0x9945, 9, 100_000_000, 900_000_000, []int{6, 5, 7, 2, 3, 4, 5, 6, 7}, false)
		return "9945", "pl" + v, []Identifier{{"VAT", "PL" + v}}
	case "GB":
		b := padNum(1_000_000+permute(i, 9_000_000, key^0x9932), 7)
		s := 0
		for j := range 7 {
			s += int(b[j]-'0') * (8 - j)
		}
		v := b + twoDigits((97-s%97)%97)
		switch q := r.IntN(10); {
		case q < 5:
			return "9932", "gb" + v, []Identifier{{"VAT", "GB" + v}}
		case q < 8:
			return "9932", v, []Identifier{{"VAT", v}}
		default:
			crn := padNum(permute(i, 100_000_000, key^0x9933), 8)
			return "9932", crn, []Identifier{{"VAT", ""}, {"OrgNr", "GB" + crn}}
		}
	case "DE":
		b := []byte(padNum(10_000_000+permute(i, 90_000_000, key^0x9930), 8))
		v := string(append(b, iso7064Mod1110(b)))
		if r.IntN(5) == 0 {
			lw := "991-" + padNum(uint64(r.IntN(100_000)), 5) + "-" + padNum(uint64(r.IntN(100)), 2)
			return "0204", lw, []Identifier{{"Leitweg-ID", lw}, {"VAT", "DE" + v}}
		}
		return "9930", "de" + v, []Identifier{{"VAT", "DE" + v}}
	case "AT":
		b := []byte(padNum(1_000_000+permute(i, 9_000_000, key^0x9914), 7))
		s := 0
		for j, d := range b {
			x := int(d - '0')
			if j%2 == 1 {
				x *= 2
				x = x/10 + x%10
			}
			s += x
		}
		v := string(b) + strconv.Itoa((10-(s+4)%10)%10)
		return "9914", "atu" + v, []Identifier{{"VAT", "ATU" + v}}
	case "IE":
		b := padNum(1_000_000+permute(i, 9_000_000, key^0x9935), 7)
		s := 0
		for j := range 7 {
			s += int(b[j]-'0') * (8 - j)
		}
		v := b + string("WABCDEFGHIJKLMNOPQRSTUV"[s%23])
		return "9935", "ie" + strings.ToLower(v), []Identifier{{"VAT", "IE" + v}}
	default: // ES
		b := padNum(permute(i, 10_000_000, key^0x9920), 7)
		s := 0
		for j := range 7 {
			x := int(b[j] - '0')
			if j%2 == 0 {
				x *= 2
				x = x/10 + x%10
			}
			s += x
		}
		v := "B" + b + strconv.Itoa((10-s%10)%10)
		return "9920", "es" + strings.ToLower(v), []Identifier{{"VAT", "ES" + v}}
	}
}

func pow10(n int) uint64 {
	p := uint64(1)
	for range n {
		p *= 10
	}
	return p
}

// modNumber returns a number of width+1 digits: offset+permute(i) and a weighted
// mod-11 check digit (sumZero: the check makes the weighted sum ≡ 0, as in Danish CVR;
// otherwise the check is 11-rem, 0 for rem 0, as in Norway and Poland's rem). Bases
// whose check would be 10 are redrawn under another key.
func modNumber(i, key uint64, width int, offset, domain uint64, w []int, sumZero bool) string {
	for try := uint64(0); ; try++ {
		b := []byte(padNum(offset+permute(i, domain, key+try*0x9e3779b9), width))
		rem := weightedMod11(b, w)
		var c int
		switch {
		case sumZero:
			c = (11 - rem) % 11
		case len(w) == 9: // Polish NIP: the check is the remainder itself
			c = rem
		case rem == 0:
			c = 0
		default:
			c = 11 - rem
		}
		if c != 10 || try > 8 {
			return string(b) + strconv.Itoa(c%10)
		}
	}
}

// fiNumber returns the 8 digits of a Finnish Y-tunnus (remainder 1 is invalid and
// redrawn under another key).
func fiNumber(i, key uint64) string {
	for try := uint64(0); ; try++ {
		b := []byte(padNum(permute(i, 4_000_000, key+try*0x9e3779b9), 7))
		rem := weightedMod11(b, []int{7, 9, 10, 5, 8, 4, 2})
		if rem == 1 && try < 8 {
			continue
		}
		c := 0
		if rem > 1 {
			c = 11 - rem
		}
		return string(b) + strconv.Itoa(c)
	}
}

// docTypes draws the document types of a card of country ec.
func (g *cardGen) docTypes(ec *exportCountry) []DocumentType {
	r := g.r
	var idx [12]int
	k := 0
	add := func(j ...int) {
		for _, x := range j {
			if k < len(idx) {
				idx[k] = x
				k++
			}
		}
	}
	switch ec.c.code {
	case "AU":
		add(edPINTAUNZ)
		if r.IntN(2) == 0 {
			add(edAUNZInvoice, edAUNZCreditNote)
		}
	case "SG":
		add(edPINTSG)
		if r.IntN(3) == 0 {
			add(edSGInvoice, edSGCreditNote)
		}
	default:
		add(edInvoice, edCreditNote)
	}
	switch ec.c.code {
	case "NL":
		if r.IntN(10) < 4 {
			add(edSIUBLInvoice, edSIUBLCreditNote)
		}
	case "DE":
		if r.IntN(2) == 0 {
			add(edXRechnungInvoice, edXRechnungCreditNote)
		}
	case "FR":
		if r.IntN(10) < 3 {
			add(edFacturX)
		}
	}
	if k == 2 && r.IntN(10) == 0 {
		k = 1 // invoices only
	}
	if r.IntN(100) < 6 {
		add(edCII)
	}
	if r.IntN(100) < 4 {
		add(edOrder, edOrderResponse)
		if r.IntN(3) == 0 {
			add(edOrderChange, edOrderCancellation)
		}
	}
	if r.IntN(100) < 3 {
		add(edDespatch)
	}
	if r.IntN(100) < 8 {
		add(edMLR)
	}
	if r.IntN(100) < 4 {
		add(edInvoiceResponse)
	}
	if r.IntN(200) == 0 {
		add(edBIS2Invoice)
	}
	if r.IntN(500) == 0 {
		add(edCustom)
	}
	out := make([]DocumentType, k)
	for j := range k {
		out[j] = exportDocTypes[idx[j]].dt
	}
	return out
}

// exportDocType is a document type with what the export says about it.
type exportDocType struct {
	dt          DocumentType
	display     string
	state       string // "act" or "dep"
	nonStandard bool
}

const (
	edInvoice = iota
	edCreditNote
	edCII
	edOrder
	edOrderResponse
	edDespatch
	edInvoiceResponse
	edPINTJP
	edPINTAUNZ
	edPINTSG
	edFacturX
	edMLR
	edOrderChange
	edOrderCancellation
	edSIUBLInvoice
	edSIUBLCreditNote
	edXRechnungInvoice
	edXRechnungCreditNote
	edAUNZInvoice
	edAUNZCreditNote
	edSGInvoice
	edSGCreditNote
	edBIS2Invoice
	edCustom
)

func qns(v string) DocumentType { return DocumentType{DocTypeSchemeQNS, v} }

// exportDocTypes are the document types of synthetic exports: netsim's docKinds first
// (same index), then more from the real export. Display names and states as the code
// list 9.x has them.
var exportDocTypes = []exportDocType{
	edInvoice:             {docKinds[dkInvoice].docType, "Peppol BIS Billing UBL Invoice V3", "act", false},
	edCreditNote:          {docKinds[dkCreditNote].docType, "Peppol BIS Billing UBL Credit Note V3", "act", false},
	edCII:                 {docKinds[dkCII].docType, "Peppol BIS Billing CII Invoice V3", "act", false},
	edOrder:               {docKinds[dkOrder].docType, "Peppol Order transaction 3.0", "act", false},
	edOrderResponse:       {docKinds[dkOrderResponse].docType, "Peppol Order Response transaction 3.0", "act", false},
	edDespatch:            {docKinds[dkDespatch].docType, "Peppol Despatch Advice transaction 3.0", "act", false},
	edInvoiceResponse:     {docKinds[dkInvoiceResponse].docType, "Peppol Invoice Response transaction 3.0", "act", false},
	edPINTJP:              {docKinds[dkPINTJP].docType, "Peppol PINT Japan Invoice (UBL)", "act", false},
	edPINTAUNZ:            {docKinds[dkPINTAUNZ].docType, "Peppol PINT A-NZ Invoice (UBL)", "act", false},
	edPINTSG:              {docKinds[dkPINTSG].docType, "Peppol PINT Singapore Invoice (UBL)", "act", false},
	edFacturX:             {docKinds[dkFacturX].docType, "France Factur-X 1.0", "act", false},
	edMLR:                 {qns("urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:fdc:peppol.eu:poacc:trns:mlr:3::2.1"), "Peppol Message Level Response transaction 3.0", "act", false},
	edOrderChange:         {qns("urn:oasis:names:specification:ubl:schema:xsd:OrderChange-2::OrderChange##urn:fdc:peppol.eu:poacc:trns:order_change:3::2.3"), "Peppol Order Change", "act", false},
	edOrderCancellation:   {qns("urn:oasis:names:specification:ubl:schema:xsd:OrderCancellation-2::OrderCancellation##urn:fdc:peppol.eu:poacc:trns:order_cancellation:3::2.3"), "Peppol Order Cancellation", "act", false},
	edSIUBLInvoice:        {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0::2.1"), "SI-UBL 2.0 Invoice", "act", false},
	edSIUBLCreditNote:     {qns("urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:nen.nl:nlcius:v1.0::2.1"), "SI-UBL 2.0 Credit Note", "act", false},
	edXRechnungInvoice:    {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1"), "XRechnung UBL Invoice V3.0", "act", false},
	edXRechnungCreditNote: {qns("urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1"), "XRechnung UBL Credit Note V3.0", "act", false},
	edAUNZInvoice:         {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:aunz:3.0::2.1"), "AU-NZ Peppol BIS Billing 3.0 Invoice", "dep", false},
	edAUNZCreditNote:      {qns("urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:aunz:3.0::2.1"), "AU-NZ Peppol BIS Billing 3.0 Credit Note", "dep", false},
	edSGInvoice:           {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:sg:3.0::2.1"), "SG Peppol BIS Billing 3.0 Invoice", "act", false},
	edSGCreditNote:        {qns("urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#conformant#urn:fdc:peppol.eu:2017:poacc:billing:international:sg:3.0::2.1"), "SG Peppol BIS Billing 3.0 Credit Note", "act", false},
	edBIS2Invoice:         {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:www.cenbii.eu:transaction:biitrns010:ver2.0:extended:urn:www.peppol.eu:bis:peppol4a:ver2.0::2.1"), "", "", true},
	edCustom:              {qns("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:example.com:custom:invoice:1.0::2.1"), "", "", true},
}

// exportDocIndex maps a document type value to its index in exportDocTypes.
var exportDocIndex = func() map[string]int {
	m := make(map[string]int, len(exportDocTypes))
	for i, d := range exportDocTypes {
		m[d.dt.Value] = i
	}
	return m
}()

// exportDocLines are the doctypeid elements of exportDocTypes, written once.
var exportDocLines = func() []string {
	out := make([]string, len(exportDocTypes))
	for i, d := range exportDocTypes {
		out[i] = string(appendDocType(nil, d.dt, d.display, d.state, d.nonStandard))
	}
	return out
}()

// ---------------------------------------------------------------------------------
// Countries of the export

// exportCountry extends a netsim country with the export's material: its share of the
// real Directory, syllables for synthetic words, frequent name words and sectors.
type exportCountry struct {
	c          *country
	weight     int // per 10,000 cards, after peppol_per_country (2026-05)
	upper      int // percent of names written in capitals
	gln        int // percent of participants registered by GLN (0088)
	salt       uint64
	syllables  []string
	words      []string // frequent name words, most frequent first
	sectors    []string // sector words, most frequent first
	firstNames []string
}

var (
	sylNordic   = []string{"bjør", "hå", "gen", "sen", "vik", "strøm", "berg", "lund", "dal", "ås", "fjell", "nor", "sæ", "ther", "kjær", "hol", "mo", "rud", "by", "stad", "heim", "ø", "land", "ner", "sk", "ar", "ei", "de", "vå", "gård", "brå", "ten", "sol", "ha", "rø", "li", "nes", "tor", "ul", "ve", "ka", "ri", "må", "ng", "an", "ø", "dø", "ly", "sjø", "fos"}
	sylSwedish  = []string{"ström", "berg", "lund", "qvist", "sjö", "ny", "åk", "es", "son", "gren", "holm", "dahl", "ek", "öh", "man", "ling", "sved", "vall", "ång", "hed", "by", "sta", "tor", "rå", "ka", "li", "ne", "vä", "ger", "ad", "al", "bo", "dal", "fors", "ham", "in", "ja", "kul", "mö", "la"}
	sylDanish   = []string{"sø", "ren", "sen", "møl", "gaard", "kjær", "bæk", "nør", "holm", "skov", "øster", "vest", "lund", "borg", "by", "ager", "hus", "ma", "dal", "ry", "bro", "ka", "li", "ne", "tå", "ve", "ing", "ha", "ås", "ol"}
	sylDutch    = []string{"van", "der", "hoe", "ven", "kamp", "brink", "berg", "dijk", "veld", "hof", "mee", "ter", "bak", "vis", "smit", "jan", "sen", "aar", "wou", "ters", "maes", "kerk", "hou", "ten", "boom", "daal", "heu", "vel", "ij", "zee", "loo", "gels", "bos", "broek", "lin", "de", "gee", "rt", "stra", "ma"}
	sylFrench   = []string{"bel", "mont", "lé", "roche", "val", "fon", "taine", "ri", "ber", "nar", "che", "vre", "mar", "tin", "du", "bois", "lam", "bert", "gé", "rard", "fau", "re", "mer", "cier", "é", "tang", "châ", "teau", "ro", "seau", "cô", "té", "ville", "cour", "ger", "main", "pé", "rin", "gne", "lan"}
	sylGerman   = []string{"mül", "ler", "bau", "hof", "stein", "wald", "berg", "haus", "schrö", "der", "krü", "ger", "wei", "ß", "gro", "köh", "bä", "cker", "fuchs", "hoff", "mann", "lin", "den", "brun", "ner", "feld", "burg", "dorf", "hä", "ber", "lé", "sch", "wer", "ke", "hei", "ni", "gen", "tal", "au", "rich"}
	sylEnglish  = []string{"ash", "worth", "field", "ton", "brook", "ham", "wood", "ley", "green", "stone", "bridge", "well", "hill", "mar", "sh", "bury", "ford", "win", "ches", "ter", "by", "dale", "ridge", "more", "ca", "ro", "li", "an", "ex", "el", "son", "west", "north", "vale", "gate", "kin", "ly", "en", "tech", "core"}
	sylItalian  = []string{"ros", "si", "bian", "chi", "fer", "ra", "ri", "col", "om", "bo", "ric", "ci", "gal", "li", "con", "ti", "de", "lu", "ca", "mar", "ti", "no", "val", "le", "sa", "ber", "to", "ni", "lo", "pe", "tri", "zi", "an", "gel", "ò", "ù", "pa", "ol", "gio", "via"}
	sylPolish   = []string{"ko", "wal", "ski", "łód", "woź", "dąb", "przy", "szcz", "cz", "no", "wak", "wiś", "niew", "zie", "liń", "kam", "iń", "row", "ska", "gór", "ny", "pol", "bud", "mar", "ek", "ja", "rz", "ść", "ża", "bia", "ły", "sto", "cho", "wa", "ta", "le", "mi", "ra", "dom", "grod"}
	sylFinnish  = []string{"mä", "ki", "nen", "jär", "vi", "hä", "lä", "koi", "pyy", "kkö", "vir", "ta", "ne", "kor", "pi", "lah", "ti", "saa", "ri", "sa", "lo", "jo", "ki", "nie", "mi", "ran", "ta", "hei", "kin", "oja", "lam", "pi", "su", "o", "kal", "lio", "va", "aa", "kos", "ki"}
	sylSpanish  = []string{"pe", "ña", "mu", "ñoz", "nú", "ñez", "gar", "cí", "a", "fer", "nán", "dez", "mar", "tí", "ib", "á", "cas", "ta", "ño", "or", "dó", "ro", "san", "to", "vi", "lla", "al", "ca", "sie", "rra", "mon", "te", "va", "le", "cio", "rí", "os", "ba", "rre", "ra"}
	sylSingapur = []string{"tan", "lim", "lee", "ng", "wong", "goh", "chua", "ong", "teo", "koh", "hui", "ming", "jia", "xin", "hao", "wei", "kai", "ling", "sheng", "tat", "hup", "seng", "heng", "soon", "kiat", "meng", "aik", "beng", "chye", "eng"}
)

func buildExportCountries() []exportCountry {
	shared := []string{"Consulting", "Holding", "Services", "Group", "Invest", "Solutions", "Management", "Trading", "Technology", "Partners", "Service", "International", "Systems", "Design", "Media", "Capital", "Properties", "Industries", "Software", "Logistics"}
	type extra struct {
		code                string
		weight, upper, gln  int
		syl, words, sectors []string
		firstNames          []string
	}
	extras := []extra{
		{code: "BE", weight: 5400, upper: 15, gln: 1, syl: sylDutch,
			words:      []string{"Vlaams", "Belgian", "Euro", "Atelier", "Garage", "Immo", "Bureau", "Frituur", "Apotheek", "Dokterspraktijk", "Bakkerij", "Cabinet", "Pharmacie"},
			sectors:    []string{"Consult", "Bouw", "Immo", "Management", "Services", "Invest", "Renovatie", "Transport", "Électricité", "Schrijnwerkerij", "Dakwerken", "Medical", "Tuinaanleg"},
			firstNames: []string{"Jan", "Pieter", "Marie", "Sofie", "Luc", "Koen", "Nathalie", "Benoît", "Els", "Geert", "Hélène", "Dirk", "Ann", "Frédéric"}},
		{code: "AU", weight: 1140, upper: 20, gln: 2, syl: sylEnglish,
			words:      []string{"Aussie", "Southern", "Coastal", "Outback", "Pacific", "Sunshine", "Harbour", "Golden", "Eastern", "Metro"},
			sectors:    []string{"Holdings", "Trading", "Services", "Constructions", "Plumbing", "Electrical", "Investments", "Trust", "Enterprises", "Family Trust"},
			firstNames: []string{"Jack", "Olivia", "Liam", "Charlotte", "Noah", "Mia", "Cooper", "Isla", "Lachlan", "Matilda"}},
		{code: "NO", weight: 980, upper: 60, gln: 1, syl: sylNordic,
			words:      []string{"Norsk", "Nordic", "Vest", "Nord", "Sør", "Øst", "Fjord", "Hav", "Fjell", "Kyst", "Midt", "Nye", "Lofoten", "Vik"},
			sectors:    []string{"Holding", "Eiendom", "Bygg", "Invest", "Consulting", "Transport", "Service", "Regnskap", "Elektro", "Maskin", "Rør", "Entreprenør", "Tømrer", "Maler", "Anlegg", "Helse", "Eiendomsutvikling"},
			firstNames: []string{"Ørjan", "Kjell", "Bjørn", "Ingrid", "Solveig", "Håkon", "Åse", "Terje", "Ståle", "Kari", "Øyvind", "Gunnhild", "Pål", "Ragnhild"}},
		{code: "FR", weight: 900, upper: 25, gln: 1, syl: sylFrench,
			words:      []string{"Société", "Groupe", "Atelier", "Cabinet", "Garage", "Boulangerie", "Pharmacie", "Domaine", "Maison", "Établissements", "Compagnie"},
			sectors:    []string{"Conseil", "Services", "Bâtiment", "Transports", "Immobilier", "Électricité", "Distribution", "Ingénierie", "Développement", "Gestion", "Santé"},
			firstNames: []string{"Jean", "Émilie", "François", "Hélène", "Benoît", "Céline", "Jérôme", "Anaïs", "Stéphane", "Loïc"}},
		{code: "SE", weight: 410, upper: 10, gln: 3, syl: sylSwedish,
			words:      []string{"Svensk", "Nordisk", "Väst", "Norr", "Syd", "Öst", "Skandinavisk", "Ny", "Stor", "Älv"},
			sectors:    []string{"Bygg", "Fastigheter", "Konsult", "Invest", "Entreprenad", "Måleri", "El", "VVS", "Förvaltning", "Teknik", "Transport", "Holding", "Städ"},
			firstNames: []string{"Åsa", "Lars", "Björn", "Ingrid", "Göran", "Märta", "Sören", "Karin", "Anders", "Linnéa"}},
		{code: "NL", weight: 280, upper: 10, gln: 3, syl: sylDutch,
			words:      []string{"Holland", "Nederland", "Dutch", "Noord", "Zuid", "Oost", "West", "Groen", "Stichting", "Gemeente"},
			sectors:    []string{"Holding", "Beheer", "Bouw", "Installatietechniek", "Advies", "Groothandel", "Zorg", "Transport", "Techniek", "Vastgoed", "Onderhoud"},
			firstNames: []string{"Jan", "Sanne", "Pieter", "Femke", "Joost", "Anouk", "Bram", "Lotte", "Thijs", "Eline"}},
		{code: "SG", weight: 170, upper: 30, gln: 1, syl: sylSingapur,
			words:      []string{"Asia", "Pacific", "Lion", "Global", "Orient", "Eastern", "Straits", "Marina", "Raffles", "Merlion"},
			sectors:    []string{"Trading", "Engineering", "Logistics", "Technologies", "Marine Services", "Holdings", "Enterprise", "Construction", "Consultancy", "F&B"},
			firstNames: []string{"Wei", "Hui Min", "Jun Jie", "Siti", "Kumar", "Mei Ling", "Arjun", "Xin Yi"}},
		{code: "DK", weight: 170, upper: 10, gln: 25, syl: sylDanish,
			words:      []string{"Dansk", "Nordisk", "Jysk", "Fyns", "Sjællands", "Vest", "Øst", "Nord", "Syd", "Ny"},
			sectors:    []string{"Byg", "Holding", "Invest", "Rådgivning", "Handel", "Ejendomme", "Transport", "El", "VVS", "Tømrer", "Service"},
			firstNames: []string{"Søren", "Mette", "Jens", "Birgitte", "Mads", "Løkke", "Anders", "Kirsten", "Rasmus", "Signe"}},
		{code: "IT", weight: 60, upper: 35, gln: 2, syl: sylItalian,
			firstNames: []string{"Giulia", "Marco", "Niccolò", "Francesca", "Luca", "Chiara", "Matteo", "Giovanni"}},
		{code: "PL", weight: 60, upper: 30, gln: 2, syl: sylPolish,
			firstNames: []string{"Paweł", "Agnieszka", "Łukasz", "Małgorzata", "Piotr", "Joanna", "Michał", "Zofia"}},
		{code: "GB", weight: 50, upper: 35, gln: 5, syl: sylEnglish,
			words:      []string{"British", "Royal", "Northern", "Southern", "Albion", "Thames", "Pennine", "Highland"},
			firstNames: []string{"Oliver", "Amelia", "George", "Isla", "Harry", "Georgina", "Siobhán", "Rhys"}},
		{code: "DE", weight: 30, upper: 10, gln: 5, syl: sylGerman,
			words:      []string{"Deutsche", "Nord", "Süd", "Rhein", "Bayerische", "Stadtwerke", "Autohaus", "Landkreis"},
			firstNames: []string{"Jürgen", "Ute", "Klaus", "Sabine", "Jörg", "Käthe", "Matthias", "Anja"}},
		{code: "FI", weight: 40, upper: 20, gln: 4, syl: sylFinnish,
			firstNames: []string{"Mikko", "Päivi", "Jyrki", "Sanna", "Jaakko", "Tiina", "Ville", "Sirpa"}},
		{code: "AT", weight: 20, upper: 10, gln: 5, syl: sylGerman,
			firstNames: []string{"Jürgen", "Theresia", "Florian", "Katharina", "Lukas", "Anna"}},
		{code: "IE", weight: 15, upper: 25, gln: 5, syl: sylEnglish,
			firstNames: []string{"Siobhán", "Seán", "Aoife", "Pádraig", "Niamh", "Ciarán"}},
		{code: "ES", weight: 15, upper: 30, gln: 5, syl: sylSpanish,
			firstNames: []string{"José", "María", "Begoña", "Íñigo", "Nuria", "Álvaro"}},
	}
	out := make([]exportCountry, 0, len(extras))
	for j, x := range extras {
		var c *country
		for k := range countries {
			if countries[k].code == x.code {
				c = &countries[k]
			}
		}
		ec := exportCountry{c: c, weight: x.weight, upper: x.upper, gln: x.gln, salt: splitmix64(uint64(j) + 77), syllables: x.syl, firstNames: x.firstNames}
		ec.words = append(append(append([]string{}, x.words...), c.roots...), c.cities...)
		sectors := append(append([]string{}, x.sectors...), c.sectors...)
		ec.sectors = append(sectors, shared...)
		out = append(out, ec)
	}
	return out
}

// exportCountries is the country table of synthetic exports; its order is part of the
// deterministic output.
var exportCountries = buildExportCountries()

var exportWeightTotal = func() int {
	t := 0
	for _, c := range exportCountries {
		t += c.weight
	}
	return t
}()

func pickExportCountry(x int) *exportCountry {
	for i := range exportCountries {
		x -= exportCountries[i].weight
		if x < 0 {
			return &exportCountries[i]
		}
	}
	return &exportCountries[0]
}
