package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// dmlParser parses the statements that change rows (INSERT, UPDATE,
// DELETE, MERGE, TRUNCATE) and EXPLAIN of them.
type dmlParser struct{ *parseCtx }

func (p *parseCtx) dml() dmlParser { return dmlParser{p} }

// insertStmt parses INSERT INTO t [(cols)] [REPLACE WHERE cond] body and
// INSERT OVERWRITE [TABLE] t [PARTITION (c = v, ...)] [(cols)] body, body
// being VALUES ... or a query, then [RETURNING ...].
func (p dmlParser) insertStmt(c *cursor) (Statement, error) {
	c.i++ // INSERT
	ins := &Insert{}
	switch {
	case c.word("overwrite"):
		ins.Overwrite = true
		c.word("table")
	default:
		if err := c.expect("into"); err != nil {
			return nil, err
		}
	}
	var err error
	if ins.Table, err = c.tableName(); err != nil {
		return nil, err
	}
	if ins.Overwrite && c.word("partition") {
		if ins.Partition, err = p.partitionSpec(c); err != nil {
			return nil, err
		}
	}
	if c.peek().IsPunct("(") && !c.peekN(1).Is("select") && !c.peekN(1).Is("with") && !c.peekN(1).Is("values") {
		if ins.Columns, err = c.identList(); err != nil {
			return nil, err
		}
	}
	if !ins.Overwrite && c.words("replace", "where") {
		end := c.until(parse.AnyWord("values", "select", "with"))
		if ins.ReplaceWhere, err = c.exprUntil(end); err != nil {
			return nil, err
		}
	}
	if err := p.insertBody(c, ins); err != nil {
		return nil, err
	}
	return ins, nil
}

