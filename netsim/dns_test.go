package netsim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

func query(t testing.TB, n *Network, netw, name string, qtype uint16) (*dns.Msg, error) {
	t.Helper()
	c := &dns.Client{Net: netw, Timeout: 2 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := c.Exchange(m, n.DNSAddr())
	return r, err
}

func mustQuery(t testing.TB, n *Network, netw, name string, qtype uint16) *dns.Msg {
	t.Helper()
	r, err := query(t, n, netw, name, qtype)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", dns.TypeToString[qtype], name, netw, err)
	}
	return r
}

func mustID(t testing.TB, s string) peppol.ParticipantID {
	t.Helper()
	id, err := peppol.ParseParticipantID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDNSNAPTR(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	if n.Zone() != sml.ZoneProduction {
		t.Fatalf("zone = %s", n.Zone())
	}
	tests := []struct {
		id     string
		host   int
		suffix string
	}{
		{KnownBelgian, 0, "/smp!"}, // base path, no trailing slash
		{KnownNorwegian, 1, "/!"},
		{KnownSMPNotFound, 2, "/!"}, // the SML still points at the SMP
	}
	for _, tt := range tests {
		for _, netw := range []string{"udp", "tcp"} {
			t.Run(tt.id+"/"+netw, func(t *testing.T) {
				name := sml.NAPTRName(mustID(t, tt.id), n.Zone())
				r := mustQuery(t, n, netw, name, dns.TypeNAPTR)
				if r.Rcode != dns.RcodeSuccess || !r.Authoritative || len(r.Answer) != 1 {
					t.Fatalf("rcode %s aa=%v answers %d", dns.RcodeToString[r.Rcode], r.Authoritative, len(r.Answer))
				}
				rr, ok := r.Answer[0].(*dns.NAPTR)
				if !ok {
					t.Fatalf("answer is %T", r.Answer[0])
				}
				want := "!^.*$!" + n.SMPBaseURL(tt.host) + "!"
				if rr.Order != 100 || rr.Preference != 10 || rr.Flags != "U" || rr.Service != "Meta:SMP" || rr.Regexp != want || rr.Replacement != "." || rr.Hdr.Ttl != 60 {
					t.Errorf("record %s; want regexp %s", rr, want)
				}
				if !strings.HasSuffix(rr.Regexp, tt.suffix) || !strings.HasPrefix(n.SMPBaseURL(tt.host), "http://127.0.0.1:") {
					t.Errorf("regexp %s, want suffix %s", rr.Regexp, tt.suffix)
				}
			})
		}
	}
	// The test vector of the architecture notes, in upper case: DNS is case-insensitive.
	r := mustQuery(t, n, "udp", strings.ToUpper("yrudm3nqrm76uobzh4griobewmqd4mx574cfdtm75zphrex4ydya.iso6523-actorid-upis."+n.Zone()), dns.TypeNAPTR)
	if len(r.Answer) != 1 {
		t.Errorf("upper-case query: %d answers", len(r.Answer))
	}
}

func TestDNSNegative(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	zone := n.Zone()
	registered := sml.NAPTRName(mustID(t, KnownBelgian), zone)
	tests := []struct {
		name    string
		qname   string
		qtype   uint16
		rcode   int
		answers int
	}{
		{"unregistered", sml.NAPTRName(mustID(t, "0192:999999999"), zone), dns.TypeNAPTR, dns.RcodeNameError, 0},
		{"directory only", sml.NAPTRName(mustID(t, KnownDirectoryOnly), zone), dns.TypeNAPTR, dns.RcodeNameError, 0},
		{"legacy cname name", sml.LegacyCNAMEName(mustID(t, KnownBelgian), zone), dns.TypeCNAME, dns.RcodeNameError, 0},
		{"outside zone", sml.NAPTRName(mustID(t, KnownBelgian), sml.ZoneTest), dns.TypeNAPTR, dns.RcodeRefused, 0},
		{"other domain", "example.com", dns.TypeA, dns.RcodeRefused, 0},
		{"A on registered name", registered, dns.TypeA, dns.RcodeSuccess, 0},
		{"TXT on registered name", registered, dns.TypeTXT, dns.RcodeSuccess, 0},
		{"zone SOA", zone, dns.TypeSOA, dns.RcodeSuccess, 1},
		{"scheme label", "iso6523-actorid-upis." + zone, dns.TypeNAPTR, dns.RcodeSuccess, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustQuery(t, n, "udp", tt.qname, tt.qtype)
			if r.Rcode != tt.rcode || len(r.Answer) != tt.answers {
				t.Errorf("rcode %s answers %d; want %s, %d", dns.RcodeToString[r.Rcode], len(r.Answer), dns.RcodeToString[tt.rcode], tt.answers)
			}
			if tt.rcode != dns.RcodeRefused && !r.Authoritative {
				t.Error("not authoritative")
			}
			// A negative answer (NXDOMAIN, or NOERROR without the type asked) carries the
			// zone's SOA in its authority section, as a real authoritative server's does
			// (RFC 2308 §3): it is what proves the answer comes from the SML zone.
			if tt.rcode != dns.RcodeRefused && tt.answers == 0 {
				if len(r.Ns) != 1 || r.Ns[0].Header().Rrtype != dns.TypeSOA || r.Ns[0].Header().Name != dns.Fqdn(zone) {
					t.Errorf("authority section %v, want the SOA of %s", r.Ns, zone)
				}
			}
		})
	}
}

