package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"http://proxy.corp:3128", "http://proxy.corp:3128"},
		{"http://svc:pw@proxy.corp:3128", "http://svc:REDACTED@proxy.corp:3128"},
		{"redis://app:pw@redis.internal:6379/0", "redis://app:REDACTED@redis.internal:6379/0"},
		{"redis://:pw@localhost", "redis://:REDACTED@localhost"},
		{"http://user@proxy.corp", "http://user@proxy.corp"},
		// No scheme, as net/http takes a proxy: url.Parse alone reads "svc" as the scheme.
		{"svc:pw@proxy.corp:3128", "svc:REDACTED@proxy.corp:3128"},
		{"proxy.corp:3128", "proxy.corp:3128"},
		// Unparseable: nothing after the scheme is shown.
		{"http://svc:p%zz@proxy", "http://REDACTED"},
		{"svc:p%zz@proxy", "REDACTED"},
	}
	for _, tt := range tests {
		got := URL(tt.in)
		if got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "pw") || strings.Contains(got, "p%zz") {
			t.Errorf("URL(%q) = %q shows the password", tt.in, got)
		}
	}
}
