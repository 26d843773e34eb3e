package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/peppolgate/peppolgate/netsim"
)

// TestCheckNXDOMAINNotFromZone is the binary's side of a DNS server that answers
// NXDOMAIN for every name (a captive portal, a typo'd -dns-server): `peppolgate check`
// makes every row failed and retryable, and exits 1, instead of a list of
// not_registered rows and exit 0. With the SML zone's own NXDOMAIN the same
// unregistered rows are not_registered, exit 0.
func TestCheckNXDOMAINNotFromZone(t *testing.T) {
	t.Parallel()
	sim, err := netsim.Start(t.Context(), netsim.Generate(netsim.DatasetConfig{Seed: 7, Participants: 50}), netsim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	in := writeFile(t, "ledger.txt", "id\n0208:0000000097\n0088:0000000000017\n9925:be0000000097\n")
	check := func(t *testing.T) (int, []map[string]any, string) {
		out := filepath.Join(t.TempDir(), "checked.jsonl")
		code, _, stderr := runCheck(t, nil, "-network", "production", "-dns-server", sim.DNSAddr(), "-directory-url", sim.DirectoryURL(),
			"-allow-private-smp", in, "-o", out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("exit %d, no output: %v\n%s", code, err, stderr)
		}
		var rows []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if _, ok := m["status"]; ok {
				rows = append(rows, m)
			}
		}
		return code, rows, stderr
	}

	t.Run("the zone's NXDOMAIN", func(t *testing.T) {
		code, rows, stderr := check(t)
		if code != 0 || len(rows) != 3 {
			t.Fatalf("exit %d, %d rows, want 0 and 3\n%s", code, len(rows), stderr)
		}
		for i, r := range rows {
			if r["status"] != "not_registered" {
				t.Errorf("row %d: %v, want not_registered", i, r)
			}
		}
	})

	for _, fault := range []netsim.DNSFault{netsim.DNSNXDomain, netsim.DNSNXDomainForeignSOA} {
		t.Run(map[netsim.DNSFault]string{netsim.DNSNXDomain: "NXDOMAIN for every name", netsim.DNSNXDomainForeignSOA: "NXDOMAIN with another zone's SOA"}[fault], func(t *testing.T) {
			sim.SetFault(netsim.DNSTarget(), netsim.Fault{DNS: fault})
			defer sim.ClearFaults()
			code, rows, stderr := check(t)
			if code != 1 || len(rows) != 3 || !strings.Contains(stderr, "3 failed") {
				t.Fatalf("exit %d, %d rows, want 1 (rows failed) and 3\n%s", code, len(rows), stderr)
			}
			for i, r := range rows {
				e, _ := r["error"].(map[string]any)
				if r["status"] != "failed" || e == nil || e["code"] != "lookup_failed" || e["retryable"] != true ||
					!strings.Contains(e["message"].(string), "does not come from the SML zone") {
					t.Errorf("row %d: %v, want failed, lookup_failed, retryable", i, r)
				}
			}
		})
	}
}
