package peppolnet

import (
	"strings"

	"github.com/peppolgate/peppolgate/registry"
)

// withCause returns err, a *registry.Error of an upstream failure (lookup_failed,
// search_failed), with its Cause set from its cause chain, so that adapters can say
// what failed in their own words; other errors are returned as they are.
func withCause(err error) error {
	re, ok := err.(*registry.Error)
	if !ok || re.Cause != "" || re.Err == nil || re.Code != registry.CodeLookupFailed && re.Code != registry.CodeSearchFailed {
		return err
	}
	c := causeOf(re.Err)
	if c == "" {
		return err
	}
	out := *re
	out.Cause = c
	return &out
}

// causeOf classifies an upstream failure as a registry.Cause from failureKind, the
// words the logs give it, so that answers and logs never disagree.
func causeOf(err error) registry.Cause {
	switch k := failureKind(err); {
	case k == "timeout":
		return registry.CauseTimeout
	case k == "connection refused":
		return registry.CauseRefused
	case k == "TLS":
		return registry.CauseTLS
	case strings.HasPrefix(k, "rate limited"), k == "HTTP 429":
		return registry.CauseRateLimited
	case k == "circuit breaker open", strings.HasPrefix(k, "SMP host busy"), k == "Directory request queue full":
		return registry.CauseBusy
	case k == "host name lookup failed", strings.HasPrefix(k, "DNS "):
		return registry.CauseDNS
	case strings.HasPrefix(k, "HTTP "):
		return registry.CauseHTTPError
	case k == "malformed answer", k == "answer too large", k == "connection closed early", k == "connection reset":
		return registry.CauseMalformed
	}
	return ""
}
