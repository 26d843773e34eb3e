package netsim

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	ppki "github.com/peppolgate/peppolgate/peppol/pki"
	"github.com/peppolgate/peppolgate/peppol/sml"
)

// Config parameterises Start.
type Config struct {
	// Zone is the SML DNS zone the DNS server is authoritative for. Empty means
	// sml.ZoneTest for a NetworkTest dataset and sml.ZoneProduction otherwise.
	Zone string
	// ParentZone, when set, makes the SML zone a name inside ParentZone (which must be
	// above it) without an SOA of its own, as the production zone was until August 2026
	// (docs/ARCHITECTURE.md §1): negative answers carry ParentZone's SOA, and the SML
	// zone's own SOA question is answered NOERROR with no records and that SOA.
	ParentZone string
	// DirectoryRateLimit enables the real Directory's limit of 2 requests/s per client
	// IP (429 with Retry-After: 2). Off by default so that tests are fast.
	DirectoryRateLimit bool
	// Logger receives debug logs of every request; nil discards them.
	Logger *slog.Logger
	// Now is the network's clock: the served export is created at its time (the
	// real Directory writes a fresh one every night). nil means time.Now; the demo
	// passes the clock its registries judge on, so that one demo has one "now" (its
	// statistics end at the demo's day). OCSP answers stay on the real clock, which
	// the registries judge them on (OCSP is about the present).
	Now func() time.Time
}

// Network is a running simulated Peppol network on 127.0.0.1: one DNS server (UDP and
// TCP on the same port), one HTTP server per SMP host and one Directory server. All
// methods are safe for concurrent use.
type Network struct {
	ds   *Dataset
	zone string
	// parent is Config.ParentZone, normalised; "" when the zone has its own SOA.
	parent string
	log    *slog.Logger
	pki    *pki
	now    func() time.Time

	naptr map[string]int // lower-case NAPTR name without trailing dot → participant index
	dir   *dirIndex
	limit *rateLimiter

	dnsAddr string
	dnsSrv  []interface{ ShutdownContext(context.Context) error }
	smp     []*smpServer
	dirURL  string
	http    []*http.Server

	faults    faultSet
	overrides overrides
	hits      hitCounters
	export    exportServer

	closing   chan struct{}
	closeOnce sync.Once
	closeErr  error
	stopCtx   func() bool
	// revoked are the access points (by index) whose certificates the OCSP responder
	// says are revoked, with when.
	revoked sync.Map
	// revokedSMP are the SMP hosts (by index) whose signing certificates it says are
	// revoked, with when.
	revokedSMP sync.Map
}

// Start starts the network for ds on 127.0.0.1 with free ports and returns once every
// server accepts requests. The network stops when Close is called or ctx is done.
// It returns an error when a socket cannot be opened or a certificate cannot be
// generated; nothing is left running then.
func Start(ctx context.Context, ds *Dataset, cfg Config) (*Network, error) {
	if ds == nil {
		return nil, errors.New("netsim: Start needs a dataset")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := &Network{
		ds:      ds,
		zone:    cfg.Zone,
		log:     cfg.Logger,
		now:     cfg.Now,
		closing: make(chan struct{}),
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.zone == "" {
		n.zone = sml.ZoneProduction
		if ds.Network == NetworkTest {
			n.zone = sml.ZoneTest
		}
	}
	n.zone = normaliseName(n.zone)
	if cfg.ParentZone != "" {
		n.parent = normaliseName(cfg.ParentZone)
		if !strings.HasSuffix(n.zone, "."+n.parent) {
			return nil, fmt.Errorf("netsim: ParentZone %s is not above the zone %s", cfg.ParentZone, n.zone)
		}
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	if cfg.DirectoryRateLimit {
		n.limit = newRateLimiter(4, 2*time.Second)
	}
	n.hits.smp = make([]smpCounters, len(ds.SMPHosts))
	n.export.perDay = DefaultExportLimit
	// The OCSP responder's address goes into the access point certificates, so it
	// listens before they are made.
	ocspLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netsim: listen: %w", err)
	}
	if n.pki, err = newPKI(ds, "http://"+ocspLn.Addr().String()+"/ocsp"); err != nil {
		ocspLn.Close()
		return nil, err
	}
	n.serveHTTPOn(ocspLn, http.HandlerFunc(n.serveOCSP))
	n.naptr = make(map[string]int)
	for i := range ds.Participants {
		if ds.Participants[i].InSML {
			n.naptr[sml.NAPTRName(ds.Participants[i].ID, n.zone)] = i
		}
	}
	n.dir = buildDirIndex(ds)

	if err := n.startSMPs(); err != nil {
		n.Close()
		return nil, err
	}
	if err := n.startDirectory(); err != nil {
		n.Close()
		return nil, err
	}
	if err := n.startDNS(); err != nil {
		n.Close()
		return nil, err
	}
	n.stopCtx = context.AfterFunc(ctx, func() { n.Close() })
	return n, nil
}

// serveHTTP starts an http.Server for h on a fresh loopback port and returns its
// base URL.
func (n *Network) serveHTTP(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("netsim: listen: %w", err)
	}
	return n.serveHTTPOn(ln, h), nil
}

// serveHTTPOn serves h on ln until the network closes and returns its base URL.
func (n *Network) serveHTTPOn(ln net.Listener, h http.Handler) string {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(n.log.Handler(), slog.LevelDebug),
	}
	n.http = append(n.http, srv)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("netsim: http server stopped", "err", err)
		}
	}()
	return "http://" + ln.Addr().String()
}

