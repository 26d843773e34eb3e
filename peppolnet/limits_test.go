package peppolnet

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// hostParticipants returns count participants the SML places on SMP host, served
// there without a Redirect.
func hostParticipants(t *testing.T, n *netsim.Network, host, count int) []peppol.ParticipantID {
	t.Helper()
	var out []peppol.ParticipantID
	for _, p := range n.Dataset().Participants {
		if p.InSML && p.SMPHost == host && !p.SMPNotFound && p.RedirectHost < 0 && len(p.Services) > 0 {
			out = append(out, p.ID)
			if len(out) == count {
				return out
			}
		}
	}
	t.Fatalf("only %d participants on SMP host %d", len(out), host)
	return nil
}

// TestSMPHostConcurrencyCap runs many lookups of different participants of one slow
// SMP host at once: the host never holds more requests than the cap, and every lookup
// still answers.
func TestSMPHostConcurrencyCap(t *testing.T) {
	t.Parallel()
	n := startNet(t, 600)
	const limit, lookups = 3, 12
	ids := hostParticipants(t, n, 0, lookups)
	l, _ := newLive(t, n, func(c *Config) {
		c.SMPHostConcurrency = limit
		c.LookupTimeout = 20 * time.Second
	})
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{Latency: 300 * time.Millisecond})
	n.ResetHits()
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			if p, _, err := l.Lookup(context.Background(), id); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
				t.Errorf("lookup %s: %+v, %v", id, p, err)
			}
		})
	}
	wg.Wait()
	h := n.Hits().SMP[0]
	if h.ServiceGroup != lookups || h.ServiceMetadata != lookups {
		t.Errorf("hits %+v, want %d of each", h, lookups)
	}
	// Twelve lookups waiting on a 300 ms host fill every slot; none beyond.
	if h.MaxInFlight != limit {
		t.Errorf("the SMP host held %d requests at once, want the cap, %d", h.MaxInFlight, limit)
	}
	if len(l.smpGates.hosts) != 0 {
		t.Errorf("%d SMP hosts remembered after all went well", len(l.smpGates.hosts))
	}
}

// TestSMPCircuitBreaker fails an SMP host until its breaker opens, checks that further
// lookups fail fast without a request and say when to retry, that other hosts are not
// affected, and that after the cool-down one good probe closes it.
func TestSMPCircuitBreaker(t *testing.T) {
	t.Parallel()
	n := startNet(t, 600)
	ids := hostParticipants(t, n, 0, 6)
	healthy := hostParticipants(t, n, 1, 1)[0]
	obs := &recordingObserver{}
	l, clock := newLive(t, n, func(c *Config) {
		c.BreakerFailures = 3
		c.Observer = obs
	})
	n.SetFault(netsim.SMPHostTarget(0), netsim.Fault{HTTPStatus: 503})
	for _, id := range ids[:3] {
		_, _, err := l.Lookup(context.Background(), id)
		if e := (*registry.Error)(nil); !errors.As(err, &e) || e.Code != registry.CodeLookupFailed || !strings.Contains(e.Message, "did not answer usably") || e.RetryAfter != 0 {
			t.Fatalf("lookup of %s while the SMP fails: %v", id, err)
		}
	}
	before := n.Hits().SMP[0]
	obs.reset()

	_, _, err := l.Lookup(context.Background(), ids[3])
	var e *registry.Error
	if !errors.As(err, &e) || e.Code != registry.CodeLookupFailed || e.RetryAfter != DefaultBreakerCooldown {
		t.Fatalf("lookup with the breaker open: %v (%#v)", err, e)
	}
	const want = "the participant's SMP is failing (3 consecutive timeouts or errors), so peppolgate is not asking it for now; retry after 30s"
	if !strings.Contains(e.Message, want) || strings.Contains(e.Message, "127.0.0.1") {
		t.Errorf("message %q, want it to say %q and name no host", e.Message, want)
	}
	if after := n.Hits().SMP[0]; after != before {
		t.Errorf("hits went from %+v to %+v; an open breaker must not send", before, after)
	}
	if got := obs.upstream(registry.UpstreamSMP); len(got) != 1 || got[0] != registry.OutcomeRejected {
		t.Errorf("observed SMP calls %v, want [rejected]", got)
	}
	if p, _, err := l.Lookup(context.Background(), healthy); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
		t.Errorf("a participant on another SMP host: %+v, %v", p, err)
	}

	// The host recovers; after the cool-down the next lookup probes and closes it.
	n.ClearFaults()
	clock.Advance(DefaultBreakerCooldown - time.Second)
	if _, _, err := l.Lookup(context.Background(), ids[4]); registry.ErrorCode(err) != registry.CodeLookupFailed {
		t.Fatalf("before the cool-down ends: %v, want lookup_failed", err)
	}
	clock.Advance(time.Second)
	for _, id := range ids[4:] {
		if p, _, err := l.Lookup(context.Background(), id); err != nil || p.SMP == nil || p.SMP.Endpoint == nil {
			t.Errorf("after the cool-down, %s: %+v, %v", id, p, err)
		}
	}
}

// TestDirectoryCircuitBreaker does the same for the Directory: searches fail fast with
// search_failed and RetryAfter, lookups carry the directory_unavailable warning, and
// nothing is sent while the breaker is open.
func TestDirectoryCircuitBreaker(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	l, clock := newLive(t, n, func(c *Config) { c.BreakerFailures = 3 })
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
	for _, q := range []string{"alpha", "bravo", "charlie"} {
		if _, _, err := l.Search(context.Background(), registry.SearchQuery{Q: q}); registry.ErrorCode(err) != registry.CodeSearchFailed {
			t.Fatalf("search %q while the Directory fails: %v", q, err)
		}
	}
	before := n.Hits().Directory.Search

	_, _, err := l.Search(context.Background(), registry.SearchQuery{Q: "delta"})
	var e *registry.Error
	if !errors.As(err, &e) || e.Code != registry.CodeSearchFailed || e.RetryAfter != DefaultBreakerCooldown {
		t.Fatalf("search with the breaker open: %v", err)
	}
	const want = "the Peppol Directory is failing (3 consecutive timeouts or errors), so peppolgate is not asking it for now; retry after 30s"
	if e.Message != want {
		t.Errorf("message %q, want %q", e.Message, want)
	}
	p, _, err := l.Lookup(context.Background(), mustID(t, netsim.KnownBelgian))
	if err != nil || p.Directory != nil || !hasWarning(p, registry.WarnDirectoryUnavailable) {
		t.Errorf("lookup with the Directory breaker open: %+v, %v", p, err)
	}
	_, _, err = l.Lookup(context.Background(), mustID(t, "0208:0000000097")) // not in the SML
	if !errors.As(err, &e) || e.Code != registry.CodeLookupFailed || e.RetryAfter != DefaultBreakerCooldown || !strings.Contains(e.Message, "retry after 30s") {
		t.Errorf("lookup of an unregistered id with the Directory breaker open: %v", err)
	}
	if after := n.Hits().Directory.Search; after != before {
		t.Errorf("%d Directory requests sent with the breaker open", after-before)
	}

	n.ClearFaults()
	clock.Advance(DefaultBreakerCooldown)
	for _, q := range []string{"echo", "foxtrot"} {
		if _, _, err := l.Search(context.Background(), registry.SearchQuery{Q: q}); err != nil {
			t.Errorf("search %q after the cool-down: %v", q, err)
		}
	}
}
