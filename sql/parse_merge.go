package sql

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// mergeStmt parses
//
//	MERGE INTO [ONLY] t [[AS] alias] USING source ON cond
//	WHEN [NOT] MATCHED [BY SOURCE | BY TARGET] [AND cond] THEN action ...
//	[RETURNING ...]
//
// action being UPDATE SET ..., DELETE, INSERT [(cols)] VALUES (...) |
// DEFAULT VALUES, or DO NOTHING.
func (p dmlParser) mergeStmt(c *cursor) (Statement, error) {
	c.i++ // MERGE
	if err := c.expect("into"); err != nil {
		return nil, err
	}
	m := &Merge{}
	var err error
	c.word("only")
	if m.Table, err = c.tableName(); err != nil {
		return nil, err
	}
	if m.Alias, err = c.tableAlias("using"); err != nil {
		return nil, err
	}
	using := c.peek()
	if err := c.expect("using"); err != nil {
		return nil, err
	}
	on := c.mergeOn()
	if on < 0 {
		return nil, parse.SyntaxErrorAt(p.query, c.at(c.until(parse.AnyWord("when"))))
	}
	if m.Source, err = p.mergeSource(c.toks[c.i:on], c.at(on), using); err != nil {
		return nil, err
	}
	c.i = on + 1
	end := c.until(parse.AnyWord("when"))
	if m.On, err = c.exprUntil(end); err != nil {
		return nil, err
	}
	for c.peek().Is("when") {
		cl, err := p.mergeClause(c)
		if err != nil {
			return nil, err
		}
		m.Clauses = append(m.Clauses, cl)
	}
	if len(m.Clauses) == 0 {
		return nil, c.errHere()
	}
	if err := unreachableClause(m.Clauses); err != nil {
		return nil, err
	}
	if m.Returning, err = p.returning(c); err != nil {
		return nil, err
	}
	return m, nil
}

// unreachableClause refuses a WHEN clause after an unconditional one of the
// same kind, which could never run, as PostgreSQL does.
func unreachableClause(cls []MergeClause) error {
	open := map[MergeWhen]bool{}
	for _, cl := range cls {
		if open[cl.When] {
			return pgerr.Errorf(pgerr.SyntaxError, "unreachable WHEN clause specified after unconditional WHEN clause")
		}
		if cl.Cond == nil {
			open[cl.When] = true
		}
	}
	return nil
}

// mergeOn finds the ON that ends the source: the last one at the top level
// before the first WHEN (the ones before it belong to the source's joins);
// -1 when there is none.
func (c *cursor) mergeOn() int {
	depth, on := 0, -1
	for k := c.i; k < len(c.toks); k++ {
		t := c.toks[k]
		switch {
		case parse.Nesting(t) != 0:
			depth += parse.Nesting(t)
		case depth == 0 && t.Is("when"):
			return on
		case depth == 0 && t.Is("on"):
			on = k
		}
	}
	return on
}

// mergeSource is SELECT * FROM <source>.
func (p dmlParser) mergeSource(src []parse.Token, stop, at parse.Token) (*Select, error) {
	if len(src) == 0 {
		return nil, parse.SyntaxErrorAt(p.query, stop)
	}
	head := []parse.Token{word(at, "select"), punct(at, "*"), word(at, "from")}
	q, err := p.selects().selectStmt(append(head, src...), stop)
	if err != nil {
		return nil, err
	}
	if q.raw == nil || q.raw.From == nil {
		return nil, parse.SyntaxErrorAt(p.query, src[0])
	}
	return q, nil
}

// mergeClause parses one WHEN clause.
func (p dmlParser) mergeClause(c *cursor) (MergeClause, error) {
	c.i++ // WHEN
	var cl MergeClause
	switch {
	case c.word("matched"):
		cl.When = MergeMatched
	case c.words("not", "matched"):
		cl.When = MergeNotMatched
		switch {
		case c.words("by", "source"):
			cl.When = MergeNotMatchedBySource
		case c.words("by", "target"):
		}
	default:
		return cl, c.errHere()
	}
	if c.word("and") {
		end := c.until(parse.AnyWord("then"))
		var err error
		if cl.Cond, err = c.exprUntil(end); err != nil {
			return cl, err
		}
	}
	if err := c.expect("then"); err != nil {
		return cl, err
	}
	act := c.peek()
	var err error
	switch {
	case c.words("do", "nothing"):
		cl.Action = MergeDoNothing
	case c.word("delete"):
		cl.Action = MergeDelete
	case c.word("update"):
		cl.Action = MergeUpdate
		err = p.mergeUpdate(c, &cl)
	case c.word("insert"):
		cl.Action = MergeInsert
		err = p.mergeInsert(c, &cl)
	default:
		return cl, c.errHere()
	}
	if err != nil {
		return cl, err
	}
	inserts := cl.Action == MergeInsert
	if cl.When == MergeNotMatched && (cl.Action == MergeUpdate || cl.Action == MergeDelete) ||
		cl.When != MergeNotMatched && inserts {
		return cl, parse.SyntaxErrorAt(p.query, act)
	}
	if !c.atEnd() && !c.peek().Is("when") && !c.peek().Is("returning") {
		return cl, c.errHere()
	}
	return cl, nil
}

// mergeUpdate reads SET col = value, ... of an UPDATE action.
func (p dmlParser) mergeUpdate(c *cursor, cl *MergeClause) error {
	if err := c.expect("set"); err != nil {
		return err
	}
	for {
		a, err := p.assignment(c, "when", "returning")
		if err != nil {
			return err
		}
		cl.Set = append(cl.Set, a)
		if !c.punct(",") {
			return nil
		}
	}
}

// mergeInsert reads [(cols)] VALUES (...) | DEFAULT VALUES of an INSERT
// action.
func (p dmlParser) mergeInsert(c *cursor, cl *MergeClause) error {
	if c.peek().IsPunct("(") {
		var err error
		if cl.Columns, err = c.identList(); err != nil {
			return err
		}
	}
	if c.peek().Is("overriding") {
		return parse.UnsupportedAt(p.query, c.peek(), "OVERRIDING is not supported")
	}
	if c.words("default", "values") {
		if len(cl.Columns) > 0 {
			return parse.SyntaxErrorAt(p.query, c.at(c.i-2))
		}
		return nil
	}
	if !c.peek().Is("values") {
		return c.errHere()
	}
	end := c.until(parse.AnyWord("when", "returning"))
	rows, err := p.valuesRows(c.toks[c.i:end], c.at(end))
	if err != nil {
		return err
	}
	if len(rows) != 1 {
		return parse.SyntaxErrorAt(p.query, c.at(c.i))
	}
	cl.Values = rows[0]
	if cl.Values == nil {
		cl.Values = []Syntax{}
	}
	c.i = end
	return nil
}
