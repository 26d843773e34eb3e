package netguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// testProxy is an HTTP proxy on loopback: CONNECT tunnels go to backend whatever
// host they name (so a public address can stand for a test server), plain requests
// are answered "via proxy". It counts both, and refuses requests without the
// Proxy-Authorization its URL's user info gives.
type testProxy struct {
	URL               string
	connects, plain   atomic.Int32
	lastTarget        atomic.Value
	backend, wantAuth string
}

func startProxy(t *testing.T, backend string) *testProxy {
	t.Helper()
	p := &testProxy{backend: backend, wantAuth: "Basic cHg6c2VjcmV0"} // px:secret
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != p.wantAuth {
			http.Error(w, "proxy authentication required", http.StatusProxyAuthRequired)
			return
		}
		p.lastTarget.Store(r.Host)
		if r.Method != http.MethodConnect {
			p.plain.Add(1)
			io.WriteString(w, "via proxy")
			return
		}
		p.connects.Add(1)
		up, err := net.DialTimeout("tcp", p.backend, 5*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer up.Close()
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		done := make(chan struct{}, 2)
		go func() { io.Copy(up, buf); done <- struct{}{} }()
		go func() { io.Copy(conn, up); done <- struct{}{} }()
		<-done
	}))
	t.Cleanup(srv.Close)
	p.URL = strings.Replace(srv.URL, "http://", "http://px:secret@", 1)
	return p
}

// TestProxy sends requests through a real proxy on loopback: a public target goes
// through it (CONNECT for https, an absolute request for http) with the URL's
// credentials, a private one is refused before the proxy hears of it (unless
// AllowPrivate), and a target the proxy does not serve (localhost) is dialled directly
// under the guard.
func TestProxy(t *testing.T) {
	t.Parallel()
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "smp") }))
	t.Cleanup(backend.Close)
	px := startProxy(t, backend.Listener.Addr().String())
	tlsCfg := backend.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsCfg.ServerName = "example.com" // httptest's certificate names it
	proxy := Proxy{HTTPS: px.URL, HTTP: px.URL}
	// The proxy's own address, named as a target: loopback, so never proxied.
	pxTarget := "http://" + strings.TrimPrefix(px.URL, "http://px:secret@") + "/"

	tests := []struct {
		name          string
		policy        Policy
		url           string
		body          string
		err           error
		connects, raw int32
	}{
		{"public https target through the proxy", Policy{}, "https://8.8.8.8/smp", "smp", nil, 1, 0},
		{"public http target through the proxy", Policy{}, "http://8.8.8.8:8080/ocsp", "via proxy", nil, 0, 1},
		{"private target refused before the proxy", Policy{}, "https://10.0.0.1/smp", "", ErrForbiddenAddress, 0, 0},
		{"mapped private target refused", Policy{}, "https://[::ffff:169.254.169.254]/", "", ErrForbiddenAddress, 0, 0},
		{"localhost is direct, and guarded", Policy{}, "https://localhost:1/", "", ErrForbiddenAddress, 0, 0},
		{"private allowed through the proxy with AllowPrivate", Policy{AllowPrivate: true}, "https://10.0.0.1/smp", "smp", nil, 1, 0},
		{"the proxy's address as a direct target is refused", Policy{}, pxTarget, "", ErrForbiddenAddress, 0, 0},
		{"the proxy's address as a direct target with AllowPrivate", Policy{AllowPrivate: true}, pxTarget, "proxy authentication required\n", nil, 0, 0},
		{"plain http refused with HTTPSOnly", Policy{HTTPSOnly: true}, "http://8.8.8.8/", "", ErrPlainHTTP, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := tt.policy
			pol.Proxy, pol.TLS, pol.Timeout = proxy, tlsCfg, 10*time.Second
			c0, p0 := px.connects.Load(), px.plain.Load()
			resp, err := NewHTTPClient(pol).Get(tt.url)
			var body string
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body = string(b)
			}
			if (tt.err == nil) != (err == nil) || (tt.err != nil && !errors.Is(err, tt.err)) || body != tt.body {
				t.Errorf("body %q, err %v; want %q, %v", body, err, tt.body, tt.err)
			}
			if c, p := px.connects.Load()-c0, px.plain.Load()-p0; c != tt.connects || p != tt.raw {
				t.Errorf("the proxy saw %d CONNECTs and %d requests, want %d and %d", c, p, tt.connects, tt.raw)
			}
		})
	}
	// The proxy itself is the operator's: on loopback, it is reached although the
	// guard refuses loopback targets.
	if got, _ := px.lastTarget.Load().(string); got == "" {
		t.Error("the proxy saw no target")
	}
}

