package sml

import (
	"net"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// handler answers one query; tcp tells which transport it arrived on. Writing nothing
// means the server stays silent.
type handler func(w dns.ResponseWriter, req *dns.Msg, tcp bool)

// testServer is a real DNS server on 127.0.0.1, UDP and TCP on the same port, so the
// resolver is tested against the wire protocol rather than a mock.
type testServer struct {
	addr     string
	udp, tcp atomic.Int32
	lastReq  atomic.Pointer[dns.Msg]
}

func startServer(t testing.TB, h handler) *testServer {
	t.Helper()
	var (
		l   net.Listener
		pc  net.PacketConn
		err error
	)
	// The TCP port picked by the kernel may be taken for UDP; try a few.
	for range 20 {
		l, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		pc, err = net.ListenPacket("udp", l.Addr().String())
		if err == nil {
			break
		}
		l.Close()
	}
	if err != nil {
		t.Fatalf("no port free for both UDP and TCP: %v", err)
	}
	s := &testServer{addr: l.Addr().String()}
	mux := dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		_, tcp := w.RemoteAddr().(*net.TCPAddr)
		if tcp {
			s.tcp.Add(1)
		} else {
			s.udp.Add(1)
		}
		s.lastReq.Store(req.Copy())
		h(w, req, tcp)
	})
	for _, srv := range []*dns.Server{{PacketConn: pc, Handler: mux}, {Listener: l, Handler: mux}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		errc := make(chan error, 1)
		go func() { errc <- srv.ActivateAndServe() }()
		select {
		case <-started:
		case err := <-errc:
			t.Fatalf("DNS test server: %v", err)
		}
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return s
}

// deadAddr returns a loopback UDP address nothing listens on.
func deadAddr(t testing.TB) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

func reply(req *dns.Msg, rcode int, answer ...dns.RR) *dns.Msg {
	m := new(dns.Msg)
	m.SetRcode(req, rcode)
	m.Authoritative = true
	m.Answer = answer
	return m
}

// answer replies NOERROR with rrs, whatever the question.
func answer(rrs ...dns.RR) handler {
	return func(w dns.ResponseWriter, req *dns.Msg, _ bool) { _ = w.WriteMsg(reply(req, dns.RcodeSuccess, rrs...)) }
}

func rcode(rc int) handler {
	return func(w dns.ResponseWriter, req *dns.Msg, _ bool) { _ = w.WriteMsg(reply(req, rc)) }
}

// flagged replies with rcode and the given RA and AA bits, and ns in the authority
// section: the shape of a referral or a lame server's answer when both bits are unset.
func flagged(rc int, ra, aa bool, ns ...dns.RR) handler {
	return func(w dns.ResponseWriter, req *dns.Msg, _ bool) {
		m := reply(req, rc)
		m.RecursionAvailable, m.Authoritative = ra, aa
		m.Ns = ns
		_ = w.WriteMsg(m)
	}
}

func silent(dns.ResponseWriter, *dns.Msg, bool) {}

func mustRR(t testing.TB, s string) dns.RR {
	t.Helper()
	rr, err := dns.NewRR(s)
	if err != nil {
		t.Fatalf("dns.NewRR(%q): %v", s, err)
	}
	return rr
}

// withZoneSOA sends h's replies with the SML production zone's SOA in the authority section,
// as a real resolver's negative answers for the zone carry it (RFC 2308 §3).
func withZoneSOA(t testing.TB, h handler) handler {
	soa := soaRR(t, ZoneProduction)
	return func(w dns.ResponseWriter, req *dns.Msg, tcp bool) { h(soaWriter{w, soa}, req, tcp) }
}

// soaWriter adds soa to the authority section of the reply it writes.
type soaWriter struct {
	dns.ResponseWriter
	soa dns.RR
}

func (w soaWriter) WriteMsg(m *dns.Msg) error {
	m.Ns = append(m.Ns, w.soa)
	return w.ResponseWriter.WriteMsg(m)
}