// TestDNSZoneInParent: with Config.ParentZone the SML zone is a name inside its parent
// zone without an SOA of its own: its SOA question is answered NOERROR with no records,
// and every negative answer carries the parent's SOA.
func TestDNSZoneInParent(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{ParentZone: "tech.peppol.org"})
	zone := n.Zone()
	for _, q := range []struct {
		name    string
		qtype   uint16
		rcode   int
		answers int
	}{
		{zone, dns.TypeSOA, dns.RcodeSuccess, 0},
		{sml.NAPTRName(mustID(t, "0192:999999999"), zone), dns.TypeNAPTR, dns.RcodeNameError, 0},
		{sml.NAPTRName(mustID(t, KnownBelgian), zone), dns.TypeNAPTR, dns.RcodeSuccess, 1},
	} {
		r := mustQuery(t, n, "udp", q.name, q.qtype)
		if r.Rcode != q.rcode || len(r.Answer) != q.answers {
			t.Errorf("%s %s: rcode %s answers %d; want %s, %d", dns.TypeToString[q.qtype], q.name, dns.RcodeToString[r.Rcode], len(r.Answer), dns.RcodeToString[q.rcode], q.answers)
		}
		if q.answers == 0 && (len(r.Ns) != 1 || r.Ns[0].Header().Name != "tech.peppol.org.") {
			t.Errorf("%s %s: authority %v, want the SOA of tech.peppol.org", dns.TypeToString[q.qtype], q.name, r.Ns)
		}
	}
	if _, err := Start(context.Background(), Generate(DatasetConfig{Participants: 1}), Config{ParentZone: "example.com"}); err == nil {
		t.Error("Start with a ParentZone not above the zone succeeded")
	}
}

func TestDNSTestZone(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{Zone: sml.ZoneTest + "."})
	if n.Zone() != sml.ZoneTest {
		t.Fatalf("zone %s", n.Zone())
	}
	if r := mustQuery(t, n, "udp", sml.NAPTRName(mustID(t, KnownNorwegian), sml.ZoneTest), dns.TypeNAPTR); len(r.Answer) != 1 {
		t.Errorf("test zone: %d answers", len(r.Answer))
	}
	if r := mustQuery(t, n, "udp", sml.NAPTRName(mustID(t, KnownNorwegian), sml.ZoneProduction), dns.TypeNAPTR); r.Rcode != dns.RcodeRefused {
		t.Errorf("production zone on a test network: %s", dns.RcodeToString[r.Rcode])
	}
}

