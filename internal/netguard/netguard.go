// Package netguard keeps outgoing connections to hosts named by untrusted data (SMP
// URLs from the SML, redirect targets) away from the server's own network: loopback,
// private, link-local, CGNAT, multicast and unspecified addresses are refused at dial
// time, after DNS resolution, so DNS rebinding cannot bypass the check.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is wrapped by the error of a dial to an address that is not
// public.
var ErrForbiddenAddress = errors.New("netguard: address is not a public unicast address")

// ErrPlainHTTP is wrapped by the error of a request over plain http by a client that
// only allows https.
var ErrPlainHTTP = errors.New("netguard: plain http is not allowed, only https")

// blocked are the ranges a public service has no business reaching, beyond what
// netip.Addr's predicates cover.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:10::/28"),    // ORCHID
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (RFC 2765)
}

// nat64 is the well-known NAT64 prefix: its addresses embed an IPv4 address, which is
// checked in turn.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Allowed reports whether a is a public unicast address that an outgoing connection
// may reach. IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry, and
// NAT64 addresses by their embedded IPv4 address.
func Allowed(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		return Allowed(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
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

// Dialer returns a dialer that refuses, after name resolution, every address Allowed
// rejects, unless allowPrivate is true (the offline demo and tests, whose SMPs live on
// loopback). A refused dial fails with an error wrapping ErrForbiddenAddress.
func Dialer(allowPrivate bool) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.Control = control
	}
	return d
}

// control is a net.Dialer Control function: it sees the resolved address of every
// connection attempt.
func control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrForbiddenAddress, address)
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !Allowed(a) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	return nil
}

// HTTPClient returns an HTTP client for SMP fetches: dials go through Dialer, no proxy
// is used (a proxy would dial on our behalf, unchecked), redirects are never followed
// (the caller sees the 3xx) and, unless allowPrivate is true, only https URLs are
// fetched; a plain-http request fails with an error wrapping ErrPlainHTTP. timeout
// bounds each whole request; 0 means none beyond the request's context.
func HTTPClient(allowPrivate bool, timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           Dialer(allowPrivate).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	var rt http.RoundTripper = tr
	if !allowPrivate {
		rt = httpsOnly{tr}
	}
	return &http.Client{
		Transport:     rt,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
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
