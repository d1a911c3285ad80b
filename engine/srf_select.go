package engine

import (
	"context"
	"iter"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Set-returning functions in a select list (SELECT id, unnest(tags) ...,
// SELECT generate_series(1, 3), pgjdbc's _pg_expandarray): each input row
// is repeated once per value the function returns for it, as PostgreSQL's
// ProjectSet does. The calls become hidden columns of a source over the
// query's FROM, and the select list reads those columns.

// srfNames are the set-returning functions a select list may call.
var srfNames = map[string]bool{"generate_series": true, "unnest": true, "_pg_expandarray": true}

// srfCall is one set-returning call: its arguments over the input scope
// and the type of the values it returns.
type srfCall struct {
	name string
	args []sql.Expr
	t    sql.Type
}

// key tells calls apart: the function and its bound arguments.
func (c srfCall) key() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return c.name + "(" + strings.Join(parts, ", ") + ")"
}

// srfSource repeats each input row per value of its calls: several calls
// run in lockstep, the shorter ones padded with NULLs, as in PostgreSQL.
type srfSource struct {
	input source
	calls []srfCall
	sc    *sql.Scope
	env   *Env
}

// selectListSRFs puts the set-returning call of st's select list in an
// srfSource over src, whose scope binds the call to its hidden column. Calls written the same way are
// one call (PostgreSQL runs them in lockstep, which for identical calls is
// the same rows); different ones are refused.
func (p *planner) selectListSRFs(st *sql.Select, src source, outer *sql.Outer) (source, error) {
	if !st.Parsed() {
		return src, nil
	}
	var calls []sql.Syntax
	for _, it := range st.Items {
		if it.Expr == nil {
			continue
		}
		calls = append(calls, sql.CallsNamed(it.Expr, srfNames)...)
	}
	if len(calls) == 0 {
		return src, nil
	}
	if len(st.GroupBy) > 0 || st.GroupingSets != nil || st.Having != nil || sql.HasAggregate(itemExprs(st)...) {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning functions in a grouped select list are not supported")
	}
	sc := withOuter(src.scope(), outer)
	var distinct []srfCall
	column := map[sql.Syntax]int{}
	for _, call := range calls {
		c, err := p.bindSRF(call, sc)
		if err != nil {
			return nil, err
		}
		k := slices.IndexFunc(distinct, func(d srfCall) bool { return d.key() == c.key() })
		if k < 0 {
			k = len(distinct)
			distinct = append(distinct, c)
		}
		column[call] = k
	}
	return p.newSRFSource(src, distinct, column), nil
}

func itemExprs(st *sql.Select) []sql.Syntax {
	var out []sql.Syntax
	for _, it := range st.Items {
		if it.Expr != nil {
			out = append(out, it.Expr)
		}
	}
	return out
}

// srfColumn names the hidden column the select list reads for call i.
func srfColumn(i int) string { return "__srf" + strconv.Itoa(i) }

// bindSRF binds a set-returning call's arguments and result type.
func (p *planner) bindSRF(call sql.Syntax, sc *sql.Scope) (srfCall, error) {
	name, callArgs, _ := sql.CallOf(call)
	args := make([]sql.Expr, len(callArgs))
	for i, a := range callArgs {
		var err error
		if args[i], err = sql.BindUntyped(a, sc, p.params); err != nil {
			return srfCall{}, err
		}
	}
	switch name {
	case "generate_series":
		t, err := seriesType(args, p.params)
		return srfCall{name: name, args: args, t: t}, err
	case "unnest", "_pg_expandarray":
		if len(args) != 1 {
			return srfCall{}, pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(args))
		}
		if sql.IsUnknownExpr(args[0]) {
			return srfCall{}, pgerr.Errorf(pgerr.AmbiguousFunction, "function %s(unknown) is not unique", name)
		}
		at := args[0].Type()
		if !at.IsArray() {
			return srfCall{}, pgerr.Errorf(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, at)
		}
		t := at.ElemType()
		if name == "_pg_expandarray" {
			t = sql.RecordOf(sql.RecordField{Name: "x", T: t}, sql.RecordField{Name: "n", T: sql.Int32})
		}
		return srfCall{name: name, args: args, t: t}, nil
	}
	return srfCall{}, pgerr.Errorf(pgerr.FeatureNotSupported, "set-returning function %s is not supported here", name)
}

// seriesType resolves generate_series's argument type and converts the
// arguments to it.
func seriesType(args []sql.Expr, params *sql.Params) (sql.Type, error) {
	if len(args) < 2 || len(args) > 3 {
		return sql.Type{}, pgerr.Errorf(pgerr.UndefinedFunction, "function generate_series with %d arguments does not exist", len(args))
	}
	if timeSeries(args) {
		return timeSeriesType(args, params)
	}
	t, err := sql.CommonType(args, "generate_series")
	if err != nil {
		return sql.Type{}, err
	}
	switch t.Kind {
	case sql.KindInt16, sql.KindText:
		t = sql.Int32 // untyped literals: generate_series(integer, integer)
	case sql.KindInt32, sql.KindInt64:
	case sql.KindNumeric:
		t = sql.Type{Kind: sql.KindNumeric}
	default:
		return sql.Type{}, pgerr.Errorf(pgerr.FeatureNotSupported, "generate_series over %s is not supported yet", t)
	}
	for i, a := range args {
		if args[i], err = sql.CoerceTo(a, t, params); err != nil {
			return sql.Type{}, err
		}
	}
	return t, nil
}

