package stack

import (
	"bytes"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/mirror"
	"github.com/peppolgate/peppolgate/mirror/export"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// startSim starts a small simulated network until the test ends.
func startSim(t *testing.T) (*netsim.Dataset, *netsim.Network) {
	t.Helper()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 3, Participants: 20})
	sim, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	return ds, sim
}

// caPEM returns the simulated network's CA certificates as PEM, as a private network's
// operator would give them with -trust-ca.
func caPEM(t *testing.T, sim *netsim.Network) []byte {
	t.Helper()
	root, smpCA, apCA := sim.TrustAnchors()
	var out []byte
	for _, der := range [][]byte{root, smpCA, apCA} {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}

// TestBuild builds stacks as their callers do and checks what each gets.
func TestBuild(t *testing.T) {
	t.Parallel()
	ds, sim := startSim(t)
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
		{name: "a network with no zone of its own", cfg: Config{Networks: []Network{{Name: "staging", DNSServers: []string{"127.0.0.1:1"}}}}, wantErr: true},
		{name: "a network name that is no Peppol network", cfg: Config{Networks: []Network{{Name: registry.NetworkTest, Sim: sim}, {Name: "staging", Sim: sim}}}, wantErr: true},
		{name: "a network twice", cfg: Config{Networks: []Network{{Name: registry.NetworkTest, Sim: sim}, {Name: registry.NetworkTest, Sim: sim}}}, wantErr: true},
		{name: "a DNS server that is no address", cfg: Config{Networks: []Network{{Name: registry.NetworkTest, DNSServers: []string{"not an address"}}}}, wantErr: true, sml: true},
		{name: "trusted CA certificates that are none", cfg: Config{Networks: []Network{{Sim: sim, TrustPEM: []byte("not PEM")}}}, wantErr: true},
		{name: "a mirror file that cannot be opened", cfg: Config{Networks: []Network{{Sim: sim}}, MirrorPath: t.TempDir()}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := Build(tt.cfg)
			if tt.wantErr {
				var ce *ConfigError
				if err == nil || st != nil || (tt.sml && (!errors.As(err, &ce) || !ce.SML)) {
					t.Fatalf("Build: %v, %v; want an error (SML %v)", st, err, tt.sml)
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

// TestTrustPEM: a private network reached as a real one (its DNS server, SMPs and
// Directory named, not simulated in-process) has certificates OpenPeppol's CAs did not
// issue: they chain to nothing and are warned about, until its own CAs are trusted
// with TrustPEM (-trust-ca), on the same code path. They are then labelled the
// operator's own chain, never OpenPeppol's (issue 26: they were "peppol-production" on
// a network named production).
func TestTrustPEM(t *testing.T) {
	t.Parallel()
	_, sim := startSim(t)
	private := Network{Name: registry.NetworkTest, DNSServers: []string{sim.DNSAddr()}, Zone: sim.Zone(),
		DirectoryURL: sim.DirectoryURL(), AllowPrivateSMP: true}
	id, err := peppol.ParseParticipantID(netsim.KnownCertValid)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		network string
		trust   []byte
		chain   string
		warn    bool
	}{
		{"OpenPeppol's CAs only", registry.NetworkTest, nil, "other", true},
		{"its own CAs trusted", registry.NetworkTest, caPEM(t, sim), "operator", false},
		{"its own CAs trusted on production", registry.NetworkProduction, caPEM(t, sim), "operator", false},
	} {
		n := private
		n.Name, n.TrustPEM = tt.network, tt.trust
		st, err := Build(Config{Networks: []Network{n}, SMLTimeout: time.Second, SMLAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		p, _, err := st.Default().Lookup(t.Context(), id)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		warned := slices.ContainsFunc(p.Warnings, func(w registry.Warning) bool {
			return w.Code == registry.WarnCertificateChainInvalid || w.Code == registry.WarnSMPCertificateNotPeppol
		})
		if p.SMP.Signature.Chain != tt.chain || p.SMP.Endpoint.Certificate.Chain != tt.chain || warned != tt.warn {
			t.Errorf("%s: signer chain %q, endpoint chain %q, warnings %+v; want %q, warned %v",
				tt.name, p.SMP.Signature.Chain, p.SMP.Endpoint.Certificate.Chain, p.Warnings, tt.chain, tt.warn)
		}
	}
}

// TestMirrorStatus: with a mirror, /readyz's report is the registry's judgement of
// its data's age, with the ages the registry uses (here: a hard limit raised to the
// max age, as the registry raises it).
func TestMirrorStatus(t *testing.T) {
	t.Parallel()
	_, sim := startSim(t)
	path := filepath.Join(t.TempDir(), "mirror.db")
	st, err := Build(Config{Networks: []Network{{Sim: sim}}, MirrorPath: path, MirrorMaxAge: 1000 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := st.MirrorStatus()()
	if got.State != registry.MirrorEmpty || got.MaxAgeSeconds != 3600000 || got.HardMaxAgeSeconds != 3600000 || got.DataAsOf != nil {
		t.Errorf("status of an empty mirror: %+v", got)
	}
}

// TestSMLStatus: the stack reports each network's SML zone, default first, and a
// network whose DNS server answers NXDOMAIN for every name as not OK.
func TestSMLStatus(t *testing.T) {
	t.Parallel()
	_, prod := startSim(t)
	_, test := startSim(t)
	test.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSNXDomain})
	st, err := Build(Config{Networks: []Network{{Name: registry.NetworkProduction, Sim: prod}, {Name: registry.NetworkTest, Sim: test}}, SMLTimeout: time.Second, SMLAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := st.SMLStatus()(t.Context())
	if len(got) != 2 || got[0].Network != registry.NetworkProduction || !got[0].OK || got[0].Zone != prod.Zone() ||
		got[1].Network != registry.NetworkTest || got[1].OK || got[1].Message == "" {
		t.Errorf("SML status %+v, want production OK, then test not OK", got)
	}
}

// TestStartDemo starts the demo's networks and refuses one it does not simulate.
func TestStartDemo(t *testing.T) {
	t.Parallel()
	nets, stop, err := StartDemo(t.Context(), []string{registry.NetworkDemo, registry.NetworkTest}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if len(nets) != 2 || nets[0].Name != registry.NetworkDemo || nets[1].Sim == nil || nets[0].DirectoryRate != DemoDirectoryRate {
		t.Errorf("demo networks %+v", nets)
	}
	// One clock: every demo network runs on the demo's day, as its registries do.
	for _, n := range nets {
		if d := n.Sim.Now().Sub(DemoNow()); d < 0 || d > time.Minute {
			t.Errorf("%s network's clock is %v from the demo's day", n.Name, d)
		}
	}
	if _, _, err := StartDemo(t.Context(), []string{registry.NetworkProduction}, nil); err == nil {
		t.Error("StartDemo(production) succeeded")
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

// TestDemoFailingSMP: the demo's failing-SMP participants are registered companies of
// the demo dataset with a card, and on the started demo their lookups fail (retryable)
// while their Directory cards and every other participant answer as before.
func TestDemoFailingSMP(t *testing.T) {
	t.Parallel()
	ds := DemoDataset()
	showcase := netsim.ShowcaseParticipants()
	for _, id := range DemoFailingSMP() {
		p := ds.MustLookup(id)
		if p == nil || !p.InSML || p.SMPNotFound || p.RedirectHost != -1 || p.Card == nil || slices.Contains(showcase, id) {
			t.Errorf("%s is not a plain registered demo participant with a card: %+v", id, p)
		}
	}
	nets, stop, err := StartDemo(t.Context(), []string{registry.NetworkDemo}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	st, err := Build(Config{Networks: nets, Now: DemoClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tt := range []struct {
		id   string
		fail bool
	}{{DemoFailingSMP()[0], true}, {DemoFailingSMP()[4], true}, {netsim.KnownBelgian, false}, {netsim.KnownNorwegian, false}} {
		id, err := peppol.ParseParticipantID(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := st.Default().Lookup(t.Context(), id)
		var re *registry.Error
		switch {
		case tt.fail && (!errors.As(err, &re) || re.Code != registry.CodeLookupFailed):
			t.Errorf("%s: %v, want lookup_failed", tt.id, err)
		case !tt.fail && (err != nil || p.SMP == nil):
			t.Errorf("%s: %+v %v, want its SMP record", tt.id, p, err)
		}
	}
}

// TestMirrorOtherSchema: a mirror file of another schema version (an older peppolgate
// built it; a new replica on the shared volume after an upgrade) does not stop the
// stack: it serves from the live Directory, and Reload picks up the rebuilt file.
func TestMirrorOtherSchema(t *testing.T) {
	t.Parallel()
	_, sim := startSim(t)
	path := filepath.Join(t.TempDir(), "mirror.db")
	if _, err := mirror.Build(t.Context(), path, &mirrorSource{}, mirror.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", mirror.SchemaVersion-1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var logs bytes.Buffer
	st, err := Build(Config{Networks: []Network{{Sim: sim}}, MirrorPath: path, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("Build over an index of another schema: %v", err)
	}
	defer st.Close()
	if _, ok := st.Mirror.Meta(); ok {
		t.Error("the mirror holds an index of another schema")
	}
	if !strings.Contains(logs.String(), "another schema version") || !strings.Contains(logs.String(), "peppolgate mirror sync") {
		t.Errorf("no warning saying how to rebuild the mirror:\n%s", logs.String())
	}
	if _, err := mirror.Build(t.Context(), path, &mirrorSource{}, mirror.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if changed, err := st.Mirror.Reload(); err != nil || !changed {
		t.Fatalf("Reload of the rebuilt index = %v, %v", changed, err)
	}
	if m, ok := st.Mirror.Meta(); !ok || m.SchemaVersion != mirror.SchemaVersion {
		t.Errorf("after the rebuild: %+v, %v", m, ok)
	}
}

// mirrorSource is a mirror.CardSource of one card.
type mirrorSource struct{ done bool }

func (s *mirrorSource) Header() export.Header {
	return export.Header{Format: export.FormatXMLv3, Created: time.Now().UTC(), CodeList: "9.4"}
}

func (s *mirrorSource) Next() (*export.Card, error) {
	if s.done {
		return nil, io.EOF
	}
	s.done = true
	e := export.Entity{Names: []export.Name{{Name: "Hansen Vik AS"}}, CountryCode: "NO"}
	return &export.Card{Participant: export.ID{Scheme: "iso6523-actorid-upis", Value: "0192:100000001"}, Entities: []export.Entity{e}}, nil
}
