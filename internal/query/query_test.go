package query

import (
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

func TestValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, key, want string
		ok             bool
		err            bool
	}{
		{"", "q", "", false, false},
		{"q=acme", "q", "acme", true, false},
		{"q=a+b&q=c", "q", "a b", true, false},
		{"q=acme;corp", "q", "acme;corp", true, false},
		{"%71=encoded-key", "q", "encoded-key", true, false},
		{"network=%zz", "network", "", true, true},
		{"network=%zz&q=acme", "q", "acme", true, false},
		{"q=%", "q", "", true, true},
		{"q=ok&q=%zz", "q", "ok", true, false},
	}
	for _, tt := range tests {
		got, ok, err := Value(tt.raw, tt.key)
		if got != tt.want || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("Value(%q, %q) = %q, %v, %v; want %q, %v, error %v", tt.raw, tt.key, got, ok, err, tt.want, tt.ok, tt.err)
		}
		if err != nil && (registry.ErrorCode(err) != registry.CodeInvalidRequest || !strings.HasPrefix(err.Error(), "invalid_request: "+tt.key+" is not valid percent-encoding")) {
			t.Errorf("Value(%q, %q): error %v", tt.raw, tt.key, err)
		}
	}
}
