package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The XML scanner is a small pull tokenizer for the subset of XML the Directory exports use:
// elements with attributes (either quote), self-closing tags, character and entity references,
// CDATA, comments, processing instructions and a DOCTYPE without entity declarations. It works
// on one large buffer it refills itself, hands out slices into that buffer (valid until the
// next call of next) and decodes references only when the consumer asks for a value. It is
// about ten times faster than encoding/xml because it does no namespace bookkeeping, allocates
// nothing per token and finds delimiters with bytes.IndexByte.

type tokenKind uint8

const (
	tokNone tokenKind = iota
	tokStart
	tokEnd
	tokText
	tokEOF
)

const (
	scanBufSize  = 256 << 10 // buffer and read size; it starts at minBufSize and doubles per read
	minBufSize   = 8 << 10
	maxTokenSize = 64 << 20 // a single tag or text run larger than this is a fatal error
	maxDepth     = 256      // deeper nesting is a fatal error
)

// xmlAttr is one attribute of a start tag: its local name and raw (undecoded) value.
type xmlAttr struct {
	name  []byte
	value []byte
}

// syntaxError is a fatal error in the XML token stream.
type syntaxError struct {
	offset int64
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("XML syntax error at byte %d: %s", e.offset, e.msg)
}

var errTokenTooLarge = errors.New("XML token larger than 64 MiB")

type xmlScanner struct {
	rd   io.Reader
	buf  []byte
	pos  int   // next unread byte in buf
	end  int   // end of valid data in buf
	rerr error // sticky read error; io.EOF at the end of the input
	off  int64 // stream offset of buf[0]

	// The current token. name is the local name (after any prefix) for start and end tags;
	// qname the qualified name; depth is the element's depth for start and end tags
	// (root = 1) and the enclosing element's depth for text.
	kind      tokenKind
	name      []byte
	qname     []byte
	attrs     []xmlAttr
	text      []byte // raw text, or CDATA content when cdata is set
	cdata     bool
	depth     int
	selfClose bool
	raw       []byte // the whole start tag, for interning keys

	// wantText is false while the consumer ignores text: text runs are then skipped (only
	// CDATA sections are still returned).
	wantText bool

	// tagCache maps start tags named cacheName, byte for byte, to an id the consumer gave
	// them; a start tag found there is not parsed again: cached holds its id (else -1) and
	// attrs is empty.
	tagCache  map[string]int32
	cacheName string
	cached    int32

	// soft is a non-fatal problem found in the current token (an unknown entity, a
	// mismatched end tag); the consumer reads and clears it.
	soft string

	pendingEnd bool
	stack      []byte // qualified names of the open elements, concatenated
	stackEnds  []int  // end offset in stack of each open element's name
}

func newXMLScanner(rd io.Reader, prefix []byte) *xmlScanner {
	s := &xmlScanner{rd: rd, buf: make([]byte, max(minBufSize, len(prefix))), wantText: true}
	s.end = copy(s.buf, prefix)
	return s
}

// offset is the stream offset of the next unread byte, for error messages.
func (s *xmlScanner) offset() int64 { return s.off + int64(s.pos) }

func (s *xmlScanner) syntax(msg string) error {
	return &syntaxError{offset: s.offset(), msg: msg}
}

