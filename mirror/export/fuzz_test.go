package export

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzDecoder feeds arbitrary bytes to the Decoder: it must never panic and must end (io.EOF
// or a fatal error) within a bounded number of Next calls; every card it returns must satisfy
// the Card invariants.
func FuzzDecoder(f *testing.F) {
	for _, tc := range xmlCases {
		f.Add([]byte(tc.doc))
	}
	for _, tc := range jsonCases {
		f.Add([]byte(tc.doc))
	}
	f.Add(gzipBytes(f, []byte(xmlCases[0].doc)))
	f.Add(writeXML(genCards(7, 3), genStyle{prefix: "x", charRefs: true, cdata: true, comments: true, crlf: true}))
	f.Fuzz(func(t *testing.T, p []byte) {
		d, err := NewDecoder(bytes.NewReader(p))
		if err != nil {
			return
		}
		// Every call either returns a card or error, or consumes input; a card needs more than
		// a few bytes, so len(p)+2 calls always reach the end.
		for range len(p) + 2 {
			c, err := d.Next()
			if err != nil {
				var re *RecordError
				if errors.As(err, &re) {
					continue
				}
				if _, err2 := d.Next(); err2 != err {
					t.Fatalf("Next after %v returned %v", err, err2)
				}
				return
			}
			if c.Participant.Value == "" || len(c.Entities) == 0 {
				t.Fatalf("invalid card %+v", c)
			}
			for _, e := range c.Entities {
				if len(e.Names) == 0 {
					t.Fatalf("entity without a name: %+v", c)
				}
				for _, n := range e.Names {
					if n.Name == "" {
						t.Fatalf("empty name: %+v", c)
					}
				}
			}
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("decoder did not end within %d calls", len(p)+2)
		}
	})
}

// FuzzScannerVsEncodingXML decodes XML with the Decoder and with encoding/xml (refDecodeXML):
// when both read the whole input without a fatal error, they must agree on every card and
// on which cards were malformed.
func FuzzScannerVsEncodingXML(f *testing.F) {
	for _, tc := range xmlCases {
		f.Add([]byte(tc.doc))
	}
	f.Add(writeXML(genCards(8, 3), genStyle{prefix: "x", charRefs: true, cdata: true, comments: true, crlf: true, indent: true}))
	f.Fuzz(func(t *testing.T, p []byte) {
		want, wantBad, err := refDecodeXML(p)
		if err != nil {
			return
		}
		d, err := NewDecoder(bytes.NewReader(p))
		if err != nil {
			return
		}
		var got []*Card
		var gotBad []int
		for range len(p) + 2 {
			c, err := d.Next()
			var re *RecordError
			if errors.As(err, &re) {
				gotBad = append(gotBad, re.Index)
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return // stricter than encoding/xml (e.g. no space between attributes)
			}
			got = append(got, c)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotBad, wantBad) {
			t.Fatalf("cards\n got %s bad %v\nwant %s bad %v", jsonOf(got), gotBad, jsonOf(want), wantBad)
		}
	})
}
