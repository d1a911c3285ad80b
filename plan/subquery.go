package plan

import (
	"context"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Subquery is a subquery of an expression, planned as a query level that
// may read the enclosing query's values (sql.OuterRef). It is the
// expression's sql.SubPlan: the engine compiles it (Exec) before the
// statement runs.
type Subquery struct {
	Query *Query
	// Correlated: it reads the enclosing query's values, so it runs per
	// outer row (or per outer key).
	Correlated bool
	// Keyed, when set, is the correlated subquery's keyed form: it runs
	// once, its rows kept by key.
	Keyed *Keyed
	// Exec runs it; the engine sets it when it compiles the plan.
	Exec sql.SubPlan
}

// Columns are the types of the subquery's output columns.
func (s *Subquery) Columns() []sql.Type { return s.Query.ColumnTypes() }

// Run is the subquery's rows for one row of the enclosing query.
func (s *Subquery) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	if s.Exec == nil {
		return nil, pgerr.Errorf(pgerr.InternalError, "a subquery was not compiled before it ran")
	}
	return s.Exec.Run(ctx, params, outer)
}
