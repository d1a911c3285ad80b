package dml

import (
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/plan"

	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// deletePlan is a bound DELETE.
type deletePlan struct {
	rt        *plan.Table
	scope     *sql.Scope // every table column
	where     sql.Expr   // over scope; nil: no WHERE
	returning []sql.Expr // over scope
	names     []string
}

func (s session) planDelete(ctx context.Context, st *sql.Delete, params *sql.Params) (*deletePlan, error) {
	rt, err := s.ResolveTable(ctx, st.Table, true)
	if err != nil {
		return nil, err
	}
	if err := s.Writable(rt, "delete from", st.Table); err != nil {
		return nil, err
	}
	qual := st.Alias
	if qual == "" {
		qual = st.Table.Table
	}
	p := &deletePlan{rt: rt, scope: s.Scope(rt.Table, qual)}
	if params == nil {
		params = &sql.Params{}
	}
	// Subqueries in WHERE, SET and RETURNING run in the query engine.
	params.Subqueries, err = engine.SubqueryPlanner(ctx, s.QueryEnv(), params, st.With)
	if err != nil {
		return nil, err
	}
	if st.Alias != "" {
		p.scope.Aliased = map[string]string{st.Table.Table: st.Alias}
	}
	if st.Where != nil {
		if sql.HasAggregate(st.Where) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in WHERE")
		}
		if p.where, err = sql.BindCondition(st.Where, p.scope, params, "WHERE"); err != nil {
			return nil, err
		}
	}
	ret, err := bindReturning(ctx, s, st.Returning, p.scope, params)
	if err != nil {
		return nil, err
	}
	if ret != nil {
		p.returning, p.names = ret.exprs, ret.names
	}
	return p, nil
}

func (p *deletePlan) columns() []stmt.Column {
	if p.returning == nil {
		return nil
	}
	cols := make([]stmt.Column, len(p.returning))
	for i, e := range p.returning {
		cols[i] = stmt.Column{Name: p.names[i], Type: e.Type()}
	}
	return cols
}

// predicate builds the delete engine's view of the WHERE clause: an Iceberg
// filter implied by it for pruning and whole-file proofs, and the exact row
// test over only the columns it reads.
func (p *deletePlan) predicate(ctx context.Context, params []Param) (deletes.Predicate, error) {
	if p.where == nil {
		return deletes.Predicate{Filter: iceberg.AlwaysTrue{}, Exact: true}, nil
	}
	tr := sql.Translate(ctx, p.where, p.scope, params)
	used := map[int]bool{}
	sql.CollectColumns(p.where, used)
	reduced := &sql.Scope{}
	var cols []string
	remap := map[int]int{}
	for i, c := range p.scope.Columns {
		if used[i] {
			remap[i] = len(reduced.Columns)
			reduced.Columns = append(reduced.Columns, c)
			cols = append(cols, c.Name)
		}
	}
	matcher := sql.NewMatcher(sql.RemapColumns(p.where, remap), params)
	match := func(ctx context.Context, batch arrow.RecordBatch) ([]bool, error) {
		b, err := lake.ToExecutorTypes(batch)
		if err != nil {
			return nil, err
		}
		defer b.Release()
		return matcher.Match(ctx, b)
	}
	return deletes.Predicate{Filter: tr.Filter, Exact: tr.Exact, Columns: cols, Match: match}, nil
}

func (s session) prepareDelete(ctx context.Context, st *sql.Delete, params *sql.Params) (Run, []stmt.Column, error) {
	if st.Join != nil {
		pl, cols, ok, err := s.prepareJoinDML(ctx, func(ctx context.Context, s session) (*mergePlan, error) {
			return s.planJoinDelete(ctx, st, params)
		})
		if ok {
			return pl, cols, err
		}
	}
	k, p, err := keep(ctx, s, func(ctx context.Context, s session) (*deletePlan, error) {
		return s.planDelete(ctx, st, params)
	})
	if err != nil {
		return nil, nil, err
	}
	cols := p.columns()
	run := func(ctx context.Context, s session, args []Param) (*stmt.Result, error) {
		if err := s.CheckWrite(); err != nil {
			return nil, err
		}
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		out, err := s.runDelete(ctx, p, args, false)
		if err != nil {
			return nil, err
		}
		return p.result(ctx, out, args)
	}
	return runOn(run), cols, nil
}

// runDelete runs (or, dry, plans) the delete through the engine.
func (s session) runDelete(ctx context.Context, p *deletePlan, args []Param, dry bool) (deletes.Outcome, error) {
	ctx = engine.WithStatement(ctx, s.QueryEnv())
	pred, err := p.predicate(ctx, args)
	if err != nil {
		return deletes.Outcome{}, err
	}
	if out, ok, err := s.equalityDelete(ctx, p, pred, args, dry); ok || err != nil {
		return out, err
	}
	opts := s.DeleteOptions(dry)
	if p.returning != nil {
		for _, c := range p.scope.Columns {
			opts.Plan.ReturnColumns = append(opts.Plan.ReturnColumns, c.Name)
		}
	}
	// deletes.Delete names the table in its errors.
	return deletes.Delete(ctx, s.CommitTarget(), p.rt.Ident, pred, opts)
}

// result answers DELETE n, or the RETURNING rows tagged DELETE n.
func (p *deletePlan) result(ctx context.Context, out deletes.Outcome, args []Param) (*stmt.Result, error) {
	tag := fmt.Sprintf("DELETE %d", out.Deleted)
	if p.returning == nil {
		engine.ReleaseAll(out.Returned)
		return stmt.TagOnly(tag), nil
	}
	var rows []arrow.RecordBatch
	for _, b := range out.Returned {
		cb, err := lake.ToExecutorTypes(b)
		b.Release()
		if err != nil {
			engine.ReleaseAll(rows)
			return nil, err
		}
		r, err := engine.Project(ctx, p.returning, p.names, cb, args)
		cb.Release()
		if err != nil {
			engine.ReleaseAll(rows)
			return nil, err
		}
		rows = append(rows, r)
	}
	br := engine.NewBatchRows("DELETE", rows)
	br.SetTag(tag)
	return &stmt.Result{Columns: p.columns(), Rows: br}, nil
}
