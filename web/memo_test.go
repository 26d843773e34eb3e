package web

import (
	"testing"

	"github.com/peppolgate/peppolgate/registry"
)

// TestMemo: a page is kept per key, and the memo never holds more than memoPages.
func TestMemo(t *testing.T) {
	t.Parallel()
	var m memo
	part := &registry.Participant{}
	k := memoKey{part: part, res: &registry.ServicesResult{}, id: "0088:5400000000034"}
	if _, ok := m.get(k); ok {
		t.Fatal("an empty memo has a page")
	}
	m.put(k, []byte("page"))
	if b, ok := m.get(k); !ok || string(b) != "page" {
		t.Fatalf("get = %q, %v", b, ok)
	}
	other := k
	other.network = "test"
	if _, ok := m.get(other); ok {
		t.Error("another network's key has the page")
	}
	for range 3 * memoPages {
		m.put(memoKey{part: part, res: &registry.ServicesResult{}}, []byte("x"))
		if len(m.pages) > memoPages {
			t.Fatalf("%d pages kept, at most %d", len(m.pages), memoPages)
		}
	}
}
