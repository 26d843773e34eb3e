package server

import (
	"io"
	"net/http"
	"net/netip"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
)

// BenchmarkParticipantPage: the participant page next to the JSON answer for the same
// cached participant, over HTTP on loopback against the server over netsim (issue 19
// asks the page to take at most twice the JSON's time). The page asks the registry
// for the services too, also cached after the first request.
func BenchmarkParticipantPage(b *testing.B) {
	e := startE2EWith(b, func(c *Config) {
		c.RateLimitExempt = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	get := func(b *testing.B, url, accept string) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", url, resp.StatusCode)
		}
		b.SetBytes(n)
	}
	id := netsim.KnownCertValid
	for _, c := range []struct{ name, url, accept string }{
		{"json", e.url + "/api/v1/participant/" + id, "application/json"},
		{"page", e.url + "/participant/" + id, "text/html"},
	} {
		b.Run(c.name, func(b *testing.B) {
			get(b, c.url, c.accept) // warm the caches
			b.ReportAllocs()
			for b.Loop() {
				get(b, c.url, c.accept)
			}
		})
	}
}
