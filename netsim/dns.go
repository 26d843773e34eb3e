package netsim

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/peppolgate/peppolgate/peppol"
)

// dnsTTL is the TTL of NAPTR records; the real SML uses 60 seconds.
const dnsTTL = 60

func normaliseName(s string) string { return strings.ToLower(strings.TrimSuffix(s, ".")) }

// startDNS opens UDP and TCP on the same free loopback port. The UDP port is picked by
// the kernel; if TCP cannot bind the same number, it tries again with a new one.
func (n *Network) startDNS() error {
	var pc net.PacketConn
	var ln net.Listener
	var err error
	for range 20 {
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("netsim: dns udp listen: %w", err)
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		ln, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			break
		}
		pc.Close()
		pc = nil
	}
	if pc == nil {
		return fmt.Errorf("netsim: dns: no port free for both UDP and TCP: %w", err)
	}
	n.dnsAddr = pc.LocalAddr().String()
	h := dns.HandlerFunc(n.serveDNS)
	udp := &dns.Server{PacketConn: pc, Handler: h}
	tcp := &dns.Server{Listener: ln, Handler: h, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second}
	for _, s := range []*dns.Server{udp, tcp} {
		started := make(chan struct{})
		failed := make(chan error, 1)
		s.NotifyStartedFunc = func() { close(started) }
		go func() { failed <- s.ActivateAndServe() }()
		select {
		case <-started:
			n.dnsSrv = append(n.dnsSrv, s)
		case err := <-failed:
			pc.Close()
			ln.Close()
			return fmt.Errorf("netsim: dns serve: %w", err)
		}
	}
	return nil
}

func (n *Network) serveDNS(w dns.ResponseWriter, r *dns.Msg) {
	tcp := w.LocalAddr().Network() == "tcp"
	m := new(dns.Msg)
	if len(r.Question) != 1 || r.Opcode != dns.OpcodeQuery {
		n.hits.dnsQuery(tcp, 0)
		m.SetRcode(r, dns.RcodeFormatError)
		w.WriteMsg(m)
		return
	}
	q := r.Question[0]
	n.hits.dnsQuery(tcp, q.Qtype)
	name := normaliseName(q.Name)
	// The record to publish for name, if it is a participant's NAPTR name: an
	// override first, then the dataset's.
	var (
		smpURL string
		owner  peppol.ParticipantID
		found  bool
	)
	if o, ok := n.overrides.naptrFor(name); ok {
		smpURL, owner, found = o.url, o.id, true
	} else if pi, ok := n.naptr[name]; ok {
		p := &n.ds.Participants[pi]
		smpURL, owner, found = n.smp[p.SMPHost].naptrURL, p.ID, true
	}
	addrs, isHost := n.overrides.hostAddrs(name)
	targets := []Target{DNSTarget()}
	if found {
		targets = []Target{ParticipantTarget(owner), DNSTarget()}
	}
	f := n.faults.get(targets...)
	n.log.Debug("netsim: dns query", "name", name, "type", dns.TypeToString[q.Qtype], "tcp", tcp, "fault", f.DNS)
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-t.C:
		case <-n.closing:
			t.Stop()
			return
		}
	}
	switch f.DNS {
	case DNSTimeout:
		return
	case DNSServFail:
		m.SetRcode(r, dns.RcodeServerFailure)
		w.WriteMsg(m)
		return
	case DNSRefused:
		m.SetRcode(r, dns.RcodeRefused)
		w.WriteMsg(m)
		return
	case DNSNXDomain, DNSNXDomainForeignSOA:
		m.SetRcode(r, dns.RcodeNameError)
		m.RecursionAvailable = true
		if f.DNS == DNSNXDomainForeignSOA {
			m.Ns = append(m.Ns, soaOf(ForeignSOAZone))
		}
		w.WriteMsg(m)
		return
	case DNSTruncate:
		if !tcp {
			m.SetReply(r)
			m.Authoritative = true
			m.Truncated = true
			w.WriteMsg(m)
			return
		}
	}

	inZone := name == n.zone || strings.HasSuffix(name, "."+n.zone)
	if !inZone && !isHost {
		m.SetRcode(r, dns.RcodeRefused)
		w.WriteMsg(m)
		return
	}
	m.SetReply(r)
	m.Authoritative = true
	switch {
	case isHost:
		m.Answer = append(m.Answer, addressRRs(q.Name, q.Qtype, addrs)...)
	case found:
		if q.Qtype == dns.TypeNAPTR || q.Qtype == dns.TypeANY {
			m.Answer = append(m.Answer, naptrRR(q.Name, smpURL))
		} else {
			m.Ns = append(m.Ns, n.soa())
		}
	case name == n.zone && q.Qtype == dns.TypeSOA && n.parent == "":
		m.Answer = append(m.Answer, n.soa())
	case name == n.zone || name == peppol.ParticipantScheme+"."+n.zone:
		// The zone apex and the scheme label exist (they have names below them).
		m.Ns = append(m.Ns, n.soa())
	default:
		m.Rcode = dns.RcodeNameError
		m.Ns = append(m.Ns, n.soa())
	}
	if !tcp {
		size := dns.MinMsgSize
		if opt := r.IsEdns0(); opt != nil {
			size = max(int(opt.UDPSize()), dns.MinMsgSize)
			m.SetEdns0(uint16(size), false)
		}
		// Truncate sets TC when the answer does not fit, so the client retries over TCP.
		m.Truncate(size)
	}
	if err := w.WriteMsg(m); err != nil && !errors.Is(err, net.ErrClosed) {
		n.log.Debug("netsim: dns write", "err", err)
	}
}

// naptrRR is the U-NAPTR record of an SML registration pointing at smpURL.
func naptrRR(owner, smpURL string) dns.RR {
	return &dns.NAPTR{
		Hdr:         dns.RR_Header{Name: owner, Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: dnsTTL},
		Order:       100,
		Preference:  10,
		Flags:       "U",
		Service:     "Meta:SMP",
		Regexp:      "!^.*$!" + smpURL + "!",
		Replacement: ".",
	}
}

// addressRRs are the A (for qtype A or ANY) and AAAA (for AAAA or ANY) records of a
// host name set with SetHost.
func addressRRs(owner string, qtype uint16, addrs []netip.Addr) []dns.RR {
	var out []dns.RR
	for _, a := range addrs {
		switch {
		case a.Is4() && (qtype == dns.TypeA || qtype == dns.TypeANY):
			out = append(out, &dns.A{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: dnsTTL}, A: a.AsSlice()})
		case a.Is6() && (qtype == dns.TypeAAAA || qtype == dns.TypeANY):
			out = append(out, &dns.AAAA{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeAAAA, Class: dns.ClassINET, Ttl: dnsTTL}, AAAA: a.AsSlice()})
		}
	}
	return out
}

// soa is the SOA record of the network's SML zone, or of its parent zone when the zone
// has none of its own (Config.ParentZone). Negative answers carry it in their authority
// section, as a real authoritative server's do (RFC 2308 §3).
func (n *Network) soa() dns.RR {
	if n.parent != "" {
		return soaOf(n.parent)
	}
	return soaOf(n.zone)
}

// soaOf is the SOA record of zone.
func soaOf(zone string) dns.RR {
	return &dns.SOA{
		Hdr:     dns.RR_Header{Name: dns.Fqdn(zone), Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: dnsTTL},
		Ns:      "ns1." + dns.Fqdn(zone),
		Mbox:    "hostmaster." + dns.Fqdn(zone),
		Serial:  2026010101,
		Refresh: 3600,
		Retry:   600,
		Expire:  604800,
		Minttl:  dnsTTL,
	}
}
