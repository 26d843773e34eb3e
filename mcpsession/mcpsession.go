// Package mcpsession keeps the sessions of /mcp, MCP's streamable HTTP transport
// (docs/INTERFACE.md §4.5): which session ids are live, for which client, until when.
// Memory is one replica's state, in memory; Shared adds a fleet's Redis to it, so that a
// session minted on one replica is valid on every other (docs/ARCHITECTURE.md §7).
// Resolver adapts either to mcp-go's SessionIdManagerResolver.
package mcpsession

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ErrUnknown is Validate's error for a session id that was never minted, or whose
// session idled out or was forgotten.
var ErrUnknown = errors.New("unknown MCP session")

// Store keeps the live MCP sessions. Its methods are safe for concurrent use.
type Store interface {
	// Generate mints a session id for client (the rate limiter's key; exempt: from the
	// rate limits, which gives it a larger share of the cap) and remembers it.
	Generate(client netip.Addr, exempt bool) string
	// Validate accepts a live session id (and marks it used), reports a terminated one
	// with terminated true, and refuses anything else with ErrUnknown. exempt is the
	// asking client's.
	Validate(id string, exempt bool) (terminated bool, err error)
	// Terminate ends a session for good, as a client's DELETE does: its id is refused
	// as terminated for the idle TTL.
	Terminate(id string)
	// Held reports whether this replica still holds id as a live session, without
	// marking it used; under Shared it asks Redis, and a session ended elsewhere is
	// forgotten here (handed to Options.Forget), so that an event stream open on this
	// replica ends with it.
	Held(id string) bool
	// Drop ends a session on this replica only: mcp-go's own endings (its shutdown,
	// peppolgate's clean-up of a session it forgot) are no client's DELETE.
	Drop(id string)
	// ForgetIfGone hands id to Options.Forget when it is no longer live: mcp-go
	// registers a session after its initialize is answered, which may be after the
	// store forgot it.
	ForgetIfGone(id string)
	// Start runs the idle sweep (and Shared's upkeep) every interval, logging to log,
	// until Halt; Halt may be called more than once, and without Start.
	Start(every time.Duration, log *slog.Logger)
	Halt()
	// Size is the number of sessions live on this replica.
	Size() int
}

// Options configure a store.
type Options struct {
	// TTL is how long a session is kept after its last use.
	TTL time.Duration
	// Max bounds the sessions live at once; minting one more forgets the one used
	// longest ago.
	Max int
	// PerClient bounds the live sessions of one client, ExemptPerClient those of a
	// client exempt from the rate limits; minting one more forgets that client's
	// session used longest ago.
	PerClient, ExemptPerClient int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Forget is called, without locks held, with the ids the store forgot (evicted by
	// a cap, idled out), so that mcp-go drops its own state for them; nil does nothing.
	Forget func(ids []string)
}

// Resolver is mcp-go's SessionIdManagerResolver over a Store: ClientOf gives the
// client of a request and whether it is exempt from the rate limits (nil: the zero
// client, not exempt).
type Resolver struct {
	Store    Store
	ClientOf func(r *http.Request) (client netip.Addr, exempt bool)
}

// internalKey marks the context of a request peppolgate sends mcp-go itself.
type internalKey struct{}

// Internal returns ctx marked as peppolgate's own request to mcp-go (the clean-up of a
// session it forgot): a DELETE in it drops the session on this replica only.
func Internal(ctx context.Context) context.Context {
	return context.WithValue(ctx, internalKey{}, true)
}

// ResolveSessionIdManager implements mcp-go's SessionIdManagerResolver: the store as
// seen by r's client, which is whose sessions a new one counts against. A nil r
// (mcp-go's calls outside a request: its shutdown) or one marked by Internal gets a
// manager whose Terminate is Drop.
func (res Resolver) ResolveSessionIdManager(r *http.Request) mcpserver.SessionIdManager {
	m := manager{store: res.Store, local: r == nil}
	if r != nil {
		m.local = r.Context().Value(internalKey{}) != nil
		if res.ClientOf != nil {
			m.client, m.exempt = res.ClientOf(r)
		}
	}
	return m
}

// manager is mcp-go's SessionIdManager for one request.
type manager struct {
	store  Store
	client netip.Addr
	exempt bool
	local  bool
}

// Generate is Store.Generate for the request's client.
func (m manager) Generate() string { return m.store.Generate(m.client, m.exempt) }

// Validate is Store.Validate.
func (m manager) Validate(id string) (bool, error) { return m.store.Validate(id, m.exempt) }

// Terminate is Store.Terminate, or Store.Drop outside a client's request; it never
// refuses.
func (m manager) Terminate(id string) (bool, error) {
	if m.local {
		m.store.Drop(id)
	} else {
		m.store.Terminate(id)
	}
	return false, nil
}
