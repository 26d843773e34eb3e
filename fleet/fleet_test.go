package fleet_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/fleet"
	"github.com/peppolgate/peppolgate/fleet/redistest"
	"github.com/redis/go-redis/v9"
)

func TestOpenRefusesBadURLsWithoutTheirPassword(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"", "empty"},
		{"http://h:6379", "scheme"},
		{"redis://user:s3cret@h:6379/notanumber", "not usable"},
		{"redis://user:s3cret@[::1", "cannot be parsed"},
	} {
		_, err := fleet.Open(fleet.Options{URL: tc.url})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) = %v, want an error saying %q", tc.url, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Open(%q) error quotes the password: %v", tc.url, err)
		}
	}
	if _, err := fleet.Open(fleet.Options{URL: "redis://h:1", Prefix: "a b"}); err == nil {
		t.Error("a prefix with a space was accepted")
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"rediss://u:pw@h:6380/2": "rediss://u:REDACTED@h:6380/2",
		"u:pw@h:6379":            "u:REDACTED@h:6379", // no scheme: url.Parse alone takes u for one
		"redis://u:p%zz@h":       "redis://REDACTED",
	} {
		if got := fleet.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNilFleetIsOff(t *testing.T) {
	var f *fleet.Fleet
	if err := f.Do(context.Background(), "x", nil); !errors.Is(err, fleet.ErrOff) {
		t.Errorf("nil Do = %v, want ErrOff", err)
	}
	if f.Up() {
		t.Error("nil fleet is up")
	}
	f.Close()
}

func TestKeysAreNamespacedAndHashed(t *testing.T) {
	f, err := fleet.Open(fleet.Options{URL: "redis://127.0.0.1:1/0", Prefix: "dep-a", OpTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k := f.Key("rl", "rest", fleet.Hash("10.0.0.1\r\nFLUSHALL"))
	if !strings.HasPrefix(k, "dep-a:rl:rest:") || strings.ContainsAny(k, " \r\n") || len(k) != len("dep-a:rl:rest:")+22 {
		t.Errorf("Key = %q", k)
	}
}

// TestDownAndBack: a real redis-server killed mid-run marks the fleet down at the
// first failed operation (later ones fail at once), and restarted it is used again.
func TestDownAndBack(t *testing.T) {
	srv := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: srv.URL(0), OpTimeout: 2 * time.Second, ProbeEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	set := func() error {
		return f.Do(ctx, "set", func(ctx context.Context, c *redis.Client) error { return c.Set(ctx, f.Key("t"), "1", 0).Err() })
	}
	if err := set(); err != nil || !f.Up() {
		t.Fatalf("set on a live Redis: %v (up %v)", err, f.Up())
	}
	srv.Kill()
	if err := set(); !errors.Is(err, fleet.ErrDown) {
		t.Fatalf("set on a killed Redis = %v, want ErrDown", err)
	}
	start := time.Now()
	if err := set(); !errors.Is(err, fleet.ErrDown) || time.Since(start) > 10*time.Millisecond {
		t.Fatalf("set while down = %v after %v, want ErrDown at once", err, time.Since(start))
	}
	st := f.Status()
	if st.Up || st.LastError == "" || st.Downs != 1 || st.Skipped == 0 {
		t.Errorf("Status while down = %+v", st)
	}
	srv.Restart(t)
	deadline := time.Now().Add(5 * time.Second)
	for !f.Up() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := set(); err != nil {
		t.Fatalf("set after restart: %v", err)
	}
}

func TestUnixSocket(t *testing.T) {
	srv := redistest.Start(t)
	f, err := fleet.Open(fleet.Options{URL: "unix://" + srv.SocketPath()})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = f.Do(context.Background(), "ping", func(ctx context.Context, c *redis.Client) error { return c.Ping(ctx).Err() })
	if err != nil {
		t.Fatalf("ping over the unix socket: %v", err)
	}
}

// TestAllowIsOneLimitForEveryReplica: three Fleets (three replicas) on one Redis
// asking the same key share its burst and rate.
func TestAllowIsOneLimitForEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	var fs []*fleet.Fleet
	for range 3 {
		f, err := fleet.Open(fleet.Options{URL: srv.URL(0), Prefix: "t"})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fs = append(fs, f)
	}
	key := fs[0].Key("rl", "x")
	allowed := 0
	var last fleet.Decision
	for i := range 30 {
		d, err := fs[i%3].Allow(context.Background(), key, 1, 10, 1)
		if err != nil {
			t.Fatal(err)
		}
		if d.Allowed {
			allowed++
		} else {
			last = d
		}
	}
	if allowed != 10 {
		t.Errorf("allowed %d of 30 at once with burst 10, want 10", allowed)
	}
	if last.RetryAfter <= 0 || last.RetryAfter > time.Second || last.Remaining != 0 {
		t.Errorf("a refused request's decision = %+v, want a retry within 1 s and nothing remaining", last)
	}
	time.Sleep(1100 * time.Millisecond)
	if d, err := fs[1].Allow(context.Background(), key, 1, 10, 1); err != nil || !d.Allowed {
		t.Errorf("after one second at 1/s: %+v, %v; want allowed", d, err)
	}
}