// TestProxyFromEnv reads the variables as net/http does: upper case first.
func TestProxyFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HTTPS_PROXY": "http://a:3128", "https_proxy": "http://b:3128", "http_proxy": "http://c:3128", "no_proxy": ".internal"}
	got := ProxyFromEnv(func(k string) string { return env[k] })
	if got != (Proxy{HTTPS: "http://a:3128", HTTP: "http://c:3128", NoProxy: ".internal"}) {
		t.Errorf("%+v", got)
	}
	for _, bad := range []Proxy{{HTTPS: "ftp://x:21"}, {HTTP: "http://"}, {HTTPS: "http://x:99999"}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if err := (Proxy{HTTPS: "proxy.internal:3128", HTTP: "socks5://p:1080"}).Check(); err != nil {
		t.Error(err)
	}
	for _, p := range []Proxy{{HTTPS: "http://u:pw@p:3128", NoProxy: "x"}, {HTTPS: "u:pw@p:3128"}, {HTTP: "u:pw@p:3128"}} {
		if s := p.String(); strings.Contains(s, "pw") || !strings.Contains(s, "u:REDACTED@p:3128") {
			t.Errorf("String() = %q", s)
		}
	}
	if err := (Proxy{HTTPS: "ftp://u:pw@p:21"}).Check(); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("Check() = %v", err)
	}
}

// startDNS answers A queries on loopback UDP from answers (name without the final dot)
// and NXDOMAIN for every other name or type; it stops with the test.
func startDNS(t *testing.T, answers map[string][]netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			addrs := answers[strings.TrimSuffix(q.Name.String(), ".")]
			rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true}
			if len(addrs) == 0 {
				rh.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, rh)
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			for _, a := range addrs {
				if q.Type == dnsmessage.TypeA && a.Is4() {
					b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: a.As4()})
				}
			}
			if msg, err := b.Finish(); err == nil {
				pc.WriteTo(msg, from)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

// TestProxyResolvesTargets: a target named by a host name is resolved here, through
// the policy's resolver, before the proxy is asked: a name with a public address goes
// through the proxy, a name with a private address (even one among public ones) or
// none is refused, and the proxy never hears of it.
func TestProxyResolvesTargets(t *testing.T) {
	t.Parallel()
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "smp") }))
	t.Cleanup(backend.Close)
	px := startProxy(t, backend.Listener.Addr().String())
	tlsCfg := backend.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsCfg.ServerName = "example.com"
	res := startDNS(t, map[string][]netip.Addr{
		"public.smp.test":  {netip.MustParseAddr("8.8.8.8")},
		"private.smp.test": {netip.MustParseAddr("10.1.2.3")},
		"mixed.smp.test":   {netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("192.168.1.1")},
	})
	client := NewHTTPClient(Policy{Proxy: Proxy{HTTPS: px.URL}, Resolver: res, TLS: tlsCfg, Timeout: 10 * time.Second})
	for _, tt := range []struct {
		host      string
		ok        bool
		forbidden bool
	}{
		{"public.smp.test", true, false},
		{"private.smp.test", false, true},
		{"mixed.smp.test", false, true},
		{"unknown.smp.test", false, false},
	} {
		c0 := px.connects.Load()
		resp, err := client.Get("https://" + tt.host + "/smp")
		if err == nil {
			resp.Body.Close()
		}
		connects := px.connects.Load() - c0
		switch {
		case tt.ok && (err != nil || connects != 1):
			t.Errorf("%s: err %v, %d CONNECTs; want through the proxy", tt.host, err, connects)
		case !tt.ok && (err == nil || connects != 0 || errors.Is(err, ErrForbiddenAddress) != tt.forbidden):
			t.Errorf("%s: err %v, %d CONNECTs; want refused (forbidden %v) before the proxy", tt.host, err, connects, tt.forbidden)
		}
	}
}
