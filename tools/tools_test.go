package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// TestToolSnapshot pins every tool definition exactly as MCP clients receive it, so a
// change of name, description, schema or annotation shows in review. Rewrite with
// -update.
func TestToolSnapshot(t *testing.T) {
	t.Parallel()
	// As a server answering for production and test (the default) lists them.
	nets, err := registry.NewNetworks(registry.NetworkProduction, map[string]registry.Registry{registry.NetworkProduction: stubRegistry{}, registry.NetworkTest: stubRegistry{}})
	if err != nil {
		t.Fatal(err)
	}
	var defs []json.RawMessage
	for _, tool := range ForNetworks(nets) {
		mt, err := MCPTool(tool)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(mt)
		if err != nil {
			t.Fatal(err)
		}
		defs = append(defs, b)
	}
	raw, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -run TestToolSnapshot -update)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("tool definitions differ from %s; if intended, rerun with -update and review the diff", path)
	}
}

// TestToolInventory checks what every tool must have: a name MCP clients accept, a
// title, a description that says when to use it and what its errors mean, object
// schemas that compile, and all four annotations sent explicitly.
func TestToolInventory(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, tool := range All() {
		t.Run(tool.Name, func(t *testing.T) {
			if !regexp.MustCompile(`^[a-z][a-z_]{2,63}$`).MatchString(tool.Name) || names[tool.Name] {
				t.Errorf("name %q is not a unique snake_case name", tool.Name)
			}
			names[tool.Name] = true
			if tool.Title == "" || tool.Call == nil {
				t.Error("no title or no handler")
			}
			for _, want := range []string{"Use it", "Do not use it", "Errors:"} {
				if !strings.Contains(tool.Description, want) {
					t.Errorf("description lacks %q", want)
				}
			}
			for what, s := range map[string]*jsonschema.Schema{"input": tool.Input, "output": tool.Output} {
				if s == nil || s.Type != "object" {
					t.Fatalf("%s schema is not an object schema", what)
				}
				if _, err := s.Resolve(nil); err != nil {
					t.Errorf("%s schema does not resolve: %v", what, err)
				}
				walk(s, func(s *jsonschema.Schema) {
					if s.Type == "" && len(s.Types) == 0 {
						t.Errorf("%s schema has a node without a type: %+v", what, s)
					}
				})
			}
			for name, p := range tool.Input.Properties {
				if p.Description == "" {
					t.Errorf("input %s has no description", name)
				}
			}
			// search_directory takes q or country (checked by ParseSearch): an anyOf
			// would say so, but LLM APIs refuse one at the top of an input schema.
			// network_statistics takes no argument but the optional network.
			if len(tool.Input.Required) == 0 && tool.Name != "search_directory" && tool.Name != "network_statistics" {
				t.Error("input schema requires nothing")
			}
			mt, err := MCPTool(tool)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(mt)
			var wire struct {
				Annotations map[string]any `json:"annotations"`
			}
			if err := json.Unmarshal(b, &wire); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}
			for k, v := range want {
				if wire.Annotations[k] != v {
					t.Errorf("annotation %s = %v, want %v (explicitly)", k, wire.Annotations[k], v)
				}
			}
		})
	}
	if len(names) != 5 {
		t.Errorf("%d tools, want 5", len(names))
	}
}

// TestDescriptionExamples checks that every participant id a description or schema
// gives as an example is a valid one: an LLM will copy them.
func TestDescriptionExamples(t *testing.T) {
	t.Parallel()
	idRe := regexp.MustCompile(`\b[0-9]{4}:[A-Za-z0-9]+\b`)
	for _, tool := range All() {
		b, _ := json.Marshal(tool.Input)
		text := tool.Description + string(b) + mcpInstructions
		var ids []string
		for _, m := range idRe.FindAllStringIndex(text, -1) {
			// Inside a document type identifier ("…:peppol.eu:2017:poacc:…"), not an id.
			if m[0] > 0 && text[m[0]-1] == ':' {
				continue
			}
			ids = append(ids, text[m[0]:m[1]])
		}
		if tool.Name == "lookup_participant" && len(ids) < 5 {
			t.Errorf("%s: only %d example ids", tool.Name, len(ids))
		}
		for _, s := range ids {
			id, err := peppol.ParseParticipantID(s)
			if err != nil {
				t.Errorf("%s: example %s: %v", tool.Name, s, err)
				continue
			}
			if v := peppol.ValidateParticipantID(id); !v.OK() {
				t.Errorf("%s: example %s: %v", tool.Name, s, v.Problems)
			}
		}
	}
}

// TestSchemasDescribeEveryField checks that the derived output schemas carry a
// description on every property, so that generated documents explain each field.
func TestSchemasDescribeEveryField(t *testing.T) {
	t.Parallel()
	for name, s := range map[string]*jsonschema.Schema{"participant": ParticipantSchema(), "search": SearchResultSchema(), "services": ServicesSchema(), "check": CheckResultSchema()} {
		var check func(path string, s *jsonschema.Schema)
		check = func(path string, s *jsonschema.Schema) {
			for k, p := range s.Properties {
				if p.Description == "" {
					t.Errorf("%s: %s.%s has no description", name, path, k)
				}
				check(path+"."+k, p)
			}
			if s.Items != nil {
				check(path+"[]", s.Items)
			}
		}
		check("", s)
	}
}

// TestSchemaIsFresh checks that each call returns a schema of its own, so a caller
// that decorates one (the OpenAPI generator adds examples) cannot change another's.
func TestSchemaIsFresh(t *testing.T) {
	t.Parallel()
	a, b := ParticipantSchema(), ParticipantSchema()
	a.Properties["participantId"].Description = "changed"
	if b.Properties["participantId"].Description == "changed" {
		t.Error("schemas share state")
	}
}

// TestInstructionsNameEveryTool: the MCP instructions say when to call each tool, so a
// tool added to All cannot be left out of them (docs/INTERFACE.md §4.5).
func TestInstructionsNameEveryTool(t *testing.T) {
	t.Parallel()
	for _, tool := range All() {
		if !strings.Contains(mcpInstructions, "call "+tool.Name) {
			t.Errorf("the MCP instructions do not say when to call %s", tool.Name)
		}
	}
}
