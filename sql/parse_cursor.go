package sql

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql/parse"
)

// cursor walks one statement's tokens for the hand-written parsers.
type cursor struct {
	p    *parseCtx
	toks []parse.Token
	i    int
	stop parse.Token // the token after the statement (";" or TokEOF)
}

func (c *cursor) at(j int) parse.Token {
	if j < len(c.toks) {
		return c.toks[j]
	}
	return c.stop
}

func (c *cursor) peek() parse.Token { return c.at(c.i) }

func (c *cursor) peekN(k int) parse.Token { return c.at(c.i + k) }

func (c *cursor) atEnd() bool { return c.i >= len(c.toks) }

// word consumes the current token if it is one of the unquoted words ws.
func (c *cursor) word(ws ...string) bool {
	t := c.peek()
	for _, w := range ws {
		if t.Is(w) {
			c.i++
			return true
		}
	}
	return false
}

// words consumes the sequence ws if it is next, all or nothing.
func (c *cursor) words(ws ...string) bool {
	for k, w := range ws {
		if !c.peekN(k).Is(w) {
			return false
		}
	}
	c.i += len(ws)
	return true
}

func (c *cursor) punct(p string) bool {
	if c.peek().IsPunct(p) {
		c.i++
		return true
	}
	return false
}

func (c *cursor) errHere() error { return parse.SyntaxErrorAt(c.p.query, c.peek()) }

func (c *cursor) expect(w string) error {
	if !c.word(w) {
		return c.errHere()
	}
	return nil
}

func (c *cursor) expectPunct(p string) error {
	if !c.punct(p) {
		return c.errHere()
	}
	return nil
}

// done requires the statement to be fully consumed.
func (c *cursor) done() error {
	if !c.atEnd() {
		return c.errHere()
	}
	return nil
}

// ident reads a name: a quoted identifier, or an unquoted word that
// PostgreSQL does not reserve.
func (c *cursor) ident() (string, error) {
	t := c.peek()
	if t.Kind == parse.TokQIdent && t.Str != parse.StrUnicode || t.Kind == parse.TokIdent && !parse.IsReserved(t.Val) {
		c.i++
		return t.Val, nil
	}
	return "", c.errHere()
}

// tableName reads [schema.]table.
func (c *cursor) tableName() (TableName, error) {
	first, err := c.ident()
	if err != nil {
		return TableName{}, err
	}
	if !c.punct(".") {
		return TableName{Table: first}, nil
	}
	second, err := c.ident()
	if err != nil {
		return TableName{}, err
	}
	if c.peek().IsPunct(".") {
		return TableName{}, parse.UnsupportedAt(c.p.query, c.peek(), "cross-database references are not implemented")
	}
	return TableName{Schema: first, Table: second}, nil
}

// identList reads "(a, b, ...)".
func (c *cursor) identList() ([]string, error) {
	if err := c.expectPunct("("); err != nil {
		return nil, err
	}
	var names []string
	for {
		n, err := c.ident()
		if err != nil {
			return nil, err
		}
		names = append(names, n)
		if c.punct(")") {
			return names, nil
		}
		if err := c.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// str reads a string constant.
func (c *cursor) str() (string, error) {
	t := c.peek()
	if t.Kind != parse.TokString || t.Str == parse.StrBit || t.Str == parse.StrHex || t.Str == parse.StrUnicode {
		return "", c.errHere()
	}
	c.i++
	return t.Val, nil
}

// integer reads an integer constant.
func (c *cursor) integer() (int64, error) {
	t := c.peek()
	if t.Kind != parse.TokNumber {
		return 0, c.errHere()
	}
	v, err := strconv.ParseInt(t.Val, 10, 64)
	if err != nil {
		return 0, c.errHere()
	}
	c.i++
	return v, nil
}

// until returns the index of the first depth-0 token from c.i satisfying
// stop, or len(c.toks) (parse.Until).
func (c *cursor) until(stop func(parse.Token) bool) int { return parse.Until(c.toks, c.i, stop) }

// exprUntil parses the expression from c.i up to (not including) index end.
func (c *cursor) exprUntil(end int) (Syntax, error) {
	e, err := c.p.expr(c.toks[c.i:end], c.at(end))
	if err != nil {
		return nil, err
	}
	c.i = end
	return syntaxOf(e), nil
}

// upperWords renders toks[from:to] as upper-case words, for messages.
func (c *cursor) upperWords(from, to int) string {
	var ws []string
	for k := from; k < to && k < len(c.toks); k++ {
		ws = append(ws, strings.ToUpper(c.p.query[c.toks[k].Pos:c.toks[k].End]))
	}
	return strings.Join(ws, " ")
}

// signedNumber consumes "-1.5" or "+3" written as a sign and a number token.
func (c *cursor) signedNumber() (string, bool) {
	t := c.peek()
	if t.Kind != parse.TokOp || (t.Val != "-" && t.Val != "+") || c.peekN(1).Kind != parse.TokNumber {
		return "", false
	}
	c.i += 2
	return strings.TrimPrefix(t.Val, "+") + c.at(c.i-1).Val, true
}
