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

// setReturning recognises a set-returning function in FROM, which the
// front end hands over as (SELECT f(...) AS col) AS alias.
func (p *planner) setReturning(st *sql.Select, alias string, outer *sql.Outer) (source, bool, error) {
	if !st.Parsed() || st.HasFrom() || len(st.Items) != 1 || st.Items[0].Star || st.Where != nil {
		return nil, false, nil
	}
	call := st.Items[0].Expr
	name, _, ok := sql.CallOf(call)
	if !ok {
		return nil, false, nil
	}
	if fileFunctions[name] {
		src, err := p.fromFiles(call, alias)
		return src, true, err
	}
	switch name {
	case "generate_series":
		src, err := p.series(call, alias, st.Items[0].Alias, outer)
		return src, true, err
	case "unnest":
		src, err := p.fromSRF(call, alias, st.Items[0].Alias, outer)
		return src, true, err
	}
	return nil, false, nil
}

// fromSRF is a set-returning function in FROM other than generate_series:
// its values over one empty row, in a column named for the alias.
func (p *planner) fromSRF(call sql.Syntax, alias, col string, outer *sql.Outer) (source, error) {
	c, err := p.bindSRF(call, &sql.Scope{Outer: outer})
	if err != nil {
		return nil, err
	}
	if col == "" {
		col = alias
	}
	src := p.newSRFSource(noSource{}, []srfCall{c}, map[sql.Syntax]int{call: 0})
	sc := &sql.Scope{Columns: []sql.ScopeColumn{{Table: alias, Name: col, T: c.t}}}
	return &rescoped{src: src, sc: sc}, nil
}

// seriesSource is generate_series(start, stop [, step]) over integers or
// numerics, streamed batch by batch: no row limit, no memory to hold.
type seriesSource struct {
	args []sql.Expr
	t    sql.Type
	sc   *sql.Scope
	env  *Env
}

func (p *planner) series(call sql.Syntax, alias, col string, outer *sql.Outer) (source, error) {
	_, callArgs, _ := sql.CallOf(call)
	if len(callArgs) < 2 || len(callArgs) > 3 {
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(callArgs))
	}
	var args []sql.Expr
	for _, a := range callArgs {
		e, err := sql.BindUntyped(a, &sql.Scope{Outer: outer}, p.params)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if timeSeries(args) {
		return p.fromSRF(call, alias, col, outer)
	}
	t, err := sql.CommonType(args, "generate_series")
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case sql.KindInt16:
		t = sql.Int32
	case sql.KindInt32, sql.KindInt64:
	case sql.KindNumeric:
		t = sql.Type{Kind: sql.KindNumeric}
	case sql.KindText:
		t = sql.Int32 // untyped literals: generate_series(integer, integer)
	default:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "generate_series over %s is not supported yet", t)
	}
	for i, a := range args {
		if args[i], err = sql.CoerceTo(a, t, p.params); err != nil {
			return nil, err
		}
	}
	if col == "" {
		col = alias
	}
	sc := &sql.Scope{Columns: []sql.ScopeColumn{{Table: alias, Name: col, T: t}}}
	return &seriesSource{args: args, t: t, sc: sc, env: p.env}, nil
}

func (s *seriesSource) scope() *sql.Scope { return s.sc }

func (s *seriesSource) project(cols []int) source {
	if len(cols) == 1 {
		return s
	}
	return newPicked(s, cols)
}

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
