package parse

import (
	"reflect"
	"testing"
)

func parseSelect(t *testing.T, text string) *Select {
	t.Helper()
	toks, err := Lex(text)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(text, DepthForStackKB(DefaultMaxStackDepthKB), testNames{})
	defer p.Release()
	q, err := p.Select(toks, Token{Kind: TokEOF, Pos: len(text), End: len(text)})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	sel, ok := q.(*Select)
	if !ok {
		t.Fatalf("%s: %T", text, q)
	}
	return sel
}

// TestSelectClauses: the clauses TiDB lacks reach the tree: DISTINCT ON
// (the statement's own and a nested one), grouping sets, time travel,
// OFFSET before LIMIT, FETCH FIRST and NULLS FIRST|LAST.
func TestSelectClauses(t *testing.T) {
	s := parseSelect(t, `SELECT DISTINCT ON (a) a, b FROM t FOR VERSION AS OF 7
		GROUP BY ROLLUP (a, b) ORDER BY a NULLS LAST, b DESC OFFSET 2 LIMIT 3`)
	if !s.Distinct || len(s.DistinctOn) != 1 || Shape(s.DistinctOn[0]) != "col:a" || len(s.Fields) != 2 {
		t.Errorf("DISTINCT ON: %v %v, %d fields", s.Distinct, s.DistinctOn, len(s.Fields))
	}
	if want := [][]int{{0, 1}, {0}, nil}; !reflect.DeepEqual(s.GroupingSets, want) {
		t.Errorf("grouping sets %v, want %v", s.GroupingSets, want)
	}
	if s.TimeTravel == nil || s.TimeTravel.SnapshotID == nil || *s.TimeTravel.SnapshotID != 7 {
		t.Errorf("time travel %#v", s.TimeTravel)
	}
	if s.Limit == nil || Shape(s.Limit.Count) != "3" || Shape(s.Limit.Offset) != "2" {
		t.Errorf("limit %#v", s.Limit)
	}
	if len(s.OrderBy) != 2 || s.OrderBy[0].NullsFirst == nil || *s.OrderBy[0].NullsFirst || s.OrderBy[1].NullsFirst != nil {
		t.Errorf("ORDER BY %#v", s.OrderBy)
	}

	s = parseSelect(t, `SELECT x FROM (SELECT DISTINCT ON (k) k, v FROM t) s FETCH FIRST ROW ONLY`)
	if s.Limit == nil || Shape(s.Limit.Count) != "1" {
		t.Errorf("FETCH FIRST ROW ONLY: %#v", s.Limit)
	}
	inner := s.From.Left.(*TableSource).Source.(*Select)
	if len(inner.DistinctOn) != 1 || len(inner.Fields) != 2 || Shape(inner.Fields[0].Expr) != "col:k" {
		t.Errorf("nested DISTINCT ON: %v, fields %d", inner.DistinctOn, len(inner.Fields))
	}
}
