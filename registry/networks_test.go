package registry

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// stubRegistry is a registry for tests that never call it.
type stubRegistry struct{ Registry }

func TestParseNetwork(t *testing.T) {
	t.Parallel()
	offered := []string{NetworkProduction, NetworkTest}
	tests := []struct {
		raw, offered string
		want         string
		wantErr      string
	}{
		{raw: "", want: ""},
		{raw: "  ", want: ""},
		{raw: "test", want: "test"},
		{raw: " TEST ", want: "test"},
		{raw: "production", want: "production"},
		{raw: "demo", wantErr: `network "demo" is not offered by this server; it offers production, test`},
		{raw: "staging", wantErr: `network "staging" is unknown; this server offers production, test`},
		{raw: "test\n", want: "test"},
		{raw: "x\x00y", wantErr: `network "x\x00y" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := ParseNetwork(tt.raw, offered)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("ParseNetwork(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
				}
				return
			}
			var re *Error
			if !errors.As(err, &re) || re.Code != CodeInvalidRequest || !strings.Contains(re.Message, tt.wantErr) {
				t.Errorf("ParseNetwork(%q) error %v; want invalid_request containing %q", tt.raw, err, tt.wantErr)
			}
		})
	}
	if _, err := ParseNetwork("test", nil); err == nil || !strings.Contains(err.Error(), "one network only") {
		t.Errorf("no networks offered: %v", err)
	}
}

func TestNewNetworks(t *testing.T) {
	t.Parallel()
	stub := stubRegistry{}
	tests := []struct {
		name      string
		def       string
		regs      map[string]Registry
		wantNames []string
	}{
		{"production and test", NetworkProduction, map[string]Registry{NetworkTest: stub, NetworkProduction: stub}, []string{"production", "test"}},
		{"test default", NetworkTest, map[string]Registry{NetworkTest: stub, NetworkProduction: stub}, []string{"test", "production"}},
		{"demo and test", NetworkDemo, map[string]Registry{NetworkTest: stub, NetworkDemo: stub}, []string{"demo", "test"}},
		{"default missing", NetworkProduction, map[string]Registry{NetworkTest: stub}, nil},
		{"unknown name", NetworkProduction, map[string]Registry{NetworkProduction: stub, "staging": stub}, nil},
		{"nil registry", NetworkProduction, map[string]Registry{NetworkProduction: stub, NetworkTest: nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := NewNetworks(tt.def, tt.regs)
			if tt.wantNames == nil {
				if err == nil {
					t.Error("no error")
				}
				return
			}
			if err != nil || !slices.Equal(n.Names(), tt.wantNames) || n.Default() != tt.def {
				t.Errorf("got %v, %v", n, err)
			}
		})
	}
}

// TestOne: one unnamed network answers without a name and refuses any network.
func TestOne(t *testing.T) {
	t.Parallel()
	n := One(stubRegistry{})
	if reg, name, err := n.Select(" "); err != nil || name != "" || reg == nil {
		t.Errorf("Select(\" \") = %v, %q, %v", reg, name, err)
	}
	if _, _, err := n.Select("production"); err == nil || !strings.Contains(err.Error(), "one network only") {
		t.Errorf("Select(production): %v", err)
	}
	if len(n.Names()) != 0 || n.Default() != "" {
		t.Errorf("names %v, default %q", n.Names(), n.Default())
	}
}

// TestOn: marking an answer with its network copies it and leaves it alone for an
// unnamed network.
func TestOn(t *testing.T) {
	t.Parallel()
	p := &Participant{}
	if q := p.On("test"); q == p || q.Network != "test" || p.Network != "" {
		t.Errorf("On(test): %+v, original %+v", q, p)
	}
	if q := p.On(""); q != p {
		t.Error("On(\"\") copied")
	}
	if (*SearchResult)(nil).On("test") != nil || (*ServicesResult)(nil).On("test") != nil {
		t.Error("nil marked")
	}
}
