package peppolnet

import (
	"errors"
	"testing"
	"time"

	"github.com/peppolgate/peppolgate/netsim"
	"github.com/peppolgate/peppolgate/registry"
)

// TestDirectoryRetryAfterHonoured: after the Directory answers 429 with Retry-After,
// no request goes to it until the delay has passed; callers get search_failed with
// the remaining delay at once.
func TestDirectoryRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	n := startNet(t, 50)
	l, _ := newLive(t, n, nil)
	n.SetFault(netsim.DirectoryTarget(), netsim.Fault{HTTPStatus: 429, RetryAfter: "30"})
	_, _, err := l.Search(t.Context(), registry.SearchQuery{Q: "acme"})
	var e *registry.Error
	if registry.ErrorCode(err) != registry.CodeSearchFailed || !asError(err, &e) || e.RetryAfter != 30*time.Second {
		t.Fatalf("first search: %v", err)
	}
	n.ClearFaults()
	before := n.Hits().Directory.Search
	_, _, err = l.Search(t.Context(), registry.SearchQuery{Q: "globex"})
	if registry.ErrorCode(err) != registry.CodeSearchFailed || !asError(err, &e) || e.RetryAfter <= 0 || e.RetryAfter > 30*time.Second {
		t.Fatalf("search during the pause: %v", err)
	}
	if got := n.Hits().Directory.Search; got != before {
		t.Errorf("%d Directory requests during the pause, want none", got-before)
	}
}

func TestPause(t *testing.T) {
	t.Parallel()
	var p pause
	now := time.Unix(1000, 0)
	if p.remaining(now) != 0 {
		t.Error("a new pause is not over")
	}
	p.extend(now, 10*time.Second)
	p.extend(now, 2*time.Second) // never shortened
	if got := p.remaining(now.Add(3 * time.Second)); got != 7*time.Second {
		t.Errorf("remaining %v, want 7s", got)
	}
	if got := p.remaining(now.Add(11 * time.Second)); got != 0 {
		t.Errorf("remaining after the end %v", got)
	}
}

func asError(err error, target **registry.Error) bool {
	return errors.As(err, target)
}
