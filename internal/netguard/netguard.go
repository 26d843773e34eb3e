// Package netguard keeps outgoing connections to hosts named by untrusted data (SMP
// URLs from the SML, redirect targets) away from the server's own network: loopback,
// private, link-local, CGNAT, multicast, unspecified, reserved and documentation
// addresses are refused at dial time, after DNS resolution, so DNS rebinding cannot
// bypass the check. A client may also refuse plain http.
package netguard

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// ErrForbiddenAddress is wrapped by the error of a dial to an address that is not
// public.
var ErrForbiddenAddress = errors.New("netguard: address is not a public unicast address")

// ErrPlainHTTP is wrapped by the error of a request over plain http by a client that
// only allows https.
var ErrPlainHTTP = errors.New("netguard: plain http is not allowed, only https")

// blocked are the ranges a public service has no business reaching, beyond what
// netip.Addr's predicates and the global-unicast rule for IPv6 cover (RFC 6890 and its
// updates: the special-purpose ranges that are not globally reachable).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("2001::/32"),       // Teredo: a tunnel, no SMP lives there
	netip.MustParsePrefix("2001:2::/48"),     // benchmarking
	netip.MustParsePrefix("2001:10::/28"),    // ORCHID
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation (RFC 9637)
}

// globalUnicast6 is the only IPv6 range allocated for global unicast; everything
// outside it (::/8 with the IPv4-compatible forms and local-use NAT64, ULA fc00::/7,
// link-local fe80::/10, site-local fec0::/10, multicast ff00::/8, …) is refused.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Ranges whose addresses embed an IPv4 address, which is judged in turn: the NAT64 or
// 6to4 form of 127.0.0.1 reaches 127.0.0.1 through a gateway.
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: IPv4 in bytes 12–15
	sixto4 = netip.MustParsePrefix("2002::/16")    // 6to4: IPv4 in bytes 2–5
)

// Allowed reports whether a is a public unicast address that an outgoing connection
// may reach. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry, and
// NAT64 and 6to4 addresses by their embedded IPv4 address.
func Allowed(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return Allowed(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixto4.Contains(a):
			return Allowed(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		case !globalUnicast6.Contains(a):
			return false
		}
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || a.IsMulticast() ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// Policy says what an HTTP client built by NewHTTPClient may reach.
type Policy struct {
	// AllowPrivate lets connections reach any address: the offline demo and tests,
	// whose SMPs live on loopback (-allow-private-smp).
	AllowPrivate bool
	// HTTPSOnly refuses plain-http requests before anything is sent: on the production
	// network SMPs are https-only since 2026-02-01.
	HTTPSOnly bool
	// Exempt lists address:port pairs that may be reached although Allowed refuses
	// their address, while every other such address stays refused: a test network on
	// loopback. IPv4-mapped forms match their IPv4 address.
	Exempt []netip.AddrPort
	// Resolver resolves host names; nil means the system's resolver.
	Resolver *net.Resolver
	// TLS configures https connections; nil means the defaults (the system's roots).
	TLS *tls.Config
	// Timeout bounds each whole request; 0 means none beyond the request's context.
	Timeout time.Duration
	// Proxy is the outbound proxy; the zero Proxy means direct connections. The
	// address rules hold through it (see Proxy).
	Proxy Proxy
}

// Dialer returns a dialer that refuses, after name resolution, every address Allowed
// rejects, unless allowPrivate is true (the offline demo and tests, whose SMPs live on
// loopback). A refused dial fails with an error wrapping ErrForbiddenAddress.
func Dialer(allowPrivate bool) *net.Dialer {
	return Policy{AllowPrivate: allowPrivate}.dialer()
}

// dialer returns a dialer enforcing p's address rules.
func (p Policy) dialer() *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Resolver: p.Resolver}
	if !p.AllowPrivate {
		exempt := p.exempt()
		d.Control = func(network, address string, _ syscall.RawConn) error {
			return control(exempt, address)
		}
	}
	return d
}

// exempt returns p.Exempt with IPv4-mapped addresses unmapped.
func (p Policy) exempt() []netip.AddrPort {
	exempt := make([]netip.AddrPort, len(p.Exempt))
	for i, ap := range p.Exempt {
		exempt[i] = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return exempt
}

// control checks the resolved address of every connection attempt; it runs before
// the connection is opened, so a refused address never sees a packet.
func control(exempt []netip.AddrPort, address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrForbiddenAddress, address)
	}
	a := ap.Addr().WithZone("").Unmap()
	if Allowed(a) || slices.Contains(exempt, netip.AddrPortFrom(a, ap.Port())) {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
}

// HTTPClient returns an HTTP client for SMP fetches: NewHTTPClient with AllowPrivate
// and plain http both allowed when allowPrivate is true, and both refused otherwise.
func HTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	return NewHTTPClient(Policy{AllowPrivate: allowPrivate, HTTPSOnly: !allowPrivate, Timeout: timeout})
}

// NewHTTPClient returns an HTTP client for SMP fetches under p: dials refuse what
// Allowed rejects (unless p.AllowPrivate or exempt), failing with an error wrapping
// ErrForbiddenAddress; with p.HTTPSOnly a plain-http request fails with an error
// wrapping ErrPlainHTTP before anything is sent. A proxy is used only when p.Proxy
// names one, and then the target is checked before the proxy is asked (see Proxy);
// redirects are never followed (the caller sees the 3xx).
func NewHTTPClient(p Policy) *http.Client {
	guarded := p.dialer()
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           guarded.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       p.TLS,
	}
	p.withProxy(tr, guarded)
	var rt http.RoundTripper = tr
	if p.HTTPSOnly {
		rt = httpsOnly{tr}
	}
	return &http.Client{
		Transport:     rt,
		Timeout:       p.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Transport returns a transport like http.DefaultTransport's, without the SSRF guard
// (for hosts the operator names, such as the Directory), through proxy when it names
// one for a request: the program's own reading of the environment, not the process's.
func Transport(proxy Proxy) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	if !proxy.IsZero() {
		pf := (&httpproxy.Config{HTTPSProxy: proxy.HTTPS, HTTPProxy: proxy.HTTP, NoProxy: proxy.NoProxy}).ProxyFunc()
		tr.Proxy = func(req *http.Request) (*url.URL, error) { return pf(req.URL) }
	}
	return tr
}

// httpsOnly refuses requests that are not https before anything is sent.
type httpsOnly struct{ next http.RoundTripper }

// RoundTrip sends req when its scheme is https, and fails with ErrPlainHTTP otherwise.
func (h httpsOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil || req.URL.Scheme != "https" {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, ErrPlainHTTP
	}
	return h.next.RoundTrip(req)
}
