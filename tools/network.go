package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/internal/phrase"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// The Peppol networks peppolgate can answer for. Demo is the simulated one.
const (
	NetworkProduction = "production"
	NetworkTest       = "test"
	NetworkDemo       = "demo"
)

// knownNetworks are the network names ParseNetwork recognises, offered or not.
var knownNetworks = []string{NetworkProduction, NetworkTest, NetworkDemo}

// Networks answers for several Peppol networks, one registry each. It is itself a
// registry.Registry answering from the default network, so it can be passed wherever
// one is expected; the tools' network argument and the REST API's network parameter
// pick another one through Select. It is safe for concurrent use.
type Networks struct {
	def   string
	regs  map[string]registry.Registry
	names []string
}

// NewNetworks returns the networks regs, by name, answering from def when a request
// names none. It returns an error when def is not in regs, when a name is not one of
// production, test and demo, or when a registry is nil.
func NewNetworks(def string, regs map[string]registry.Registry) (*Networks, error) {
	if regs[def] == nil {
		return nil, fmt.Errorf("tools: the default network %q has no registry", def)
	}
	for name, reg := range regs {
		if !slices.Contains(knownNetworks, name) {
			return nil, fmt.Errorf("tools: network %q is not one of %s", name, strings.Join(knownNetworks, ", "))
		}
		if reg == nil {
			return nil, fmt.Errorf("tools: network %q has no registry", name)
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

// Default returns the name of the network that answers when a request names none.
func (n *Networks) Default() string { return n.def }

// Names returns the offered networks, the default first, then by name.
func (n *Networks) Names() []string { return slices.Clone(n.names) }

// Select returns the registry of the network raw names ("" or only space for the
// default) and its name. It returns a *registry.Error with CodeInvalidRequest, naming
// the offered networks, when raw is not a network or not one this server offers.
func (n *Networks) Select(raw string) (registry.Registry, string, error) {
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
// lower-cased ("" for empty) or a *registry.Error with CodeInvalidRequest whose
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
		return "", &registry.Error{Code: registry.CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is not offered: this server answers for one network only; leave network out", phrase.Quote(raw))}
	case slices.Contains(knownNetworks, name):
		return "", &registry.Error{Code: registry.CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is not offered by this server; it offers %s", phrase.Quote(raw), list)}
	default:
		return "", &registry.Error{Code: registry.CodeInvalidRequest,
			Message: fmt.Sprintf("network %s is unknown; this server offers %s", phrase.Quote(raw), list)}
	}
}

// selectNetwork picks the registry a tool call runs on: reg itself when it is not a
// *Networks (and then network must be empty), else the network the argument names.
// The name is "" when reg is not a *Networks.
func selectNetwork(reg registry.Registry, network string) (registry.Registry, string, error) {
	if n, ok := reg.(*Networks); ok {
		return n.Select(network)
	}
	if _, err := ParseNetwork(network, nil); err != nil {
		return nil, "", err
	}
	return reg, "", nil
}

// Lookup looks id up on the default network (registry.Registry).
func (n *Networks) Lookup(ctx context.Context, id peppol.ParticipantID) (*registry.Participant, registry.Freshness, error) {
	return n.regs[n.def].Lookup(ctx, id)
}

// Search searches the default network's Directory (registry.Registry).
func (n *Networks) Search(ctx context.Context, q registry.SearchQuery) (*registry.SearchResult, registry.Freshness, error) {
	return n.regs[n.def].Search(ctx, q)
}

// Services lists id's services on the default network (registry.Registry).
func (n *Networks) Services(ctx context.Context, id peppol.ParticipantID, docType string) (*registry.ServicesResult, registry.Freshness, error) {
	return n.regs[n.def].Services(ctx, id, docType)
}

// ParticipantOn returns p marked as answered by network: a copy, because the registry
// shares p with its cache. It returns p itself when network is "" or p is nil.
func ParticipantOn(p *registry.Participant, network string) *registry.Participant {
	if p == nil || network == "" {
		return p
	}
	c := *p
	c.Network = network
	return &c
}

// SearchResultOn returns r marked as answered by network, as ParticipantOn.
func SearchResultOn(r *registry.SearchResult, network string) *registry.SearchResult {
	if r == nil || network == "" {
		return r
	}
	c := *r
	c.Network = network
	return &c
}

// ServicesOn returns r marked as answered by network, as ParticipantOn.
func ServicesOn(r *registry.ServicesResult, network string) *registry.ServicesResult {
	if r == nil || network == "" {
		return r
	}
	c := *r
	c.Network = network
	return &c
}

// NetworkDescription describes the network argument and query parameter for offered
// networks, the default first.
func NetworkDescription(offered []string) string {
	if len(offered) == 0 {
		return ""
	}
	return fmt.Sprintf("Optional: the Peppol network that answers, one of %s; default %s (this server's default network). "+
		"The answer's network field says which one answered.", strings.Join(offered, ", "), offered[0])
}

// networkSchema is the schema of the network argument for offered networks.
func networkSchema(offered []string) *jsonschema.Schema {
	enum := make([]any, len(offered))
	for i, name := range offered {
		enum[i] = name
	}
	return &jsonschema.Schema{Type: "string", Description: NetworkDescription(offered), Enum: enum}
}

// ForNetworks returns every tool of All as it is offered by a server answering for n:
// each takes the optional argument network (one of n.Names()) and says so in its
// description. Call them with n as the registry.
func ForNetworks(n *Networks) []Tool {
	all := All()
	names := n.Names()
	for i := range all {
		all[i].Input.Properties["network"] = networkSchema(names)
		all[i].Description += fmt.Sprintf("\n\nnetwork, optional, picks the Peppol network that answers: %s (default %s); the result's network field names the one that answered; another name is invalid_request.",
			strings.Join(names, " or "), names[0])
	}
	return all
}

// errNoRegistry is returned by NewMCPServer when neither a registry nor networks are given.
var errNoRegistry = errors.New("tools: MCPConfig.Registry and MCPConfig.Networks are both nil")
