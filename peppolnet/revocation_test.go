package peppolnet

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	otelcodes "go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"golang.org/x/crypto/ocsp"

	"github.com/peppolgate/peppolgate/internal/netguard"
)

// issue makes a certificate issued by parent (self-signed when nil), with ekus, naming
// responder as its OCSP responder.
func issue(t *testing.T, parent *x509.Certificate, parentKey crypto.Signer, serial int64, ca bool, responder string, ekus ...x509.ExtKeyUsage) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "c" + big.NewInt(serial).String()},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: ekus,
		IsCA: ca, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	if responder != "" {
		tmpl.OCSPServer = []string{responder}
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), parentKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// TestOCSPAnswerChecks: an OCSP answer is believed only when the CA signed it, or a
// responder the CA made one (OCSP signing usage), and when it is current.
func TestOCSPAnswerChecks(t *testing.T) {
	t.Parallel()
	ca, caKey := issue(t, nil, nil, 1, true, "")
	now := time.Now().Truncate(time.Second)
	tests := []struct {
		name   string
		answer func(cert *x509.Certificate) []byte
		want   string
		reason string
	}{
		{"signed by the CA", func(c *x509.Certificate) []byte {
			return respond(t, ca, ca, caKey, c, now, now.Add(time.Hour))
		}, revocationGood, ""},
		{"signed by a responder of the CA", func(c *x509.Certificate) []byte {
			r, rKey := issue(t, ca, caKey, 7, false, "", x509.ExtKeyUsageOCSPSigning)
			return respond(t, ca, r, rKey, c, now, now.Add(time.Hour))
		}, revocationGood, ""},
		{"signed by another certificate of the CA", func(c *x509.Certificate) []byte {
			other, otherKey := issue(t, ca, caKey, 8, false, "", x509.ExtKeyUsageClientAuth)
			return respond(t, ca, other, otherKey, c, now, now.Add(time.Hour))
		}, revocationUnknown, "did not make an OCSP responder"},
		{"an old answer", func(c *x509.Certificate) []byte {
			return respond(t, ca, ca, caKey, c, now.Add(-3*time.Hour), now.Add(-2*time.Hour))
		}, revocationUnknown, "not current"},
		{"an answer from the future", func(c *x509.Certificate) []byte {
			return respond(t, ca, ca, caKey, c, now.Add(time.Hour), now.Add(2*time.Hour))
		}, revocationUnknown, "not current"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var answer []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/ocsp-response")
				_, _ = w.Write(answer)
			}))
			defer srv.Close()
			leaf, _ := issue(t, ca, caKey, int64(100+i), false, srv.URL)
			answer = tt.answer(leaf)
			l := &Registry{cfg: Config{OCSP: netguard.HTTPClient(true, 5*time.Second), Logger: slog.New(slog.DiscardHandler)}}
			status, reason := l.revocationOf(t.Context(), leaf, ca)
			if status != tt.want || !strings.Contains(reason, tt.reason) {
				t.Errorf("%q (%s), want %q (%s)", status, reason, tt.want, tt.reason)
			}
		})
	}
}

// TestOCSPSpanStatus: the OCSP check's span has status Error when the responder could
// not be asked or read, not when it answered that it does not know the certificate
// (an answer, docs/DEPLOY.md "Traces (OpenTelemetry)").
func TestOCSPSpanStatus(t *testing.T) {
	t.Parallel()
	ca, caKey := issue(t, nil, nil, 1, true, "")
	for i, tt := range []struct {
		name   string
		status int
		ocsp   int
		err    bool
	}{
		{"unknown answer", http.StatusOK, ocsp.Unknown, false},
		{"good answer", http.StatusOK, ocsp.Good, false},
		{"HTTP 500", http.StatusInternalServerError, ocsp.Good, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var answer []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/ocsp-response")
				w.WriteHeader(tt.status)
				_, _ = w.Write(answer)
			}))
			defer srv.Close()
			leaf, _ := issue(t, ca, caKey, int64(200+i), false, srv.URL)
			now := time.Now().Truncate(time.Second)
			der, err := ocsp.CreateResponse(ca, ca, ocsp.Response{Status: tt.ocsp, SerialNumber: leaf.SerialNumber, ThisUpdate: now, NextUpdate: now.Add(time.Hour)}, caKey)
			if err != nil {
				t.Fatal(err)
			}
			answer = der
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			l := &Registry{cfg: Config{OCSP: netguard.HTTPClient(true, 5*time.Second), Logger: slog.New(slog.DiscardHandler)}, tracer: tp.Tracer("test")}
			_, _ = l.revocationOf(t.Context(), leaf, ca)
			var found bool
			for _, s := range rec.Ended() {
				if s.Name() != "OCSP check" {
					continue
				}
				found = true
				if (s.Status().Code == otelcodes.Error) != tt.err {
					t.Errorf("OCSP check span status %v; want error %v", s.Status(), tt.err)
				}
			}
			if !found {
				t.Error("no OCSP check span")
			}
		})
	}
}

// respond makes an OCSP answer "good" about c, signed by signer (the CA or a
// responder) with key, for the given update times.
func respond(t *testing.T, ca, signer *x509.Certificate, key crypto.Signer, c *x509.Certificate, this, next time.Time) []byte {
	t.Helper()
	tmpl := ocsp.Response{Status: ocsp.Good, SerialNumber: c.SerialNumber, ThisUpdate: this, NextUpdate: next}
	if signer != ca {
		tmpl.Certificate = signer
	}
	der, err := ocsp.CreateResponse(ca, signer, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
