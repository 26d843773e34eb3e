package discovery

import (
	"errors"
	"strings"

	"github.com/peppolgate/peppolgate"
)

// baseURLPlaceholder is what llms.txt writes where the service's public URL goes.
const baseURLPlaceholder = "{base_url}"

// LLMsTxt returns the repository's llms.txt with every {base_url} replaced by
// api.BaseURL. It returns an error when api.BaseURL is empty, because every link would
// then be relative, which llms.txt readers cannot follow.
func LLMsTxt(api API) ([]byte, error) {
	if api.BaseURL == "" {
		return nil, errors.New("discovery: llms.txt needs a base URL")
	}
	base := strings.TrimSuffix(api.BaseURL, "/")
	return []byte(strings.ReplaceAll(peppolgate.LLMsTxt, baseURLPlaceholder, base)), nil
}
