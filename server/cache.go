package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// setFreshness sets the cache headers of a successful answer from where the registry
// got it. A fresh answer may be kept for the rest of its TTL (max-age is TTL minus age,
// so no Age header is sent with it: a downstream cache would subtract the age twice). A
// stale answer, served because an upstream failed, says how old it is and must be
// revalidated at once.
func setFreshness(h http.Header, f registry.Freshness) {
	switch {
	case f.Stale:
		h.Set("Cache-Control", "public, max-age=0, must-revalidate")
		h.Set("Age", strconv.FormatInt(int64(max(f.Age, 0)/time.Second), 10))
		h.Set("X-Cache", "stale")
		return
	case f.Cached:
		h.Set("X-Cache", "hit")
	default:
		h.Set("X-Cache", "miss")
	}
	left := max(f.TTL-f.Age, 0)
	h.Set("Cache-Control", "public, max-age="+strconv.FormatInt(int64(left/time.Second), 10))
}
