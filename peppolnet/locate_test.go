package peppolnet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/livenet"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

func mustID(t *testing.T, s string) peppol.ParticipantID {
	t.Helper()
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestSMPHost: the SML alone names a participant's SMP host, as the host gates key it,
// and the lookup that follows does not ask the SML again.
func TestSMPHost(t *testing.T) {
	t.Parallel()
	n := livenet.Start(t, netsim.DatasetConfig{Seed: 7, Participants: 50, Now: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
	be := n.DS.MustLookup(netsim.KnownBelgian)
	want := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(n.Net.SMPBaseURL(be.SMPHost), "http://"), "https://"))
	want, _, _ = strings.Cut(want, "/")
	n.Net.ResetHits()
	host, err := n.Reg.SMPHost(t.Context(), be.ID)
	if err != nil || host != want {
		t.Fatalf("SMPHost = %q, %v; want %q", host, err, want)
	}
	if _, _, err := n.Reg.Lookup(t.Context(), be.ID); err != nil {
		t.Fatal(err)
	}
	if q := n.Net.Hits().DNS.Total(); q != 1 {
		t.Errorf("SMPHost then Lookup asked DNS %d times, want 1", q)
	}
	// From the cached lookup now: no DNS at all.
	if host, err := n.Reg.SMPHost(t.Context(), be.ID); err != nil || host != want || n.Net.Hits().DNS.Total() != 1 {
		t.Errorf("SMPHost after the lookup = %q, %v, %d DNS queries", host, err, n.Net.Hits().DNS.Total())
	}
	for _, id := range []string{"0208:0000000097", netsim.KnownDirectoryOnly} {
		if _, err := n.Reg.SMPHost(t.Context(), mustID(t, id)); registry.ErrorCode(err) != registry.CodeNotFound {
			t.Errorf("SMPHost(%s): %v, want not_found", id, err)
		}
	}
	n.Net.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
	if _, err := n.Reg.SMPHost(t.Context(), mustID(t, "0208:0000000196")); registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Errorf("SMPHost with SERVFAIL: %v, want lookup_failed", err)
	}
}
