package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// selectParser parses queries: SELECT, set operations, WITH and VALUES, through
// the tidb parser, into *Select.
type selectParser struct{ *parseCtx }

func (p *parseCtx) selects() selectParser { return selectParser{p} }

// selectClauses are the parts of a SELECT that tidb cannot parse in
// PostgreSQL form; selectStmt strips them from the token stream and parses
// them itself.
type selectClauses struct {
	snapshotID *int64
	ref        string // VERSION AS OF 'branch or tag'

	asOf       Syntax
	nulls      map[int]bool // ORDER BY item index → NULLS FIRST
	limit      Syntax
	offset     Syntax
	distinctOn []Syntax
	// groupingSets are GROUP BY's grouping sets as key indexes (nil: a
	// plain GROUP BY).
	groupingSets [][]int
}

// selectStmt parses a query (SELECT, WITH, VALUES, or a parenthesised one).
func (p selectParser) selectStmt(toks []parse.Token, stop parse.Token) (*Select, error) {
	var cl selectClauses
	rest, err := p.stripTimeTravel(parse.TopLevelQuery(toks), stop, &cl)
	if err != nil {
		return nil, err
	}
	if rest, err = p.stripLimit(rest, stop, &cl); err != nil {
		return nil, err
	}
	if rest, err = p.stripNulls(rest, &cl); err != nil {
		return nil, err
	}
	if rest, err = p.stripDistinctOn(rest, &cl); err != nil {
		return nil, err
	}
	if rest, err = p.stripGroupingSets(rest, &cl); err != nil {
		return nil, err
	}
	rest = nestedDistinctOn(rest)
	qs, err := p.tp.Queries(rest, stop)
	if err != nil {
		return nil, err
	}
	if len(qs) != 1 {
		return nil, parse.SyntaxErrorAt(p.query, toks[0])
	}
	q := qs[0]
	if _, other := q.(*parse.OtherQuery); other {
		return nil, parse.UnsupportedAt(p.query, toks[0], "this form of query is not supported")
	}
	return buildSelect(q, &cl), nil
}

