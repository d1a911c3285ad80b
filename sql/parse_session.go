package sql

import (
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// sessionParser parses the statements about the session rather than the
// data: SET/SHOW/RESET, transactions, PREPARE/EXECUTE, cursors and COPY.
type sessionParser struct{ *parseCtx }

func (p *parseCtx) session() sessionParser { return sessionParser{p} }

// sessionHandler returns the parser for session and transaction statements.
func (p sessionParser) sessionHandler(w string) func(*cursor) (Statement, error) {
	switch w {
	case "set":
		return p.setStmt
	case "show":
		return p.showStmt
	case "reset":
		return p.resetStmt
	case "begin", "start":
		return p.beginStmt
	case "commit", "end":
		return p.commitStmt
	case "rollback", "abort":
		return p.rollbackStmt
	case "savepoint":
		return p.savepointStmt
	case "release":
		return p.releaseStmt
	case "discard":
		return p.discardStmt
	case "deallocate":
		return p.deallocateStmt
	case "prepare":
		return p.prepareStmt
	case "execute":
		return p.executeStmt
	}
	return p.cursorHandler(w)
}

// setStmt parses the SET forms.
func (p sessionParser) setStmt(c *cursor) (Statement, error) {
	c.i++
	local := c.word("local")
	if !local {
		c.word("session")
	}
	switch {
	case c.words("characteristics", "as", "transaction"):
		st := &SetTransaction{Session: true}
		return st, p.transactionModes(c, &st.ReadOnly, &st.Isolation, true)
	case c.word("transaction"):
		if c.peek().Is("snapshot") {
			return nil, parse.UnsupportedAt(p.query, c.peek(), "SET TRANSACTION SNAPSHOT is not supported")
		}
		st := &SetTransaction{}
		return st, p.transactionModes(c, &st.ReadOnly, &st.Isolation, true)
	case c.words("time", "zone"):
		return p.setValue(c, &Set{Name: "timezone", Local: local}, true)
	case c.word("names"):
		return p.setValue(c, &Set{Name: "client_encoding", Local: local}, false)
	case c.word("schema"):
		return p.setValue(c, &Set{Name: "search_path", Local: local}, false)
	case c.peek().Is("role") || c.peek().Is("authorization") || c.peek().Is("constraints"):
		return nil, parse.UnsupportedAt(p.query, c.peek(), "SET %s is not supported", strings.ToUpper(c.peek().Val))
	}
	name, err := p.settingName(c)
	if err != nil {
		return nil, err
	}
	if !c.punct("=") && !c.word("to") {
		return nil, c.errHere()
	}
	return p.setValue(c, &Set{Name: name, Local: local}, false)
}

// settingName reads a possibly dotted configuration parameter name.
func (p sessionParser) settingName(c *cursor) (string, error) {
	var parts []string
	for {
		t := c.peek()
		if t.Kind != parse.TokIdent && t.Kind != parse.TokQIdent {
			return "", c.errHere()
		}
		c.i++
		parts = append(parts, strings.ToLower(t.Val))
		if !c.punct(".") {
			return strings.Join(parts, "."), nil
		}
	}
}

// setValue reads DEFAULT or a comma-separated list of values as text;
// timeZone also admits LOCAL (= DEFAULT) and INTERVAL '...'.
func (p sessionParser) setValue(c *cursor, s *Set, timeZone bool) (Statement, error) {
	if c.word("default") || (timeZone && c.word("local")) {
		s.Default = true
		return s, c.done()
	}
	if timeZone {
		c.word("interval")
	}
	var vals []string
	for {
		v, err := p.settingValue(c)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		if !c.punct(",") {
			break
		}
	}
	s.Value = strings.Join(vals, ", ")
	return s, c.done()
}

func (p sessionParser) settingValue(c *cursor) (string, error) {
	t := c.peek()
	switch t.Kind {
	case parse.TokString:
		return c.str()
	case parse.TokNumber, parse.TokIdent, parse.TokQIdent:
		c.i++
		if t.Kind == parse.TokIdent && c.peek().IsPunct(".") {
			c.i--
			return p.settingName(c)
		}
		return t.Val, nil
	case parse.TokOp:
		if v, ok := c.signedNumber(); ok {
			return v, nil
		}
	}
	return "", c.errHere()
}

// transactionModes reads ISOLATION LEVEL ..., READ ONLY|WRITE, [NOT]
// DEFERRABLE, optionally comma separated; required says at least one.
func (p sessionParser) transactionModes(c *cursor, readOnly **bool, isolation *string, required bool) error {
	n := 0
	for ; !c.atEnd(); n++ {
		if n > 0 {
			c.punct(",")
		}
		switch {
		case c.words("isolation", "level"):
			lvl, err := isolationLevel(c)
			if err != nil {
				return err
			}
			*isolation = lvl
		case c.words("read", "only"):
			v := true
			*readOnly = &v
		case c.words("read", "write"):
			v := false
			*readOnly = &v
		case c.words("not", "deferrable"), c.word("deferrable"):
		default:
			return c.errHere()
		}
	}
	if required && n == 0 {
		return c.errHere()
	}
	return nil
}

func isolationLevel(c *cursor) (string, error) {
	switch {
	case c.word("serializable"):
		return "serializable", nil
	case c.words("repeatable", "read"):
		return "repeatable read", nil
	case c.words("read", "committed"):
		return "read committed", nil
	case c.words("read", "uncommitted"):
		return "read uncommitted", nil
	}
	return "", c.errHere()
}

// showStmt parses SHOW name | ALL | TABLES | SCHEMAS and friends.
func (p sessionParser) showStmt(c *cursor) (Statement, error) {
	c.i++
	switch {
	case c.word("tables"):
		st := &ShowTables{}
		if c.word("from", "in") {
			var err error
			if st.Schema, err = c.ident(); err != nil {
				return nil, err
			}
		}
		return st, c.done()
	case c.word("schemas", "databases"):
		return &ShowSchemas{}, c.done()
	case c.word("tblproperties"), c.words("create", "table"):
		st := &ShowTable{Create: c.at(c.i - 1).Is("table")}
		var err error
		if st.Table, err = c.tableName(); err != nil {
			return nil, err
		}
		return st, c.done()
	case c.words("transaction", "isolation", "level"):
		return &Show{Name: "transaction_isolation"}, c.done()
	case c.words("time", "zone"):
		return &Show{Name: "timezone"}, c.done()
	case c.words("session", "authorization"):
		return &Show{Name: "session_authorization"}, c.done()
	}
	name, err := p.settingName(c)
	if err != nil {
		return nil, err
	}
	return &Show{Name: name}, c.done()
}

// resetStmt parses RESET name | ALL.
func (p sessionParser) resetStmt(c *cursor) (Statement, error) {
	c.i++
	switch {
	case c.word("all"):
		return &Reset{All: true}, c.done()
	case c.words("time", "zone"):
		return &Reset{Name: "timezone"}, c.done()
	case c.words("transaction", "isolation", "level"):
		return &Reset{Name: "transaction_isolation"}, c.done()
	case c.peek().Is("role") || c.peek().Is("session"):
		return nil, parse.UnsupportedAt(p.query, c.peek(), "RESET %s is not supported", strings.ToUpper(c.peek().Val))
	}
	name, err := p.settingName(c)
	if err != nil {
		return nil, err
	}
	return &Reset{Name: name}, c.done()
}

// beginStmt parses BEGIN [WORK|TRANSACTION] [modes] and START TRANSACTION [modes].
func (p sessionParser) beginStmt(c *cursor) (Statement, error) {
	start := c.peek().Is("start")
	c.i++
	if start {
		if err := c.expect("transaction"); err != nil {
			return nil, err
		}
	} else {
		c.word("work", "transaction")
	}
	b := &Begin{}
	return b, p.transactionModes(c, &b.ReadOnly, &b.Isolation, false)
}

// commitStmt parses COMMIT|END [WORK|TRANSACTION] [AND NO CHAIN].
func (p sessionParser) commitStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("work", "transaction")
	if err := p.chain(c); err != nil {
		return nil, err
	}
	return &Commit{}, c.done()
}

