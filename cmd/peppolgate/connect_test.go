package main

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/stack"
)

// TestConfigError: a network the stack cannot configure is a usage error naming the
// flag to change; any other failure is not.
func TestConfigError(t *testing.T) {
	t.Parallel()
	smlErr := &stack.ConfigError{Network: registry.NetworkProduction, SML: true, Err: errors.New("sml: no DNS servers configured")}
	tests := []struct {
		name      string
		cfg       config
		err       error
		wantUsage bool
		want      string
	}{
		{"default network, no DNS server", config{network: registry.NetworkProduction}, smlErr, true,
			"configuring SML lookups of the production network: sml: no DNS servers configured; name a DNS server with -dns-server host:port"},
		{"default network, DNS server given", config{network: registry.NetworkProduction, dnsServers: []string{"127.0.0.1:53"}}, smlErr, true,
			"configuring SML lookups of the production network: sml: no DNS servers configured"},
		{"another network", config{network: registry.NetworkTest},
			&stack.ConfigError{Network: registry.NetworkProduction, SML: true, Err: errors.New("sml: no DNS servers configured")}, true,
			"configuring SML lookups of the production network: sml: no DNS servers configured; offer only -network's with -networks test"},
		{"not a configuration error", config{network: registry.NetworkProduction}, errors.New("opening the Directory mirror m.db: locked"), false,
			"opening the Directory mirror m.db: locked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := configError(tt.cfg, tt.err)
			var ue *usageError
			if errors.As(err, &ue) != tt.wantUsage || err.Error() != tt.want {
				t.Errorf("configError = %v (usage %v), want %q (usage %v)", err, errors.As(err, &ue), tt.want, tt.wantUsage)
			}
		})
	}
}

// TestConnectOffline: connect builds the stack without asking anything upstream, for
// the configurations the README shows, and refuses a zone nobody knows.
func TestConnectOffline(t *testing.T) {
	t.Parallel()
	up, err := connect(t.Context(), config{network: registry.NetworkProduction, networks: []string{"production", "test"},
		dnsServers: []string{"127.0.0.1:1"}, smlZone: "edelivery.tech.ec.europa.eu"}, slog.New(slog.DiscardHandler), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer up.closeAll()
	if got := strings.Join(up.Networks.Names(), ","); got != "production,test" || up.MirrorStatus() != nil || up.demo != nil {
		t.Errorf("networks %s, mirror status %v, demo %v", got, up.MirrorStatus() != nil, up.demo)
	}
}
