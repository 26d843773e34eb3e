package export

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/peppolgate/peppolgate/internal/untrusted"
)

// The root namespaces of the XML exports.
const (
	NamespaceXMLv3 = "urn:peppol:schema:pd:businesscard-generic:2025:03"
	NamespaceXMLv2 = "http://www.peppol.eu/schema/pd/businesscard-generic/201907/"
)

const supportedFormats = "XML v3 (" + NamespaceXMLv3 + "), XML v2 (" + NamespaceXMLv2 +
	") and JSON v2 ({\"version\":2,…}), each plain or gzip"

// FormatError is returned by NewDecoder when the stream is not an export format the Decoder
// reads (another XML namespace, another JSON version, not XML or JSON at all).
type FormatError struct {
	// Reason says what was found instead.
	Reason string
}

func (e *FormatError) Error() string {
	return "export: unsupported format: " + e.Reason + "; supported are " + supportedFormats
}

// countingReader counts the bytes read from the underlying reader; the count may be read
// concurrently (a progress bar in another goroutine).
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Decoder reads the cards of one export, one at a time, in constant memory. It is not safe
// for concurrent use, except BytesRead.
//
// Each Card it returns is the caller's: no slice is shared with another card or reused by
// the Decoder. Its strings are immutable as always, but shared to save memory: the values
// that repeat across cards (doc types, schemes, country codes, languages, dates) are
// interned, and the other strings of one card are slices of one string, so keeping any of
// them keeps that card's text (a few hundred bytes) alive.
//
// XML is read with a purpose-built scanner (not encoding/xml, ten times slower): it accepts
// well-formed XML with character and the five predefined entity references, CDATA, comments,
// processing instructions and a DOCTYPE (entity declarations in it are not applied); elements
// and attributes are matched by local name whatever their prefix; only the root's namespace
// is checked. Unknown elements and attributes are skipped. A card with a reference it cannot
// decode or an end tag that does not match is a *RecordError; broken tag syntax is fatal.
type Decoder struct {
	cr     *countingReader
	header Header
	index  int   // index of the next card
	err    error // sticky fatal error or io.EOF

	xml  *xmlDecoder
	json *jsonDecoder
}

// NewDecoder detects gzip (magic 1f 8b) and the format from the first bytes — XML with the
// root namespace urn:peppol:schema:pd:businesscard-generic:2025:03 (XML v3) or
// http://www.peppol.eu/schema/pd/businesscard-generic/201907/ (XML v2), or a JSON object
// (JSON v2) — and reads the header up to the first card.
//
// It returns a *FormatError when the stream is empty or not one of these formats, and the
// read error (e.g. a broken gzip header) when r fails.
func NewDecoder(r io.Reader) (*Decoder, error) {
	d := &Decoder{cr: &countingReader{r: r}}
	br := bufio.NewReaderSize(d.cr, 32<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("export: gzip: %w", err)
		}
		src = zr
		d.header.Gzip = true
	}
	prefix, first, err := readPrefix(src)
	if err != nil {
		return nil, err
	}
	prefix = bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf"))
	switch first {
	case '<':
		d.xml, err = newXMLDecoder(src, prefix, &d.header)
	case '{':
		d.json, err = newJSONDecoder(src, prefix, &d.header)
	default:
		return nil, &FormatError{Reason: fmt.Sprintf("the stream starts with %q, neither XML nor JSON", first)}
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// readPrefix reads at least up to the first byte that is not whitespace or a UTF-8 byte order
// mark, and returns what it read and that byte.
func readPrefix(r io.Reader) ([]byte, byte, error) {
	var buf []byte
	chunk := make([]byte, 512)
	for len(buf) < 1<<20 {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		rest := bytes.TrimPrefix(buf, []byte("\xef\xbb\xbf"))
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) > 0 {
			// Hand back everything read: the caller re-reads the bytes after the first.
			return buf, rest[0], nil
		}
		if err == io.EOF {
			return nil, 0, &FormatError{Reason: "the stream is empty"}
		}
		if err != nil {
			return nil, 0, fmt.Errorf("export: %w", err)
		}
	}
	return nil, 0, &FormatError{Reason: "the stream starts with more than 1 MiB of whitespace"}
}

