package ratelimit

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
)

// TestLimiterBounded checks that 100,000 clients cannot grow a class's buckets beyond
// MaxClients, whether their buckets are busy (a frozen clock: nothing refills, so room
// is made by eviction) or go idle (dropped by the sweep).
func TestLimiterBounded(t *testing.T) {
	t.Parallel()
	for _, advance := range []time.Duration{0, 10 * time.Millisecond} {
		t.Run(fmt.Sprintf("clock advancing %v per request", advance), func(t *testing.T) {
			clock := clock.NewFake(time.Now())
			l := NewLocal(Limit{Rate: 20, Burst: 40}, clock.Now, MaxClients)
			for i := range 100_000 {
				clock.Advance(advance)
				if d := l.Take(context.Background(), netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})); !d.Allowed {
					t.Fatalf("client %d refused on its first request", i)
				}
			}
			for i := range l.shards {
				if n := len(l.shards[i].buckets); n > l.perShard {
					t.Errorf("shard %d holds %d buckets, more than %d", i, n, l.perShard)
				}
			}
			if n := l.clients(); n > MaxClients {
				t.Errorf("%d buckets after 100,000 clients, more than %d", n, MaxClients)
			}
		})
	}
}

// BenchmarkLimiterTake measures one rate-limit decision of the in-memory buckets, from
// many goroutines over many clients.
func BenchmarkLimiterTake(b *testing.B) {
	l := NewLocal(Limit{Rate: 20, Burst: 40}, time.Now, MaxClients)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			l.Take(ctx, netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}))
		}
	})
}