func TestDNSFaults(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	be := sml.NAPTRName(mustID(t, KnownBelgian), n.Zone())
	no := sml.NAPTRName(mustID(t, KnownNorwegian), n.Zone())

	t.Run("truncate then TCP", func(t *testing.T) {
		n.SetFault(DNSTarget(), Fault{DNS: DNSTruncate})
		defer n.ClearFaults()
		n.ResetHits()
		r := mustQuery(t, n, "udp", be, dns.TypeNAPTR)
		if !r.Truncated || len(r.Answer) != 0 {
			t.Fatalf("udp: tc=%v answers=%d", r.Truncated, len(r.Answer))
		}
		r = mustQuery(t, n, "tcp", be, dns.TypeNAPTR)
		if r.Truncated || len(r.Answer) != 1 {
			t.Fatalf("tcp: tc=%v answers=%d", r.Truncated, len(r.Answer))
		}
		h := n.Hits().DNS
		if h.UDP != 1 || h.TCP != 1 || h.ByType["NAPTR"] != 2 || h.Total() != 2 {
			t.Errorf("hits %+v", h)
		}
	})
	t.Run("servfail and refused", func(t *testing.T) {
		defer n.ClearFaults()
		for fault, rcode := range map[DNSFault]int{DNSServFail: dns.RcodeServerFailure, DNSRefused: dns.RcodeRefused} {
			n.SetFault(DNSTarget(), Fault{DNS: fault})
			if r := mustQuery(t, n, "udp", be, dns.TypeNAPTR); r.Rcode != rcode {
				t.Errorf("fault %d: rcode %s", fault, dns.RcodeToString[r.Rcode])
			}
		}
	})
	t.Run("NXDOMAIN for every name", func(t *testing.T) {
		defer n.ClearFaults()
		// A broken resolver or a captive portal: NXDOMAIN for every name, the zone apex
		// too, with no SOA (DNSNXDomain) or the SOA of a zone of its own
		// (DNSNXDomainForeignSOA).
		for fault, wantNs := range map[DNSFault]string{DNSNXDomain: "", DNSNXDomainForeignSOA: dns.Fqdn(ForeignSOAZone)} {
			n.SetFault(DNSTarget(), Fault{DNS: fault})
			for _, q := range []struct {
				name  string
				qtype uint16
			}{{be, dns.TypeNAPTR}, {n.Zone(), dns.TypeSOA}, {n.Zone(), dns.TypeNS}, {"example.com", dns.TypeA}} {
				r := mustQuery(t, n, "udp", q.name, q.qtype)
				if r.Rcode != dns.RcodeNameError || len(r.Answer) != 0 || !r.RecursionAvailable {
					t.Errorf("fault %d, %s %s: rcode %s answers %d ra=%v", fault, dns.TypeToString[q.qtype], q.name, dns.RcodeToString[r.Rcode], len(r.Answer), r.RecursionAvailable)
				}
				var got string
				for _, rr := range r.Ns {
					if soa, ok := rr.(*dns.SOA); ok {
						got = soa.Hdr.Name
					}
				}
				if got != wantNs || len(r.Ns) != min(len(wantNs), 1) {
					t.Errorf("fault %d, %s %s: authority %v, want the SOA of %q", fault, dns.TypeToString[q.qtype], q.name, r.Ns, wantNs)
				}
			}
		}
	})
	t.Run("timeout", func(t *testing.T) {
		n.SetFault(DNSTarget(), Fault{DNS: DNSTimeout})
		defer n.ClearFaults()
		c := &dns.Client{Net: "udp", Timeout: 200 * time.Millisecond}
		m := new(dns.Msg).SetQuestion(dns.Fqdn(be), dns.TypeNAPTR)
		if _, _, err := c.Exchange(m, n.DNSAddr()); err == nil {
			t.Fatal("query answered despite the timeout fault")
		}
	})
	t.Run("participant fault only", func(t *testing.T) {
		n.SetFault(ParticipantTarget(mustID(t, KnownBelgian)), Fault{DNS: DNSServFail})
		defer n.ClearFaults()
		if r := mustQuery(t, n, "udp", be, dns.TypeNAPTR); r.Rcode != dns.RcodeServerFailure {
			t.Errorf("faulty participant: %s", dns.RcodeToString[r.Rcode])
		}
		if r := mustQuery(t, n, "udp", no, dns.TypeNAPTR); r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
			t.Errorf("other participant: %s", dns.RcodeToString[r.Rcode])
		}
	})
	t.Run("latency", func(t *testing.T) {
		n.SetFault(DNSTarget(), Fault{Latency: 3 * time.Second})
		defer n.ClearFaults()
		c := &dns.Client{Net: "tcp", Timeout: 100 * time.Millisecond}
		m := new(dns.Msg).SetQuestion(dns.Fqdn(be), dns.TypeNAPTR)
		if _, _, err := c.Exchange(m, n.DNSAddr()); err == nil {
			t.Fatal("answer arrived before the injected latency")
		}
	})
	t.Run("cleared", func(t *testing.T) {
		if r := mustQuery(t, n, "udp", be, dns.TypeNAPTR); r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
			t.Errorf("after ClearFaults: %s", dns.RcodeToString[r.Rcode])
		}
	})
}

func TestDNSEDNS0(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	c := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	m := new(dns.Msg).SetQuestion(dns.Fqdn(sml.NAPTRName(mustID(t, KnownBelgian), n.Zone())), dns.TypeNAPTR)
	m.SetEdns0(4096, false)
	r, _, err := c.Exchange(m, n.DNSAddr())
	if err != nil {
		t.Fatal(err)
	}
	opt := r.IsEdns0()
	if opt == nil || opt.UDPSize() != 4096 || len(r.Answer) != 1 || r.Truncated {
		t.Errorf("edns0 reply: opt=%v answers=%d tc=%v", opt, len(r.Answer), r.Truncated)
	}
}
