package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
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

func TestControlBadAddress(t *testing.T) {
	for _, a := range []string{"no-port", "example.com:443", "[::1]:443", "10.1.2.3:80"} {
		if err := control("tcp", a, nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("control(%q) = %v, want ErrForbiddenAddress", a, err)
		}
	}
	if err := control("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("control(8.8.8.8:443) = %v, want nil", err)
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
