package sql

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Query is a query nested in a statement, as parsed: a derived table, a
// subquery, a WITH query's body or a set operation's branch. Select reads
// it when the planner gets to it.
type Query struct{ n ast.Node }

// Select is the query's Select.
func (q *Query) Select() (*Select, error) { return selectFromAST(q.n) }

// References reports whether the query names table (unqualified) as a
// relation anywhere in it.
func (q *Query) References(table string) bool {
	f := &tableNameFinder{name: table}
	q.n.Accept(f)
	return f.found
}

type tableNameFinder struct {
	name  string
	found bool
}

func (f *tableNameFinder) Enter(n ast.Node) (ast.Node, bool) {
	if tn, ok := n.(*ast.TableName); ok && tn.Schema.O == "" && tn.Name.O == f.name {
		f.found = true
	}
	return n, f.found
}

func (f *tableNameFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// RecursiveTerms splits a recursive WITH query's body written as
// start UNION [ALL] step (no ORDER BY or LIMIT of its own); ok is false
// for any other form.
func (q *Query) RecursiveTerms() (start, step *Query, op SetOp, ok bool) {
	set, isSet := q.n.(*ast.SetOprStmt)
	if !isSet || set.SelectList == nil || len(set.SelectList.Selects) != 2 || set.OrderBy != nil || set.Limit != nil {
		return nil, nil, 0, false
	}
	first, second := set.SelectList.Selects[0], set.SelectList.Selects[1]
	o := setOprOf(second)
	if o == nil || (*o != ast.Union && *o != ast.UnionAll) {
		return nil, nil, 0, false
	}
	return &Query{first}, &Query{second}, setOpOf(*o), true
}

// SetOp is a set operator.
type SetOp uint8

// The set operators.
const (
	SetUnion SetOp = iota
	SetUnionAll
	SetIntersect
	SetIntersectAll
	SetExcept
	SetExceptAll
)

func setOpOf(t ast.SetOprType) SetOp {
	switch t {
	case ast.UnionAll:
		return SetUnionAll
	case ast.Intersect:
		return SetIntersect
	case ast.IntersectAll:
		return SetIntersectAll
	case ast.Except:
		return SetExcept
	case ast.ExceptAll:
		return SetExceptAll
	}
	return SetUnion
}

func setOprOf(n ast.Node) *ast.SetOprType {
	switch x := n.(type) {
	case *ast.SelectStmt:
		return x.AfterSetOperator
	case *ast.SetOprSelectList:
		return x.AfterSetOperator
	}
	return nil
}

// SetOperation is UNION / INTERSECT / EXCEPT [ALL] over branches, as
// written (INTERSECT binding tighter is the planner's business).
type SetOperation struct{ list *ast.SetOprSelectList }

// SetBranch is one branch of a set operation and the operator before it
// (SetUnion for the first, or when none is written).
type SetBranch struct {
	Query *Query
	Op    SetOp
}

// Branches are the operation's branches in order.
func (s *SetOperation) Branches() []SetBranch {
	out := make([]SetBranch, len(s.list.Selects))
	for i, n := range s.list.Selects {
		out[i] = SetBranch{Query: &Query{n}}
		if o := setOprOf(n); o != nil {
			out[i].Op = setOpOf(*o)
		}
	}
	return out
}

// With is a WITH clause.
type With struct {
	Recursive bool
	CTEs      []CTE
	w         *ast.WithClause
}

// CTE is one WITH query: its name, its column names (none: the body's),
// and its body.
type CTE struct {
	Name    string
	Columns []string
	Body    *Query
}

// withOf is w as a With; nil for nil.
func withOf(w *ast.WithClause) *With {
	if w == nil {
		return nil
	}
	out := &With{Recursive: w.IsRecursive, w: w}
	for _, c := range w.CTEs {
		d := CTE{Name: c.Name.O, Body: &Query{c.Query.Query}}
		for _, col := range c.ColNameList {
			d.Columns = append(d.Columns, col.O)
		}
		out.CTEs = append(out.CTEs, d)
	}
	return out
}

// clause is the parsed WITH clause; nil for nil.
func (w *With) clause() *ast.WithClause {
	if w == nil {
		return nil
	}
	return w.w
}

// FromItem is one item of a FROM clause as parsed: a *FromJoin, a
// *FromTable (a relation or a subquery, with its alias) or a *FromOther (a
// form the planner does not take). Construct names it for messages.
type FromItem interface {
	Construct() string
	fromItem()
}

// fromItemOf is n as a FromItem; a join without a right side is its left.
func fromItemOf(n ast.ResultSetNode) FromItem {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			return fromItemOf(x.Left)
		}
		return &FromJoin{x}
	case *ast.TableSource:
		return &FromTable{x}
	}
	return &FromOther{n}
}

// JoinKind is which unmatched rows a join keeps.
type JoinKind uint8

// The join kinds.
const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinRight
	JoinFull
)

// FromJoin is left JOIN right.
type FromJoin struct{ j *ast.Join }

func (*FromJoin) fromItem() {}

// Construct names the join, for messages.
func (j *FromJoin) Construct() string { return constructName(j.j) }

