package main

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
)

// source is the generated export: netsim's synthetic Directory export of cards
// business cards from seed.
type source struct {
	seed  uint64
	cards int
}

// newSource is the export of cards cards from seed.
func newSource(seed uint64, cards int) *source {
	return &source{seed: seed, cards: cards}
}

// config is the netsim configuration of the export; its creation time is netsim's
// fixed default, so the export is the same on every run.
func (s *source) config() netsim.ExportConfig {
	return netsim.ExportConfig{Seed: int64(s.seed), Cards: s.cards}
}

// at is card i.
func (s *source) at(i int) card {
	id, bc := netsim.ExportCard(s.config(), i)
	return toCard(id, bc)
}

// each calls fn for every card in order, stopping at its first error.
func (s *source) each(fn func(i int, c card) error) error {
	return netsim.ExportCards(s.config(), func(i int, id peppol.ParticipantID, bc *netsim.BusinessCard) error {
		return fn(i, toCard(id, bc))
	})
}

// toCard is what the benchmark keeps of a generated card.
func toCard(id peppol.ParticipantID, bc *netsim.BusinessCard) card {
	c := card{pid: pidKey(id.String())}
	for j, e := range bc.Entities {
		if j == 0 {
			c.country = e.CountryCode
		}
		for _, n := range e.Names {
			c.appendName(n.Name)
		}
		for _, x := range e.Identifiers {
			if strings.TrimSpace(x.Value) != "" {
				c.ids = append(c.ids, x.Value)
			}
		}
	}
	return c
}

// writeExport writes the XML v3 export of s to w, gzip-compressed when gz.
func writeExport(w io.Writer, s *source, gz bool) error {
	if !gz {
		return netsim.WriteExportXML(w, s.config())
	}
	zw := gzip.NewWriter(w)
	if err := netsim.WriteExportXML(zw, s.config()); err != nil {
		return err
	}
	return zw.Close()
}

// fingerprint identifies the export's content so that a cached export file written by
// an older generator is not reused: a hash of the XML of the first 1,000 cards and of
// 64 cards spread over the whole export.
func (s *source) fingerprint() (string, error) {
	h := sha256.New()
	cfg := s.config()
	cfg.Cards = min(s.cards, 1000)
	if err := netsim.WriteExportXML(h, cfg); err != nil {
		return "", err
	}
	for k := range 64 {
		i := int(int64(k) * int64(s.cards) / 64)
		id, bc := netsim.ExportCard(s.config(), i)
		fmt.Fprintf(h, "%d %s %+v\n", i, id, *bc)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
