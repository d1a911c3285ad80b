package sql

import (
	"strconv"
	"strings"
)

// cursor walks one statement's tokens for the hand-written parsers.
type cursor struct {
	p    *parseCtx
	toks []token
	i    int
	stop token // the token after the statement (';' or tkEOF)
}

func (c *cursor) at(j int) token {
	if j < len(c.toks) {
		return c.toks[j]
	}
	return c.stop
}

func (c *cursor) peek() token { return c.at(c.i) }

func (c *cursor) peekN(k int) token { return c.at(c.i + k) }

func (c *cursor) atEnd() bool { return c.i >= len(c.toks) }

// word consumes the current token if it is one of the unquoted words ws.
func (c *cursor) word(ws ...string) bool {
	t := c.peek()
	for _, w := range ws {
		if t.is(w) {
			c.i++
			return true
		}
	}
	return false
}

// words consumes the sequence ws if it is next, all or nothing.
func (c *cursor) words(ws ...string) bool {
	for k, w := range ws {
		if !c.peekN(k).is(w) {
			return false
		}
	}
	c.i += len(ws)
	return true
}

func (c *cursor) punct(p string) bool {
	if c.peek().isPunct(p) {
		c.i++
		return true
	}
	return false
}

func (c *cursor) errHere() error { return syntaxErrorAt(c.p.query, c.peek()) }

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
	if t.kind == tkQIdent && t.str != strUnicode || t.kind == tkIdent && !pgReserved[t.val] {
		c.i++
		return t.val, nil
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
	if c.peek().isPunct(".") {
		return TableName{}, unsupportedAt(c.p.query, c.peek(), "cross-database references are not implemented")
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
	if t.kind != tkString || t.str == strBit || t.str == strHex || t.str == strUnicode {
		return "", c.errHere()
	}
	c.i++
	return t.val, nil
}

// integer reads an integer constant.
func (c *cursor) integer() (int64, error) {
	t := c.peek()
	if t.kind != tkNumber {
		return 0, c.errHere()
	}
	v, err := strconv.ParseInt(t.val, 10, 64)
	if err != nil {
		return 0, c.errHere()
	}
	c.i++
	return v, nil
}

// until returns the index of the first depth-0 token from c.i satisfying
// stop, or len(c.toks). The FROM of IS [NOT] DISTINCT FROM never stops.
func (c *cursor) until(stop func(token) bool) int {
	depth := 0
	for k := c.i; k < len(c.toks); k++ {
		t := c.toks[k]
		if depth == 0 && stop(t) && !(t.is("from") && k > 0 && c.toks[k-1].is("distinct")) {
			return k
		}
		depth += nesting(t)
	}
	return len(c.toks)
}

// nesting is how t changes the depth a top-level stop word is looked for
// at: parentheses and brackets, and CASE ... END, whose WHEN, THEN and ELSE
// are no clause's (UPDATE SET g = CASE WHEN ...; MERGE ... WHEN MATCHED AND
// CASE WHEN ... THEN).
func nesting(t token) int {
	switch {
	case t.isPunct("(") || t.isPunct("[") || t.is("case"):
		return 1
	case t.isPunct(")") || t.isPunct("]") || t.is("end"):
		return -1
	}
	return 0
}

// anyWord returns a stop predicate for the given unquoted words.
func anyWord(ws ...string) func(token) bool {
	return func(t token) bool {
		for _, w := range ws {
			if t.is(w) {
				return true
			}
		}
		return false
	}
}

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
		ws = append(ws, strings.ToUpper(c.p.query[c.toks[k].pos:c.toks[k].end]))
	}
	return strings.Join(ws, " ")
}

// pgReserved are PostgreSQL's reserved key words (and the type/function-name
// ones), which cannot be unquoted names.
var pgReserved = kwSet(`all analyse analyze and any array as asc asymmetric both case cast check collate
	column constraint create current_catalog current_date current_role current_time current_timestamp
	current_user default deferrable desc distinct do else end except false fetch for foreign from grant
	group having in initially intersect into lateral leading limit localtime localtimestamp not null
	offset on only or order placing primary references returning select session_user some symmetric
	table then to trailing true union unique user using variadic when where window with
	authorization binary collation concurrently cross freeze full ilike inner is isnull join left like
	natural notnull outer overlaps right similar tablesample verbose`)

// signedNumber consumes "-1.5" or "+3" written as a sign and a number token.
func (c *cursor) signedNumber() (string, bool) {
	t := c.peek()
	if t.kind != tkOp || (t.val != "-" && t.val != "+") || c.peekN(1).kind != tkNumber {
		return "", false
	}
	c.i += 2
	return strings.TrimPrefix(t.val, "+") + c.at(c.i-1).val, true
}
