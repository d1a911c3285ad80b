package lru

import (
	"slices"
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
