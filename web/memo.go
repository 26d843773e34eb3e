package web

import (
	"sync"

	"github.com/peppolgate/peppolgate/registry"
)

// memoPages bounds the participant pages memo keeps: about 25 KB each, 6 MB at most.
const memoPages = 256

// memoKey names one rendered participant page: the registry's cached answers it was
// rendered from (the same pointers while they stay cached; a fresh answer is a new
// pointer, so a new page), the participant id the page shows (normalised) and the
// network parameter its links carry, as the request wrote it.
type memoKey struct {
	part        *registry.Participant
	res         *registry.ServicesResult
	id, network string
}

// memo keeps rendered participant pages, so that a participant whose answers are
// cached is served without running the template again (html/template's reflection
// costs about as much as the whole JSON answer). It is safe for concurrent use.
type memo struct {
	mu    sync.Mutex
	pages map[memoKey][]byte
}

// get returns the page rendered for k, if it is kept.
func (m *memo) get(k memoKey) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.pages[k]
	return b, ok
}

// put keeps page for k. When memoPages are kept, they are all dropped first: the
// answers they were rendered from expire within the registry's TTL anyway, and the
// pages in use are rendered again on their next request.
func (m *memo) put(k memoKey, page []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pages == nil || len(m.pages) >= memoPages {
		m.pages = make(map[memoKey][]byte, memoPages)
	}
	m.pages[k] = page
}
