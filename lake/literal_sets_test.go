package lake

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/iceberg-go"
)

// TestSortedLiteralsMatchEachLiteral checks the binary search of an IN
// list against judging every literal on its own (the definition), for
// random integer and string sets and bounds, exact, truncated and unknown.
func TestSortedLiteralsMatchEachLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	words := []string{"", "a", "ab", "abc", "b", "ba", "bz", "c", "ca", "z"}
	for trial := range 4000 {
		var lits []iceberg.Literal
		var cs colStats
		n := rng.IntN(12)
		if trial%2 == 0 {
			for range n {
				lits = append(lits, iceberg.Int64Literal(rng.Int64N(40)-20))
			}
			lo := rng.Int64N(44) - 22
			cs = colStats{typ: iceberg.PrimitiveTypes.Int64, rows: 10, nulls: 0, noNaN: true,
				lo: iceberg.Int64Literal(lo), hi: iceberg.Int64Literal(lo + rng.Int64N(10))}
		} else {
			for range n {
				lits = append(lits, iceberg.StringLiteral(words[rng.IntN(len(words))]))
			}
			a, b := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
			cs = colStats{typ: iceberg.PrimitiveTypes.String, rows: 10, nulls: 0, noNaN: true,
				lo: iceberg.StringLiteral(min(a, b)), hi: iceberg.StringLiteral(max(a, b)), hiPrefix: rng.IntN(3) == 0}
		}
		if rng.IntN(8) == 0 {
			cs.lo = nil
		}
		want := false
		for _, l := range lits {
			if !cs.belowLo(l) && !cs.aboveHi(l, false) {
				want = true
			}
		}
		if got := newSortedLiterals(lits).anyWithin(cs); got != want {
			t.Fatalf("IN %v within [%v, %v] (prefix %v): got %v, want %v", lits, cs.lo, cs.hi, cs.hiPrefix, got, want)
		}
	}
}
