package engine

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Query is a planned query, ready to run any number of times.
type Query struct {
	root *selectQuery
	env  *Env
	deps *Deps
}

// Plan binds a query over the catalog's relations as they are now,
// recording what it read of them (Query.Current).
func Plan(ctx context.Context, env *Env, st *sql.Select, params *sql.Params) (*Query, error) {
	if params == nil {
		params = &sql.Params{}
	}
	env.Binds.add()
	deps := NewDeps(env)
	env = env.Recording(deps)
	defer deps.Seal()
	p := &planner{ctx: ctx, env: env, params: params}
	prev := params.Subqueries
	params.Subqueries = p
	defer func() { params.Subqueries = prev }()
	q, err := p.query(st, nil)
	if err != nil {
		return nil, err
	}
	regNames(q)
	return &Query{root: q, env: env, deps: deps}, nil
}

// Current reports whether the relations the query was bound over are
// still what binding read (Deps.Current): then it may run again as it is,
// reading the tables' data as it is now.
func (q *Query) Current(ctx context.Context) (bool, error) {
	return q.deps.Current(ctx)
}

// regNames prints the query's regclass, regtype and regnamespace outputs as
// the names they stand for, as PostgreSQL's output functions do; the client
// sees them as text.
func regNames(q *selectQuery) {
	for i, e := range q.outputs {
		if e.Type().Reg != sql.RegNone {
			q.outputs[i] = &sql.Cast{X: e, T: sql.Text}
		}
	}
}

// Columns describe the query's rows.
func (q *Query) Columns() []Column { return q.root.columns() }

// Run executes the query with the statement's parameter values.
func (q *Query) Run(ctx context.Context, params []any) (stmt.Rows, error) {
	return q.root.run(WithStatement(ctx, q.env), q.env, params)
}

// planner binds one statement's queries; it plans the subqueries its
// expressions hold (sql.SubqueryPlanner) with the CTEs in scope.
type planner struct {
	ctx    context.Context
	env    *Env
	params *sql.Params
	ctes   []map[string]*cte // WITH lists in scope, innermost last
	views  int               // views being expanded, outermost first
	// untyped asks the next query level bound to leave untyped literal
	// outputs untyped: it is a set operation's branch.
	untyped bool
}

// cte is a WITH query, planned anew (inlined) at each reference.
type cte struct {
	name  string
	cols  []string
	body  *sql.Query
	depth int // its WITH list's index in planner.ctes
	index int // its place in that list: its body sees the ones before
	// recursive marks a WITH RECURSIVE list's query, which sees itself;
	// work is set while its recursive term is planned.
	recursive bool
	work      *workTable
}

// query binds a query at any level; outer is the enclosing query's scope
// for a subquery, nil otherwise.
func (p *planner) query(st *sql.Select, outer *sql.Outer) (*selectQuery, error) {
	untyped := p.untyped
	p.untyped = false
	if with := st.With(); with != nil {
		if err := p.pushWith(with); err != nil {
			return nil, err
		}
		defer p.popWith()
	}
	src, err := p.queryFrom(st, outer)
	if err != nil {
		return nil, err
	}
	if src, err = p.selectListSRFs(st, src, outer); err != nil {
		return nil, err
	}
	if st.SetOperation() != nil || st.OtherForm() {
		st = &sql.Select{Items: []sql.SelectItem{{Star: true}}, OrderBy: st.OrderBy, Limit: st.Limit, Offset: st.Offset}
	}
	return p.bindQuery(st, src, outer, untyped)
}

// queryFrom is the source a query level reads: its FROM clause, or the set
// operation it is.
func (p *planner) queryFrom(st *sql.Select, outer *sql.Outer) (source, error) {
	switch {
	case st.SetOperation() != nil:
		return p.setOperation(st.SetOperation(), outer)
	case st.OtherForm():
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this form of query is not supported")
	case st.From != nil && !st.Complex:
		if c := p.lookupCTE(st.From.Name); c != nil {
			return p.cteRef(c, st.From)
		}
		return p.openTable(st.From)
	case st.FromClause() != nil:
		return p.fromItem(st.FromClause(), outer)
	}
	return noSource{}, nil
}

func (p *planner) pushWith(w *sql.With) error {
	level := map[string]*cte{}
	p.ctes = append(p.ctes, level)
	for _, c := range w.CTEs {
		name := c.Name
		if _, dup := level[name]; dup {
			return pgerr.Errorf(pgerr.DuplicateAlias, "WITH query name %q specified more than once", name)
		}
		d := &cte{name: name, body: c.Body, depth: len(p.ctes) - 1, index: len(level), recursive: w.Recursive}
		d.cols = append(d.cols, c.Columns...)
		// A WITH query sees the ones before it in the same list.
		level[name] = d
	}
	return nil
}

func (p *planner) popWith() { p.ctes = p.ctes[:len(p.ctes)-1] }

// lookupCTE finds the WITH query an unqualified name means, innermost first.
func (p *planner) lookupCTE(n sql.TableName) *cte {
	if n.Schema != "" {
		return nil
	}
	for i := len(p.ctes) - 1; i >= 0; i-- {
		if c, ok := p.ctes[i][n.Table]; ok {
			return c
		}
	}
	return nil
}

// PlanSubquery plans a subquery of an expression (sql.SubqueryPlanner).
func (p *planner) PlanSubquery(node *sql.Query, outer *sql.Outer) (sql.SubPlan, error) {
	st, err := node.Select()
	if err != nil {
		return nil, err
	}
	q, err := p.query(st, outer)
	if err != nil {
		return nil, err
	}
	sp := &subPlan{q: q, env: p.env}
	if len(outer.Refs) > 0 {
		if k, ok := keyedPlan(sp); ok {
			return k, nil
		}
		markReuse(q.src)
	}
	return sp, nil
}

// subPlan runs a subquery for the expression evaluator.
type subPlan struct {
	q   *selectQuery
	env *Env
}

func (s *subPlan) Columns() []sql.Type {
	cols := s.q.columns()
	out := make([]sql.Type, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

// Run is the subquery's rows for one outer row; they must fit work_mem.
func (s *subPlan) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	return s.rows(ctx, params, outer, newMemBudget(s.env.Options.WorkMem))
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
