package registry

import "context"

// bulkKey is the context key of WithBulk.
type bulkKey struct{}

// WithBulk returns ctx marking the questions asked with it as a bulk check's rows:
// they run at a lower priority than interactive requests (a lookup, a search, a
// question to /ask or MCP) and within their own share of each SMP host's request
// slots, so that a check, however long and whoever sends it, never starves or trips
// anything for other clients (docs/ARCHITECTURE.md §3, Bulk check). A registry that
// has no queues ignores it.
func WithBulk(ctx context.Context) context.Context {
	return context.WithValue(ctx, bulkKey{}, true)
}

// IsBulk reports whether ctx was marked by WithBulk.
func IsBulk(ctx context.Context) bool {
	b, _ := ctx.Value(bulkKey{}).(bool)
	return b
}
