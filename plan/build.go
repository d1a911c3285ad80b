package plan

import (
	"context"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// Env is what binding reads of the session: its relations by name, and
// the files read_csv and read_parquet may open (nil refuses them).
type Env struct {
	Catalog Catalog
	Files   FileReader
	// Manifests caches the manifests the join order reads column bounds
	// from (nil: read them).
	Manifests *lake.ManifestCache
}

// Builder binds one statement's queries into logical plans; it plans the
// subqueries their expressions hold (sql.SubqueryPlanner) with the CTEs
// in scope.
type Builder struct {
	ctx    context.Context
	env    Env
	params *sql.Params
	// subs are the subqueries planned so far, in the order planned, for
	// the engine to compile (Subqueries).
	subs []*Subquery
	// counts memoises what each scan's table tells of its columns
	// (columnCounts).
	counts map[*Scan]ColumnCounts
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
	depth int // its WITH list's index in Builder.ctes
	index int // its place in that list: its body sees the ones before
	// recursive marks a WITH RECURSIVE list's query, which sees itself;
	// work is set while its recursive term is planned.
	recursive bool
	work      *WorkTable
	// refs counts the references to it in its statement; one read more
	// than once is bound once (shared) and materialised once per
	// statement, as PostgreSQL does: each reference sees the same rows,
	// random() and all.
	refs   int
	shared *Query
}

// NewBuilder binds with the statement's parameters (nil: none).
func NewBuilder(ctx context.Context, env Env, params *sql.Params) *Builder {
	if params == nil {
		params = &sql.Params{}
	}
	return &Builder{ctx: ctx, env: env, params: params}
}

// Select binds a statement's query over the catalog's relations as they
// are now.
func (p *Builder) Select(st *sql.Select) (*Query, error) {
	prev := p.params.Subqueries
	p.params.Subqueries = p
	defer func() { p.params.Subqueries = prev }()
	q, err := p.query(st, nil)
	if err != nil {
		return nil, err
	}
	regNames(q)
	return q, nil
}

// Source binds what a MERGE (or DML's USING/FROM) reads: st's FROM.
// The caller has made the builder its parameters' subquery planner.
func (p *Builder) Source(st *sql.Select) (Node, error) { return p.queryFrom(st, nil) }

// PushWith brings a statement's WITH queries into scope (PopWith ends it).
func (p *Builder) PushWith(w *sql.With) error { return p.pushWith(w) }

// PopWith ends the innermost WITH list's scope.
func (p *Builder) PopWith() { p.popWith() }

// Subqueries are the expression subqueries planned so far, nested ones
// included, in the order planned.
func (p *Builder) Subqueries() []*Subquery { return p.subs }

// query binds a query at any level; outer is the enclosing query's scope
// for a subquery, nil otherwise.
func (p *Builder) query(st *sql.Select, outer *sql.Outer) (*Query, error) {
	untyped := p.untyped
	p.untyped = false
	if with := st.With(); with != nil {
		if err := p.pushWith(with); err != nil {
			return nil, err
		}
		defer p.popWith()
		for _, c := range p.ctes[len(p.ctes)-1] {
			c.refs = st.References(c.name)
		}
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
func (p *Builder) queryFrom(st *sql.Select, outer *sql.Outer) (Node, error) {
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
	return OneRow{}, nil
}

func (p *Builder) pushWith(w *sql.With) error {
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

func (p *Builder) popWith() { p.ctes = p.ctes[:len(p.ctes)-1] }

// lookupCTE finds the WITH query an unqualified name means, innermost first.
func (p *Builder) lookupCTE(n sql.TableName) *cte {
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
func (p *Builder) PlanSubquery(node *sql.Query, outer *sql.Outer) (sql.SubPlan, error) {
	st, err := node.Select()
	if err != nil {
		return nil, err
	}
	if node.ExistsOnly() {
		st = existsTargets(st)
	}
	q, err := p.query(st, outer)
	if err != nil {
		return nil, err
	}
	sub := &Subquery{Query: q, Correlated: len(outer.Refs) > 0}
	if sub.Correlated {
		if k, ok := keyedForm(q, node.ExistsOnly()); ok {
			sub.Keyed = k
			stripOuter(q.From)
		} else {
			markReread(q.From)
		}
	}
	p.subs = append(p.subs, sub)
	return sub, nil
}

// regNames prints the query's regclass, regtype and regnamespace outputs as
// the names they stand for, as PostgreSQL's output functions do; the client
// sees them as text.
func regNames(q *Query) {
	for i, e := range q.Outputs {
		if e.Type().Reg != sql.RegNone {
			q.Outputs[i] = &sql.Cast{X: e, T: sql.Text}
		}
	}
}

// columnCounts are what the table s reads tells of its columns'
// distinct values: the integer bounds its files record, and the distinct
// counts of the statistics ANALYZE committed for the snapshot read (or
// its nearest analyzed ancestor), read from the table's metadata. Bounds
// that cannot be read are left out (the join order then guesses from row
// counts alone).
func (p *Builder) columnCounts(s *Scan) ColumnCounts {
	if c, ok := p.counts[s]; ok {
		return c
	}
	r, err := lake.ColumnRanges(p.ctx, s.Table.Table, s.SnapshotID, p.env.Manifests)
	if err != nil {
		r = nil
	}
	c := ColumnCounts{Ranges: r, NDV: lake.ColumnNDVs(s.Table.Table, s.SnapshotID)}
	if p.counts == nil {
		p.counts = map[*Scan]ColumnCounts{}
	}
	p.counts[s] = c
	return c
}
