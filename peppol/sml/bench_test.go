package sml

import (
	"context"
	"testing"

	"github.com/peppolgate/peppolgate/peppol"
)

func BenchmarkNAPTRName(b *testing.B) {
	id := peppol.ParticipantID{ICD: "0208", Value: "0677424046"}
	for b.Loop() {
		_ = NAPTRName(id, ZoneProduction)
	}
}

func BenchmarkApplyRegexp(b *testing.B) {
	for _, bb := range []struct{ name, rule string }{
		{"dot-star", `!.*!https://smp.example.com/!`},
		{"backreference", `!^([a-z0-9]+)\..*$!https://smp.example.com/\1/!i`},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := applyRegexp(bb.rule, testName); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLookupLoopback measures a full lookup (query, UDP round trip, parse, select,
// regexp) against a DNS server on 127.0.0.1.
func BenchmarkLookupLoopback(b *testing.B) {
	srv := startServer(b, answer(mustRR(b, testQName+` 60 IN NAPTR 100 10 "U" "Meta:SMP" "!.*!https://smp.example.com/!" .`)))
	r, err := New(Config{Servers: []string{srv.addr}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Lookup(ctx, testID); err != nil {
			b.Fatal(err)
		}
	}
}
