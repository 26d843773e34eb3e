package sml

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// soaRR is an SOA record owned by zone, as an authority section or a zone check's
// answer holds it.
func soaRR(t testing.TB, zone string) dns.RR {
	if zone == "." {
		return mustRR(t, ". 86400 IN SOA a.root-servers.net. nstld.verisign-grs.com. 1 1800 900 604800 86400")
	}
	return mustRR(t, dns.Fqdn(zone)+" 60 IN SOA ns1."+dns.Fqdn(zone)+" hostmaster."+dns.Fqdn(zone)+" 1 3600 600 604800 60")
}

// negative replies rcode with rrs in the answer and ns in the authority section, as a
// recursive resolver (RA set) does.
func negative(rc int, answer []dns.RR, ns ...dns.RR) handler {
	return func(w dns.ResponseWriter, req *dns.Msg, _ bool) {
		m := reply(req, rc, answer...)
		m.Authoritative, m.RecursionAvailable = false, true
		m.Ns = ns
		_ = w.WriteMsg(m)
	}
}

// withZone answers the SOA question of zone with its SOA, as a resolver that reaches
// the SML does, and every other question with h.
func withZone(t testing.TB, zone string, h handler) handler {
	soa := soaRR(t, zone)
	return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
		if q := req.Question[0]; q.Qtype == dns.TypeSOA && strings.EqualFold(q.Name, dns.Fqdn(zone)) {
			m := reply(req, dns.RcodeSuccess, soa)
			m.RecursionAvailable = true
			_ = w.WriteMsg(m)
			return
		}
		h(w, req, tcp)
	}
}

// inParent answers as a recursive resolver does for an SML zone that is a name inside
// its parent zone, without an SOA of its own (docs/ARCHITECTURE.md §1): the zone's SOA
// question gets NOERROR with no records and the parent's SOA in the authority section
// (with dname, a DNAME owned by the zone in the answer instead), every other question
// h's answer.
func inParent(t testing.TB, zone, parent string, dname bool, h handler) handler {
	soa := soaRR(t, parent)
	return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
		if q := req.Question[0]; q.Qtype == dns.TypeSOA && strings.EqualFold(q.Name, dns.Fqdn(zone)) {
			m := reply(req, dns.RcodeSuccess)
			m.RecursionAvailable = true
			if dname {
				m.Answer = []dns.RR{mustRR(t, dns.Fqdn(zone)+" 86400 IN DNAME edelivery.tech.ec.europa.eu.")}
			}
			m.Ns = []dns.RR{soa}
			_ = w.WriteMsg(m)
			return
		}
		h(w, req, tcp)
	}
}

