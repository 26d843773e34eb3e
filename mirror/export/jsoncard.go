package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonDecoder streams a JSON v2 export: it walks the top-level object with tokens down to the
// "bc" array and decodes one card object at a time.
type jsonDecoder struct {
	dec    *json.Decoder
	intern interner
	// docTypes caches decoded "docTypes" arrays by their JSON text.
	docTypes      map[string][]DocType
	docTypesBytes int
	inCards       bool // inside the "bc" array
	sawBC         bool
	done          bool
	version       string // the version value as written, "" while not seen
}

// The JSON card, as the export writes it. Contacts are not decoded (personal data).
type jsonCard struct {
	PID      string       `json:"pid"`
	Entities []jsonEntity `json:"entities"`
	DocTypes jsonDocTypes `json:"docTypes"`
}

// jsonDocTypes decodes a card's "docTypes" array. Cards repeat the same arrays byte for
// byte, so the decoded lists are cached by their JSON text: a hit costs a map lookup instead
// of a dozen string allocations and the reflection decoder.
type jsonDocTypes struct {
	cache map[string][]DocType
	bytes *int // size of the cache's keys
	in    *interner
	list  []DocType // shared with the cache: copy before handing out
}

func (d *jsonDocTypes) UnmarshalJSON(p []byte) error {
	if list, ok := d.cache[string(p)]; ok {
		d.list = list
		return nil
	}
	var raw []jsonDocType
	if err := json.Unmarshal(p, &raw); err != nil {
		return err
	}
	list := make([]DocType, 0, len(raw))
	for _, r := range raw {
		dt := DocType{
			Scheme:      d.in.getString(strings.TrimSpace(r.Scheme)),
			Value:       d.in.getString(strings.TrimSpace(r.Value)),
			DisplayName: d.in.getString(strings.TrimSpace(r.DisplayName)),
			State:       d.in.getString(strings.TrimSpace(r.State)),
			NonStandard: r.NonStandard,
		}
		if dt.Value != "" {
			list = append(list, dt)
		}
	}
	if *d.bytes+len(p) <= maxCacheBytes {
		*d.bytes += len(p)
		d.cache[string(p)] = list
	}
	d.list = list
	return nil
}

type jsonEntity struct {
	Names []struct {
		Name string `json:"name"`
		Lang string `json:"lang"`
	} `json:"names"`
	CountryCode string `json:"countryCode"`
	GeoInfo     string `json:"geoinfo"`
	Identifiers []struct {
		Scheme string `json:"scheme"`
		Value  string `json:"value"`
	} `json:"identifiers"`
	WebsiteURIs    []string `json:"websiteURIs"`
	AdditionalInfo string   `json:"additionalInfo"`
	RegDate        string   `json:"regdate"`
}

type jsonDocType struct {
	Scheme      string `json:"scheme"`
	Value       string `json:"value"`
	DisplayName string `json:"displayName"`
	State       string `json:"state"`
	NonStandard bool   `json:"nonStandard"`
}

func newJSONDecoder(src io.Reader, prefix []byte, h *Header) (*jsonDecoder, error) {
	j := &jsonDecoder{
		dec:      json.NewDecoder(io.MultiReader(bytes.NewReader(prefix), src)),
		intern:   newInterner(),
		docTypes: make(map[string][]DocType),
	}
	h.Format = FormatJSONv2
	if _, err := j.dec.Token(); err != nil { // the '{' readPrefix saw
		return nil, jsonHeaderError(err)
	}
	if err := j.readKeys(h); err != nil {
		return nil, err
	}
	return j, nil
}

func jsonHeaderError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &FormatError{Reason: "not a JSON export: " + err.Error()}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("export: reading the JSON header: %w", err)
}

