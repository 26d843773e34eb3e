package server

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestListenerJSONErrors: a request net/http cannot read (a malformed request line,
// header or Host) is answered by net/http itself, before any handler, as text/plain;
// through Server.Listener it is the API's JSON error instead, with the reason, and it
// is logged. Requests it can read pass through unchanged (issue 26).
func TestListenerJSONErrors(t *testing.T) {
	t.Parallel()
	s, logs := newUncheckedServer(t, &fakeRegistry{}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(s.Listener(ln)) }()
	t.Cleanup(func() {
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	tests := []struct {
		name, raw  string
		status     int
		wantInBody string
	}{
		{"a header line without a colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n", 400, "malformed"},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "missing required Host header"},
		{"no HTTP at all", "HELLO\r\n\r\n", 400, "could not be read"},
		{"a bad Host", "GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n", 400, "malformed Host header"},
	}
	for _, tt := range tests {
		resp, body := rawWrite(t, ln.Addr().String(), tt.raw)
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &e) != nil ||
			e.Error.Code != "invalid_request" || !strings.Contains(e.Error.Message, tt.wantInBody) {
			t.Errorf("%s: %d %q %s", tt.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	// A request it can read is the server's to answer, unchanged.
	resp, body := rawWrite(t, ln.Addr().String(), "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("GET /healthz: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if got := logs.String(); strings.Count(got, `"msg":"request refused by net/http"`) != len(tests) || !strings.Contains(got, "missing required Host header") {
		t.Errorf("logs:\n%s", got)
	}
}

// rawWrite writes raw to addr and reads the answer, within 10 s.
func rawWrite(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}
