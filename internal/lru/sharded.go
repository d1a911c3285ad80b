package lru

import "hash/maphash"

// Sharded is n Caches, each holding an nth of the cost, a key in the one
// its hash picks: a miss's Add then locks out only the Gets of its shard.
// On a contended server the FileCache's Adds, one per new small file or
// deletion vector after every commit, made the other sessions' Gets wait
// for the write lock and then for the scheduler.
type Sharded[K comparable, V any] struct {
	seed   maphash.Seed
	shards []*Cache[K, V]
}

// NewSharded holds values up to limit in total cost in n shards of
// limit/n each (n < 1 counts as 1): a value costing more than limit/n is
// refused. evict is as New's.
func NewSharded[K comparable, V any](limit int64, n int, evict func(V)) *Sharded[K, V] {
	n = max(n, 1)
	s := &Sharded[K, V]{seed: maphash.MakeSeed(), shards: make([]*Cache[K, V], n)}
	for i := range s.shards {
		s.shards[i] = New[K](limit/int64(n), evict)
	}
	return s
}

func (s *Sharded[K, V]) shard(key K) *Cache[K, V] {
	if len(s.shards) == 1 {
		return s.shards[0]
	}
	return s.shards[maphash.Comparable(s.seed, key)%uint64(len(s.shards))]
}

// Get is Cache.Get on key's shard.
func (s *Sharded[K, V]) Get(key K, hold func(V)) (V, bool) { return s.shard(key).Get(key, hold) }

// Add is Cache.Add on key's shard.
func (s *Sharded[K, V]) Add(key K, val V, cost int64) bool {
	return s.shard(key).Add(key, val, cost)
}

// Contains is Cache.Contains on key's shard.
func (s *Sharded[K, V]) Contains(key K) bool { return s.shard(key).Contains(key) }

// Used is the total cost held.
func (s *Sharded[K, V]) Used() int64 {
	var n int64
	for _, c := range s.shards {
		n += c.Used()
	}
	return n
}

// Hits counts the Gets that found their key.
func (s *Sharded[K, V]) Hits() int64 {
	var n int64
	for _, c := range s.shards {
		n += c.Hits()
	}
	return n
}
