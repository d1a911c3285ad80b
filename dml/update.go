package dml

import (
	"github.com/magmalake/magmalake/engine"

	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// updatePlan is a bound UPDATE: the WHERE and RETURNING of a delete plan
// (RETURNING evaluated over the new rows) plus the SET expressions.
type updatePlan struct {
	del      *deletePlan
	sets     map[int]sql.Expr // column index → new value over the old row
	require  []bool
	declared map[int]sql.Type // declared types of the assigned columns (declared_types.go)
}

func (s session) planUpdate(ctx context.Context, st *sql.Update, params *sql.Params) (*updatePlan, error) {
	dp, err := s.planDelete(ctx, &sql.Delete{With: st.With, Table: st.Table, Alias: st.Alias, Where: st.Where, Returning: st.Returning}, params)
	if err != nil {
		return nil, err
	}
	p := &updatePlan{del: dp, sets: map[int]sql.Expr{}}
	for _, f := range dp.rt.Table.Schema().Fields() {
		p.require = append(p.require, f.Required)
	}
	for _, a := range st.Set {
		idx := -1
		for i, c := range dp.scope.Columns {
			if c.Name == a.Column {
				idx = i
			}
		}
		if idx < 0 {
			e := sql.UndefinedColumn("", a.Column)
			e.Message = fmt.Sprintf("column %q of relation %q does not exist", a.Column, st.Table.Table)
			return nil, e
		}
		if _, dup := p.sets[idx]; dup {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column %q", a.Column)
		}
		if sql.HasAggregate(a.Value) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in UPDATE")
		}
		e, err := sql.BindAssigned(a.Value, dp.scope, dp.scope.Columns[idx], params)
		if err != nil {
			return nil, err
		}
		p.sets[idx] = e
	}
	p.declared = map[int]sql.Type{}
	for col, t := range declaredTypes(dp.rt.Table) {
		// Every smallint column too: kept ones are read as smallint and
		// written back as the Iceberg int they are stored as (sql.FitColumn).
		if _, assigned := p.sets[col]; assigned || t.Kind == sql.KindInt16 {
			p.declared[col] = t
		}
	}
	if err := checkConstantSets(ctx, p.sets, p.declared); err != nil {
		return nil, err
	}
	return p, nil
}

// checkConstantSets fits constants assigned to varchar(n) and smallint
// columns now: PostgreSQL coerces them when it plans the statement, so a
// value too long fails even when no row matches.
func checkConstantSets(ctx context.Context, sets map[int]sql.Expr, declared map[int]sql.Type) error {
	for _, col := range slices.Sorted(maps.Keys(declared)) {
		e := sets[col]
		if c, ok := e.(*sql.Cast); ok {
			e = c.X
		}
		if _, ok := e.(*sql.Const); !ok {
			continue
		}
		arr, err := sql.Eval(ctx, sets[col], nil, nil)
		if err != nil {
			return err
		}
		fitted, err := sql.FitColumn(declared[col], arr)
		arr.Release()
		if fitted != nil {
			fitted.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s session) prepareUpdate(ctx context.Context, st *sql.Update, params *sql.Params) (Run, []stmt.Column, error) {
	if st.Join != nil {
		pl, cols, ok, err := s.prepareJoinDML(ctx, func(ctx context.Context, s session) (*mergePlan, error) {
			return s.planJoinUpdate(ctx, st, params)
		})
		if ok {
			return pl, cols, err
		}
	}
	k, p, err := keep(ctx, s, func(ctx context.Context, s session) (*updatePlan, error) {
		return s.planUpdate(ctx, st, params)
	})
	if err != nil {
		return nil, nil, err
	}
	cols := p.del.columns()
	run := func(ctx context.Context, s session, args []Param) (*stmt.Result, error) {
		if err := s.CheckWrite(); err != nil {
			return nil, err
		}
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		out, err := s.runUpdate(ctx, p, args, false)
		if err != nil {
			return nil, err
		}
		return p.result(ctx, out, args)
	}
	return runOn(run), cols, nil
}

// runUpdate runs (or, dry, plans) the update through the engine.
func (s session) runUpdate(ctx context.Context, p *updatePlan, args []Param, dry bool) (deletes.Outcome, error) {
	ctx = engine.WithStatement(ctx, s.QueryEnv())
	pred, err := p.del.predicate(ctx, args)
	if err != nil {
		return deletes.Outcome{}, err
	}
	opts := deletes.UpdateOptions{Options: s.DeleteOptions(dry), KeepNew: p.del.returning != nil}
	fn := func(ctx context.Context, old arrow.RecordBatch) (arrow.RecordBatch, error) {
		return p.newRows(ctx, old, args)
	}
	out, err := deletes.Update(ctx, s.CommitTarget(), p.del.rt.Ident, pred, fn, opts)
	if err != nil {
		return out, fmt.Errorf("update %s: %w", strings.Join(p.del.rt.Ident, "."), err)
	}
	return out, nil
}

// newRows evaluates the SET list over old rows (every table column, in
// order), checking NOT NULL.
func (p *updatePlan) newRows(ctx context.Context, old arrow.RecordBatch, args []Param) (arrow.RecordBatch, error) {
	b, err := lake.ToExecutorTypes(old)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	schema := tableArrowSchema(p.del.scope)
	cols := make([]arrow.Array, b.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range cols {
		e, ok := p.sets[i]
		if !ok && !arrow.TypeEqual(b.Column(i).DataType(), schema.Field(i).Type) {
			// Kept, but read as another type than stored (smallint's
			// Iceberg int): read it as the column's type.
			e, ok = &sql.ColumnRef{Index: i, T: p.del.scope.Columns[i].T}, true
		}
		if ok {
			if cols[i], err = sql.Eval(ctx, e, b, args); err != nil {
				return nil, err
			}
		} else {
			cols[i] = b.Column(i)
			cols[i].Retain()
		}
		if p.require[i] && cols[i].NullN() > 0 {
			return nil, &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint",
					p.del.scope.Columns[i].Name, p.del.rt.Ident[len(p.del.rt.Ident)-1])}
		}
		if !arrow.TypeEqual(cols[i].DataType(), schema.Field(i).Type) {
			return nil, fmt.Errorf("column %s: value of type %s for %s", schema.Field(i).Name, cols[i].DataType(), schema.Field(i).Type)
		}
	}
	out := array.NewRecordBatch(schema, cols, b.NumRows())
	defer out.Release()
	return sql.FitDeclared(out, p.declared)
}

// result answers UPDATE n, or the RETURNING rows (over the new values).
func (p *updatePlan) result(ctx context.Context, out deletes.Outcome, args []Param) (*stmt.Result, error) {
	tag := fmt.Sprintf("UPDATE %d", out.Deleted)
	if p.del.returning == nil {
		engine.ReleaseAll(out.Returned)
		return stmt.TagOnly(tag), nil
	}
	var rows []arrow.RecordBatch
	for _, b := range out.Returned {
		r, err := engine.Project(ctx, p.del.returning, p.del.names, b, args)
		b.Release()
		if err != nil {
			engine.ReleaseAll(rows)
			return nil, err
		}
		rows = append(rows, r)
	}
	br := engine.NewBatchRows("UPDATE", rows)
	br.SetTag(tag)
	return &stmt.Result{Columns: p.del.columns(), Rows: br}, nil
}
