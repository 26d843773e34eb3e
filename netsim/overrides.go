package netsim

import (
	"maps"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

// overrides are records set at run time over the dataset's: hostile or broken
// registrations that tests need (an SML record pointing at a private address, a host
// name resolving to loopback, an SMP Redirect to anywhere). Copy-on-write, like
// faultSet, so that request paths read them without locking.
type overrides struct {
	mu sync.Mutex // serialises writers
	p  atomic.Pointer[overrideMaps]
}

type overrideMaps struct {
	naptr    map[string]naptrOverride // lower-case NAPTR name → record
	hosts    map[string][]netip.Addr  // lower-case host name without trailing dot → addresses
	redirect map[string]string        // participant key → Redirect base URL
}

type naptrOverride struct {
	id  peppol.ParticipantID
	url string
}

// update applies edit to a copy of the current maps and publishes it.
func (o *overrides) update(edit func(m *overrideMaps)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := overrideMaps{naptr: map[string]naptrOverride{}, hosts: map[string][]netip.Addr{}, redirect: map[string]string{}}
	if cur := o.p.Load(); cur != nil {
		next.naptr, next.hosts, next.redirect = maps.Clone(cur.naptr), maps.Clone(cur.hosts), maps.Clone(cur.redirect)
	}
	edit(&next)
	o.p.Store(&next)
}

// load returns the current maps; nil when nothing was ever set.
func (o *overrides) load() *overrideMaps { return o.p.Load() }

// SetNAPTR publishes an SML record for id whose U-NAPTR regexp yields smpURL, in place
// of the dataset's (or for a participant the dataset does not have); "" removes it.
// smpURL is published as given, unchecked, so tests can point a participant at
// http://10.0.0.1/, https://[::1]:8443/ or a name added with SetHost; it must not
// contain '!', the regexp's delimiter. The SMPs still serve a participant only where
// the dataset places it; participant faults apply to the record's DNS answers.
func (n *Network) SetNAPTR(id peppol.ParticipantID, smpURL string) {
	name := sml.NAPTRName(id, n.zone)
	n.overrides.update(func(m *overrideMaps) {
		if smpURL == "" {
			delete(m.naptr, name)
			return
		}
		m.naptr[name] = naptrOverride{id: id, url: smpURL}
	})
}

// SetHost makes the DNS server answer A and AAAA queries for name (any name, inside the
// SML zone or not) with addrs: the IPv4 ones as A records, the IPv6 ones as AAAA
// records. No addrs removes the name. Point a net.Resolver at DNSAddr to use it.
func (n *Network) SetHost(name string, addrs ...netip.Addr) {
	key := normaliseName(name)
	n.overrides.update(func(m *overrideMaps) {
		if len(addrs) == 0 {
			delete(m.hosts, key)
			return
		}
		m.hosts[key] = append([]netip.Addr(nil), addrs...)
	})
}

// SetRedirect makes every SMP that serves id answer each ServiceMetadata request for
// it with an SMP-level Redirect to base + "/" + the escaped participant + "/services/"
// + the escaped document type, in place of the metadata (or of the dataset's own
// Redirect); "" removes it. base is used as given: another SMP's base URL, the same
// SMP's (a redirect loop: the target redirects again), or an address a guarded client
// must refuse, such as http://127.0.0.1:1 or http://169.254.169.254.
func (n *Network) SetRedirect(id peppol.ParticipantID, base string) {
	key := participantKey(id)
	n.overrides.update(func(m *overrideMaps) {
		if base == "" {
			delete(m.redirect, key)
			return
		}
		m.redirect[key] = base
	})
}

// naptrFor returns the record set for the NAPTR name, if any.
func (o *overrides) naptrFor(name string) (naptrOverride, bool) {
	m := o.load()
	if m == nil {
		return naptrOverride{}, false
	}
	r, ok := m.naptr[name]
	return r, ok
}

// hostAddrs returns the addresses set for a host name, if any.
func (o *overrides) hostAddrs(name string) ([]netip.Addr, bool) {
	m := o.load()
	if m == nil {
		return nil, false
	}
	a, ok := m.hosts[name]
	return a, ok
}

// redirectFor returns the Redirect base set for a participant, if any.
func (o *overrides) redirectFor(id peppol.ParticipantID) (string, bool) {
	m := o.load()
	if m == nil {
		return "", false
	}
	b, ok := m.redirect[participantKey(id)]
	return b, ok
}
