package engine

import (
	"context"
	"iter"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// seriesSource is generate_series(start, stop [, step]) over integers or
// numerics, streamed batch by batch: no row limit, no memory to hold.
type seriesSource struct {
	args []sql.Expr
	t    sql.Type
	sc   *sql.Scope
	env  *Env
}

func (s *seriesSource) scope() *sql.Scope { return s.sc }

func (s *seriesSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	vals := make([]any, 3)
	vals[2] = sql.Decimal{Coef: big.NewInt(1)}
	if s.t.Kind != sql.KindNumeric {
		vals[2] = int64(1)
	}
	for i, a := range s.args {
		arr, err := sql.Eval(ctx, a, nil, params)
		if err != nil {
			return nil, err
		}
		vals[i] = sql.DatumAt(arr, s.t, 0)
		arr.Release()
		if vals[i] == nil {
			return emptySeq(), nil
		}
	}
	if s.t.Kind == sql.KindNumeric {
		return s.numericSeq(ctx, vals)
	}
	return s.intSeq(ctx, vals[0].(int64), vals[1].(int64), vals[2].(int64))
}

func emptySeq() iter.Seq2[arrow.RecordBatch, error] {
	return func(func(arrow.RecordBatch, error) bool) {}
}

var errZeroStep = pgerr.Errorf(pgerr.InvalidParameterValue, "step size cannot equal zero")

func (s *seriesSource) intSeq(ctx context.Context, start, stop, step int64) (iter.Seq2[arrow.RecordBatch, error], error) {
	if step == 0 {
		return nil, errZeroStep
	}
	cur, done := start, false
	return s.stream(ctx, func(b array.Builder) (bool, error) {
		if done || step > 0 && cur > stop || step < 0 && cur < stop {
			return false, nil
		}
		appendInt(b, cur)
		next := cur + step
		// Stop at overflow rather than wrap, as PostgreSQL does.
		done = step > 0 && next < cur || step < 0 && next > cur
		cur = next
		return true, nil
	}), nil
}

func appendInt(b array.Builder, v int64) {
	switch x := b.(type) {
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int64Builder:
		x.Append(v)
	}
}

func (s *seriesSource) numericSeq(ctx context.Context, vals []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	start, stop, step := vals[0].(sql.Decimal), vals[1].(sql.Decimal), vals[2].(sql.Decimal)
	if step.Coef.Sign() == 0 {
		return nil, errZeroStep
	}
	up := step.Coef.Sign() > 0
	cur := start
	return s.stream(ctx, func(b array.Builder) (bool, error) {
		if c := cur.Cmp(stop); up && c > 0 || !up && c < 0 {
			return false, nil
		}
		if err := sql.AppendDatum(b, s.t, cur); err != nil {
			return false, err
		}
		cur = cur.Add(step)
		return true, nil
	}), nil
}

// stream yields batches of the values next appends, one per call, until it
// reports that none is left.
func (s *seriesSource) stream(ctx context.Context, next func(b array.Builder) (bool, error)) iter.Seq2[arrow.RecordBatch, error] {
	size := s.env.batchSize()
	schema := arrow.NewSchema([]arrow.Field{{Name: s.sc.Columns[0].Name, Type: s.t.ArrowType(), Nullable: true}}, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for done := false; !done; {
			if err := ctx.Err(); err != nil {
				yield(nil, pgerr.Canceled(err))
				return
			}
			b := array.NewBuilder(memory.DefaultAllocator, s.t.ArrowType())
			for n := 0; n < size; n++ {
				more, err := next(b)
				if err != nil {
					b.Release()
					yield(nil, err)
					return
				}
				if !more {
					done = true
					break
				}
			}
			arr := b.NewArray()
			b.Release()
			if arr.Len() == 0 {
				arr.Release()
				return
			}
			rb := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
			arr.Release()
			if !yield(rb, nil) {
				return
			}
		}
	}
}