func (p sessionParser) chain(c *cursor) error {
	if !c.word("and") {
		return nil
	}
	if c.word("no") {
		return c.expect("chain")
	}
	if c.peek().Is("chain") {
		return parse.UnsupportedAt(p.query, c.peek(), "AND CHAIN is not supported")
	}
	return c.errHere()
}

// rollbackStmt parses ROLLBACK|ABORT [WORK|TRANSACTION] [TO [SAVEPOINT] name].
func (p sessionParser) rollbackStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("work", "transaction")
	r := &Rollback{}
	if c.word("to") {
		c.word("savepoint")
		var err error
		if r.ToSavepoint, err = c.ident(); err != nil {
			return nil, err
		}
	} else if err := p.chain(c); err != nil {
		return nil, err
	}
	return r, c.done()
}

func (p sessionParser) savepointStmt(c *cursor) (Statement, error) {
	c.i++
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &Savepoint{Name: name}, c.done()
}

func (p sessionParser) releaseStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("savepoint")
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &ReleaseSavepoint{Name: name}, c.done()
}

// discardStmt parses DISCARD ALL|PLANS|SEQUENCES|TEMP|TEMPORARY.
func (p sessionParser) discardStmt(c *cursor) (Statement, error) {
	c.i++
	t := c.peek()
	if !c.word("all", "plans", "sequences", "temp", "temporary") {
		return nil, c.errHere()
	}
	target := t.Val
	if target == "temporary" {
		target = "temp"
	}
	return &Discard{All: target == "all", Target: target}, c.done()
}

