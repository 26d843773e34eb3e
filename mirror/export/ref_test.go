package export

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"

	"github.com/peppolgate/peppolgate/internal/untrusted"
)

// refDecodeXML decodes an XML export with encoding/xml, following the same rules as the
// Decoder, so that the purpose-built scanner can be checked against the standard library.
// It returns the valid cards and the indexes of the malformed ones.
func refDecodeXML(p []byte) ([]*Card, []int, error) {
	dec := xml.NewDecoder(bytes.NewReader(p))
	var cards []*Card
	var bad []int
	index := 0
	depth := 0
	var c *Card
	var e *Entity
	var text *strings.Builder
	var textKind string
	ok, hasP := true, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if depth != 0 {
				return cards, bad, io.ErrUnexpectedEOF
			}
			return cards, bad, nil
		}
		if err != nil {
			return cards, bad, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			attr := func(name string) string { // the last of duplicates, as the Decoder
				v := ""
				for _, a := range t.Attr {
					if a.Name.Local == name {
						v = strings.TrimSpace(a.Value)
					}
				}
				return v
			}
			switch {
			case depth == 2 && t.Name.Local == "businesscard":
				c, ok, hasP = &Card{}, true, false
			case c == nil:
			case depth == 3 && t.Name.Local == "participant":
				if !hasP {
					hasP = true
					c.Participant = ID{Scheme: attr("scheme"), Value: attr("value")}
				}
			case depth == 3 && t.Name.Local == "entity":
				c.Entities = append(c.Entities, Entity{CountryCode: strings.ToUpper(attr("countrycode"))})
				e = &c.Entities[len(c.Entities)-1]
			case depth == 3 && t.Name.Local == "doctypeid":
				f := func(name string) string { return untrusted.Field(attr(name)) } // interned values are cleaned
				dt := DocType{Scheme: f("scheme"), Value: f("value"), DisplayName: f("displayname"), State: f("state"), NonStandard: attr("non-standard") == "true"}
				if dt.State == "" && attr("deprecated") == "true" {
					dt.State = "dep"
				}
				if dt.Value != "" {
					c.DocTypes = append(c.DocTypes, dt)
				}
			case depth == 4 && e != nil && t.Name.Local == "name":
				if n := attr("name"); n != "" {
					e.Names = append(e.Names, Name{Name: n, Language: attr("language")})
				}
			case depth == 4 && e != nil && t.Name.Local == "id":
				if v := attr("value"); v != "" {
					e.Identifiers = append(e.Identifiers, ID{Scheme: attr("scheme"), Value: v})
				}
			case depth == 4 && e != nil:
				switch t.Name.Local {
				case "geoinfo", "website", "additionalinfo", "regdate":
					text, textKind = &strings.Builder{}, t.Name.Local
				}
			}
		case xml.CharData:
			if text != nil && depth == 4 {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == 4 && text != nil {
				v := strings.TrimSpace(text.String())
				switch textKind {
				case "geoinfo":
					e.GeoInfo = v
				case "website":
					if v != "" {
						e.Websites = append(e.Websites, v)
					}
				case "additionalinfo":
					e.AdditionalInfo = v
				case "regdate":
					e.RegDate = v
				}
				text = nil
			}
			if depth == 3 {
				e = nil
			}
			if depth == 2 && c != nil {
				switch {
				case c.Participant.Value == "" || len(c.Entities) == 0:
					ok = false
				}
				for _, e := range c.Entities {
					if len(e.Names) == 0 {
						ok = false
					}
				}
				if ok && clean(c) != "" {
					ok = false
				}
				if ok {
					cards = append(cards, c)
				} else {
					bad = append(bad, index)
				}
				index++
				c = nil
			}
			depth--
		}
	}
}
