package engine

import (
	"context"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/sql"
)

// boolAcc is bool_and / every (and) and bool_or: NULLs are skipped, a group
// with no non-NULL input is NULL.
type boolAcc struct {
	and  bool
	seen []bool
	val  []bool
}

func (b *boolAcc) update(g int, arr arrow.Array, i int) error {
	b.seen, b.val = grow(b.seen, g), grow(b.val, g)
	if arr.IsNull(i) {
		return nil
	}
	v := arr.(*array.Boolean).Value(i)
	switch {
	case !b.seen[g]:
		b.val[g] = v
	case b.and:
		b.val[g] = b.val[g] && v
	default:
		b.val[g] = b.val[g] || v
	}
	b.seen[g] = true
	return nil
}

func (b *boolAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	b.seen, b.val = grow(b.seen, n-1), grow(b.val, n-1)
	for g := 0; g < n; g++ {
		if !b.seen[g] {
			bb.AppendNull()
			continue
		}
		bb.Append(b.val[g])
	}
	return bb.NewArray(), nil
}

// stringAggAcc is string_agg(value, delimiter): each non-NULL value after a
// group's first is preceded by its own row's delimiter (NULL as empty).
type stringAggAcc struct {
	sep   arrow.Array // the delimiter column of the batch being folded
	seen  []bool
	parts []*strings.Builder
	mem   *memBudget // grows by the text kept
}

func (s *stringAggAcc) setSep(sep arrow.Array) { s.sep = sep }

func (s *stringAggAcc) update(g int, arr arrow.Array, i int) error {
	s.seen = grow(s.seen, g)
	for len(s.parts) <= g {
		s.parts = append(s.parts, &strings.Builder{})
	}
	if arr.IsNull(i) {
		return nil
	}
	// The binder made both arguments text, which Arrow holds as strings.
	var sep string
	if s.seen[g] && s.sep != nil && !s.sep.IsNull(i) {
		sep = s.sep.(*array.String).Value(i)
	}
	v := arr.(*array.String).Value(i)
	if err := s.mem.grow(int64(len(sep)+len(v)), "string_agg()"); err != nil {
		return err
	}
	s.parts[g].WriteString(sep)
	s.parts[g].WriteString(v)
	s.seen[g] = true
	return nil
}

func (s *stringAggAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	s.seen = grow(s.seen, n-1)
	for g := 0; g < n; g++ {
		if !s.seen[g] {
			b.AppendNull()
			continue
		}
		b.Append(s.parts[g].String())
	}
	return b.NewArray(), nil
}

// varianceAcc is stddev_samp/stddev_pop/var_samp/var_pop. Float input
// follows PostgreSQL's float8_accum (Youngs-Cramer), so results agree to the
// last bit; integer and numeric input is summed exactly and divided at
// PostgreSQL's division scale, as numeric_stddev_internal does.
type varianceAcc struct {
	sample, sqrt bool
	isFloat      bool
	out          sql.Type
	n            []int64
	fx, fxx      []float64
	sx, sxx      exactSums
}

func newVarianceAcc(a aggSpec, out sql.Type) *varianceAcc {
	return &varianceAcc{sample: strings.HasSuffix(a.Func, "_samp"), sqrt: strings.HasPrefix(a.Func, "stddev"),
		out: out, isFloat: inputIsFloat(a.Input)}
}

func (v *varianceAcc) update(g int, arr arrow.Array, i int) error {
	v.n = grow(v.n, g)
	if arr.IsNull(i) {
		return nil
	}
	if v.isFloat {
		v.fx, v.fxx = grow(v.fx, g), grow(v.fxx, g)
		var x float64
		switch a := arr.(type) {
		case *array.Float32:
			x = float64(a.Value(i))
		case *array.Float64:
			x = a.Value(i)
		}
		v.accumFloat(g, x)
		return nil
	}
	x, scale, err := exactValue(arr, i)
	if err != nil {
		return err
	}
	v.n[g]++
	v.sx.add(g, x, scale, 1)
	v.sxx.add(g, new(big.Int).Mul(x, x), scale, 2)
	return nil
}

// accumFloat is float8_accum: N, Sx and Sxx updated by Youngs-Cramer.
func (v *varianceAcc) accumFloat(g int, x float64) {
	oldN := float64(v.n[g])
	v.n[g]++
	n := float64(v.n[g])
	v.fx[g] += x
	if oldN > 0 {
		tmp := x*n - v.fx[g]
		v.fxx[g] += tmp * tmp / (n * oldN)
		if math.IsInf(v.fx[g], 0) || math.IsInf(v.fxx[g], 0) {
			v.fxx[g] = math.NaN()
		}
	} else if math.IsNaN(x) || math.IsInf(x, 0) {
		v.fxx[g] = math.NaN()
	}
}

func (v *varianceAcc) result(_ context.Context, mem memory.Allocator, n int) (arrow.Array, error) {
	v.n = grow(v.n, n-1)
	if v.isFloat {
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for g := 0; g < n; g++ {
			if f, ok := v.floatResult(g); ok {
				b.Append(f)
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray(), nil
	}
	b := array.NewBuilder(mem, v.out.ArrowType())
	defer b.Release()
	for g := 0; g < n; g++ {
		r, ok := v.numericResult(g)
		if !ok {
			b.AppendNull()
			continue
		}
		if err := sql.AppendValue(b, v.out, r); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

func (v *varianceAcc) floatResult(g int) (float64, bool) {
	n := float64(v.n[g])
	if v.n[g] == 0 || (v.sample && v.n[g] == 1) {
		return 0, false
	}
	den := n
	if v.sample {
		den = n - 1
	}
	r := v.fxx[g] / den
	if v.sqrt {
		r = math.Sqrt(r)
	}
	return r, true
}

// numericResult is numeric_stddev_internal: (N·Σx² − (Σx)²) / (N·(N−1) or
// N²) at PostgreSQL's division scale, then for stddev its square root at that
// same scale; a numerator that is not positive gives 0.
func (v *varianceAcc) numericResult(g int) (sql.Decimal, bool) {
	cnt := v.n[g]
	if cnt == 0 || (v.sample && cnt == 1) {
		return sql.Decimal{}, false
	}
	sx, sxx := v.sx.decimal(g), v.sxx.decimal(g)
	N := big.NewInt(cnt)
	num := new(big.Int).Mul(N, sxx.Coef)
	num.Sub(num, new(big.Int).Mul(sx.Coef, sx.Coef))
	if num.Sign() <= 0 {
		return sql.DecimalFromInt(0), true
	}
	den := new(big.Int).Mul(N, N)
	if v.sample {
		den = new(big.Int).Mul(N, big.NewInt(cnt-1))
	}
	q := sql.Decimal{Coef: num, Scale: sxx.Scale}.Div(sql.Decimal{Coef: den})
	if !v.sqrt {
		return q, true
	}
	return q.Sqrt(q.Scale), true
}
