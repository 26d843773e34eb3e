package peppolnet

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/registry"
)

// startUnusableSML starts a DNS server on 127.0.0.1 that answers every NAPTR question,
// authoritatively, with a U / Meta:SMP record whose URL carries a query, so the SML
// "has records but none usable". netsim only publishes good records.
func startUnusableSML(t *testing.T) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(req)
		m.Authoritative = true
		if len(req.Question) == 1 {
			m.Answer = append(m.Answer, &dns.NAPTR{
				Hdr:   dns.RR_Header{Name: req.Question[0].Name, Rrtype: dns.TypeNAPTR, Class: dns.ClassINET, Ttl: 60},
				Order: 100, Preference: 10, Flags: "U", Service: "Meta:SMP",
				Regexp: "!.*!https://smp.example.com/?a=b!", Replacement: ".",
			})
		}
		_ = w.WriteMsg(m)
	})
	srv := &dns.Server{PacketConn: pc, Handler: h}
	started := make(chan struct{})
	failed := make(chan error, 1)
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { failed <- srv.ActivateAndServe() }()
	select {
	case <-started:
	case err := <-failed:
		t.Fatalf("DNS server did not start: %v", err)
	}
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String()
}

// A participant the SML lists without a usable SMP is registered: never not_found.
func TestLookupSMLNoSMPService(t *testing.T) {
	t.Parallel()
	n := startNet(t, 300)
	addr := startUnusableSML(t)
	tests := []struct {
		name     string
		id       string
		dirFault bool
		wantCode registry.Code
	}{
		{name: "directory card", id: netsim.KnownDirectoryOnly},
		{name: "no directory card", id: "0208:0000000097", wantCode: registry.CodeLookupFailed},
		{name: "directory down", id: netsim.KnownDirectoryOnly, dirFault: true, wantCode: registry.CodeLookupFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, _ := newLive(t, n, func(c *Config) {
				res, err := sml.New(sml.Config{Servers: []string{addr}, Zone: n.Zone(), Timeout: 2 * time.Second, Attempts: 1})
				if err != nil {
					t.Fatal(err)
				}
				c.Resolver = res
			})
			if tt.dirFault {
				n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 500})
				defer n.ClearFaults()
			}
			p, fr, err := l.Lookup(context.Background(), mustID(t, tt.id))
			if registry.ErrorCode(err) != tt.wantCode {
				t.Fatalf("err = %v, want code %q", err, tt.wantCode)
			}
			if err != nil {
				msg := err.(*registry.Error).Message
				if !strings.Contains(msg, "none points to a usable SMP") || !strings.Contains(msg, "retry") {
					t.Errorf("message %q must say the SML has records but no usable SMP, and retry", msg)
				}
				return
			}
			if p.SMP != nil || p.Directory == nil {
				t.Fatalf("smp %+v directory %v, want smp null and the card", p.SMP, p.Directory != nil)
			}
			if len(p.Warnings) != 1 || p.Warnings[0].Code != registry.WarnSMLNoSMPService ||
				!strings.Contains(p.Warnings[0].Message, "SML has records for this participant but none points to a usable SMP") {
				t.Errorf("warnings %+v, want only %q", p.Warnings, registry.WarnSMLNoSMPService)
			}
			if fr.TTL != DefaultWarningTTL {
				t.Errorf("ttl = %v, want %v", fr.TTL, DefaultWarningTTL)
			}
		})
	}
}
