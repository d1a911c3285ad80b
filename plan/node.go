package plan

import (
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/sql"
)

// Node is one relation of a logical plan: what a FROM item, a join or a
// query level produces, as the columns of its scope.
type Node interface {
	Scope() *sql.Scope
	// Project keeps only the given columns of Scope(), in that order: the
	// projection pushed down to the relation, so a scan reads only those.
	Project(cols []int) Node
}

// Scan reads an Iceberg table, as of a snapshot if asked.
type Scan struct {
	Table *Table
	Sc    *sql.Scope
	// Columns are the table columns read, by name; nil: every column.
	Columns    []string
	SnapshotID *int64
	// AsOf: the snapshot is the one FOR TIMESTAMP AS OF an expression
	// chose when the statement was bound.
	AsOf bool
	// Reread marks a scan read again per outer value of a correlated
	// subquery or LATERAL: worth keeping its batches for the statement.
	Reread bool
}

func (s *Scan) Scope() *sql.Scope { return s.Sc }

func (s *Scan) Project(cols []int) Node {
	p := *s
	p.Sc = &sql.Scope{}
	p.Columns = make([]string, 0, len(cols))
	for _, i := range cols {
		p.Sc.Columns = append(p.Sc.Columns, s.Sc.Columns[i])
		p.Columns = append(p.Columns, s.Sc.Columns[i].Name)
	}
	return &p
}

// Rows is a small relation read whole when the statement is planned: a
// metadata table ("t$snapshots") or a catalog relation (pg_class).
type Rows struct {
	Sc   *sql.Scope
	Data []arrow.RecordBatch
	// Cols are the columns of Data, one per scope column.
	Cols []int
}

func (r *Rows) Scope() *sql.Scope { return r.Sc }

func (r *Rows) Project(cols []int) Node {
	p := &Rows{Sc: &sql.Scope{}, Data: r.Data}
	for _, i := range cols {
		p.Sc.Columns = append(p.Sc.Columns, r.Sc.Columns[i])
		p.Cols = append(p.Cols, r.Cols[i])
	}
	return p
}

// OneRow is the single empty row SELECT without FROM evaluates over.
type OneRow struct{}

func (OneRow) Scope() *sql.Scope  { return &sql.Scope{} }
func (OneRow) Project([]int) Node { return OneRow{} }

// Files is what one read_csv/read_parquet call in FROM reads.
type Files struct {
	Rel  FileRelation
	Cols []int
	Sc   *sql.Scope
}

func (f *Files) Scope() *sql.Scope { return f.Sc }

func (f *Files) Project(cols []int) Node {
	q := &Files{Rel: f.Rel, Sc: &sql.Scope{Aliased: f.Sc.Aliased}}
	for _, c := range cols {
		q.Cols = append(q.Cols, f.Cols[c])
		q.Sc.Columns = append(q.Sc.Columns, f.Sc.Columns[c])
	}
	return q
}

// Series is generate_series(start, stop [, step]) over integers or
// numerics in FROM.
type Series struct {
	Args []sql.Expr
	T    sql.Type
	Sc   *sql.Scope
}

func (s *Series) Scope() *sql.Scope { return s.Sc }

func (s *Series) Project(cols []int) Node {
	if len(cols) == 1 {
		return s
	}
	return NewPick(s, cols)
}

// Derived is a query level read as a relation: a subquery in FROM, a WITH
// query or a view.
type Derived struct {
	Query *Query
	Sc    *sql.Scope
}

// NewDerived is q's rows with its columns qualified by qual.
func NewDerived(q *Query, qual string) *Derived {
	sc := &sql.Scope{}
	for _, c := range q.Columns() {
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Table: qual, Name: c.Name, T: c.Type})
	}
	return &Derived{Query: q, Sc: sc}
}

func (d *Derived) Scope() *sql.Scope { return d.Sc }

func (d *Derived) Project(cols []int) Node { return NewPick(d, cols) }

// Pick keeps some columns of its input, in a given order.
type Pick struct {
	Input Node
	Cols  []int
	Sc    *sql.Scope
}

// NewPick is columns cols of src.
func NewPick(src Node, cols []int) *Pick {
	full := src.Scope()
	sc := &sql.Scope{Aliased: full.Aliased}
	for _, c := range cols {
		sc.Columns = append(sc.Columns, full.Columns[c])
	}
	return &Pick{Input: src, Cols: cols, Sc: sc}
}

func (p *Pick) Scope() *sql.Scope { return p.Sc }

// Project pushes the projection into the input: it gives only the columns
// picked, and a pick of a pick is one pick.
func (p *Pick) Project(cols []int) Node {
	want := make([]int, len(cols))
	for i, c := range cols {
		want[i] = p.Cols[c]
	}
	need := slices.Clone(want)
	slices.Sort(need)
	need = slices.Compact(need)
	in := p.Input.Project(need)
	at := make(map[int]int, len(need))
	for k, c := range need {
		at[c] = k
	}
	out := make([]int, len(want))
	identity := len(want) == len(in.Scope().Columns)
	for i, c := range want {
		out[i] = at[c]
		identity = identity && out[i] == i
	}
	if identity {
		return in
	}
	if inner, ok := in.(*Pick); ok {
		for i, c := range out {
			out[i] = inner.Cols[c]
		}
		return NewPick(inner.Input, out)
	}
	return NewPick(in, out)
}

// Rename is its input seen under other column names (an alias's column
// list).
type Rename struct {
	Input Node
	Sc    *sql.Scope
}

func (r *Rename) Scope() *sql.Scope { return r.Sc }

func (r *Rename) Project(cols []int) Node {
	sc := &sql.Scope{Aliased: r.Sc.Aliased}
	for _, c := range cols {
		sc.Columns = append(sc.Columns, r.Sc.Columns[c])
	}
	return &Rename{Input: r.Input.Project(cols), Sc: sc}
}

// Given is rows the statement around the plan hands in: MERGE's target
// rows, which the delete engine reads file by file.
type Given struct {
	Sc *sql.Scope
}

func (g *Given) Scope() *sql.Scope { return g.Sc }

func (g *Given) Project([]int) Node { return g }

// Filter keeps the rows of its input Cond is true for: a condition pushed
// below where the query states it (a LATERAL join's left side).
type Filter struct {
	Input Node
	Cond  sql.Expr // over Input's scope
}

func (f *Filter) Scope() *sql.Scope { return f.Input.Scope() }

// Project keeps cols and, underneath, what the condition reads.
func (f *Filter) Project(cols []int) Node {
	need := map[int]bool{}
	for _, c := range cols {
		need[c] = true
	}
	sql.CollectColumns(f.Cond, need)
	keep := slices.Sorted(maps.Keys(need))
	at := make(map[int]int, len(keep))
	for k, c := range keep {
		at[c] = k
	}
	pf := &Filter{Input: f.Input.Project(keep), Cond: sql.RemapColumns(f.Cond, at)}
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = at[c]
	}
	return NewPick(pf, out)
}

// withFilter is n filtered by c as well.
func withFilter(n Node, c sql.Expr) Node {
	if f, ok := n.(*Filter); ok {
		return &Filter{Input: f.Input, Cond: AndAfter(f.Cond, c)}
	}
	return &Filter{Input: n, Cond: c}
}
