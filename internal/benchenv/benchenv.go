// Package benchenv describes the machine a benchmark runs on, for the reports of the
// commands in scripts/: the load, the CPU, the commit measured.
package benchenv

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
)

// LoadAvg is the 1-minute load average, "" when unknown.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// CPUModel is the CPU's model name from /proc/cpuinfo, "" when unknown.
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// GitCommit describes the HEAD of the repository at repo ("" for the working
// directory's), "" when unknown; git is given 10 seconds.
func GitCommit(ctx context.Context, repo string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := []string{"describe", "--always", "--dirty"}
	if repo != "" {
		args = append([]string{"-C", repo}, args...)
	}
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
