package parse

import "strconv"

// Until returns the index of the first depth-0 token of toks from i on
// satisfying stop, or len(toks). The FROM of IS [NOT] DISTINCT FROM never
// stops.
func Until(toks []Token, i int, stop func(Token) bool) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		t := toks[k]
		if depth == 0 && stop(t) && !(t.Is("from") && k > 0 && toks[k-1].Is("distinct")) {
			return k
		}
		depth += Nesting(t)
	}
	return len(toks)
}

// Nesting is how t changes the depth a top-level stop word is looked for
// at: parentheses and brackets, and CASE ... END, whose WHEN, THEN and ELSE
// are no clause's (UPDATE SET g = CASE WHEN ...; MERGE ... WHEN MATCHED AND
// CASE WHEN ... THEN).
func Nesting(t Token) int {
	switch {
	case t.IsPunct("(") || t.IsPunct("[") || t.Is("case"):
		return 1
	case t.IsPunct(")") || t.IsPunct("]") || t.Is("end"):
		return -1
	}
	return 0
}

// AnyWord returns a stop predicate for the given unquoted words.
func AnyWord(ws ...string) func(Token) bool {
	return func(t Token) bool {
		for _, w := range ws {
			if t.Is(w) {
				return true
			}
		}
		return false
	}
}

// clauseCursor reads the clauses Select strips: a position in a
// statement's tokens, stop being the token after them.
type clauseCursor struct {
	p    *Parser
	toks []Token
	i    int
	stop Token
}

func (c *clauseCursor) peek() Token {
	if c.i < len(c.toks) {
		return c.toks[c.i]
	}
	return c.stop
}

func (c *clauseCursor) errHere() error { return SyntaxErrorAt(c.p.query, c.peek()) }

// word consumes the current token if it is one of the unquoted words ws.
func (c *clauseCursor) word(ws ...string) bool {
	if AnyWord(ws...)(c.peek()) {
		c.i++
		return true
	}
	return false
}

// integer consumes an integer literal.
func (c *clauseCursor) integer() (int64, error) {
	t := c.peek()
	if t.Kind != TokNumber {
		return 0, c.errHere()
	}
	v, err := strconv.ParseInt(t.Val, 10, 64)
	if err != nil {
		return 0, c.errHere()
	}
	c.i++
	return v, nil
}

func (c *clauseCursor) until(stop func(Token) bool) int { return Until(c.toks, c.i, stop) }

// exprUntil parses the expression from c.i up to (not including) index end.
func (c *clauseCursor) exprUntil(end int) (Expr, error) {
	at := c.stop
	if end < len(c.toks) {
		at = c.toks[end]
	}
	e, err := c.p.Expr(c.toks[c.i:end], at)
	if err != nil {
		return nil, err
	}
	c.i = end
	return e, nil
}