// deallocateStmt parses DEALLOCATE [PREPARE] name|ALL.
func (p sessionParser) deallocateStmt(c *cursor) (Statement, error) {
	c.i++
	c.word("prepare")
	if c.word("all") {
		return &Deallocate{All: true}, c.done()
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &Deallocate{Name: name}, c.done()
}

// prepareStmt parses PREPARE name [(type, ...)] AS statement; the statement
// is kept as text and parsed when the session prepares it.
func (p sessionParser) prepareStmt(c *cursor) (Statement, error) {
	c.i++
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	st := &PrepareStmt{Name: name}
	if c.punct("(") {
		if st.Types, err = c.typeList(); err != nil {
			return nil, err
		}
	}
	if err := c.expect("as"); err != nil {
		return nil, err
	}
	if c.atEnd() {
		return nil, parse.SyntaxErrorAt(p.query, c.stop)
	}
	st.Body = strings.TrimSpace(p.query[c.peek().Pos:c.toks[len(c.toks)-1].End])
	return st, nil
}

// typeList reads "type, ...)" after an opening parenthesis.
func (c *cursor) typeList() ([]Type, error) {
	var types []Type
	for {
		end := c.until(func(t parse.Token) bool { return t.IsPunct(",") || t.IsPunct(")") })
		if end == c.i || end >= len(c.toks) {
			return nil, c.errHere()
		}
		t, err := ParseTypeName(strings.ToLower(c.p.query[c.peek().Pos:c.toks[end-1].End]))
		if err != nil {
			return nil, err
		}
		types = append(types, t)
		c.i = end
		if c.punct(")") {
			return types, nil
		}
		c.i++ // the comma
	}
}

// executeStmt parses EXECUTE name [(expr, ...)].
func (p sessionParser) executeStmt(c *cursor) (Statement, error) {
	c.i++
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	st := &ExecuteStmt{Name: name}
	if c.punct("(") {
		for {
			end := c.until(func(t parse.Token) bool { return t.IsPunct(",") || t.IsPunct(")") })
			if end >= len(c.toks) {
				return nil, c.errHere()
			}
			arg, err := c.exprUntil(end)
			if err != nil {
				return nil, err
			}
			st.Args = append(st.Args, arg)
			if c.punct(")") {
				break
			}
			c.i++ // the comma
		}
	}
	return st, c.done()
}
