package clock

import (
	"sync"
	"testing"
	"time"
)

func TestFake(t *testing.T) {
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		advances []time.Duration
		want     time.Time
	}{
		{"still", nil, start},
		{"one step", []time.Duration{time.Hour}, start.Add(time.Hour)},
		{"steps add up", []time.Duration{time.Second, 2 * time.Minute, 3 * time.Hour}, start.Add(3*time.Hour + 2*time.Minute + time.Second)},
		{"backward", []time.Duration{time.Hour, -2 * time.Hour}, start.Add(-time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := NewFake(start)
			for _, d := range tt.advances {
				c.Advance(d)
			}
			if got := c.Now(); !got.Equal(tt.want) {
				t.Errorf("Now() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFakeConcurrent(t *testing.T) {
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	c := NewFake(start)
	now := c.Now // the method value is what the code under test holds
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Millisecond)
				_ = now()
			}
		})
	}
	wg.Wait()
	if got, want := c.Now(), start.Add(800*time.Millisecond); !got.Equal(want) {
		t.Errorf("Now() = %v, want %v", got, want)
	}
}
