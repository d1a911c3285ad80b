package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Query is a planned query, ready to run any number of times.
type Query struct {
	root *selectQuery
	env  *Env
	deps *Deps
	// nodes are the plan node each source runs, for EXPLAIN's estimates.
	nodes map[source]plan.Node
}

// Plan binds a query over the catalog's relations as they are now and
// compiles its logical plan into operators.
func Plan(ctx context.Context, env *Env, st *sql.Select, params *sql.Params) (*Query, error) {
	env.Binds.add()
	deps := NewDeps(env)
	env = env.Recording(deps)
	defer deps.Seal()
	b := plan.NewBuilder(ctx, env.PlanEnv(), params)
	lq, err := b.Select(st)
	if err != nil {
		return nil, err
	}
	deps.notePlan(lq, b.Subqueries())
	c := newCompiler(env)
	c.subqueries(b.Subqueries())
	return &Query{root: c.query(lq), env: env, deps: deps, nodes: c.nodes}, nil
}

// Current reports whether the relations the query was bound over are
// still what binding read (Deps.Current): then it may run again as it is,
// reading the tables' data as it is now.
func (q *Query) Current(ctx context.Context) (bool, error) {
	return q.deps.Current(ctx)
}

// Columns describe the query's rows.
func (q *Query) Columns() []sql.Column { return q.root.Columns() }

// Run executes the query with the statement's parameter values.
func (q *Query) Run(ctx context.Context, params []any) (stmt.Rows, error) {
	return q.root.run(WithStatement(ctx, q.env), q.env, params)
}

// subPlan runs a subquery for the expression evaluator.
type subPlan struct {
	q   *selectQuery
	env *Env
}

func (s *subPlan) Columns() []sql.Type { return s.q.ColumnTypes() }

// Run is the subquery's rows for one outer row; they must fit work_mem.
func (s *subPlan) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	mem := newMemBudget(ctx, s.env.Options.WorkMem)
	defer mem.close()
	return s.rows(ctx, params, outer, mem)
}

// rows runs the subquery for one outer row, its rows charged to mem.
func (s *subPlan) rows(ctx context.Context, params []any, outer []any, mem *memBudget) ([][]any, error) {
	ctx = sql.WithOuterRow(ctx, outer)
	rows, err := s.q.run(ctx, s.env, params)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := s.Columns()
	var out [][]any
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		n := len(out)
		out = appendDatumRows(out, b, types)
		if err := mem.charge(sql.RowsBytes(out[n:]), "a subquery"); err != nil {
			return nil, err
		}
	}
}

// appendDatumRows appends b's rows as datums.
func appendDatumRows(out [][]any, b arrow.RecordBatch, types []sql.Type) [][]any {
	n := int(b.NumRows())
	for r := 0; r < n; r++ {
		row := make([]any, len(types))
		for c, t := range types {
			row[c] = sql.DatumAt(b.Column(c), t, r)
		}
		out = append(out, row)
	}
	return out
}
