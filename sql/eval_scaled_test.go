package sql

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"strings"
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

// TestNumericTextKernels: unconstrained numeric values (text at their own
// scales, as sum() gives them) read by the kernels — compared with a
// constant, and inside + - * — answer as the general evaluator does,
// including values past 18 digits and NULL, which the kernels hand back
// to it.
func TestNumericTextKernels(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(18))
	sc := &Scope{Columns: []ScopeColumn{{Table: "t", Name: "x", T: Numeric(0, 0), FieldID: 1}, {Table: "t", Name: "a", T: Numeric(15, 2), FieldID: 2}}}
	vals := []string{"0", "-0.5", "12.50", "300", "300.000", "299.99", "-7", "1234567890123456.78", "123456789012345678901", "0.000001", ""}
	rows := make([][]any, 400)
	for i := range rows {
		v := vals[rng.Intn(len(vals))]
		if v == "" || rng.Intn(5) == 0 {
			v = fmt.Sprintf("%d.%0*d", rng.Intn(2000)-1000, rng.Intn(4)+1, rng.Intn(10))
		}
		var x any = v
		if rng.Intn(9) == 0 {
			x = nil
		}
		rows[i] = []any{x, fmt.Sprintf("%d.%02d", rng.Intn(1000), rng.Intn(100))}
	}
	batch := buildBatch(t, sc, rows)
	defer batch.Release()
	for _, src := range []string{"x > 300", "x = 300", "x <= -0.5", "x <> 12.5", "300 < x", "x >= 0.0000005", "x < 99999999999999999999"} {
		e := mustBind(t, src, sc)
		ev := newEvaluator(ctx, batch, nil)
		got, ok := ev.matchFast(e)
		want, err := newEvaluator(ctx, batch, nil).matchGeneral(e)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if !ok && src != "x < 99999999999999999999" {
			t.Fatalf("%s: no fast path", src)
		}
		if ok && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: fast %v\ngeneral %v", src, got, want)
		}
	}
	for _, src := range []string{"(x * 2)", "(0.5 * x)", "(x + a)", "(a - x)", "(x * a)"} {
		e := mustBind(t, src, sc)
		want, err := newEvaluator(ctx, batch, nil).eval(e, allRows(int(batch.NumRows())))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		// The batch holds values past 64 bits: the kernel declines it;
		// without them it must answer.
		if _, ok := EvalScaled(ctx, e, batch); ok {
			t.Fatalf("%s: the kernel took a batch with values past 64 bits", src)
		}
		var keep []int
		for i, r := range rows {
			if s, _ := r[0].(string); s != "123456789012345678901" && s != "1234567890123456.78" {
				keep = append(keep, i)
			}
		}
		sub := make([][]any, len(keep))
		for k, i := range keep {
			sub[k] = rows[i]
		}
		small := buildBatch(t, sc, sub)
		arr, ok := EvalScaled(ctx, e, small)
		if !ok {
			t.Fatalf("%s: the kernel declined values that fit", src)
		}
		dec := arr.(*array.Decimal128)
		scale := int(dec.DataType().(interface{ GetScale() int32 }).GetScale())
		for k, i := range keep {
			w := want[i]
			if w == nil {
				if dec.IsValid(k) {
					t.Fatalf("%s row %d: want NULL", src, k)
				}
				continue
			}
			got := DecimalFromNum128(dec.Value(k), scale)
			if got.Cmp(w.(Decimal)) != 0 {
				t.Fatalf("%s row %d (%v): kernel %s, general %s", src, k, rows[i][0], got, w)
			}
		}
		small.Release()
		arr.Release()
	}
	for _, s := range vals[:10] {
		v, scale, ok := ParseScaled(s)
		d, dok := ParseDecimal(s)
		if ok != (dok && d.Coef.IsInt64() && len(strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(s), "")) <= 18) {
			t.Fatalf("ParseScaled(%q) ok=%v", s, ok)
		}
		if ok && (v != d.Coef.Int64() || scale != d.Scale) {
			t.Fatalf("ParseScaled(%q) = %d, %d; ParseDecimal %s", s, v, scale, d)
		}
	}
}

// TestDivByCount: avg's integer division gives Div's quotient and scale
// (PostgreSQL's select_div_scale, rounding half away from zero), or
// declines.
func TestDivByCount(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	taken := 0
	for n := 0; n < 50000; n++ {
		v := rng.Int63() >> uint(rng.Intn(63))
		if rng.Intn(2) == 0 {
			v = -v
		}
		scale := rng.Intn(8)
		count := rng.Int63()>>uint(rng.Intn(63)) + 1
		q, qs, ok := DivByCount(v, scale, count)
		if !ok {
			continue
		}
		taken++
		want := Decimal{Coef: big.NewInt(v), Scale: scale}.Div(DecimalFromInt(count))
		if got := (Decimal{Coef: big.NewInt(q), Scale: qs}); got.String() != want.String() {
			t.Fatalf("%d·10^-%d / %d: %s, Div %s", v, scale, count, got, want)
		}
	}
	if taken < 10000 {
		t.Fatalf("only %d of 50000 divisions took the integer path", taken)
	}
}
