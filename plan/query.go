package plan

import (
	"fmt"
	"maps"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// Query is one query level, bound: what it reads (From, whose scope is
// Input), its WHERE, grouping, window calls, HAVING, outputs, ORDER BY,
// DISTINCT and LIMIT, its expressions over Input.
type Query struct {
	// Shared marks a WITH query read by several references: one Query,
	// run once per statement, into which no reference pushes filters.
	Shared     bool
	From       Node
	Input      *sql.Scope
	Where      sql.Expr
	DistinctOn []int   // output columns of SELECT DISTINCT ON
	Sets       [][]int // grouping sets as GROUP BY key indexes; nil: one, all keys
	Agg        *sql.AggContext
	Win        *sql.WindowContext // window calls, computed after grouping
	// WinTop, when above zero, is how many rows of each window partition
	// the query reading this one keeps (window_top.go); -1: none.
	WinTop   int64
	Having   sql.Expr
	Outputs  []sql.Expr // visible columns, then hidden ORDER BY keys
	Visible  int
	Names    []string
	Order    []OrderKey
	Distinct bool
	Limit    sql.Expr
	Offset   sql.Expr
}

// OrderKey is one ORDER BY key: a column of the extended output (visible
// outputs followed by hidden sort expressions).
type OrderKey struct {
	Col  int
	Spec SortSpec
}

// SortSpec is one ORDER BY key. PostgreSQL puts NULLs last ascending and
// first descending unless told otherwise.
type SortSpec struct {
	Desc       bool
	NullsFirst bool
}

// ColumnTypes are the types of Columns, in order.
func (q *Query) ColumnTypes() []sql.Type {
	cols := q.Columns()
	out := make([]sql.Type, len(cols))
	for i, c := range cols {
		out[i] = c.Type
	}
	return out
}

func (q *Query) Columns() []sql.Column {
	cols := make([]sql.Column, q.Visible)
	for i := range cols {
		t := q.Outputs[i].Type()
		if t.Kind == sql.KindUnknown {
			t = sql.Text
		}
		cols[i] = sql.Column{Name: q.Names[i], Type: t}
	}
	return cols
}

// placeWindows renumbers the window columns to follow the layout the
// outputs read (the input, or the groups).
func (q *Query) placeWindows() {
	if q.Win == nil {
		return
	}
	layout := len(q.Input.Columns)
	if q.Agg != nil {
		layout = len(q.Agg.GroupBy) + len(q.Agg.Calls)
	}
	m := make(map[int]int, layout+len(q.Win.Calls))
	for i := 0; i < layout; i++ {
		m[i] = i
	}
	for k := range q.Win.Calls {
		m[windowBase+k] = layout + k
	}
	q.Win.Base = layout
	for i, e := range q.Outputs {
		q.Outputs[i] = sql.RemapColumns(e, m)
	}
}

func (q *Query) findOutput(e sql.Expr) int {
	s := e.String()
	for i, o := range q.Outputs {
		if o.String() == s && o.Type() == e.Type() {
			return i
		}
	}
	return -1
}

// inputColumns lists the input columns the query reads, ascending, with
// the ones it names (named may be nil).
func (q *Query) inputColumns(named map[int]bool) []int {
	seen := maps.Clone(named)
	if seen == nil {
		seen = map[int]bool{}
	}
	var roots []sql.Expr
	if q.Where != nil {
		roots = append(roots, q.Where)
	}
	if q.Agg != nil {
		roots = append(roots, q.Agg.GroupBy...)
		for _, c := range q.Agg.Calls {
			roots = append(roots, c.Inputs()...)
		}
	} else {
		roots = append(roots, q.Outputs...)
		if q.Win != nil {
			for _, c := range q.Win.Calls {
				roots = append(roots, windowExprs(c)...)
			}
		}
	}
	for _, r := range roots {
		sql.CollectColumns(r, seen)
	}
	var out []int
	for i := range q.Input.Columns {
		if seen[i] {
			out = append(out, i)
		}
	}
	return out
}

// describe is a one-line summary used in errors.
func (q *Query) describe() string {
	return fmt.Sprintf("SELECT %s", strings.Join(q.Names, ", "))
}

// windowExprs are the expressions a window call reads.
func windowExprs(c *sql.WindowCall) []sql.Expr {
	out := append([]sql.Expr(nil), c.Args...)
	out = append(out, c.Partition...)
	for _, o := range c.Order {
		out = append(out, o.Expr)
	}
	return out
}
