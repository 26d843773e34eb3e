package registry

import "time"

// Defaults of the live registry's cache and Directory limit (package peppolnet), used
// when a CachePolicy's (and the live registry's configuration's) field is zero.
const (
	DefaultPositiveTTL   = 15 * time.Minute
	DefaultNegativeTTL   = time.Minute
	DefaultStaleFor      = 24 * time.Hour
	DefaultSearchTTL     = 5 * time.Minute
	DefaultDirectoryRate = 2.0
)

// CachePolicy is how long answers are kept, and how often the Directory is asked, as
// the documents tell clients.
type CachePolicy struct {
	// Found is how long a found participant is cached (peppolnet.Config.PositiveTTL).
	Found time.Duration
	// NotFound is how long "not registered" is cached (peppolnet.Config.NegativeTTL).
	NotFound time.Duration
	// Search is how long a search answer is cached (peppolnet.Config.SearchTTL).
	Search time.Duration
	// Stale is how old a cached answer may be and still answer when the upstream
	// fails (peppolnet.Config.StaleFor).
	Stale time.Duration
	// DirectoryRate is the most Directory requests per second (peppolnet.Config.DirectoryRate).
	DirectoryRate float64
}

// WithDefaults returns p with each zero field set to its default above.
func (p CachePolicy) WithDefaults() CachePolicy {
	or := func(d, def time.Duration) time.Duration {
		if d <= 0 {
			return def
		}
		return d
	}
	rate := p.DirectoryRate
	if rate <= 0 {
		rate = DefaultDirectoryRate
	}
	return CachePolicy{Found: or(p.Found, DefaultPositiveTTL), NotFound: or(p.NotFound, DefaultNegativeTTL),
		Search: or(p.Search, DefaultSearchTTL), Stale: or(p.Stale, DefaultStaleFor), DirectoryRate: rate}
}
