package sql

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestInSetBitmap checks integer IN lists looked up by bitmap (dense
// lists) and by hash (wide ones) against plain membership, with probes
// below, inside and above the list's range and at the int64 extremes.
func TestInSetBitmap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	bitmaps := 0
	for trial := range 500 {
		s := &inSet{}
		want := map[int64]bool{}
		base := rng.Int64N(1<<40) - 1<<39
		span := []int64{20, 1000, inBitmapMaxBits - 1, inBitmapMaxBits, 1 << 40}[trial%5]
		for range hashInMin + rng.IntN(40) {
			v := base + rng.Int64N(span)
			s.add(v)
			want[v] = true
		}
		s.bitmap()
		if s.bits != nil {
			bitmaps++
		}
		probes := []int64{math.MinInt64, math.MaxInt64, base - 1, base + span, base - 64, base + span + 64}
		for range 200 {
			probes = append(probes, base+rng.Int64N(span+128)-64)
		}
		for v := range want {
			probes = append(probes, v)
		}
		for _, v := range probes {
			if got := s.hasInt(v); got != want[v] {
				t.Fatalf("trial %d (bitmap %v): %d in the list: got %v, want %v", trial, s.bits != nil, v, got, want[v])
			}
		}
	}
	if bitmaps == 0 || bitmaps == 500 {
		t.Fatalf("%d of 500 lists got a bitmap: both kinds of lookup should be checked", bitmaps)
	}
}
