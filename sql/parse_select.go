package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// selectParser parses queries: SELECT, set operations, WITH and VALUES,
// from sql/parse's tree, into *Select.
type selectParser struct{ *parseCtx }

func (p *parseCtx) selects() selectParser { return selectParser{p} }

// selectStmt parses a query (SELECT, WITH, VALUES, or a parenthesised one).
func (p selectParser) selectStmt(toks []parse.Token, stop parse.Token) (*Select, error) {
	q, err := p.tp.Select(toks, stop)
	if err != nil {
		return nil, err
	}
	return buildSelect(q), nil
}

// buildSelect is the Select of a parsed query.
func buildSelect(q parse.Query) *Select {
	s := &Select{}
	switch n := q.(type) {
	case *parse.SetOp:
		s.Complex, s.rawSetOpr = true, n
		s.OrderBy = orderItems(n.OrderBy)
		s.limitFrom(n.Limit)
		return s
	case *parse.Select:
		s.raw = n
		s.limitFrom(n.Limit)
	}
	sel := s.raw
	if sel.Kind != parse.SelectPlain {
		s.Complex = true
		return s
	}
	s.Distinct = sel.Distinct && sel.DistinctOn == nil
	if len(sel.DistinctOn) > 0 {
		s.DistinctOn = syntaxList(sel.DistinctOn)
	}
	s.GroupingSets = sel.GroupingSets
	s.Items = selectItems(sel.Fields)
	s.Windows = windowSpecs(sel.Windows)
	s.Where = syntaxOf(sel.Where)
	for _, g := range sel.GroupBy {
		s.GroupBy = append(s.GroupBy, syntaxOf(g))
	}
	s.Having = syntaxOf(sel.Having)
	s.OrderBy = orderItems(sel.OrderBy)
	s.From, s.Complex = simpleFrom(sel)
	if tt := sel.TimeTravel; s.From != nil && tt != nil {
		s.From.SnapshotID, s.From.AsOfTimestamp, s.From.Ref = tt.SnapshotID, syntaxOf(tt.Timestamp), tt.Ref
	}
	return s
}

// orderItems are a query level's ORDER BY keys.
func orderItems(ob []parse.OrderItem) []OrderItem {
	var out []OrderItem
	for _, it := range ob {
		out = append(out, OrderItem{Expr: syntaxOf(it.Expr), Desc: it.Desc, NullsFirst: it.NullsFirst})
	}
	return out
}

// limitFrom takes the query's LIMIT and OFFSET.
func (s *Select) limitFrom(l *parse.Limit) {
	if l == nil {
		return
	}
	s.Limit, s.Offset = syntaxOf(l.Count), syntaxOf(l.Offset)
}

// selectFromAST is the Select of a query nested in another: a derived
// table, a subquery, a CTE's body or a set operation's branch.
func selectFromAST(n parse.Node) (*Select, error) {
	switch x := n.(type) {
	case *parse.Subquery:
		return selectFromAST(x.Query)
	case *parse.Select, *parse.SetOp:
		return buildSelect(x.(parse.Query)), nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "%s is not supported as a query", constructName(n))
}

// simpleFrom extracts the single table of sel's FROM; complex is true for
// joins, derived tables and CTEs.
func simpleFrom(sel *parse.Select) (ref *TableRef, complex bool) {
	if sel.With != nil {
		return nil, true
	}
	if sel.From == nil {
		return nil, false
	}
	j := sel.From
	if j.Right != nil {
		return nil, true
	}
	ts, ok := j.Left.(*parse.TableSource)
	if !ok {
		return nil, true
	}
	tn, ok := ts.Source.(*parse.TableName)
	if !ok || strings.Contains(ts.Alias, AliasColumnSep) {
		return nil, true // an alias naming columns renames them in the engine
	}
	return &TableRef{Name: TableName{Schema: tn.Schema, Table: tn.Name}, Alias: ts.Alias}, false
}
