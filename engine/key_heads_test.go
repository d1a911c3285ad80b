package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKeyHeadsLikeAMap: put and get agree with a Go map over random keys
// (clustered, spread, negative, the int64 extremes, repeats; single and
// paired, with pairs that differ by order), through every growth.
func TestKeyHeadsLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, spread := range []int64{50, 1 << 20, math.MaxInt64} {
		one := func() int64 {
			switch rng.IntN(20) {
			case 0:
				return math.MinInt64
			case 1:
				return math.MaxInt64
			case 2:
				return 0
			}
			return rng.Int64N(spread) - spread/2
		}
		checkHeads(t, newKeyHeads[intKey](), func() intKey { return intKey(one()) })
		checkHeads(t, newKeyHeads[pairKey](), func() pairKey {
			if rng.IntN(4) == 0 {
				a := one()
				return pairKey{a, a}
			}
			return pairKey{one(), one()}
		})
	}
}

func checkHeads[K headKey](t *testing.T, h *keyHeads[K], key func() K) {
	t.Helper()
	model := map[K]int32{}
	for row := int32(0); row < 20000; row++ {
		k := key()
		prev, had := h.put(k, row)
		mp, mhad := model[k]
		if had != mhad || had && prev != mp {
			t.Fatalf("put(%v, %d) gave %d %v, want %d %v", k, row, prev, had, mp, mhad)
		}
		model[k] = row
		probe := key()
		got, ok := h.get(probe)
		want, wok := model[probe]
		if ok != wok || ok && got != want {
			t.Fatalf("get(%v) = %d %v, want %d %v", probe, got, ok, want, wok)
		}
	}
	if h.n != len(model) || 2*h.n > len(h.slots) {
		t.Fatalf("%d keys in %d slots, want %d keys at most half full", h.n, len(h.slots), len(model))
	}
}
