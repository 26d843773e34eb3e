package netsim

import (
	"context"
	"encoding/xml"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

func TestSetNAPTR(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	known := mustID(t, KnownBelgian)
	stranger := mustID(t, "0088:5790000000001") // not in the dataset
	tests := []struct {
		name   string
		id     peppol.ParticipantID
		url    string
		wantRe string // the regexp published; "" means NXDOMAIN
	}{
		{"dataset record", known, "", "!^.*$!" + n.SMPBaseURL(0) + "!"},
		{"loopback override", known, "http://127.0.0.1:9/", "!^.*$!http://127.0.0.1:9/!"},
		{"metadata address", known, "http://169.254.169.254", "!^.*$!http://169.254.169.254!"},
		{"IPv6 loopback", known, "https://[::1]:8443/smp", "!^.*$!https://[::1]:8443/smp!"},
		{"participant the dataset lacks", stranger, "http://10.0.0.1/", "!^.*$!http://10.0.0.1/!"},
		{"removed again", stranger, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.SetNAPTR(tt.id, tt.url)
			r := mustQuery(t, n, "udp", sml.NAPTRName(tt.id, n.Zone()), dns.TypeNAPTR)
			if tt.wantRe == "" {
				if r.Rcode != dns.RcodeNameError {
					t.Fatalf("rcode %s, want NXDOMAIN", dns.RcodeToString[r.Rcode])
				}
				return
			}
			if r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
				t.Fatalf("answer %v", r)
			}
			if got := r.Answer[0].(*dns.NAPTR).Regexp; got != tt.wantRe {
				t.Errorf("regexp %q, want %q", got, tt.wantRe)
			}
		})
	}
	n.SetNAPTR(known, "")
	// A participant fault applies to an overridden record too.
	n.SetNAPTR(stranger, "http://10.0.0.1/")
	n.SetFault(ParticipantTarget(stranger), Fault{DNS: DNSServFail})
	if r := mustQuery(t, n, "udp", sml.NAPTRName(stranger, n.Zone()), dns.TypeNAPTR); r.Rcode != dns.RcodeServerFailure {
		t.Errorf("participant fault on an overridden record: rcode %s", dns.RcodeToString[r.Rcode])
	}
}

func TestSetHost(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	n.SetHost("smp.rebind.example.", netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1"), netip.MustParseAddr("10.0.0.1"))
	n.SetHost("Metadata.Example", netip.MustParseAddr("169.254.169.254"))
	tests := []struct {
		name  string
		qtype uint16
		want  []string
	}{
		{"smp.rebind.example", dns.TypeA, []string{"127.0.0.1", "10.0.0.1"}},
		{"smp.rebind.example", dns.TypeAAAA, []string{"::1"}},
		{"metadata.example", dns.TypeA, []string{"169.254.169.254"}},
		{"metadata.example", dns.TypeAAAA, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+dns.TypeToString[tt.qtype], func(t *testing.T) {
			r := mustQuery(t, n, "udp", tt.name, tt.qtype)
			if r.Rcode != dns.RcodeSuccess {
				t.Fatalf("rcode %s", dns.RcodeToString[r.Rcode])
			}
			var got []string
			for _, rr := range r.Answer {
				switch rr := rr.(type) {
				case *dns.A:
					got = append(got, rr.A.String())
				case *dns.AAAA:
					got = append(got, rr.AAAA.String())
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("answers %v, want %v", got, tt.want)
			}
		})
	}

	// Go's own resolver, pointed at the network, sees the name.
	res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, n.DNSAddr())
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := res.LookupNetIP(ctx, "ip", "smp.rebind.example")
	if err != nil || len(addrs) != 3 {
		t.Errorf("LookupNetIP = %v, %v; want 3 addresses", addrs, err)
	}

	n.SetHost("metadata.example")
	if r := mustQuery(t, n, "udp", "metadata.example", dns.TypeA); r.Rcode != dns.RcodeRefused {
		t.Errorf("removed name: rcode %s, want REFUSED (outside the zone)", dns.RcodeToString[r.Rcode])
	}
}

func TestSetRedirect(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	p := n.Dataset().MustLookup(KnownBelgian)
	doc := p.Services[0].DocumentType.URI()
	own := n.SMPBaseURL(p.SMPHost)
	metadataURL := func(base string) string {
		return strings.TrimRight(base, "/") + "/" + peppol.PathEscape(p.ID.URI()) + "/services/" + peppol.PathEscape(doc)
	}
	tests := []struct {
		name string
		base string
		want string // href of the Redirect; "" means metadata, no Redirect
	}{
		{"no override", "", ""},
		{"to loopback", "http://127.0.0.1:1", metadataURL("http://127.0.0.1:1")},
		{"to itself (a loop)", own, metadataURL(own)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n.SetRedirect(p.ID, tt.base)
			status, _, body := get(t, metadataURL(own))
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			var sm xSigned
			if err := xml.Unmarshal(body, &sm); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && sm.Metadata.Redirect != nil:
				t.Errorf("redirect to %s, want metadata", sm.Metadata.Redirect.Href)
			case tt.want != "" && (sm.Metadata.Redirect == nil || sm.Metadata.Redirect.Href != tt.want):
				t.Errorf("redirect %+v, want href %s", sm.Metadata.Redirect, tt.want)
			}
		})
	}
}

func TestSMPMaxInFlight(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	p := n.Dataset().MustLookup(KnownBelgian)
	url := n.SMPBaseURL(p.SMPHost) + "/" + peppol.PathEscape(p.ID.URI())
	if got := n.Hits().SMP[p.SMPHost].MaxInFlight; got != 0 {
		t.Fatalf("MaxInFlight before any request = %d", got)
	}
	// Hanging requests stay in flight until their client gives up, so once the host
	// has counted them all, all of them are in flight at once.
	n.SetFault(SMPHostTarget(p.SMPHost), Fault{Hang: true})
	const parallel = 5
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				t.Error("a hanging request was answered")
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for n.Hits().SMP[p.SMPHost].ServiceGroup < parallel && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	h := n.Hits().SMP[p.SMPHost]
	cancel()
	wg.Wait()
	if h.MaxInFlight != parallel || h.InFlight != parallel || h.ServiceGroup != parallel {
		t.Errorf("hits %+v; want %d ServiceGroup requests, all in flight at once and still", h, parallel)
	}
	// The handlers see the cancellation on their own time.
	for n.hits.smp[p.SMPHost].inFlight.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	n.ResetHits()
	if got := n.Hits().SMP[p.SMPHost].MaxInFlight; got != 0 {
		t.Errorf("MaxInFlight after ResetHits = %d", got)
	}
	n.ClearFaults()
	get(t, url)
	if got := n.Hits().SMP[p.SMPHost]; got.MaxInFlight != 1 || got.InFlight != 0 {
		t.Errorf("after one answered request: MaxInFlight %d, InFlight %d; want 1 and 0", got.MaxInFlight, got.InFlight)
	}
}
