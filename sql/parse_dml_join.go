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
func (c *cursor) joinSources(word string) []token {
	if !c.word(word) {
		return nil
	}
	end := c.until(anyWord("where", "returning"))
	from := c.toks[c.i:end]
	c.i = end
	return from
}

// joinWhere reads the statement's WHERE (tokens, up to RETURNING).
func (c *cursor) joinWhere() []token {
	if !c.word("where") {
		return nil
	}
	end := c.until(anyWord("returning"))
	where := c.toks[c.i:end]
	c.i = end
	return where
}

// semiJoin is the tokens of the test a target row must pass.
func (p dmlParser) semiJoin(sources, where []token, target string, at token) []token {
	conj := splitConjuncts(where)
	for i, cj := range conj {
		tcol, scol, ok := keyEquality(cj, target)
		if !ok {
			continue
		}
		rest := append(append([][]token(nil), conj[:i]...), conj[i+1:]...)
		out := append(append([]token(nil), tcol...), word(at, "in"), punct(at, "("), word(at, "select"))
		out = append(out, scol...)
		return append(append(out, subqueryBody(sources, joinAnd(rest, at), at)...), punct(at, ")"))
	}
	out := []token{word(at, "exists"), punct(at, "("), word(at, "select"), {kind: tkNumber, val: "1", pos: at.pos, end: at.end}}
	return append(append(out, subqueryBody(sources, where, at)...), punct(at, ")"))
}

// joinValue is (SELECT e FROM sources WHERE where LIMIT 1): an assignment
// reads one joined source row.
func joinValue(e, sources, where []token, at token) []token {
	out := append([]token{punct(at, "("), word(at, "select")}, e...)
	out = append(out, subqueryBody(sources, where, at)...)
	out = append(out, word(at, "limit"), token{kind: tkNumber, val: "1", pos: at.pos, end: at.end})
	return append(out, punct(at, ")"))
}

// subqueryBody is FROM sources [WHERE where].
func subqueryBody(sources, where []token, at token) []token {
	out := append([]token{word(at, "from")}, sources...)
	if len(where) > 0 {
		out = append(append(out, word(at, "where"), punct(at, "(")), where...)
		out = append(out, punct(at, ")"))
	}
	return out
}

func word(at token, w string) token  { return token{kind: tkIdent, val: w, pos: at.pos, end: at.end} }
func punct(at token, v string) token { return token{kind: tkPunct, val: v, pos: at.pos, end: at.end} }

// splitConjuncts splits a condition at its top-level ANDs (not BETWEEN's).
func splitConjuncts(toks []token) [][]token {
	var out [][]token
	depth, start, between := 0, 0, 0
	for k, t := range toks {
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case depth == 0 && t.is("between"):
			between++
		case depth == 0 && t.is("and") && between > 0:
			between--
		case depth == 0 && t.is("and"):
			out = append(out, toks[start:k])
			start = k + 1
		case depth == 0 && t.is("or"):
			return [][]token{toks} // an OR at the top: one conjunct
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

func joinAnd(conj [][]token, at token) []token {
	var out []token
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
func keyEquality(cj []token, target string) (tcol, scol []token, ok bool) {
	if len(cj) != 7 || !cj[3].isPunct("=") && !(cj[3].kind == tkOp && cj[3].val == "=") {
		return nil, nil, false
	}
	l, r := cj[:3], cj[4:]
	if !qualifiedColumn(l) || !qualifiedColumn(r) {
		return nil, nil, false
	}
	switch {
	case l[0].val == target && r[0].val != target:
		return l, r, true
	case r[0].val == target && l[0].val != target:
		return r, l, true
	}
	return nil, nil, false
}

func qualifiedColumn(t []token) bool {
	name := func(x token) bool { return x.kind == tkIdent && !pgReserved[x.val] || x.kind == tkQIdent }
	return len(t) == 3 && name(t[0]) && t[1].isPunct(".") && name(t[2])
}

// withDML parses WITH ... DELETE | UPDATE | INSERT: the WITH list is read
// through a query it heads (tidb parses WITH only there), and the DML
// statement keeps it for the queries it runs. ok is false when the WITH
// heads a query.
func (p dmlParser) withDML(c *cursor) (Statement, bool, error) {
	k := c.i + 1
	if c.at(k).is("recursive") {
		k++
	}
	for {
		// name [(cols)] AS [NOT] [MATERIALIZED] (query)
		k++
		if c.at(k).isPunct("(") {
			if k = matchParenTok(c.toks, k); k < 0 {
				return nil, false, nil
			}
			k++
		}
		if !c.at(k).is("as") {
			return nil, false, nil
		}
		k++
		for c.at(k).is("not") || c.at(k).is("materialized") {
			k++
		}
		if !c.at(k).isPunct("(") {
			return nil, false, nil
		}
		if k = matchParenTok(c.toks, k); k < 0 {
			return nil, false, nil
		}
		k++
		if !c.at(k).isPunct(",") {
			break
		}
		k++ // to the next query's name
	}
	verb := c.at(k)
	if !verb.is("delete") && !verb.is("update") && !verb.is("insert") && !verb.is("merge") {
		return nil, false, nil
	}
	head := append(append([]token(nil), c.toks[c.i:k]...), word(verb, "select"), token{kind: tkNumber, val: "1", pos: verb.pos, end: verb.end})
	q, err := p.selects().selectStmt(head, verb)
	if err != nil {
		return nil, true, err
	}
	with := withClauseOf(q)
	dml := &cursor{p: p.parseCtx, toks: c.toks[k:], stop: c.stop}
	st, err := p.handler(verb.val)(dml)
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
			return nil, true, unsupportedAt(p.query, verb, "WITH before INSERT ... VALUES is not supported")
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
