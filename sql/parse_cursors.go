package sql

import (
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// cursorHandler returns the parser for the cursor statements.
func (p sessionParser) cursorHandler(w string) func(*cursor) (Statement, error) {
	switch w {
	case "declare":
		return p.declareStmt
	case "fetch", "move":
		return p.fetchStmt
	case "close":
		return p.closeStmt
	}
	return nil
}

// declareStmt parses DECLARE name [BINARY] [ASENSITIVE|INSENSITIVE]
// [[NO] SCROLL] CURSOR [WITH HOLD|WITHOUT HOLD] FOR query. Only forward
// text cursors exist, so BINARY and SCROLL are refused.
func (p sessionParser) declareStmt(c *cursor) (Statement, error) {
	c.i++
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	for !c.word("cursor") {
		switch t := c.peek(); {
		case t.Is("binary"):
			return nil, parse.UnsupportedAt(p.query, t, "binary cursors are not supported")
		case t.Is("scroll"):
			return nil, parse.UnsupportedAt(p.query, t, "scrollable cursors are not supported")
		case c.words("no", "scroll"), c.word("asensitive", "insensitive"):
		default:
			return nil, c.errHere()
		}
	}
	d := &DeclareCursor{Name: name}
	switch {
	case c.words("with", "hold"):
		d.Hold = true
	case c.words("without", "hold"):
	}
	if err := c.expect("for"); err != nil {
		return nil, err
	}
	if c.atEnd() {
		return nil, c.errHere()
	}
	if d.Query, err = p.selects().selectStmt(c.toks[c.i:], c.stop); err != nil {
		return nil, err
	}
	return d, nil
}

// fetchStmt parses FETCH/MOVE [direction] [FROM|IN] name for the forward
// directions NEXT, FORWARD [n|ALL], n and ALL.
func (p sessionParser) fetchStmt(c *cursor) (Statement, error) {
	f := &Fetch{Move: c.peek().Is("move"), Count: 1}
	c.i++
	if err := p.fetchDirection(c, f); err != nil {
		return nil, err
	}
	c.word("from", "in")
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	f.Name = name
	return f, c.done()
}

func (p sessionParser) fetchDirection(c *cursor, f *Fetch) error {
	t := c.peek()
	switch {
	case t.Is("prior") || t.Is("first") || t.Is("last") || t.Is("absolute") || t.Is("relative") || t.Is("backward"):
		return parse.UnsupportedAt(p.query, t, "FETCH %s is not supported: cursors are forward-only", strings.ToUpper(t.Val))
	case c.word("next"):
		return nil
	case c.word("forward"):
		if c.peek().Is("from") || c.peek().Is("in") || c.peek().Kind != parse.TokNumber && !c.peek().Is("all") && !c.peek().IsPunct("-") {
			return nil
		}
	}
	if c.word("all") {
		f.Count = -1
		return nil
	}
	if c.peek().IsPunct("-") {
		return parse.UnsupportedAt(p.query, c.peek(), "backward FETCH is not supported: cursors are forward-only")
	}
	c.punct("+")
	if c.peek().Kind != parse.TokNumber {
		return nil
	}
	n, err := c.integer()
	if err != nil {
		return err
	}
	if n == 0 {
		return parse.UnsupportedAt(p.query, c.at(c.i-1), "FETCH of the current row is not supported")
	}
	f.Count = n
	return nil
}

// closeStmt parses CLOSE name | CLOSE ALL.
func (p sessionParser) closeStmt(c *cursor) (Statement, error) {
	c.i++
	if c.word("all") {
		return &CloseCursor{All: true}, c.done()
	}
	name, err := c.ident()
	if err != nil {
		return nil, err
	}
	return &CloseCursor{Name: name}, c.done()
}