// TestNegativeAnswerProof: a negative answer (NXDOMAIN, or no NAPTR records) means "not
// registered" only when it proves it comes from the SML zone: an SOA of the zone (or
// below it, or of the zone a DNAME of the zone points to) in its authority section, or,
// when its authority section proves nothing, the zone's own SOA resolving through the
// same server. A resolver that answers NXDOMAIN for every name (a captive portal, a
// broken or typo'd DNS server) or with the SOA of a zone of its own is a failure.
func TestNegativeAnswerProof(t *testing.T) {
	q := testQName
	zone := ZoneProduction
	legacy := strings.TrimSuffix(q, zone+".") + "edelivery.tech.ec.europa.eu."
	dname := func(t testing.TB) []dns.RR {
		return []dns.RR{mustRR(t, zone+`. 86400 IN DNAME edelivery.tech.ec.europa.eu.`), mustRR(t, q+` 86400 IN CNAME `+legacy)}
	}
	tests := []struct {
		name     string
		h        func(t *testing.T) handler
		wantKind Kind
		rcode    int
		udp      int32  // queries the server saw, zone checks included
		msg      string // part of the error message
	}{
		{
			name:     "NXDOMAIN with the zone's SOA",
			h:        func(t *testing.T) handler { return negative(dns.RcodeNameError, nil, soaRR(t, zone)) },
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 1,
		},
		{
			name: "NXDOMAIN with the SOA of a zone below the SML zone",
			h: func(t *testing.T) handler {
				return negative(dns.RcodeNameError, nil, soaRR(t, "iso6523-actorid-upis."+zone))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 1,
		},
		{
			name:     "NOERROR without records, with the zone's SOA",
			h:        func(t *testing.T) handler { return negative(dns.RcodeSuccess, nil, soaRR(t, zone)) },
			wantKind: KindNotRegistered, rcode: dns.RcodeSuccess, udp: 1,
		},
		{
			name: "NXDOMAIN through the zone's DNAME, with the SOA of the zone it points to",
			h: func(t *testing.T) handler {
				return negative(dns.RcodeNameError, dname(t), soaRR(t, "edelivery.tech.ec.europa.eu"))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 1,
		},
		{
			name: "NXDOMAIN without an SOA, the zone resolving through the same server",
			h: func(t *testing.T) handler {
				return withZone(t, zone, negative(dns.RcodeNameError, nil))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 2,
		},
		{
			name: "NXDOMAIN with the SOA of a zone above the SML zone, the zone resolving",
			h: func(t *testing.T) handler {
				return withZone(t, zone, negative(dns.RcodeNameError, nil, soaRR(t, "peppol.org")))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 2,
		},
		{
			name: "zone inside its parent zone: NXDOMAIN with the parent's SOA, NOERROR for the zone",
			h: func(t *testing.T) handler {
				return inParent(t, zone, "tech.peppol.org", false, negative(dns.RcodeNameError, nil, soaRR(t, "tech.peppol.org")))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 2,
		},
		{
			name: "zone is a DNAME owner in its parent zone: NXDOMAIN with the parent's SOA",
			h: func(t *testing.T) handler {
				return inParent(t, zone, "tech.peppol.org", true, negative(dns.RcodeNameError, nil, soaRR(t, "tech.peppol.org")))
			},
			wantKind: KindNotRegistered, rcode: dns.RcodeNameError, udp: 2,
		},
		{
			name:     "NXDOMAIN with the parent's SOA for every name, the zone too",
			h:        func(t *testing.T) handler { return negative(dns.RcodeNameError, nil, soaRR(t, "tech.peppol.org")) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2 + 1,
			msg: srvAddr + ": answered NXDOMAIN with the SOA of tech.peppol.org, above the SML zone " + zone + ", and the SML zone's own name does not resolve through it (NXDOMAIN)",
		},
		{
			name:     "NXDOMAIN for every name, without an SOA (a captive portal, a broken resolver)",
			h:        func(t *testing.T) handler { return negative(dns.RcodeNameError, nil) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2 + 1,
			msg: srvAddr + ": answered NXDOMAIN without an SOA record, and the SML zone " + zone + "'s own name does not resolve through it (NXDOMAIN)",
		},
		{
			name:     "NXDOMAIN for every name with the SOA of another zone",
			h:        func(t *testing.T) handler { return negative(dns.RcodeNameError, nil, soaRR(t, "portal.example")) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2,
			msg: srvAddr + ": answered NXDOMAIN with the SOA of portal.example, which is not the SML zone " + zone,
		},
		{
			name: "NXDOMAIN with the SOA of another zone, though the SML zone resolves",
			h: func(t *testing.T) handler {
				return withZone(t, zone, negative(dns.RcodeNameError, nil, soaRR(t, "portal.example")))
			},
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2,
			msg: "portal.example",
		},
		{
			name:     "NXDOMAIN with the root's SOA, for every name",
			h:        func(t *testing.T) handler { return negative(dns.RcodeNameError, nil, soaRR(t, ".")) },
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2 + 1,
			msg: "answered NXDOMAIN with the SOA of the root zone, above the SML zone " + zone + ", and the SML zone's own name does not resolve through it (NXDOMAIN)",
		},
		{
			name:     "NOERROR without records or SOA, for every name",
			h:        func(t *testing.T) handler { return negative(dns.RcodeSuccess, nil) },
			wantKind: KindDNSFailure, rcode: dns.RcodeSuccess, udp: 2 + 1,
			msg: "answered no NAPTR records without an SOA record, and the SML zone " + zone + "'s own name does not resolve through it (NOERROR without the zone's SOA)",
		},
		{
			name: "DNAME to another zone, NXDOMAIN with the SOA of a third",
			h: func(t *testing.T) handler {
				return negative(dns.RcodeNameError, dname(t), soaRR(t, "portal.example"))
			},
			wantKind: KindDNSFailure, rcode: dns.RcodeNameError, udp: 2,
			msg: "portal.example",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.h(t))
			r := newTestResolver(t, Config{Servers: []string{srv.addr}})
			_, err := r.Lookup(context.Background(), testID)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Lookup error %T %v is not an *Error", err, err)
			}
			if e.Kind != tt.wantKind || e.Rcode != tt.rcode || e.Server != srv.addr {
				t.Fatalf("Lookup error = %v (%+v), want kind %v rcode %d from %s", err, *e, tt.wantKind, tt.rcode, srv.addr)
			}
			checkClass(t, err, tt.wantKind)
			if got := errors.Is(err, ErrNotFromZone); got != (tt.wantKind == KindDNSFailure) {
				t.Errorf("errors.Is(err, ErrNotFromZone) = %v", got)
			}
			if got := srv.udp.Load(); got != tt.udp {
				t.Errorf("UDP queries = %d, want %d", got, tt.udp)
			}
			if msg := strings.ReplaceAll(tt.msg, srvAddr, srv.addr); !strings.Contains(err.Error(), msg) {
				t.Errorf("message %q lacks %q", err, msg)
			}
		})
	}

	t.Run("a server answering NXDOMAIN for everything is skipped for the next", func(t *testing.T) {
		broken := startServer(t, negative(dns.RcodeNameError, nil))
		good := startServer(t, negative(dns.RcodeNameError, nil, soaRR(t, zone)))
		r := newTestResolver(t, Config{Servers: []string{broken.addr, good.addr}, Attempts: 1})
		_, err := r.Lookup(context.Background(), testID)
		checkClass(t, err, KindNotRegistered)
		if good.udp.Load() != 1 {
			t.Errorf("the second server was asked %d times, want 1", good.udp.Load())
		}
	})
}

// TestZoneCheckCached: the zone check a negative answer without proof needs is made once
// per server and reused, whether it passed or failed, until it expires.
func TestZoneCheckCached(t *testing.T) {
	for _, resolves := range []bool{true, false} {
		name := map[bool]string{true: "zone resolves", false: "zone does not resolve"}[resolves]
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			soaQueries := 0
			h := negative(dns.RcodeNameError, nil)
			if resolves {
				h = withZone(t, ZoneProduction, h)
			}
			srv := startServer(t, func(w dns.ResponseWriter, req *dns.Msg, tcp bool) {
				if req.Question[0].Qtype == dns.TypeSOA {
					mu.Lock()
					soaQueries++
					mu.Unlock()
				}
				h(w, req, tcp)
			})
			r := newTestResolver(t, Config{Servers: []string{srv.addr}, Attempts: 1})
			now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
			r.checks.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			want := KindNotRegistered
			if !resolves {
				want = KindDNSFailure
			}
			for range 5 {
				_, err := r.Lookup(context.Background(), testID)
				checkClass(t, err, want)
			}
			if err := r.CheckZone(context.Background()); (err == nil) != resolves {
				t.Errorf("CheckZone = %v", err)
			}
			mu.Lock()
			if soaQueries != 1 {
				t.Errorf("%d zone checks for 5 lookups and CheckZone, want 1", soaQueries)
			}
			now = now.Add(max(DefaultZoneCheckTTL, ZoneCheckRetry) + time.Second)
			mu.Unlock()
			_, err := r.Lookup(context.Background(), testID)
			checkClass(t, err, want)
			mu.Lock()
			defer mu.Unlock()
			if soaQueries != 2 {
				t.Errorf("%d zone checks after the first expired, want 2", soaQueries)
			}
		})
	}
}

// TestCheckZone: CheckZone passes when one server resolves the zone's SOA, and fails,
// naming the zone and what each server answered, when none does.
func TestCheckZone(t *testing.T) {
	good := func(t *testing.T) string {
		return startServer(t, withZone(t, ZoneProduction, negative(dns.RcodeNameError, nil))).addr
	}
	captive := func(t *testing.T) string { return startServer(t, negative(dns.RcodeNameError, nil)).addr }
	tests := []struct {
		name    string
		servers func(t *testing.T) []string
		msg     []string // nil: CheckZone passes
	}{
		{"resolves", func(t *testing.T) []string { return []string{good(t)} }, nil},
		{"first server captive, second resolves", func(t *testing.T) []string { return []string{captive(t), good(t)} }, nil},
		{"first server silent, second resolves", func(t *testing.T) []string { return []string{startServer(t, silent).addr, good(t)} }, nil},
		{"two servers, neither resolves", func(t *testing.T) []string { return []string{captive(t), startServer(t, rcode(dns.RcodeRefused)).addr} },
			[]string{"NXDOMAIN", "REFUSED"}},
		{"NXDOMAIN for the zone", func(t *testing.T) []string { return []string{captive(t)} },
			[]string{"SML zone " + ZoneProduction + " does not resolve", "NXDOMAIN"}},
		{"SERVFAIL", func(t *testing.T) []string { return []string{startServer(t, rcode(dns.RcodeServerFailure)).addr} },
			[]string{"SERVFAIL"}},
		{"zone inside its parent zone", func(t *testing.T) []string {
			return []string{startServer(t, inParent(t, ZoneProduction, "tech.peppol.org", false, negative(dns.RcodeNameError, nil))).addr}
		}, nil},
		{"zone is a DNAME owner in its parent zone", func(t *testing.T) []string {
			return []string{startServer(t, inParent(t, ZoneProduction, "tech.peppol.org", true, negative(dns.RcodeNameError, nil))).addr}
		}, nil},
		{"NOERROR for the zone with the root's SOA", func(t *testing.T) []string {
			return []string{startServer(t, negative(dns.RcodeSuccess, nil, soaRR(t, "."))).addr}
		}, []string{"NOERROR without the zone's SOA"}},
		{"NOERROR for the zone with the SOA of a zone below it", func(t *testing.T) []string {
			return []string{startServer(t, negative(dns.RcodeSuccess, nil, soaRR(t, "x."+ZoneProduction))).addr}
		}, []string{"NOERROR with the SOA of x." + ZoneProduction}},
		{"zone of another name", func(t *testing.T) []string {
			return []string{startServer(t, negative(dns.RcodeSuccess, []dns.RR{soaRR(t, "portal.example")})).addr}
		}, []string{"NOERROR with the SOA of portal.example"}},
		{"port closed", func(t *testing.T) []string { return []string{deadAddr(t)} }, []string{"does not resolve"}},
	}
	// The failures that prove the zone's name does not exist there, rather than that no
	// answer was had (ZoneCheckError.NoSuchZone).
	noSuchZone := map[string]bool{"two servers, neither resolves": true, "NXDOMAIN for the zone": true,
		"zone of another name": true, "NOERROR for the zone with the SOA of a zone below it": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := tt.servers(t)
			r := newTestResolver(t, Config{Servers: servers, Timeout: time.Second, Attempts: 1})
			err := r.CheckZone(context.Background())
			if tt.msg == nil {
				if err != nil {
					t.Fatalf("CheckZone = %v", err)
				}
				return
			}
			var ze *ZoneCheckError
			if !errors.As(err, &ze) || ze.Zone != ZoneProduction {
				t.Fatalf("CheckZone = %T %v, want a *ZoneCheckError for %s", err, err, ZoneProduction)
			}
			for _, m := range append(tt.msg, servers...) {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q lacks %q", err, m)
				}
			}
			if got := ze.NoSuchZone(); got != noSuchZone[tt.name] {
				t.Errorf("NoSuchZone() = %v, want %v", got, noSuchZone[tt.name])
			}
			if strings.Contains(ze.Reason(), "127.0.0.1") {
				t.Errorf("Reason() %q names a server", ze.Reason())
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		r := newTestResolver(t, Config{Servers: []string{good(t)}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := r.CheckZone(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("CheckZone = %v, want context.Canceled", err)
		}
		// A check cut short by its caller is not remembered.
		if err := r.CheckZone(context.Background()); err != nil {
			t.Fatalf("CheckZone after a cancelled one = %v", err)
		}
	})
}
