package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
)

// TestServeShutdownDuringCheck: serve, stopped (SIGTERM) while a POST /api/v1/check
// waits for a hung SMP, ends the check at once with a last line naming the row not
// checked (retryable), and exits 0 within its drain.
func TestServeShutdownDuringCheck(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	belgian := ds.MustLookup(netsim.KnownBelgian)
	n.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Hang: true})
	var fast string
	for _, p := range ds.Participants {
		if p.InSML && !p.SMPNotFound && p.RedirectHost == -1 && p.SMPHost != belgian.SMPHost {
			fast = p.ID.String()
			break
		}
	}
	if fast == "" {
		t.Fatal("the dataset has no participant on another SMP host")
	}
	base, stop, done, stderr := launchServe(t, &syncBuffer{}, "-network", "production", "-networks", "production", "-addr", "127.0.0.1:0",
		"-dns-server", n.DNSAddr(), "-directory-url", n.DirectoryURL(), "-allow-private-smp")
	defer stop()

	rest := checkThenStop(t, base, fast, stop) // row 1 waits for its hung SMP
	var last struct {
		Summary struct {
			Rows int `json:"rows"`
		} `json:"summary"`
		NotChecked *struct {
			Rows      int    `json:"rows"`
			Indexes   string `json:"indexes"`
			Reason    string `json:"reason"`
			Retryable bool   `json:"retryable"`
		} `json:"notChecked"`
	}
	if err := json.Unmarshal(rest, &last); err != nil {
		t.Fatalf("the last line %q: %v", rest, err)
	}
	if u := last.NotChecked; last.Summary.Rows != 1 || u == nil || u.Rows != 1 || u.Indexes != "1" || u.Reason != "shutting_down" || !u.Retryable {
		t.Errorf("the last line %s, want row 1 not checked for shutting_down", rest)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0: %s", code, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop within 60s of SIGTERM with a check running")
	}
}

// TestServeDrainDelayLetsCheckFinish: with -drain-delay, a check running when SIGTERM
// comes has the delay to finish: its slow row (an SMP answering after 2 s) is answered,
// no row is named not checked, and serve exits 0.
func TestServeDrainDelayLetsCheckFinish(t *testing.T) {
	t.Parallel()
	ds := netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 400})
	n, err := netsim.Start(t.Context(), ds, netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	belgian := ds.MustLookup(netsim.KnownBelgian)
	n.SetFault(netsim.SMPHostTarget(belgian.SMPHost), netsim.Fault{Latency: 2 * time.Second})
	var fast string
	for _, p := range ds.Participants {
		if p.InSML && !p.SMPNotFound && p.RedirectHost == -1 && p.SMPHost != belgian.SMPHost {
			fast = p.ID.String()
			break
		}
	}
	if fast == "" {
		t.Fatal("the dataset has no participant on another SMP host")
	}
	base, stop, done, stderr := launchServe(t, &syncBuffer{}, "-network", "production", "-networks", "production", "-addr", "127.0.0.1:0",
		"-dns-server", n.DNSAddr(), "-directory-url", n.DirectoryURL(), "-allow-private-smp", "-drain-delay", "30s")
	defer stop()

	rest := checkThenStop(t, base, fast, stop) // row 1 waits for its slow SMP
	lines := strings.Split(strings.TrimSpace(string(rest)), "\n")
	var last struct {
		Summary struct {
			Rows   int            `json:"rows"`
			Counts map[string]int `json:"counts"`
		} `json:"summary"`
		NotChecked json.RawMessage `json:"notChecked"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("the last line %q: %v", rest, err)
	}
	if last.Summary.Rows != 2 || last.Summary.Counts["failed"] != 0 || last.NotChecked != nil || len(lines) != 2 || !strings.Contains(lines[0], `"index":1,`) {
		t.Errorf("the rest of the answer %s, want row 1 answered within the drain delay and no row not checked", rest)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0: %s", code, stderr.String())
		}
	case <-time.After(90 * time.Second):
		t.Fatal("serve did not stop within 90s of SIGTERM (drain delay 30s)")
	}
}

// checkThenStop posts a check of fast and netsim.KnownBelgian (in that order) to the
// server at base, reads the first row's line, then calls stop (SIGTERM) while the second
// row is still being looked up, and returns the rest of the answer.
func checkThenStop(t *testing.T, base, fast string, stop func()) []byte {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/api/v1/check", strings.NewReader(`"`+fast+`"`+"\n"+`"`+netsim.KnownBelgian+`"`+"\n"))
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("check: %d", resp.StatusCode)
	}
	br := bufio.NewReader(resp.Body)
	first, err := br.ReadString('\n')
	if err != nil || !strings.Contains(first, `"index":0,`) {
		t.Fatalf("first line %q: %v", first, err)
	}
	stop()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("the rest of the answer: %v", err)
	}
	return rest
}
