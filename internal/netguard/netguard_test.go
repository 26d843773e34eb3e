package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"8.8.8.8", true},
		{"193.191.244.10", true},
		{"2a00:1450:4001:82b::200e", true},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::808:808", true},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false},
		{"10.0.0.1", false},
		{"172.16.5.4", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"::ffff:192.168.1.1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"169.254.169.254", false},
		{"fe80::1", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"100.128.0.1", true},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"ff02::1", false},
		{"ff05::2", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		{"255.255.255.255", false},
		{"198.18.0.1", false},
		{"2001:db8::1", false},
		{"64:ff9b::a00:1", false},         // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false},        // NAT64 of 127.0.0.1
		{"::ffff:0:7f00:1", false},        // IPv4-translated
		{"::ffff:100.64.0.1", false},      // mapped CGNAT
		{"::ffff:169.254.169.254", false}, // mapped link-local
		{"::ffff:10.0.0.1", false},        // mapped private
		{"::ffff:0.0.0.0", false},         // mapped unspecified
		{"::ffff:224.0.0.1", false},       // mapped multicast
		{"::127.0.0.1", false},            // IPv4-compatible (deprecated)
		{"::8.8.8.8", false},              // IPv4-compatible, even of a public address
		{"169.254.0.1", false},
		{"10.255.255.255", false},
		{"172.15.255.255", true},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"192.88.99.1", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"198.20.0.1", true},
		{"9.255.255.255", true},
		{"11.0.0.1", true},
		{"fe80::1%eth0", false},
		{"febf::1", false}, // still link-local
		{"fec0::1", false}, // site-local
		{"fe00::1", false}, // outside global unicast
		{"ff0e::1", false}, // global-scope multicast
		{"::2", false},
		{"100::1", false},             // discard-only
		{"2001::1", false},            // Teredo
		{"2001:2::1", false},          // benchmarking
		{"2001:12::1", false},         // ORCHID
		{"3fff::1", false},            // documentation
		{"4000::1", false},            // outside 2000::/3
		{"64:ff9b:1::a", false},       // local-use NAT64
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"2002:7f00:1::1", false},     // 6to4 of 127.0.0.1
		{"2002:a00:1::1", false},      // 6to4 of 10.0.0.1
		{"2002:808:808::1", true},     // 6to4 of 8.8.8.8
		{"2606:4700::1111", true},
		{"2001:4860:4860::8888", true},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		if got := Allowed(a); got != tt.want {
			t.Errorf("Allowed(%s) = %v, want %v", tt.addr, got, tt.want)
		}
	}
	if Allowed(netip.Addr{}) {
		t.Error("Allowed(zero Addr) = true, want false")
	}
}

func TestDialerControl(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	if _, err := Dialer(false).DialContext(ctx, "tcp", ln.Addr().String()); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("guarded dial to %s: err = %v, want ErrForbiddenAddress", ln.Addr(), err)
	}
	c, err := Dialer(true).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial with allowPrivate: %v", err)
	}
	c.Close()
}

func TestControl(t *testing.T) {
	exempt := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8443"), netip.MustParseAddrPort("[::1]:8443")}
	tests := []struct {
		address string
		ok      bool
	}{
		{"no-port", false},
		{"example.com:443", false}, // only resolved addresses are judged
		{"[::1]:443", false},
		{"10.1.2.3:80", false},
		{"8.8.8.8:443", true},
		{"[2001:4860:4860::8888]:443", true},
		{"127.0.0.1:8443", true},          // exempt
		{"[::ffff:127.0.0.1]:8443", true}, // exempt, mapped form
		{"[::1]:8443", true},              // exempt
		{"127.0.0.1:8444", false},         // exempt address, other port
		{"127.0.0.2:8443", false},         // exempt port, other address
		{"[fe80::1%lo]:8443", false},
	}
	for _, tt := range tests {
		err := control(exempt, tt.address)
		if tt.ok && err != nil {
			t.Errorf("control(%q) = %v, want nil", tt.address, err)
		}
		if !tt.ok && !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("control(%q) = %v, want ErrForbiddenAddress", tt.address, err)
		}
	}
}

func TestHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	tests := []struct {
		name         string
		allowPrivate bool
		url          string
		wantErr      error
		wantStatus   int
	}{
		{"plain http refused", false, srv.URL + "/", ErrPlainHTTP, 0},
		{"loopback https refused", false, "https://" + srv.Listener.Addr().String() + "/", ErrForbiddenAddress, 0},
		{"allowed when private", true, srv.URL + "/", nil, http.StatusOK},
		{"redirect not followed", true, srv.URL + "/moved", nil, http.StatusFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := HTTPClient(tt.allowPrivate, 5*time.Second)
			resp, err := c.Get(tt.url)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantStatus)
			}
		})
	}
}

func TestNewHTTPClient(t *testing.T) {
	var conns, requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := netip.MustParseAddrPort(srv.Listener.Addr().String())
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	exempt := []netip.AddrPort{addr}

	tests := []struct {
		name    string
		policy  Policy
		url     string
		wantErr error
	}{
		{"guarded loopback", Policy{}, srv.URL + "/", ErrForbiddenAddress},
		{"guarded name resolving to loopback", Policy{}, "http://localhost:" + port + "/", ErrForbiddenAddress},
		{"guarded IPv6 loopback", Policy{}, "http://[::1]:" + port + "/", ErrForbiddenAddress},
		{"guarded mapped loopback", Policy{}, "http://[::ffff:127.0.0.1]:" + port + "/", ErrForbiddenAddress},
		{"https only refuses http", Policy{AllowPrivate: true, HTTPSOnly: true}, srv.URL + "/", ErrPlainHTTP},
		{"https only refuses http to an exempt address", Policy{HTTPSOnly: true, Exempt: exempt}, srv.URL + "/", ErrPlainHTTP},
		{"exempt address and port", Policy{Exempt: exempt}, srv.URL + "/", nil},
		{"private allowed", Policy{AllowPrivate: true}, srv.URL + "/", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conns.Store(0)
			requests.Store(0)
			tt.policy.Timeout = 5 * time.Second
			resp, err := NewHTTPClient(tt.policy).Get(tt.url)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				// Refused before a connection was opened: the server saw nothing.
				if c, r := conns.Load(), requests.Load(); c != 0 || r != 0 {
					t.Errorf("the server saw %d connections and %d requests, want none", c, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || requests.Load() != 1 {
				t.Errorf("status %d, %d requests; want 200 and 1", resp.StatusCode, requests.Load())
			}
		})
	}
}
