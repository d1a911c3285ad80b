package sql

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// scaledTestScope holds numeric columns of several scales (c's values
// reach past 64 bits at scale 10) and integers up to bigint's range.
func scaledTestScope() *Scope {
	cols := []struct {
		name string
		t    Type
	}{{"a", Numeric(15, 2)}, {"c", Numeric(38, 10)}, {"d", Numeric(5, 0)}, {"x", Int16}, {"y", Int32}, {"z", Int64}}
	sc := &Scope{}
	for k, c := range cols {
		sc.Columns = append(sc.Columns, ScopeColumn{Table: "t", Name: c.name, T: c.t, FieldID: k + 1})
	}
	return sc
}

func scaledTestRows(rng *rand.Rand, n int) [][]any {
	num := func(s string) any { d, _ := ParseDecimal(s); return d }
	pick := func(vals ...any) any { return vals[rng.Intn(len(vals))] }
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{
			pick(nil, num("0.05"), num("-1.00"), num(fmt.Sprintf("%d.%02d", rng.Intn(100000)-50000, rng.Intn(100))), num("9999999999999.99")),
			pick(nil, num("1.0000000001"), num("-0.5"), num(fmt.Sprintf("%d.%010d", rng.Intn(1000), rng.Intn(1e9))), num("123456789012345678.9")),
			pick(nil, num("0"), num("99999"), num(fmt.Sprint(rng.Intn(2000)-1000))),
			pick(nil, int64(-32768), int64(rng.Intn(200)-100)),
			pick(nil, int64(2147483647), int64(rng.Intn(2000)-1000)),
			pick(nil, int64(-9223372036854775808), int64(9223372036854775807), int64(rng.Intn(1e6))),
		}
	}
	return rows
}

// scaledExpr is a random tree of + - * and unary minus over the columns,
// numeric and integer constants and casts to numeric.
func scaledExpr(rng *rand.Rand, depth int) string {
	if depth == 0 || rng.Intn(4) == 0 {
		leaves := []string{"a", "c", "d", "x", "y", "z", "1", "0.05", "-3", "1.005", "100", "__cast(NULL, 'numeric')",
			"__cast(y, 'numeric')", "__cast(a, 'numeric')", "9223372036854775807"}
		return leaves[rng.Intn(len(leaves))]
	}
	if rng.Intn(8) == 0 {
		return "(-" + scaledExpr(rng, depth-1) + ")"
	}
	op := []string{"+", "-", "*"}[rng.Intn(3)]
	return "(" + scaledExpr(rng, depth-1) + " " + op + " " + scaledExpr(rng, depth-1) + ")"
}

// TestEvalScaledMatchesGeneralEvaluator: the scaled-integer kernel gives
// the general (big.Int) evaluator's values and display scales, as
// decimal128 and as numeric text, and declines what would overflow
// rather than answer wrong.
func TestEvalScaledMatchesGeneralEvaluator(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(52))
	sc := scaledTestScope()
	batch := buildBatch(t, sc, scaledTestRows(rng, 300))
	defer batch.Release()
	var taken, declined int
	for n := 0; n < 3000; n++ {
		src := scaledExpr(rng, 1+rng.Intn(4))
		e, err := bindExpr(t, src, sc, nil)
		if err != nil || !scaledRoot(e) {
			continue
		}
		ev := newEvaluator(ctx, batch, nil)
		want, werr := ev.eval(e, allRows(ev.n))
		arr, ok := EvalScaled(ctx, e, batch)
		if !ok {
			declined++
			continue
		}
		taken++
		if werr != nil {
			t.Fatalf("%s: the kernel answered where the general path failed: %v", src, werr)
		}
		dec := arr.(*array.Decimal128)
		text, err := Eval(ctx, e, batch, nil)
		if err != nil {
			t.Fatalf("%s: Eval: %v", src, err)
		}
		for i, w := range want {
			if w == nil {
				if dec.IsValid(i) || text.IsValid(i) {
					t.Fatalf("%s row %d: want NULL, kernel gave a value", src, i)
				}
				continue
			}
			wd := w.(Decimal)
			got := DecimalFromNum128(dec.Value(i), int(dec.DataType().(interface{ GetScale() int32 }).GetScale()))
			if got.String() != wd.String() {
				t.Fatalf("%s row %d: kernel %s, general evaluator %s", src, i, got, wd)
			}
			if gt := text.(*NumericArray).Text(i); gt != wd.String() {
				t.Fatalf("%s row %d: kernel text %q, general evaluator %q", src, i, gt, wd)
			}
		}
		arr.Release()
		text.Release()
	}
	// Both paths must have been exercised for the comparison to mean anything.
	if taken < 300 || declined < 50 {
		t.Fatalf("kernel took %d expressions and declined %d; the generator no longer covers both", taken, declined)
	}
	t.Logf("kernel took %d expressions, declined %d", taken, declined)
}

// TestAppendScaled: the text of a scaled integer is Decimal.String's.
func TestAppendScaled(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 20000; n++ {
		v := rng.Int63() >> uint(rng.Intn(63))
		if rng.Intn(2) == 0 {
			v = -v
		}
		scale := rng.Intn(25)
		want := Decimal{Coef: big.NewInt(v), Scale: scale}.String()
		if got := string(AppendScaled(nil, v, scale)); got != want {
			t.Fatalf("AppendScaled(%d, %d) = %q, want %q", v, scale, got, want)
		}
	}
}
