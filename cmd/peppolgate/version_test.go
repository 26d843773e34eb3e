package main

import (
	"bytes"
	"regexp"
	"runtime"
	"testing"
)

// TestVersionFlag runs -version and the version command: one line on stdout naming
// the version, the revision, the Go version and the platform, exit 0.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	want := regexp.MustCompile(`^peppolgate \S+ \(\S+, ` + regexp.QuoteMeta(runtime.Version()) + `, ` + regexp.QuoteMeta(runtime.GOOS+"/"+runtime.GOARCH) + `\)\n$`)
	for _, args := range [][]string{{"-version"}, {"--version"}, {"version"}} {
		var stdout, stderr bytes.Buffer
		p := program{stdout: &stdout, stderr: &stderr, getenv: envMap(nil)}
		if code := p.run(t.Context(), args); code != 0 || !want.MatchString(stdout.String()) || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %v", args, code, stdout.String(), stderr.String(), want)
		}
	}
}
