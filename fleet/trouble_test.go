package fleet_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
)

// set writes one key through f, as every shared part does.
func set(f *fleet.Fleet, value string) error {
	return f.Do(context.Background(), "set", func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, f.Key("t"), value, 0).Err()
	})
}

// TestCause: each kind of Redis trouble, shown by a real redis-server, is named by its
// cause in /readyz (Status.Cause) and the log, and marks Redis down.
func TestCause(t *testing.T) {
	t.Parallel()
	closed := redistest.FreePort(t)
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
		want string
		// op is the operation deadline; 0 means 2 s, enough on a busy machine. The
		// default 50 ms shows that a refused dial is not reported as a timeout.
		op time.Duration
	}{
		{"nothing listens", func(*testing.T) string { return "redis://127.0.0.1:" + strconv.Itoa(closed) }, "refused", fleet.DefaultOpTimeout},
		{"a password is required", func(t *testing.T) string {
			return redistest.Start(t, "--requirepass", "s3cret").URL(0)
		}, "auth", 0},
		{"a wrong password", func(t *testing.T) string {
			return "redis://:wrong@" + redistest.Start(t, "--requirepass", "s3cret").Addr()
		}, "auth", 0},
		{"full", func(t *testing.T) string {
			return redistest.Start(t, "--maxmemory", "1", "--maxmemory-policy", "noeviction").URL(0)
		}, "oom", 0},
		{"a read-only replica", func(t *testing.T) string {
			return redistest.Start(t, "--replicaof", "127.0.0.1", strconv.Itoa(closed)).URL(0)
		}, "readonly", 0},
		{"an untrusted certificate", func(t *testing.T) string {
			srv, _ := startTLS(t)
			return "rediss://localhost:" + srv
		}, "tls", fleet.DefaultOpTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			op := tc.op
			if op == 0 {
				op = 2 * time.Second
			}
			f, err := fleet.Open(fleet.Options{URL: tc.url(t), OpTimeout: op, ProbeEvery: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// Open's own ping may have marked it down already (refused, auth, tls);
			// a write must fail for the others.
			if f.Up() {
				if err := set(f, "1"); !errors.Is(err, fleet.ErrDown) {
					t.Fatalf("set = %v, want ErrDown", err)
				}
			}
			if st := f.Status(); st.Up || st.Cause != tc.want {
				t.Errorf("Status = %+v, want down with cause %q", st, tc.want)
			}
		})
	}
}

// TestRefusedCommandLeavesRedisUp: an error reply to one command (here WRONGTYPE) is
// that operation's failure, not Redis's: it stays in use.
func TestRefusedCommandLeavesRedisUp(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := set(f, "a string"); err != nil {
		t.Fatal(err)
	}
	err = f.Do(context.Background(), "lpush", func(ctx context.Context, c *redis.Client) error {
		return c.LPush(ctx, f.Key("t"), "x").Err()
	})
	if err == nil || errors.Is(err, fleet.ErrDown) || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Fatalf("LPUSH on a string = %v, want the WRONGTYPE error, not ErrDown", err)
	}
	if !f.Up() {
		t.Error("a refused command marked Redis down")
	}
}

// TestProbeWritesBeforeComingBack: a full Redis answers PING but refuses writes; the
// probe must not mark it up (else every replica would flap once a second), and it
// logs the cause again once a minute while Redis stays down, not once per outage.
func TestProbeWritesBeforeComingBack(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, "--maxmemory", "1", "--maxmemory-policy", "noeviction")
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var logs syncBuf
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), OpTimeout: 2 * time.Second, ProbeEvery: 20 * time.Millisecond,
		Now: clock, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := set(f, "1"); !errors.Is(err, fleet.ErrDown) {
		t.Fatalf("set on a full Redis = %v, want ErrDown", err)
	}
	time.Sleep(200 * time.Millisecond) // about ten probes
	if st := f.Status(); st.Up || st.Downs != 1 {
		t.Fatalf("after probes of a full Redis: %+v, want still down, once", st)
	}
	if n := strings.Count(logs.String(), "cause=oom"); n != 1 {
		t.Fatalf("%d log lines about the full Redis within a minute, want 1:\n%s", n, logs.String())
	}
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(logs.String(), "cause=oom") < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(logs.String(), "cause=oom"); n != 2 {
		t.Errorf("%d log lines after a minute more of a full Redis, want 2:\n%s", n, logs.String())
	}
}

// TestTLS: a rediss:// Redis whose certificate chains to RootCAs is used.
func TestTLS(t *testing.T) {
	t.Parallel()
	port, ca := startTLS(t)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	f, err := fleet.Open(fleet.Options{URL: "rediss://localhost:" + port, RootCAs: pool, OpTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := set(f, "1"); err != nil {
		t.Fatalf("set over TLS: %v (status %+v)", err, f.Status())
	}
}

// startTLS starts redis-server with a TLS port whose certificate (for localhost) a
// CA made here issued; it returns the TLS port and the CA.
func startTLS(t *testing.T) (string, *x509.Certificate) {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test Redis CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	port := strconv.Itoa(redistest.FreePort(t))
	redistest.Start(t, "--tls-port", port, "--tls-cert-file", write("cert.pem", "CERTIFICATE", der),
		"--tls-key-file", write("key.pem", "EC PRIVATE KEY", keyDER), "--tls-ca-cert-file", write("ca.pem", "CERTIFICATE", caDER),
		"--tls-auth-clients", "no")
	return port, ca
}

// syncBuf is a bytes.Buffer safe for the logger's and the test's goroutines.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