// buildSelect is the Select of a parsed query, with the clauses the front
// end parsed itself.
func buildSelect(q parse.Query, cl *selectClauses) *Select {
	s := &Select{Limit: cl.limit, Offset: cl.offset}
	switch n := q.(type) {
	case *parse.SetOp:
		s.Complex, s.rawSetOpr = true, n
		s.OrderBy = orderItems(n.OrderBy, cl)
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
	s.Distinct = sel.Distinct && len(cl.distinctOn) == 0
	s.DistinctOn = cl.distinctOn
	s.GroupingSets = cl.groupingSets
	s.Items = selectItems(sel.Fields)
	if keys, ok := distinctOnItem(sel); ok {
		s.Distinct, s.DistinctOn, s.Items = false, syntaxList(keys), s.Items[1:]
	}
	s.Windows = windowSpecs(sel.Windows)
	s.Where = syntaxOf(sel.Where)
	for _, g := range sel.GroupBy {
		s.GroupBy = append(s.GroupBy, syntaxOf(g))
	}
	s.Having = syntaxOf(sel.Having)
	s.OrderBy = orderItems(sel.OrderBy, cl)
	s.From, s.Complex = simpleFrom(sel)
	if s.From != nil {
		s.From.SnapshotID, s.From.AsOfTimestamp, s.From.Ref = cl.snapshotID, cl.asOf, cl.ref
	}
	return s
}

// orderItems are a query level's ORDER BY keys with the NULLS FIRST|LAST
// the front end stripped for tidb.
func orderItems(ob []parse.OrderItem, cl *selectClauses) []OrderItem {
	var out []OrderItem
	for k, it := range ob {
		oi := OrderItem{Expr: syntaxOf(it.Expr), Desc: it.Desc, NullsFirst: it.NullsFirst}
		if nf, ok := cl.nulls[k]; ok {
			oi.NullsFirst = &nf
		}
		out = append(out, oi)
	}
	return out
}

// limitFrom takes the LIMIT tidb parsed itself (in a nested query) when
// the front end stripped none.
func (s *Select) limitFrom(l *parse.Limit) {
	if l == nil || s.Limit != nil || s.Offset != nil {
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
		return buildSelect(x.(parse.Query), &selectClauses{}), nil
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

// eachTopLevel calls f for each token of toks at parenthesis depth 0 with its
// index; f returns how many tokens to skip (0 to go on normally).
func eachTopLevel(toks []parse.Token, f func(k int) int) {
	depth := 0
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.IsPunct("(") || t.IsPunct("["):
			depth++
		case t.IsPunct(")") || t.IsPunct("]"):
			depth--
		case depth == 0:
			k += f(k)
		}
	}
}

// stripTimeTravel removes [FOR] VERSION|SYSTEM_VERSION AS OF n|'ref' and
// [FOR] TIMESTAMP|SYSTEM_TIME AS OF expr, recording them in cl.
func (p selectParser) stripTimeTravel(toks []parse.Token, stop parse.Token, cl *selectClauses) ([]parse.Token, error) {
	var out []parse.Token
	var err error
	last := 0
	eachTopLevel(toks, func(k int) int {
		if err != nil {
			return 0
		}
		j := k
		if toks[j].Is("for") {
			j++
		}
		if j+2 >= len(toks) || !toks[j+1].Is("as") || !toks[j+2].Is("of") {
			return 0
		}
		kind := toks[j].Val
		if toks[j].Kind != parse.TokIdent || (kind != "version" && kind != "system_version" && kind != "timestamp" && kind != "system_time") {
			return 0
		}
		c := &cursor{p: p.parseCtx, toks: toks, i: j + 3, stop: stop}
		if kind == "version" || kind == "system_version" {
			if t := c.peek(); t.Kind == parse.TokString {
				cl.ref = t.Val // a branch or a tag, by name
				c.i++
			} else {
				var v int64
				if v, err = c.integer(); err == nil {
					cl.snapshotID = &v
				}
			}
		} else {
			end := c.until(func(t parse.Token) bool {
				return t.IsPunct(",") || anyWord("where", "group", "order", "limit", "offset", "having", "union",
					"intersect", "except", "fetch", "window", "as", "join", "left", "right", "inner", "cross",
					"full", "natural", "on")(t)
			})
			cl.asOf, err = c.exprUntil(end)
		}
		out = append(out, toks[last:k]...)
		last = c.i
		return c.i - k - 1
	})
	if err != nil {
		return nil, err
	}
	return append(out, toks[last:]...), nil
}

// stripLimit removes the top-level LIMIT / OFFSET / FETCH clauses (tidb wants
// LIMIT before OFFSET and literal counts) and parses their expressions.
func (p selectParser) stripLimit(toks []parse.Token, stop parse.Token, cl *selectClauses) ([]parse.Token, error) {
	start := -1
	eachTopLevel(toks, func(k int) int {
		if start < 0 && (toks[k].Is("limit") || toks[k].Is("offset") || toks[k].Is("fetch")) {
			start = k
		}
		return 0
	})
	if start < 0 {
		return toks, nil
	}
	c := &cursor{p: p.parseCtx, toks: toks, i: start, stop: stop}
	end := c.until(anyWord("for")) // FOR UPDATE stays
	for c.i < end {
		if err := p.limitClause(c, end, cl); err != nil {
			return nil, err
		}
	}
	return append(append([]parse.Token(nil), toks[:start]...), toks[end:]...), nil
}

func (p selectParser) limitClause(c *cursor, end int, cl *selectClauses) error {
	var err error
	stopAt := func(ws ...string) int {
		k := c.until(anyWord(ws...))
		return min(k, end)
	}
	switch {
	case c.word("limit"):
		if c.word("all") {
			return nil
		}
		cl.limit, err = c.exprUntil(stopAt("offset", "fetch"))
	case c.word("offset"):
		cl.offset, err = c.exprUntil(stopAt("limit", "fetch", "row", "rows"))
		if err == nil {
			c.word("row", "rows")
		}
	case c.word("fetch"):
		if !c.word("first", "next") {
			return c.errHere()
		}
		if !c.peek().Is("row") && !c.peek().Is("rows") {
			if cl.limit, err = c.exprUntil(stopAt("row", "rows")); err != nil {
				return err
			}
		} else {
			cl.limit = oneLiteral()
		}
		if !c.word("row", "rows") || !c.word("only") {
			return c.errHere()
		}
	default:
		return c.errHere()
	}
	return err
}

// oneLiteral is the literal 1 (FETCH FIRST ROW ONLY).
func oneLiteral() Syntax {
	return syntaxOf(&parse.Const{Value: int64(1)})
}

// stripNulls removes NULLS FIRST|LAST from top-level ORDER BY items.
func (p selectParser) stripNulls(toks []parse.Token, cl *selectClauses) ([]parse.Token, error) {
	inOrder, item := false, 0
	var out []parse.Token
	last := 0
	eachTopLevel(toks, func(k int) int {
		t := toks[k]
		switch {
		case t.Is("order") && k+1 < len(toks) && toks[k+1].Is("by"):
			inOrder, item = true, 0
		case inOrder && t.IsPunct(","):
			item++
		case inOrder && (t.Is("union") || t.Is("intersect") || t.Is("except") || t.Is("for")):
			inOrder = false
		case inOrder && t.Is("nulls") && k+1 < len(toks) && (toks[k+1].Is("first") || toks[k+1].Is("last")):
			if cl.nulls == nil {
				cl.nulls = map[int]bool{}
			}
			cl.nulls[item] = toks[k+1].Is("first")
			out = append(out, toks[last:k]...)
			last = k + 2
			return 1
		}
		return 0
	})
	return append(out, toks[last:]...), nil
}

// stripDistinctOn removes ON (exprs) after the query's own SELECT DISTINCT
// (tidb has no DISTINCT ON) and parses the expressions.
func (p selectParser) stripDistinctOn(toks []parse.Token, cl *selectClauses) ([]parse.Token, error) {
	k := -1
	eachTopLevel(toks, func(i int) int {
		if k < 0 && i+2 < len(toks) && toks[i].Is("distinct") && toks[i+1].Is("on") && toks[i+2].IsPunct("(") {
			k = i
		}
		return 0
	})
	if k < 0 {
		return toks, nil
	}
	e := parse.MatchParen(toks, k+2)
	if e < 0 {
		return nil, parse.SyntaxErrorAt(p.query, toks[k+2])
	}
	for _, item := range parse.SplitTopLevel(toks[k+3 : e]) {
		if len(item) == 0 {
			return nil, parse.SyntaxErrorAt(p.query, toks[e])
		}
		x, err := p.exprSyntax(item, toks[e])
		if err != nil {
			return nil, err
		}
		cl.distinctOn = append(cl.distinctOn, x)
	}
	return append(append([]parse.Token(nil), toks[:k+1]...), toks[e+1:]...), nil
}

// distinctOnMarker is the select item that carries a nested query's
// DISTINCT ON keys through tidb: SELECT DISTINCT __distinct_on(keys), ...
const distinctOnMarker = "__distinct_on"

// nestedDistinctOn rewrites DISTINCT ON (keys) in subqueries, derived
// tables and WITH queries (the statement's own was stripped) into the
// marker item, which buildSelect turns back into Select.DistinctOn.
func nestedDistinctOn(toks []parse.Token) []parse.Token {
	var out []parse.Token
	for k := 0; k < len(toks); k++ {
		if k+2 < len(toks) && toks[k].Is("distinct") && toks[k+1].Is("on") && toks[k+2].IsPunct("(") {
			if e := parse.MatchParen(toks, k+2); e > 0 {
				at := toks[k+1]
				out = append(out, toks[k], parse.Token{Kind: parse.TokIdent, Val: distinctOnMarker, Pos: at.Pos, End: at.End})
				out = append(out, toks[k+2:e+1]...)
				out = append(out, parse.Token{Kind: parse.TokPunct, Val: ",", Pos: at.Pos, End: at.End})
				k = e
				continue
			}
		}
		out = append(out, toks[k])
	}
	return out
}

// distinctOnItem is the keys of a DISTINCT ON marker item, if fields
// starts with one.
func distinctOnItem(sel *parse.Select) ([]parse.Expr, bool) {
	if !sel.Distinct || len(sel.Fields) < 2 {
		return nil, false
	}
	call, ok := sel.Fields[0].Expr.(*parse.FuncCall)
	if !ok || call.Name != distinctOnMarker {
		return nil, false
	}
	return call.Args, true
}
