package peppolnet

import (
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// TestCachePolicy: a live registry reports the cache durations and Directory rate it
// was configured with, defaults where none was given.
func TestCachePolicy(t *testing.T) {
	t.Parallel()
	l, err := New(Config{Resolver: &sml.Resolver{}, SMP: &smp.Client{}, Directory: &directory.Client{}, PositiveTTL: 2 * time.Hour, DirectoryRate: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := registry.CachePolicy{Found: 2 * time.Hour, NotFound: registry.DefaultNegativeTTL, Search: registry.DefaultSearchTTL, Stale: registry.DefaultStaleFor, DirectoryRate: 100}
	if got := l.CachePolicy(); got != want {
		t.Errorf("CachePolicy() = %+v, want %+v", got, want)
	}
}
