package peppolnet

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/crypto/ocsp"
)

// Revocation checks (OCSP, RFC 6960) of access point certificates: asked of the
// responder the certificate names, through Config.OCSP (the SSRF-guarded client), with
// a short deadline, and remembered per certificate until the answer's next update.
// A responder that cannot be asked is "unknown", a warning, never a failure.
const (
	// ocspTimeout bounds one OCSP request.
	ocspTimeout = 3 * time.Second
	// ocspMaxBody bounds an OCSP answer.
	ocspMaxBody = 64 << 10
	// ocspDefaultFor is how long an answer without a next update is kept, and
	// ocspMaxFor the longest any is.
	ocspDefaultFor, ocspMaxFor = time.Hour, 24 * time.Hour
	// ocspUnknownFor is how long "unknown" after a failure is kept, so that a
	// responder that is down is not asked on every lookup.
	ocspUnknownFor = time.Minute
	// maxOCSPEntries bounds the remembered answers; when full it starts afresh.
	maxOCSPEntries = 10000
)

// The revocation states of registry.Certificate.Revocation.
const (
	revocationGood    = "good"
	revocationRevoked = "revoked"
	revocationUnknown = "unknown"
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
// nothing when no client is configured or cert names no responder ("", "").
func (l *Registry) revocationOf(ctx context.Context, cert, issuer *x509.Certificate) (status, reason string) {
	if l.cfg.OCSP == nil || len(cert.OCSPServer) == 0 || issuer == nil {
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
	status, reason, until := l.askOCSP(ctx, cert, issuer, now)
	l.ocsp.mu.Lock()
	if l.ocsp.m == nil || len(l.ocsp.m) >= maxOCSPEntries {
		l.ocsp.m = map[string]revocationEntry{}
	}
	l.ocsp.m[key] = revocationEntry{status: status, reason: reason, until: until}
	l.ocsp.mu.Unlock()
	return status, reason
}

// askOCSP asks cert's first responder; it returns the status, why it is unknown, and
// until when to remember it.
func (l *Registry) askOCSP(ctx context.Context, cert, issuer *x509.Certificate, now time.Time) (status, reason string, until time.Time) {
	unknown := func(err error) (string, string, time.Time) {
		l.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "OCSP responder could not be asked", slog.String("responder", cert.OCSPServer[0]), slog.String("error", err.Error()))
		return revocationUnknown, err.Error(), now.Add(ocspUnknownFor)
	}
	req, err := ocsp.CreateRequest(cert, issuer, nil)
	if err != nil {
		return unknown(fmt.Errorf("making the OCSP request: %w", err))
	}
	ctx, cancel := context.WithTimeout(ctx, ocspTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, cert.OCSPServer[0], bytes.NewReader(req))
	if err != nil {
		return unknown(err)
	}
	hr.Header.Set("Content-Type", "application/ocsp-request")
	hr.Header.Set("Accept", "application/ocsp-response")
	resp, err := l.cfg.OCSP.Do(hr)
	if err != nil {
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
