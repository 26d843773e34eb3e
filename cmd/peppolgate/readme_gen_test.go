package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/registry"
	"github.com/peppolgate/peppolgate/server"
	"github.com/peppolgate/peppolgate/tools"
)

var updateREADME = flag.Bool("update", false, "rewrite the README's generated tables from the code")

// readmeTables are the README's tables made from the code, by name: the error table
// (server.ErrorDocs), the MCP tools (tools.All), the flags of serve (newFlagSet) and
// the warning codes (registry.WarningDocs).
// In the README each sits between "<!-- BEGIN GENERATED name -->" and
// "<!-- END GENERATED name -->".
func readmeTables() map[string]string {
	var errs strings.Builder
	errs.WriteString("| code | status | when | what to do |\n|---|---|---|---|\n")
	for _, e := range server.ErrorDocs() {
		fmt.Fprintf(&errs, "| `%s` | %d | %s | %s |\n", e.Code, e.Status, mdCell(e.When), mdCell(e.Action))
	}

	var tls strings.Builder
	tls.WriteString("| tool | arguments | what it does |\n|---|---|---|\n")
	for _, t := range tools.All() {
		var args []string
		names := make([]string, 0, len(t.Input.Properties))
		for n := range t.Input.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if slices.Contains(t.Input.Required, n) {
				args = append(args, "`"+n+"`")
			}
		}
		for _, n := range names {
			if !slices.Contains(t.Input.Required, n) {
				args = append(args, "optional `"+n+"`")
			}
		}
		first, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(&tls, "| `%s` | %s | %s |\n", t.Name, strings.Join(args, ", "), mdCell(first))
	}

	var flags strings.Builder
	flags.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
	var v flagValues
	newFlagSet(&v, cmdServe).VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		def := "none"
		switch d, err := time.ParseDuration(f.DefValue); {
		case f.DefValue == "" && strings.Contains(usage, "default"):
			def = "see meaning" // a default that depends on other flags, spelled in the usage
		case err == nil && d == 0:
			def = "`0`"
		case err == nil:
			def = "`" + shortDuration(d) + "`"
		case f.DefValue != "":
			def = "`" + f.DefValue + "`"
		}
		fmt.Fprintf(&flags, "| `-%s` | `%s` | %s | %s |\n", f.Name, envName(f.Name), def, mdCell(usage))
	})
	var warns strings.Builder
	warns.WriteString("| warning | means |\n|---|---|\n")
	for _, w := range registry.WarningDocs() {
		fmt.Fprintf(&warns, "| `%s` | %s |\n", w.Code, mdCell(w.Meaning))
	}
	return map[string]string{"errors": errs.String(), "tools": tls.String(), "flags": flags.String(), "warnings": warns.String()}
}

// shortDuration writes d as a flag is set: "15m", "720h", "20s", not "15m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

// mdCell makes s safe in a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// TestREADMEGenerated fails when a generated table of the README differs from what the
// code makes of it; -update rewrites them.
func TestREADMEGenerated(t *testing.T) {
	// Not parallel: with -update it writes the README other tests read.
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	out := readme
	for name, table := range readmeTables() {
		begin, end := "<!-- BEGIN GENERATED "+name+" -->\n", "<!-- END GENERATED "+name+" -->"
		i := strings.Index(out, begin)
		j := strings.Index(out, end)
		if i < 0 || j < i {
			t.Errorf("the README has no %q … %q section", strings.TrimSpace(begin), end)
			continue
		}
		out = out[:i+len(begin)] + table + out[j:]
	}
	if out == readme {
		return
	}
	if *updateREADME {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the README's generated tables differ from the code; run go test ./cmd/peppolgate -run TestREADMEGenerated -update and review the diff")
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{15 * time.Minute: "15m", 720 * time.Hour: "720h", 20 * time.Second: "20s",
		90 * time.Second: "1m30s", 72 * time.Hour: "72h", time.Hour + time.Minute: "1h1m"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