func (p *planner) newSRFSource(src source, calls []srfCall, column map[sql.Syntax]int) *srfSource {
	sc := &sql.Scope{Aliased: src.scope().Aliased, Computed: map[sql.Syntax]string{}}
	for n, i := range column {
		sc.Computed[n] = srfColumn(i)
	}
	sc.Columns = append(sc.Columns, src.scope().Columns...)
	for i, c := range calls {
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Name: srfColumn(i), T: c.t, Hidden: true})
	}
	return &srfSource{input: src, calls: calls, sc: sc, env: p.env}
}

func (s *srfSource) scope() *sql.Scope { return s.sc }

// project keeps the whole input: the call's arguments read it.
func (s *srfSource) project(cols []int) source { return newPicked(s, cols) }

func (s *srfSource) batches(ctx context.Context, filter iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	in, err := s.input.batches(ctx, filter, params)
	if err != nil {
		return nil, err
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		out := newRowBuilder(s.sc, s.env.batchSize())
		defer out.release()
		for b, err := range in {
			if err != nil {
				yield(nil, err)
				return
			}
			ok, err := s.expand(ctx, b, params, out, yield)
			b.Release()
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok {
				return
			}
		}
		if rb := out.flush(); rb != nil {
			yield(rb, nil)
		}
	}, nil
}

// expand appends each row of b once per value of the calls; ok is false
// when the consumer stopped.
func (s *srfSource) expand(ctx context.Context, b arrow.RecordBatch, params []any, out *rowBuilder, yield func(arrow.RecordBatch, error) bool) (bool, error) {
	args := make([][]arrow.Array, len(s.calls))
	for k, c := range s.calls {
		for _, a := range c.args {
			arr, err := sql.Eval(ctx, a, b, params)
			if err != nil {
				return false, err
			}
			defer arr.Release()
			args[k] = append(args[k], arr)
		}
	}
	for r := 0; r < int(b.NumRows()); r++ {
		if ok, err := s.expandRow(ctx, b, r, args, out, yield); !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

// expandRow appends row r of b once per value of the calls; its pulls end
// with it (one per call and row, each a coroutine, were kept for the whole
// batch).
func (s *srfSource) expandRow(ctx context.Context, b arrow.RecordBatch, r int, args [][]arrow.Array, out *rowBuilder,
	yield func(arrow.RecordBatch, error) bool) (bool, error) {
	nexts := make([]func() (any, error, bool), len(s.calls))
	for k, c := range s.calls {
		vals := make([]any, len(c.args))
		for i, a := range args[k] {
			vals[i] = sql.DatumAt(a, c.args[i].Type(), r)
		}
		next, stop := iter.Pull2(c.values(vals))
		defer stop()
		nexts[k] = next
	}
	for {
		row, more, err := pullRow(nexts)
		if err != nil || !more {
			return err == nil, err
		}
		if err := out.appendRow(b, r, row); err != nil {
			return false, err
		}
		if out.full() {
			if err := canceled(ctx); err != nil {
				return false, err
			}
			if !yield(out.flush(), nil) {
				return false, nil
			}
		}
	}
}

// pullRow takes the next value of every call, NULL for those done; more is
// false when all are done.
func pullRow(nexts []func() (any, error, bool)) ([]any, bool, error) {
	row := make([]any, len(nexts))
	more := false
	for k, next := range nexts {
		v, err, ok := next()
		if err != nil {
			return nil, false, err
		}
		if ok {
			row[k], more = v, true
		}
	}
	return row, more, nil
}

// values are the call's results for one row's arguments; a NULL argument
// returns no rows (the functions are strict).
func (c srfCall) values(args []any) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for _, a := range args {
			if a == nil {
				return
			}
		}
		switch c.name {
		case "generate_series":
			seriesValues(c.t, args, yield)
		case "unnest", "_pg_expandarray":
			c.arrayValues(args[0].(string), yield)
		}
	}
}

func (c srfCall) arrayValues(text string, yield func(any, error) bool) {
	at := c.args[0].Type()
	ds, err := sql.ArrayDatums(text, at)
	if err != nil {
		yield(nil, err)
		return
	}
	for i, d := range ds {
		v := d
		if c.name == "_pg_expandarray" {
			v = sql.FormatRecord(c.t, []any{d, int64(i + 1)})
		}
		if !yield(v, nil) {
			return
		}
	}
}

