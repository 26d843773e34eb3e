package nlq

import (
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestGist: the first clause of a message, cut at the first ": " outside brackets and
// quotes, so that it never leaves one open.
func TestGist(t *testing.T) {
	t.Parallel()
	tests := []struct{ msg, want string }{
		{"the certificate expired: renew it.", "the certificate expired"},
		{"the signature is not valid (reason: digest mismatch): senders refuse it", "the signature is not valid (reason: digest mismatch)"},
		{"the document type “urn:x: evil” is not in the code list: most senders cannot produce it", "the document type “urn:x: evil” is not in the code list"},
		{"no clause at all.", "no clause at all"},
		{"an unbalanced (bracket: never closed", "an unbalanced (bracket: never closed"},
	}
	for _, tt := range tests {
		if got := gist(&english, registry.Warning{Code: "x", Message: tt.msg}); got != tt.want {
			t.Errorf("gist(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
