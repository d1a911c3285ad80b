package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIntHeadsLikeAMap: put and get agree with a Go map over random keys
// (clustered, spread, negative, the int64 extremes, repeats), through every
// growth.
func TestIntHeadsLikeAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, spread := range []int64{50, 1 << 20, math.MaxInt64} {
		h, model := newIntHeads(), map[int64]int32{}
		key := func() int64 {
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
		for row := int32(0); row < 20000; row++ {
			k := key()
			prev, had := h.put(k, row)
			mp, mhad := model[k]
			if had != mhad || had && prev != mp {
				t.Fatalf("spread %d: put(%d, %d) gave %d %v, want %d %v", spread, k, row, prev, had, mp, mhad)
			}
			model[k] = row
			probe := key()
			got, ok := h.get(probe)
			want, wok := model[probe]
			if ok != wok || ok && got != want {
				t.Fatalf("spread %d: get(%d) = %d %v, want %d %v", spread, probe, got, ok, want, wok)
			}
		}
		if h.n != len(model) || 2*h.n > len(h.slots) {
			t.Fatalf("spread %d: %d keys in %d slots, want %d keys at most half full", spread, h.n, len(h.slots), len(model))
		}
	}
}
