package sql

import "github.com/magmalake/magmalake/sql/parse"

// Query is a query nested in a statement, as parsed: a derived table, a
// subquery, a WITH query's body or a set operation's branch. Select reads
// it when the planner gets to it.
type Query struct {
	n parse.Node
	// exists: the query is EXISTS's, whose rows matter only by existing.
	exists bool
}

// ExistsOnly reports a subquery of EXISTS: what its rows hold is never read.
func (q *Query) ExistsOnly() bool { return q.exists }

// Select is the query's Select.
func (q *Query) Select() (*Select, error) { return selectFromAST(q.n) }

// References reports whether the query names table (unqualified) as a
// relation anywhere in it.
func (q *Query) References(table string) bool {
	found := false
	parse.Inspect(q.n, func(n parse.Node) bool {
		if tn, ok := n.(*parse.TableName); ok && tn.Schema == "" && tn.Name == table {
			found = true
		}
		return !found
	})
	return found
}

// RecursiveTerms splits a recursive WITH query's body written as
// start UNION [ALL] step (no ORDER BY or LIMIT of its own); ok is false
// for any other form.
func (q *Query) RecursiveTerms() (start, step *Query, op SetOp, ok bool) {
	set, isSet := q.n.(*parse.SetOp)
	if !isSet || set.Nested || len(set.Branches) != 2 || set.OrderBy != nil || set.Limit != nil {
		return nil, nil, 0, false
	}
	first, second := set.Branches[0], set.Branches[1]
	if second.Op != parse.SetOpUnion && second.Op != parse.SetOpUnionAll {
		return nil, nil, 0, false
	}
	return &Query{n: first.Query}, &Query{n: second.Query}, setOpOf(second.Op), true
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

func setOpOf(t parse.SetOpKind) SetOp {
	switch t {
	case parse.SetOpUnionAll:
		return SetUnionAll
	case parse.SetOpIntersect:
		return SetIntersect
	case parse.SetOpIntersectAll:
		return SetIntersectAll
	case parse.SetOpExcept:
		return SetExcept
	case parse.SetOpExceptAll:
		return SetExceptAll
	}
	return SetUnion
}

// SetOperation is UNION / INTERSECT / EXCEPT [ALL] over branches, as
// written (INTERSECT binding tighter is the planner's business).
type SetOperation struct{ set *parse.SetOp }

// SetBranch is one branch of a set operation and the operator before it
// (SetUnion for the first, or when none is written).
type SetBranch struct {
	Query *Query
	Op    SetOp
}

// Branches are the operation's branches in order.
func (s *SetOperation) Branches() []SetBranch {
	out := make([]SetBranch, len(s.set.Branches))
	for i, b := range s.set.Branches {
		out[i] = SetBranch{Query: &Query{n: b.Query}, Op: setOpOf(b.Op)}
	}
	return out
}

// With is a WITH clause.
type With struct {
	Recursive bool
	CTEs      []CTE
	w         *parse.With
}

// CTE is one WITH query: its name, its column names (none: the body's),
// and its body.
type CTE struct {
	Name    string
	Columns []string
	Body    *Query
}

// withOf is w as a With; nil for nil.
func withOf(w *parse.With) *With {
	if w == nil {
		return nil
	}
	out := &With{Recursive: w.Recursive, w: w}
	for _, c := range w.CTEs {
		out.CTEs = append(out.CTEs, CTE{Name: c.Name, Columns: c.Columns, Body: &Query{n: c.Query}})
	}
	return out
}

// clause is the parsed WITH clause; nil for nil.
func (w *With) clause() *parse.With {
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
func fromItemOf(n parse.From) FromItem {
	switch x := n.(type) {
	case *parse.Join:
		if x.Right == nil {
			return fromItemOf(x.Left)
		}
		return &FromJoin{x}
	case *parse.TableSource:
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
type FromJoin struct{ j *parse.Join }

func (*FromJoin) fromItem() {}

// Construct names the join, for messages.
func (j *FromJoin) Construct() string { return constructName(j.j) }

// Left is the join's left side.
func (j *FromJoin) Left() FromItem { return fromItemOf(j.j.Left) }

// Right is the join's right side.
func (j *FromJoin) Right() FromItem { return fromItemOf(j.j.Right) }

// LateralRight is the right side when it is a LATERAL item.
func (j *FromJoin) LateralRight() (*FromTable, bool) {
	ts, ok := j.j.Right.(*parse.TableSource)
	if !ok || !ts.Lateral {
		return nil, false
	}
	return &FromTable{ts}, true
}

// Kind is the join's kind.
func (j *FromJoin) Kind() JoinKind {
	switch j.j.Kind {
	case parse.JoinFull:
		return JoinFull
	case parse.JoinLeft:
		return JoinLeft
	case parse.JoinRight:
		return JoinRight
	}
	return JoinInner
}

// Natural reports NATURAL.
func (j *FromJoin) Natural() bool { return j.j.Natural }

// On is the ON condition; nil for none.
func (j *FromJoin) On() Syntax { return syntaxOf(j.j.On) }

// Using are the column names of USING (...); nil for none.
func (j *FromJoin) Using() []string {
	if len(j.j.Using) == 0 {
		return nil
	}
	return append([]string(nil), j.j.Using...)
}

// FromTable is a relation or a subquery in FROM, with its alias.
type FromTable struct{ ts *parse.TableSource }

func (*FromTable) fromItem() {}

// Alias is the alias as the front end folded it: the name, then the
// column names, joined by AliasColumnSep.
func (t *FromTable) Alias() string { return t.ts.Alias }

// Lateral reports LATERAL (and a function in FROM, LATERAL by default).
func (t *FromTable) Lateral() bool { return t.ts.Lateral }

// NotLateral records that the item reads nothing of the items before it:
// the join it is in plans from now on as an ordinary one.
func (t *FromTable) NotLateral() { t.ts.Lateral = false }

// Relation is the table (or view, or WITH query) the item names.
func (t *FromTable) Relation() (TableName, bool) {
	tn, ok := t.ts.Source.(*parse.TableName)
	if !ok {
		return TableName{}, false
	}
	return TableName{Schema: tn.Schema, Table: tn.Name}, true
}

// Query is the item's subquery; ok is false when it is something else,
// which Query.Select then refuses.
func (t *FromTable) Query() (q *Query, ok bool) {
	switch t.ts.Source.(type) {
	case *parse.Select, *parse.SetOp:
		ok = true
	}
	return &Query{n: t.ts.Source}, ok
}

// Construct names the item's source (a table, a subquery...), for messages.
func (t *FromTable) Construct() string { return constructName(t.ts.Source) }

// FromOther is a FROM item of a form the planner does not take.
type FromOther struct{ n parse.From }

func (*FromOther) fromItem() {}

// Construct names the form, for messages.
func (o *FromOther) Construct() string { return constructName(o.n) }

// WindowSpec is a named window of a WINDOW clause.
type WindowSpec struct {
	Name string
	spec *parse.WindowSpec
}

func windowSpecs(specs []parse.WindowSpec) []WindowSpec {
	var out []WindowSpec
	for i := range specs {
		out = append(out, WindowSpec{Name: specs[i].Name, spec: &specs[i]})
	}
	return out
}

// Parsed reports a SELECT (or TABLE, or VALUES) as parsed: not a set
// operation, nor a query the planner put together.
func (s *Select) Parsed() bool { return s.raw != nil }

// OtherForm reports TABLE t or VALUES written as a query.
func (s *Select) OtherForm() bool { return s.raw != nil && s.raw.Kind != parse.SelectPlain }

// HasFrom reports a parsed SELECT with a FROM clause.
func (s *Select) HasFrom() bool { return s.raw != nil && s.raw.From != nil }

// FromClause is a parsed SELECT's FROM clause as a tree; nil for none.
func (s *Select) FromClause() FromItem {
	if s.raw == nil || s.raw.From == nil {
		return nil
	}
	return fromItemOf(s.raw.From)
}

// SetOperation is the set operation the query is; nil for any other.
func (s *Select) SetOperation() *SetOperation {
	if s.rawSetOpr == nil {
		return nil
	}
	return &SetOperation{s.rawSetOpr}
}

// With is the query's WITH clause; nil for none.
// References counts the places the select (its WITH queries and
// subqueries included) names table (unqualified) as a relation; a name an
// inner WITH shadows counts too.
func (s *Select) References(table string) int {
	var root parse.Node
	switch {
	case s.rawSetOpr != nil:
		root = s.rawSetOpr
	case s.raw != nil:
		root = s.raw
	default:
		return 0
	}
	n := 0
	parse.Inspect(root, func(x parse.Node) bool {
		if tn, ok := x.(*parse.TableName); ok && tn.Schema == "" && tn.Name == table {
			n++
		}
		return true
	})
	return n
}

func (s *Select) With() *With {
	switch {
	case s.rawSetOpr != nil:
		return withOf(s.rawSetOpr.With)
	case s.raw != nil:
		return withOf(s.raw.With)
	}
	return nil
}
