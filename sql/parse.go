package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// Parse parses a simple-query string into its statements. Syntax errors are
// *pgerr.Error 42601 with Position in characters of query; unsupported statements
// are 0A000 naming the construct; expressions nested deeper than the default
// max_stack_depth allows are 54001.
func Parse(query string) ([]Statement, error) {
	return ParseLimited(query, DepthForStackKB(DefaultMaxStackDepthKB))
}

// ParseLimited is Parse allowing expressions maxDepth deep (DepthForStackKB
// of the session's max_stack_depth).
func ParseLimited(query string, maxDepth int) ([]Statement, error) {
	spans, err := parse.SplitTokens(query, maxDepth)
	if err != nil {
		return nil, err
	}
	p := newParseCtx(query, maxDepth)
	defer p.release()
	stmts := make([]Statement, 0, len(spans))
	for _, s := range spans {
		st, err := p.statement(s.Toks, s.Stop)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, st)
	}
	return stmts, nil
}

// ParseOne parses a query holding at most one statement, as the extended
// protocol requires. An empty query gives (nil, nil).
func ParseOne(query string) (Statement, error) {
	stmts, err := Parse(query)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, nil
	case 1:
		return stmts[0], nil
	}
	return nil, pgerr.Errorf(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
}

// textSetter lets the dispatcher record each statement's original text.
type textSetter interface{ setText(string) }

// statement parses one statement's tokens.
func (p *parseCtx) statement(toks []parse.Token, stop parse.Token) (Statement, error) {
	c := &cursor{p: p, toks: toks, stop: stop}
	st, err := p.dispatch(c)
	if err != nil {
		return nil, err
	}
	st.(textSetter).setText(strings.TrimSpace(p.query[toks[0].Pos:toks[len(toks)-1].End]))
	return st, nil
}

func (p *parseCtx) dispatch(c *cursor) (Statement, error) {
	first := c.peek()
	if first.IsPunct("(") {
		return p.selects().selectStmt(c.toks, c.stop)
	}
	if first.Is("with") {
		if st, ok, err := p.dml().withDML(c); ok {
			return st, err
		}
	}
	switch first.Val {
	case "select", "with", "values", "table":
		if first.Kind == parse.TokIdent {
			return p.selects().selectStmt(c.toks, c.stop)
		}
	}
	if first.Kind != parse.TokIdent {
		return nil, c.errHere()
	}
	if f := p.handler(first.Val); f != nil {
		return f(c)
	}
	if unsupportedCommands[first.Val] {
		return nil, parse.UnsupportedAt(p.query, first, "%s is not supported", strings.ToUpper(first.Val))
	}
	return nil, c.errHere()
}

// handler returns the parser for statements starting with word w.
func (p *parseCtx) handler(w string) func(*cursor) (Statement, error) {
	switch w {
	case "insert":
		return p.dml().insertStmt
	case "delete":
		return p.dml().deleteStmt
	case "update":
		return p.dml().updateStmt
	case "merge":
		return p.dml().mergeStmt
	case "vacuum":
		return p.ddl().vacuumStmt
	case "analyze", "analyse":
		return p.ddl().analyzeStmt
	case "truncate":
		return p.dml().truncateStmt
	case "explain":
		return p.dml().explainStmt
	case "create":
		return p.ddl().createStmt
	case "drop":
		return p.ddl().dropStmt
	case "alter":
		return p.ddl().alterStmt
	case "describe", "desc":
		return p.ddl().describeStmt
	case "copy":
		return p.session().copyStmt
	}
	return p.session().sessionHandler(w)
}

// unsupportedCommands are PostgreSQL commands magmalake answers with 0A000.
var unsupportedCommands = parse.Words(`grant revoke lock comment do call cluster checkpoint
	reindex refresh security import fetch move close declare load notify listen
	unlisten reassign revoke import`)
