package export

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// decodeAll reads every card of an export; record errors are collected, a fatal error ends it.
func decodeAll(tb testing.TB, p []byte) ([]*Card, []*RecordError, error) {
	tb.Helper()
	d, err := NewDecoder(bytes.NewReader(p))
	if err != nil {
		return nil, nil, err
	}
	var cards []*Card
	var recs []*RecordError
	for range 1_000_000 {
		c, err := d.Next()
		var re *RecordError
		switch {
		case err == nil:
			cards = append(cards, c)
		case errors.As(err, &re):
			recs = append(recs, re)
		case err == io.EOF:
			return cards, recs, nil
		default:
			return cards, recs, err
		}
	}
	tb.Fatal("decoder did not end")
	return nil, nil, nil
}

// benchDecode decodes the export p b.N times and reports MB/s (of the uncompressed export,
// size bytes) and cards/s.
func benchDecode(b *testing.B, p []byte, size int, want int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cards := 0
	cpu0 := cpuSeconds()
	for b.Loop() {
		d, err := NewDecoder(bytes.NewReader(p))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != want {
			b.Fatalf("decoded %d cards, want %d", n, want)
		}
		cards += n
	}
	b.ReportMetric(float64(cards)/b.Elapsed().Seconds(), "cards/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		// Throughput per CPU second (all threads: GC included), steadier than wall time
		// when other processes share the machine.
		b.ReportMetric(float64(size)*float64(b.N)/cpu/1e6, "MB/cpu-s")
		b.ReportMetric(float64(cards)/cpu, "cards/cpu-s")
	}
}

const benchCards = 20_000

func BenchmarkDecodeXMLv3(b *testing.B) {
	p := writeXML(genCards(1, benchCards), genStyle{indent: true})
	benchDecode(b, p, len(p), benchCards)
}

func BenchmarkDecodeXMLv3NoDocTypes(b *testing.B) {
	p := writeXML(genCards(1, benchCards), genStyle{indent: true, noDocTypes: true})
	benchDecode(b, p, len(p), benchCards)
}

// BenchmarkDecodeXMLv3Gzip is BenchmarkDecodeXMLv3 through compress/gzip; MB/s counts the
// uncompressed XML.
func BenchmarkDecodeXMLv3Gzip(b *testing.B) {
	p := writeXML(genCards(1, benchCards), genStyle{indent: true})
	benchDecode(b, gzipBytes(b, p), len(p), benchCards)
}

func BenchmarkDecodeJSONv2(b *testing.B) {
	p := writeJSON(genCards(1, benchCards))
	benchDecode(b, p, len(p), benchCards)
}

// BenchmarkDecodeXMLv3EncodingXML is the same export through encoding/xml, for comparison.
func BenchmarkDecodeXMLv3EncodingXML(b *testing.B) {
	p := writeXML(genCards(1, benchCards), genStyle{indent: true})
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		cards, _, err := refDecodeXML(p)
		if err != nil || len(cards) != benchCards {
			b.Fatal(err, len(cards))
		}
	}
}
