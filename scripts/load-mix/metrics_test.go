package main

import (
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	text := `# HELP peppolgate_upstream_requests_total Calls.
# TYPE peppolgate_upstream_requests_total counter
peppolgate_upstream_requests_total{kind="smp",outcome="ok"} 1234
peppolgate_upstream_requests_total{kind="directory",outcome="ratelimit"} 5
peppolgate_http_rate_limited_total{class="rest"} 0
peppolgate_http_requests_total{method="GET",route="/metrics",status="200"} 9
process_resident_memory_bytes 4.5e+07
go_goroutines 42
go_goroutines_other 7
`
	got, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`peppolgate_upstream_requests_total{kind="smp",outcome="ok"}`:              1234,
		`peppolgate_upstream_requests_total{kind="directory",outcome="ratelimit"}`: 5,
		`peppolgate_http_rate_limited_total{class="rest"}`:                         0,
		"process_resident_memory_bytes":                                            45e6,
		"go_goroutines":                                                            42,
	}
	if len(got) != len(want) {
		t.Errorf("got %d series %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, err := parseMetrics(strings.NewReader("go_goroutines many\n")); err == nil {
		t.Error("a value that is not a number was accepted")
	}
}

func TestLabels(t *testing.T) {
	tests := []struct{ series, want string }{
		{`peppolgate_upstream_requests_total{kind="smp",outcome="ok"}`, "smp ok"},
		{`x{a="1"}`, "1"},
		{"go_goroutines", ""},
	}
	for _, tt := range tests {
		if got := labels(tt.series); got != tt.want {
			t.Errorf("labels(%q) = %q, want %q", tt.series, got, tt.want)
		}
	}
}
