package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codelistDir is the peppol/codelist directory, seen from this package's directory.
const codelistDir = "../.."

// TestGeneratedFilesAreUpToDate regenerates the tables in memory and fails when a
// committed file differs: after a change to testdata/upstream, overlay.json or the
// generator, run go generate ./peppol/codelist.
func TestGeneratedFilesAreUpToDate(t *testing.T) {
	files, err := generate(codelistDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Errorf("generated %d files, want 5", len(files))
	}
	for _, f := range files {
		committed, err := os.ReadFile(filepath.Join(codelistDir, f.Path))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./peppol/codelist)", f.Path, err)
			continue
		}
		if !bytes.Equal(committed, f.Data) {
			t.Errorf("%s differs from what the generator writes; run go generate ./peppol/codelist (first differing line: %s)", f.Path, firstDiff(committed, f.Data))
		}
		if !bytes.HasPrefix(f.Data, []byte("// Code generated ")) || !bytes.Contains(f.Data, []byte("DO NOT EDIT.\n")) {
			t.Errorf("%s lacks the generated-code header", f.Path)
		}
	}
}

// firstDiff returns the first line where a and b differ, as "line N: a | b".
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: %q | %q", i+1, x, y)
		}
	}
	return "none"
}

// TestGenerateRejects: the generator stops, naming the problem, when the lists and the
// overlay disagree, rather than writing a table that silently lacks a decision.
func TestGenerateRejects(t *testing.T) {
	overlay, err := os.ReadFile(filepath.Join(codelistDir, overlayFile))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		file    string // relative to the codelist directory
		old     string // replaced once by new
		new     string
		wantErr string
	}{
		{"process without a name", overlayFile,
			`{"scheme": "cenbii-procid-ubl", "value": "none", "name": "No process (legacy VCD and Catalogue Template)"},`, "",
			"process cenbii-procid-ubl::none has no name"},
		{"name for a process the list lacks", overlayFile,
			`{"scheme": "cenbii-procid-ubl", "value": "none",`, `{"scheme": "cenbii-procid-ubl", "value": "gone", "name": "Gone"}, {"scheme": "cenbii-procid-ubl", "value": "none",`,
			"names processes the list does not have: [cenbii-procid-ubl::gone]"},
		{"transport profile without a name", overlayFile,
			`{"id": "peppol-transport-as4-v2_0", "name": "Peppol AS4 profile 2.0"},`, "",
			"transport profile peppol-transport-as4-v2_0 has no name"},
		{"RegEx RE2 misreads, rewrite removed", overlayFile,
			`"icd": "9912"`, `"icd": "9999"`,
			`scheme 9912: RegEx "[A-Z]{2}[A-Z0-9]{,20}" has "{,"`},
		{"two RegEx lines, rewrite removed", overlayFile,
			`{"icd": "9907", "pattern"`, `{"icd": "9999", "pattern"`,
			"scheme 9907 has 2 RegEx lines"},
		{"successor not in the list", overlayFile,
			`"replaced-by": "0216"`, `"replaced-by": "0000"`,
			"successor 0000 of 0037"},
		{"reason missing", overlayFile,
			`"why": "the code list's usage note: \"Use 0208 instead\""`, `"why": ""`,
			"successor of 0193 given twice, empty or without a reason"},
		{"unknown overlay field", overlayFile,
			`"about":`, `"abuot":`,
			"unknown field"},
		{"lists of different releases", filepath.Join(upstreamDir, processesFile),
			`"version":"9.7"`, `"version":"9.8"`,
			"the lists must be of one release"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, upstreamDir), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{docTypesFile, processesFile, schemesFile, transportsFile} {
				copyFile(t, filepath.Join(codelistDir, upstreamDir, name), filepath.Join(dir, upstreamDir, name))
			}
			if err := os.WriteFile(filepath.Join(dir, overlayFile), overlay, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := generate(dir); err != nil {
				t.Fatalf("unchanged inputs: %v", err)
			}
			p := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(tt.old)) {
				t.Fatalf("%s does not contain %s; has the file changed?", tt.file, tt.old)
			}
			if err := os.WriteFile(p, bytes.Replace(b, []byte(tt.old), []byte(tt.new), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = generate(dir)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("generate: %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// copyFile copies the file at from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