// readKeys reads top-level keys up to the "bc" array or the end of the object, filling h.
func (j *jsonDecoder) readKeys(h *Header) error {
	for j.dec.More() {
		tok, err := j.dec.Token()
		if err != nil {
			return jsonHeaderError(err)
		}
		key, _ := tok.(string)
		if key == "bc" {
			tok, err := j.dec.Token()
			if err != nil {
				return jsonHeaderError(err)
			}
			switch tok {
			case json.Delim('['):
				j.inCards, j.sawBC = true, true
				return nil
			case nil:
				continue // "bc": null, no cards
			}
			return &FormatError{Reason: `JSON "bc" is not an array`}
		}
		var raw json.RawMessage
		if err := j.dec.Decode(&raw); err != nil {
			return jsonHeaderError(err)
		}
		switch key {
		case "version":
			j.version = string(raw)
			if j.version != "2" {
				return &FormatError{Reason: "JSON export version " + j.version}
			}
		case "creationdt":
			var s string
			if json.Unmarshal(raw, &s) == nil {
				h.Created = parseTime(strings.TrimSpace(s))
			}
		case "participantCount":
			if n, err := strconv.Atoi(string(raw)); err == nil && n >= 0 {
				h.Count = n
			}
		case "codeListSupported":
			var s string
			if json.Unmarshal(raw, &s) == nil {
				h.CodeList = strings.TrimSpace(s)
			}
		}
	}
	if j.version == "" && !j.sawBC {
		return &FormatError{Reason: `JSON object without "version" or "bc"`}
	}
	// The end of the object: '}' and then nothing but whitespace.
	if _, err := j.dec.Token(); err != nil {
		return jsonHeaderError(err)
	}
	if _, err := j.dec.Token(); err != io.EOF {
		if err == nil {
			return errors.New("data after the JSON export object")
		}
		return err
	}
	j.done = true
	return nil
}

// next returns the next card, a *RecordError, io.EOF or a fatal error; when the "bc" array
// ends it reads the keys after it into h.
func (j *jsonDecoder) next(index int, h *Header) (*Card, error) {
	for !j.done && !j.inCards {
		if err := j.readKeys(h); err != nil {
			return nil, err
		}
	}
	if j.done {
		return nil, io.EOF
	}
	if !j.dec.More() {
		if _, err := j.dec.Token(); err != nil { // ']'
			return nil, unexpectedEOF(err)
		}
		j.inCards = false
		if err := j.readKeys(h); err != nil {
			return nil, unexpectedEOF(err)
		}
		if j.inCards {
			return j.next(index, h) // a second "bc" array
		}
		return nil, io.EOF
	}
	jc := jsonCard{DocTypes: jsonDocTypes{cache: j.docTypes, bytes: &j.docTypesBytes, in: &j.intern}}
	if err := j.dec.Decode(&jc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &RecordError{Index: index, Participant: strings.TrimSpace(jc.PID), Reason: "wrong JSON type: " + err.Error()}
		}
		return nil, unexpectedEOF(err)
	}
	return j.card(index, &jc)
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (j *jsonDecoder) card(index int, jc *jsonCard) (*Card, error) {
	pid := strings.TrimSpace(jc.PID)
	fail := func(reason string) (*Card, error) {
		return nil, &RecordError{Index: index, Participant: pid, Reason: reason}
	}
	if pid == "" {
		return fail("no participant")
	}
	c := &Card{}
	if i := strings.Index(pid, "::"); i >= 0 {
		c.Participant = ID{Scheme: j.intern.getString(strings.TrimSpace(pid[:i])), Value: toValidUTF8(strings.TrimSpace(pid[i+2:]))}
	} else {
		c.Participant.Value = toValidUTF8(pid)
	}
	if c.Participant.Value == "" {
		return fail("participant without a value")
	}
	if len(jc.Entities) == 0 {
		return fail("no entity")
	}
	c.Entities = make([]Entity, len(jc.Entities))
	for i, je := range jc.Entities {
		e := &c.Entities[i]
		for _, n := range je.Names {
			if name := strings.TrimSpace(n.Name); name != "" {
				e.Names = append(e.Names, Name{Name: toValidUTF8(name), Language: j.intern.getString(strings.TrimSpace(n.Lang))})
			}
		}
		if len(e.Names) == 0 {
			return fail("entity without a name")
		}
		e.CountryCode = j.intern.getString(strings.ToUpper(strings.TrimSpace(je.CountryCode)))
		e.GeoInfo = toValidUTF8(strings.TrimSpace(je.GeoInfo))
		for _, id := range je.Identifiers {
			if v := strings.TrimSpace(id.Value); v != "" {
				e.Identifiers = append(e.Identifiers, ID{Scheme: j.intern.getString(strings.TrimSpace(id.Scheme)), Value: toValidUTF8(v)})
			}
		}
		for _, w := range je.WebsiteURIs {
			if w = strings.TrimSpace(w); w != "" {
				e.Websites = append(e.Websites, toValidUTF8(w))
			}
		}
		e.AdditionalInfo = toValidUTF8(strings.TrimSpace(je.AdditionalInfo))
		e.RegDate = j.intern.getString(strings.TrimSpace(je.RegDate))
	}
	if len(jc.DocTypes.list) > 0 {
		c.DocTypes = make([]DocType, len(jc.DocTypes.list))
		copy(c.DocTypes, jc.DocTypes.list)
	}
	return c, nil
}
