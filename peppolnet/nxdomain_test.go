package peppolnet

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNXDOMAINNotFromZone: a DNS server that answers NXDOMAIN for every name (a captive
// portal, a broken or typo'd resolver), without the SML zone's SOA or with the SOA of a
// zone of its own, makes every lookup, locate and services call a lookup_failed, never a
// not_found, whether the participant is registered or not; the cause is logged once,
// naming the DNS server and the rcode, not once per request. The real NXDOMAIN, with
// the zone's SOA, stays not_found.
func TestNXDOMAINNotFromZone(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	ids := []string{netsim.KnownBelgian, netsim.KnownDirectoryOnly, "0208:0000000097", "0088:0000000000017", "9925:be0000000097"}
	for _, fault := range []netsim.DNSFault{netsim.DNSNXDomain, netsim.DNSNXDomainForeignSOA} {
		t.Run(map[netsim.DNSFault]string{netsim.DNSNXDomain: "no SOA", netsim.DNSNXDomainForeignSOA: "foreign SOA"}[fault], func(t *testing.T) {
			var logs syncBuffer
			l, _ := newLive(t, n, func(c *Config) {
				c.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
			})
			n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: fault})
			defer n.ClearFaults()
			for _, s := range ids {
				id := mustID(t, s)
				_, _, err := l.Lookup(context.Background(), id)
				checkNotFromZone(t, "Lookup "+s, err)
				_, err = l.SMPHost(context.Background(), id)
				checkNotFromZone(t, "SMPHost "+s, err)
				_, _, err = l.Services(context.Background(), id, "")
				checkNotFromZone(t, "Services "+s, err)
			}
			var lines []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if strings.Contains(line, n.DNSAddr()) {
					lines = append(lines, line)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%d log lines name the DNS server after %d calls, want 1:\n%s", len(lines), 3*len(ids), strings.Join(lines, "\n"))
			}
			for _, want := range []string{`"level":"ERROR"`, `"msg":"upstream call failed"`, `"dns_rcode":"NXDOMAIN"`, `"host":"` + n.DNSAddr() + `"`,
				`"failure":"DNS answer not from the SML zone"`, `"zone":"` + n.Zone() + `"`, "does not answer for the SML"} {
				if !strings.Contains(lines[0], want) {
					t.Errorf("log line %s lacks %s", lines[0], want)
				}
			}
		})
	}

	t.Run("NXDOMAIN with the zone's SOA is not_found", func(t *testing.T) {
		l, _ := newLive(t, n, nil)
		id := mustID(t, "0208:0000000097")
		if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeNotFound {
			t.Errorf("Lookup: %v, want not_found", err)
		}
		if _, err := l.SMPHost(context.Background(), id); registry.ErrorCode(err) != registry.CodeNotFound {
			t.Errorf("SMPHost: %v, want not_found", err)
		}
		if _, _, err := l.Services(context.Background(), id, ""); registry.ErrorCode(err) != registry.CodeNotFound {
			t.Errorf("Services: %v, want not_found", err)
		}
	})
}

func checkNotFromZone(t *testing.T, what string, err error) {
	t.Helper()
	if registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Errorf("%s: %v, want lookup_failed", what, err)
		return
	}
	msg := err.(*registry.Error).Message
	for _, want := range []string{"does not come from the SML zone", "retry"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%s: message %q lacks %q", what, msg, want)
		}
	}
	if strings.Contains(msg, "127.0.0.1") {
		t.Errorf("%s: message %q names a host", what, msg)
	}
}

// TestCheckSML: CheckSML passes while the SML zone resolves and fails, naming the zone
// and the rcode but not the DNS server, while the DNS server answers NXDOMAIN for every
// name.
func TestCheckSML(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, nil)
	if st := l.CheckSML(context.Background()); !st.OK || st.Zone != n.Zone() {
		t.Fatalf("CheckSML = %+v, want OK for %s", st, n.Zone())
	}
	l, _ = newLive(t, n, nil)
	n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSNXDomain})
	defer n.ClearFaults()
	st := l.CheckSML(context.Background())
	if st.OK || st.Zone != n.Zone() || !strings.Contains(st.Message, "NXDOMAIN") || !strings.Contains(st.Message, n.Zone()) || strings.Contains(st.Message, "127.0.0.1") {
		t.Fatalf("CheckSML = %+v, want not OK, saying NXDOMAIN for %s without the server", st, n.Zone())
	}
	if !st.NoSuchZone {
		t.Errorf("CheckSML = %+v, want NoSuchZone for an NXDOMAIN", st)
	}
	// A silent DNS server proves nothing about the zone.
	l, _ = newLive(t, n, nil)
	n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSTimeout})
	if st := l.CheckSML(context.Background()); st.OK || st.NoSuchZone || st.Message == "" {
		t.Errorf("CheckSML with a silent DNS server = %+v, want not OK, NoSuchZone false, with a message", st)
	}
}

// TestZoneInParentZone: when the SML zone is a name inside its parent zone without an
// SOA of its own (the production zone until August 2026), an unregistered participant's
// NXDOMAIN carries the parent's SOA and the zone's SOA question is answered NOERROR
// with no records: that is still "not registered", and CheckSML passes.
func TestZoneInParentZone(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 50, Now: testNow})
	n, err := netsim.Start(context.Background(), ds, netsim.Config{ParentZone: "tech.peppol.org"})
	if err != nil {
		t.Fatalf("netsim.Start: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	l, _ := newLive(t, n, nil)
	if st := l.CheckSML(context.Background()); !st.OK {
		t.Errorf("CheckSML = %+v, want OK", st)
	}
	id := mustID(t, "0208:0000000097")
	if _, _, err := l.Lookup(context.Background(), id); registry.ErrorCode(err) != registry.CodeNotFound {
		t.Errorf("Lookup of an unregistered participant: %v, want not_found", err)
	}
	if _, _, err := l.Lookup(context.Background(), mustID(t, netsim.KnownBelgian)); err != nil {
		t.Errorf("Lookup of a registered participant: %v", err)
	}
}
