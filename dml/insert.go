package dml

import (
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/plan"

	"context"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// insertTarget is the table an INSERT writes and, per table column, which
// input column feeds it (-1: none, the column gets NULL).
type insertTarget struct {
	rt      *plan.Table
	scope   *sql.Scope // the table's columns
	feeds   []int
	require []bool
	listed  bool // the INSERT named its columns; without a list, fewer values leave the last columns NULL
	// schema is the table's Arrow schema and decl its columns' declared
	// types (varchar(n), smallint), computed once per target.
	schema *arrow.Schema
	decl   map[int]sql.Type
	// key names the columns' layout and types: a plan bound for one key
	// is bound again when the table under its name has another.
	key string
	// keep, when set, collects the rows written, as stored (RETURNING).
	keep *[]arrow.RecordBatch
}

func (s session) insertTarget(ctx context.Context, st *sql.Insert) (*insertTarget, error) {
	rt, err := s.ResolveTable(ctx, st.Table, false)
	if err != nil {
		return nil, err
	}
	return s.buildTarget(rt, st)
}

// ResolveInsertTarget resolves the table and columns ins writes, as INSERT
// resolves its target (COPY FROM loads rows through it).
func ResolveInsertTarget(ctx context.Context, p Port, ins *sql.Insert) (*InsertTarget, error) {
	t, err := session{p}.insertTarget(ctx, ins)
	if err != nil {
		return nil, err
	}
	return &InsertTarget{t}, nil
}

// InsertTarget is an INSERT's target as a load writes it.
type InsertTarget struct{ t *insertTarget }

// Relation is the table's own name, for constraint messages.
func (t *InsertTarget) Relation() string { return t.t.rt.Ident[len(t.t.rt.Ident)-1] }

// Scope is the table's columns.
func (t *InsertTarget) Scope() *sql.Scope { return t.t.scope }

// Feeds gives, per table column, the input field that feeds it (-1: none).
func (t *InsertTarget) Feeds() []int { return t.t.feeds }

// Require marks the columns that are NOT NULL.
func (t *InsertTarget) Require() []bool { return t.t.require }

// Schema is the table's Arrow schema.
func (t *InsertTarget) Schema() *arrow.Schema { return t.t.schema }

// Width is the fields an input record holds.
func (t *InsertTarget) Width() int { return t.t.width() }

// Append writes the batches and publishes them as one append, as INSERT
// does, on the session p is.
func (t *InsertTarget) Append(ctx context.Context, p Port, rows iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	return session{p}.appendRows(ctx, t.t, rows)
}

// targetMemo keeps an INSERT plan's target between its executions for as
// long as the table's metadata is the one it was built from: building it
// copies the schema and properties (iceberg-go hands out copies), a good
// part of a one-row INSERT in a block.
type targetMemo struct {
	loc string
	t   *insertTarget
}

// target resolves st's table and returns its target, m's when still good.
func (m *targetMemo) target(ctx context.Context, s session, st *sql.Insert) (*insertTarget, error) {
	rt, err := s.ResolveTable(ctx, st.Table, false)
	if err != nil {
		return nil, err
	}
	if rt.Meta == "" && m.t != nil && m.loc == rt.Table.MetadataLocation() {
		t := *m.t
		t.rt = rt
		return &t, nil
	}
	t, err := s.buildTarget(rt, st)
	if err != nil {
		return nil, err
	}
	m.loc, m.t = rt.Table.MetadataLocation(), t
	c := *t
	return &c, nil
}

// buildTarget maps st's columns onto rt's.
func (s session) buildTarget(rt *plan.Table, st *sql.Insert) (*insertTarget, error) {
	if err := s.Writable(rt, "change", st.Table); err != nil {
		return nil, err
	}
	t := &insertTarget{rt: rt, scope: s.Scope(rt.Table, st.Table.Table), decl: declaredTypes(rt.Table)}
	t.schema = tableArrowSchema(t.scope)
	var key strings.Builder
	for i, f := range rt.Table.Schema().Fields() {
		t.require = append(t.require, f.Required)
		c := t.scope.Columns[i]
		fmt.Fprintf(&key, "%d:%s:%s:%t", c.FieldID, c.Name, c.T, f.Required)
		if c.Default != nil { // bound into the plan's rows
			fmt.Fprintf(&key, ":%v", c.Default.Value)
		}
		key.WriteByte(';')
	}
	t.key = key.String()
	t.feeds = make([]int, len(t.scope.Columns))
	for i := range t.feeds {
		t.feeds[i] = -1
	}
	if len(st.Columns) == 0 {
		for i := range t.feeds {
			t.feeds[i] = i
		}
		return t, nil
	}
	t.listed = true
	for k, name := range st.Columns {
		idx := -1
		for i, c := range t.scope.Columns {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			e := sql.UndefinedColumn("", name)
			e.Message = fmt.Sprintf("column %q of relation %q does not exist", name, st.Table.Table)
			return nil, e
		}
		if t.feeds[idx] >= 0 {
			return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", name)
		}
		t.feeds[idx] = k
	}
	return t, nil
}

// checkWidth compares n supplied values with the width the target takes:
// more is an error; fewer only when the INSERT named its columns (without
// a list, the last columns are left NULL, as PostgreSQL leaves them to
// their defaults).
func (t *insertTarget) checkWidth(n, width int) error {
	if n > width {
		return pgerr.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if n < width && t.listed {
		return pgerr.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	return nil
}

// width is the number of input columns the INSERT supplies.
func (t *insertTarget) width() int {
	n := 0
	for _, f := range t.feeds {
		n = max(n, f+1)
	}
	return n
}

func (s session) prepareInsert(ctx context.Context, st *sql.Insert, params *sql.Params) (Run, []stmt.Column, error) {
	switch {
	case st.Overwrite:
		return s.prepareOverwrite(ctx, st, params)
	case st.ReplaceWhere != nil:
		return s.prepareOverwrite(ctx, st, params)
	}
	target, err := s.insertTarget(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	ret, err := bindReturning(ctx, s, st.Returning, target.scope, params)
	if err != nil {
		return nil, nil, err
	}
	source, deps, err := s.boundSource(ctx, st, target, params)
	if err != nil {
		return nil, nil, err
	}
	memo := &targetMemo{}
	bound := target.key
	run := func(ctx context.Context, s session, args []Param) (*stmt.Result, error) {
		target, err := memo.target(ctx, s, st)
		if err != nil {
			return nil, err
		}
		if target.key != bound {
			// The table under the name changed since the plan was bound
			// (dropped and created again, altered, another search_path):
			// bind again, as PostgreSQL replans a prepared statement.
			if ret != nil {
				return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "cached plan must not change result type")
			}
			if source, deps, err = s.boundSource(ctx, st, target, params); err != nil {
				return nil, err
			}
			bound = target.key
		} else if stale, err := valuesStale(ctx, st, deps); err != nil {
			return nil, err
		} else if stale {
			if source, deps, err = s.boundSource(ctx, st, target, params); err != nil {
				return nil, err
			}
		}
		seq, done, err := source(ctx, args)
		if err != nil {
			return nil, err
		}
		defer done()
		var kept []arrow.RecordBatch
		if ret != nil {
			target.keep = &kept
		}
		n, err := s.appendRows(ctx, target, seq)
		if err != nil {
			engine.ReleaseAll(kept)
			return nil, err
		}
		tag := fmt.Sprintf("INSERT 0 %d", n)
		if ret == nil {
			return stmt.TagOnly(tag), nil
		}
		return ret.result(ctx, "INSERT", tag, kept, args)
	}
	return runOn(run), ret.columns(), nil
}

// boundSource is insertSource recording what binding read: the tables of
// the subqueries among VALUES, which hold plans over the tables as they
// were (an INSERT ... SELECT's query checks itself, insertFromSelect). The
// subqueries are planned by a planner that records, not by one an earlier
// binding left in params (params itself is shared: binding infers the
// statement's parameter types in it).
func (s session) boundSource(ctx context.Context, st *sql.Insert, target *insertTarget, params *sql.Params) (func(context.Context, []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error), *engine.Deps, error) {
	deps := engine.NewDeps(s.QueryEnv())
	if params != nil {
		params.Subqueries = nil
	}
	src, err := session{recordingPort{Port: s.Port, deps: deps}}.insertSource(ctx, st, target, params)
	deps.Seal()
	return src, deps, err
}

// valuesStale: st's VALUES hold subqueries whose tables changed since
// they were bound (or the session changed what binding reads).
func valuesStale(ctx context.Context, st *sql.Insert, deps *engine.Deps) (bool, error) {
	if st.Query != nil || !deps.Reads() {
		return false, nil
	}
	ok, err := deps.Current(ctx)
	return !ok, err
}

// insertSource binds the rows st inserts (its VALUES or its query) to target.
func (s session) insertSource(ctx context.Context, st *sql.Insert, target *insertTarget, params *sql.Params) (func(context.Context, []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error), error) {
	if st.Query != nil {
		return s.insertFromSelect(ctx, st.Query, target, params)
	}
	if !valuesHaveSubquery(st.Rows) {
		return insertFromValues(st.Rows, target, params)
	}
	// (SELECT ...) among the values: the query engine plans and runs them.
	params, err := s.withSubqueries(ctx, params)
	if err != nil {
		return nil, err
	}
	src, err := insertFromValues(st.Rows, target, params)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, args []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error) {
		return src(engine.WithStatement(ctx, s.QueryEnv()), args)
	}, nil
}

// valuesHaveSubquery reports a subquery anywhere in VALUES rows.
func valuesHaveSubquery(rows [][]sql.Syntax) bool {
	for _, row := range rows {
		for _, e := range row {
			if sql.HasSubquery(e) {
				return true
			}
		}
	}
	return false
}

// appendRows fits the batches to the columns' declared types, keeps them
// for RETURNING, and hands them to the session to publish as one append
// (committed now, or staged inside a transaction block).
func (s session) appendRows(ctx context.Context, t *insertTarget, seq iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	if err := s.CheckWrite(); err != nil {
		return 0, err
	}
	decl := t.decl
	fitted := func(yield func(arrow.RecordBatch, error) bool) {
		for b, err := range seq {
			if err == nil && len(decl) > 0 {
				fitted, ferr := sql.FitDeclared(b, decl)
				b.Release()
				b, err = fitted, ferr
			}
			if err == nil && t.keep != nil {
				b.Retain()
				*t.keep = append(*t.keep, b)
			}
			if !yield(b, err) {
				return
			}
		}
	}
	return s.Append(ctx, t.rt, fitted)
}

// insertFromValues binds every VALUES row to the target column types.
func insertFromValues(rows [][]sql.Syntax, t *insertTarget, params *sql.Params) (func(context.Context, []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error), error) {
	width := t.width()
	bound := make([][]sql.Expr, len(rows))
	for r, row := range rows {
		if len(row) != len(rows[0]) {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		if err := t.checkWidth(len(row), width); err != nil {
			return nil, err
		}
		bound[r] = make([]sql.Expr, len(t.feeds))
		for c, f := range t.feeds {
			col := t.scope.Columns[c]
			if f < 0 || f >= len(row) {
				d, err := col.DefaultValue()
				if err != nil {
					return nil, err
				}
				bound[r][c] = d
				continue
			}
			e, err := sql.BindAssigned(row[f], nil, col, params)
			if err != nil {
				return nil, err
			}
			bound[r][c] = e
		}
	}
	return func(ctx context.Context, args []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error) {
		b, err := valuesBatch(ctx, bound, t, args)
		if err != nil {
			return nil, nil, err
		}
		return func(yield func(arrow.RecordBatch, error) bool) { yield(b, nil) }, func() {}, nil
	}, nil
}

// valuesBatch evaluates bound VALUES rows into one table-shaped batch.
func valuesBatch(ctx context.Context, rows [][]sql.Expr, t *insertTarget, args []Param) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, t.schema)
	defer b.Release()
	fields := b.Fields()
	for r, row := range rows {
		if !rowTypesMatch(row, fields) {
			if err := appendEvaluated(ctx, row, t, args, fields, r); err != nil {
				return nil, err
			}
			continue
		}
		null, err := sql.EvalRow(ctx, row, args, fields)
		if err != nil {
			return nil, err
		}
		for c := range row {
			if t.require[c] && null[c] {
				return nil, t.notNullError(c, r)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// rowTypesMatch reports whether each value of row is of its column's
// Arrow type, so that EvalRow can append it where it goes.
func rowTypesMatch(row []sql.Expr, fields []array.Builder) bool {
	for c, e := range row {
		if !arrow.TypeEqual(sql.RowType(e), fields[c].Type()) {
			return false
		}
	}
	return true
}

// appendEvaluated evaluates row's values one by one and appends them
// converted to their columns' types.
func appendEvaluated(ctx context.Context, row []sql.Expr, t *insertTarget, args []Param, fields []array.Builder, r int) error {
	for c, e := range row {
		arr, err := sql.Eval(ctx, e, nil, args)
		if err != nil {
			return err
		}
		err = t.checkNotNull(c, arr, 0, r)
		if err == nil {
			err = engine.AppendFrom(fields[c], arr, 0)
		}
		arr.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (t *insertTarget) checkNotNull(col int, arr arrow.Array, i, row int) error {
	if t.require[col] && arr.IsNull(i) {
		return t.notNullError(col, row)
	}
	return nil
}

func (t *insertTarget) notNullError(col, row int) error {
	return &pgerr.Error{Code: pgerr.NotNullViolation,
		Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", t.scope.Columns[col].Name, t.rt.Ident[len(t.rt.Ident)-1]),
		Detail:  fmt.Sprintf("Failing row is row %d of the input.", row+1)}
}

func tableArrowSchema(scope *sql.Scope) *arrow.Schema {
	fields := make([]arrow.Field, len(scope.Columns))
	for i, c := range scope.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// insertFromSelect plans INSERT ... SELECT: the query's columns are cast to
// the target columns positionally.
func (s session) insertFromSelect(ctx context.Context, q *sql.Select, t *insertTarget, params *sql.Params) (func(context.Context, []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error), error) {
	probe, err := engine.Plan(ctx, s.QueryEnv(), q, params)
	if err != nil {
		return nil, err
	}
	cols := probe.Columns()
	shape, err := t.selectShape(cols)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(t.scope.Columns))
	for i, c := range t.scope.Columns {
		names[i] = c.Name
	}
	var kept sync.Mutex // guards probe, which serves the first execution while current
	return func(ctx context.Context, args []Param) (iter.Seq2[arrow.RecordBatch, error], func(), error) {
		var err error
		kept.Lock()
		sq := probe
		probe = nil
		kept.Unlock()
		if sq != nil {
			ok, err := sq.Current(ctx)
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				sq = nil
			}
		}
		if sq == nil {
			if sq, err = engine.Plan(ctx, s.QueryEnv(), q, params); err != nil {
				return nil, nil, err
			}
		}
		shape := shape
		if now := sq.Columns(); !sameTypes(cols, now) {
			// The query's tables changed their columns since Prepare:
			// cast what it gives now, as PostgreSQL replans.
			if shape, err = t.selectShape(now); err != nil {
				return nil, nil, err
			}
		}
		rows, err := sq.Run(ctx, args)
		if err != nil {
			return nil, nil, err
		}
		seq := func(yield func(arrow.RecordBatch, error) bool) {
			row := 0
			for {
				b, err := rows.Next(ctx)
				if err == io.EOF {
					return
				}
				if err != nil {
					yield(nil, err)
					return
				}
				out, err := engine.Project(ctx, shape, names, b, args)
				if err == nil {
					err = t.checkBatchNotNull(out, row)
				}
				if err != nil {
					yield(nil, err)
					return
				}
				row += int(b.NumRows())
				if !yield(out, nil) {
					return
				}
			}
		}
		return seq, func() { rows.Close() }, nil
	}, nil
}

func (t *insertTarget) checkBatchNotNull(b arrow.RecordBatch, firstRow int) error {
	for c := range t.require {
		if !t.require[c] || b.Column(c).NullN() == 0 {
			continue
		}
		col := b.Column(c)
		for i := 0; i < col.Len(); i++ {
			if err := t.checkNotNull(c, col, i, firstRow+i); err != nil {
				return err
			}
		}
	}
	return nil
}

// selectShape casts a query's columns (cols) to the target's, positionally;
// the columns it does not feed take their defaults.
func (t *insertTarget) selectShape(cols []sql.Column) ([]sql.Expr, error) {
	if err := t.checkWidth(len(cols), t.width()); err != nil {
		return nil, err
	}
	shape := make([]sql.Expr, len(t.feeds))
	var err error
	for c, f := range t.feeds {
		col := t.scope.Columns[c]
		if f < 0 || f >= len(cols) {
			if shape[c], err = col.DefaultValue(); err != nil {
				return nil, err
			}
			continue
		}
		if shape[c], err = sql.AssignCast(&sql.ColumnRef{Index: f, Name: cols[f].Name, T: cols[f].Type}, col); err != nil {
			return nil, err
		}
	}
	return shape, nil
}

// sameTypes: the query bound again gives the columns the statement's casts
// were bound for.
func sameTypes(a, b []sql.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type {
			return false
		}
	}
	return true
}
