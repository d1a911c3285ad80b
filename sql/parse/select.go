package parse

// Select parses a query statement (SELECT, WITH, VALUES, TABLE, or a
// parenthesised one; toks followed by stop). The clauses TiDB lacks or reads
// otherwise (LIMIT and OFFSET in any order, FETCH, NULLS FIRST|LAST,
// DISTINCT ON, ROLLUP, CUBE and GROUPING SETS, time travel) are read here,
// the rest by TiDB.
func (p *Parser) Select(toks []Token, stop Token) (Query, error) {
	var cl selectClauses
	rest, err := p.stripTimeTravel(TopLevelQuery(toks), stop, &cl)
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
	if rest, err = p.nestedGroupingSets(rest); err != nil {
		return nil, err
	}
	qs, err := p.Queries(nestedDistinctOn(rest), stop)
	if err != nil {
		return nil, err
	}
	if len(qs) != 1 {
		return nil, SyntaxErrorAt(p.query, toks[0])
	}
	if _, other := qs[0].(*OtherQuery); other {
		return nil, UnsupportedAt(p.query, toks[0], "this form of query is not supported")
	}
	cl.apply(qs[0])
	return qs[0], nil
}

// apply puts the clauses read into the statement's query: NULLS and the
// LIMIT into a set operation or a SELECT, the others into a SELECT.
func (cl *selectClauses) apply(q Query) {
	switch x := q.(type) {
	case *SetOp:
		cl.applyOrder(x.OrderBy)
		x.Limit = cl.applyLimit(x.Limit)
	case *Select:
		cl.applyOrder(x.OrderBy)
		x.Limit = cl.applyLimit(x.Limit)
		if cl.distinctOn != nil {
			x.DistinctOn = cl.distinctOn
		}
		x.GroupingSets = cl.groupingSets
		if cl.snapshotID != nil || cl.asOf != nil || cl.ref != "" {
			x.TimeTravel = &TimeTravel{SnapshotID: cl.snapshotID, Timestamp: cl.asOf, Ref: cl.ref}
		}
	}
}

// applyOrder sets the NULLS FIRST|LAST stripped from ORDER BY's items.
func (cl *selectClauses) applyOrder(items []OrderItem) {
	for k := range items {
		if nf, ok := cl.nulls[k]; ok {
			items[k].NullsFirst = &nf
		}
	}
}

// applyLimit is the LIMIT / OFFSET stripped, else the one TiDB read.
func (cl *selectClauses) applyLimit(l *Limit) *Limit {
	if cl.limit == nil && cl.offset == nil {
		return l
	}
	return &Limit{Count: cl.limit, Offset: cl.offset}
}

// selectClauses are the parts of a query that TiDB cannot parse in
// PostgreSQL form; Select strips them from the token stream, parses them
// itself and puts them into the tree TiDB's becomes.
type selectClauses struct {
	snapshotID *int64
	ref        string // VERSION AS OF 'branch or tag'

	asOf       Expr
	nulls      map[int]bool // ORDER BY item index → NULLS FIRST
	limit      Expr
	offset     Expr
	distinctOn []Expr
	// groupingSets are GROUP BY's grouping sets as key indexes (nil: a
	// plain GROUP BY).
	groupingSets [][]int
}

// eachTopLevel calls f for each token of toks at parenthesis depth 0 with its
// index; f returns how many tokens to skip (0 to go on normally).
func eachTopLevel(toks []Token, f func(k int) int) {
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
func (p *Parser) stripTimeTravel(toks []Token, stop Token, cl *selectClauses) ([]Token, error) {
	var out []Token
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
		if toks[j].Kind != TokIdent || (kind != "version" && kind != "system_version" && kind != "timestamp" && kind != "system_time") {
			return 0
		}
		c := &clauseCursor{p: p, toks: toks, i: j + 3, stop: stop}
		if kind == "version" || kind == "system_version" {
			if t := c.peek(); t.Kind == TokString {
				cl.ref = t.Val // a branch or a tag, by name
				c.i++
			} else {
				var v int64
				if v, err = c.integer(); err == nil {
					cl.snapshotID = &v
				}
			}
		} else {
			end := c.until(func(t Token) bool {
				return t.IsPunct(",") || AnyWord("where", "group", "order", "limit", "offset", "having", "union",
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
func (p *Parser) stripLimit(toks []Token, stop Token, cl *selectClauses) ([]Token, error) {
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
	c := &clauseCursor{p: p, toks: toks, i: start, stop: stop}
	end := c.until(AnyWord("for")) // FOR UPDATE stays
	for c.i < end {
		if err := p.limitClause(c, end, cl); err != nil {
			return nil, err
		}
	}
	return append(append([]Token(nil), toks[:start]...), toks[end:]...), nil
}

func (p *Parser) limitClause(c *clauseCursor, end int, cl *selectClauses) error {
	var err error
	stopAt := func(ws ...string) int {
		k := c.until(AnyWord(ws...))
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
func oneLiteral() Expr { return &Const{Value: int64(1)} }

// stripNulls removes NULLS FIRST|LAST from top-level ORDER BY items.
func (p *Parser) stripNulls(toks []Token, cl *selectClauses) ([]Token, error) {
	inOrder, item := false, 0
	var out []Token
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
func (p *Parser) stripDistinctOn(toks []Token, cl *selectClauses) ([]Token, error) {
	if setOperation(toks) {
		// Each branch keeps its own, through nestedDistinctOn's marker:
		// stripped here, the keys would go to the whole set operation.
		return toks, nil
	}
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
	e := MatchParen(toks, k+2)
	if e < 0 {
		return nil, SyntaxErrorAt(p.query, toks[k+2])
	}
	for _, item := range SplitTopLevel(toks[k+3 : e]) {
		if len(item) == 0 {
			return nil, SyntaxErrorAt(p.query, toks[e])
		}
		x, err := p.Expr(item, toks[e])
		if err != nil {
			return nil, err
		}
		cl.distinctOn = append(cl.distinctOn, x)
	}
	return append(append([]Token(nil), toks[:k+1]...), toks[e+1:]...), nil
}

// setOperation reports a UNION, INTERSECT or EXCEPT at the top level of
// toks.
func setOperation(toks []Token) bool {
	found := false
	eachTopLevel(toks, func(i int) int {
		found = found || toks[i].Is("union") || toks[i].Is("intersect") || toks[i].Is("except")
		return 0
	})
	return found
}

// distinctOnMarker is the select item that carries a nested query's
// DISTINCT ON keys through tidb: SELECT DISTINCT __distinct_on(keys), ...
const distinctOnMarker = "__distinct_on"

// nestedDistinctOn rewrites DISTINCT ON (keys) in subqueries, derived
// tables and WITH queries (the statement's own was stripped) into the
// marker item, which the converter turns back into Select.DistinctOn.
func nestedDistinctOn(toks []Token) []Token {
	var out []Token
	for k := 0; k < len(toks); k++ {
		if k+2 < len(toks) && toks[k].Is("distinct") && toks[k+1].Is("on") && toks[k+2].IsPunct("(") {
			if e := MatchParen(toks, k+2); e > 0 {
				at := toks[k+1]
				out = append(out, toks[k], Token{Kind: TokIdent, Val: distinctOnMarker, Pos: at.Pos, End: at.End})
				out = append(out, toks[k+2:e+1]...)
				out = append(out, Token{Kind: TokPunct, Val: ",", Pos: at.Pos, End: at.End})
				k = e
				continue
			}
		}
		out = append(out, toks[k])
	}
	return out
}
