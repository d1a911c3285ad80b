package lake

import (
	"math/rand/v2"
	"testing"
)

// TestCoalesce: on random ranges, the merged ones are sorted, inside the
// file, cover every requested byte, are at least coalesceGap apart, and
// start and end on requested bytes (no byte beyond what a merge needs).
func TestCoalesce(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		size := int64(1 + rnd.IntN(8<<20))
		var in []ByteRange
		for range rnd.IntN(12) {
			in = append(in, ByteRange{Off: rnd.Int64N(size + 1000), Len: rnd.Int64N(1 << 20)})
		}
		out := coalesce(in, size)
		for i, r := range out {
			if r.Off < 0 || r.Len <= 0 || r.Off+r.Len > size {
				t.Fatalf("round %d: %v outside a file of %d bytes", round, r, size)
			}
			if i > 0 && r.Off-(out[i-1].Off+out[i-1].Len) < coalesceGap {
				t.Fatalf("round %d: %v and %v should have merged", round, out[i-1], r)
			}
			if !startsAndEndsOnRequested(r, in, size) {
				t.Fatalf("round %d: %v begins or ends outside every request %v", round, r, in)
			}
		}
		for _, r := range in {
			for _, b := range []int64{r.Off, r.Off + r.Len - 1} {
				if r.Len > 0 && b < size && !covered(out, b) {
					t.Fatalf("round %d: byte %d of %v not fetched by %v", round, b, r, out)
				}
			}
		}
	}
}

func covered(rs []ByteRange, b int64) bool {
	for _, r := range rs {
		if b >= r.Off && b < r.Off+r.Len {
			return true
		}
	}
	return false
}

func startsAndEndsOnRequested(r ByteRange, in []ByteRange, size int64) bool {
	clipped := func(q ByteRange) ByteRange { return ByteRange{q.Off, min(q.Len, size-q.Off)} }
	starts, ends := false, false
	for _, q := range in {
		if q.Len <= 0 || q.Off >= size {
			continue
		}
		q = clipped(q)
		starts = starts || q.Off == r.Off
		ends = ends || q.Off+q.Len == r.Off+r.Len
	}
	return starts && ends
}
