package netsim

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/peppolgate/peppolgate/peppol"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

func BenchmarkGenerate(b *testing.B) {
	for _, size := range []int{10_000, 100_000} {
		b.Run(itoaBench(size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Generate(DatasetConfig{Seed: 1, Participants: size, Now: testNow})
			}
		})
	}
}

func itoaBench(n int) string {
	switch n {
	case 10_000:
		return "10k"
	case 100_000:
		return "100k"
	}
	return "n"
}

func benchNet(b *testing.B) *Network {
	b.Helper()
	n, err := Start(context.Background(), Generate(DatasetConfig{Seed: 1, Participants: 10_000, Now: testNow}), Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	return n
}

func BenchmarkDNSQuery(b *testing.B) {
	n := benchNet(b)
	c := &dns.Client{Net: "udp", Timeout: 2 * time.Second}
	conn, err := c.Dial(n.DNSAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	m := new(dns.Msg).SetQuestion(dns.Fqdn(sml.NAPTRName(n.Dataset().MustLookup(KnownBelgian).ID, n.Zone())), dns.TypeNAPTR)
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := c.ExchangeWithConn(m, conn)
		if err != nil || len(r.Answer) != 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSMPServiceGroup(b *testing.B) {
	n := benchNet(b)
	u := smpURL(n, n.Dataset().MustLookup(KnownBelgian))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func BenchmarkSMPServiceMetadata(b *testing.B) {
	n := benchNet(b)
	p := n.Dataset().MustLookup(KnownBelgian)
	u := smpURL(n, p) + "/services/" + peppol.PathEscape(p.Services[0].DocumentType.URI())
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func BenchmarkDirectorySearch(b *testing.B) {
	n := benchNet(b)
	for _, q := range []string{"participant=iso6523-actorid-upis::0208:0677424046", "q=" + url.QueryEscape("müller gmbh"), "country=BE&rpc=100"} {
		b.Run(q, func(b *testing.B) {
			u := n.DirectoryURL() + "/search/1.0/json?" + q
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Get(u)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// FuzzHandlers sends arbitrary paths and queries to the SMP and Directory handlers:
// they must never panic and must answer with a known status.
func FuzzHandlers(f *testing.F) {
	for _, s := range []string{
		"/smp/iso6523-actorid-upis%3A%3A0208%3A0677424046",
		"/smp/iso6523-actorid-upis%3A%3A0208%3A0677424046/services/busdox-docid-qns%3A%3Aurn%3Ax",
		"/smp/iso6523-actorid-upis::0208:0677424046/services/",
		"/search/1.0/json?q=m%C3%BCller&rpc=1000",
		"/search/1.0/json?participant=iso6523-actorid-upis::9999:&rpi=3",
		"/search/1.0/json?name=%FF%FE&country=%00",
		"/smp/%",
	} {
		f.Add(s)
	}
	n, err := Start(context.Background(), Generate(DatasetConfig{Seed: 1, Participants: 300, Now: testNow}), Config{})
	if err != nil {
		f.Fatal(err)
	}
	defer n.Close()
	known := map[int]bool{200: true, 400: true, 404: true, 405: true}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || u.Host != "" || u.Scheme != "" {
			return
		}
		r := (&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}, RemoteAddr: "127.0.0.1:1"}).WithContext(context.Background())
		w := httptest.NewRecorder()
		n.serveSMP(n.smp[0], w, r)
		if !known[w.Code] {
			t.Errorf("smp %s: status %d", target, w.Code)
		}
		w = httptest.NewRecorder()
		n.serveDirectory(w, r)
		if !known[w.Code] {
			t.Errorf("directory %s: status %d", target, w.Code)
		}
	})
}
