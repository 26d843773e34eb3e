package peppolnet

import (
	"container/list"
	"sync"
	"time"
)

// cacheEntry is one cached answer: a value, or the error that is the answer (such as
// not_found), fetched at a time and fresh for ttl.
type cacheEntry[V any] struct {
	val     V
	err     error
	fetched time.Time
	ttl     time.Duration
}

// cache is a bounded least-recently-used map. Entries stay after their ttl so that
// they can be served stale when upstream fails; the least recently used entry is
// dropped when the cache is full.
type cache[V any] struct {
	max int

	mu    sync.Mutex
	items map[string]*list.Element
	order *list.List // front: most recently used
}

type cacheItem[V any] struct {
	key   string
	entry cacheEntry[V]
}

func newCache[V any](max int) *cache[V] {
	return &cache[V]{max: max, items: make(map[string]*list.Element), order: list.New()}
}

// get returns the entry under key and whether there is one.
func (c *cache[V]) get(key string) (cacheEntry[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return cacheEntry[V]{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem[V]).entry, true
}

// put stores e under key, evicting the least recently used entry when full.
func (c *cache[V]) put(key string, e cacheEntry[V]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*cacheItem[V]).entry = e
		c.order.MoveToFront(el)
		return
	}
	for c.order.Len() >= c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheItem[V]).key)
	}
	c.items[key] = c.order.PushFront(&cacheItem[V]{key: key, entry: e})
}

// take returns the entry under key and removes it.
func (c *cache[V]) take(key string) (cacheEntry[V], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return cacheEntry[V]{}, false
	}
	c.order.Remove(el)
	delete(c.items, key)
	return el.Value.(*cacheItem[V]).entry, true
}

// len returns the number of entries.
func (c *cache[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
