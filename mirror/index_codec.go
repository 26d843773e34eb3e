package mirror

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/registry"
)

// A card's record is stored as one blob: length-prefixed strings and unsigned varints,
//
//	version(=1)
//	entities: count, then per entity
//	    names: count, then (name, language)…
//	    countryCode, geoInfo, identifiers: count, then (scheme, value)…,
//	    websites: count, then url…, additionalInfo, regDate
//	docTypes: count, then doctype table ids…
//
// The first name of the first entity is not repeated: it is the card row's name column.
const recordVersion = 1

// errCorrupt is returned for a record blob that cannot be decoded.
var errCorrupt = errors.New("mirror: corrupt card record in the index")

type encoder struct{ b []byte }

func (e *encoder) uint(v int) { e.b = binary.AppendUvarint(e.b, uint64(v)) }
func (e *encoder) str(s string) {
	e.uint(len(s))
	e.b = append(e.b, s...)
}

// encodeRecord appends the blob of c to b; docTypeIDs are the interned ids of c.DocTypes.
func encodeRecord(b []byte, c *export.Card, docTypeIDs []int) []byte {
	e := encoder{b}
	e.uint(recordVersion)
	e.uint(len(c.Entities))
	for i, ent := range c.Entities {
		e.uint(len(ent.Names))
		for j, n := range ent.Names {
			if i == 0 && j == 0 {
				e.str("")
			} else {
				e.str(n.Name)
			}
			e.str(n.Language)
		}
		e.str(ent.CountryCode)
		e.str(ent.GeoInfo)
		e.uint(len(ent.Identifiers))
		for _, id := range ent.Identifiers {
			e.str(id.Scheme)
			e.str(id.Value)
		}
		e.uint(len(ent.Websites))
		for _, w := range ent.Websites {
			e.str(w)
		}
		e.str(ent.AdditionalInfo)
		e.str(ent.RegDate)
	}
	e.uint(len(docTypeIDs))
	for _, id := range docTypeIDs {
		e.uint(id)
	}
	return e.b
}

type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uint() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > 1<<31 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) count() int {
	n := d.uint()
	if n > len(d.b) { // every element takes at least one byte
		d.err, d.b = true, nil
		return 0
	}
	return n
}

func (d *decoder) str() string {
	n := d.uint()
	if n > len(d.b) {
		d.err, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// optional returns nil for "" and &s otherwise, so that JSON shows null for absent text.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// decodeRecord rebuilds the record of the card stored as (pid, name, blob); docTypes
// maps doctype table ids to identifiers. It returns errCorrupt for a blob it cannot read.
func decodeRecord(pid, name string, blob []byte, docTypes []registry.IDParts) (*registry.DirectoryRecord, error) {
	d := decoder{b: blob}
	if d.uint() != recordVersion {
		return nil, errCorrupt
	}
	icd, value, ok := strings.Cut(pid, ":")
	if !ok {
		icd, value = "", pid
	}
	rec := &registry.DirectoryRecord{
		ParticipantID: registry.IDParts{Scheme: icd, Value: value},
		Name:          name,
	}
	ne := d.count()
	rec.Entities = make([]registry.Entity, 0, ne)
	for i := 0; i < ne; i++ {
		nn := d.count()
		ent := registry.Entity{Names: make([]registry.Name, 0, nn)}
		for j := 0; j < nn; j++ {
			n := registry.Name{Name: d.str(), Language: d.str()}
			if i == 0 && j == 0 {
				n.Name = name
			}
			ent.Names = append(ent.Names, n)
		}
		ent.CountryCode = d.str()
		ent.GeoInfo = optional(d.str())
		ni := d.count()
		ent.Identifiers = make([]registry.IDParts, 0, ni)
		for j := 0; j < ni; j++ {
			ent.Identifiers = append(ent.Identifiers, registry.IDParts{Scheme: d.str(), Value: d.str()})
		}
		nw := d.count()
		ent.Websites = make([]string, 0, nw)
		for j := 0; j < nw; j++ {
			ent.Websites = append(ent.Websites, d.str())
		}
		ent.AdditionalInfo = optional(d.str())
		ent.RegistrationDate = optional(d.str())
		rec.Entities = append(rec.Entities, ent)
	}
	nd := d.count()
	rec.DocTypes = make([]registry.IDParts, 0, nd)
	for j := 0; j < nd; j++ {
		id := d.uint()
		if id < 1 || id > len(docTypes) {
			return nil, errCorrupt
		}
		rec.DocTypes = append(rec.DocTypes, docTypes[id-1])
	}
	if d.err || len(d.b) != 0 {
		return nil, errCorrupt
	}
	if len(rec.Entities) > 0 {
		first := rec.Entities[0]
		rec.CountryCode = first.CountryCode
		rec.RegistrationDate, rec.AdditionalInfo, rec.GeoInfo = first.RegistrationDate, first.AdditionalInfo, first.GeoInfo
	}
	return rec, nil
}
