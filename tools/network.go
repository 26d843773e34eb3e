package tools

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/registry"
)

// networkSchema is the schema of the network argument for offered networks.
func networkSchema(offered []string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: registry.NetworkDescription(offered), Enum: Enum(offered)}
}

// Enum returns values as a JSON schema's enum.
func Enum(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// ForNetworks returns every tool of All as it is offered by a server answering for n:
// when n offers networks by name, each tool takes the optional argument network (one
// of n.Names()) and says so in its description; for one unnamed network (registry.One)
// the tools are All's. Call them with n.
func ForNetworks(n *registry.Networks) []Tool {
	all := All()
	names := n.Names()
	if len(names) == 0 {
		return all
	}
	for i := range all {
		all[i].Input.Properties["network"] = networkSchema(names)
		all[i].Description += fmt.Sprintf("\n\nnetwork, optional, picks the Peppol network that answers: %s (default %s); the result's network field names the one that answered; another name is invalid_request.",
			strings.Join(names, " or "), names[0])
	}
	return all
}
