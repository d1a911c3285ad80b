package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// ConstQuery is a SELECT without FROM, WHERE, grouping, DISTINCT or ORDER
// BY: one row of expressions. Its binding reads no table, so it is bound
// once at Prepare and evaluated per execution (now() and random() stay per
// statement); when every output is a literal the row itself is built once
// and shared.
type ConstQuery struct {
	q    *selectQuery
	cols []sql.Column
	// literal is the evaluated row when every output is a *sql.Const and
	// there is no LIMIT/OFFSET; built on first execution.
	literal  arrow.RecordBatch
	literals bool
}

// PlanConst binds st when it is a constant SELECT; ok is false for other
// shapes.
func PlanConst(ctx context.Context, env *Env, st *sql.Select, params *sql.Params) (c *ConstQuery, ok bool, err error) {
	if st.From != nil || st.Complex {
		return nil, false, nil
	}
	pq, err := Plan(ctx, env, st, params)
	if err != nil {
		return nil, true, err
	}
	q := pq.root
	if _, srf := q.src.(*srfSource); srf {
		return nil, false, nil
	}
	if _, srf := q.src.(*picked); srf {
		return nil, false, nil
	}
	if q.Where != nil || q.Agg != nil || q.Having != nil || q.Distinct || len(q.Order) > 0 || len(q.Outputs) != q.Visible {
		return nil, false, nil
	}
	// A subquery reads a table, pinned when it was planned: the general
	// path binds it again for every execution.
	for _, e := range append([]sql.Expr{q.Limit, q.Offset}, q.Outputs...) {
		if e != nil && plan.HasSubquery(e) {
			return nil, false, nil
		}
	}
	c = &ConstQuery{q: q, cols: q.Columns(), literals: q.Limit == nil && q.Offset == nil}
	for _, e := range q.Outputs {
		if _, isConst := e.(*sql.Const); !isConst {
			c.literals = false
		}
	}
	return c, true, nil
}

// Columns describe the row.
func (c *ConstQuery) Columns() []sql.Column { return c.cols }

// Run evaluates the row (after LIMIT/OFFSET).
func (c *ConstQuery) Run(ctx context.Context, params []any) (stmt.Rows, error) {
	b, err := c.row(sql.WithSubqueryCache(ctx), params)
	if err != nil {
		return nil, err
	}
	if c.q.Limit != nil || c.q.Offset != nil {
		limit, offset, err := c.q.bounds(ctx, params)
		if err != nil {
			b.Release()
			return nil, err
		}
		lim := limiter{limit: limit, offset: offset}
		b = lim.apply(b)
	}
	// One allocation holds the rows and their batch list.
	out := &constRows{}
	out.batch[0] = b
	out.rows = BatchRows{batches: out.batch[:], verb: "SELECT", tag: selectTag(b.NumRows())}
	return &out.rows, nil
}

type constRows struct {
	rows  BatchRows
	batch [1]arrow.RecordBatch
}

// row evaluates the outputs over the single empty input row; the caller
// owns (releases) the batch.
func (c *ConstQuery) row(ctx context.Context, params []any) (arrow.RecordBatch, error) {
	if c.literal != nil {
		c.literal.Retain()
		return c.literal, nil
	}
	in := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer in.Release()
	b, err := Project(ctx, c.q.Outputs, c.q.Names, in, params)
	if err != nil {
		return nil, err
	}
	if c.literals {
		b.Retain()
		c.literal = b
	}
	return b, nil
}

// selectTag is the tag of a one-row query after LIMIT/OFFSET.
func selectTag(n int64) string {
	if n == 0 {
		return "SELECT 0"
	}
	return "SELECT 1"
}
