package netsim

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

func TestStartAccessors(t *testing.T) {
	t.Parallel()
	if _, err := Start(context.Background(), nil, Config{}); err == nil {
		t.Error("Start(nil dataset) succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, testDataset(), Config{}); err == nil {
		t.Error("Start with a cancelled context succeeded")
	}
	n := startNet(t, Config{})
	if !strings.HasPrefix(n.DNSAddr(), "127.0.0.1:") || !strings.HasPrefix(n.DirectoryURL(), "http://127.0.0.1:") {
		t.Errorf("addresses %s %s", n.DNSAddr(), n.DirectoryURL())
	}
	urls := n.SMPBaseURLs()
	if len(urls) != 4 || urls[0] != n.SMPBaseURL(0) || !strings.HasSuffix(urls[0], "/smp") || !strings.HasSuffix(urls[1], "/") || n.SMPBaseURL(9) != "" {
		t.Errorf("SMP URLs %v", urls)
	}
	if n.Dataset() == nil || n.APCertificate(0) == nil || n.APCertificate(-1) != nil {
		t.Error("accessors")
	}
}

func TestContextCancelCloses(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	n, err := Start(ctx, testDataset(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	url := n.DirectoryURL() + "/search/1.0/json?country=BE"
	if status, _, err := getWithTimeout(url, 5*time.Second); err != nil || status != 200 {
		t.Fatalf("before cancel: %d %v", status, err)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, err := getWithTimeout(url, time.Second); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("network still answers after its context was cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := n.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

func TestHitCounters(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	be := n.Dataset().MustLookup(KnownBelgian)
	get(t, smpURL(n, be))
	get(t, smpURL(n, be))
	get(t, smpURL(n, be)+"/services/"+peppol.PathEscape(be.Services[0].DocumentType.URI()))
	get(t, strings.TrimSuffix(n.SMPBaseURL(0), "/smp")+"/elsewhere")
	mustQuery(t, n, "udp", sml.NAPTRName(be.ID, n.Zone()), dns.TypeNAPTR)
	mustQuery(t, n, "tcp", sml.NAPTRName(be.ID, n.Zone()), dns.TypeA)
	mustQuery(t, n, "udp", "x."+n.Zone(), dns.TypeMX)
	search(t, n, "q=abc")
	h := n.Hits()
	if h.SMP[0] != (SMPHits{ServiceGroup: 2, ServiceMetadata: 1, Other: 1, MaxInFlight: 1}) || h.SMP[1] != (SMPHits{}) {
		t.Errorf("SMP hits %+v", h.SMP)
	}
	if h.DNS.UDP != 2 || h.DNS.TCP != 1 || h.DNS.ByType["NAPTR"] != 1 || h.DNS.ByType["A"] != 1 || h.DNS.ByType["other"] != 1 {
		t.Errorf("DNS hits %+v", h.DNS)
	}
	if h.Directory.Search != 1 {
		t.Errorf("Directory hits %+v", h.Directory)
	}
	n.ResetHits()
	h = n.Hits()
	if h.DNS.Total() != 0 || h.SMP[0] != (SMPHits{}) || h.Directory != (DirectoryHits{}) || len(h.DNS.ByType) != 0 {
		t.Errorf("after reset %+v", h)
	}
}

// TestConcurrentUse drives every server while faults and counters change, for -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	n := startNet(t, Config{})
	ds := n.Dataset()
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &dns.Client{Net: []string{"udp", "tcp"}[w%2], Timeout: 2 * time.Second}
			for i := range 25 {
				p := &ds.Participants[(w*25+i)%len(ds.Participants)]
				m := new(dns.Msg).SetQuestion(dns.Fqdn(sml.NAPTRName(p.ID, n.Zone())), dns.TypeNAPTR)
				if _, _, err := c.Exchange(m, n.DNSAddr()); err != nil {
					errs <- fmt.Errorf("dns: %w", err)
				}
				if p.InSML {
					if _, _, err := getWithTimeout(smpURL(n, p), 5*time.Second); err != nil {
						errs <- fmt.Errorf("smp: %w", err)
					}
				}
				if _, _, err := getWithTimeout(n.DirectoryURL()+"/search/1.0/json?q="+p.ID.Value, 5*time.Second); err != nil {
					errs <- fmt.Errorf("directory: %w", err)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 50 {
			n.SetFault(SMPHostTarget(i%4), Fault{HTTPStatus: 503})
			n.SetFault(DirectoryTarget(), Fault{Latency: time.Millisecond})
			_ = n.Hits()
			n.ClearFaults()
			if i%10 == 0 {
				n.ResetHits()
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var cwg sync.WaitGroup
	for range 4 {
		cwg.Add(1)
		go func() { defer cwg.Done(); n.Close() }()
	}
	cwg.Wait()
	if _, err := http.Get(n.DirectoryURL()); err == nil {
		t.Error("Directory answers after concurrent Close")
	}
}
