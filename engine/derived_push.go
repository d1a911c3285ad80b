package engine

import (
	"context"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// A join's dynamic filter on a subquery's output (its probe side) reaches
// into the subquery when every column it reads is a GROUP BY key (or, in a
// query without aggregates, a column of its FROM): keeping only the rows
// whose key passes before grouping gives the same groups for those keys,
// and the scan below reads past the others. TPC-H Q17 groups all lines by
// part, then keeps a few parts' averages; with the filter it groups those
// parts' lines only. The join still applies the filter to what comes out.

// pushFilter is ctx carrying f (over src's scope) into the subquery
// under src that can take it below itself; ctx unchanged otherwise. The
// operators stay what they are, so EXPLAIN ANALYZE counts them as ever.
func pushFilter(ctx context.Context, src source, f sql.Expr) context.Context {
	switch s := src.(type) {
	case *picked:
		remap := map[int]int{}
		for i, c := range s.cols {
			remap[i] = c
		}
		return pushFilter(ctx, s.src, sql.RemapColumns(f, remap))
	case *rescoped:
		return pushFilter(ctx, s.src, f)
	case *derivedSource:
		if w, ok := s.q.inputCondition(f); ok {
			return withPushedWhere(ctx, s.q, w)
		}
	}
	return ctx
}

// inputCondition is f, a condition on q's output columns, as a condition
// on its input rows; false when it cannot be one (an output that is no
// grouping key or plain input column, grouping sets, windows, LIMIT,
// DISTINCT ON, a shared WITH query).
func (q *selectQuery) inputCondition(f sql.Expr) (sql.Expr, bool) {
	if q.Shared || q.Win != nil || q.Limit != nil || q.Offset != nil || len(q.DistinctOn) > 0 || q.Sets != nil ||
		q.Agg != nil && len(q.Agg.GroupBy) == 0 || plan.HasVolatile(f) || plan.HasSubquery(f) {
		return nil, false
	}
	cols := map[int]bool{}
	sql.CollectColumns(f, cols)
	repl := map[int]sql.Expr{}
	for c := range cols {
		if c >= q.Visible {
			return nil, false
		}
		ref, ok := q.Outputs[c].(*sql.ColumnRef)
		if !ok {
			return nil, false
		}
		in := sql.Expr(ref)
		if q.Agg != nil {
			if ref.Index >= len(q.Agg.GroupBy) || plan.HasVolatile(q.Agg.GroupBy[ref.Index]) {
				return nil, false // an aggregate's value, or a key evaluated again would differ
			}
			in = q.Agg.GroupBy[ref.Index]
		}
		repl[c] = in
	}
	return sql.MapRefs(f, func(x *sql.ColumnRef) sql.Expr { return repl[x.Index] }, func(o *sql.OuterRef) sql.Expr { return o }), true
}

type pushedWhereKey struct{ q *selectQuery }

// withPushedWhere has q's run (and no other query's) add cond to its WHERE.
func withPushedWhere(ctx context.Context, q *selectQuery, cond sql.Expr) context.Context {
	return context.WithValue(ctx, pushedWhereKey{q}, cond)
}

// whereOf is q's WHERE with what a join pushed into this run of it.
func (q *selectQuery) whereOf(ctx context.Context) sql.Expr {
	if extra, ok := ctx.Value(pushedWhereKey{q}).(sql.Expr); ok {
		return plan.AndAfter(q.Where, extra)
	}
	return q.Where
}
