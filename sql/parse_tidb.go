package sql

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value-expression driver for the tidb parser

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// parseCtx holds what parsing one query needs: the original text (for error
// positions), the nesting limit and a tidb parser configured for normalised
// PostgreSQL. It dispatches each statement to the parser of its family
// (selectParser, dmlParser, ddlParser, sessionParser), which embed it, and
// holds the tidb-facing steps they share (tidb, expr, items).
type parseCtx struct {
	query    string
	tp       *parser.Parser
	maxDepth int // expression nesting allowed (see checkDepth)
}

// tidbParsers recycles tidb parsers: building one allocates tens of
// kilobytes, which dominated the cost of trivial statements (SELECT 1).
// A parser holds no state between parses that matters to us.
var tidbParsers = sync.Pool{New: func() any {
	tp := parser.New()
	tp.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModeNoBackslashEscapes | mysql.ModePipesAsConcat)
	return tp
}}

func newParseCtx(query string, maxDepth int) *parseCtx {
	return &parseCtx{query: query, tp: tidbParsers.Get().(*parser.Parser), maxDepth: maxDepth}
}

// release returns the parser to the pool; p must not parse again.
func (p *parseCtx) release() {
	tidbParsers.Put(p.tp)
	p.tp = nil
}

// rendered is normalised text with each token's start offset.
type rendered struct {
	text   string
	starts []int
	toks   []ntok
}

// render joins tokens, gluing names to '.' and function names to '('.
func renderTidb(toks []ntok) rendered {
	var b strings.Builder
	r := rendered{toks: toks, starts: make([]int, len(toks))}
	for k, t := range toks {
		if k > 0 && !tidbGlued(toks[k-1], t) {
			b.WriteByte(' ')
		}
		r.starts[k] = b.Len()
		if t.kind == tkIdent && strings.HasPrefix(t.text, "_") {
			// Quoted: tidb's lexer looks up every bare word starting with
			// '_' as a MySQL charset introducer (_utf8'...'), building an
			// error with a stack trace for each miss; the internal calls
			// (__param, __cast) are one per literal of an INSERT.
			b.WriteByte('`')
			b.WriteString(t.text)
			b.WriteByte('`')
			continue
		}
		b.WriteString(t.text)
	}
	r.text = b.String()
	return r
}

func tidbGlued(prev, cur ntok) bool {
	if prev.text == "." || cur.text == "." {
		return true
	}
	return cur.text == "(" && (prev.kind == tkQIdent || prev.kind == tkIdent && !operandStopWords[prev.text])
}

// tidb parses normalised tokens, mapping a syntax error back to the
// original text; stop is the original token after toks.
func (p *parseCtx) tidb(toks []ntok, stop token) ([]ast.StmtNode, error) {
	toks = balanceChains(toks)
	if err := checkDepth(toks, p.maxDepth); err != nil {
		return nil, err
	}
	r := renderTidb(toks)
	stmts, _, err := p.tp.ParseSQL(r.text)
	if err != nil {
		return nil, p.mapTidbError(r, stop, err)
	}
	// The parser reuses its result slice on the next parse.
	return slices.Clone(stmts), nil
}

// mapTidbError turns a tidb error into PostgreSQL's 42601 at the original
// token. tidb reports the unparsed rest of its input after `near "`.
func (p *parseCtx) mapTidbError(r rendered, stop token, err error) error {
	msg := err.Error()
	idx := strings.Index(msg, `near "`)
	if idx < 0 {
		return &pgerr.Error{Code: pgerr.SyntaxError, Message: "syntax error: " + msg, Err: err}
	}
	rest := msg[idx+len(`near "`):]
	off := -1
	if m := strings.Index(msg, "(total length "); m >= 0 {
		if n, convErr := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(msg[m+len("(total length "):]), ")")); convErr == nil {
			off = len(r.text) - n
		}
	}
	if off < 0 {
		off = len(r.text)
		for k, s := range r.starts {
			if strings.HasPrefix(rest, r.text[s:]+`"`) {
				off = r.starts[k]
				break
			}
		}
	}
	var e *pgerr.Error
	if off >= len(r.text) || len(r.toks) == 0 {
		e = syntaxErrorAt(p.query, stop)
	} else {
		k := sort.SearchInts(r.starts, off+1) - 1
		e = syntaxErrorAt(p.query, r.toks[max(k, 0)].src)
	}
	e.Err = err
	return e
}

