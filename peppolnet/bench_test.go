package peppolnet

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

func BenchmarkLookupCached(b *testing.B) {
	n := startNet(b, 300)
	l, _ := newLive(b, n, nil)
	id := mustID(b, netsim.KnownBelgian)
	if _, _, err := l.Lookup(context.Background(), id); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, fr, err := l.Lookup(context.Background(), id); err != nil || !fr.Cached {
				b.Error("not cached", err)
				return
			}
		}
	})
}

func BenchmarkSearchCached(b *testing.B) {
	n := startNet(b, 300)
	l, _ := newLive(b, n, nil)
	q := registry.SearchQuery{Q: "BE 0677.424.046"}
	if _, _, err := l.Search(context.Background(), q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, fr, err := l.Search(context.Background(), q); err != nil || !fr.Cached {
				b.Error("not cached", err)
				return
			}
		}
	})
}

// BenchmarkLookupCold measures a lookup with an empty cache when each DNS answer takes
// 20ms, each SMP request 50ms and each Directory request 100ms. The SML→SMP branch
// (NAPTR, ServiceGroup, ServiceMetadata: 120ms) runs beside the Directory (100ms), so
// the critical path is 120ms against a sequential sum of 220ms; p50-ms and p99-ms
// report the measured latency next to both.
func BenchmarkLookupCold(b *testing.B) {
	n := startNet(b, 300)
	id := mustID(b, netsim.KnownBelgian)
	host := n.Dataset().MustLookup(netsim.KnownBelgian).SMPHost
	n.SetFault(netsim.DNSTarget(), netsim.Fault{Latency: 20 * time.Millisecond})
	n.SetFault(netsim.SMPHostTarget(host), netsim.Fault{Latency: 50 * time.Millisecond})
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{Latency: 100 * time.Millisecond})
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		l, _ := newLive(b, n, nil) // a fresh, empty cache
		b.StartTimer()
		start := time.Now()
		if _, _, err := l.Lookup(context.Background(), id); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(120, "critical-path-ms")
	b.ReportMetric(220, "sequential-sum-ms")
}
