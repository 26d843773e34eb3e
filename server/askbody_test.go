package server

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
)

// TestAskBodyRefusals: what /ask refuses before it thinks, each with a message that
// says how to fix it and no-store (an answer to a POST says nothing about the next).
func TestAskBodyRefusals(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	for _, tc := range []struct {
		name, body string
		hdr        map[string]string
		status     int
		code       registry.Code
		says       string
	}{
		{"gzip", "\x1f\x8b\x08\x00", map[string]string{"Content-Encoding": "gzip"}, 415, CodeUnsupportedMediaType, "uncompressed"},
		{"lone surrogate", `{"query":"find \ud800 acme"}`, nil, 400, registry.CodeInvalidRequest, "lone UTF-16 surrogate"},
		{"lone low surrogate", `{"query":"find \udc00 acme"}`, nil, 400, registry.CodeInvalidRequest, "lone UTF-16 surrogate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+"/ask", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e errorBody
			decodeJSONBody(t, resp, &e)
			if resp.StatusCode != tc.status || e.Error.Code != tc.code || !strings.Contains(e.Error.Message, tc.says) {
				t.Errorf("%d %+v, want %d %s saying %q", resp.StatusCode, e, tc.status, tc.code, tc.says)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q on a refused POST", cc)
			}
		})
	}
	// A valid surrogate pair and a real U+FFFD are text like any other: not refused
	// (the fake registry behind the server answers nothing useful).
	for _, body := range []string{`{"query":"is \ud83d\ude00 acme on peppol"}`, `{"query":"is acme \ufffd on peppol"}`} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+"/ask", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 400 || resp.StatusCode == 415 {
			t.Errorf("%s: refused with %d", body, resp.StatusCode)
		}
	}
}

// TestAskRefusesHugeBodyBeforeContinue: a client announcing a 100 MB body with Expect:
// 100-continue gets the refusal at once, not "100 Continue".
func TestAskRefusesHugeBodyBeforeContinue(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, &fakeRegistry{}, nil)
	hs := httptest.NewServer(s)
	defer hs.Close()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(hs.URL, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\nExpect: 100-continue\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "HTTP/1.1 400") {
		t.Errorf("first answer line %q, want the 400 refusal", line)
	}
}

// decodeJSONBody decodes resp's body into v.
func decodeJSONBody(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("decoding the answer: %v", err)
	}
}