// fill moves the unread bytes to the front of the buffer and reads more. It reports whether
// new data arrived; when not, s.rerr says why.
func (s *xmlScanner) fill() bool {
	if s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.off += int64(s.pos)
		s.pos, s.end = 0, n
	}
	if s.end == len(s.buf) || len(s.buf) < scanBufSize {
		// Grow when a token does not fit, and while small: short exports stay cheap, long
		// ones soon read in large chunks.
		if len(s.buf) >= maxTokenSize {
			s.rerr = errTokenTooLarge
			return false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.rd.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.rerr = io.ErrNoProgress
	return false
}

// readErr is the fatal error for input that ended inside a token.
func (s *xmlScanner) readErr() error {
	if s.rerr == io.EOF {
		return fmt.Errorf("XML ends inside a token at byte %d: %w", s.offset(), io.ErrUnexpectedEOF)
	}
	return s.rerr
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// nameEnd marks the bytes that end an element or attribute name.
var nameEnd = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '/': true, '>': true, '=': true, '<': true, '"': true, '\'': true}

// markup results of the parse functions.
const (
	needMore = -1 // the token continues beyond the buffer
	badToken = -2 // syntax error; s.soft holds the message
)

// next advances to the next token. Comments, processing instructions and the DOCTYPE are
// skipped. It returns a fatal error for broken syntax, a read error or input that ends inside
// a token; at the end of the input the token is tokEOF.
func (s *xmlScanner) next() error {
	if s.pendingEnd {
		s.pendingEnd = false
		s.kind = tokEnd
		s.attrs = s.attrs[:0]
		return nil
	}
	for {
		b := s.buf[s.pos:s.end]
		if len(b) == 0 {
			if s.fill() {
				continue
			}
			if s.rerr == io.EOF {
				s.kind = tokEOF
				return nil
			}
			return s.rerr
		}
		if b[0] != '<' {
			i := bytes.IndexByte(b, '<')
			if !s.wantText {
				if i < 0 {
					i = len(b)
				}
				s.pos += i
				continue
			}
			if i < 0 {
				if s.fill() {
					continue
				}
				if s.rerr != io.EOF {
					return s.rerr
				}
				i = len(b)
			}
			s.pos += i
			s.kind, s.text, s.cdata, s.depth = tokText, b[:i], false, len(s.stackEnds)
			return nil
		}
		var n int
		skip := false
		switch {
		case len(b) < 2:
			n = needMore
		case b[1] == '/':
			n = s.parseEnd(b)
		case b[1] == '?':
			n = skipPast(b, 2, "?>")
			skip = true
		case b[1] == '!':
			n, skip = s.parseBang(b)
		default:
			n = s.parseStart(b)
		}
		switch n {
		case needMore:
			if s.fill() {
				continue
			}
			return s.readErr()
		case badToken:
			msg := s.soft
			s.soft = ""
			return s.syntax(msg)
		}
		s.pos += n
		if skip {
			continue
		}
		if s.kind == tokEnd && s.name == nil {
			continue // an end tag that closes nothing; s.soft says so
		}
		return nil
	}
}

// skipPast returns the length of b up to and including the first occurrence of end at or
// after from, or needMore.
func skipPast(b []byte, from int, end string) int {
	if from > len(b) {
		return needMore
	}
	i := bytes.Index(b[from:], []byte(end))
	if i < 0 {
		return needMore
	}
	return from + i + len(end)
}

// parseBang handles <!-- -->, <![CDATA[ ]]> and <!DOCTYPE >.
func (s *xmlScanner) parseBang(b []byte) (n int, skip bool) {
	const comment, cdata, doctype = "<!--", "<![CDATA[", "<!DOCTYPE"
	switch {
	case bytes.HasPrefix(b, []byte(comment)):
		return skipPast(b, len(comment), "-->"), true
	case bytes.HasPrefix(b, []byte(cdata)):
		n := skipPast(b, len(cdata), "]]>")
		if n >= 0 {
			s.kind, s.text, s.cdata, s.depth = tokText, b[len(cdata):n-3], true, len(s.stackEnds)
		}
		return n, false
	case bytes.HasPrefix(b, []byte(doctype)):
		// Skip to the closing '>', past an internal subset in brackets and quoted strings.
		depth := 0
		var quote byte
		for i := len(doctype); i < len(b); i++ {
			c := b[i]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '[':
				depth++
			case c == ']':
				depth--
			case c == '>' && depth <= 0:
				return i + 1, true
			}
		}
		return needMore, true
	}
	if len(b) < len(cdata) && (bytes.HasPrefix([]byte(comment), b) || bytes.HasPrefix([]byte(cdata), b) || bytes.HasPrefix([]byte(doctype), b)) {
		return needMore, false
	}
	s.soft = "unknown markup after <!"
	return badToken, false
}

