package export

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// xmlDecoder assembles cards from the XML scanner's tokens. Strings of a card are collected
// in one arena and turned into one string at the end of the card, so a card costs a handful
// of allocations whatever its size; strings that repeat across cards (doc types, schemes,
// country codes, dates) come from an interning table instead.
type xmlDecoder struct {
	s      *xmlScanner
	done   bool
	intern interner
	// docTypes are the doc types of the tags in the scanner's tag cache; cacheBytes the
	// size of its keys.
	docTypes   []DocType
	cacheBytes int
	maxCard    int // maxCardBytes; smaller in tests

	// Reused per card.
	arena   []byte
	ents    []rawEntity
	names   []rawName
	ids     []rawID
	webs    []span
	docs    []DocType
	scratch []byte
}

// span is a string under construction: a range of the arena.
type span struct{ off, end int32 }

type rawName struct {
	name span
	lang string
}

type rawID struct {
	scheme string
	value  span
}

type rawEntity struct {
	country          string
	geo, addl        span
	reg              string
	names, ids, webs [2]int32 // ranges of xmlDecoder.names, .ids, .webs
}

func newXMLDecoder(src io.Reader, prefix []byte, h *Header) (*xmlDecoder, error) {
	x := &xmlDecoder{s: newXMLScanner(src, prefix), intern: newInterner(), maxCard: maxCardBytes}
	s := x.s
	s.tagCache, s.cacheName = make(map[string]int32, 256), "doctypeid"
	for {
		if err := s.next(); err != nil {
			if _, ok := err.(*syntaxError); ok {
				return nil, &FormatError{Reason: "not well-formed XML before the root element: " + err.Error()}
			}
			return nil, fmt.Errorf("export: %w", err)
		}
		switch s.kind {
		case tokText:
			if len(bytes.TrimLeft(s.text, " \t\r\n")) > 0 {
				return nil, &FormatError{Reason: "text before the XML root element"}
			}
			continue
		case tokEOF:
			return nil, &FormatError{Reason: "XML without a root element"}
		case tokEnd:
			return nil, &FormatError{Reason: "XML starts with an end tag"}
		}
		break
	}
	// The root element: its namespace decides the format.
	prefixName := []byte(nil)
	if i := bytes.IndexByte(s.qname, ':'); i >= 0 {
		prefixName = s.qname[:i]
	}
	var ns string
	for _, a := range s.attrs {
		// a.name is the local name; the attribute's prefix is before it in the tag.
		if x.isNSDecl(a, prefixName) {
			ns = string(bytes.TrimSpace(s.appendValue(nil, a.value)))
		}
	}
	switch ns {
	case NamespaceXMLv3:
		h.Format = FormatXMLv3
	case NamespaceXMLv2:
		h.Format = FormatXMLv2
	case "":
		return nil, &FormatError{Reason: fmt.Sprintf("XML root element <%s> without a namespace", s.qname)}
	default:
		return nil, &FormatError{Reason: fmt.Sprintf("XML root element <%s> in namespace %q", s.qname, ns)}
	}
	for _, a := range s.attrs {
		switch string(a.name) {
		case "creationdt":
			h.Created = parseTime(string(bytes.TrimSpace(s.appendValue(nil, a.value))))
		case "codeListSupported":
			h.CodeList = string(bytes.TrimSpace(s.appendValue(nil, a.value)))
		}
	}
	s.soft = ""
	if s.selfClose {
		x.done = true
		_ = s.next() // the pending end of the root
		if err := x.drain(); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// isNSDecl reports whether attribute a of the current start tag declares the namespace of
// prefix (xmlns="…" for no prefix, xmlns:p="…" for p). The scanner keeps only local names,
// so this looks at what precedes the name in the raw tag.
func (x *xmlDecoder) isNSDecl(a xmlAttr, prefix []byte) bool {
	raw := x.s.raw
	off := cap(raw) - cap(a.name) // offset of the attribute's local name in raw
	if off <= 0 || off > len(raw) {
		return false
	}
	if prefix == nil {
		return string(a.name) == "xmlns" && isSpace(raw[off-1])
	}
	return bytes.Equal(a.name, prefix) && off > 6 && string(raw[off-6:off]) == "xmlns:" && isSpace(raw[off-7])
}

// drain reads what follows the root element: only whitespace, comments and processing
// instructions may, up to the end of the input (which also makes gzip check its checksum).
func (x *xmlDecoder) drain() error {
	s := x.s
	for {
		if err := s.next(); err != nil {
			return err
		}
		switch s.kind {
		case tokEOF:
			return nil
		case tokText:
			if len(bytes.TrimLeft(s.text, " \t\r\n")) == 0 {
				continue
			}
		}
		return s.syntax("content after the root element")
	}
}

// next returns the next card, a *RecordError, io.EOF or a fatal error.
func (x *xmlDecoder) next(index int) (*Card, error) {
	if x.done {
		return nil, io.EOF
	}
	s := x.s
	if len(s.stackEnds) == 0 {
		// A mismatched end tag inside the last card closed the root.
		x.done = true
		if err := x.drain(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	s.wantText = false // text between cards is ignored
	for {
		if err := s.next(); err != nil {
			return nil, err
		}
		switch s.kind {
		case tokStart:
			if s.depth == 2 && string(s.name) == "businesscard" {
				s.soft = ""
				return x.card(index)
			}
		case tokEnd:
			if s.depth == 1 {
				x.done = true
				s.wantText = true
				if err := x.drain(); err != nil {
					return nil, err
				}
				return nil, io.EOF
			}
		case tokEOF:
			return nil, fmt.Errorf("XML ends before the root element is closed: %w", io.ErrUnexpectedEOF)
		}
		s.soft = ""
	}
}

// Text elements of an entity.
const (
	capNone = iota
	capGeo
	capWebsite
	capAddl
	capReg
)

// card reads one businesscard element; the scanner is on its start tag.
func (x *xmlDecoder) card(index int) (*Card, error) {
	s := x.s
	x.arena, x.ents, x.names, x.ids, x.webs, x.docs = x.arena[:0], x.ents[:0], x.names[:0], x.ids[:0], x.webs[:0], x.docs[:0]
	var (
		reason      string
		pScheme     string
		pValue      span
		hasP        bool
		inEntity    bool
		capture     int
		captureFrom int32
	)
	if s.selfClose {
		_ = s.next() // its pending end tag
		return nil, &RecordError{Index: index, Reason: "no participant"}
	}
	s.wantText = false // whitespace between the elements of a card is not needed
	for {
		if err := s.next(); err != nil {
			return nil, err
		}
		if s.soft != "" {
			if reason == "" {
				reason = s.soft
			}
			s.soft = ""
		}
		if reason == "" && x.tooLarge() {
			reason = "card larger than 64 MiB"
		}
		switch s.kind {
		case tokStart:
			if reason != "" && x.tooLarge() {
				break // the card is skipped anyway: collect nothing more
			}
			switch s.depth {
			case 3:
				switch string(s.name) {
				case "participant":
					if !hasP {
						hasP = true
						for _, a := range s.attrs {
							switch string(a.name) {
							case "scheme":
								pScheme = x.internValue(a.value)
							case "value":
								pValue = x.appendTrimmed(a.value)
							}
						}
					}
				case "entity":
					inEntity = true
					x.ents = append(x.ents, rawEntity{})
					e := &x.ents[len(x.ents)-1]
					e.names[0], e.ids[0], e.webs[0] = int32(len(x.names)), int32(len(x.ids)), int32(len(x.webs))
					for _, a := range s.attrs {
						if string(a.name) == "countrycode" {
							e.country = x.internUpper(a.value)
						}
					}
				case "doctypeid":
					x.docType()
				}
			case 4:
				if !inEntity {
					break
				}
				switch string(s.name) {
				case "name":
					var n rawName
					for _, a := range s.attrs {
						switch string(a.name) {
						case "name":
							n.name = x.appendTrimmed(a.value)
						case "language":
							n.lang = x.internValue(a.value)
						}
					}
					if n.name.end > n.name.off {
						x.names = append(x.names, n)
					}
				case "id":
					var id rawID
					for _, a := range s.attrs {
						switch string(a.name) {
						case "scheme":
							id.scheme = x.internValue(a.value)
						case "value":
							id.value = x.appendTrimmed(a.value)
						}
					}
					if id.value.end > id.value.off {
						x.ids = append(x.ids, id)
					}
				case "geoinfo":
					capture = capGeo
				case "website":
					capture = capWebsite
				case "additionalinfo":
					capture = capAddl
				case "regdate":
					capture = capReg
				}
				captureFrom = int32(len(x.arena))
				s.wantText = capture != capNone
			}
		case tokText:
			if capture != capNone && s.depth == 4 && !x.tooLarge() {
				x.arena = s.appendText(x.arena)
			}
		case tokEnd:
			if s.depth <= 4 && capture != capNone {
				x.endCapture(capture, captureFrom)
				capture = capNone
				s.wantText = false
			}
			if s.depth <= 3 && inEntity {
				inEntity = false
				e := &x.ents[len(x.ents)-1]
				e.names[1], e.ids[1], e.webs[1] = int32(len(x.names)), int32(len(x.ids)), int32(len(x.webs))
			}
			if s.depth <= 2 {
				s.wantText = true
				if reason == "" && x.tooLarge() {
					reason = "card larger than 64 MiB"
				}
				return x.finish(index, reason, hasP, pScheme, pValue)
			}
		case tokEOF:
			return nil, fmt.Errorf("XML ends inside card %d: %w", index, io.ErrUnexpectedEOF)
		}
	}
}

// maxCardBytes bounds the memory one card may take while it is read; a larger card is a
// *RecordError (the real ones have a few KiB).
const maxCardBytes = 64 << 20

// tooLarge reports whether the card being read has outgrown maxCardBytes.
func (x *xmlDecoder) tooLarge() bool {
	n := len(x.arena) + 64*(len(x.ents)+len(x.names)+len(x.ids)+len(x.webs)+len(x.docs))
	return n > x.maxCard
}

// endCapture stores the text collected since from in the current entity.
func (x *xmlDecoder) endCapture(capture int, from int32) {
	e := &x.ents[len(x.ents)-1]
	sp := x.trimSpan(span{from, int32(len(x.arena))})
	switch capture {
	case capGeo:
		if e.geo.end == e.geo.off {
			e.geo = sp
		}
	case capAddl:
		if e.addl.end == e.addl.off {
			e.addl = sp
		}
	case capWebsite:
		if sp.end > sp.off {
			x.webs = append(x.webs, sp)
		}
	case capReg:
		if e.reg == "" {
			e.reg = x.intern.get(x.arena[sp.off:sp.end])
		}
	}
}

func (x *xmlDecoder) docType() {
	s := x.s
	// Doc type tags repeat verbatim across cards: the scanner recognises a tag seen before.
	if s.cached >= 0 {
		if dt := x.docTypes[s.cached]; dt.Value != "" {
			x.docs = append(x.docs, dt)
		}
		return
	}
	var dt DocType
	deprecated := false
	for _, a := range s.attrs {
		switch string(a.name) {
		case "scheme":
			dt.Scheme = x.internValue(a.value)
		case "value":
			dt.Value = x.internValue(a.value)
		case "displayname":
			dt.DisplayName = x.internValue(a.value)
		case "state":
			dt.State = x.internValue(a.value)
		case "non-standard":
			dt.NonStandard = string(bytes.TrimSpace(x.decode(a.value))) == "true"
		case "deprecated": // XML v2
			deprecated = string(bytes.TrimSpace(x.decode(a.value))) == "true"
		}
	}
	if deprecated && dt.State == "" {
		dt.State = "dep"
	}
	// Only tags without '>' inside their values are cached: the scanner looks them up by
	// the bytes up to the first '>'.
	if s.soft == "" && x.cacheBytes+len(s.raw) <= maxCacheBytes && bytes.IndexByte(s.raw, '>') == len(s.raw)-1 {
		x.cacheBytes += len(s.raw)
		s.tagCache[string(s.raw)] = int32(len(x.docTypes))
		x.docTypes = append(x.docTypes, dt)
	}
	if dt.Value != "" {
		x.docs = append(x.docs, dt)
	}
}

// decode returns the decoded attribute value, in a scratch buffer if it had references.
func (x *xmlDecoder) decode(raw []byte) []byte {
	if indexAmpCR(raw) < 0 {
		return raw
	}
	x.scratch = x.s.appendValue(x.scratch[:0], raw)
	return x.scratch
}

func (x *xmlDecoder) internValue(raw []byte) string {
	return x.intern.get(bytes.TrimSpace(x.decode(raw)))
}

// internUpper interns the upper-cased, trimmed value (country codes).
func (x *xmlDecoder) internUpper(raw []byte) string {
	v := bytes.TrimSpace(x.decode(raw))
	for _, c := range v {
		if c >= 'a' && c <= 'z' {
			v = bytes.ToUpper(v)
			break
		}
	}
	return x.intern.get(v)
}

// appendTrimmed appends the decoded value to the arena and returns its trimmed span.
func (x *xmlDecoder) appendTrimmed(raw []byte) span {
	from := int32(len(x.arena))
	x.arena = x.s.appendValue(x.arena, raw)
	return x.trimSpan(span{from, int32(len(x.arena))})
}

func (x *xmlDecoder) trimSpan(sp span) span {
	b := x.arena[sp.off:sp.end]
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return span{sp.off, sp.off}
	}
	off := sp.off + int32(cap(b)-cap(t))
	return span{off, off + int32(len(t))}
}

// finish validates the card read and builds it with one string for all its text.
func (x *xmlDecoder) finish(index int, reason string, hasP bool, pScheme string, pValue span) (*Card, error) {
	switch {
	case reason != "":
	case !hasP:
		reason = "no participant"
	case pValue.end == pValue.off:
		reason = "participant without a value"
	case len(x.ents) == 0:
		reason = "no entity"
	default:
		for _, e := range x.ents {
			if e.names[1] == e.names[0] {
				reason = "entity without a name"
				break
			}
		}
	}
	if reason != "" {
		pid := ""
		if hasP {
			pid = pScheme + "::" + toValidUTF8(string(x.arena[pValue.off:pValue.end]))
		}
		return nil, &RecordError{Index: index, Participant: pid, Reason: reason}
	}

	all := string(x.arena)
	valid := utf8.ValidString(all)
	str := func(sp span) string {
		v := all[sp.off:sp.end]
		if !valid {
			v = toValidUTF8(v)
		}
		return v
	}
	var c *Card
	var names []Name
	if len(x.ents) == 1 && len(x.names) == 1 {
		// Most cards have one entity with one name: one allocation for all three.
		one := new(struct {
			card   Card
			entity [1]Entity
			name   [1]Name
		})
		c = &one.card
		c.Entities, names = one.entity[:], one.name[:]
	} else {
		c = new(Card)
		c.Entities = make([]Entity, len(x.ents))
		names = make([]Name, len(x.names))
	}
	c.Participant = ID{Scheme: pScheme, Value: str(pValue)}
	for i, n := range x.names {
		names[i] = Name{Name: str(n.name), Language: n.lang}
	}
	var ids []ID
	if len(x.ids) > 0 {
		ids = make([]ID, len(x.ids))
		for i, id := range x.ids {
			ids[i] = ID{Scheme: id.scheme, Value: str(id.value)}
		}
	}
	var webs []string
	if len(x.webs) > 0 {
		webs = make([]string, len(x.webs))
		for i, w := range x.webs {
			webs[i] = str(w)
		}
	}
	for i := range x.ents {
		e := &x.ents[i]
		ce := &c.Entities[i]
		ce.Names = names[e.names[0]:e.names[1]:e.names[1]]
		if e.ids[1] > e.ids[0] {
			ce.Identifiers = ids[e.ids[0]:e.ids[1]:e.ids[1]]
		}
		if e.webs[1] > e.webs[0] {
			ce.Websites = webs[e.webs[0]:e.webs[1]:e.webs[1]]
		}
		ce.CountryCode = e.country
		ce.GeoInfo = str(e.geo)
		ce.AdditionalInfo = str(e.addl)
		ce.RegDate = e.reg
	}
	if len(x.docs) > 0 {
		c.DocTypes = make([]DocType, len(x.docs))
		copy(c.DocTypes, x.docs)
	}
	return c, nil
}