// expr parses in (tokens of one expression) as a standalone expression.
// exprSyntax is expr as Syntax.
func (p *parseCtx) exprSyntax(in []token, stop token) (Syntax, error) {
	e, err := p.expr(in, stop)
	return syntaxOf(e), err
}

func (p *parseCtx) expr(in []token, stop token) (parse.Expr, error) {
	e, err := p.exprTiDB(in, stop)
	if err != nil {
		return nil, err
	}
	return parse.ExprOf(e), nil
}

// exprTiDB is expr as tidb parsed it.
func (p *parseCtx) exprTiDB(in []token, stop token) (ast.ExprNode, error) {
	if len(in) == 0 {
		return nil, syntaxErrorAt(p.query, stop)
	}
	norm, err := normalizeStop(p.query, in, stop)
	if err != nil {
		return nil, err
	}
	first := in[0]
	toks := append([]ntok{{text: "select", kind: tkIdent, src: first}, {text: "(", kind: tkPunct, src: first}}, norm...)
	toks = append(toks, ntok{text: ")", kind: tkPunct, src: stop})
	stmts, err := p.tidb(toks, stop)
	if err != nil {
		return nil, err
	}
	sel, ok := singleSelect(stmts)
	if !ok || len(sel.Fields.Fields) != 1 {
		return nil, syntaxErrorAt(p.query, first)
	}
	switch e := sel.Fields.Fields[0].Expr.(type) {
	case *ast.RowExpr:
		return nil, syntaxErrorAt(p.query, firstTopLevelComma(in, stop))
	case *ast.ParenthesesExpr:
		return e.Expr, nil
	}
	return nil, syntaxErrorAt(p.query, first)
}

// items parses a select list (RETURNING ...).
func (p *parseCtx) items(in []token, stop token) ([]SelectItem, error) {
	if len(in) == 0 {
		return nil, syntaxErrorAt(p.query, stop)
	}
	norm, err := normalizeStop(p.query, in, stop)
	if err != nil {
		return nil, err
	}
	toks := append([]ntok{{text: "select", kind: tkIdent, src: in[0]}}, norm...)
	stmts, err := p.tidb(toks, stop)
	if err != nil {
		return nil, err
	}
	sel, ok := singleSelect(stmts)
	if !ok || sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil {
		return nil, syntaxErrorAt(p.query, in[0])
	}
	return selectItems(parse.QueryOf(sel).(*parse.Select).Fields), nil
}

func singleSelect(stmts []ast.StmtNode) (*ast.SelectStmt, bool) {
	if len(stmts) != 1 {
		return nil, false
	}
	sel, ok := stmts[0].(*ast.SelectStmt)
	return sel, ok
}

func selectItems(fields []parse.Field) []SelectItem {
	if fields == nil {
		return nil
	}
	items := make([]SelectItem, 0, len(fields))
	for _, f := range fields {
		if f.Star {
			items = append(items, SelectItem{Star: true, StarQualifier: f.StarOf})
			continue
		}
		items = append(items, SelectItem{Expr: syntaxOf(f.Expr), Alias: f.Alias})
	}
	return items
}

func firstTopLevelComma(in []token, stop token) token {
	depth := 0
	for _, t := range in {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth == 0 && t.isPunct(","):
			return t
		}
	}
	return stop
}

// parseExpr parses one standalone PostgreSQL expression.
func parseExpr(text string) (parse.Expr, error) {
	e, err := parseExprTiDB(text)
	if err != nil {
		return nil, err
	}
	return parse.ExprOf(e), nil
}

// parseExprTiDB is parseExpr as tidb parsed it.
func parseExprTiDB(text string) (ast.ExprNode, error) {
	toks, err := lexAll(text)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		if t.isPunct(";") {
			return nil, syntaxErrorAt(text, t)
		}
	}
	p := newParseCtx(text, DepthForStackKB(DefaultMaxStackDepthKB))
	defer p.release()
	e, err := p.exprTiDB(toks, token{kind: tkEOF, pos: len(text), end: len(text)})
	if err != nil {
		return nil, fmtErr("parse expression", err)
	}
	return e, nil
}

// fmtErr keeps *pgerr.Error values as they are (they carry SQLSTATE and position)
// and wraps anything else with context.
func fmtErr(what string, err error) error {
	var e *pgerr.Error
	if errors.As(err, &e) {
		return err
	}
	return &pgerr.Error{Code: pgerr.InternalError, Message: what + ": " + err.Error(), Err: err}
}
