package parse

import (
	"testing"
)

// parseQuery parses one query through the normaliser and TiDB.
func parseQuery(t *testing.T, text string) Query {
	t.Helper()
	toks, err := Lex(text)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(text, DepthForStackKB(DefaultMaxStackDepthKB), testNames{})
	defer p.Release()
	qs, err := p.Queries(toks, Token{Kind: TokEOF, Pos: len(text), End: len(text)})
	if err != nil || len(qs) != 1 {
		t.Fatalf("%s: %v (%d queries)", text, err, len(qs))
	}
	return qs[0]
}

// TestConvertQuery checks the query-level nodes TiDB's tree becomes: set
// operations and their branch operators, WITH, the join kinds (FULL and
// NATURAL FULL reach TiDB in disguise), USING and ORDER BY's NULLS.
func TestConvertQuery(t *testing.T) {
	q := parseQuery(t, `WITH w (c) AS (SELECT 1) SELECT a FROM t FULL JOIN u USING (k) NATURAL FULL JOIN v
		UNION ALL (SELECT 2 FROM w ORDER BY 1 DESC NULLS FIRST LIMIT 1)`)
	set, ok := q.(*SetOp)
	if !ok || set.Nested || len(set.Branches) != 2 {
		t.Fatalf("got %#v, want a set operation of two branches", q)
	}
	if set.With == nil || len(set.With.CTEs) != 1 || set.With.CTEs[0].Name != "w" || len(set.With.CTEs[0].Columns) != 1 {
		t.Errorf("WITH: %#v", set.With)
	}
	if set.Branches[0].Op != SetOpNone || set.Branches[1].Op != SetOpUnionAll {
		t.Errorf("branch operators %v, %v", set.Branches[0].Op, set.Branches[1].Op)
	}
	first := set.Branches[0].Query.(*Select)
	outer := first.From
	inner, ok := outer.Left.(*Join)
	if !ok || outer.Kind != JoinFull || !outer.Natural || outer.On != nil {
		t.Fatalf("outer join %#v", outer)
	}
	if inner.Kind != JoinFull || inner.Natural || len(inner.Using) != 1 || inner.Using[0] != "k" {
		t.Errorf("inner join %#v", inner)
	}
	// TiDB keeps a parenthesised branch as a set operation of its own.
	nested, ok := set.Branches[1].Query.(*SetOp)
	if !ok || !nested.Nested || len(nested.Branches) != 1 {
		t.Fatalf("second branch %#v", set.Branches[1].Query)
	}
	second := nested.Branches[0].Query.(*Select)
	if len(second.OrderBy) != 1 || !second.OrderBy[0].Desc || second.OrderBy[0].NullsFirst == nil || !*second.OrderBy[0].NullsFirst {
		t.Errorf("ORDER BY %#v", second.OrderBy)
	}
	if second.Limit == nil {
		t.Fatal("no LIMIT")
	}
	if c, ok := second.Limit.Count.(*Const); !ok || c.Value != uint64(1) {
		t.Errorf("LIMIT %#v", second.Limit)
	}
}

// TestRewriteInPlace: Rewrite replaces bottom up, inside subqueries too,
// and changes the tree it is given.
func TestRewriteInPlace(t *testing.T) {
	e, err := parseExpr(`f() + (SELECT f() FROM t)`)
	if err != nil {
		t.Fatal(err)
	}
	replaced := 0
	out := Rewrite(e, func(x Expr) Expr {
		if c, ok := x.(*FuncCall); ok && c.Name == "f" {
			replaced++
			return &ColumnRef{Name: "g"}
		}
		return x
	})
	if replaced != 2 || out != e {
		t.Fatalf("replaced %d, root kept %v", replaced, out == e)
	}
	if got := Shape(e.(*Binary).L); got != "col:g" {
		t.Errorf("left operand %s", got)
	}
	found := false
	Inspect(e, func(n Node) bool {
		if c, ok := n.(*FuncCall); ok && c.Name == "f" {
			found = true
		}
		return true
	})
	if found {
		t.Error("a call survived inside the subquery")
	}
}

// TestOtherNamesTheConstruct: TiDB forms without a node of their own keep
// their name for messages.
func TestOtherNamesTheConstruct(t *testing.T) {
	for text, want := range map[string]string{
		`@x`:                    "a variable",
		`a COLLATE utf8mb4_bin`: "COLLATE",
		`VALUES(a)`:             "VALUES() here",
	} {
		e, err := InternalExpr(text)
		if err != nil {
			t.Fatal(err)
		}
		if got := ConstructName(e); got != want {
			t.Errorf("%s: %q, want %q", text, got, want)
		}
	}
}
