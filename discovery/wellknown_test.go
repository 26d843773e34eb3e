package discovery

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

const testBase = "https://peppolgate.example.org"

func decode(t *testing.T, b []byte, err error) map[string]any {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "\n") {
		t.Error("no trailing newline")
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// noEmptyMembers enforces RFC 9728 §2 and RFC 8414 §2: members with zero values are
// omitted, never sent as null, "" or [].
func noEmptyMembers(t *testing.T, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case nil:
		t.Errorf("%s is null", path)
	case string:
		if x == "" {
			t.Errorf("%s is empty", path)
		}
	case []any:
		if len(x) == 0 {
			t.Errorf("%s is an empty array", path)
		}
		for i, e := range x {
			noEmptyMembers(t, fmt.Sprintf("%s[%d]", path, i), e)
		}
	case map[string]any:
		for k, e := range x {
			noEmptyMembers(t, path+"."+k, e)
		}
	}
}

func stringList(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

func TestProtectedResource(t *testing.T) {
	for _, path := range []string{"", "/mcp"} {
		b, err := ProtectedResource(testBase, path)
		m := decode(t, b, err)
		noEmptyMembers(t, "prm", m)
		// §3.3: resource is exactly the identifier the metadata URL was built from.
		if m["resource"] != testBase+path {
			t.Errorf("resource %v, want %s", m["resource"], testBase+path)
		}
		if as := stringList(m["authorization_servers"]); len(as) != 1 || as[0] != testBase {
			t.Errorf("authorization_servers %v", as)
		}
		if sc := stringList(m["scopes_supported"]); len(sc) == 0 {
			t.Error("scopes_supported empty")
		}
		if bm := stringList(m["bearer_methods_supported"]); len(bm) != 1 || bm[0] != "header" {
			t.Errorf("bearer_methods_supported %v", bm)
		}
		aa, _ := m["agent_auth"].(map[string]any)
		if aa == nil {
			t.Fatal("no agent_auth")
		}
		if it := stringList(aa["identity_types_supported"]); len(it) != 1 || it[0] != "anonymous" {
			t.Errorf("identity_types_supported %v", it)
		}
		anon, _ := aa["anonymous"].(map[string]any)
		if anon == nil || strings.Join(stringList(anon["credential_types_supported"]), ",") != "none" {
			t.Errorf("anonymous %v", anon)
		}
		for _, k := range []string{"register_uri", "claim_uri", "revocation_uri"} {
			if _, ok := aa[k]; ok {
				t.Errorf("agent_auth.%s points at nothing real and must be omitted", k)
			}
		}
	}
}

func TestAuthorizationServer(t *testing.T) {
	b, err := AuthorizationServer(testBase)
	m := decode(t, b, err)
	noEmptyMembers(t, "as", m)
	// §3.3: issuer identical to the URL prefix, and to the PRM's authorization server.
	if m["issuer"] != testBase {
		t.Errorf("issuer %v", m["issuer"])
	}
	if rt := stringList(m["response_types_supported"]); len(rt) != 1 || rt[0] != "none" {
		t.Errorf("response_types_supported %v (REQUIRED)", rt)
	}
	// An anonymous-only server names no endpoint it does not have.
	for _, k := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint", "grant_types_supported"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s advertised, but there is none", k)
		}
	}
	if pr := stringList(m["protected_resources"]); strings.Join(pr, " ") != testBase+" "+testBase+"/mcp" {
		t.Errorf("protected_resources %v", pr)
	}
	if aa, _ := m["agent_auth"].(map[string]any); aa == nil {
		t.Error("no agent_auth")
	}
}

func TestAPICatalog(t *testing.T) {
	b, err := APICatalog(testBase)
	m := decode(t, b, err)
	// RFC 9264 §4.2: "linkset" is the sole member, an array of context objects whose
	// relations are arrays of target objects with href.
	if len(m) != 1 {
		t.Errorf("members %v, want only linkset", m)
	}
	ls, _ := m["linkset"].([]any)
	if len(ls) != 1 {
		t.Fatalf("linkset %v", m["linkset"])
	}
	ctx := ls[0].(map[string]any)
	if ctx["anchor"] != testBase+"/" {
		t.Errorf("anchor %v", ctx["anchor"])
	}
	want := map[string]string{
		"service-desc": testBase + "/openapi.json",
		"service-doc":  testBase + "/llms-full.txt",
		"service-meta": testBase + "/.well-known/oauth-protected-resource",
		"status":       testBase + "/healthz",
	}
	for rel, href := range want {
		targets, _ := ctx[rel].([]any)
		if len(targets) != 1 {
			t.Errorf("%s: %v", rel, ctx[rel])
			continue
		}
		tgt := targets[0].(map[string]any)
		if tgt["href"] != href {
			t.Errorf("%s href %v, want %s", rel, tgt["href"], href)
		}
		for k, v := range tgt {
			if _, ok := v.(string); !ok {
				t.Errorf("%s.%s is not a string", rel, k)
			}
		}
	}
	if APICatalogContentType != `application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"` {
		t.Errorf("content type %s", APICatalogContentType)
	}
	if got := APICatalogLink(testBase); got != `<https://peppolgate.example.org/.well-known/api-catalog>; rel="api-catalog"` {
		t.Errorf("Link %s", got)
	}
}
