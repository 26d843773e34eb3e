package peppolnet

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/crypto/ocsp"
)

// Revocation checks (OCSP, RFC 6960) of access point certificates: asked of the
// responder the certificate names, through Config.OCSP (the SSRF-guarded client), with
// a short deadline, and remembered per certificate until the answer's next update.
// A responder that cannot be asked is "unknown", a warning, never a failure.
const (
	// DefaultOCSPTimeout bounds one OCSP request (Config.OCSPTimeout, -ocsp-timeout).
	DefaultOCSPTimeout = 3 * time.Second
	// ocspMaxBody bounds an OCSP answer.
	ocspMaxBody = 64 << 10
	// ocspDefaultFor is how long an answer without a next update is kept, and
	// ocspMaxFor the longest any is.
	ocspDefaultFor, ocspMaxFor = time.Hour, 24 * time.Hour
	// ocspUnknownFor is how long "unknown" after a failure is kept, so that a
	// responder that is down is not asked on every lookup.
	ocspUnknownFor = time.Minute
	// ocspClockSkew is how far an answer's update times may stray from the clock.
	ocspClockSkew = 5 * time.Minute
	// maxOCSPEntries bounds the remembered answers; when full it starts afresh.
	maxOCSPEntries = 10000
)

// The revocation states of registry.Certificate.Revocation.
const (
	revocationGood    = "good"
	revocationRevoked = "revoked"
	revocationUnknown = "unknown"
	// revocationUnchecked: OCSP checks are off (Config.OCSPOff); nothing was asked.
	revocationUnchecked = "unchecked"
)

// revocations remembers OCSP answers by certificate (issuer and serial).
type revocations struct {
	mu sync.Mutex
	m  map[string]revocationEntry
}

type revocationEntry struct {
	status, reason string
	until          time.Time
}

// revocationOf returns what cert's OCSP responder says about it (issuer being its CA),
// and for unknown why. The answer is remembered as the responder allows. It asks
// nothing when no client is configured or cert names no responder ("", ""), nor with
// OCSP off (unchecked). Times are the real clock's, not Config.Now: OCSP answers are
// about the present.
func (l *Registry) revocationOf(ctx context.Context, cert, issuer *x509.Certificate) (status, reason string) {
	if len(cert.OCSPServer) == 0 || issuer == nil {
		return "", ""
	}
	if l.cfg.OCSPOff {
		return revocationUnchecked, "OCSP checks are off (-ocsp off)"
	}
	if l.cfg.OCSP == nil {
		return "", ""
	}
	key := string(issuer.RawSubject) + "\x00" + cert.SerialNumber.String()
	now := time.Now()
	l.ocsp.mu.Lock()
	e, ok := l.ocsp.m[key]
	l.ocsp.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.status, e.reason
	}
	// Concurrent checks of one certificate (the document types of one /services call
	// share their access point's) ask once.
	e, err := l.ocspFlights.do(ctx, key, l.ocspTimeout(), func(fctx context.Context) revocationEntry {
		status, reason, until := l.askOCSP(fctx, cert, issuer, time.Now())
		e := revocationEntry{status: status, reason: reason, until: until}
		if abandoned(fctx) {
			// Every caller went away: that says nothing about the responder.
			return e
		}
		l.ocsp.mu.Lock()
		if l.ocsp.m == nil || len(l.ocsp.m) >= maxOCSPEntries {
			l.ocsp.m = map[string]revocationEntry{}
		}
		l.ocsp.m[key] = e
		l.ocsp.mu.Unlock()
		return e
	})
	if err != nil {
		return revocationUnknown, "the lookup ended before the OCSP responder answered"
	}
	return e.status, e.reason
}

// ocspTimeout bounds one OCSP request: Config.OCSPTimeout, or DefaultOCSPTimeout for a
// registry made without New.
func (l *Registry) ocspTimeout() time.Duration {
	if l.cfg.OCSPTimeout > 0 {
		return l.cfg.OCSPTimeout
	}
	return DefaultOCSPTimeout
}

// askOCSP asks cert's first responder; it returns the status, why it is unknown, and
// until when to remember it.
func (l *Registry) askOCSP(ctx context.Context, cert, issuer *x509.Certificate, now time.Time) (status, reason string, until time.Time) {
	failed := false
	if l.traced(ctx) {
		var span trace.Span
		ctx, span = l.startSpan(ctx, "OCSP check", attribute.String("peppol.ocsp.responder", hostOf(cert.OCSPServer[0])))
		defer func() {
			span.SetAttributes(attribute.String("peppol.ocsp.status", status))
			if failed {
				// The responder could not be asked or read: its failure, recorded. Its
				// answer that it does not know the certificate is no failure.
				span.SetStatus(otelcodes.Error, reason)
			}
			span.End()
		}()
	}
	unknown := func(err error) (string, string, time.Time) {
		failed = true
		l.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "OCSP responder could not be asked", slog.String("responder", cert.OCSPServer[0]), slog.String("error", err.Error()))
		return revocationUnknown, err.Error(), now.Add(ocspUnknownFor)
	}
	req, err := ocsp.CreateRequest(cert, issuer, nil)
	if err != nil {
		return unknown(fmt.Errorf("making the OCSP request: %w", err))
	}
	ctx, cancel := context.WithTimeout(ctx, l.ocspTimeout())
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, cert.OCSPServer[0], bytes.NewReader(req))
	if err != nil {
		return unknown(err)
	}
	hr.Header.Set("Content-Type", "application/ocsp-request")
	hr.Header.Set("Accept", "application/ocsp-response")
	resp, err := l.cfg.OCSP.Do(hr)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the OCSP responder did not answer within %v (-ocsp-timeout): %w", l.ocspTimeout(), err)
		}
		return unknown(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return unknown(fmt.Errorf("the OCSP responder answered HTTP %d", resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, ocspMaxBody))
	if err != nil {
		return unknown(err)
	}
	r, err := ocsp.ParseResponseForCert(body, cert, issuer)
	if err != nil {
		return unknown(fmt.Errorf("the OCSP answer cannot be read or is not signed by the CA: %w", err))
	}
	// x/crypto checks that a delegated responder's certificate comes from the CA, not
	// that the CA made it a responder: any certificate of that CA (every access point
	// has one) could otherwise vouch for any other (RFC 6960 §4.2.2.2).
	if r.Certificate != nil && !slices.Contains(r.Certificate.ExtKeyUsage, x509.ExtKeyUsageOCSPSigning) {
		return unknown(errors.New("the OCSP answer is signed by a certificate the CA did not make an OCSP responder"))
	}
	// A replayed old answer, or one from a responder whose clock is wrong, says
	// nothing about now. OCSP is about the present, so the real clock judges it.
	if r.ThisUpdate.After(now.Add(ocspClockSkew)) || (!r.NextUpdate.IsZero() && r.NextUpdate.Before(now.Add(-ocspClockSkew))) {
		return unknown(fmt.Errorf("the OCSP answer is not current (this update %s, next update %s)", r.ThisUpdate.UTC().Format(time.RFC3339), r.NextUpdate.UTC().Format(time.RFC3339)))
	}
	until = now.Add(ocspDefaultFor)
	if !r.NextUpdate.IsZero() {
		until = r.NextUpdate
	}
	if latest := now.Add(ocspMaxFor); until.After(latest) {
		until = latest
	}
	switch r.Status {
	case ocsp.Good:
		return revocationGood, "", until
	case ocsp.Revoked:
		return revocationRevoked, "revoked on " + r.RevokedAt.UTC().Format(time.DateOnly), until
	}
	return revocationUnknown, "the OCSP responder does not know the certificate", until
}
