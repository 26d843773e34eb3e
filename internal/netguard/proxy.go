package netguard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpproxy"

	"github.com/peppolgate/peppolgate/internal/redact"
)

// Proxy is an outbound HTTP (or SOCKS5) proxy, as the standard variables HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY name it, read as net/http reads them (a value without a
// scheme is http://; NO_PROXY lists hosts, domains and prefixes reached directly;
// localhost and loopback addresses are always direct). The zero Proxy means direct
// connections.
//
// Through a proxy the SSRF guard still holds: the target's host is resolved here and
// every address checked (Allowed, or Exempt) before the proxy is asked to connect, and
// the proxy's own address, the operator's, is allowed as the proxy hop only, never as
// a direct target. The proxy resolves the
// name again itself: a name whose DNS answers differ between the two lookups could
// still reach another address, which only the proxy's own rules can prevent.
type Proxy struct {
	HTTPS, HTTP, NoProxy string
}

// ProxyFromEnv reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY with getenv, each upper
// case first, then lower case, as net/http does.
func ProxyFromEnv(getenv func(string) string) Proxy {
	get := func(name string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return getenv(strings.ToLower(name))
	}
	return Proxy{HTTPS: get("HTTPS_PROXY"), HTTP: get("HTTP_PROXY"), NoProxy: get("NO_PROXY")}
}

// IsZero reports whether p names no proxy.
func (p Proxy) IsZero() bool { return p.HTTPS == "" && p.HTTP == "" }

// Check returns an error naming the variable whose proxy URL cannot be used: not
// http, https or socks5, no host, or a bad port.
func (p Proxy) Check() error {
	for _, v := range []struct{ name, raw string }{{"HTTPS_PROXY", p.HTTPS}, {"HTTP_PROXY", p.HTTP}} {
		if v.raw == "" {
			continue
		}
		if _, err := proxyAddr(v.raw); err != nil {
			return fmt.Errorf("%s %s: %w", v.name, redact.URL(v.raw), err)
		}
	}
	return nil
}

// String describes p for logs, with the proxies' passwords REDACTED.
func (p Proxy) String() string {
	if p.IsZero() {
		return "none"
	}
	return fmt.Sprintf("HTTPS_PROXY=%s HTTP_PROXY=%s NO_PROXY=%s", redact.URL(p.HTTPS), redact.URL(p.HTTP), p.NoProxy)
}

// proxyAddr returns the host:port a proxy URL is dialled at, as net/http dials it.
func proxyAddr(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a URL")
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		port = cmp.Or(port, "80")
	case "https":
		port = cmp.Or(port, "443")
	case "socks5", "socks5h":
		port = cmp.Or(port, "1080")
	default:
		return "", fmt.Errorf("scheme %q is not http, https or socks5", u.Scheme)
	}
	if u.Hostname() == "" {
		return "", errors.New("no host")
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return "", fmt.Errorf("port %q is not a port number", port)
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// withProxy makes tr send requests through p when p names a proxy for them: the
// target is checked against the guard's rules (unless pol.AllowPrivate) before the
// proxy is asked, and dials to the proxy itself skip the guard. The proxy's address
// is allowed only as the proxy hop: a direct request naming it is checked like any
// other target. A proxy URL that
// cannot be used fails each request it would carry.
func (pol Policy) withProxy(tr *http.Transport, guarded *net.Dialer) {
	p := pol.Proxy
	if p.IsZero() {
		return
	}
	proxies := map[string]bool{}
	for _, raw := range []string{p.HTTPS, p.HTTP} {
		if addr, err := proxyAddr(raw); err == nil {
			proxies[addr] = true
		}
	}
	pf := (&httpproxy.Config{HTTPSProxy: p.HTTPS, HTTPProxy: p.HTTP, NoProxy: p.NoProxy}).ProxyFunc()
	exempt := pol.exempt()
	tr.Proxy = func(req *http.Request) (*url.URL, error) {
		u, err := pf(req.URL)
		if err != nil {
			return nil, err
		}
		if u == nil {
			// Direct: the guarded dialer judges the target, but skips the proxy's own
			// address, so a target naming it is checked here.
			if !pol.AllowPrivate && proxies[targetAddr(req.URL)] {
				return nil, pol.checkTarget(req.Context(), req.URL, exempt)
			}
			return nil, nil
		}
		if !pol.AllowPrivate {
			if err := pol.checkTarget(req.Context(), req.URL, exempt); err != nil {
				return nil, err
			}
		}
		return u, nil
	}
	direct := &net.Dialer{Timeout: guarded.Timeout, KeepAlive: guarded.KeepAlive, Resolver: guarded.Resolver}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxies[addr] {
			return direct.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
}

// targetAddr is the host:port the transport dials for u when it goes direct.
func targetAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// checkTarget resolves u's host (unless it is an address) and fails with an error
// wrapping ErrForbiddenAddress when any of its addresses is refused.
func (pol Policy) checkTarget(ctx context.Context, u *url.URL, exempt []netip.AddrPort) error {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		r := pol.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return fmt.Errorf("resolving %s to check it before asking the proxy: %w", host, err)
		}
	}
	for _, a := range addrs {
		if err := control(exempt, net.JoinHostPort(a.String(), port)); err != nil {
			return fmt.Errorf("%w (%s, through the proxy)", err, host)
		}
	}
	return nil
}
