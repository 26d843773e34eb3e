// Package peppolgate holds the files of the repository's root that the service serves.
// Go can only embed files in or below a package's own directory, so the root llms.txt
// is embedded here, in a package of its own at the module root, and nowhere else.
package peppolgate

import _ "embed"

// LLMsTxt is the repository's llms.txt (llmstxt.org format), with {base_url} where the
// service's public URL goes; discovery.LLMsTxt fills it in.
//
//go:embed llms.txt
var LLMsTxt string
