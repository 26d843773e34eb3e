package discovery

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/peppolgate/peppolgate"
)

// baseURLPlaceholder is what llms.txt writes where the service's public URL goes.
const baseURLPlaceholder = "{base_url}"

// LLMsTxt returns the repository's llms.txt with every {base_url} replaced by
// api.BaseURL. It returns documentBase's error: every link must be absolute, since
// llms.txt readers fetch the file from anywhere.
func LLMsTxt(api API) ([]byte, error) {
	base, err := documentBase(api)
	if err != nil {
		return nil, err
	}
	return []byte(strings.ReplaceAll(peppolgate.LLMsTxt, baseURLPlaceholder, base)), nil
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
