package discovery

import (
	"encoding/json"
	"fmt"
)

// Scope is the one OAuth scope peppolgate names: reading participant data. Nothing
// needs a token today; RFC 9728 wants scopes_supported non-empty when present, and
// agents read it to learn what access means here.
const Scope = "participants:read"

// APICatalogProfile is the media type profile of an RFC 9727 API catalog.
const APICatalogProfile = "https://www.rfc-editor.org/info/rfc9727"

// APICatalogContentType is the Content-Type of the API catalog.
const APICatalogContentType = `application/linkset+json; profile="` + APICatalogProfile + `"`

// agentAuth is the agent_auth block (WorkOS auth.md v0.1.0 vocabulary, as the
// docs/INTERFACE.md §4.4 names it): anonymous use, no credential. register_uri,
// claim_uri and revocation_uri are left out: there is nothing to register, claim or
// revoke, and RFC 9728 says members without a value are omitted.
func agentAuth() map[string]any {
	return map[string]any{
		"identity_types_supported": []string{"anonymous"},
		"anonymous":                map[string]any{"credential_types_supported": []string{"none"}},
	}
}

// ProtectedResource returns the RFC 9728 protected-resource metadata of the resource
// at base+path ("" for the API itself, "/mcp" for the MCP endpoint): resource is that
// URL exactly (§3.3), the authorization server is the service itself, one scope,
// bearer tokens in the header only, and the agent_auth block saying anonymous use
// needs no credential. It returns an error only if encoding fails.
func ProtectedResource(base, path string) ([]byte, error) {
	doc := map[string]any{
		"resource":                 base + path,
		"authorization_servers":    []string{base},
		"scopes_supported":         []string{Scope},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "peppolgate",
		"resource_documentation":   base + "/llms-full.txt",
		"agent_auth":               agentAuth(),
	}
	return encode(doc)
}

// AuthorizationServer returns the RFC 8414 authorization-server metadata of an
// anonymous-only service: issuer is base exactly (§3.3, and the protected resource's
// authorization server), the only response type is "none", clients authenticate with
// nothing, and agent_auth says anonymous use needs no credential. It names no
// authorization or token endpoint and no grant type, because there is none: every
// endpoint is open. (RFC 8414's default grant types would imply endpoints; a
// document that lists a grant it cannot serve would be worse.) It returns an error
// only if encoding fails.
func AuthorizationServer(base string) ([]byte, error) {
	doc := map[string]any{
		"issuer":                                base,
		"response_types_supported":              []string{"none"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported":                      []string{Scope},
		"service_documentation":                 base + "/llms-full.txt",
		"protected_resources":                   []string{base, base + "/mcp"},
		"agent_auth":                            agentAuth(),
	}
	return encode(doc)
}

// APICatalog returns the RFC 9727 API catalog: an RFC 9264 linkset whose one context
// is the API at base, with its OpenAPI description (service-desc), its manual
// (service-doc), its protected-resource metadata (service-meta) and its health check
// (status). It returns an error only if encoding fails.
func APICatalog(base string) ([]byte, error) {
	link := func(href, typ, title string) []map[string]string {
		return []map[string]string{{"href": base + href, "type": typ, "title": title}}
	}
	doc := map[string]any{
		"linkset": []map[string]any{{
			"anchor":       base + "/",
			"service-desc": link("/openapi.json", "application/json", "OpenAPI 3.1 description"),
			"service-doc":  link("/llms-full.txt", "text/markdown", "Manual for agents and developers"),
			"service-meta": link("/.well-known/oauth-protected-resource", "application/json", "Protected-resource metadata (RFC 9728)"),
			"status":       link("/healthz", "application/json", "Health check"),
		}},
	}
	return encode(doc)
}

// APICatalogLink is the Link header value that points at the API catalog (RFC 9727
// §3), sent on the catalog itself and on the index.
func APICatalogLink(base string) string {
	return fmt.Sprintf(`<%s/.well-known/api-catalog>; rel="api-catalog"`, base)
}

// encode renders doc as indented JSON with a trailing newline.
func encode(doc any) ([]byte, error) {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	return append(b, '\n'), nil
}
