package sql

import (
	"slices"
	"testing"
)

// The questions the planner asks of parsed syntax, asked of parsed text.

func TestSyntaxOutputRefs(t *testing.T) {
	s := parseOne(t, "SELECT a, b FROM t ORDER BY 2, a, t.a, a + 1").(*Select)
	type want struct {
		pos   int64
		isPos bool
		bare  string
	}
	for i, w := range []want{{2, true, ""}, {0, false, "a"}, {0, false, ""}, {0, false, ""}} {
		pos, ok := OutputPosition(s.OrderBy[i].Expr)
		bare, _ := BareColumnName(s.OrderBy[i].Expr)
		if pos != w.pos || ok != w.isPos || bare != w.bare {
			t.Errorf("ORDER BY key %d: position %d %v, bare name %q; want %+v", i, pos, ok, bare, w)
		}
	}
	if got := syntaxShape(ColumnRefSyntax("t", "a")); got != "col:t.a" {
		t.Errorf("ColumnRefSyntax = %s", got)
	}
}

func TestSyntaxFinders(t *testing.T) {
	s := parseOne(t, "SELECT row_number() OVER (), (SELECT rank() OVER ()), unnest(x) + unnest(y), $1 FROM t").(*Select)
	items := make([]Syntax, len(s.Items))
	for i, it := range s.Items {
		items[i] = it.Expr
	}
	if !HasWindow(items[0]) || HasWindow(items[1]) || HasWindow(items[2]) {
		t.Errorf("HasWindow: %v %v %v, want true false false", HasWindow(items[0]), HasWindow(items[1]), HasWindow(items[2]))
	}
	if !HasSubquery(items[1]) || HasSubquery(items[2]) {
		t.Error("HasSubquery: want a subquery in item 1 only")
	}
	if !HasParameter(items[3]) || HasParameter(items[2]) {
		t.Error("HasParameter: want $1 in item 3 only")
	}
	calls := CallsNamed(items[2], map[string]bool{"unnest": true})
	if len(calls) != 2 {
		t.Fatalf("CallsNamed found %d unnest calls, want 2", len(calls))
	}
	name, args, ok := CallOf(calls[1])
	if !ok || name != "unnest" || len(args) != 1 || syntaxShape(args[0]) != "col:y" {
		t.Errorf("CallOf = %q %v %v", name, args, ok)
	}
}

func TestSyntaxBuilt(t *testing.T) {
	ins := parseOne(t, "INSERT OVERWRITE t PARTITION (a = 1, b = NULL) SELECT 1").(*Insert)
	var where Syntax
	for _, pv := range ins.Partition {
		where = AndSyntax(where, ColumnMatches(pv.Column, pv.Value))
	}
	if got := syntaxShape(where); got != "(and (eq col:a 1) (isnull not=false col:b))" {
		t.Errorf("partition condition %s", got)
	}
	ret := parseOne(t, "DELETE FROM t RETURNING merge_action(), upper(merge_action())").(*Delete)
	if got := syntaxShape(ReplaceCalls(ret.Returning[1].Expr, "merge_action", "m", "action")); got != "upper(col:m.action)" {
		t.Errorf("ReplaceCalls = %s", got)
	}
	e, _ := parseExpr("Header = 'csv'")
	if name, v, ok := NamedArgument(syntaxOf(e)); !ok || name != "header" || syntaxShape(v) != `"csv"` {
		t.Errorf("NamedArgument = %q %v %v", name, v, ok)
	}
}

func TestSyntaxFromTree(t *testing.T) {
	s := parseOne(t, "SELECT * FROM a LEFT JOIN b USING (k) JOIN (SELECT 1) AS s ON true").(*Select)
	top, ok := s.FromClause().(*FromJoin)
	if !ok || top.Kind() != JoinInner || top.On() == nil {
		t.Fatalf("top join: %#v", s.FromClause())
	}
	if q, isQuery := top.Right().(*FromTable).Query(); !isQuery || top.Right().(*FromTable).Alias() != "s" || q == nil {
		t.Errorf("right side is not the derived table s")
	}
	left, ok := top.Left().(*FromJoin)
	if !ok || left.Kind() != JoinLeft || !slices.Equal(left.Using(), []string{"k"}) || left.Natural() || left.On() != nil {
		t.Fatalf("left join: kind %v using %v", left.Kind(), left.Using())
	}
	if name, ok := left.Left().(*FromTable).Relation(); !ok || name != (TableName{Table: "a"}) {
		t.Errorf("leftmost relation %v %v", name, ok)
	}
	nat := parseOne(t, "SELECT * FROM a NATURAL FULL JOIN b").(*Select).FromClause().(*FromJoin)
	if nat.Kind() != JoinFull || !nat.Natural() || nat.On() != nil {
		t.Errorf("NATURAL FULL JOIN: kind %v natural %v on %v", nat.Kind(), nat.Natural(), nat.On())
	}
	lat := parseOne(t, "SELECT * FROM a, LATERAL (SELECT a.x) s").(*Select).FromClause().(*FromJoin)
	if r, ok := lat.LateralRight(); !ok || !r.Lateral() {
		t.Errorf("LATERAL right side not reported")
	}
	if parseOne(t, "SELECT 1").(*Select).FromClause() != nil {
		t.Error("SELECT 1 has a FROM tree")
	}
}

func TestSyntaxWithAndSetOperations(t *testing.T) {
	s := parseOne(t, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r").(*Select)
	w := s.With()
	if w == nil || !w.Recursive || len(w.CTEs) != 1 || w.CTEs[0].Name != "r" || !slices.Equal(w.CTEs[0].Columns, []string{"n"}) {
		t.Fatalf("WITH: %+v", w)
	}
	body := w.CTEs[0].Body
	start, step, op, ok := body.RecursiveTerms()
	if !ok || op != SetUnionAll || start.References("r") || !step.References("r") || !body.References("r") {
		t.Errorf("recursive terms: ok %v op %v", ok, op)
	}
	set := parseOne(t, "SELECT 1 UNION SELECT 2 INTERSECT ALL SELECT 3 EXCEPT SELECT 4").(*Select).SetOperation()
	if set == nil {
		t.Fatal("no set operation")
	}
	var ops []SetOp
	for _, b := range set.Branches() {
		ops = append(ops, b.Op)
		if _, err := b.Query.Select(); err != nil {
			t.Errorf("branch: %v", err)
		}
	}
	if !slices.Equal(ops, []SetOp{SetUnion, SetUnion, SetIntersectAll, SetExcept}) {
		t.Errorf("operators %v", ops)
	}
	if _, _, _, ok := set.Branches()[0].Query.RecursiveTerms(); ok {
		t.Error("a plain SELECT has recursive terms")
	}
}
