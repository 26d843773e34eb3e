package discovery

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate"
)

// baseURLPlaceholder is what llms.txt writes where the service's public URL goes.
const baseURLPlaceholder = "{base_url}"

// toolsPlaceholder is what llms.txt writes where the names of the MCP tools go, so the
// list is the registry's (tools.All) and cannot drift.
const toolsPlaceholder = "{tools}"

// networkPlaceholder is what llms.txt writes where the network parameter of the
// lookups is described, when the service offers a choice of networks.
const networkPlaceholder = "{network_param}"

// LLMsTxt returns the repository's llms.txt with every {base_url} replaced by
// api.BaseURL, {tools} by the names of api.Tools ("a, b and c"), and {network_param} by " (each with an optional network=a|b)" naming the
// networks the service offers (the enum of the endpoints' network parameter), or by
// nothing when it offers no choice. It returns documentBase's error: every link must
// be absolute, since llms.txt readers fetch the file from anywhere.
func LLMsTxt(api API) ([]byte, error) {
	base, err := documentBase(api)
	if err != nil {
		return nil, err
	}
	network := ""
	if names := offeredNetworks(api); len(names) > 0 {
		network = " (each with an optional network=" + strings.Join(names, "|") + ")"
	}
	names := make([]string, 0, len(api.Tools))
	for _, t := range api.Tools {
		names = append(names, t.Name)
	}
	out := strings.NewReplacer(baseURLPlaceholder, base, networkPlaceholder, network, toolsPlaceholder, andList(names)).Replace(peppolgate.LLMsTxt)
	return []byte(out), nil
}

// andList writes names as "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// offeredNetworks is the enum of the first "network" query parameter of api's
// endpoints: the networks a request may pick.
func offeredNetworks(api API) []string {
	for _, e := range api.Endpoints {
		for _, p := range e.Params {
			if p.Name != "network" || p.In != "query" || p.Schema == nil {
				continue
			}
			var names []string
			for _, v := range p.Schema.Enum {
				if s, ok := v.(string); ok {
					names = append(names, s)
				}
			}
			return names
		}
	}
	return nil
}

// documentBase returns api.BaseURL without a trailing slash, ready for paths to be
// appended. It returns an error when it is not an absolute http or https URL, because
// the agent manuals and the index link with absolute URLs only.
func documentBase(api API) (string, error) {
	u, err := url.Parse(api.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("discovery: base URL %q is not an absolute http or https URL", api.BaseURL)
	}
	return strings.TrimSuffix(api.BaseURL, "/"), nil
}
