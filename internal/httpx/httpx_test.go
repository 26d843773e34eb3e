package httpx

import (
	"testing"
	"time"
)

func TestCeilSeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 0},
		{time.Nanosecond, 1},
		{999 * time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{1200 * time.Millisecond, 2},
		{90 * time.Second, 90},
		{24 * time.Hour, 86400},
	} {
		if got := CeilSeconds(tt.d); got != tt.want {
			t.Errorf("CeilSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{
		{-time.Hour, 1},
		{-time.Nanosecond, 1},
		{0, 1},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{2500 * time.Millisecond, 3},
		{30 * time.Second, 30},
		{24 * time.Hour, 86400},
	} {
		if got := RetryAfterSeconds(tt.d); got != tt.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
