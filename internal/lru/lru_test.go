package lru

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCache: values leave least recently used first once their costs pass
// the limit, each evicted value is handed to evict once, a Get marks its
// key used and runs hold, and Add refuses a value costing more than the
// limit and a key already held.
func TestCache(t *testing.T) {
	var evicted []string
	c := New[string, string](10, func(v string) { evicted = append(evicted, v) })
	for _, k := range []string{"a", "b", "c"} {
		if !c.Add(k, k+"!", 3) {
			t.Fatalf("Add(%s) refused", k)
		}
	}
	var held []string
	if v, ok := c.Get("a", func(v string) { held = append(held, v) }); !ok || v != "a!" || !slices.Equal(held, []string{"a!"}) {
		t.Fatalf("Get(a) = %q, %v; hold saw %v", v, ok, held)
	}
	c.Add("d", "d!", 3) // 12 > 10: b, the least recently used, goes
	if !slices.Equal(evicted, []string{"b!"}) || c.Contains("b") || !c.Contains("a") || c.Used() != 9 {
		t.Fatalf("after d: evicted %v, used %d", evicted, c.Used())
	}
	if c.Add("a", "other", 1) || c.Add("e", "e!", 11) {
		t.Fatal("Add took a held key or a value past the limit")
	}
	if v, _ := c.Peek("a"); v != "a!" || c.Hits() != 1 {
		t.Fatalf("a is %q after a refused Add; %d hits", v, c.Hits())
	}
	if _, ok := c.Get("b", nil); ok || c.Hits() != 1 {
		t.Fatal("an evicted key was found")
	}
}

// TestCacheKeepsWhatIsUsed: a key hit between every two Adds outlives any
// number of keys added once and never hit again (insertion order alone
// would evict it), and the cost held never passes the limit.
func TestCacheKeepsWhatIsUsed(t *testing.T) {
	c := New[int, int](4, nil)
	c.Add(-1, -1, 1)
	for k := range 100 {
		if _, ok := c.Get(-1, nil); !ok {
			t.Fatalf("the hot key was evicted before cold key %d", k)
		}
		c.Add(k, k, 1)
		if c.Used() > 4 {
			t.Fatalf("%d held past the limit of 4", c.Used())
		}
	}
	if !c.Contains(99) || c.Contains(0) {
		t.Fatal("the newest cold key was evicted, or the oldest kept")
	}
}

// TestCacheConcurrent: Gets and Adds from several goroutines; hold never
// sees an evicted value, every added value is evicted at most once and is
// either evicted or the one held for its key at the end, and the cost held
// is the sum of the costs of the values held.
func TestCacheConcurrent(t *testing.T) {
	type val struct {
		key  int
		dead atomic.Bool
	}
	var mu sync.Mutex
	evicted := map[*val]int{}
	c := New[int, *val](50, func(v *val) {
		v.dead.Store(true)
		mu.Lock()
		evicted[v]++
		mu.Unlock()
	})
	var added sync.Map // *val → true
	var bad atomic.Int32
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := (i*7 + g*13) % 200
				if _, ok := c.Get(k, func(v *val) {
					if v.dead.Load() {
						bad.Add(1)
					}
				}); !ok {
					v := &val{key: k}
					if c.Add(k, v, int64(1+k%5)) {
						added.Store(v, true)
					}
				}
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("hold saw %d evicted values", bad.Load())
	}
	var held int64
	added.Range(func(k, _ any) bool {
		v := k.(*val)
		cur, ok := c.Peek(v.key)
		switch n := evicted[v]; {
		case n > 1:
			t.Errorf("a value of key %d evicted %d times", v.key, n)
		case n == 0 && (!ok || cur != v):
			t.Errorf("a value of key %d neither evicted nor held", v.key)
		case n == 1 && ok && cur == v:
			t.Errorf("a value of key %d evicted and still held", v.key)
		case n == 0:
			held += int64(1 + v.key%5)
		}
		return true
	})
	if held != c.Used() || held > 50 {
		t.Fatalf("holds %d by its values, Used says %d (limit 50)", held, c.Used())
	}
}

// TestSharded: keys spread over the shards, each bounded by its share of
// the limit; a value larger than a share is refused; Get, Contains, Used
// and Hits answer for the whole.
func TestSharded(t *testing.T) {
	var evicted atomic.Int32
	s := NewSharded[int, int](80, 8, func(int) { evicted.Add(1) })
	if s.Add(-1, -1, 11) {
		t.Fatal("a value past a shard's share was taken")
	}
	for k := range 200 {
		s.Add(k, k*k, 2)
	}
	held, found := 0, 0
	for k := range 200 {
		if s.Contains(k) {
			held++
			if v, ok := s.Get(k, nil); ok && v == k*k {
				found++
			}
		}
	}
	if held != found || int64(2*held) != s.Used() || s.Used() > 80 || s.Hits() != int64(found) {
		t.Fatalf("held %d, found %d, used %d, hits %d", held, found, s.Used(), s.Hits())
	}
	if held < 30 || int(evicted.Load()) != 200-held {
		t.Fatalf("held %d of 40 that fit, %d evicted", held, evicted.Load())
	}
	busy := 0
	for _, c := range s.shards {
		if c.Used() > 10 {
			t.Fatalf("a shard holds %d of its 10", c.Used())
		}
		if c.Used() > 0 {
			busy++
		}
	}
	if busy < 6 {
		t.Fatalf("keys in %d of 8 shards", busy)
	}
}
