package httpx

import (
	"net/http"
	"testing"
	"time"
)

func TestCeilSeconds(t *testing.T) {
	for _, tt := range []struct {
		d           time.Duration
		ceil, retry int64 // CeilSeconds (d not negative), RetryAfterSeconds
	}{
		{-time.Hour, 0, 1},
		{-time.Nanosecond, 0, 1},
		{0, 0, 1},
		{time.Nanosecond, 1, 1},
		{999 * time.Millisecond, 1, 1},
		{time.Second, 1, 1},
		{time.Second + time.Nanosecond, 2, 2},
		{1200 * time.Millisecond, 2, 2},
		{2500 * time.Millisecond, 3, 3},
		{90 * time.Second, 90, 90},
		{24 * time.Hour, 86400, 86400},
	} {
		if tt.d >= 0 {
			if got := CeilSeconds(tt.d); got != tt.ceil {
				t.Errorf("CeilSeconds(%v) = %d, want %d", tt.d, got, tt.ceil)
			}
		}
		if got := RetryAfterSeconds(tt.d); got != tt.retry {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tt.d, got, tt.retry)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 9, 8, 12, 0, 0, 0, time.UTC)
	const def, limit = 2 * time.Second, 24 * time.Hour
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{"", def},
		{"   ", def},
		{"0", 0},
		{"2", 2 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"86400", limit},
		{"86401", limit},
		{"9999999999", limit},
		{"-5", def},
		{"1.5", def},
		{"+7", 7 * time.Second},
		{"99999999999999999999", def}, // beyond int64
		{"soon", def},
		{"next tuesday", def},
		{"Tue, 08 Sep 2026 12:00:45 GMT", 45 * time.Second},
		{"Tuesday, 08-Sep-26 12:01:00 GMT", time.Minute},
		{"Tue Sep  8 12:00:10 2026", 10 * time.Second},
		{now.Add(90 * time.Minute).Format(http.TimeFormat), 90 * time.Minute},
		{"Tue, 08 Sep 2026 11:00:00 GMT", 0},
		{"Tue, 08 Sep 2099 11:00:00 GMT", limit},
	} {
		if got := ParseRetryAfter(tt.in, now, def, limit); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
