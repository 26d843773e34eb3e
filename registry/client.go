package registry

import (
	"context"
	"net/netip"
)

// clientKey is the context key of WithClient.
type clientKey struct{}

// WithClient returns ctx naming the client a request is made for (an IP address, or an
// IPv6 /64), so that the Directory's shared request budget is shared fairly between
// clients: each client's Directory calls wait in a queue of its own, served in turn
// with the others, and no client may hold more than a few places. Requests without a
// client (stdio MCP, tests) share one queue.
func WithClient(ctx context.Context, client netip.Addr) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientOf returns the client WithClient named in ctx, or the zero Addr.
func ClientOf(ctx context.Context) netip.Addr {
	c, _ := ctx.Value(clientKey{}).(netip.Addr)
	return c
}
