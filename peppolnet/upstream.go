package peppolnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/peppolgate/peppolgate/internal/httpx"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// Deadlines. Every upstream call of a Registry is bounded twice: by its own
// timeout, set on the client and counted from when it is sent (sml.Config.Timeout per
// DNS query, 2s by default, times Attempts passes over the servers; smp.Client.Timeout
// per HTTP request, 10s, started once the host's slot is taken; directory.Client.Timeout
// per search, 10s; plus the dial, TLS and header timeouts of netguard's transport), and
// by the whole operation's deadline (Config.LookupTimeout for a lookup, both branches
// and every SMP request of it; Config.SearchTimeout for a search). That deadline counts
// only the time the operation works, not the time it waits for a turn (a slot of a busy
// SMP host, the Directory rate limiter): waiting behind others is not the upstream's
// failure, so it never turns into a timeout that a breaker would count. Waiting is
// bounded apart, by the same duration again (bulk checks' rows: bulkWaitFactor times
// it), after which the wait is refused as busy (budget.go).

// observeCall reports one upstream call of kind that began at start and ended with err
// to the Observer, and logs a failed one (see logCall); about names what was asked.
func (l *Registry) observeCall(ctx context.Context, kind string, start time.Time, err error, about slog.Attr) {
	elapsed := time.Since(start)
	outcome := outcomeOf(err)
	l.cfg.Observer.Upstream(kind, outcome, elapsed)
	l.logCall(ctx, kind, outcome, elapsed, err, about)
}

// outcomeOf classifies the result of an upstream call for the Observer. Answers
// ("not registered", 404, a query the Directory rejects) are registry.OutcomeOK.
func outcomeOf(err error) string {
	var se *smp.Error
	var ne net.Error
	switch {
	case err == nil,
		errors.Is(err, sml.ErrNotRegistered), errors.Is(err, sml.ErrNoSMPService),
		errors.Is(err, smp.ErrNotFound), errors.Is(err, directory.ErrBadQuery):
		return registry.OutcomeOK
	case refused(err):
		return registry.OutcomeRejected
	case errors.Is(err, errAllLeft), errors.Is(err, context.Canceled):
		return registry.OutcomeCanceled
	case errors.Is(err, directory.ErrRateLimited),
		errors.As(err, &se) && se.Kind == smp.KindStatus && se.Status == http.StatusTooManyRequests:
		return registry.OutcomeLimited
	case errors.As(err, &se) && se.Kind == smp.KindTimeout,
		errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return registry.OutcomeTimeout
	}
	return registry.OutcomeError
}

// refused reports whether err says the call was never sent: the SSRF policy, a
// circuit breaker, a full SMP host or a full Directory queue refused it.
func refused(err error) bool {
	var se *smp.Error
	var co *circuitOpenError
	var busy *hostBusyError
	return errors.As(err, &se) && se.Kind == smp.KindRefused ||
		errors.As(err, &co) || errors.As(err, &busy) || errors.Is(err, errLimiterBusy)
}

// retryAfter returns the wait a refusal in err's chain suggests (an open circuit
// breaker, a full SMP host, a full Directory queue), or 0.
func retryAfter(err error) time.Duration {
	var co *circuitOpenError
	var busy *hostBusyError
	switch {
	case errors.As(err, &co):
		return co.retryAfter
	case errors.As(err, &busy):
		return busyRetryAfter
	case errors.Is(err, errLimiterBusy):
		return busyRetryAfter
	}
	return 0
}

// seconds renders the wait d for messages as Retry-After would count it: "30s".
func seconds(d time.Duration) string {
	return strconv.FormatInt(httpx.RetryAfterSeconds(d), 10) + "s"
}

// smpFailure says, for the lookup_failed message, what went wrong with the
// participant's SMP (err is the ServiceGroup error) and what the caller should do. It
// names no address: the message goes to clients.
func smpFailure(err error) (what, advice string, wait time.Duration) {
	var co *circuitOpenError
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return "the participant's SMP address is not allowed (private or loopback network)",
			"peppolgate does not connect there; retrying will not help until the participant's SML registration points to a public SMP", 0
	case errors.Is(err, netguard.ErrPlainHTTP):
		return "the participant's SMP URL is plain http, which the production Peppol network no longer allows (SMPs are https-only since 2026-02-01)",
			"retrying will not help until the participant's SML registration points to an https SMP", 0
	case errors.As(err, &co):
		wait = co.retryAfter
		return fmt.Sprintf("the participant's SMP is failing (%d consecutive timeouts or errors), so peppolgate is not asking it for now", co.failures),
			"retry after " + seconds(wait), wait
	case errors.As(err, new(*hostBusyError)):
		return "too many requests to the participant's SMP are already in flight",
			"retry in a few seconds", busyRetryAfter
	}
	return "the participant's SMP did not answer usably", "retry with exponential backoff", 0
}

// endpointWarning is the endpoint_unavailable message when the ServiceMetadata fetch
// failed with err.
func endpointWarning(err error) string {
	var co *circuitOpenError
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return "the SMP's service metadata is at an address that is not allowed (private or loopback network), so no endpoint is shown"
	case errors.Is(err, netguard.ErrPlainHTTP):
		return "the SMP's service metadata is at a plain http address, which the production Peppol network no longer allows, so no endpoint is shown"
	case errors.As(err, &co):
		return "the SMP serving the service metadata is failing and is not being asked for now, so the endpoint is missing from this answer; retry after " + seconds(co.retryAfter)
	}
	return "the SMP's service metadata could not be fetched, so the endpoint is missing from this answer; retry later"
}

// directoryHealth maps the result of a Directory search to what its breaker counts.
func directoryHealth(err error) health {
	var de *directory.Error
	switch {
	case err == nil, errors.Is(err, directory.ErrBadQuery):
		return healthUp
	case errors.Is(err, directory.ErrRateLimited), errors.Is(err, context.Canceled):
		return healthUnknown
	case errors.As(err, &de) && de.Status >= 200 && de.Status < 500:
		// It answered: a body that does not decode, an unexpected 4xx. Up, if confused.
		return healthUp
	}
	return healthDown
}

// directoryFailingMessage is the message of a search refused by the Directory's open
// circuit breaker (err holds the *circuitOpenError).
func directoryFailingMessage(err error) string {
	var co *circuitOpenError
	if !errors.As(err, &co) {
		return "the Peppol Directory could not be searched; retry with exponential backoff"
	}
	return fmt.Sprintf("the Peppol Directory is failing (%d consecutive timeouts or errors), so peppolgate is not asking it for now; retry after %s", co.failures, seconds(co.retryAfter))
}
