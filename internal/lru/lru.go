// Package lru is a cache of values by key bounded by their total cost,
// least recently used out: what the engine keeps of files that never
// change once written (data files' decoded columns, deletion vectors,
// manifests' entries).
package lru

import (
	"container/list"
	"sync"
)

// Cache is safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	limit int64 // total cost held at most
	used  int64
	order *list.List // of *entry, most recently used first
	items map[K]*list.Element
	evict func(V) // called for each value that leaves; nil: none
	hits  int64
}

type entry[K comparable, V any] struct {
	key  K
	val  V
	cost int64
}

// New holds values up to limit in total cost; evict (nil: none) is called
// for a value when it leaves the cache, under its lock.
func New[K comparable, V any](limit int64, evict func(V)) *Cache[K, V] {
	return &Cache[K, V]{limit: limit, order: list.New(), items: map[K]*list.Element{}, evict: evict}
}

// Get returns key's value and marks it most recently used. hold (nil:
// none) runs on the value before the lock is released, so that a value
// needing a reference (Arrow batches) cannot be evicted before it has one.
func (c *Cache[K, V]) Get(key K, hold func(V)) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	c.hits++
	e := el.Value.(*entry[K, V])
	if hold != nil {
		hold(e.val)
	}
	return e.val, true
}

// Add keeps val under key at cost, evicting the least recently used
// values past the limit. It reports false, keeping nothing, when the cost
// alone passes the limit or key is held already (read meanwhile by
// another caller); the caller then still owns val.
func (c *Cache[K, V]) Add(key K, val V, cost int64) bool {
	if cost > c.limit {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[key]; ok {
		return false
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, val: val, cost: cost})
	c.used += cost
	for c.used > c.limit {
		last := c.order.Back()
		old := last.Value.(*entry[K, V])
		c.order.Remove(last)
		delete(c.items, old.key)
		c.used -= old.cost
		if c.evict != nil {
			c.evict(old.val)
		}
	}
	return true
}

// Contains reports whether key is held, without marking it used.
func (c *Cache[K, V]) Contains(key K) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

// Peek is key's value without marking it used.
func (c *Cache[K, V]) Peek(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		return el.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

// Used is the total cost held.
func (c *Cache[K, V]) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// Hits counts the Gets that found their key.
func (c *Cache[K, V]) Hits() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}