// parseName returns the end of the name starting at b[i] (or needMore or badToken) and the
// start of its local name.
func (s *xmlScanner) parseName(b []byte, i int) (end, local int) {
	colon := -1
	j := i
	for j < len(b) && !nameEnd[b[j]] {
		if b[j] == ':' && colon < 0 {
			colon = j
		}
		j++
	}
	if j == len(b) {
		return needMore, 0
	}
	if j == i {
		s.soft = "missing name"
		return badToken, 0
	}
	// The prefix ends at the first colon, as in encoding/xml; a name that starts or ends
	// with it has no prefix.
	if colon > i && colon < j-1 {
		return j, colon + 1
	}
	return j, i
}

func (s *xmlScanner) parseStart(b []byte) int {
	e, local := s.parseName(b, 1)
	if e < 0 {
		return e
	}
	qname := b[1:e]
	s.cached = -1
	if s.tagCache != nil && string(b[local:e]) == s.cacheName {
		// A tag seen before, byte for byte, ends at its first '>' and needs no parsing.
		if gt := bytes.IndexByte(b[e:], '>'); gt >= 0 {
			if id, ok := s.tagCache[string(b[:e+gt+1])]; ok {
				s.cached = id
				s.selfClose = b[e+gt-1] == '/'
				s.attrs = s.attrs[:0]
				i := e + gt + 1
				s.kind, s.qname, s.name, s.raw = tokStart, qname, b[local:e], b[:i]
				return s.pushStart(i)
			}
		}
	}
	attrs := s.attrs[:0]
	i := e
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return needMore
		}
		switch b[i] {
		case '>':
			i++
			s.selfClose = false
			goto done
		case '/':
			if i+1 >= len(b) {
				return needMore
			}
			if b[i+1] != '>' {
				s.soft = "expected /> in start tag"
				return badToken
			}
			i += 2
			s.selfClose = true
			goto done
		}
		if !isSpace(b[i-1]) {
			s.soft = "expected space before attribute"
			return badToken
		}
		ne, nl := s.parseName(b, i)
		if ne < 0 {
			return ne
		}
		an := b[nl:ne]
		i = ne
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return needMore
		}
		if b[i] != '=' {
			s.soft = "attribute without value"
			return badToken
		}
		i++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return needMore
		}
		q := b[i]
		if q != '"' && q != '\'' {
			s.soft = "unquoted attribute value"
			return badToken
		}
		j := bytes.IndexByte(b[i+1:], q)
		if j < 0 {
			return needMore
		}
		val := b[i+1 : i+1+j]
		if bytes.IndexByte(val, '<') >= 0 {
			s.soft = "unescaped < in attribute value"
			return badToken
		}
		attrs = append(attrs, xmlAttr{name: an, value: val})
		i += j + 2
	}
done:
	s.attrs = attrs
	s.kind, s.qname, s.name, s.raw = tokStart, qname, b[local:e], b[:i]
	return s.pushStart(i)
}

// pushStart opens the element of the start tag just parsed, of length n.
func (s *xmlScanner) pushStart(n int) int {
	if len(s.stackEnds) >= maxDepth {
		s.soft = "elements nested too deeply"
		return badToken
	}
	qname := s.qname
	s.depth = len(s.stackEnds) + 1
	if s.selfClose {
		s.pendingEnd = true
	} else {
		s.stack = append(s.stack, qname...)
		s.stackEnds = append(s.stackEnds, len(s.stack))
	}
	return n
}

