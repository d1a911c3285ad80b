// Package lru is a cache of values by key bounded by their total cost,
// the least recently used out, approximately: what the engine keeps of
// files that never change once written (data files' decoded columns,
// deletion vectors, manifests' entries).
package lru

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// Cache is safe for concurrent use. It evicts by the clock (second
// chance) approximation of least recently used: a hit only sets its
// entry's referenced bit, under a read lock, and eviction sweeps a hand
// over the entries in insertion order, sparing (and clearing) the
// referenced ones. A strict LRU moves the entry on every hit, under an
// exclusive lock: with eight sessions each replaying two hundred cached
// files per statement that lock was contended enough for Go's mutex to
// hand it over waiter by waiter, each waiting for the scheduler.
type Cache[K comparable, V any] struct {
	mu    sync.RWMutex
	limit int64 // total cost held at most
	used  int64
	order *list.List    // of *entry, in insertion order
	hand  *list.Element // the next entry eviction looks at; nil: the front
	items map[K]*list.Element
	evict func(V) // called for each value that leaves; nil: none
	hits  atomic.Int64
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	cost int64
	used atomic.Bool // hit since the hand last passed
}

// New holds values up to limit in total cost; evict (nil: none) is called
// for a value when it leaves the cache, under its lock.
func New[K comparable, V any](limit int64, evict func(V)) *Cache[K, V] {
	return &Cache[K, V]{limit: limit, order: list.New(), items: map[K]*list.Element{}, evict: evict}
}

// Get returns key's value and marks it used. hold (nil: none) runs on the
// value before the lock is released, so that a value needing a reference
// (Arrow batches) cannot be evicted before it has one; it may run
// concurrently with other Gets' holds.
func (c *Cache[K, V]) Get(key K, hold func(V)) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !e.used.Load() { // a store only when it changes: hits on one entry share its cache line
		e.used.Store(true)
	}
	c.hits.Add(1)
	if hold != nil {
		hold(e.val)
	}
	return e.val, true
}

// Add keeps val under key at cost, evicting values past the limit. It
// reports false, keeping nothing, when the cost alone passes the limit or
// key is held already (read meanwhile by another caller); the caller then
// still owns val.
func (c *Cache[K, V]) Add(key K, val V, cost int64) bool {
	if cost > c.limit {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return false
	}
	e := &entry[K, V]{key: key, val: val, cost: cost}
	if c.hand == nil {
		c.items[key] = c.order.PushBack(e)
	} else { // just behind the hand: the last the sweep reaches
		c.items[key] = c.order.InsertBefore(e, c.hand)
	}
	c.used += cost
	for c.used > c.limit {
		c.evictOne()
	}
	return true
}

// evictOne moves the hand on to the first entry not used since it last
// passed, clearing the marks it passes, and evicts that entry. It ends
// within two rounds: the first clears every mark.
func (c *Cache[K, V]) evictOne() {
	for {
		if c.hand == nil {
			c.hand = c.order.Front()
		}
		el := c.hand
		c.hand = el.Next()
		e := el.Value.(*entry[K, V])
		if e.used.Load() {
			e.used.Store(false)
			continue
		}
		c.order.Remove(el)
		delete(c.items, e.key)
		c.used -= e.cost
		if c.evict != nil {
			c.evict(e.val)
		}
		return
	}
}

// Contains reports whether key is held, without marking it used.
func (c *Cache[K, V]) Contains(key K) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.items[key]
	return ok
}

// Peek is key's value without marking it used.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if el, ok := c.items[key]; ok {
		return el.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

// Used is the total cost held.
func (c *Cache[K, V]) Used() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.used
}

// Hits counts the Gets that found their key.
func (c *Cache[K, V]) Hits() int64 { return c.hits.Load() }