// Now returns the time on the network's clock (Config.Now).
func (n *Network) Now() time.Time { return n.now() }

// Dataset returns the dataset the network serves.
func (n *Network) Dataset() *Dataset { return n.ds }

// Zone returns the SML zone the DNS server is authoritative for (no trailing dot).
func (n *Network) Zone() string { return n.zone }

// DNSAddr returns the DNS server's "127.0.0.1:port"; UDP and TCP share the port.
func (n *Network) DNSAddr() string { return n.dnsAddr }

// DirectoryURL returns the Directory base URL, e.g. "http://127.0.0.1:40123"; search
// at DirectoryURL()+"/search/1.0/json".
func (n *Network) DirectoryURL() string { return n.dirURL }

// SMPBaseURL returns the SMP base URL of host i exactly as its NAPTR record gives it
// (with the base path, with or without trailing slash), or "" for an unknown host.
func (n *Network) SMPBaseURL(i int) string {
	if i < 0 || i >= len(n.smp) {
		return ""
	}
	return n.smp[i].naptrURL
}

// SMPBaseURLs returns SMPBaseURL for every host, indexed like Dataset.SMPHosts.
func (n *Network) SMPBaseURLs() []string {
	out := make([]string, len(n.smp))
	for i, s := range n.smp {
		out[i] = s.naptrURL
	}
	return out
}

// APCertificate returns the DER certificate of access point i, or nil.
func (n *Network) APCertificate(i int) []byte {
	if i < 0 || i >= len(n.pki.ap) {
		return nil
	}
	return n.pki.ap[i]
}

// APCACertificate returns the DER certificate of the simulated Peppol CA that issued
// every access point certificate but those of AccessPoint.NonPeppolCA access points.
func (n *Network) APCACertificate() []byte { return n.pki.apCA }

// TrustAnchors returns the DER certificates a verifier must trust for this network
// as it would the OpenPeppol test PKI: the simulated root, and under it the SMP CA
// that issued every SMP signing certificate and the AP CA of the access points.
func (n *Network) TrustAnchors() (root, smpCA, apCA []byte) {
	return n.pki.root, n.pki.smpCA, n.pki.apCA
}

// Anchors returns TrustAnchors as the anchors of the OpenPeppol test chain (netsim's
// CAs stand in for the test PKI's), for a registry over this network. It returns an
// error only when a certificate it made cannot be read back.
func (n *Network) Anchors() (*ppki.Anchors, error) {
	var certs [3]*x509.Certificate
	for i, der := range [][]byte{n.pki.root, n.pki.smpCA, n.pki.apCA} {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("netsim: reading its own CA certificate: %w", err)
		}
		certs[i] = c
	}
	a := &ppki.Anchors{}
	a.AddRoot(ppki.Test, certs[0])
	a.AddCA(ppki.Test, ppki.SMP, certs[1])
	a.AddCA(ppki.Test, ppki.AccessPoint, certs[2])
	return a, nil
}

// NonPeppolCACertificate returns the DER certificate of the self-made "Example Corp
// Issuing CA" that issued the certificates of AccessPoint.NonPeppolCA access points, or
// nil when the dataset has none.
func (n *Network) NonPeppolCACertificate() []byte { return n.pki.otherCA }

// SetFault injects f for target, replacing any fault set for it before; the zero Fault
// removes it.
func (n *Network) SetFault(target Target, f Fault) {
	n.log.Debug("netsim: set fault", "target", target.String(), "fault", fmt.Sprintf("%+v", f))
	n.faults.set(target, f)
}

// ClearFaults removes every fault.
func (n *Network) ClearFaults() { n.faults.clear() }

// Hits returns a snapshot of the request counters.
func (n *Network) Hits() HitCounts { return n.hits.snapshot() }

// ResetHits sets every request counter to zero.
func (n *Network) ResetHits() { n.hits.reset() }

// Close stops every server and waits for them, releasing hanging requests first. It
// is idempotent; later calls return the first call's result.
func (n *Network) Close() error {
	n.closeOnce.Do(func() {
		if n.stopCtx != nil {
			n.stopCtx()
		}
		close(n.closing)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		for _, s := range n.dnsSrv {
			if err := s.ShutdownContext(ctx); err != nil {
				errs = append(errs, fmt.Errorf("netsim: dns shutdown: %w", err))
			}
		}
		for _, s := range n.http {
			if err := s.Shutdown(ctx); err != nil {
				s.Close()
				errs = append(errs, fmt.Errorf("netsim: http shutdown: %w", err))
			}
		}
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}
