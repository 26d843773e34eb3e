package server

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequestLog: the access log writes every request by default; with errors only,
// a failure (status 400 and up) and never a success; sampled, a failure and one
// success in N. The others go to debug level (issue 26: one INFO line per request).
func TestRequestLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		log          string
		wantSuccess  int // of 6 GET /healthz
		wantFailures int // of 2 GET /nope
	}{
		{"all", "all", 6, 2},
		{"the default", "", 6, 2},
		{"errors", "errors", 0, 2},
		{"sample:3", "sample:3", 2, 2},
		{"sample:1", "sample:1", 6, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rl, err := ParseRequestLog(tt.log)
			if err != nil {
				t.Fatal(err)
			}
			s, logs := newUncheckedServer(t, &fakeRegistry{}, func(c *Config) { c.RequestLog = rl })
			for range 6 {
				s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
			}
			for range 2 {
				s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/nope", nil))
			}
			var success, failures int
			for _, line := range strings.Split(logs.String(), "\n") {
				if !strings.Contains(line, `"msg":"request"`) || !strings.Contains(line, `"level":"INFO"`) {
					continue
				}
				if strings.Contains(line, `"status":200`) {
					success++
				} else {
					failures++
				}
			}
			if success != tt.wantSuccess || failures != tt.wantFailures {
				t.Errorf("%d successes and %d failures logged, want %d and %d:\n%s", success, failures, tt.wantSuccess, tt.wantFailures, logs)
			}
		})
	}
	for _, bad := range []string{"some", "sample:", "sample:0", "sample:-2", "sample:x", "errors:2"} {
		if _, err := ParseRequestLog(bad); err == nil || !strings.Contains(err.Error(), "all, errors or sample:N") {
			t.Errorf("ParseRequestLog(%q): %v", bad, err)
		}
	}
}
