package discovery

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestLLMsFullWarnings: llms-full.txt lists every warning code with its meaning.
func TestLLMsFullWarnings(t *testing.T) {
	t.Parallel()
	var w mdWriter
	fullWarnings(&w)
	out := w.String()
	for _, d := range registry.WarningDocs() {
		if !strings.Contains(out, "| `"+d.Code+"` | ") {
			t.Errorf("llms-full.txt lacks warning %s", d.Code)
		}
	}
}
