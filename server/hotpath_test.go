package server

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestHotPathSharedBody: an answer is encoded once per pointer, network and variant;
// an answer that does not encode is an error and is not remembered.
func TestHotPathSharedBody(t *testing.T) {
	t.Parallel()
	a, b := &registry.Participant{ParticipantID: "0208:1"}, &registry.Participant{ParticipantID: "0208:1"}
	var h hotPath
	tests := []struct {
		name      string
		v         *registry.Participant
		network   string
		variant   string // the body differs by variant: it names the network it is marked with
		wantMarks int    // calls of mark so far
	}{
		{"first", a, "", "", 1},
		{"same answer, remembered", a, "", "", 1},
		{"same answer, another network", a, "test", "", 2},
		{"that network, remembered", a, "test", "", 2},
		{"an equal answer at another address", b, "", "", 3},
		{"same answer, another variant", a, "", "demo", 4},
		{"that variant, remembered", a, "", "demo", 4},
	}
	marks := 0
	for _, tc := range tests {
		shaped := func() any { return tc.v.On(tc.network + tc.variant) }
		got, err := h.sharedBody(tc.v, tc.network, tc.variant, func() any { marks++; return shaped() })
		want, _ := encodeJSON(shaped())
		if err != nil || string(got) != string(want) || marks != tc.wantMarks {
			t.Errorf("%s: %s, %v, %d marks; want %s, %d marks", tc.name, got, err, marks, want, tc.wantMarks)
		}
	}
	bad := &registry.Participant{}
	for range 2 {
		if _, err := h.sharedBody(bad, "", "", func() any { return func() {} }); err == nil {
			t.Errorf("an answer JSON cannot encode: no error")
		}
	}
	if _, ok := h.bodies[memoKey{v: bad}]; ok {
		t.Errorf("a failed encoding was remembered")
	}
}

// TestHotPathSharedBodyBound: the memo holds at most maxMemoBodies answers, then
// starts afresh.
func TestHotPathSharedBodyBound(t *testing.T) {
	t.Parallel()
	var h hotPath
	first := &registry.Participant{ParticipantID: "0208:0"}
	mark := func() any { return "x" }
	if _, err := h.sharedBody(first, "", "", mark); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < maxMemoBodies; i++ {
		if _, err := h.sharedBody(&registry.Participant{ParticipantID: "0208:" + strconv.Itoa(i)}, "", "", mark); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.bodies) != maxMemoBodies {
		t.Fatalf("%d bodies remembered, want %d", len(h.bodies), maxMemoBodies)
	}
	if _, err := h.sharedBody(&registry.Participant{}, "", "", mark); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.bodies[memoKey{v: first}]; len(h.bodies) != 1 || ok {
		t.Errorf("full memo: %d bodies after one more (first kept: %v), want 1", len(h.bodies), ok)
	}
}

// TestHotPathSetLength: Content-Length is in the header map only where net/http
// would not set it: over netHTTPBufferedBody, and for HEAD.
func TestHotPathSetLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n    int
		head bool
		want string
	}{
		{0, false, ""},
		{400, false, ""},
		{netHTTPBufferedBody, false, ""},
		{netHTTPBufferedBody + 1, false, strconv.Itoa(netHTTPBufferedBody + 1)},
		{0, true, "0"},
		{400, true, "400"},
		{1 << 20, true, strconv.Itoa(1 << 20)},
	}
	var h hotPath
	for _, tc := range tests {
		hdr := http.Header{}
		h.setLength(hdr, tc.n, tc.head)
		if got := hdr.Get("Content-Length"); got != tc.want || (tc.want == "" && len(hdr) != 0) {
			t.Errorf("setLength(%d, head %v): %v, want Content-Length %q", tc.n, tc.head, hdr, tc.want)
		}
	}
}

// BenchmarkHotPath measures each trick of hotPath on its own, next to the plain way it
// replaces (BENCHMARKS.md, "Issue 16: hot-path tricks"):
//
//	go test -run '^$' -bench HotPath -benchmem -count 10 ./server
func BenchmarkHotPath(b *testing.B) {
	p := samplePart("0208:0677424046")
	p.SMP = &registry.SMPRecord{URL: "https://smp.example/iso6523-actorid-upis%3A%3A0208%3A0677424046", Hostname: "smp.example", ServiceCount: 2}
	mark := func() any { return p.On("") }
	// The headers of a cached REST answer when WriteHeader copies them.
	fixed := http.Header{}
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Cache-Control",
		"Content-Security-Policy", "Content-Type", "X-Cache", "X-Content-Type-Options", "X-Request-Id"} {
		fixed.Set(k, "v")
	}
	const search = "q=acme&country=BE"
	var h hotPath
	cases := []struct {
		name string
		op   func()
	}{
		{"shared-body/memo", func() { _, _ = h.sharedBody(p, "", "", mark) }},
		{"shared-body/encode", func() { _, _ = encodeJSON(mark()) }},
		{"length/short-left-to-net-http", func() {
			hdr := fixed.Clone()
			h.setLength(hdr, 400, false)
			_ = hdr.Clone()
		}},
		{"length/short-always-set", func() {
			hdr := fixed.Clone()
			hdr.Set("Content-Length", strconv.Itoa(400))
			_ = hdr.Clone()
		}},
		{"query/queryValue", func() {
			_, _, _ = h.queryValue(search, "q")
			_, _, _ = h.queryValue(search, "country")
			_, _, _ = h.queryValue(search, "network")
		}},
		{"query/url.ParseQuery", func() { // r.URL.Query().Get, once per parameter
			for _, k := range []string{"q", "country", "network"} {
				v, _ := url.ParseQuery(search)
				_ = v.Get(k)
			}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.op()
			}
		})
	}
}
