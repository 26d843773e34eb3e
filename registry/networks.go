package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
)

// The Peppol networks peppolgate can answer for. Demo is the simulated one.
const (
	NetworkProduction = "production"
	NetworkTest       = "test"
	NetworkDemo       = "demo"
)

// knownNetwork reports whether name is one of the networks ParseNetwork recognises,
// offered or not.
func knownNetwork(name string) bool {
	return name == NetworkProduction || name == NetworkTest || name == NetworkDemo
}

// Networks answers for the Peppol networks a server offers, one registry each; a
// server answering for one network has a Networks of one (NewNetworks with one
// registry, or One for an unnamed network). It is itself a Registry answering from
// the default network; the tools' network argument and the REST API's network
// parameter pick another one through Select. It is safe for concurrent use.
type Networks struct {
	def   string
	regs  map[string]Registry
	names []string
}

// NewNetworks returns the networks regs, by name, answering from def when a request
// names none. It returns an error when def is not in regs, when a name is not one of
// production, test and demo, or when a registry is nil.
func NewNetworks(def string, regs map[string]Registry) (*Networks, error) {
	if regs[def] == nil {
		return nil, fmt.Errorf("registry: the default network %q has no registry", def)
	}
	for name, reg := range regs {
		if !knownNetwork(name) {
			return nil, fmt.Errorf("registry: network %q is not one of %s, %s and %s", name, NetworkProduction, NetworkTest, NetworkDemo)
		}
		if reg == nil {
			return nil, fmt.Errorf("registry: network %q has no registry", name)
		}
	}
	names := []string{def}
	for _, name := range slices.Sorted(maps.Keys(regs)) {
		if name != def {
			names = append(names, name)
		}
	}
	return &Networks{def: def, regs: maps.Clone(regs), names: names}, nil
}

// One returns the networks of a server that answers for one unnamed network, reg:
// answers carry no network, none is offered (Names is empty) and a request naming one
// is refused. reg must not be nil; it may itself be a *Networks, to answer from its
// default network only.
func One(reg Registry) *Networks {
	return &Networks{regs: map[string]Registry{"": reg}}
}

// Default returns the name of the network that answers when a request names none.
func (n *Networks) Default() string { return n.def }

// Names returns the offered networks, the default first, then by name; none for One.
func (n *Networks) Names() []string { return slices.Clone(n.names) }

// Select returns the registry of the network raw names ("" or only space for the
// default) and its name. It returns a *Error with CodeInvalidRequest, naming
// the offered networks, when raw is not a network or not one this server offers.
func (n *Networks) Select(raw string) (Registry, string, error) {
	name, err := ParseNetwork(raw, n.names)
	if err != nil {
		return nil, "", err
	}
	if name == "" {
		name = n.def
	}
	return n.regs[name], name, nil
}

// ParseNetwork checks a network argument or query parameter as every adapter accepts
// it: empty (the default network) or one of offered, in any case. It returns the name
// lower-cased ("" for empty) or a *Error with CodeInvalidRequest whose
// message names the offered networks: for a name that is no Peppol network and for one
// this server does not offer. With no offered networks, any non-empty name is refused.
func ParseNetwork(raw string, offered []string) (string, error) {
	name := strings.ToLower(strings.TrimSpace(raw))
	if name == "" || slices.Contains(offered, name) {
		return name, nil
	}
	list := strings.Join(offered, ", ")
	switch {
	case len(offered) == 0:
		return "", &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is not offered: this server answers for one network only; leave network out", phrase.Quote(raw))}
	case knownNetwork(name):
		return "", &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is not offered by this server; it offers %s", phrase.Quote(raw), list)}
	default:
		return "", &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is unknown; this server offers %s", phrase.Quote(raw), list)}
	}
}

// Lookup looks id up on the default network (Registry).
func (n *Networks) Lookup(ctx context.Context, id peppol.ParticipantID) (*Participant, Freshness, error) {
	return n.regs[n.def].Lookup(ctx, id)
}

// Search searches the default network's Directory (Registry).
func (n *Networks) Search(ctx context.Context, q SearchQuery) (*SearchResult, Freshness, error) {
	return n.regs[n.def].Search(ctx, q)
}

// Services lists id's services on the default network (Registry).
func (n *Networks) Services(ctx context.Context, id peppol.ParticipantID, docType string) (*ServicesResult, Freshness, error) {
	return n.regs[n.def].Services(ctx, id, docType)
}

// Stats counts the default network's Directory (StatsSource), marked as answered by
// it when it is named: a *Networks wrapped in One (as /ask's engine wraps the server's
// networks) counts as its default network does. It returns the errors of
// NetworkStats.
func (n *Networks) Stats(ctx context.Context) (*Stats, error) {
	return NetworkStats(ctx, n.regs[n.def], n.def)
}

// On returns p marked as answered by network: a copy, because the registry shares p
// with its cache. It returns p itself when network is "" (an unnamed network) or p is
// nil.
func (p *Participant) On(network string) *Participant {
	if p == nil || network == "" {
		return p
	}
	c := *p
	c.Network = network
	return &c
}

// On returns r marked as answered by network, as Participant.On.
func (r *SearchResult) On(network string) *SearchResult {
	if r == nil || network == "" {
		return r
	}
	c := *r
	c.Network = network
	return &c
}

// On returns r marked as answered by network, as Participant.On.
func (r *ServicesResult) On(network string) *ServicesResult {
	if r == nil || network == "" {
		return r
	}
	c := *r
	c.Network = network
	return &c
}

// NetworkDescription describes the network argument and query parameter for offered
// networks, the default first; "" when none are offered.
func NetworkDescription(offered []string) string {
	return NetworkDescriptionNamed(offered, "The answer's network field says which one answered.")
}

// NetworkDescriptionNamed is NetworkDescription with named, the sentence saying how the
// answer names its network, in place of the network field's.
func NetworkDescriptionNamed(offered []string, named string) string {
	if len(offered) == 0 {
		return ""
	}
	return fmt.Sprintf("Optional: the Peppol network that answers, one of %s; default %s (this server's default network). %s",
		strings.Join(offered, ", "), offered[0], named)
}