// timeSeries reports generate_series(start, stop, interval) over dates or
// timestamps.
func timeSeries(args []sql.Expr) bool {
	if len(args) != 3 {
		return false
	}
	for _, a := range args[:2] {
		switch a.Type().Kind {
		case sql.KindDate, sql.KindTimestamp, sql.KindTimestampTZ:
			return true
		}
	}
	return args[2].Type().Kind == sql.KindInterval
}

// timeSeriesType resolves generate_series over timestamps: timestamp when
// both ends are timestamps, else timestamptz (dates and untyped literals
// resolve there, as in PostgreSQL); the step is an interval.
func timeSeriesType(args []sql.Expr, params *sql.Params) (sql.Type, error) {
	t := sql.TimestampTZ
	if args[0].Type().Kind == sql.KindTimestamp && args[1].Type().Kind == sql.KindTimestamp {
		t = sql.Timestamp
	}
	var err error
	for i := 0; i < 2; i++ {
		if args[i], err = sql.CoerceTo(args[i], t, params); err != nil {
			return sql.Type{}, err
		}
	}
	if args[2], err = sql.CoerceTo(args[2], sql.IntervalT, params); err != nil {
		return sql.Type{}, err
	}
	return t, nil
}

// seriesValues yields generate_series(start, stop [, step]) over t.
func seriesValues(t sql.Type, args []any, yield func(any, error) bool) {
	if t.Kind == sql.KindTimestamp || t.Kind == sql.KindTimestampTZ {
		timeSeriesValues(args, yield)
		return
	}
	if t.Kind == sql.KindNumeric {
		start, stop := args[0].(sql.Decimal), args[1].(sql.Decimal)
		step := sql.Decimal{Coef: big.NewInt(1)}
		if len(args) == 3 {
			step = args[2].(sql.Decimal)
		}
		if step.Coef.Sign() == 0 {
			yield(nil, errZeroStep)
			return
		}
		up := step.Coef.Sign() > 0
		for cur := start; ; cur = cur.Add(step) {
			if c := cur.Cmp(stop); up && c > 0 || !up && c < 0 || !yield(cur, nil) {
				return
			}
		}
	}
	start, stop, step := args[0].(int64), args[1].(int64), int64(1)
	if len(args) == 3 {
		step = args[2].(int64)
	}
	if step == 0 {
		yield(nil, errZeroStep)
		return
	}
	for cur := start; step > 0 && cur <= stop || step < 0 && cur >= stop; {
		if !yield(cur, nil) {
			return
		}
		next := cur + step
		if step > 0 && next < cur || step < 0 && next > cur {
			return // overflow ends the series, as in PostgreSQL
		}
		cur = next
	}
}

// rowBuilder collects output rows: input columns copied from a batch row,
// then the calls' values.
type rowBuilder struct {
	sc     *sql.Scope
	schema *arrow.Schema
	b      *array.RecordBuilder
	n, cap int
}

func newRowBuilder(sc *sql.Scope, size int) *rowBuilder {
	fields := make([]arrow.Field, len(sc.Columns))
	for i, c := range sc.Columns {
		fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: c.T.ArrowType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return &rowBuilder{sc: sc, schema: schema, b: array.NewRecordBuilder(memory.DefaultAllocator, schema), cap: size}
}

func (r *rowBuilder) appendRow(b arrow.RecordBatch, row int, vals []any) error {
	in := int(b.NumCols())
	for i := 0; i < in; i++ {
		t := r.sc.Columns[i].T
		if err := sql.AppendDatum(r.b.Field(i), t, sql.DatumAt(b.Column(i), t, row)); err != nil {
			return err
		}
	}
	r.n++
	for k, v := range vals {
		if err := sql.AppendDatum(r.b.Field(in+k), r.sc.Columns[in+k].T, v); err != nil {
			return err
		}
	}
	return nil
}

func (r *rowBuilder) full() bool { return r.n >= r.cap }

// flush returns the rows collected so far (nil when none).
func (r *rowBuilder) flush() arrow.RecordBatch {
	if r.n == 0 {
		return nil
	}
	r.n = 0
	return r.b.NewRecordBatch()
}

func (r *rowBuilder) release() { r.b.Release() }

// timeSeriesValues yields timestamps from start by step while they do not
// pass stop; a step that moves nothing is an error.
func timeSeriesValues(args []any, yield func(any, error) bool) {
	start, stop, step := args[0].(int64), args[1].(int64), args[2].(sql.Interval)
	first, err := sql.AddInterval(start, step)
	if err != nil {
		yield(nil, err)
		return
	}
	if first == start {
		yield(nil, errZeroStep)
		return
	}
	up := first > start
	for cur := start; up && cur <= stop || !up && cur >= stop; {
		if !yield(cur, nil) {
			return
		}
		next, err := sql.AddInterval(cur, step)
		if err != nil {
			return // past the last timestamp: the series ends there
		}
		cur = next
	}
}
