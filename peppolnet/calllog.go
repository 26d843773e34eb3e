package peppolnet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/miekg/dns"
	"github.com/peppolgate/peppolgate/internal/netguard"
	"github.com/peppolgate/peppolgate/peppol/directory"
	"github.com/peppolgate/peppolgate/peppol/sml"
	"github.com/peppolgate/peppolgate/peppol/smp"
	"github.com/peppolgate/peppolgate/registry"
)

// logCall logs a failed upstream call at warn, once, with what an operator needs to
// tell one cause from another: the upstream and its host, what was asked (about), the
// outcome, the DNS rcode or HTTP status, the kind of failure (timeout, connection
// refused, TLS, malformed answer, circuit breaker open, ...), how long it took and the
// whole cause chain. Answers (found or not) and calls cut short because every caller
// left are not failures and are not logged. Clients never see any of it: their
// messages come from *Error.Message.
func (l *Registry) logCall(ctx context.Context, kind, outcome string, elapsed time.Duration, err error, about slog.Attr) {
	if outcome == registry.OutcomeOK || outcome == registry.OutcomeCanceled || err == nil {
		return
	}
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs, slog.String("upstream", kind), about, slog.String("outcome", outcome))
	attrs = append(attrs, l.causeAttrs(err)...)
	attrs = append(attrs, slog.Float64("elapsed_ms", float64(elapsed.Microseconds())/1000), slog.String("err", err.Error()))
	level := slog.LevelWarn
	if errors.Is(err, sml.ErrNotFromZone) {
		// Every lookup meets this cause: once per cause at error level (causelog.go).
		var more []slog.Attr
		level, more = l.notFromZone(err)
		attrs = append(attrs, more...)
	}
	l.cfg.Logger.LogAttrs(ctx, level, "upstream call failed", attrs...)
}

// causeAttrs are the structured parts of an upstream failure: host, DNS rcode, HTTP
// status, failure kind and Retry-After, where err's chain knows them.
func (l *Registry) causeAttrs(err error) []slog.Attr {
	var out []slog.Attr
	var se *sml.Error
	var pe *smp.Error
	var de *directory.Error
	switch {
	case errors.As(err, &se):
		if se.Server != "" {
			out = append(out, slog.String("host", se.Server))
		}
		rcode := "none"
		if se.Rcode != sml.NoRcode {
			rcode = dns.RcodeToString[se.Rcode]
		}
		out = append(out, slog.String("dns_rcode", rcode), slog.Int("dns_attempts", se.Attempts))
	case errors.As(err, &pe):
		if u, uerr := url.Parse(pe.URL); uerr == nil && u.Host != "" {
			out = append(out, slog.String("host", u.Host))
		}
		if pe.Status != 0 {
			out = append(out, slog.Int("http_status", pe.Status))
		}
	case errors.As(err, &de):
		if u, uerr := url.Parse(l.cfg.Directory.Base); uerr == nil && u.Host != "" {
			out = append(out, slog.String("host", u.Host))
		}
		if de.Status != 0 {
			out = append(out, slog.Int("http_status", de.Status))
		}
	}
	out = append(out, slog.String("failure", failureKind(err)))
	var rl *directory.RateLimitError
	if errors.As(err, &rl) && rl.RetryAfter > 0 {
		out = append(out, slog.Float64("retry_after_s", rl.RetryAfter.Seconds()))
	} else if wait := retryAfter(err); wait > 0 {
		out = append(out, slog.Float64("retry_after_s", wait.Seconds()))
	}
	return out
}

// failureKind names the kind of an upstream failure in a word or two, from the most
// specific cause in err's chain.
func failureKind(err error) string {
	var ne net.Error
	var dnsErr *net.DNSError
	var co *circuitOpenError
	var busy *hostBusyError
	var se *sml.Error
	var pe *smp.Error
	var de *directory.Error
	switch {
	case errors.As(err, &co):
		return "circuit breaker open"
	case errors.As(err, &busy):
		return "SMP host busy (concurrency cap)"
	case errors.Is(err, errLimiterBusy):
		return "Directory request queue full"
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return "refused: address not public (SSRF guard)"
	case errors.Is(err, netguard.ErrPlainHTTP):
		return "refused: plain http"
	case errors.Is(err, directory.ErrRateLimited):
		return "rate limited (HTTP 429)"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case isTLS(err):
		return "TLS"
	case errors.As(err, &dnsErr):
		return "host name lookup failed"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "connection closed early"
	case errors.Is(err, sml.ErrNotFromZone):
		return "DNS answer not from the SML zone"
	case errors.As(err, &se):
		if se.Rcode != sml.NoRcode && se.Rcode != dns.RcodeSuccess {
			return "DNS " + dns.RcodeToString[se.Rcode]
		}
		return "DNS " + se.Kind.String()
	case errors.As(err, &pe):
		switch pe.Kind {
		case smp.KindStatus:
			return "HTTP " + strconv.Itoa(pe.Status)
		case smp.KindMalformed:
			return "malformed answer"
		case smp.KindTooLarge:
			return "answer too large"
		}
		return pe.Kind.String()
	case errors.Is(err, directory.ErrTooLarge):
		return "answer too large"
	case errors.As(err, &de):
		switch {
		case de.Status >= 300:
			return "HTTP " + strconv.Itoa(de.Status)
		case de.Status >= 200:
			return "malformed answer"
		}
		return de.Kind.String()
	}
	return "error"
}

// isTLS reports whether err's chain is a TLS handshake or certificate failure.
func isTLS(err error) bool {
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var ae tls.AlertError
	return errors.As(err, &rh) || errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) ||
		errors.As(err, &ci) || errors.As(err, &ae) || strings.Contains(err.Error(), "tls: ") ||
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}
