package sql

import "github.com/magmalake/magmalake/sql/parse"

// DELETE ... USING and UPDATE ... FROM are joins of the target with other
// relations. They become subqueries of the single-table statements, which
// the query engine runs:
//
//	DELETE FROM t USING s WHERE c       →  DELETE FROM t WHERE EXISTS (SELECT 1 FROM s WHERE c)
//	UPDATE t SET x = e FROM s WHERE c   →  UPDATE t SET x = (SELECT e FROM s WHERE c LIMIT 1)
//	                                           WHERE EXISTS (SELECT 1 FROM s WHERE c)
//
// which is PostgreSQL's meaning: a target row joined by any source row is
// deleted or updated once, an updated one from one of its source rows.
// When c holds an equality of a target column and a source column, the
// test becomes t.k IN (SELECT s.k FROM s WHERE rest) instead: an
// uncorrelated IN is one hash set, where EXISTS runs per target row.

// joinSources reads the FROM list of UPDATE ... FROM or the USING list of
// DELETE ... USING, up to WHERE or RETURNING; nil when the word is absent.
func (c *cursor) joinSources(word string) []parse.Token {
	if !c.word(word) {
		return nil
	}
	end := c.until(parse.AnyWord("where", "returning"))
	from := c.toks[c.i:end]
	c.i = end
	return from
}

// joinWhere reads the statement's WHERE (tokens, up to RETURNING).
func (c *cursor) joinWhere() []parse.Token {
	if !c.word("where") {
		return nil
	}
	end := c.until(parse.AnyWord("returning"))
	where := c.toks[c.i:end]
	c.i = end
	return where
}

// semiJoin is the tokens of the test a target row must pass.
func (p dmlParser) semiJoin(sources, where []parse.Token, target string, at parse.Token) []parse.Token {
	conj := splitConjuncts(where)
	for i, cj := range conj {
		tcol, scol, ok := keyEquality(cj, target)
		if !ok {
			continue
		}
		rest := append(append([][]parse.Token(nil), conj[:i]...), conj[i+1:]...)
		out := append(append([]parse.Token(nil), tcol...), word(at, "in"), punct(at, "("), word(at, "select"))
		out = append(out, scol...)
		return append(append(out, subqueryBody(sources, joinAnd(rest, at), at)...), punct(at, ")"))
	}
	out := []parse.Token{word(at, "exists"), punct(at, "("), word(at, "select"), {Kind: parse.TokNumber, Val: "1", Pos: at.Pos, End: at.End}}
	return append(append(out, subqueryBody(sources, where, at)...), punct(at, ")"))
}

// joinValue is (SELECT e FROM sources WHERE where LIMIT 1): an assignment
// reads one joined source row.
func joinValue(e, sources, where []parse.Token, at parse.Token) []parse.Token {
	out := append([]parse.Token{punct(at, "("), word(at, "select")}, e...)
	out = append(out, subqueryBody(sources, where, at)...)
	out = append(out, word(at, "limit"), parse.Token{Kind: parse.TokNumber, Val: "1", Pos: at.Pos, End: at.End})
	return append(out, punct(at, ")"))
}

// subqueryBody is FROM sources [WHERE where].
func subqueryBody(sources, where []parse.Token, at parse.Token) []parse.Token {
	out := append([]parse.Token{word(at, "from")}, sources...)
	if len(where) > 0 {
		out = append(append(out, word(at, "where"), punct(at, "(")), where...)
		out = append(out, punct(at, ")"))
	}
	return out
}

func word(at parse.Token, w string) parse.Token {
	return parse.Token{Kind: parse.TokIdent, Val: w, Pos: at.Pos, End: at.End}
}
func punct(at parse.Token, v string) parse.Token {
	return parse.Token{Kind: parse.TokPunct, Val: v, Pos: at.Pos, End: at.End}
}