func (s *xmlScanner) parseEnd(b []byte) int {
	e, local := s.parseName(b, 2)
	if e < 0 {
		return e
	}
	qname := b[2:e]
	i := e
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i >= len(b) {
		return needMore
	}
	if b[i] != '>' {
		s.soft = "expected > in end tag"
		return badToken
	}
	s.kind, s.qname, s.name, s.attrs = tokEnd, qname, b[local:e], s.attrs[:0]
	// Pop the matching element. An end tag that does not match the innermost element closes
	// the nearest matching one (and everything inside it), or nothing if none matches; both
	// are reported as a soft error so that the card around them is skipped.
	n := len(s.stackEnds)
	for k := n - 1; k >= 0; k-- {
		start := 0
		if k > 0 {
			start = s.stackEnds[k-1]
		}
		if bytes.Equal(s.stack[start:s.stackEnds[k]], qname) {
			if k != n-1 {
				s.soft = "end tag </" + string(qname) + "> does not match <" + string(s.stack[s.stackEnds[n-2]:]) + ">"
				if n == 1 {
					s.soft = "end tag </" + string(qname) + "> does not match"
				}
			}
			s.depth = k + 1
			s.stack = s.stack[:start]
			s.stackEnds = s.stackEnds[:k]
			return i + 1
		}
	}
	s.soft = "end tag </" + string(qname) + "> without start tag"
	s.name = nil
	return i + 1
}

// appendValue appends the decoded form of raw (an attribute value or text) to dst: entity
// and character references are replaced and line ends normalised to \n. A reference it
// cannot decode is copied as written and reported through s.soft.
func (s *xmlScanner) appendValue(dst, raw []byte) []byte {
	for {
		i := indexAmpCR(raw)
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		raw = raw[i:]
		if raw[0] == '\r' {
			dst = append(dst, '\n')
			raw = raw[1:]
			if len(raw) > 0 && raw[0] == '\n' {
				raw = raw[1:]
			}
			continue
		}
		semi := bytes.IndexByte(raw, ';')
		if semi < 0 || semi > 12 {
			s.setSoft("unterminated entity reference")
			dst = append(dst, '&')
			raw = raw[1:]
			continue
		}
		ref := raw[1:semi]
		if r, ok := decodeRef(ref); ok {
			dst = utf8.AppendRune(dst, r)
		} else {
			s.setSoft("invalid entity reference &" + string(ref) + ";")
			dst = append(dst, raw[:semi+1]...)
		}
		raw = raw[semi+1:]
	}
}

// appendCDATA appends CDATA content with line ends normalised.
func appendCDATA(dst, raw []byte) []byte {
	for {
		i := bytes.IndexByte(raw, '\r')
		if i < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:i]...)
		dst = append(dst, '\n')
		raw = raw[i+1:]
		if len(raw) > 0 && raw[0] == '\n' {
			raw = raw[1:]
		}
	}
}

// appendText appends the current text token, decoded.
func (s *xmlScanner) appendText(dst []byte) []byte {
	if s.cdata {
		return appendCDATA(dst, s.text)
	}
	return s.appendValue(dst, s.text)
}

func (s *xmlScanner) setSoft(msg string) {
	if s.soft == "" {
		s.soft = msg
	}
}

func indexAmpCR(b []byte) int {
	i := bytes.IndexByte(b, '&')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// decodeRef decodes the five predefined entities and character references (without & and ;).
func decodeRef(ref []byte) (rune, bool) {
	switch string(ref) {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "apos":
		return '\'', true
	case "quot":
		return '"', true
	}
	if len(ref) < 2 || ref[0] != '#' {
		return 0, false
	}
	digits, base := ref[1:], rune(10)
	if digits[0] == 'x' {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 || len(digits) > 8 {
		return 0, false
	}
	var r rune
	for _, c := range digits {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, false
		}
		r = r*base + d
	}
	if !isXMLChar(r) {
		return 0, false
	}
	return r, true
}

// isXMLChar reports whether r is allowed in XML 1.0 (the Char production).
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