// Left is the join's left side.
func (j *FromJoin) Left() FromItem { return fromItemOf(j.j.Left) }

// Right is the join's right side.
func (j *FromJoin) Right() FromItem { return fromItemOf(j.j.Right) }

// LateralRight is the right side when it is a LATERAL item.
func (j *FromJoin) LateralRight() (*FromTable, bool) {
	ts, ok := j.j.Right.(*ast.TableSource)
	if !ok || !ts.Lateral {
		return nil, false
	}
	return &FromTable{ts}, true
}

// Kind is the join's kind.
func (j *FromJoin) Kind() JoinKind {
	switch {
	case j.j.StraightJoin:
		return JoinFull
	case j.j.Tp == ast.LeftJoin:
		return JoinLeft
	case j.j.Tp == ast.RightJoin:
		return JoinRight
	}
	return JoinInner
}

// Natural reports NATURAL.
func (j *FromJoin) Natural() bool { return j.j.NaturalJoin || j.naturalMarker() }

// naturalMarker reports the front end's spelling of NATURAL FULL JOIN.
func (j *FromJoin) naturalMarker() bool {
	if j.j.On == nil {
		return false
	}
	call, ok := j.j.On.Expr.(*ast.FuncCallExpr)
	return ok && call.FnName.L == NaturalMarker
}

// On is the ON condition; nil for none.
func (j *FromJoin) On() Syntax {
	if j.j.On == nil || j.naturalMarker() {
		return nil
	}
	return syntaxOf(j.j.On.Expr)
}

// Using are the column names of USING (...); nil for none.
func (j *FromJoin) Using() []string {
	var names []string
	for _, u := range j.j.Using {
		names = append(names, u.Name.O)
	}
	return names
}

// FromTable is a relation or a subquery in FROM, with its alias.
type FromTable struct{ ts *ast.TableSource }

func (*FromTable) fromItem() {}

// Alias is the alias as the front end folded it: the name, then the
// column names, joined by AliasColumnSep.
func (t *FromTable) Alias() string { return t.ts.AsName.O }

// Lateral reports LATERAL (and a function in FROM, LATERAL by default).
func (t *FromTable) Lateral() bool { return t.ts.Lateral }

// NotLateral records that the item reads nothing of the items before it:
// the join it is in plans from now on as an ordinary one.
func (t *FromTable) NotLateral() { t.ts.Lateral = false }

// Relation is the table (or view, or WITH query) the item names.
func (t *FromTable) Relation() (TableName, bool) {
	tn, ok := t.ts.Source.(*ast.TableName)
	if !ok {
		return TableName{}, false
	}
	return TableName{Schema: tn.Schema.O, Table: tn.Name.O}, true
}

// Query is the item's subquery; ok is false when it is something else,
// which Query.Select then refuses.
func (t *FromTable) Query() (q *Query, ok bool) {
	switch t.ts.Source.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
		ok = true
	}
	return &Query{t.ts.Source}, ok
}

// Construct names the item's source (a table, a subquery...), for messages.
func (t *FromTable) Construct() string { return constructName(t.ts.Source) }

// FromOther is a FROM item of a form the planner does not take.
type FromOther struct{ n ast.ResultSetNode }

func (*FromOther) fromItem() {}

// Construct names the form, for messages.
func (o *FromOther) Construct() string { return constructName(o.n) }

// WindowSpec is a named window of a WINDOW clause.
type WindowSpec struct {
	Name string
	spec *ast.WindowSpec
}

func windowSpecs(specs []ast.WindowSpec) []WindowSpec {
	var out []WindowSpec
	for i := range specs {
		out = append(out, WindowSpec{Name: specs[i].Name.O, spec: &specs[i]})
	}
	return out
}

// Parsed reports a SELECT (or TABLE, or VALUES) as parsed: not a set
// operation, nor a query the planner put together.
func (s *Select) Parsed() bool { return s.raw != nil }

// OtherForm reports TABLE t or VALUES written as a query.
func (s *Select) OtherForm() bool { return s.raw != nil && s.raw.Kind != ast.SelectStmtKindSelect }

// HasFrom reports a parsed SELECT with a FROM clause.
func (s *Select) HasFrom() bool { return s.raw != nil && s.raw.From != nil }

// FromClause is a parsed SELECT's FROM clause as a tree; nil for none.
func (s *Select) FromClause() FromItem {
	if s.raw == nil || s.raw.From == nil || s.raw.From.TableRefs == nil {
		return nil
	}
	return fromItemOf(s.raw.From.TableRefs)
}

// SetOperation is the set operation the query is; nil for any other.
func (s *Select) SetOperation() *SetOperation {
	if s.rawSetOpr == nil {
		return nil
	}
	return &SetOperation{s.rawSetOpr.SelectList}
}

// With is the query's WITH clause; nil for none.
func (s *Select) With() *With {
	switch {
	case s.rawSetOpr != nil:
		if s.rawSetOpr.With != nil {
			return withOf(s.rawSetOpr.With)
		}
		return withOf(s.rawSetOpr.SelectList.With)
	case s.raw != nil:
		return withOf(s.raw.With)
	}
	return nil
}