// partitionSpec reads "(col [= value], ...)".
func (p dmlParser) partitionSpec(c *cursor) ([]PartitionValue, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	var out []PartitionValue
	for {
		col, err := c.ident()
		if err != nil {
			return nil, err
		}
		pv := PartitionValue{Column: col}
		if c.punct("=") {
			end := c.until(func(t parse.Token) bool { return t.IsPunct(",") || t.IsPunct(")") })
			if pv.Value, err = c.exprUntil(end); err != nil {
				return nil, err
			}
		}
		out = append(out, pv)
		if c.punct(")") {
			return out, nil
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// insertBody reads VALUES rows or a query, then RETURNING.
func (p dmlParser) insertBody(c *cursor, ins *Insert) error {
	if c.peek().Is("default") && c.peekN(1).Is("values") {
		if len(ins.Columns) > 0 {
			return c.errHere()
		}
		// One row of no values: every column gets its default.
		c.i += 2
		ins.Rows = [][]Syntax{{}}
		var err error
		ins.Returning, err = p.returning(c)
		return err
	}
	end := c.until(func(t parse.Token) bool { return t.Is("returning") || t.Is("on") })
	for end+1 < len(c.toks) && c.toks[end].Is("on") && !c.toks[end+1].Is("conflict") {
		// A join's ON inside INSERT ... SELECT, not ON CONFLICT.
		from := c.i
		c.i = end + 1
		end = c.until(func(t parse.Token) bool { return t.Is("returning") || t.Is("on") })
		c.i = from
	}
	if end < len(c.toks) && c.toks[end].Is("on") {
		return parse.UnsupportedAt(p.query, c.toks[end], "INSERT ... ON CONFLICT is not supported")
	}
	if c.i == end {
		return c.errHere()
	}
	var err error
	if c.peek().Is("values") {
		ins.Rows, err = p.valuesRows(c.toks[c.i:end], c.at(end))
	} else {
		ins.Query, err = p.selects().selectStmt(c.toks[c.i:end], c.at(end))
	}
	if err != nil {
		return err
	}
	c.i = end
	ins.Returning, err = p.returning(c)
	return err
}

// valuesRows parses "VALUES (...), (...)" into its rows.
func (p dmlParser) valuesRows(in []parse.Token, stop parse.Token) ([][]Syntax, error) {
	// DEFAULT stays: binding it for its column (BindAssigned) gives the
	// column's default.
	rows, err := p.tp.Values(in, stop)
	if err != nil {
		return nil, err
	}
	out := make([][]Syntax, len(rows))
	for i, row := range rows {
		out[i] = syntaxList(row)
	}
	return out, nil
}

// returning parses an optional trailing RETURNING list; it must end the statement.
func (p dmlParser) returning(c *cursor) ([]SelectItem, error) {
	if c.atEnd() {
		return nil, nil
	}
	if !c.word("returning") {
		return nil, c.errHere()
	}
	items, err := p.items(c.toks[c.i:], c.stop)
	c.i = len(c.toks)
	return items, err
}

// tableAlias reads an optional [AS] alias after a DML target.
func (c *cursor) tableAlias(clauseWords ...string) (string, error) {
	if c.word("as") {
		return c.ident()
	}
	t := c.peek()
	if t.Kind == parse.TokQIdent || (t.Kind == parse.TokIdent && !parse.IsReserved(t.Val) && !parse.AnyWord(clauseWords...)(t)) {
		return c.ident()
	}
	return "", nil
}

// deleteStmt parses DELETE FROM t [[AS] alias] [WHERE cond] [RETURNING ...].
func (p dmlParser) deleteStmt(c *cursor) (Statement, error) {
	c.i++
	if err := c.expect("from"); err != nil {
		return nil, err
	}
	d := &Delete{}
	var err error
	c.word("only")
	if d.Table, err = c.tableName(); err != nil {
		return nil, err
	}
	if d.Alias, err = c.tableAlias("where", "returning", "using"); err != nil {
		return nil, err
	}
	if at := c.peek(); at.Is("using") {
		sources := c.joinSources("using")
		if len(sources) == 0 {
			return nil, parse.SyntaxErrorAt(p.query, c.peek())
		}
		where := c.joinWhere()
		if d.Join, err = p.dmlJoin(sources, where, at, c.at(c.i)); err != nil {
			return nil, err
		}
		if d.Where, err = p.exprSyntax(p.semiJoin(sources, where, targetName(d.Table, d.Alias), at), c.at(c.i)); err != nil {
			return nil, err
		}
	} else if d.Where, err = p.optWhere(c); err != nil {
		return nil, err
	}
	if d.Returning, err = p.returning(c); err != nil {
		return nil, err
	}
	return d, nil
}

// optWhere parses an optional WHERE running to RETURNING or the end.
func (p dmlParser) optWhere(c *cursor) (Syntax, error) {
	if !c.word("where") {
		return nil, nil
	}
	if c.words("current", "of") {
		return nil, parse.UnsupportedAt(p.query, c.at(c.i-2), "WHERE CURRENT OF is not supported")
	}
	return c.exprUntil(c.until(parse.AnyWord("returning")))
}

// updateStmt parses UPDATE t [[AS] alias] SET c = v, ... [WHERE] [RETURNING].
func (p dmlParser) updateStmt(c *cursor) (Statement, error) {
	c.i++
	u := &Update{}
	var err error
	c.word("only")
	if u.Table, err = c.tableName(); err != nil {
		return nil, err
	}
	if u.Alias, err = c.tableAlias("set"); err != nil {
		return nil, err
	}
	if err := c.expect("set"); err != nil {
		return nil, err
	}
	var values [][2]int // each assignment's value tokens, for UPDATE ... FROM
	for {
		start := c.i
		a, err := p.assignment(c, "where", "from", "returning")
		if err != nil {
			return nil, err
		}
		values = append(values, [2]int{start, c.i})
		u.Set = append(u.Set, a)
		if !c.punct(",") {
			break
		}
	}
	if at := c.peek(); at.Is("from") {
		if err := p.updateFrom(c, u, values, at); err != nil {
			return nil, err
		}
	} else if u.Where, err = p.optWhere(c); err != nil {
		return nil, err
	}
	if u.Returning, err = p.returning(c); err != nil {
		return nil, err
	}
	return u, nil
}

// assignment reads col = value, the value running to a comma or one of the
// words that end the list.
func (p dmlParser) assignment(c *cursor, ends ...string) (Assignment, error) {
	if c.peek().IsPunct("(") {
		return Assignment{}, parse.UnsupportedAt(p.query, c.peek(), "multiple-column UPDATE SET is not supported")
	}
	col, err := c.ident()
	if err != nil {
		return Assignment{}, err
	}
	if c.peek().IsPunct(".") || c.peek().IsPunct("[") {
		return Assignment{}, parse.UnsupportedAt(p.query, c.peek(), "assignment to a field or element is not supported")
	}
	if err := c.expectPunct("="); err != nil {
		return Assignment{}, err
	}
	end := c.until(func(t parse.Token) bool { return t.IsPunct(",") || parse.AnyWord(ends...)(t) })
	if c.peek().Is("default") && end == c.i+1 {
		// Binding it for its column (BindAssigned) gives the default.
		c.i = end
		return Assignment{Column: col, Value: syntaxOf(&parse.Default{})}, nil
	}
	v, err := c.exprUntil(end)
	if err != nil {
		return Assignment{}, err
	}
	return Assignment{Column: col, Value: v}, nil
}

// truncateStmt parses TRUNCATE [TABLE] [ONLY] t [CONTINUE|RESTART IDENTITY].
func (p dmlParser) truncateStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("table")
	c.word("only")
	name, err := c.tableName()
	if err != nil {
		return nil, err
	}
	if c.peek().IsPunct(",") {
		return nil, parse.UnsupportedAt(p.query, c.peek(), "TRUNCATE of several tables is not supported")
	}
	if c.word("continue", "restart") {
		if err := c.expect("identity"); err != nil {
			return nil, err
		}
	}
	c.word("restrict")
	if c.peek().Is("cascade") {
		return nil, parse.UnsupportedAt(p.query, c.peek(), "TRUNCATE ... CASCADE is not supported")
	}
	if err := c.done(); err != nil {
		return nil, err
	}
	return &Truncate{Table: name}, nil
}

// explainStmt parses EXPLAIN [ANALYZE] [VERBOSE] stmt and EXPLAIN (opts) stmt.
func (p dmlParser) explainStmt(c *cursor) (Statement, error) {
	c.i++
	ex := &Explain{Format: "text"}
	if c.punct("(") {
		for !c.punct(")") {
			if c.atEnd() {
				return nil, c.errHere()
			}
			t := c.peek()
			c.i++
			switch {
			case t.Is("analyze") || t.Is("analyse"):
				ex.Analyze = !(c.word("false", "off") || c.peek().Kind == parse.TokNumber && c.peek().Val == "0")
			case t.Is("format"):
				if err := p.explainFormat(c, ex); err != nil {
					return nil, err
				}
			}
		}
	} else {
		ex.Analyze = c.word("analyze", "analyse")
		c.word("verbose")
	}
	if c.atEnd() {
		return nil, c.errHere()
	}
	inner, err := p.statement(c.toks[c.i:], c.stop)
	if err != nil {
		return nil, err
	}
	ex.Stmt = inner
	return ex, nil
}

// explainFormat reads FORMAT's value: TEXT or JSON; YAML and XML are
// PostgreSQL's too but not magmalake's (0A000).
func (p dmlParser) explainFormat(c *cursor, ex *Explain) error {
	if c.atEnd() {
		return c.errHere()
	}
	v := c.peek()
	c.i++
	switch f := strings.ToLower(v.Val); f {
	case "text", "json":
		ex.Format = f
		return nil
	case "yaml", "xml":
		return pgerr.Errorf(pgerr.FeatureNotSupported, "EXPLAIN (FORMAT %s) is not supported; use FORMAT JSON or TEXT", strings.ToUpper(f))
	default:
		return pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized value for EXPLAIN option \"format\": \"%s\"", v.Val)
	}
}

// targetName is what qualifies the target's columns: its alias, else its name.
func targetName(t TableName, alias string) string {
	if alias != "" {
		return alias
	}
	return t.Table
}

// dmlJoin is the join form of a USING or FROM list and its WHERE.
func (p dmlParser) dmlJoin(sources, where []parse.Token, at, stop parse.Token) (*DMLJoin, error) {
	src, err := p.mergeSource(sources, stop, at)
	if err != nil {
		return nil, err
	}
	j := &DMLJoin{Source: src}
	if len(where) > 0 {
		if j.Cond, err = p.exprSyntax(where, stop); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// updateFrom rewrites UPDATE t SET ... FROM s WHERE c: each value reads one
// joined row of s, and the target rows are those some row of s joins.
func (p dmlParser) updateFrom(c *cursor, u *Update, values [][2]int, at parse.Token) error {
	sources := c.joinSources("from")
	if len(sources) == 0 {
		return parse.SyntaxErrorAt(p.query, c.peek())
	}
	where := c.joinWhere()
	var err error
	if u.Join, err = p.dmlJoin(sources, where, at, c.at(c.i)); err != nil {
		return err
	}
	u.Join.Set = append([]Assignment(nil), u.Set...)
	for i, span := range values {
		if hasAggregate(nodeOf(u.Set[i].Value)) {
			return pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in UPDATE")
		}
		valToks := c.toks[span[0]:span[1]]
		// valToks is "col = value": keep the value.
		eq := 0
		for eq < len(valToks) && !valToks[eq].IsPunct("=") && !(valToks[eq].Kind == parse.TokOp && valToks[eq].Val == "=") {
			eq++
		}
		v, err := p.exprSyntax(joinValue(valToks[eq+1:], sources, where, at), c.at(c.i))
		if err != nil {
			return err
		}
		u.Set[i].Value = v
	}
	u.Where, err = p.exprSyntax(p.semiJoin(sources, where, targetName(u.Table, u.Alias), at), c.at(c.i))
	return err
}
