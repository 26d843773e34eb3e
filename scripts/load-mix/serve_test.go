package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeStack runs the in-stack target as `load-mix -serve` runs it: the listening
// line on stderr, commands on stdin, answers on stdout, and a clean end with stdin.
func TestServeStack(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	logR, logW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := serveStack(t.Context(), inR, outW, logW)
		outW.Close()
		logW.Close()
		done <- err
	}()
	logs := bufio.NewScanner(logR)
	var addr string
	for addr == "" && logs.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(logs.Bytes(), &rec) == nil && rec.Msg == "listening" {
			addr = rec.Addr
		}
	}
	if addr == "" {
		t.Fatalf("no listening line: %v", <-done)
	}
	go io.Copy(io.Discard, logR) // access logs

	c := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) int {
		t.Helper()
		resp, err := c.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	answers := bufio.NewReader(outR)
	send := func(cmd string) string {
		t.Helper()
		if _, err := io.WriteString(inW, cmd+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := answers.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(line)
	}
	// 0208:0677424046 (netsim.KnownBelgian) is served by SMP host 0.
	search := "/api/v1/search?q=Vandelanotte"
	tests := []struct {
		name, cmd, want string
		path            string
		status          int
	}{
		{"healthy", "", "", "/api/v1/participant/0208:0677424046", 200},
		{"SMP host 0 fails", "fault smp 0 500", "ok", "/api/v1/participant/9925:be0677424046", 502},
		{"Directory fails", "fault directory 500 0", "ok", search, 502},
		{"cleared", "clear", "ok", search, 200},
		// Last: the registry then leaves the Directory alone for the Retry-After.
		{"Directory rate-limits", "fault directory 429 2", "ok", "/api/v1/search?q=Dupont", 502},
		{"bad command", "fault smp x 500", "error: ", "", 0},
		{"unknown command", "reboot", "error: unknown command", "", 0},
	}
	for _, tt := range tests {
		if tt.cmd != "" {
			if got := send(tt.cmd); !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s: %q answered %q, want %q…", tt.name, tt.cmd, got, tt.want)
			}
		}
		if tt.path != "" {
			if got := get(tt.path); got != tt.status {
				t.Errorf("%s: %s answered %d, want %d", tt.name, tt.path, got, tt.status)
			}
		}
	}
	var hits struct{ Directory struct{ Search int64 } }
	if err := json.Unmarshal([]byte(send("hits")), &hits); err != nil || hits.Directory.Search == 0 {
		t.Errorf("hits: %+v, %v; want Directory searches counted", hits, err)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("serveStack after stdin ended: %v", err)
	}
}
