package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc's CPU times (USER_HZ, 100 on every Linux build that
// matters; Go has no sysconf without cgo).
const userHZ = 100

// cpuSample is CPU time used so far: by the server process, by this process, and by
// the whole machine (busy and total, all cores).
type cpuSample struct {
	server, self, busy, total time.Duration
}

// readCPU reads the CPU times of process pid, this process and the machine from /proc.
// It returns an error where /proc is missing (not Linux).
func readCPU(pid int) (cpuSample, error) {
	var s cpuSample
	var err1, err2, err3 error
	s.server, err1 = procCPU(strconv.Itoa(pid))
	s.self, err2 = procCPU("self")
	s.busy, s.total, err3 = machineCPU()
	return s, errors.Join(err1, err2, err3)
}

// procCPU returns utime+stime of /proc/<which>/stat.
func procCPU(which string) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + which + "/stat")
	if err != nil {
		return 0, err
	}
	d, err := parseProcStat(b)
	if err != nil {
		return 0, fmt.Errorf("/proc/%s/stat: %w", which, err)
	}
	return d, nil
}

// parseProcStat returns utime+stime of a /proc/<pid>/stat line.
func parseProcStat(b []byte) (time.Duration, error) {
	// The command name may hold spaces and parentheses; the fields after the last ')'
	// start at field 3 (state), so utime (14) and stime (15) are the 12th and 13th.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no ')'")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return ticks(u + st), nil
}

// machineCPU returns the busy and total CPU time of all cores from /proc/stat.
func machineCPU() (busy, total time.Duration, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0, errors.New("/proc/stat: no cpu line")
	}
	// user nice system idle iowait irq softirq steal (guest time is inside user).
	var v [8]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	idle := v[3] + v[4]
	all := v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
	return ticks(all - idle), ticks(all), nil
}

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }

// cpuSplit is the CPU used between two samples, in cores (CPU seconds per second).
type cpuSplit struct {
	server, generator, other, idle float64
	cores                          int
}

// split returns the CPU used from a to b over wall time d.
func split(a, b cpuSample, d time.Duration) cpuSplit {
	cores := func(x time.Duration) float64 { return x.Seconds() / d.Seconds() }
	s := cpuSplit{
		server:    cores(b.server - a.server),
		generator: cores(b.self - a.self),
		cores:     runtime.NumCPU(),
	}
	busy, total := cores(b.busy-a.busy), cores(b.total-a.total)
	s.other = max(busy-s.server-s.generator, 0)
	s.idle = max(total-busy, 0)
	return s
}
