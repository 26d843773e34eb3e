package stack

import (
	"errors"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestBuild builds stacks as their callers do and checks what each gets.
func TestBuild(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 3, Participants: 20})
	sim, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	tests := []struct {
		name      string
		cfg       Config
		wantNames []string
		wantErr   bool
		sml       bool
	}{
		{name: "one unnamed simulated network", cfg: Config{Networks: []Network{{Sim: sim}}}, wantNames: nil},
		{name: "production and test", cfg: Config{Networks: []Network{{Name: registry.NetworkProduction, Sim: sim}, {Name: registry.NetworkTest, Sim: sim}}},
			wantNames: []string{"production", "test"}},
		{name: "no networks", cfg: Config{}, wantErr: true},
		{name: "a zone nobody knows", cfg: Config{Networks: []Network{{Name: "staging", DNSServers: []string{"127.0.0.1:1"}}}}, wantErr: true},
		{name: "a name twice", cfg: Config{Networks: []Network{{Name: registry.NetworkTest, Sim: sim}, {Name: "staging", Sim: sim}}}, wantErr: true},
		{name: "no DNS server", cfg: Config{Networks: []Network{{Name: registry.NetworkTest, DNSServers: []string{"not an address"}}}}, wantErr: true, sml: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := Build(tt.cfg)
			if tt.wantErr {
				var ce *ConfigError
				if err == nil || (tt.sml && (!errors.As(err, &ce) || !ce.SML)) {
					t.Fatalf("Build: %v; want an error (SML %v)", err, tt.sml)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if got := st.Networks.Names(); len(got) != len(tt.wantNames) || (len(got) > 0 && got[0] != tt.wantNames[0]) {
				t.Errorf("names %v, want %v", got, tt.wantNames)
			}
			if st.Default() == nil || st.MirrorStatus() != nil || st.CachePolicy().Found != registry.DefaultPositiveTTL {
				t.Errorf("default %v, mirror status set %v, cache %+v", st.Default(), st.MirrorStatus() != nil, st.CachePolicy())
			}
			// The simulated network answers through the stack.
			reg, _, err := st.Networks.Select("")
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := reg.Lookup(t.Context(), ds.Participants[0].ID); err != nil && registry.ErrorCode(err) != registry.CodeNotFound {
				t.Errorf("lookup over the stack: %v", err)
			}
		})
	}
}

// TestDemoClock: the demo's clock starts at the demo's day and moves on.
func TestDemoClock(t *testing.T) {
	t.Parallel()
	now := DemoClock()
	if d := now().Sub(DemoNow()); d < 0 || d > time.Minute {
		t.Errorf("demo clock is %v from the demo's day", d)
	}
}
