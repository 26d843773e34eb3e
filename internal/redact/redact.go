// Package redact hides the secrets URLs carry, for logs and 'config print': one
// redactor for every URL the operator gives (proxies, Redis, the LLM).
package redact

import (
	"net/url"
	"strings"
)

// Placeholder stands for a hidden secret.
const Placeholder = "REDACTED"

// URL returns raw with the password of its user info replaced by REDACTED, and raw
// itself when it has none. A URL without a scheme is read as net/http reads a proxy's,
// as http:// (url.Parse alone would take "svc" in svc:pw@host:3128 for a scheme), and
// is returned without one. When raw cannot be parsed, everything after its scheme is
// hidden, since it might hold a secret anyway.
func URL(raw string) string {
	if raw == "" {
		return ""
	}
	s, bare := raw, !strings.Contains(raw, "://")
	if bare {
		s = "http://" + raw
	}
	u, err := url.Parse(s)
	if err != nil {
		if i := strings.Index(raw, "://"); i > 0 && !bare {
			return raw[:i+3] + Placeholder
		}
		return Placeholder
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); !ok {
		return raw
	}
	u.User = url.UserPassword(u.User.Username(), Placeholder)
	out := u.String()
	if bare {
		out = strings.TrimPrefix(out, "http://")
	}
	return out
}
