package main

import (
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       time.Duration
		wantErr    bool
	}{
		{"plain", "3039 (cat) R 2976 2976 24320 0 -1 4194304 98 0 0 0 250 30 0 0 20 0 1 0 874252", 2800 * time.Millisecond, false},
		{"name with spaces and parentheses", "12 (a (b) c) S 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5", 100 * time.Millisecond, false},
		{"no name", "12 S 1 1", 0, true},
		{"short", "12 (x) S 1 1", 0, true},
		{"not a number", "12 (x) S 1 1 1 0 -1 0 0 0 0 0 x 3 0 0 20 0 1 0 5", 0, true},
	}
	for _, tt := range tests {
		got, err := parseProcStat([]byte(tt.line))
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: %v, %v; want %v, error %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestSplit(t *testing.T) {
	s := time.Second
	a := cpuSample{server: 10 * s, self: 5 * s, busy: 100 * s, total: 200 * s}
	b := cpuSample{server: 20 * s, self: 10 * s, busy: 130 * s, total: 220 * s}
	got := split(a, b, 10*s)
	want := cpuSplit{server: 1, generator: 0.5, other: 1.5, idle: -1, cores: got.cores}
	want.idle = 0 // busy 3 cores of a measured total of 2: no idle, never negative
	if got != want {
		t.Errorf("split = %+v, want %+v", got, want)
	}
}
