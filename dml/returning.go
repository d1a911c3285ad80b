package dml

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// returningList is a bound RETURNING over a table's rows.
type returningList struct {
	exprs []sql.Expr
	names []string
}

// bindReturning binds items over scope (nil: no RETURNING). Subqueries run
// in the query engine.
func bindReturning(ctx context.Context, s session, items []sql.SelectItem, scope *sql.Scope, params *sql.Params) (*returningList, error) {
	if len(items) == 0 {
		return nil, nil
	}
	params, err := s.withSubqueries(ctx, params)
	if err != nil {
		return nil, err
	}
	nodes, names, err := plan.ExpandItems(items, scope)
	if err != nil {
		return nil, err
	}
	r := &returningList{names: names}
	for _, n := range nodes {
		if sql.HasAggregate(n) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in RETURNING")
		}
		e, err := sql.Bind(n, scope, params)
		if err != nil {
			return nil, err
		}
		r.exprs = append(r.exprs, e)
	}
	return r, nil
}

func (r *returningList) columns() []stmt.Column {
	if r == nil {
		return nil
	}
	cols := make([]stmt.Column, len(r.exprs))
	for i, e := range r.exprs {
		cols[i] = stmt.Column{Name: r.names[i], Type: e.Type()}
	}
	return cols
}

// result projects RETURNING over the rows (which it releases), tagged.
func (r *returningList) result(ctx context.Context, verb, tag string, rows []arrow.RecordBatch, args []Param) (*stmt.Result, error) {
	ctx = sql.WithSubqueryCache(ctx)
	var out []arrow.RecordBatch
	for i, b := range rows {
		p, err := engine.Project(ctx, r.exprs, r.names, b, args)
		if err != nil {
			engine.ReleaseAll(rows[i:])
			engine.ReleaseAll(out)
			return nil, err
		}
		b.Release()
		out = append(out, p)
	}
	br := engine.NewBatchRows(verb, out)
	br.SetTag(tag)
	return &stmt.Result{Columns: r.columns(), Rows: br}, nil
}

// withSubqueries is params (a new set when nil) with a planner for the
// subqueries of the expressions bound with it.
func (s session) withSubqueries(ctx context.Context, params *sql.Params) (*sql.Params, error) {
	if params == nil {
		params = &sql.Params{}
	}
	if params.Subqueries == nil {
		var err error
		if params.Subqueries, err = engine.SubqueryPlanner(ctx, s.QueryEnv(), params, nil); err != nil {
			return nil, err
		}
	}
	return params, nil
}