// Header returns what the export says about itself. The XML exports say it on the root
// element, before the first card. In JSON the header keys may follow the "bc" array: those
// are known only once Next has returned io.EOF, until then the Header holds the keys before
// "bc" (a JSON export whose "version" follows "bc" is taken for JSON v2 until then, and
// Next returns a *FormatError at the end if it is not 2).
func (d *Decoder) Header() Header { return d.header }

// BytesRead is how many bytes of the underlying (possibly compressed) reader have been
// consumed so far, for progress reports. It reads ahead of the cards returned by up to a few
// hundred KiB. It is safe to call from another goroutine.
func (d *Decoder) BytesRead() int64 { return d.cr.n.Load() }

// Next returns the next card. Its strings are the card owner's words, cleaned and capped
// (untrusted.Field; untrusted.Text for the additional information, which keeps its line
// breaks as "\n"; docs/ARCHITECTURE.md §6): control and format characters (bidi overrides,
// zero-width characters) removed, runs of white space made one space, ends trimmed, at most
// untrusted.MaxField characters. Country codes are upper-cased, contacts dropped; names,
// identifiers, websites and doc types with an empty value are left out; an XML v2 doc type with deprecated="true" and no
// state gets State "dep"; a JSON pid without "::" is a Participant with an empty Scheme.
//
// It returns (nil, *RecordError) for a malformed card that it skipped — no participant, an
// empty participant value, no entity, an entity without a non-empty name, an undecodable XML
// reference or mismatched end tag, a JSON value of the wrong type — call Next again;
// (nil, io.EOF) after the last card; and any other error for a stream that cannot be read on:
// truncated (wrapping io.ErrUnexpectedEOF), broken gzip, XML or JSON syntax it cannot
// resynchronise after, a *FormatError for a JSON "version" after the cards that is not 2.
// Fatal errors and io.EOF repeat on later calls.
func (d *Decoder) Next() (*Card, error) {
	if d.err != nil {
		return nil, d.err
	}
	var c *Card
	var err error
	if d.xml != nil {
		c, err = d.xml.next(d.index)
	} else {
		c, err = d.json.next(d.index, &d.header)
	}
	var re *RecordError
	if err == nil {
		if reason := clean(c); reason != "" {
			c, err = nil, &RecordError{Index: d.index, Participant: c.Participant.Scheme + "::" + c.Participant.Value, Reason: reason}
		}
	}
	switch {
	case err == nil:
		d.index++
	case errors.As(err, &re):
		d.index++
	case err == io.EOF:
		d.err = io.EOF
	default:
		if !errors.As(err, new(*FormatError)) {
			err = fmt.Errorf("export: after %d cards: %w", d.index, err)
		}
		d.err = err
	}
	return c, err
}

// parseTime reads a creationdt; it returns the zero time for anything it cannot read.
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// clean cleans and caps c's strings in place (see Next), leaving out the names,
// identifiers and websites left empty. Doc types are not its business: like the other
// values that repeat across cards, they are cleaned once, when interned (interner.get).
// It returns why c must be skipped (cleaning emptied the participant's value or every
// name of an entity), else "".
func clean(c *Card) string {
	if c.Participant.Value = untrusted.Field(c.Participant.Value); c.Participant.Value == "" {
		return "participant without a value"
	}
	for i := range c.Entities {
		e := &c.Entities[i]
		names := e.Names[:0]
		for _, n := range e.Names {
			if n.Name = untrusted.Field(n.Name); n.Name != "" {
				n.Language = untrusted.Field(n.Language)
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return "entity without a name"
		}
		e.Names = names
		e.CountryCode = untrusted.Field(e.CountryCode)
		e.GeoInfo = untrusted.Field(e.GeoInfo)
		e.AdditionalInfo = untrusted.Text(e.AdditionalInfo)
		e.RegDate = untrusted.Field(e.RegDate)
		ids := e.Identifiers[:0]
		for _, id := range e.Identifiers {
			if id.Value = untrusted.Field(id.Value); id.Value != "" {
				id.Scheme = untrusted.Field(id.Scheme)
				ids = append(ids, id)
			}
		}
		e.Identifiers = nilIfEmpty(ids)
		webs := e.Websites[:0]
		for _, w := range e.Websites {
			if w = untrusted.Field(w); w != "" {
				webs = append(webs, w)
			}
		}
		e.Websites = nilIfEmpty(webs)
	}
	return ""
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}
