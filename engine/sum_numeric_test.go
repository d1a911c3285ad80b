package engine

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// TestSumComputedNumericsAgainstRats: sum over a computed numeric column
// (unconstrained, kept as text) equals exact rational sums, per group,
// with values of different scales in one group and values past 18 digits
// (the path without the int64 shortcut), in any order.
func TestSumComputedNumericsAgainstRats(t *testing.T) {
	const n = 3000
	q := fmt.Sprintf(`SELECT g %% 4, sum(CASE WHEN g %% 3 = 0 THEN g * 1.5 WHEN g %% 3 = 1 THEN g * -0.001
		ELSE g * 123456789012.345678 END) FROM generate_series(1, %d) AS x(g) GROUP BY 1`, n)
	model := map[int64]*big.Rat{}
	for g := int64(1); g <= n; g++ {
		var v *big.Rat
		switch g % 3 {
		case 0:
			v = new(big.Rat).SetFrac64(3*g, 2)
		case 1:
			v = new(big.Rat).SetFrac64(-g, 1000)
		default:
			v, _ = new(big.Rat).SetString("123456789012.345678")
			v.Mul(v, new(big.Rat).SetInt64(g))
		}
		if model[g%4] == nil {
			model[g%4] = new(big.Rat)
		}
		model[g%4].Add(model[g%4], v)
	}
	ctx := context.Background()
	got := sortedTextRows(t, ctx, openSorted(t, ctx, q, 0, 256, t.TempDir()))
	if len(got) != len(model) {
		t.Fatalf("%d groups, want %d: %v", len(got), len(model), got)
	}
	for _, row := range got {
		f := strings.Fields(strings.ReplaceAll(row, "|", " "))
		var k int64
		fmt.Sscan(f[0], &k)
		sum, ok := new(big.Rat).SetString(f[len(f)-1])
		if !ok || model[k] == nil || sum.Cmp(model[k]) != 0 {
			t.Errorf("group %d: sum %s, want %s", k, f[len(f)-1], model[k].FloatString(6))
		}
		if !strings.HasSuffix(f[len(f)-1], fmt.Sprintf(".%s", strings.Split(model[k].FloatString(6), ".")[1])) {
			t.Errorf("group %d: sum %s, want it at scale 6", k, f[len(f)-1])
		}
	}
}
