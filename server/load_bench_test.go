package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

// BenchmarkLoad drives real HTTP over loopback with concurrent keep-alive clients, as a
// load generator would, and reports throughput and p99 latency for a trivial handler
// (the ceiling of net/http on this machine) and for cached lookups and searches through
// the whole stack: middleware, access log, registry cache, JSON. The cache is warmed
// against netsim first, so no upstream call happens while measuring.
//
//	go test -run '^$' -bench Load -benchtime 20000x ./server
func BenchmarkLoad(b *testing.B) {
	trivial := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}))
	defer trivial.Close()
	e := startE2E(b)
	for _, path := range []string{"/api/v1/participant/" + netsim.KnownBelgian, "/api/v1/search?q=BE0677424046"} {
		resp, err := http.Get(e.url + path)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("warming %s: %v %v", path, resp, err)
		}
		resp.Body.Close()
	}
	cases := []struct{ name, url string }{
		{"trivial", trivial.URL + "/"},
		{"cached-participant", e.url + "/api/v1/participant/" + netsim.KnownBelgian},
		{"cached-search", e.url + "/api/v1/search?q=BE0677424046"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { loadRun(b, c.url) })
	}
}

func loadRun(b *testing.B, url string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	var (
		mu  sync.Mutex
		all []time.Duration
	)
	b.SetParallelism(4) // 8 client goroutines on 2 cores
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		var lat []time.Duration
		for pb.Next() {
			t0 := time.Now()
			resp, err := client.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
			lat = append(lat, time.Since(t0))
		}
		mu.Lock()
		all = append(all, lat...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}
