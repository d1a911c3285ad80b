package session

import (
	"context"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// constSelect runs a SELECT without FROM, WHERE, grouping, DISTINCT or
// ORDER BY: the engine binds it once at Prepare and evaluates it per
// execution.
type constSelect struct {
	q    *engine.ConstQuery
	cols []stmt.Column
}

// prepareConstSelect binds st when it is a constant SELECT. ok is false
// when the general path must handle it.
func (s *Session) prepareConstSelect(ctx context.Context, st *sql.Select, params *sql.Params) (pl plan, cols []stmt.Column, ok bool, err error) {
	q, ok, err := engine.PlanConst(ctx, s.queryEnv(), st, params)
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	c := &constSelect{q: q, cols: engine.ResultColumns(q.Columns())}
	return c, c.cols, true, nil
}

func (c *constSelect) execute(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error) {
	rows, err := c.q.Run(ctx, params)
	if err != nil {
		return nil, err
	}
	return &stmt.Result{Columns: c.cols, Rows: rows}, nil
}
