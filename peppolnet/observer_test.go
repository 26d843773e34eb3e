package peppolnet

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/internal/clock"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/registry"
)

// recordingObserver records what the registry reports.
type recordingObserver struct {
	mu     sync.Mutex
	calls  []observedCall
	caches []string // "kind result"
}

type observedCall struct {
	kind, outcome string
	d             time.Duration
}

func (o *recordingObserver) Upstream(kind, outcome string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, observedCall{kind, outcome, d})
}

func (o *recordingObserver) Cache(kind, result string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.caches = append(o.caches, kind+" "+result)
}

// upstream returns the outcomes reported for kind, in order.
func (o *recordingObserver) upstream(kind string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, c := range o.calls {
		if c.kind == kind {
			out = append(out, c.outcome)
		}
	}
	return out
}

// reset forgets everything recorded.
func (o *recordingObserver) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls, o.caches = nil, nil
}

// TestObserver checks what the registry reports for each kind of request: one
// Upstream call per SML, SMP and Directory call with its outcome, and one cache
// decision per Lookup or Search.
func TestObserver(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	be := n.Dataset().MustLookup(netsim.KnownBelgian)
	lookup := func(id string) func(*testing.T, *Registry, *clock.Fake) {
		return func(t *testing.T, l *Registry, _ *clock.Fake) {
			_, _, _ = l.Lookup(context.Background(), mustID(t, id))
		}
	}
	search := func(q string) func(*testing.T, *Registry, *clock.Fake) {
		return func(t *testing.T, l *Registry, _ *clock.Fake) {
			_, _, _ = l.Search(context.Background(), registry.SearchQuery{Q: q})
		}
	}
	tests := []struct {
		name    string
		target  netsim.Target
		fault   netsim.Fault
		edit    func(*Config)
		actions []func(*testing.T, *Registry, *clock.Fake)
		sml     []string
		smp     []string
		dir     []string
		caches  []string
	}{
		{name: "lookup, then from the cache",
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian), lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeOK}, smp: []string{registry.OutcomeOK, registry.OutcomeOK}, dir: []string{registry.OutcomeOK},
			caches: []string{"lookup miss", "lookup hit"}},
		{name: "not registered",
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup("0208:0000000097")},
			sml:     []string{registry.OutcomeOK}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "SMP 404",
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownSMPNotFound)},
			sml:     []string{registry.OutcomeOK}, smp: []string{registry.OutcomeOK}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "DNS SERVFAIL", target: netsim.DNSTarget(), fault: netsim.Fault{DNS: netsim.DNSServFail},
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeError}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "DNS timeout", target: netsim.DNSTarget(), fault: netsim.Fault{DNS: netsim.DNSTimeout},
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeTimeout}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "SMP 500", target: netsim.SMPHostTarget(be.SMPHost), fault: netsim.Fault{HTTPStatus: 500},
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeOK}, smp: []string{registry.OutcomeError}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "SMP 429", target: netsim.SMPHostTarget(be.SMPHost), fault: netsim.Fault{HTTPStatus: 429},
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeOK}, smp: []string{registry.OutcomeLimited}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "SMP timeout", target: netsim.SMPHostTarget(be.SMPHost), fault: netsim.Fault{Hang: true},
			edit:    func(c *Config) { c.LookupTimeout = 2 * time.Second }, // the SML and Directory answer first, even on a busy machine
			actions: []func(*testing.T, *Registry, *clock.Fake){lookup(netsim.KnownBelgian)},
			sml:     []string{registry.OutcomeOK}, smp: []string{registry.OutcomeTimeout}, dir: []string{registry.OutcomeOK}, caches: []string{"lookup miss"}},
		{name: "Directory 429", target: netsim.DirectoryTarget(), fault: netsim.Fault{HTTPStatus: 429, RetryAfter: "2"},
			actions: []func(*testing.T, *Registry, *clock.Fake){search("alpha")},
			dir:     []string{registry.OutcomeLimited}, caches: []string{"search miss"}},
		{name: "Directory 500 with the breaker opening", target: netsim.DirectoryTarget(), fault: netsim.Fault{HTTPStatus: 500},
			edit:    func(c *Config) { c.BreakerFailures = 1 },
			actions: []func(*testing.T, *Registry, *clock.Fake){search("alpha"), search("bravo")},
			dir:     []string{registry.OutcomeError, registry.OutcomeRejected}, caches: []string{"search miss", "search miss"}},
		{name: "Directory queue full",
			edit:    func(c *Config) { c.DirectoryRate, c.DirectoryBurst, c.DirectoryQueue = 0.001, 1, 1 },
			actions: []func(*testing.T, *Registry, *clock.Fake){search("alpha"), search("bravo"), search("charlie")},
			dir:     []string{registry.OutcomeOK, registry.OutcomeRejected, registry.OutcomeRejected}, caches: []string{"search miss", "search miss", "search miss"}},
		{name: "search, then from the cache",
			actions: []func(*testing.T, *Registry, *clock.Fake){search("alpha"), search("alpha")},
			dir:     []string{registry.OutcomeOK}, caches: []string{"search miss", "search hit"}},
		{name: "stale lookup",
			actions: []func(*testing.T, *Registry, *clock.Fake){
				lookup(netsim.KnownBelgian),
				func(t *testing.T, l *Registry, c *clock.Fake) {
					n.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: netsim.DNSServFail})
					c.Advance(registry.DefaultPositiveTTL)
					if _, fr, err := l.Lookup(context.Background(), mustID(t, netsim.KnownBelgian)); err != nil || !fr.Stale {
						t.Errorf("not served stale: %+v %v", fr, err)
					}
				}},
			sml: []string{registry.OutcomeOK, registry.OutcomeError}, smp: []string{registry.OutcomeOK, registry.OutcomeOK}, dir: []string{registry.OutcomeOK, registry.OutcomeOK},
			caches: []string{"lookup miss", "lookup stale"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &recordingObserver{}
			l, clock := newLive(t, n, func(c *Config) {
				c.Observer = obs
				if tt.edit != nil {
					tt.edit(c)
				}
			})
			if tt.fault != (netsim.Fault{}) {
				n.SetFault(tt.target, tt.fault)
			}
			defer n.ClearFaults()
			for _, act := range tt.actions {
				act(t, l, clock)
			}
			for _, k := range []struct {
				kind string
				want []string
			}{{registry.UpstreamSML, tt.sml}, {registry.UpstreamSMP, tt.smp}, {registry.UpstreamDirectory, tt.dir}} {
				if got := obs.upstream(k.kind); !slices.Equal(got, k.want) {
					t.Errorf("%s calls %v, want %v", k.kind, got, k.want)
				}
			}
			obs.mu.Lock()
			defer obs.mu.Unlock()
			if !slices.Equal(obs.caches, tt.caches) {
				t.Errorf("cache decisions %v, want %v", obs.caches, tt.caches)
			}
			for _, c := range obs.calls {
				if c.d < 0 {
					t.Errorf("%s call with negative duration %v", c.kind, c.d)
				}
			}
		})
	}
}

// TestObserverInvalidInput checks that input refused before the cache is not counted
// as a cache decision.
func TestObserverInvalidInput(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	obs := &recordingObserver{}
	l, _ := newLive(t, n, func(c *Config) { c.Observer = obs })
	_, _, _ = l.Lookup(context.Background(), peppol.ParticipantID{})
	_, _, _ = l.Search(context.Background(), registry.SearchQuery{Q: "x"})
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.calls) != 0 || len(obs.caches) != 0 {
		t.Errorf("calls %v caches %v, want none", obs.calls, obs.caches)
	}
}
