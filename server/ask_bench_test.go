package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// BenchmarkAskCached measures POST /ask for a lookup question over an answer the
// registry already has: planning, the tool call, the answer text and the JSON.
func BenchmarkAskCached(b *testing.B) {
	p := samplePart("0208:0677424046")
	p.SMP = &registry.SMPRecord{URL: "https://smp.example/iso6523-actorid-upis%3A%3A0208%3A0677424046", Hostname: "smp.example", ServiceCount: 2}
	s, err := New(Config{BaseURL: "http://localhost:8080", Networks: registry.One(&fakeRegistry{part: p, fresh: registry.Freshness{Cached: true, TTL: 15 * time.Minute}})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	const body = `{"query":"Kan 0208:0677424046 facturen ontvangen?"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/ask", strings.NewReader(body))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