// splitConjuncts splits a condition at its top-level ANDs (not BETWEEN's).
func splitConjuncts(toks []parse.Token) [][]parse.Token {
	var out [][]parse.Token
	depth, start, between := 0, 0, 0
	for k, t := range toks {
		switch {
		case t.IsPunct("(") || t.IsPunct("["):
			depth++
		case t.IsPunct(")") || t.IsPunct("]"):
			depth--
		case depth == 0 && t.Is("between"):
			between++
		case depth == 0 && t.Is("and") && between > 0:
			between--
		case depth == 0 && t.Is("and"):
			out = append(out, toks[start:k])
			start = k + 1
		case depth == 0 && t.Is("or"):
			return [][]parse.Token{toks} // an OR at the top: one conjunct
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

func joinAnd(conj [][]parse.Token, at parse.Token) []parse.Token {
	var out []parse.Token
	for i, c := range conj {
		if i > 0 {
			out = append(out, word(at, "and"))
		}
		out = append(append(append(out, punct(at, "(")), c...), punct(at, ")"))
	}
	return out
}

// keyEquality recognises target.a = src.b (either way round), each side a
// qualified column: tcol is the target's side.
func keyEquality(cj []parse.Token, target string) (tcol, scol []parse.Token, ok bool) {
	if len(cj) != 7 || !cj[3].IsPunct("=") && !(cj[3].Kind == parse.TokOp && cj[3].Val == "=") {
		return nil, nil, false
	}
	l, r := cj[:3], cj[4:]
	if !qualifiedColumn(l) || !qualifiedColumn(r) {
		return nil, nil, false
	}
	switch {
	case l[0].Val == target && r[0].Val != target:
		return l, r, true
	case r[0].Val == target && l[0].Val != target:
		return r, l, true
	}
	return nil, nil, false
}

func qualifiedColumn(t []parse.Token) bool {
	name := func(x parse.Token) bool {
		return x.Kind == parse.TokIdent && !parse.IsReserved(x.Val) || x.Kind == parse.TokQIdent
	}
	return len(t) == 3 && name(t[0]) && t[1].IsPunct(".") && name(t[2])
}

// withDML parses WITH ... DELETE | UPDATE | INSERT: the WITH list is read
// through a query it heads (the parser reads WITH only there), and the DML
// statement keeps it for the queries it runs. ok is false when the WITH
// heads a query.
func (p dmlParser) withDML(c *cursor) (Statement, bool, error) {
	k := c.i + 1
	if c.at(k).Is("recursive") {
		k++
	}
	for {
		// name [(cols)] AS [NOT] [MATERIALIZED] (query)
		k++
		if c.at(k).IsPunct("(") {
			if k = parse.MatchParen(c.toks, k); k < 0 {
				return nil, false, nil
			}
			k++
		}
		if !c.at(k).Is("as") {
			return nil, false, nil
		}
		k++
		for c.at(k).Is("not") || c.at(k).Is("materialized") {
			k++
		}
		if !c.at(k).IsPunct("(") {
			return nil, false, nil
		}
		if k = parse.MatchParen(c.toks, k); k < 0 {
			return nil, false, nil
		}
		k++
		if !c.at(k).IsPunct(",") {
			break
		}
		k++ // to the next query's name
	}
	verb := c.at(k)
	if !verb.Is("delete") && !verb.Is("update") && !verb.Is("insert") && !verb.Is("merge") {
		return nil, false, nil
	}
	head := append(append([]parse.Token(nil), c.toks[c.i:k]...), word(verb, "select"), parse.Token{Kind: parse.TokNumber, Val: "1", Pos: verb.Pos, End: verb.End})
	q, err := p.selects().selectStmt(head, verb)
	if err != nil {
		return nil, true, err
	}
	with := withClauseOf(q)
	dml := &cursor{p: p.parseCtx, toks: c.toks[k:], stop: c.stop}
	st, err := p.handler(verb.Val)(dml)
	if err != nil {
		return nil, true, err
	}
	switch x := st.(type) {
	case *Delete:
		x.With = withOf(with)
	case *Update:
		x.With = withOf(with)
	case *Merge:
		x.With = withOf(with)
	case *Insert:
		if x.Query == nil || x.Query.raw == nil || x.Query.raw.With != nil {
			return nil, true, parse.UnsupportedAt(p.query, verb, "WITH before INSERT ... VALUES is not supported")
		}
		x.Query.raw.With, x.Query.Complex = with, true
	}
	return st, true, nil
}

func withClauseOf(q *Select) *parse.With {
	if q.raw != nil {
		return q.raw.With
	}
	return nil
}
