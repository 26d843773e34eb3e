//go:build unix

package export

import "syscall"

// cpuSeconds is the user and system CPU time of this process so far. Benchmarks report
// throughput per CPU second too, because wall time on a shared machine is noisy.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
